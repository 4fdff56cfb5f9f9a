//! Streams and events: the ordered queues work is put on, with the buffer calls (uploads,
//! downloads, copies, fills) queued on them, and the events that time and order them.

use std::sync::Arc;

use cudarc::driver::{
    CudaEvent, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DriverError, ValidAsZeroBits,
};

use crate::emulator::Emulated;
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, DeviceId, DeviceSlice, DeviceSliceMut, Storage};
use bankwise_emu::memory::HostAllocation;

/// An ordered queue of device work (CUDA C++: `cudaStream_t`). Cheap to clone. On the
/// emulator work runs when it is queued, so every stream is already synchronised.
#[derive(Clone, Debug)]
pub struct Stream {
    pub(crate) kind: StreamKind,
}

#[derive(Clone, Debug)]
pub(crate) enum StreamKind {
    Cuda(Arc<CudaStream>),
    Emulated(Arc<Emulated>),
}

impl Stream {
    /// The underlying cudarc stream, for interoperation (cuBLAS handles, cudarc launches);
    /// `None` on the emulator.
    pub fn as_cuda(&self) -> Option<&Arc<CudaStream>> {
        match &self.kind {
            StreamKind::Cuda(s) => Some(s),
            StreamKind::Emulated(_) => None,
        }
    }

    /// Waits for the work queued so far; returns the first error it raised.
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            StreamKind::Cuda(s) => Ok(s.synchronize()?),
            StreamKind::Emulated(_) => Ok(()),
        }
    }

    /// Makes work queued after this call wait for `event` (CUDA C++: `cudaStreamWaitEvent`).
    pub fn wait(&self, event: &Event) -> Result<()> {
        match &self.kind {
            StreamKind::Cuda(s) => Ok(s.wait(&event.event)?),
            StreamKind::Emulated(_) => Err(Error::NeedsGpu("waiting for an event")),
        }
    }

    fn wrap<T>(&self, slice: cudarc::driver::CudaSlice<T>) -> DeviceBuffer<T> {
        let StreamKind::Cuda(stream) = &self.kind else { unreachable!("cudarc slices come from CUDA streams") };
        let ptr = slice.device_ptr(stream).0;
        DeviceBuffer::from_parts(Storage::Cuda(slice), ptr, self.device_id())
    }

    /// A zeroed host buffer of `len` elements for the emulator.
    fn host_buffer<T>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or(Error::HostOutOfMemory { bytes: usize::MAX })?;
        let alloc = HostAllocation::zeroed(bytes).ok_or(Error::HostOutOfMemory { bytes })?;
        let ptr = alloc.as_ptr() as u64;
        Ok(DeviceBuffer::from_parts(Storage::Host { alloc, len }, ptr, self.device_id()))
    }

    /// A cudarc stream as a bankwise [`Stream`]: work bankwise queues on it is ordered with the
    /// caller's own work on it, and nothing is synchronised behind the caller's back.
    pub fn from_cuda(stream: Arc<CudaStream>) -> Stream {
        Stream { kind: StreamKind::Cuda(stream) }
    }

    /// Which device the stream belongs to.
    pub fn device_id(&self) -> DeviceId {
        match &self.kind {
            StreamKind::Cuda(s) => DeviceId::of_context(s.context()),
            StreamKind::Emulated(e) => DeviceId::Emulated(e.id),
        }
    }

    /// A device allocation of `len` elements by `alloc` (`len` > 0): running out of memory is
    /// [`Error::OutOfMemory`] with the bytes asked for and the device's free memory then.
    fn allocate<T>(
        s: &Arc<CudaStream>,
        len: usize,
        alloc: impl FnOnce() -> std::result::Result<CudaSlice<T>, DriverError>,
    ) -> Result<CudaSlice<T>> {
        let memory = || s.context().mem_get_info();
        // cudarc multiplies unchecked: a size past the address space is refused here.
        let Some(bytes) = len.checked_mul(std::mem::size_of::<T>()) else {
            let (free, total) = memory()?;
            return Err(Error::OutOfMemory { requested: usize::MAX, free, total });
        };
        alloc().map_err(|e| Error::from_allocation(e, bytes, memory))
    }

    /// Copies `data` to a new device buffer (an empty slice gives an empty buffer).
    /// [`Error::OutOfMemory`] where the device has not the memory.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        match &self.kind {
            StreamKind::Cuda(s) => {
                let slice =
                    if data.is_empty() { s.null()? } else { Self::allocate(s, data.len(), || s.clone_htod(data))? };
                Ok(self.wrap(slice))
            }
            StreamKind::Emulated(_) => {
                let mut buf = self.host_buffer::<T>(data.len())?;
                buf.host_bytes_mut().expect("a host buffer").copy_from_slice(as_bytes(data));
                Ok(buf)
            }
        }
    }

    /// A new device buffer of `len` zeroed elements (`len` may be 0). [`Error::OutOfMemory`]
    /// where the device has not the memory.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        match &self.kind {
            StreamKind::Cuda(s) => {
                let slice = if len == 0 { s.null()? } else { Self::allocate(s, len, || s.alloc_zeros(len))? };
                Ok(self.wrap(slice))
            }
            StreamKind::Emulated(_) => self.host_buffer(len),
        }
    }

    /// A new device buffer of `len` elements that are not initialised (`len` may be 0): for
    /// workspaces a launch writes whole before anything reads them, without `alloc_zeros`'s
    /// fill. The emulator's are zeroed. [`Error::OutOfMemory`] where the device has not the
    /// memory.
    ///
    /// # Safety
    /// Nothing may read an element before it is written (the host through
    /// [`Stream::download`] included): its value is undefined.
    pub unsafe fn alloc_uninit<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        match &self.kind {
            StreamKind::Cuda(s) => {
                // Safety: the caller reads no element before writing it.
                let slice = if len == 0 { s.null()? } else { Self::allocate(s, len, || unsafe { s.alloc(len) })? };
                Ok(self.wrap(slice))
            }
            StreamKind::Emulated(_) => self.host_buffer(len),
        }
    }

    /// Copies a device buffer back to a new `Vec`, waiting for the work queued before.
    pub fn download<T: DeviceRepr>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        if buf.is_empty() {
            self.synchronize()?;
            return Ok(Vec::new());
        }
        match (&self.kind, buf.as_cuda_slice()) {
            (StreamKind::Cuda(s), Some(slice)) => Ok(s.clone_dtoh(slice)?),
            (StreamKind::Emulated(_), None) => {
                let bytes = buf.host_bytes().expect("a host buffer");
                let mut out = Vec::<T>::with_capacity(buf.len());
                // Safety: `out` has room for `len` elements, `bytes` holds exactly their bytes,
                // and T is a DeviceRepr (plain data, as the kernel wrote it).
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), bytes.len());
                    out.set_len(buf.len());
                }
                Ok(out)
            }
            _ => Err(Error::ForeignStream),
        }
    }

    /// Overwrites a device buffer with `data`, which must have its length.
    pub fn upload_into<T: DeviceRepr>(&self, data: &[T], buf: &mut DeviceBuffer<T>) -> Result<()> {
        if data.len() != buf.len() {
            return Err(Error::HostLengthMismatch { host: data.len(), device: buf.len() });
        }
        if data.is_empty() {
            return Ok(());
        }
        match &self.kind {
            StreamKind::Cuda(s) => {
                let slice = buf.as_cuda_slice_mut().ok_or(Error::ForeignStream)?;
                s.memcpy_htod(data, slice)?;
            }
            StreamKind::Emulated(_) => {
                buf.host_bytes_mut().ok_or(Error::ForeignStream)?.copy_from_slice(as_bytes(data));
            }
        }
        Ok(())
    }

    /// Overwrites a part of a device buffer (a [`DeviceBuffer::slice_mut`]) with `data`, which
    /// must have its length.
    pub fn upload_into_slice<T: DeviceRepr>(&self, data: &[T], dst: &mut DeviceSliceMut<'_, T>) -> Result<()> {
        if data.len() != dst.len() {
            return Err(Error::HostLengthMismatch { host: data.len(), device: dst.len() });
        }
        if data.is_empty() {
            return Ok(());
        }
        match &self.kind {
            // Safety: `dst` is `data.len()` elements of a live allocation, borrowed mutably.
            StreamKind::Cuda(s) => unsafe {
                cudarc::driver::result::memcpy_htod_async(dst.device_ptr(), data, s.cu_stream())?;
            },
            // Safety: as above; on the emulator the address is a host address.
            StreamKind::Emulated(_) => unsafe {
                let bytes = as_bytes(data);
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst.device_ptr() as *mut u8, bytes.len());
            },
        }
        Ok(())
    }

    /// Sets every byte of `buf` to `byte`.
    pub fn fill_bytes<T>(&self, buf: &mut DeviceBuffer<T>, byte: u8) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        match &self.kind {
            StreamKind::Cuda(s) => {
                let bytes = buf.bytes();
                let slice = buf.as_cuda_slice_mut().ok_or(Error::ForeignStream)?;
                let (ptr, _sync) = slice.device_ptr_mut(s);
                // SAFETY: `ptr` is the start of `buf`'s live allocation of `bytes` bytes, borrowed
                // mutably and queued on the stream it belongs to.
                unsafe { cudarc::driver::result::memset_d8_async(ptr, byte, bytes, s.cu_stream())? };
            }
            StreamKind::Emulated(_) => buf.host_bytes_mut().ok_or(Error::ForeignStream)?.fill(byte),
        }
        Ok(())
    }

    /// Copies `src` into `dst` (same length) with the driver's `cuMemcpyDtoDAsync`.
    pub fn copy_dtod<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::CopyLengthMismatch { src: src.len(), dst: dst.len() });
        }
        if src.is_empty() {
            return Ok(());
        }
        match &self.kind {
            StreamKind::Cuda(s) => {
                let (from, to) = (src.as_cuda_slice(), dst.as_cuda_slice_mut());
                s.memcpy_dtod(from.ok_or(Error::ForeignStream)?, to.ok_or(Error::ForeignStream)?)?;
            }
            StreamKind::Emulated(_) => {
                let from = src.host_bytes().ok_or(Error::ForeignStream)?.to_vec();
                dst.host_bytes_mut().ok_or(Error::ForeignStream)?.copy_from_slice(&from);
            }
        }
        Ok(())
    }

    /// Copies the elements of the view `src` into `dst`, of the same length, with the driver
    /// (`cuMemcpyDtoDAsync`): views of any alignment, of memory of this stream's device
    /// ([`Error::WrongDevice`] otherwise).
    pub fn copy_views<T>(&self, src: DeviceSlice<'_, T>, dst: DeviceSliceMut<'_, T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::CopyLengthMismatch { src: src.len(), dst: dst.len() });
        }
        for (what, memory) in [("src", src.device_id()), ("dst", dst.device_id())] {
            if memory != self.device_id() {
                return Err(Error::WrongDevice { what: what.into(), memory, device: self.device_id() });
            }
        }
        let bytes = src.len() * std::mem::size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        match &self.kind {
            StreamKind::Cuda(s) => {
                s.context().bind_to_thread()?;
                // SAFETY: both views hold `bytes` bytes of this device's memory, borrowed (the
                // destination mutably) for the copy, which the stream orders.
                unsafe {
                    cudarc::driver::result::memcpy_dtod_async(dst.device_ptr(), src.device_ptr(), bytes, s.cu_stream())?
                };
            }
            // SAFETY: on the emulator views are host addresses of `bytes` bytes each, the
            // destination borrowed mutably, so apart from the source.
            StreamKind::Emulated(_) => unsafe {
                std::ptr::copy_nonoverlapping(src.device_ptr() as *const u8, dst.device_ptr() as *mut u8, bytes)
            },
        }
        Ok(())
    }

    /// Copies `rows` rows of `cols` elements from `src`, whose rows start `src_ld` elements
    /// apart, into `dst`, whose rows start `dst_ld` apart (a pitched copy: the driver's
    /// `cuMemcpy2DAsync`); what lies between the rows of `dst` is left as it was. Nothing is
    /// copied where `rows` or `cols` is 0. [`Error::BadRowCopy`] where `cols` exceeds a leading
    /// dimension or the last row ends past a buffer.
    pub fn copy_rows<T: DeviceRepr>(
        &self,
        src: &DeviceBuffer<T>,
        src_ld: usize,
        dst: &mut DeviceBuffer<T>,
        dst_ld: usize,
        (rows, cols): (usize, usize),
    ) -> Result<()> {
        let bad = |what| Err(Error::BadRowCopy { rows, cols, src_ld, dst_ld, what });
        if rows == 0 || cols == 0 {
            return Ok(());
        }
        if cols > src_ld || cols > dst_ld {
            return bad("a row is longer than a leading dimension");
        }
        let end = |ld: usize| (rows - 1).checked_mul(ld).and_then(|x| x.checked_add(cols));
        if end(src_ld).is_none_or(|e| e > src.len()) {
            return bad("the source's last row ends past its buffer");
        }
        if end(dst_ld).is_none_or(|e| e > dst.len()) {
            return bad("the destination's last row ends past its buffer");
        }
        let size = std::mem::size_of::<T>();
        match &self.kind {
            StreamKind::Cuda(s) => {
                if src.as_cuda_slice().is_none() || dst.as_cuda_slice().is_none() {
                    return Err(Error::ForeignStream);
                }
                use cudarc::driver::sys;
                let copy = sys::CUDA_MEMCPY2D {
                    srcXInBytes: 0,
                    srcY: 0,
                    srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
                    srcHost: std::ptr::null(),
                    srcDevice: src.device_ptr(),
                    srcArray: std::ptr::null_mut(),
                    srcPitch: src_ld * size,
                    dstXInBytes: 0,
                    dstY: 0,
                    dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
                    dstHost: std::ptr::null_mut(),
                    dstDevice: dst.device_ptr(),
                    dstArray: std::ptr::null_mut(),
                    dstPitch: dst_ld * size,
                    WidthInBytes: cols * size,
                    Height: rows,
                };
                // Safety: both buffers are live device allocations of this context, and the
                // checks above keep every row inside them.
                unsafe { sys::cuMemcpy2DAsync_v2(&copy, s.cu_stream()).result()? };
            }
            StreamKind::Emulated(_) => {
                let from = src.host_bytes().ok_or(Error::ForeignStream)?;
                let to = dst.host_bytes_mut().ok_or(Error::ForeignStream)?;
                for r in 0..rows {
                    let (f, t) = (r * src_ld * size, r * dst_ld * size);
                    to[t..t + cols * size].copy_from_slice(&from[f..f + cols * size]);
                }
            }
        }
        Ok(())
    }
}

/// The bytes of `data` (device-representable values are plain data).
fn as_bytes<T: DeviceRepr>(data: &[T]) -> &[u8] {
    // Safety: DeviceRepr types are plain data with no padding the driver would not also copy.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

/// A marker in a stream's work: for ordering across streams and for device-side timing
/// (CUDA C++: `cudaEvent_t`).
#[derive(Debug)]
pub struct Event {
    pub(crate) event: CudaEvent,
}

impl Event {
    /// Records the event after the work queued on `stream` so far (`cudaEventRecord`).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        let Some(s) = stream.as_cuda() else { return Err(Error::NeedsGpu("recording an event")) };
        Ok(self.event.record(s)?)
    }

    /// Waits until the recorded work has finished (`cudaEventSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.event.synchronize()?)
    }

    /// Whether the work recorded before the event has finished (`cudaEventQuery`), without
    /// waiting.
    pub fn is_complete(&self) -> Result<bool> {
        Ok(self.event.try_is_complete()?)
    }

    /// Milliseconds of device time from this event to `end`, both recorded and finished
    /// (`cudaEventElapsedTime`, resolution about 0.5 µs).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        Ok(f64::from(self.event.elapsed_ms(&end.event)?))
    }
}
