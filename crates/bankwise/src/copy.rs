//! Device-to-device copy through bankwise's own kernel: the baseline every bandwidth figure
//! is compared with.

use crate::element::Element;
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, Gpu, Launch};
use crate::kernels;
use bankwise_layout::copy::{THREADS, blocks};

/// Blocks per multiprocessor at most: enough to fill every SM several times over; beyond it
/// the kernel's grid-stride loop takes over.
const MAX_BLOCKS_PER_SM: u32 = 32;

/// Validates a copy of `src_len` elements of `T` into `dst_len` and plans the `copy_bytes`
/// launch for a device with `multiprocessors` SMs; `None` for an empty copy.
pub fn plan<T: Element>(src_len: usize, dst_len: usize, multiprocessors: u32) -> Result<Option<Launch>> {
    if src_len != dst_len {
        return Err(Error::LengthMismatch {
            buffer: "dst",
            shape: format!("[{src_len}]"),
            expected: src_len,
            actual: dst_len,
        });
    }
    let bytes = (src_len as u64)
        .checked_mul(T::WIDTH.bytes() as u64)
        .ok_or_else(|| Error::ShapeOverflow { shape: format!("[{src_len}]") })?;
    if bytes == 0 {
        return Ok(None);
    }
    let max_blocks = multiprocessors.max(1) * MAX_BLOCKS_PER_SM;
    Ok(Some(Launch {
        kernel: kernels::COPY_BYTES,
        grid: (blocks(bytes, max_blocks), 1, 1),
        block: (THREADS, 1, 1),
        shared_bytes: 0,
        resident: None,
    }))
}

impl Gpu {
    /// Copies `src` into `dst` with the `copy_bytes` kernel (16-byte vector loads and stores).
    /// The two buffers must have the same length; an empty copy does nothing.
    pub fn copy<T: Element>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        let Some(launch) = plan::<T>(src.len(), dst.len(), self.info().multiprocessors)? else { return Ok(()) };
        let bytes = src.bytes() as u64;
        // Safety: both buffers hold `bytes` bytes and are distinct allocations (the borrow
        // checker forbids src == dst); cudarc allocations are 256-byte aligned.
        unsafe { self.launch(launch, (dst, src, bytes)) }
    }

    /// Copies with the driver's `cuMemcpyDtoDAsync`: the vendor reference for [`Gpu::copy`].
    pub fn copy_driver<T: Element>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        if plan::<T>(src.len(), dst.len(), 1)?.is_some() {
            self.device().copy_dtod(src, dst)?;
        }
        Ok(())
    }
}
