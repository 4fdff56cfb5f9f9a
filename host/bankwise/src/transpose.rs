//! Transposes of (batches of) row-major matrices: `dst[b][c][r] = src[b][r][c]`.

use std::fmt;

use crate::element::{Element, words, words_mut};
use crate::error::{Error, Result};
use crate::gpu::{DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::tuning::PlanTarget;
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
    /// start 16-byte aligned (a dimension not a multiple of 16 / element size), 4-byte
    /// elements take `transpose_unaligned_u32` (vectors on misaligned rows) and 1- and 2-byte
    /// ones `Swizzled`, each the fastest measured for them; so do shapes with more than 65 535
    /// columns of tiles, past the grid's limit for one tile per block.
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
/// `grid.2` matrices of the batch (the grid's z limit, 65 535, or 65 532 for the tuned
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
        } else if bytes == 4 {
            let tiles = square(tuned::side(bytes));
            let unaligned = T::Word::UNALIGNED;
            one_per_block(unaligned, tiles, threads, target.tuning.memory.unaligned_residency)
        } else {
            // Measured fastest for 1- and 2-byte elements of shapes with misaligned rows.
            None
        };
        // Past the grid's limit on columns of tiles (over 4 million columns), or for 1- and
        // 2-byte shapes with misaligned rows: the swizzled ladder kernel, which loops.
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
    /// library's default kernel.
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
        let aligned = crate::element::address_alignment(&[src.device_ptr(), dst.device_ptr()]) >= 16;
        let kernel = if kernel == TransposeKernel::Tuned && !aligned { TransposeKernel::Swizzled } else { kernel };
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

    /// The worst and mean wavefronts of the shared-memory accesses of `transpose_unaligned_u32`
    /// for a matrix whose row `r` starts `(m + r · shift) % 4` elements past a 16-byte
    /// boundary; `stagger` as the kernel does it (`unaligned::turn`) or not at all.
    fn unaligned_wavefronts(m: u32, shift: u32, stagger: bool) -> [(u32, f64); 2] {
        let (v, side) = (tuned::vector(4), tuned::side(4));
        let (window, pitch, halo) = (unaligned::window(4), unaligned::pitch(4), unaligned::halo(4));
        let rows = unaligned::tile_rows(4);
        let mut out = [(0, 0.0); 2];
        for (phase, slots) in [rows * window, side * window].into_iter().enumerate() {
            let (mut worst, mut sum, mut n) = (0, 0u32, 0);
            for warp in (0..slots).step_by(32) {
                for step in 0..v {
                    let word = |lane: u32| -> Option<u32> {
                        let s = warp + lane;
                        let (row, q) = (s / window, s % window);
                        let lead = ((m + row * shift) % v) as i64;
                        // The word of element 0: stage, vector q of the aligned window over
                        // tile row `row`; gather, chunk q of output row `row`.
                        let first = if phase == 0 {
                            (row * pitch) as i64 + (q * v) as i64 - lead
                        } else {
                            ((q * v + halo) as i64 - lead) * pitch as i64 + row as i64
                        };
                        let turn = if stagger { unaligned::turn(lane, first, 4) } else { 0 };
                        let i = (step + turn) % v;
                        if phase == 0 {
                            let c = (q * v + i) as i64 - lead;
                            (s < slots && (0..side as i64).contains(&c)).then(|| (first + i as i64) as u32)
                        } else {
                            let tile_row = (q * v + i + halo) as i64 - lead;
                            (0..rows as i64).contains(&tile_row).then(|| tile_row as u32 * pitch + row)
                        }
                    };
                    let mask = (0..32).filter(|&l| word(l).is_some()).fold(0u32, |k, l| k | 1 << l);
                    if mask == 0 {
                        continue;
                    }
                    let op = if phase == 0 { Op::Store } else { Op::Load };
                    let access = Access::from_fn(Width::B4, mask, |l| 4 * word(l).unwrap_or(0) as u64).with_op(op);
                    let w = analyze(&access, &Geometry::MODERN).unwrap().wavefronts();
                    (worst, sum, n) = (worst.max(w), sum + w, n + 1);
                }
            }
            out[phase] = (worst, sum as f64 / n as f64);
        }
        out
    }

    #[test]
    fn unaligned_transpose_staggers_its_lanes_off_a_4_way_conflict() {
        // Every misalignment of the first row (m) and change of it from row to row (shift).
        for shift in 0..4 {
            for m in 0..4 {
                let [(stage, _), (gather, gather_mean)] = unaligned_wavefronts(m, shift, true);
                assert_eq!(stage, 1, "stage, misalignment {m} + {shift}/row");
                assert!(gather <= 2 && gather_mean < 1.7, "gather {gather} ({gather_mean:.2}), {m} + {shift}/row");
            }
        }
        // Without the stagger, 8193 columns (each row one element further off) is 4-way.
        let [(stage, _), (gather, _)] = unaligned_wavefronts(0, 1, false);
        assert_eq!((stage, gather), (4, 6));
    }
}
