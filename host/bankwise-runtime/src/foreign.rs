//! Memory bankwise did not allocate: views of cudarc's slices ([`DeviceRead`], [`DeviceWrite`])
//! and of raw device pointers ([`DeviceSlice::from_raw`]), each refused by a device it does not
//! belong to ([`Error::WrongDevice`]).
//!
//! A launcher takes `&impl DeviceRead<T>` and `&mut impl DeviceWrite<T>`, and turns each into a
//! view for the stream it queues on with [`read()`] and [`write()`]. Besides the view they give an
//! [`Access`], which the launcher keeps until its work is queued; dropping it orders the
//! memory's other users after that work, as cudarc orders its own calls:
//!
//! - a cudarc slice's context that tracks events (cudarc's default) waits, records and is
//!   waited on through the slice's own events;
//! - where the slice was allocated on another stream than the launch's, that stream is made to
//!   wait for the launch's work (an event, not a host wait), so the slice's later use there,
//!   and its free, come after the kernels that read or write it.
//!
//! Nothing waits on the host: the launcher returns once its work is queued.

use std::sync::Arc;

use cudarc::driver::sys::{CUmemorytype, CUpointer_attribute};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop};

use crate::device::Device;
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, DeviceId, DeviceSlice, DeviceSliceMut};
use crate::stream::Stream;

/// What a launch holds of its arguments' memory until its work is queued: dropping it records
/// that work where the memory's other users wait for it (see the [module](self)). Free for
/// bankwise's own buffers and views.
#[must_use = "drop the access only after the work that uses the memory is queued"]
pub struct Access<'a> {
    sync: Option<SyncOnDrop<'a>>,
    /// The memory's own stream and the launch's, where they differ.
    join: Option<(Arc<CudaStream>, &'a CudaStream)>,
}

impl std::fmt::Debug for Access<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access").field("joins", &self.join.is_some()).finish()
    }
}

impl Access<'_> {
    /// An access that orders nothing (memory bankwise allocated, whose users share its stream).
    pub fn none() -> Self {
        Access { sync: None, join: None }
    }
}

impl Drop for Access<'_> {
    fn drop(&mut self) {
        // cudarc's guard records the slice's read or write event on the launch stream.
        drop(self.sync.take());
        if let Some((origin, launch)) = self.join.take() {
            // An event record and a stream wait: a failure means the context is lost, which the
            // next call on it reports.
            origin.context().record_err(origin.join(launch));
        }
    }
}

/// Device memory a kernel can read: bankwise's [`DeviceBuffer`] and views, and cudarc's
/// [`CudaSlice`], [`CudaView`] and [`CudaViewMut`].
pub trait DeviceRead<T> {
    /// The memory as a view for work queued on `stream`, and the [`Access`] to hold until that
    /// work is queued. Does not check the device; [`read()`] does.
    fn read_on<'a>(&'a self, stream: &'a Stream) -> (DeviceSlice<'a, T>, Access<'a>);
}

/// Device memory a kernel can write: bankwise's [`DeviceBuffer`] and [`DeviceSliceMut`], and
/// cudarc's [`CudaSlice`] and [`CudaViewMut`].
pub trait DeviceWrite<T> {
    /// The memory as a view for work queued on `stream` that writes it, and the [`Access`] to
    /// hold until that work is queued. Does not check the device; [`write()`] does.
    fn write_on<'a>(&'a mut self, stream: &'a Stream) -> (DeviceSliceMut<'a, T>, Access<'a>);
}

/// `src` as a view for work on `stream`. [`Error::WrongDevice`], naming it `what`, where it is
/// memory of another device than the stream's.
pub fn read<'a, T, S: DeviceRead<T> + ?Sized>(
    stream: &'a Stream,
    what: &str,
    src: &'a S,
) -> Result<(DeviceSlice<'a, T>, Access<'a>)> {
    let (view, access) = src.read_on(stream);
    check(what, view.device_id(), stream)?;
    Ok((view, access))
}

/// `dst` as a view for work on `stream` that writes it. [`Error::WrongDevice`], naming it
/// `what`, where it is memory of another device than the stream's.
pub fn write<'a, T, D: DeviceWrite<T> + ?Sized>(
    stream: &'a Stream,
    what: &str,
    dst: &'a mut D,
) -> Result<(DeviceSliceMut<'a, T>, Access<'a>)> {
    let (view, access) = dst.write_on(stream);
    check(what, view.device_id(), stream)?;
    Ok((view, access))
}

fn check(what: &str, memory: DeviceId, stream: &Stream) -> Result<()> {
    let device = stream.device_id();
    if memory == device { Ok(()) } else { Err(Error::WrongDevice { what: what.into(), memory, device }) }
}

impl<T> DeviceRead<T> for DeviceBuffer<T> {
    fn read_on<'a>(&'a self, _: &'a Stream) -> (DeviceSlice<'a, T>, Access<'a>) {
        (self.as_slice(), Access::none())
    }
}

impl<T> DeviceWrite<T> for DeviceBuffer<T> {
    fn write_on<'a>(&'a mut self, _: &'a Stream) -> (DeviceSliceMut<'a, T>, Access<'a>) {
        (self.as_slice_mut(), Access::none())
    }
}

impl<T> DeviceRead<T> for DeviceSlice<'_, T> {
    fn read_on<'a>(&'a self, _: &'a Stream) -> (DeviceSlice<'a, T>, Access<'a>) {
        (*self, Access::none())
    }
}

impl<T> DeviceRead<T> for DeviceSliceMut<'_, T> {
    fn read_on<'a>(&'a self, _: &'a Stream) -> (DeviceSlice<'a, T>, Access<'a>) {
        (self.as_slice(), Access::none())
    }
}

impl<T> DeviceWrite<T> for DeviceSliceMut<'_, T> {
    fn write_on<'a>(&'a mut self, _: &'a Stream) -> (DeviceSliceMut<'a, T>, Access<'a>) {
        // A reborrow of the whole range.
        let len = self.len();
        (self.slice_mut(0..len).expect("the whole range"), Access::none())
    }
}

/// The launch stream of `stream` where it is a GPU's of `home` (else the caller's view is of
/// another device, which [`read()`] and [`write()`] refuse before any use).
fn launch_stream(stream: &Stream, home: DeviceId) -> Option<&CudaStream> {
    stream.as_cuda().filter(|s| DeviceId::of_context(s.context()) == home).map(|s| &**s)
}

/// The stream join a cudarc allocation on `origin` needs after work on `launch`.
fn join_of<'a>(origin: &Arc<CudaStream>, launch: &'a CudaStream) -> Option<(Arc<CudaStream>, &'a CudaStream)> {
    (origin.cu_stream() != launch.cu_stream()).then(|| (origin.clone(), launch))
}

macro_rules! cudarc_read {
    ($($t:ty),+) => {$(
        impl<T> DeviceRead<T> for $t {
            fn read_on<'a>(&'a self, stream: &'a Stream) -> (DeviceSlice<'a, T>, Access<'a>) {
                let origin = cudarc::driver::DeviceSlice::stream(self);
                let home = DeviceId::of_context(origin.context());
                let Some(launch) = launch_stream(stream, home) else {
                    // SAFETY: a view `read` refuses before any use (another device's).
                    return (unsafe { DeviceSlice::from_parts(0, self.len(), home) }, Access::none());
                };
                let join = join_of(origin, launch);
                let (ptr, sync) = self.device_ptr(launch);
                // SAFETY: cudarc's memory of `len` elements on `home`, borrowed for `'a`.
                (unsafe { DeviceSlice::from_parts(ptr, self.len(), home) }, Access { sync: Some(sync), join })
            }
        }
    )+};
}
cudarc_read!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

macro_rules! cudarc_write {
    ($($t:ty),+) => {$(
        impl<T> DeviceWrite<T> for $t {
            fn write_on<'a>(&'a mut self, stream: &'a Stream) -> (DeviceSliceMut<'a, T>, Access<'a>) {
                let len = self.len();
                let origin = cudarc::driver::DeviceSlice::stream(self);
                let home = DeviceId::of_context(origin.context());
                let Some(launch) = launch_stream(stream, home) else {
                    // SAFETY: a view `write` refuses before any use (another device's).
                    return (unsafe { DeviceSliceMut::from_parts(0, len, home) }, Access::none());
                };
                let join = join_of(origin, launch);
                let (ptr, sync) = self.device_ptr_mut(launch);
                // SAFETY: cudarc's memory of `len` elements on `home`, borrowed mutably for `'a`.
                (unsafe { DeviceSliceMut::from_parts(ptr, len, home) }, Access { sync: Some(sync), join })
            }
        }
    )+};
}
cudarc_write!(CudaSlice<T>, CudaViewMut<'_, T>);

/// What the driver says of the allocation holding `ptr`: its device's ordinal and the range,
/// `None` where it is not device memory (or memory managed across devices) the driver knows.
/// `cuPointerGetAttributes`, which, unlike the singular call, answers an unknown address with
/// empty attributes rather than an error (which compute-sanitizer would report).
fn allocation_of(ptr: u64) -> Result<Option<(usize, u64, u64)>> {
    let (mut memory_type, mut managed, mut ordinal, mut start, mut size) = (0u32, 0u32, -1i32, 0u64, 0u64);
    let mut attributes = [
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_IS_MANAGED,
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
    ];
    let mut data: [*mut std::ffi::c_void; 5] = [
        (&raw mut memory_type).cast(),
        (&raw mut managed).cast(),
        (&raw mut ordinal).cast(),
        (&raw mut start).cast(),
        (&raw mut size).cast(),
    ];
    // SAFETY: each `data` pointer points at a value of its attribute's type (a 4-byte memory
    // type, flag and ordinal; an 8-byte address and size); the driver only reads `ptr` as an
    // address.
    unsafe {
        cudarc::driver::sys::cuPointerGetAttributes(5, attributes.as_mut_ptr(), data.as_mut_ptr(), ptr).result()?;
    }
    let device = memory_type == CUmemorytype::CU_MEMORYTYPE_DEVICE as u32 || managed != 0;
    Ok((device && ordinal >= 0).then_some((ordinal as usize, start, size)))
}

/// Checks a raw view's address and length against `T` and, on a GPU, against the driver's
/// record of the allocation it points into.
fn check_raw<T>(device: &Device, ptr: u64, len: usize) -> Result<()> {
    let elem_bytes = std::mem::size_of::<T>();
    let bad = |what: String| Err(Error::BadRawPointer { ptr, len, elem_bytes, what });
    let Some(bytes) = len.checked_mul(elem_bytes).and_then(|b| u64::try_from(b).ok()) else {
        return bad("the length in bytes overflows".into());
    };
    if len == 0 {
        return Ok(());
    }
    if !ptr.is_multiple_of(std::mem::align_of::<T>() as u64) {
        return bad(format!("the address is not aligned to {} bytes", std::mem::align_of::<T>()));
    }
    let Some(ctx) = device.context() else {
        // The emulator checks every access against its live allocations as the kernel runs.
        return Ok(());
    };
    ctx.bind_to_thread()?;
    match allocation_of(ptr)? {
        None => bad("the driver does not know it as device memory".into()),
        Some((ordinal, _, _)) if ordinal != ctx.ordinal() => Err(Error::WrongDevice {
            what: format!("the raw pointer {ptr:#x}"),
            memory: DeviceId::Gpu(ordinal),
            device: device.id(),
        }),
        Some((_, start, size)) if ptr.saturating_add(bytes) > start.saturating_add(size) => bad(format!(
            "its allocation ({size} bytes at {start:#x}) ends {} bytes before the view does",
            ptr + bytes - (start + size)
        )),
        Some(_) => Ok(()),
    }
}

impl<T> DeviceSlice<'_, T> {
    /// A read-only view of `len` elements of `T` at the device address `ptr` on `device`
    /// (memory another library allocated). Checked: the address is aligned for `T`, the length
    /// in bytes does not overflow, and, on a GPU, the driver knows the address as memory of
    /// `device` and the view lies inside its allocation ([`Error::BadRawPointer`],
    /// [`Error::WrongDevice`]). A length of 0 takes any address.
    ///
    /// # Safety
    /// For the lifetime chosen, the memory must stay allocated and hold initialised elements of
    /// `T`, and work on other streams must not write it while bankwise's work on the device's
    /// stream reads it (order such work with events). Freeing it is the caller's, after that
    /// work has run.
    pub unsafe fn from_raw(device: &Device, ptr: u64, len: usize) -> Result<Self> {
        check_raw::<T>(device, ptr, len)?;
        // SAFETY: checked above where the driver can tell; the rest is the caller's contract.
        Ok(unsafe { DeviceSlice::from_parts(ptr, len, device.id()) })
    }
}

impl<T> DeviceSliceMut<'_, T> {
    /// A view of `len` elements of `T` at the device address `ptr` on `device` that kernels
    /// write, checked as [`DeviceSlice::from_raw`] is.
    ///
    /// # Safety
    /// As for [`DeviceSlice::from_raw`], and no other view or work may read or write the memory
    /// while bankwise's work writes it, unless ordered with events.
    pub unsafe fn from_raw(device: &Device, ptr: u64, len: usize) -> Result<Self> {
        check_raw::<T>(device, ptr, len)?;
        // SAFETY: as `DeviceSlice::from_raw`.
        Ok(unsafe { DeviceSliceMut::from_parts(ptr, len, device.id()) })
    }
}
