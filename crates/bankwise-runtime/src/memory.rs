//! Device memory: [`DeviceBuffer`] owns an allocation, [`DeviceSlice`] and [`DeviceSliceMut`]
//! borrow a range of one for a launch.

use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};

use cudarc::driver::CudaSlice;
use cudarc::driver::sys::CUdeviceptr;

use crate::error::{Error, Result};

/// A typed allocation in device memory, freed when dropped (CUDA C++: `cudaMalloc` /
/// `cudaFree`). Allocations are 256-byte aligned. Zero-length buffers are allowed.
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    /// The allocation's device address, kept so that a launch can pass a pointer to it.
    ptr: CUdeviceptr,
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.slice.len())
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
    pub(crate) fn from_parts(slice: CudaSlice<T>, ptr: CUdeviceptr) -> Self {
        DeviceBuffer { slice, ptr }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slice.len() * std::mem::size_of::<T>()
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
        Ok(DeviceSlice { ptr, len: r.len(), _buffer: PhantomData })
    }

    /// Elements `range` of the buffer, to pass to a kernel as a pointer it writes through.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let r = resolve(range, self.len())?;
        let ptr = self.ptr + (r.start * std::mem::size_of::<T>()) as u64;
        Ok(DeviceSliceMut { ptr, len: r.len(), _buffer: PhantomData })
    }

    /// The cudarc slice, for interoperation with other cudarc code.
    pub fn as_cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The cudarc slice, mutably.
    pub fn as_cuda_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }

    pub(crate) fn ptr_ref(&self) -> &CUdeviceptr {
        &self.ptr
    }
}

/// A borrowed range of a [`DeviceBuffer`], passed to a kernel as a read-only pointer.
#[derive(Clone, Copy, Debug)]
pub struct DeviceSlice<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
    _buffer: PhantomData<&'a DeviceBuffer<T>>,
}

/// A mutably borrowed range of a [`DeviceBuffer`], passed to a kernel as a pointer it writes.
#[derive(Debug)]
pub struct DeviceSliceMut<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
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
            pub(crate) fn ptr_ref(&self) -> &CUdeviceptr {
                &self.ptr
            }
        }
    };
}
slice_common!(DeviceSlice);
slice_common!(DeviceSliceMut);
