//! Device memory: [`DeviceBuffer`] owns an allocation, [`DeviceSlice`] and [`DeviceSliceMut`]
//! borrow a range of one for a launch.

use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};

use cudarc::driver::CudaSlice;
use cudarc::driver::sys::CUdeviceptr;

use bankwise_emu::memory::HostAllocation;

use crate::error::{Error, Result};

/// A typed allocation in device memory, freed when dropped (CUDA C++: `cudaMalloc` /
/// `cudaFree`). Allocations are 256-byte aligned. Zero-length buffers are allowed. On the
/// emulator it is host memory that the emulator checks every global access against.
pub struct DeviceBuffer<T> {
    storage: Storage<T>,
    /// The allocation's device address (a host address on the emulator), kept so that a
    /// launch can pass a pointer to it.
    ptr: CUdeviceptr,
    /// The device whose memory it is.
    home: DeviceId,
}

/// Which device a buffer, view or stream belongs to: one GPU's context, or one emulated
/// device. A launch refuses memory of another device than its stream's
/// ([`Error::WrongDevice`]), which on a GPU would fault or, with peer access, read across the
/// interconnect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceId {
    /// The GPU of this ordinal (its contexts share its memory's addresses).
    Gpu(usize),
    /// The emulated device of this number (one per [`crate::Device::emulator`] call).
    Emulated(u64),
}

impl DeviceId {
    /// The GPU of a cudarc context.
    pub fn of_context(ctx: &cudarc::driver::CudaContext) -> DeviceId {
        DeviceId::Gpu(ctx.ordinal())
    }
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceId::Gpu(n) => write!(f, "GPU {n}"),
            DeviceId::Emulated(n) => write!(f, "emulated device {n}"),
        }
    }
}

/// Where a buffer's bytes are.
pub(crate) enum Storage<T> {
    Cuda(CudaSlice<T>),
    Host { alloc: HostAllocation, len: usize },
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len())
    }
}

fn resolve(bounds: impl RangeBounds<usize>, len: usize) -> Result<Range<usize>> {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::RangeOutOfBounds { start, end, len });
    }
    Ok(start..end)
}

impl<T> DeviceBuffer<T> {
    pub(crate) fn from_parts(storage: Storage<T>, ptr: CUdeviceptr, home: DeviceId) -> Self {
        DeviceBuffer { storage, ptr, home }
    }

    /// The device whose memory it is.
    pub fn device_id(&self) -> DeviceId {
        self.home
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Cuda(s) => s.len(),
            Storage::Host { len, .. } => *len,
        }
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// The device address of element 0.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Elements `range` of the buffer, to pass to a kernel as a read-only pointer.
    /// A range outside the buffer is [`Error::RangeOutOfBounds`].
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let r = resolve(range, self.len())?;
        let ptr = self.ptr + (r.start * std::mem::size_of::<T>()) as u64;
        Ok(DeviceSlice { ptr, len: r.len(), home: self.home, _buffer: PhantomData })
    }

    /// Elements `range` of the buffer, to pass to a kernel as a pointer it writes through.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let r = resolve(range, self.len())?;
        let ptr = self.ptr + (r.start * std::mem::size_of::<T>()) as u64;
        Ok(DeviceSliceMut { ptr, len: r.len(), home: self.home, _buffer: PhantomData })
    }

    /// The cudarc slice, for interoperation with other cudarc code (`None` on the emulator).
    pub fn as_cuda_slice(&self) -> Option<&CudaSlice<T>> {
        match &self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host { .. } => None,
        }
    }

    /// The cudarc slice, mutably.
    pub fn as_cuda_slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        match &mut self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Host { .. } => None,
        }
    }

    /// An emulator buffer's bytes (launches are synchronous there, so none runs meanwhile).
    pub(crate) fn host_bytes(&self) -> Option<&[u8]> {
        match &self.storage {
            // Safety: emulated launches finish before `launch` returns; none runs now.
            Storage::Host { alloc, .. } => Some(unsafe { alloc.bytes() }),
            Storage::Cuda(_) => None,
        }
    }

    /// An emulator buffer's bytes, mutably.
    pub(crate) fn host_bytes_mut(&mut self) -> Option<&mut [u8]> {
        match &mut self.storage {
            // Safety: as `host_bytes`, and the buffer is borrowed mutably.
            Storage::Host { alloc, .. } => Some(unsafe { alloc.bytes_mut() }),
            Storage::Cuda(_) => None,
        }
    }

    pub(crate) fn ptr_ref(&self) -> &CUdeviceptr {
        &self.ptr
    }

    /// The whole buffer as a read-only slice.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { ptr: self.ptr, len: self.len(), home: self.home, _buffer: PhantomData }
    }

    /// The whole buffer as a slice a kernel writes.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut { ptr: self.ptr, len: self.len(), home: self.home, _buffer: PhantomData }
    }
}

/// A borrowed range of device memory, passed to a kernel as a read-only pointer: of a
/// [`DeviceBuffer`], of another crate's allocation ([`DeviceRead`](crate::DeviceRead) for
/// cudarc's slices), or of a raw device pointer ([`DeviceSlice::from_raw`]).
#[derive(Debug)]
pub struct DeviceSlice<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
    home: DeviceId,
    _buffer: PhantomData<&'a DeviceBuffer<T>>,
}

// By hand: a view is a copyable address whatever `T` is.
impl<T> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DeviceSlice<'_, T> {}

/// A mutably borrowed range of device memory, passed to a kernel as a pointer it writes.
#[derive(Debug)]
pub struct DeviceSliceMut<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
    home: DeviceId,
    _buffer: PhantomData<&'a mut DeviceBuffer<T>>,
}

macro_rules! slice_common {
    ($t:ident) => {
        impl<T> $t<'_, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.len
            }
            /// Whether it holds no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
            /// The device address of its first element.
            pub fn device_ptr(&self) -> u64 {
                self.ptr
            }
            /// The device whose memory it is.
            pub fn device_id(&self) -> DeviceId {
                self.home
            }
            /// A view of `len` elements at `ptr` on `home`.
            ///
            /// # Safety
            /// The memory must be `home`'s, hold `len` elements of `T` and outlive `'a`.
            pub(crate) unsafe fn from_parts(ptr: CUdeviceptr, len: usize, home: DeviceId) -> Self {
                $t { ptr, len, home, _buffer: PhantomData }
            }
            pub(crate) fn ptr_ref(&self) -> &CUdeviceptr {
                &self.ptr
            }
            /// The same bytes seen as elements of `U` (a kernel of one width moves `f32`, `u32`
            /// and `i32` alike; a byte copy moves anything): `None` where the bytes are not a
            /// whole number of `U`s or do not start aligned for `U`.
            ///
            /// # Safety
            /// Every bit pattern a kernel leaves in the bytes as `U`s must make valid `T`s
            /// (plain numbers: any pattern does).
            pub unsafe fn cast<'b, U>(self) -> Option<$t<'b, U>>
            where
                Self: 'b,
            {
                let bytes = self.len * std::mem::size_of::<T>();
                let size = std::mem::size_of::<U>();
                let fits =
                    size > 0 && bytes.is_multiple_of(size) && self.ptr.is_multiple_of(std::mem::align_of::<U>() as u64);
                fits.then(|| $t { ptr: self.ptr, len: bytes / size.max(1), home: self.home, _buffer: PhantomData })
            }
        }
    };
}
slice_common!(DeviceSlice);
slice_common!(DeviceSliceMut);

impl<'a, T> DeviceSlice<'a, T> {
    /// Elements `range` of the slice. A range outside it is [`Error::RangeOutOfBounds`].
    pub fn slice(self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let r = resolve(range, self.len)?;
        let ptr = self.ptr + (r.start * std::mem::size_of::<T>()) as u64;
        Ok(DeviceSlice { ptr, len: r.len(), home: self.home, _buffer: PhantomData })
    }
}

impl<T> DeviceSliceMut<'_, T> {
    /// Elements `range` of the slice, reborrowed for a kernel to write through. A range outside
    /// it is [`Error::RangeOutOfBounds`].
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let r = resolve(range, self.len)?;
        let ptr = self.ptr + (r.start * std::mem::size_of::<T>()) as u64;
        Ok(DeviceSliceMut { ptr, len: r.len(), home: self.home, _buffer: PhantomData })
    }

    /// The same range, read-only.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { ptr: self.ptr, len: self.len, home: self.home, _buffer: PhantomData }
    }
}
