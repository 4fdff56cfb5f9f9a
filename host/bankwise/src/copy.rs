//! Device-to-device copies through bankwise's own kernels: `copy_bytes`, the baseline every
//! bandwidth figure is compared with, and `copy_rows_aligned`, which copies rows into rows
//! that start on 16 bytes.

use crate::element::{Element, view, view_mut};
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::tuning::PlanTarget;
use bankwise_builtin::{copy_bytes, copy_rows_aligned};
use bankwise_layout::copy::{THREADS, blocks};
use bankwise_runtime::KernelEntry;

/// `copy_bytes`' parameters: `dst`, `src`, `bytes`.
type CopyBytes = (*mut u8, *const u8, u64);
/// `copy_rows_aligned`'s parameters: `dst`, `dst_ld`, `src`, `src_ld`, `rows`, `row_words`.
type CopyRows = (*mut u32, u64, *const u32, u64, u64, u64);

/// Validates a copy of `src_len` elements of `T` into `dst_len` and plans the `copy_bytes`
/// launch for `target`: at most its table's
/// [`copy_blocks_per_sm`](crate::tuning::MemoryTuning::copy_blocks_per_sm) blocks per SM,
/// the kernel's grid-stride loop taking the rest; `None` for an empty copy.
pub fn plan<T: Element>(src_len: usize, dst_len: usize, target: PlanTarget<'_>) -> Result<Option<Launch<CopyBytes>>> {
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
    let max_blocks = target.multiprocessors.max(1).saturating_mul(target.tuning.memory.copy_blocks_per_sm);
    let kernel: KernelEntry<CopyBytes> = copy_bytes;
    Ok(Some(Launch::new(kernel, (blocks(bytes, max_blocks), 1, 1), (THREADS, 1, 1))))
}

/// Warps per block of `copy_rows_aligned`, one row each at a time.
const ROW_WARPS: u32 = 8;

/// Validates a copy of `rows` rows of `cols` elements of `T` from a buffer of `src_len` whose
/// rows start `src_ld` apart into one of `dst_len` whose rows start `dst_ld` apart, on 16
/// bytes, and plans the `copy_rows_aligned` launch for a device with `multiprocessors` SMs;
/// `None` where `rows` or `cols` is 0. Each destination row is padded with zeros to the next
/// 16 bytes, which must lie inside the buffer. [`Error::Runtime`] (`BadRowCopy`) where an
/// element is not a whole number of 4-byte words, a row is longer than a leading dimension,
/// the destination's rows do not start on 16 bytes, a leading dimension's words overflow 64
/// bits, or a last row ends past its buffer.
pub fn plan_rows<T: Element>(
    (src_len, src_ld): (usize, usize),
    (dst_len, dst_ld): (usize, usize),
    (rows, cols): (usize, usize),
    target: PlanTarget<'_>,
) -> Result<Option<Launch<CopyRows>>> {
    let bad = |what| Err(Error::Runtime(bankwise_runtime::Error::BadRowCopy { rows, cols, src_ld, dst_ld, what }));
    if rows == 0 || cols == 0 {
        return Ok(None);
    }
    let bytes = T::WIDTH.bytes();
    if bytes % 4 != 0 {
        return bad("its elements are narrower than the kernel's 4-byte words");
    }
    if cols > src_ld || cols > dst_ld {
        return bad("a row is longer than a leading dimension");
    }
    // Elements per 16 bytes (`bytes` is 4 or 8: every element type is at most 8 bytes).
    let per_vector = (16 / bytes).max(1);
    if !dst_ld.is_multiple_of(per_vector) {
        return bad("the destination's rows do not start on 16 bytes");
    }
    let words = |x: usize| x.checked_mul(bytes / 4).and_then(|w| u64::try_from(w).ok());
    if words(src_ld).is_none() || words(dst_ld).is_none() {
        return bad("a leading dimension overflows 64-bit word offsets");
    }
    let padded = cols.next_multiple_of(per_vector);
    let end = |ld: usize, row: usize| (rows - 1).checked_mul(ld).and_then(|x| x.checked_add(row));
    if end(src_ld, cols).is_none_or(|e| e > src_len) {
        return bad("the source's last row ends past its buffer");
    }
    if end(dst_ld, padded).is_none_or(|e| e > dst_len) {
        return bad("the destination's last row, padded to 16 bytes, ends past its buffer");
    }
    let per_sm = target.tuning.memory.copy_blocks_per_sm;
    let blocks = rows.div_ceil(ROW_WARPS as usize).min(target.multiprocessors.max(1).saturating_mul(per_sm) as usize);
    let kernel: KernelEntry<CopyRows> = copy_rows_aligned;
    Ok(Some(Launch::new(kernel, (blocks as u32, 1, 1), (ROW_WARPS * 32, 1, 1))))
}

impl Gpu {
    /// Copies `rows` rows of `cols` elements from `src`, whose rows start `src_ld` elements
    /// apart, into `dst`, whose rows start `dst_ld` apart on 16 bytes, with the
    /// `copy_rows_aligned` kernel, padding each row of `dst` with zeros to the next 16 bytes
    /// (what lies past that is left as it was). Errors: as [`plan_rows`].
    pub fn copy_rows_aligned<T: Element>(
        &self,
        src: &DeviceBuffer<T>,
        src_ld: usize,
        dst: &mut DeviceBuffer<T>,
        dst_ld: usize,
        (rows, cols): (usize, usize),
    ) -> Result<()> {
        self.copy_rows_aligned_from(src.slice(..)?, src_ld, dst, dst_ld, (rows, cols))
    }

    /// [`Gpu::copy_rows_aligned`] from a view of this GPU's memory (the kernel reads `src` a
    /// 4-byte word at a time, so any start of a `T` will do).
    pub(crate) fn copy_rows_aligned_from<T: Element>(
        &self,
        src: DeviceSlice<'_, T>,
        src_ld: usize,
        dst: &mut DeviceBuffer<T>,
        dst_ld: usize,
        (rows, cols): (usize, usize),
    ) -> Result<()> {
        let target = self.plan_target();
        let Some(launch) = plan_rows::<T>((src.len(), src_ld), (dst.len(), dst_ld), (rows, cols), target)? else {
            return Ok(());
        };
        let words = (T::WIDTH.bytes() / 4) as u64;
        // `plan_rows` checked that the leading dimensions' words fit 64 bits (and `cols` is
        // below them).
        let [src_ld, dst_ld, cols] = [src_ld, dst_ld, cols].map(|x| x as u64 * words);
        let rows = rows as u64;
        let (dst, src) = (view_mut::<T, u32>(dst.as_slice_mut()), view::<T, u32>(src));
        let (Some(dst), Some(src)) = (dst, src) else { unreachable!("plan_rows took only whole 4-byte words") };
        // Safety: `plan_rows` checked that every row, the destination's padded, lies inside its
        // buffer, that `dst_ld` spans a multiple of 16 bytes (allocations start on 256), and
        // that rows are no longer than the leading dimensions; the borrow checker keeps the
        // buffers apart.
        unsafe { self.launch(launch, (dst, dst_ld, src, src_ld, rows, cols)) }
    }

    /// Copies `src` into `dst` with the `copy_bytes` kernel (16-byte vector loads and stores
    /// where both are 16-byte aligned, as allocations are).
    /// The two must have the same length; an empty copy does nothing.
    pub fn copy<T: Element>(
        &self,
        src: &(impl DeviceRead<T> + ?Sized),
        dst: &mut (impl DeviceWrite<T> + ?Sized),
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        self.copy_slices(src, dst)
    }

    /// [`Gpu::copy`] on views.
    pub(crate) fn copy_slices<T: Element>(&self, src: DeviceSlice<'_, T>, dst: DeviceSliceMut<'_, T>) -> Result<()> {
        let Some(launch) = plan::<T>(src.len(), dst.len(), self.plan_target())? else { return Ok(()) };
        if crate::element::address_alignment(&[src.device_ptr(), dst.device_ptr()]) < 16 {
            // Views off 16 bytes (other libraries' memory): the driver's copy takes any.
            return Ok(self.stream().copy_views(src, dst)?);
        }
        let bytes = (src.len() * std::mem::size_of::<T>()) as u64;
        let (dst, src) = (view_mut::<T, u8>(dst), view::<T, u8>(src));
        let (Some(dst), Some(src)) = (dst, src) else { unreachable!("bytes are whole bytes") };
        // Safety: both views hold `bytes` bytes and start on 16 bytes (above), and the borrow
        // checker keeps a mutable view apart from every other.
        unsafe { self.launch(launch, (dst, src, bytes)) }
    }

    /// Copies with the driver's `cuMemcpyDtoDAsync`: the vendor reference for [`Gpu::copy`].
    pub fn copy_driver<T: Element>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        if plan::<T>(src.len(), dst.len(), self.plan_target())?.is_some() {
            self.device().copy_dtod(src, dst)?;
        }
        Ok(())
    }
}
