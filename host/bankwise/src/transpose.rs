//! Transposes of (batches of) row-major matrices: `dst[b][c][r] = src[b][r][c]`.

use std::fmt;

use crate::element::{Element, words, words_mut};
use crate::error::{Error, Result};
use crate::gpu::{DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::permute::{PermutePlan, Work};
use crate::tuning::PlanTarget;
use bankwise_builtin::permute::SKINNY_MAX_NARROW;
use bankwise_builtin::{TransposeParams, TransposeWord};
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, TileLayout, grid, tuned};
use bankwise_runtime::KernelEntry;

/// The shape of a transpose's input: `batch` row-major matrices of `rows × cols` elements,
/// stored one after another. The output has shape `[batch, cols, rows]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of matrices.
    pub batch: usize,
    /// Rows of each input matrix.
    pub rows: usize,
    /// Columns of each input matrix.
    pub cols: usize,
}

impl Shape {
    /// One `rows × cols` matrix.
    pub const fn new(rows: usize, cols: usize) -> Self {
        Shape { batch: 1, rows, cols }
    }

    /// `batch` matrices of `rows × cols`.
    pub const fn batched(batch: usize, rows: usize, cols: usize) -> Self {
        Shape { batch, rows, cols }
    }

    /// The output's shape: rows and columns swapped.
    pub const fn transposed(self) -> Self {
        Shape { batch: self.batch, rows: self.cols, cols: self.rows }
    }

    /// The number of elements, after checking that no dimension is zero and that the count
    /// fits in memory addresses.
    pub fn elements(self) -> Result<usize> {
        for (what, n) in [("batch", self.batch), ("rows", self.rows), ("cols", self.cols)] {
            if n == 0 {
                return Err(Error::ZeroDimension { what });
            }
        }
        self.batch
            .checked_mul(self.rows)
            .and_then(|n| n.checked_mul(self.cols))
            .filter(|&n| u64::try_from(n).is_ok_and(|n| n.checked_mul(8).is_some()))
            .ok_or_else(|| Error::ShapeOverflow { shape: self.to_string() })
    }

    /// Checks that `src` and `dst` both hold exactly this shape's elements.
    pub fn check_buffers(self, src: usize, dst: usize) -> Result<usize> {
        let n = self.elements()?;
        for (buffer, actual) in [("src", src), ("dst", dst)] {
            if actual != n {
                return Err(Error::LengthMismatch { buffer, shape: self.to_string(), expected: n, actual });
            }
        }
        Ok(n)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.batch == 1 {
            write!(f, "{}×{}", self.rows, self.cols)
        } else {
            write!(f, "{}×{}×{}", self.batch, self.rows, self.cols)
        }
    }
}

/// The transpose kernels, one rung of the ladder each; each changes one thing from the one
/// before. Figures: `docs/benchmarks.md`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransposeKernel {
    /// `transpose_naive`: coalesced reads, strided writes; no shared memory.
    Naive,
    /// `transpose_tiled`: through a 32×32 shared tile, both global sides coalesced; the column
    /// walk of the tile is a 32-way bank conflict for 4-byte elements.
    Tiled,
    /// `transpose_padded`: the tile's pitch padded so the column walk is conflict-free.
    Padded,
    /// `transpose_swizzled`: an XOR swizzle instead of padding; conflict-free, no wasted bytes.
    Swizzled,
    /// `transpose`: the tuned kernel and the library's default: 16-byte vectors on both
    /// global sides, larger tiles, a vector-granular swizzle, exactly one tile per block (no
    /// tile loop, so 32 registers and eight blocks per SM for f32), and from 2^26 4-byte
    /// elements a cap of four resident blocks per SM. 8-byte elements take a tall padded tile
    /// with scalar accesses at any shape, or, up to 2^22 elements whose rows start on a
    /// 32-byte sector, the padded 32 × 32 tile in blocks of 128 threads (up to 2^20, with
    /// cache-streaming loads and stores). Where rows do not all
    /// start 16-byte aligned (a dimension not a multiple of 16 / element size), 2- and 4-byte
    /// elements take `transpose_unaligned_*` (vectors realigned in registers) and 1-byte ones
    /// `Swizzled`; so do shapes with more than 65 535 columns of tiles, past the grid's limit
    /// for one tile per block. Through [`Gpu::transpose_with`], a matrix with a side of 2 to 63
    /// takes the permutation's skinny transpose instead, where its rows span whole words.
    #[default]
    Tuned,
}

impl TransposeKernel {
    /// Every kernel, in ladder order.
    pub const ALL: [TransposeKernel; 5] = [
        TransposeKernel::Naive,
        TransposeKernel::Tiled,
        TransposeKernel::Padded,
        TransposeKernel::Swizzled,
        TransposeKernel::Tuned,
    ];

    /// The kernel's name, as in the PTX without the width suffix.
    pub const fn name(self) -> &'static str {
        match self {
            TransposeKernel::Naive => "transpose_naive",
            TransposeKernel::Tiled => "transpose_tiled",
            TransposeKernel::Padded => "transpose_padded",
            TransposeKernel::Swizzled => "transpose_swizzled",
            TransposeKernel::Tuned => "transpose",
        }
    }

    /// The shared-memory layout of the 32×32 tile of the ladder's kernels (`None`: the naive
    /// kernel, which uses no shared memory, and the tuned one, see `bankwise_layout::transpose::tuned`).
    pub const fn tile_layout(self) -> Option<TileLayout> {
        match self {
            TransposeKernel::Naive | TransposeKernel::Tuned => None,
            TransposeKernel::Tiled => Some(TileLayout::Plain),
            TransposeKernel::Padded => Some(TileLayout::Padded),
            TransposeKernel::Swizzled => Some(TileLayout::Swizzled),
        }
    }

    /// The rung's entry for elements of `W`'s width.
    pub fn entry<W: TransposeWord>(self) -> KernelEntry<TransposeParams<W>> {
        match self {
            TransposeKernel::Naive => W::NAIVE,
            TransposeKernel::Tiled => W::TILED,
            TransposeKernel::Padded => W::PADDED,
            TransposeKernel::Swizzled => W::SWIZZLED,
            TransposeKernel::Tuned => W::TUNED,
        }
    }
}

/// Validates a transpose of `shape` from a buffer of `src_len` elements of `T` into one of
/// `dst_len`, and plans the launch of `kernel`'s entry for `T`'s width on `target` (the tuned
/// kernel's residency caps are its table's). One launch covers
/// `grid.2` matrices of the batch (the grid's z limit, 65 535, or 65 520 for the tuned
/// kernels): the launcher repeats it, one launch after another, over the rest.
pub fn plan<T: Element>(
    kernel: TransposeKernel,
    src_len: usize,
    dst_len: usize,
    shape: Shape,
    target: PlanTarget<'_>,
) -> Result<Launch<TransposeParams<T::Word>>> {
    let elements = shape.check_buffers(src_len, dst_len)? as u64;
    let (rows, cols, batch) = (shape.rows as u64, shape.cols as u64, shape.batch as u64);
    let bytes = T::WIDTH.bytes() as u32;
    let entry = kernel.entry::<T::Word>();
    if kernel == TransposeKernel::Tuned {
        // The tiles' shared memory is what each entry declares.
        let one_per_block = |kernel: Option<KernelEntry<_>>, tiles: tuned::Tiles, block, resident| {
            let kernel = kernel?;
            tiles.fits().then_some(Launch { kernel, grid: tiles.grid(), block, shared_bytes: 0, resident })
        };
        let threads = (tuned::THREADS, 1, 1);
        let square = |side| tuned::Tiles::new(side, rows, cols, batch);
        let planned = if bytes == 8 && tuned::small::applies(rows, cols, batch) {
            let tiles = tuned::Tiles::new(TILE, rows, cols, batch);
            let block = (TILE, tuned::small::BLOCK_ROWS, 1);
            let small =
                if elements <= tuned::small::STREAMING_UP_TO { T::Word::SMALL_STREAMING } else { T::Word::SMALL };
            one_per_block(small, tiles, block, None)
        } else if bytes == 8 {
            let tiles = tuned::Tiles::rect(tuned::scalar::ROWS, tuned::scalar::COLS, rows, cols, batch);
            one_per_block(Some(entry), tiles, threads, None)
        } else if tuned::aligned(rows, cols, bytes) {
            let memory = &target.tuning.memory;
            let capped = bytes == 4 && elements >= memory.transpose_capped_from;
            let resident = if capped { memory.transpose_residency } else { None };
            one_per_block(Some(entry), square(tuned::side(bytes)), threads, resident)
        } else {
            // 1-, 2- and 4-byte rows that do not all start 16-byte aligned (1-byte elements have
            // no unaligned entry: the swizzled ladder kernel below).
            let (tall, wide) = (tuned::unaligned::tall(bytes), tuned::unaligned::wide(bytes));
            let tiles = tuned::Tiles::rect(tall, wide, rows, cols, batch);
            let kernel = if elements <= u32::MAX as u64 { T::Word::UNALIGNED } else { T::Word::UNALIGNED_LARGE };
            one_per_block(kernel, tiles, threads, target.tuning.memory.unaligned_residency)
        };
        // Past the grid's limit on columns of tiles (over 4 million columns): the swizzled
        // ladder kernel, which loops.
        return match planned {
            Some(launch) => Ok(launch),
            None => plan::<T>(TransposeKernel::Swizzled, src_len, dst_len, shape, target),
        };
    }
    // The tile's shared memory (`TransposeKernel::tile_layout`) is what the entry declares.
    Ok(Launch::new(entry, grid(rows, cols, batch), (TILE, BLOCK_ROWS, 1)))
}

impl Gpu {
    /// Transposes `src` (shape `shape`) into `dst` (shape `shape.transposed()`) with the
    /// library's default kernel: the tuned transpose, or where one side has 2 to 63 elements and
    /// the other's rows span whole words, the permutation's skinny transpose
    /// ([`crate::permute::Work::Skinny`]).
    ///
    /// ```no_run
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::{Gpu, Shape};
    /// let gpu = Gpu::new()?;
    /// let src = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 × 3
    /// let mut dst = gpu.alloc_zeros::<f32>(6)?;
    /// gpu.transpose(&src, &mut dst, Shape::new(2, 3))?;
    /// assert_eq!(gpu.download(&dst)?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]); // 3 × 2
    /// # Ok(()) }
    /// ```
    pub fn transpose<T: Element>(
        &self,
        src: &(impl DeviceRead<T> + ?Sized),
        dst: &mut (impl DeviceWrite<T> + ?Sized),
        shape: Shape,
    ) -> Result<()> {
        self.transpose_with(TransposeKernel::default(), src, dst, shape)
    }

    /// Transposes with a chosen rung of the ladder (the tuned kernel reads 16-byte vectors:
    /// views that start off 16 bytes take the swizzled rung instead).
    pub fn transpose_with<T: Element>(
        &self,
        kernel: TransposeKernel,
        src: &(impl DeviceRead<T> + ?Sized),
        dst: &mut (impl DeviceWrite<T> + ?Sized),
        shape: Shape,
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        self.transpose_slices(kernel, src, dst, shape)
    }

    /// [`Gpu::transpose_with`] on slices (the permutation's transposes of wider words).
    pub(crate) fn transpose_slices<T: Element>(
        &self,
        kernel: TransposeKernel,
        src: DeviceSlice<'_, T>,
        mut dst: DeviceSliceMut<'_, T>,
        shape: Shape,
    ) -> Result<()> {
        let alignment = crate::element::address_alignment(&[src.device_ptr(), dst.device_ptr()]);
        if kernel == TransposeKernel::Tuned && shape.rows.min(shape.cols) as u64 <= SKINNY_MAX_NARROW {
            // A narrow side: the square tiles would pad it to 64. On an H200, 23 × 2917776 f32
            // runs at 97.2% of the copy this way and 29.0% through them (docs/benchmarks.md).
            shape.check_buffers(src.len(), dst.len())?;
            let dims = [shape.batch, shape.rows, shape.cols];
            let plan = PermutePlan::for_alignment(&dims, &[0, 2, 1], T::WIDTH, alignment)?;
            if matches!(plan.work, Work::Skinny { .. }) {
                return self.run_permute_plan(&plan, src, dst);
            }
        }
        let kernel =
            if kernel == TransposeKernel::Tuned && alignment < 16 { TransposeKernel::Swizzled } else { kernel };
        let launch = plan::<T>(kernel, src.len(), dst.len(), shape, self.plan_target())?;
        let (rows, cols) = (shape.rows as u64, shape.cols as u64);
        let (matrix, per_launch) = (shape.rows * shape.cols, launch.grid.2 as usize);
        for first in (0..shape.batch).step_by(per_launch) {
            let count = per_launch.min(shape.batch - first);
            let span = first * matrix..(first + count) * matrix;
            let (from, to) = (src.slice(span.clone())?, dst.slice_mut(span)?);
            let count = count as u64;
            // Safety: `plan` checked that both slices hold exactly batch·rows·cols elements,
            // so each launch's `count` matrices lie inside them; the kernels bound-check every
            // element of every tile they take. Slices start where their buffers do or a whole
            // number of matrices later, aligned as the kernels need for shapes they take.
            unsafe { self.launch(launch, (words_mut(to), words(from), rows, cols, count))? };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::banks::{Access, Geometry, Op, Width, analyze};
    use bankwise_layout::transpose::tuned::{self, unaligned};

    /// The worst wavefronts per request of `transpose_unaligned_*`'s shared-memory accesses for
    /// `bytes`-byte elements: the staging `STS.128` of each load round, and the gather of each
    /// whole-chunk round (every lane reads, as the kernel does), where output row `j` of the tile
    /// starts `(m + j · shift) % V` elements past a 16-byte boundary.
    fn unaligned_wavefronts(bytes: u32, m: u32, shift: u32) -> [u32; 2] {
        let v = tuned::vector(bytes);
        let (per_row, rows_per_k) = (unaligned::vectors_per_row(bytes), unaligned::rows_per_round(bytes));
        let width = match bytes {
            1 => Width::B1,
            2 => Width::B2,
            _ => Width::B4,
        };
        let geometry = Geometry::MODERN;
        let mut worst = [0; 2];
        for k in 0..unaligned::rounds(bytes) {
            for warp in 0..tuned::THREADS / 32 {
                let stage = |lane: u32| {
                    let t = warp * 32 + lane;
                    let (r, tv) = (t / per_row + k * rows_per_k, t % per_row);
                    16 * unaligned::stage_slot(r, tv, bytes) as u64
                };
                let access = Access::from_fn(Width::B16, u32::MAX, stage).with_op(Op::Store);
                worst[0] = worst[0].max(analyze(&access, &geometry).unwrap().wavefronts());
                for i in 0..v {
                    let gather = |lane: u32| {
                        let (j, q) = unaligned::store_role(k * tuned::THREADS + warp * 32 + lane, bytes);
                        let lead = (m + j * shift) % v;
                        (unaligned::offset(unaligned::gather_row(q, i, lead, bytes), j, bytes) * bytes) as u64
                    };
                    let access = Access::from_fn(width, u32::MAX, gather).with_op(Op::Load);
                    worst[1] = worst[1].max(analyze(&access, &geometry).unwrap().wavefronts());
                }
            }
        }
        worst
    }

    #[test]
    fn unaligned_transposes_stage_and_gather_without_conflicts() {
        // Every misalignment of the first output row (m) and change of it from row to row
        // (shift, the rows modulo V): 4 wavefronts per staging STS.128 (512 bytes, the least a
        // warp's 16-byte store takes), 1 per gather.
        for bytes in [1, 2, 4] {
            let v = tuned::vector(bytes);
            for shift in 0..v {
                for m in 0..v {
                    assert_eq!(unaligned_wavefronts(bytes, m, shift), [4, 1], "{bytes}-byte, {m} + {shift}/row");
                }
            }
        }
    }
}
