//! Matrix multiply, `C = α·op(A)·op(B) + β·C`: `op(A)` is `m × k`, `op(B)` `k × n`, `C`
//! `m × n`, each stored row-major with a leading dimension (elements between the starts of
//! consecutive rows, at least the stored row's length); `op` is [`Op::N`] (as stored) or
//! [`Op::T`] (transposed: `A` stored `k × m`), and a batch of such products may be computed at
//! once, each matrix a stride after the one before. As in BLAS, `C` is not read where `β = 0`.
//!
//! The ladder, [`MatmulKernel::ALL`]: naive → coalesced → shared-memory tiles → 1-D and 2-D
//! register tiles → vector loads with a transposed `A` tile → that tile padded or swizzled →
//! warp tiles → the tuned kernel (two stages of tiles, the next step's loads in flight while
//! this one computes; square or wide tiles and `k` split over blocks where `C` has too few
//! tiles, as [`TunedPlan`] picks per shape), which alone takes transposed operands and batches
//! (`kernels/bankwise-kernels/src/matmul.rs`).

use std::fmt;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, DeviceSlice, DeviceSliceMut, Gpu, Launch};
use crate::kernels;
use bankwise_layout::matmul::{
    ATile, GROUP_M, TILE, TILED_SHARED_ELEMENTS, TunedTiles, WARPTILE_A, blocktile_2d, grid_columns_in_x,
    grid_of_batched_tiles, grid_of_tiles, grid_rows_in_x, multistage, tuned,
};
use bankwise_layout::transpose::{MAX_GRID_X, MAX_GRID_YZ};
use bankwise_runtime::KernelEntry;

pub use bankwise_layout::matmul::Op;

mod sealed {
    pub trait Sealed {}
}

/// The element types of the matrix multiply: `f32` and `f64`.
pub trait Float: Element + Into<f64> + bankwise_runtime::ByValue + sealed::Sealed {
    /// Position in per-type tables (0 for `f32`, 1 for `f64`).
    const INDEX: usize;
    /// The matrix multiply's entries for this type.
    const ENTRIES: &'static kernels::MatmulEntries<Self>;
    /// The unit roundoff `u` (2^-24, 2^-53), for error bounds.
    const UNIT_ROUNDOFF: f64;
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl sealed::Sealed for f32 {}
impl Float for f32 {
    const INDEX: usize = 0;
    const ENTRIES: &'static kernels::MatmulEntries<f32> = &kernels::MATMUL_F32;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl sealed::Sealed for f64 {}
impl Float for f64 {
    const INDEX: usize = 1;
    const ENTRIES: &'static kernels::MatmulEntries<f64> = &kernels::MATMUL_F64;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 53) as f64;
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// The dimensions of `C = α·op(A)·op(B) + β·C`, the three leading dimensions, the `op`s and
/// the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatmulShape {
    /// Rows of `op(A)` and `C`.
    pub m: usize,
    /// Columns of `op(B)` and `C`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// `A`'s leading dimension (≥ its stored row's length: `k`, or `m` for [`Op::T`]).
    pub lda: usize,
    /// `B`'s leading dimension (≥ `n`, or `k` for [`Op::T`]).
    pub ldb: usize,
    /// `C`'s leading dimension (≥ `n`).
    pub ldc: usize,
    /// Whether `A` is used as stored or transposed.
    pub op_a: Op,
    /// Whether `B` is used as stored or transposed.
    pub op_b: Op,
    /// Products in the batch (1: one product).
    pub batch: usize,
    /// Elements between the `A`s of the batch (0 for one `A` shared by every product).
    pub stride_a: usize,
    /// Elements between the `B`s of the batch (0 for one shared `B`).
    pub stride_b: usize,
    /// Elements between the `C`s of the batch; they must not overlap.
    pub stride_c: usize,
}

/// One stored matrix of a [`MatmulShape`]: its name, stored rows, stored row length, leading
/// dimension and batch stride.
struct Stored {
    name: &'static str,
    rows: usize,
    row_len: usize,
    ld: usize,
    stride: usize,
}

impl MatmulShape {
    /// One product of packed matrices as stored: leading dimensions `k`, `n`, `n`.
    pub const fn new(m: usize, n: usize, k: usize) -> Self {
        MatmulShape {
            m,
            n,
            k,
            lda: k,
            ldb: n,
            ldc: n,
            op_a: Op::N,
            op_b: Op::N,
            batch: 1,
            stride_a: 0,
            stride_b: 0,
            stride_c: 0,
        }
    }

    /// The same dimensions with these leading dimensions.
    pub const fn with_leading_dimensions(self, lda: usize, ldb: usize, ldc: usize) -> Self {
        MatmulShape { lda, ldb, ldc, ..self }
    }

    /// The same dimensions with these `op`s, and the leading dimensions of packed matrices
    /// stored that way (`A` `k × m` with `lda = m` where `op_a` is [`Op::T`]); set other
    /// leading dimensions after this.
    pub const fn with_ops(self, op_a: Op, op_b: Op) -> Self {
        let lda = if matches!(op_a, Op::N) { self.k } else { self.m };
        let ldb = if matches!(op_b, Op::N) { self.n } else { self.k };
        MatmulShape { op_a, op_b, lda, ldb, ..self }
    }

    /// A batch of `batch` products, each matrix a stride after the one before.
    pub const fn batched(self, batch: usize, stride_a: usize, stride_b: usize, stride_c: usize) -> Self {
        MatmulShape { batch, stride_a, stride_b, stride_c, ..self }
    }

    /// A batch of `batch` products of packed matrices, each right after the one before:
    /// strides of one stored matrix each.
    pub fn batched_packed(self, batch: usize) -> Self {
        let [a, b, c] = self.stored().map(|s| s.rows.saturating_sub(1).saturating_mul(s.ld).saturating_add(s.row_len));
        self.batched(batch, a, b, c)
    }

    /// Floating-point operations, `2·m·n·k` per product, as FLOP/s figures count them.
    pub fn flops(self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.batch as f64
    }

    /// Whether this is one product of matrices as stored, what every rung computes.
    pub fn is_plain(self) -> bool {
        self.op_a == Op::N && self.op_b == Op::N && self.batch == 1
    }

    /// `A`, `B`, `C` as stored.
    fn stored(self) -> [Stored; 3] {
        let (a_rows, a_len) = if self.op_a == Op::N { (self.m, self.k) } else { (self.k, self.m) };
        let (b_rows, b_len) = if self.op_b == Op::N { (self.k, self.n) } else { (self.n, self.k) };
        [
            Stored { name: "A", rows: a_rows, row_len: a_len, ld: self.lda, stride: self.stride_a },
            Stored { name: "B", rows: b_rows, row_len: b_len, ld: self.ldb, stride: self.stride_b },
            Stored { name: "C", rows: self.m, row_len: self.n, ld: self.ldc, stride: self.stride_c },
        ]
    }

    /// Checks the dimensions, the leading dimensions, the strides, and that each buffer holds
    /// its matrices.
    pub fn check_buffers(self, a_len: usize, b_len: usize, c_len: usize) -> Result<()> {
        for (what, n) in [("m", self.m), ("n", self.n), ("k", self.k), ("batch", self.batch)] {
            if n == 0 {
                return Err(Error::ZeroDimension { what });
            }
        }
        for (s, actual) in self.stored().into_iter().zip([a_len, b_len, c_len]) {
            if s.ld < s.row_len {
                return Err(Error::LeadingDimension { matrix: s.name, ld: s.ld, row_len: s.row_len });
            }
            // Addresses are computed in 64 bits on the GPU, in bytes up to 8 per element.
            let fits = |x: usize| u64::try_from(x).is_ok_and(|x| x.checked_mul(8).is_some());
            let overflow = || Error::ShapeOverflow { shape: self.to_string() };
            let one = (s.rows - 1)
                .checked_mul(s.ld)
                .and_then(|x| x.checked_add(s.row_len))
                .filter(|&x| fits(x))
                .ok_or_else(overflow)?;
            if self.batch == 1 && actual < one {
                let (matrix, rows, row_len, ld) = (s.name, s.rows, s.row_len, s.ld);
                return Err(Error::MatrixTooShort { matrix, rows, row_len, ld, expected: one, actual });
            }
            let all = (self.batch - 1)
                .checked_mul(s.stride)
                .and_then(|x| x.checked_add(one))
                .filter(|&x| fits(x))
                .ok_or_else(overflow)?;
            if actual < all {
                let (matrix, batch, stride) = (s.name, self.batch, s.stride);
                return Err(Error::BatchTooShort { matrix, batch, stride, expected: all, actual });
            }
            if s.name == "C" && self.batch > 1 && s.stride < one {
                return Err(Error::OverlappingBatches { stride: s.stride, span: one });
            }
        }
        Ok(())
    }
}

impl fmt::Display for MatmulShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}×{}", self.m, self.n, self.k)?;
        if (self.op_a, self.op_b) != (Op::N, Op::N) {
            let op = |o: Op| if o == Op::N { "N" } else { "T" };
            write!(f, " {}{}", op(self.op_a), op(self.op_b))?;
        }
        let packed = MatmulShape::new(self.m, self.n, self.k).with_ops(self.op_a, self.op_b);
        if (self.lda, self.ldb, self.ldc) != (packed.lda, packed.ldb, packed.ldc) {
            write!(f, " (lda {}, ldb {}, ldc {})", self.lda, self.ldb, self.ldc)?;
        }
        if self.batch != 1 {
            write!(f, " ×{} (strides {}, {}, {})", self.batch, self.stride_a, self.stride_b, self.stride_c)?;
        }
        Ok(())
    }
}

/// The matrix multiply kernels, one rung of the ladder each; each changes one thing from the
/// one before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatmulKernel {
    /// One thread per element of `C`, lanes running down `C`'s rows: uncoalesced.
    Naive,
    /// Lanes along `C`'s rows: every global access coalesced (the article's kernel).
    Coalesced,
    /// Tiles of `A` and `B` staged in shared memory (the article's strategy).
    Tiled,
    /// Each thread accumulates a column of 8 elements of `C` in registers.
    BlockTile1d,
    /// Each thread accumulates an 8 × 8 tile of `C` (8 × 4 for `f64`) in registers.
    BlockTile2d,
    /// 16-byte vector loads, the `A` tile stored transposed.
    Vectorized,
    /// [`Vectorized`](Self::Vectorized) with the `A` tile's rows padded: no bank conflicts
    /// storing it.
    VectorizedPadded,
    /// [`Vectorized`](Self::Vectorized) with the `A` tile swizzled: no bank conflicts storing
    /// it, no padding.
    VectorizedSwizzled,
    /// Threads' sub-tiles arranged by warp: conflict-free shared reads.
    WarpTile,
    /// Warp tiles with two stages of tiles: the next step's loads in flight while this one
    /// computes; transposed operands and batches; square or wide tiles, and `k` split over
    /// blocks where `C` has too few tiles, as [`TunedPlan::for_shape`] picks.
    #[default]
    Tuned,
    /// [`Tuned`](Self::Tuned) with its tiles copied asynchronously (`cp.async`) through four
    /// stages: no registers hold tiles in flight; wide tiles for `f64` too (128 × 128). The fastest `f64` rung; slower than
    /// [`Tuned`](Self::Tuned) for `f32`. Needs a GPU of compute capability 8.0 or later
    /// ([`Error::NeedsNewerGpu`] before).
    Multistage,
}

impl MatmulKernel {
    /// Every rung, in ladder order.
    pub const ALL: [MatmulKernel; 11] = [
        MatmulKernel::Naive,
        MatmulKernel::Coalesced,
        MatmulKernel::Tiled,
        MatmulKernel::BlockTile1d,
        MatmulKernel::BlockTile2d,
        MatmulKernel::Vectorized,
        MatmulKernel::VectorizedPadded,
        MatmulKernel::VectorizedSwizzled,
        MatmulKernel::WarpTile,
        MatmulKernel::Tuned,
        MatmulKernel::Multistage,
    ];

    /// Whether the rung is one of the tuned ones ([`Tuned`](Self::Tuned),
    /// [`Multistage`](Self::Multistage)), which take transposed operands and batches and run a
    /// [`TunedPlan`].
    pub const fn is_tuned(self) -> bool {
        matches!(self, MatmulKernel::Tuned | MatmulKernel::Multistage)
    }

    /// The oldest GPU that runs the rung, as a compute capability: that of its module,
    /// [`kernels::SM80`]'s for [`Multistage`](Self::Multistage) (`cp.async`), 7.0 for the others.
    pub const fn min_compute_capability(self) -> (i32, i32) {
        if matches!(self, MatmulKernel::Multistage) { kernels::SM80_MIN_COMPUTE_CAPABILITY } else { (7, 0) }
    }

    /// The rung's name, its entries' prefix.
    pub const fn name(self) -> &'static str {
        match self {
            MatmulKernel::Naive => "matmul_naive",
            MatmulKernel::Coalesced => "matmul_coalesced",
            MatmulKernel::Tiled => "matmul_tiled",
            MatmulKernel::BlockTile1d => "matmul_blocktile_1d",
            MatmulKernel::BlockTile2d => "matmul_blocktile_2d",
            MatmulKernel::Vectorized => "matmul_vectorized",
            MatmulKernel::VectorizedPadded => "matmul_vectorized_padded",
            MatmulKernel::VectorizedSwizzled => "matmul_vectorized_swizzled",
            MatmulKernel::WarpTile => "matmul_warptile",
            MatmulKernel::Tuned => "matmul_tuned",
            MatmulKernel::Multistage => "matmul_multistage",
        }
    }

    /// The rung's entry names for `f32` and `f64` (for the tuned rungs, those of square tiles
    /// and `op`s N, N: [`TunedTile::entry`] gives the others).
    pub fn entries(self) -> [&'static str; 2] {
        [self.entry_names::<f32>()[0], self.entry_names::<f64>()[0]]
    }

    /// The rung's entry name for `T` (square tiles and `op`s N, N for the tuned rungs), in a
    /// one-element array.
    pub fn entry_names<T: Float>(self) -> [&'static str; 1] {
        let e = T::ENTRIES;
        let tuned = |t: &kernels::PerOps<T>| t[0].map_or("", |e| e.name());
        [match self.ladder_index() {
            Some(i) => e.ladder[i].name(),
            None if self == MatmulKernel::Tuned => tuned(&e.tuned),
            None => tuned(&e.multistage),
        }]
    }

    /// The rung's place in [`kernels::MatmulEntries::ladder`] (`None` for the tuned rungs).
    const fn ladder_index(self) -> Option<usize> {
        Some(match self {
            MatmulKernel::Naive => 0,
            MatmulKernel::Coalesced => 1,
            MatmulKernel::Tiled => 2,
            MatmulKernel::BlockTile1d => 3,
            MatmulKernel::BlockTile2d => 4,
            MatmulKernel::Vectorized => 5,
            MatmulKernel::VectorizedPadded => 6,
            MatmulKernel::VectorizedSwizzled => 7,
            MatmulKernel::WarpTile => 8,
            MatmulKernel::Tuned | MatmulKernel::Multistage => return None,
        })
    }

    /// The rung measured fastest for `shape` and `T` on a GPU of `multiprocessors` SMs and
    /// `compute_capability` (H100, `docs/benchmarks.md`): for `f64` from compute capability 8.0
    /// on, [`Multistage`](Self::Multistage) (1.1–1.7× the tuned rung at every measured shape);
    /// otherwise [`Tuned`](Self::Tuned). Both pick their tiles and split `k` where their tiles
    /// are too few to fill the GPU ([`TunedPlan::for_shape`]), and they alone take transposed
    /// operands and batches. For `f32` products of fewer elements than one 128 × 128 tile per
    /// SM whose `k` is too short to split, [`BlockTile1d`](Self::BlockTile1d), whose 64 × 64
    /// tiles make four times as many blocks.
    pub fn for_shape<T: Float>(
        shape: MatmulShape,
        multiprocessors: u32,
        compute_capability: (i32, i32),
    ) -> MatmulKernel {
        if T::INDEX == 1 && compute_capability >= MatmulKernel::Multistage.min_compute_capability() {
            return MatmulKernel::Multistage;
        }
        let plan = TunedPlan::for_shape::<T>(MatmulKernel::Tuned, shape, multiprocessors);
        // Fewer elements of `C` than one 128 × 128 tile per SM.
        let area = (shape.m as u64).saturating_mul(shape.n as u64).saturating_mul(shape.batch as u64);
        let few = area < u64::from(multiprocessors) * 128 * 128;
        if few && plan.split.is_none() && shape.is_plain() && T::INDEX == 0 {
            MatmulKernel::BlockTile1d
        } else {
            MatmulKernel::Tuned
        }
    }

    /// The layout of the rung's `A` tile, for the register-tiled rungs from
    /// [`BlockTile2d`](Self::BlockTile2d) on.
    pub const fn a_tile(self) -> Option<ATile> {
        match self {
            MatmulKernel::BlockTile2d => Some(ATile::RowMajor),
            MatmulKernel::Vectorized => Some(ATile::Plain),
            MatmulKernel::VectorizedPadded => Some(ATile::Padded),
            MatmulKernel::VectorizedSwizzled => Some(ATile::Swizzled),
            MatmulKernel::WarpTile | MatmulKernel::Tuned | MatmulKernel::Multistage => Some(WARPTILE_A),
            _ => None,
        }
    }
}

/// The tuned rung's tile sizes (`bankwise_layout::matmul::tuned`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TunedTile {
    /// 128 × 128 tiles of `C` for `f32`, two blocks per SM; 128 × 64 for `f64`, one.
    #[default]
    Square,
    /// 128 × 256 tiles of `C`, one block of 8 warps per SM: more work per warp between
    /// barriers, half as many tiles. `f32` only in the tuned rung; the multistage rung's `f64`
    /// wide tiles are 128 × 128.
    Wide,
}

impl TunedTile {
    /// Every tile size.
    pub const ALL: [TunedTile; 2] = [TunedTile::Square, TunedTile::Wide];

    /// The tiles of `kernel` (a tuned rung, [`MatmulKernel::is_tuned`]) for `T`; `None` where
    /// `T` has no entries of this size (the tuned rung's wide `f64`) or the kernel is not a tuned
    /// rung.
    pub fn tiles<T: Float>(self, kernel: MatmulKernel) -> Option<TunedTiles> {
        let (bytes, wide) = (size_of::<T>() as u32, self == TunedTile::Wide);
        match kernel {
            MatmulKernel::Tuned if wide && T::INDEX != 0 => None,
            MatmulKernel::Tuned => Some(tuned(bytes, wide)),
            MatmulKernel::Multistage => Some(multistage(bytes, wide)),
            _ => None,
        }
    }

    /// Whether `kernel` runs `shape` for `T` with this size's whole-tile entries (the tuned
    /// rung's `f32` ones, the multistage rung's wide `f64` ones), where the tiles divide `n`
    /// and every row of `A` and `B`, in every product, starts on 16 bytes (the kernel checks
    /// the same again per block, so the choice only decides speed). Every block inside `C`
    /// then loads every step but a partial last one without bounds checks; those of a partial
    /// last row of tiles check theirs, in the same launch: on an H100 4095×4096×4093 ran at
    /// 45.13 TFLOP/s so (wide tiles), 42.39 with the checked entry. A partial last column
    /// of tiles is a strip's ([`TunedPlan::strip`]).
    pub fn whole<T: Float>(self, kernel: MatmulKernel, shape: MatmulShape) -> bool {
        let Some(t) = self.tiles::<T>(kernel) else { return false };
        let s = t.warps.tiles;
        let aligned = starts_on_16_bytes::<T>;
        let strides = shape.batch == 1 || (aligned(shape.stride_a) && aligned(shape.stride_b));
        let has = match kernel {
            MatmulKernel::Tuned => T::INDEX == 0,
            MatmulKernel::Multistage => T::INDEX == 1 && self == TunedTile::Wide,
            _ => false,
        };
        has && shape.n.is_multiple_of(s.bn as usize) && aligned(shape.lda) && aligned(shape.ldb) && strides
    }

    /// The entry of `kernel` for `T` and `shape`'s `op`s ([`whole`](Self::whole) tiles where
    /// they fit); `None` as for [`tiles`](Self::tiles).
    pub fn entry<T: Float>(
        self,
        kernel: MatmulKernel,
        shape: MatmulShape,
    ) -> Option<KernelEntry<kernels::TunedParams<T>>> {
        let ops = 2 * (shape.op_a == Op::T) as usize + (shape.op_b == Op::T) as usize;
        let whole = self.whole::<T>(kernel, shape);
        let e = T::ENTRIES;
        let table = match (kernel, self) {
            (MatmulKernel::Tuned, TunedTile::Square) if whole => &e.tuned_whole,
            (MatmulKernel::Tuned, TunedTile::Wide) if whole => &e.tuned_wide_whole,
            (MatmulKernel::Tuned, TunedTile::Square) => &e.tuned,
            (MatmulKernel::Tuned, TunedTile::Wide) => &e.tuned_wide,
            (MatmulKernel::Multistage, TunedTile::Wide) if whole => &e.multistage_wide_whole,
            (MatmulKernel::Multistage, TunedTile::Square) => &e.multistage,
            (MatmulKernel::Multistage, TunedTile::Wide) => &e.multistage_wide,
            _ => return None,
        };
        table[ops]
    }

    /// The size's name, as the bench prints it.
    pub const fn name(self) -> &'static str {
        match self {
            TunedTile::Square => "square",
            TunedTile::Wide => "wide",
        }
    }

    /// TFLOP/s of `kernel` for `T` at 4096³ with `shape`'s `op`s on the H100, with the
    /// [`whole`](Self::whole)-tile entries where `shape` takes them, both sizes in one run
    /// (`docs/benchmarks.md`; each rung's in the run that measured it, the `f64` rows and
    /// the `f32` whole-tile ones in the ladder run of 2026-11-24 with interleaved lanes):
    /// what [`TunedPlan::for_shape`] weighs the sizes by.
    pub fn measured_tflops<T: Float>(self, kernel: MatmulKernel, shape: MatmulShape) -> f64 {
        let ops = 2 * matches!(shape.op_a, Op::T) as usize + matches!(shape.op_b, Op::T) as usize;
        let table = match (T::INDEX, kernel, self) {
            (1, MatmulKernel::Multistage, TunedTile::Square) => [18.75, 18.74, 18.82, 18.83],
            (1, MatmulKernel::Multistage, TunedTile::Wide) => [20.75, 20.54, 20.84, 21.04],
            // `f64` has one size in the tuned rung.
            (1, _, _) => [12.43, 11.58, 19.44, 15.79],
            (_, kernel, tile) => Self::f32_tflops(kernel, tile, tile.whole::<T>(kernel, shape)),
        };
        table[ops]
    }

    /// [`measured_tflops`](Self::measured_tflops)' `f32` rows (2026-11-23; the whole-tile
    /// entries and rung 10's square ones 2026-11-24, with their interleaved lanes; the checked
    /// wide entries' are from before their lanes were interleaved, which left them as fast at
    /// 4095×4097×4093).
    const fn f32_tflops(kernel: MatmulKernel, tile: TunedTile, whole: bool) -> [f64; 4] {
        match (kernel, tile, whole) {
            (MatmulKernel::Multistage, TunedTile::Square, _) => [37.35, 34.02, 38.20, 37.16],
            (MatmulKernel::Multistage, TunedTile::Wide, _) => [43.14, 39.80, 43.67, 39.72],
            (_, TunedTile::Square, true) => [44.94, 43.14, 48.25, 45.59],
            (_, TunedTile::Wide, true) => [47.74, 47.16, 47.23, 45.86],
            (_, TunedTile::Square, false) => [43.21, 39.32, 43.38, 40.89],
            (_, TunedTile::Wide, false) => [43.97, 43.23, 44.42, 43.89],
        }
    }
}

/// How a tuned rung ([`MatmulKernel::is_tuned`]) computes a shape: which rung, its tiles,
/// whether it splits `k`, which operands it copies to aligned rows first, and whether it
/// computes the columns past its last whole column of tiles apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunedPlan {
    kernel: MatmulKernel,
    tile: TunedTile,
    split: Option<SplitK>,
    realign: Realign,
    strip: Option<usize>,
}

impl TunedPlan {
    /// What a strip adds to a plan's predicted time ([`for_shape`](Self::for_shape)) beside
    /// its own tiles' waves: its launches (a split of `k` and the sum), a few microseconds
    /// each on an H100, so that small shapes keep one launch.
    pub const STRIP_SECONDS: f64 = 10e-6;

    /// `kernel` with `tile` for `T` and `shape`, with the split its tiles call for on a GPU of
    /// `multiprocessors` SMs ([`SplitK::for_tiles`]). [`Error::TunedPlanUnfit`] where `T` has
    /// no tiles of that size or `kernel` is not a tuned rung.
    pub fn new<T: Float>(
        kernel: MatmulKernel,
        tile: TunedTile,
        shape: MatmulShape,
        multiprocessors: u32,
    ) -> Result<TunedPlan> {
        if !kernel.is_tuned() {
            return Err(Error::TunedPlanUnfit { what: "only the tuned rungs (Tuned, Multistage) run a plan" });
        }
        let tiles = tile
            .tiles::<T>(kernel)
            .ok_or(Error::TunedPlanUnfit { what: "the tuned rung's wide tiles are f32 only" })?;
        let (split, realign) =
            (SplitK::for_tiles(shape, tiles, multiprocessors), Realign::for_shape::<T>(kernel, shape));
        Ok(TunedPlan { kernel, tile, split, realign, strip: None })
    }

    /// The plan of `kernel` (a tuned rung; [`Tuned`](MatmulKernel::Tuned) for any other)
    /// predicted fastest for `T` and `shape` on a GPU of `multiprocessors` SMs: of the sizes
    /// `T` has, the one whose blocks finish first, counting whole waves of the blocks resident
    /// at once, each as long as its tiles' multiply-adds at the size's measured rate
    /// ([`TunedTile::measured_tflops`], on the rows the kernel reads: realigned copies'
    /// where it makes them). A size whose last wave is a sliver loses, unless the columns
    /// past its last whole column of tiles, computed apart as a [`strip`](Self::strip) with
    /// a plan of their own (counted the same way, plus
    /// [`STRIP_SECONDS`](Self::STRIP_SECONDS)), leave fewer waves: 4095×4097×4093 makes 544
    /// wide tiles, 5 waves of 132, against 1056 square ones in 4 waves of 264, and 512 wide
    /// ones in 4 waves beside a one-column strip. On an H100, with the strip against the best
    /// size without one: 41.62 TFLOP/s against 40.84 there, 35.89 against 25.81 at
    /// 2048×2049×2048, 38.44 against 34.37 at 3000×3001×2999 (`docs/benchmarks.md`).
    pub fn for_shape<T: Float>(kernel: MatmulKernel, shape: MatmulShape, multiprocessors: u32) -> TunedPlan {
        Self::fastest::<T>(kernel, shape, multiprocessors, true).1
    }

    /// [`for_shape`](Self::for_shape) with its predicted time in seconds, and with strips
    /// where `strips`.
    fn fastest<T: Float>(kernel: MatmulKernel, shape: MatmulShape, sms: u32, strips: bool) -> (f64, TunedPlan) {
        let kernel = if kernel.is_tuned() { kernel } else { MatmulKernel::Tuned };
        let realign = Realign::for_shape::<T>(kernel, shape);
        // The tiles run on the copies' rows.
        let shape = realign.shape::<T>(shape);
        let plan = TunedPlan { kernel, tile: TunedTile::Square, split: None, realign, strip: None };
        let mut best = (f64::INFINITY, plan);
        for tile in TunedTile::ALL {
            let Some(t) = tile.tiles::<T>(kernel) else { continue };
            let plan = TunedPlan { tile, split: SplitK::for_tiles(shape, t, sms), ..plan };
            let cost = plan.seconds::<T>(shape, sms);
            if cost < best.0 {
                best = (cost, plan);
            }
            let columns = shape.n - shape.n % t.warps.tiles.bn as usize;
            if !strips || columns == shape.n || columns == 0 {
                continue;
            }
            let main = MatmulShape { n: columns, ..shape };
            let rest = MatmulShape { n: shape.n - columns, ..shape };
            let plan = TunedPlan { split: SplitK::for_tiles(main, t, sms), strip: Some(columns), ..plan };
            let cost =
                plan.seconds::<T>(main, sms) + Self::fastest::<T>(kernel, rest, sms, false).0 + Self::STRIP_SECONDS;
            if cost < best.0 {
                best = (cost, plan);
            }
        }
        best
    }

    /// The predicted time in seconds of this plan's tiles (not its strip) over `shape` on
    /// `sms` SMs, as [`for_shape`](Self::for_shape) counts it: with a split, its full slices'
    /// grid and then the shallower last slice's.
    fn seconds<T: Float>(self, shape: MatmulShape, sms: u32) -> f64 {
        let Some(t) = self.tile.tiles::<T>(self.kernel) else { return f64::INFINITY };
        let s = t.warps.tiles;
        let resident = (u64::from(sms) * u64::from(t.min_blocks)).max(1);
        let tiles = (shape.m.div_ceil(s.bm as usize) as u64)
            .saturating_mul(shape.n.div_ceil(s.bn as usize) as u64)
            .saturating_mul(shape.batch as u64);
        let wave_depth = match self.split {
            None => tiles.div_ceil(resident).saturating_mul(shape.k as u64),
            Some(split) => split.wave_depth(shape.k, tiles, resident),
        };
        let per_wave = 2.0 * f64::from(sms) * f64::from(t.min_blocks) * f64::from(s.bm) * f64::from(s.bn);
        wave_depth as f64 * per_wave / (self.tile.measured_tflops::<T>(self.kernel, shape) * 1e12)
    }

    /// The rung.
    pub fn kernel(self) -> MatmulKernel {
        self.kernel
    }

    /// The tile size.
    pub fn tile(self) -> TunedTile {
        self.tile
    }

    /// The split of `k`, if any.
    pub fn split(self) -> Option<SplitK> {
        self.split
    }

    /// The operands copied to aligned rows first.
    pub fn realign(self) -> Realign {
        self.realign
    }

    /// The plan without copying operands to aligned rows (the kernel then reads rows that
    /// do not start on 16 bytes element by element).
    pub fn without_realign(self) -> TunedPlan {
        TunedPlan { realign: Realign::default(), ..self }
    }

    /// The first column of `C` past the plan's tiles, where it computes the columns from
    /// there on apart, with the plan [`for_shape`](Self::for_shape) picks for them alone on
    /// the GPU that runs it (without a strip of its own, on the operands this plan realigned);
    /// its tiles then cover the columns before it.
    pub fn strip(self) -> Option<usize> {
        self.strip
    }

    /// The plan with its tiles over `C`'s columns before `columns` and the rest computed
    /// apart ([`strip`](Self::strip)); [`Gpu::matmul_tuned`] rejects a strip past `n`.
    pub fn with_strip(self, columns: usize) -> TunedPlan {
        TunedPlan { strip: Some(columns), ..self }
    }
}

/// How the tuned rung splits `k` when `C` has too few tiles to give every SM its blocks
/// (1024³ has 64 tiles of 128 × 128 for the 264 blocks an H100 runs at once): a batch of the
/// tuned kernel computes the partial products of consecutive slices of `k` into a workspace,
/// one `m × n` matrix per slice, and `matmul_split_sum` adds them in slice order,
/// `C = α·Σ W + β·C`. One product only (a batch brings its own blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitK {
    /// Slices of `k` (at least 2).
    pub slices: usize,
    /// Depth of every slice but the last, which takes the rest: a multiple of 32.
    pub depth: usize,
}

impl SplitK {
    /// The fewest elements of `k` per slice: 256-deep products ran at 89% of cuBLAS on the
    /// H100 (`docs/decisions.md`, split `k`), so shallower slices would buy blocks with efficiency.
    pub const MIN_DEPTH: usize = 256;
    /// The most slices.
    pub const MAX_SLICES: usize = 16;

    /// The split for `shape` in `tiles` on a GPU of `multiprocessors` SMs: about as many
    /// slices as fill the blocks resident at once (the tiles' `min_blocks` per SM) with the
    /// tiles, no full slice shallower than [`MIN_DEPTH`](Self::MIN_DEPTH) (the last may be),
    /// whatever the `op`s; `None` where that is fewer than 2, and for batches.
    pub fn for_tiles(shape: MatmulShape, tiles: TunedTiles, multiprocessors: u32) -> Option<SplitK> {
        if shape.batch != 1 {
            return None;
        }
        let s = tiles.warps.tiles;
        let count = shape.m.div_ceil(s.bm as usize).saturating_mul(shape.n.div_ceil(s.bn as usize));
        let resident = multiprocessors as usize * tiles.min_blocks as usize;
        let most = (resident / count.max(1)).min(shape.k / Self::MIN_DEPTH).min(Self::MAX_SLICES);
        if most < 2 {
            return None;
        }
        // `most` slices, their depth rounded up to a multiple of 32 and the last one shallower,
        // or rounded down and a shallow rest after them. The full slices run in one grid and a
        // shallower last one in another after it, so the cut whose grids take the least waves
        // times depth wins: 4093 in 8 slices is 7 of 512 and 509, or 8 of 480 and 253.
        let k = shape.k;
        let cut = |depth: usize| {
            let slices = k.div_ceil(depth);
            (2..=Self::MAX_SLICES).contains(&slices).then_some(SplitK { slices, depth })
        };
        let time = |s: &SplitK| s.wave_depth(k, count as u64, resident as u64);
        [cut(k.div_ceil(most).next_multiple_of(32)), cut(k / most / 32 * 32)].into_iter().flatten().min_by_key(time)
    }

    /// What the split's launches cost for `tiles` tiles of `C` with `resident` blocks at once,
    /// in waves times elements of `k`: the full slices' grid, then the shallower last slice's
    /// alone (what [`for_tiles`](Self::for_tiles) and [`TunedPlan::for_shape`] weigh).
    fn wave_depth(self, k: usize, tiles: u64, resident: u64) -> u64 {
        let waves = |blocks: u64| blocks.div_ceil(resident.max(1));
        let (full, last) = self.full_and_last(k);
        let last = if last == 0 { 0 } else { waves(tiles).saturating_mul(last as u64) };
        waves(tiles.saturating_mul(full as u64)).saturating_mul(self.depth as u64).saturating_add(last)
    }

    /// For a split that [`fits`](Self::fits) `k`: the slices as deep as
    /// [`depth`](Self::depth), and the depth of the shallower last one (0 where the slices
    /// divide `k`).
    pub fn full_and_last(self, k: usize) -> (usize, usize) {
        let before = self.slices.saturating_sub(1);
        let last = k.saturating_sub(before.saturating_mul(self.depth));
        if last == self.depth { (self.slices, 0) } else { (before, last) }
    }

    /// Whether the split covers `shape`'s `k` as [`for_tiles`](Self::for_tiles) makes it: one
    /// product, at least 2 slices of a nonzero depth, the last one not empty.
    pub fn fits(self, shape: MatmulShape) -> bool {
        let covers = self.depth.checked_mul(self.slices).is_some_and(|all| all >= shape.k);
        shape.batch == 1 && self.slices >= 2 && self.depth > 0 && covers && (self.slices - 1) * self.depth < shape.k
    }

    /// Elements of the workspace: one `m × n` partial product per slice.
    pub fn workspace_len(self, shape: MatmulShape) -> usize {
        self.slices * shape.m * shape.n
    }
}

/// Whether `elements` of `T` span a multiple of 16 bytes: a leading dimension (or batch
/// stride) after which every row (or matrix) of a buffer starts on 16 bytes, as the tuned
/// rungs' vector loads need (the buffers themselves start on 256).
fn starts_on_16_bytes<T: Float>(elements: usize) -> bool {
    elements.is_multiple_of(16 / size_of::<T>())
}

/// Which operands the tuned rung copies, before multiplying, into a workspace whose rows start
/// on 16 bytes. The kernel reads an operand as 16-byte vectors only where every stored row
/// starts on 16 bytes (a leading dimension of a multiple of 4 `f32`); other rows it reads
/// element by element, with a bounds check each. The copy ([`Gpu::copy_rows_aligned`],
/// 2.45–2.46 TB/s on an H100 for the operands below, where the driver's pitched copy moves
/// 1.56–1.60) moves each element once, which pays where the product reads it many times: an
/// operand is realigned where its rows are not aligned and each of its elements takes part in
/// at least [`MIN_USES`](Self::MIN_USES) multiply-adds (`n` of them for `A`, `m` for `B`),
/// for one product (not a batch), in `f32`, by [`MatmulKernel::Tuned`]. At 4095×4097×4093
/// (`lda` 4093, `ldb` 4097) on an H100, square tiles without a strip: 39.08 TFLOP/s reading
/// both in place, 40.84 after the copies; the picked plan (a strip) 41.34 after them, 40.61
/// after the driver's (`docs/benchmarks.md`). Copies made `f64` slower there (rung 9: 15.73 →
/// 11.82, its element loads outrun its pairs of 16-byte ones; rung 10: 19.39 → 18.86), and
/// rung 10's `f32` (34.72 → 33.63): measured with the driver's copies, not since.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Realign {
    /// Copy `A`.
    pub a: bool,
    /// Copy `B`.
    pub b: bool,
}

impl Realign {
    /// The fewest multiply-adds per element for which an operand is copied. On an H100 the
    /// copy moves 8 bytes per element at about 2.45 TB/s, and the product spends 2 FLOPs per
    /// use at about 43 TFLOP/s, so the copy costs about 70 / uses of the product's time;
    /// reading unaligned rows in place cost about 7.7% at 4095×4097×4093. They break even
    /// near 900 uses; 2048 leaves a margin (shapes between were not measured).
    pub const MIN_USES: usize = 2048;

    /// The operands of `shape` that `kernel` copies for `T`.
    pub fn for_shape<T: Float>(kernel: MatmulKernel, shape: MatmulShape) -> Realign {
        if kernel != MatmulKernel::Tuned || size_of::<T>() != 4 || shape.batch != 1 {
            return Realign::default();
        }
        Realign {
            a: !starts_on_16_bytes::<T>(shape.lda) && shape.n >= Self::MIN_USES,
            b: !starts_on_16_bytes::<T>(shape.ldb) && shape.m >= Self::MIN_USES,
        }
    }

    /// The leading dimension of the copy of rows `row_len` elements long: the next multiple
    /// of 16 bytes.
    pub fn leading_dimension<T: Float>(row_len: usize) -> usize {
        row_len.next_multiple_of(16 / size_of::<T>())
    }

    /// `shape` with the leading dimensions of the copies of the operands this realigns.
    fn shape<T: Float>(self, shape: MatmulShape) -> MatmulShape {
        let [sa, sb, _] = shape.stored();
        let ld = |copied: bool, s: Stored| match s.row_len.checked_next_multiple_of(16 / size_of::<T>()) {
            Some(ld) if copied => ld,
            _ => s.ld,
        };
        MatmulShape { lda: ld(self.a, sa), ldb: ld(self.b, sb), ..shape }
    }
}

/// Validates `C = α·op(A)·op(B) + β·C` of `shape` with buffers of `a_len`, `b_len`, `c_len`
/// elements of `T`, and plans the launch of `kernel`'s entry for `T` (a tuned rung's with
/// `tile`, which the other rungs ignore). For a batch of more than 65,535 products
/// ([`MAX_GRID_YZ`]) the launch covers the first 65,535; the kernel's `first` argument selects
/// each further grid's. Where the tuned rung splits `k` ([`TunedPlan::split`]), the launch is
/// that of the whole product, which the slices' launches adapt.
pub fn plan<T: Float>(
    kernel: MatmulKernel,
    tile: TunedTile,
    shape: MatmulShape,
    a_len: usize,
    b_len: usize,
    c_len: usize,
) -> Result<MatmulLaunch<T>> {
    shape.check_buffers(a_len, b_len, c_len)?;
    if !kernel.is_tuned() && !shape.is_plain() {
        let what = if shape.batch != 1 { "a batch" } else { "a transposed operand" };
        return Err(Error::MatmulUnsupported { kernel: kernel.name(), what });
    }
    let (m, n) = (shape.m as u64, shape.n as u64);
    let bytes = size_of::<T>() as u32;
    let square = (TILE, TILE, 1);
    // The tuned rung's entry, by its tiles and `op`s; the other rungs' by type.
    let mut tuned_entry = None;
    let (grid, block, shared_bytes) = match kernel {
        MatmulKernel::Naive => (grid_rows_in_x(m, n), square, 0),
        MatmulKernel::Coalesced => (grid_columns_in_x(m, n), square, 0),
        MatmulKernel::Tiled => (grid_columns_in_x(m, n), square, TILED_SHARED_ELEMENTS * bytes),
        MatmulKernel::BlockTile1d => {
            use bankwise_layout::matmul::blocktile_1d::{BM, BN, SHARED_ELEMENTS, THREADS};
            (grid_of_tiles(m, n, BM, BN), (THREADS, 1, 1), SHARED_ELEMENTS * bytes)
        }
        MatmulKernel::BlockTile2d
        | MatmulKernel::Vectorized
        | MatmulKernel::VectorizedPadded
        | MatmulKernel::VectorizedSwizzled
        | MatmulKernel::WarpTile => {
            // These rungs share their block tiles; `a_tile` is `Some` for each of them.
            let layout = kernel.a_tile().unwrap_or(ATile::RowMajor);
            let s = blocktile_2d(bytes);
            (grid_of_tiles(m, n, s.bm, s.bn), (s.threads(), 1, 1), s.shared_elements(layout) * bytes)
        }
        MatmulKernel::Tuned | MatmulKernel::Multistage => {
            let unfit = Error::TunedPlanUnfit { what: "the tuned rung's wide tiles are f32 only" };
            let (Some(t), Some(entry)) = (tile.tiles::<T>(kernel), tile.entry::<T>(kernel, shape)) else {
                return Err(unfit);
            };
            tuned_entry = Some(entry);
            let s = t.warps.tiles;
            // One block per tile: the kernel has no grid-stride loop (it would cost spills), and
            // numbers tiles in 32 bits (`grouped_tile`, whose groups span GROUP_M rows of them).
            let (tiles_m, tiles_n) = (m.div_ceil(s.bm as u64), n.div_ceil(s.bn as u64));
            if tiles_m * tiles_n > u64::from(MAX_GRID_X) || tiles_n * u64::from(GROUP_M) > u64::from(u32::MAX) {
                return Err(Error::ShapeOverflow { shape: shape.to_string() });
            }
            (
                grid_of_batched_tiles(m, n, shape.batch as u64, s.bm, s.bn),
                (t.threads(), 1, 1),
                t.shared_elements() * bytes,
            )
        }
    };
    Ok(match (tuned_entry, kernel.ladder_index()) {
        (Some(kernel), _) => MatmulLaunch::Tuned(Launch { kernel, grid, block, shared_bytes, resident: None }),
        (None, Some(i)) => {
            MatmulLaunch::Ladder(Launch { kernel: T::ENTRIES.ladder[i], grid, block, shared_bytes, resident: None })
        }
        (None, None) => unreachable!("the tuned rungs have a tuned entry"),
    })
}

/// A matrix multiply's planned launch: a ladder rung's, or a tuned rung's (which takes the
/// batch's arguments too).
#[derive(Debug, PartialEq, Eq)]
pub enum MatmulLaunch<T> {
    /// A ladder rung ([`kernels::GemmParams`]).
    Ladder(Launch<kernels::GemmParams<T>>),
    /// A tuned or multistage entry ([`kernels::TunedParams`]).
    Tuned(Launch<kernels::TunedParams<T>>),
}

impl<T> Clone for MatmulLaunch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MatmulLaunch<T> {}

impl<T> MatmulLaunch<T> {
    /// The entry's name.
    pub fn kernel(&self) -> &'static str {
        match self {
            MatmulLaunch::Ladder(l) => l.kernel.name(),
            MatmulLaunch::Tuned(l) => l.kernel.name(),
        }
    }

    /// Blocks in x, y, z.
    pub fn grid(&self) -> (u32, u32, u32) {
        match self {
            MatmulLaunch::Ladder(l) => l.grid,
            MatmulLaunch::Tuned(l) => l.grid,
        }
    }

    /// Threads per block in x, y, z.
    pub fn block(&self) -> (u32, u32, u32) {
        match self {
            MatmulLaunch::Ladder(l) => l.block,
            MatmulLaunch::Tuned(l) => l.block,
        }
    }

    /// Dynamic shared memory per block.
    pub fn shared_bytes(&self) -> u32 {
        match self {
            MatmulLaunch::Ladder(l) => l.shared_bytes,
            MatmulLaunch::Tuned(l) => l.shared_bytes,
        }
    }

    /// The tuned entry's launch, if it is one.
    fn tuned(self) -> Option<Launch<kernels::TunedParams<T>>> {
        match self {
            MatmulLaunch::Tuned(l) => Some(l),
            MatmulLaunch::Ladder(_) => None,
        }
    }
}

impl Gpu {
    /// `C = α·op(A)·op(B) + β·C` with the fastest rung measured for the shape and type
    /// ([`MatmulKernel::for_shape`]).
    pub fn matmul<T: Float>(
        &self,
        alpha: T,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        beta: T,
        c: &mut DeviceBuffer<T>,
        shape: MatmulShape,
    ) -> Result<()> {
        let info = self.info();
        let kernel = MatmulKernel::for_shape::<T>(shape, info.multiprocessors, info.compute_capability);
        self.matmul_with(kernel, alpha, a, b, beta, c, shape)
    }

    /// `C = α·op(A)·op(B) + β·C` with a chosen rung of the ladder; the tuned rung with the
    /// plan predicted fastest ([`TunedPlan::for_shape`], then [`matmul_tuned`](Self::matmul_tuned)).
    ///
    /// Errors, before anything is launched: [`Error::ZeroDimension`],
    /// [`Error::LeadingDimension`], [`Error::MatrixTooShort`], [`Error::BatchTooShort`],
    /// [`Error::OverlappingBatches`], [`Error::ShapeOverflow`], and
    /// [`Error::MatmulUnsupported`] for transposed operands or batches with a rung other than
    /// [`MatmulKernel::Tuned`].
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    pub fn matmul_with<T: Float>(
        &self,
        kernel: MatmulKernel,
        alpha: T,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        beta: T,
        c: &mut DeviceBuffer<T>,
        shape: MatmulShape,
    ) -> Result<()> {
        if kernel.is_tuned() {
            let tuned = TunedPlan::for_shape::<T>(kernel, shape, self.info().multiprocessors);
            return self.matmul_tuned(tuned, alpha, a, b, beta, c, shape);
        }
        let MatmulLaunch::Ladder(launch) = plan::<T>(kernel, TunedTile::Square, shape, a.len(), b.len(), c.len())?
        else {
            unreachable!("the ladder's rungs plan ladder launches")
        };
        let s = shape;
        let [m, n, k, lda, ldb, ldc] = [s.m, s.n, s.k, s.lda, s.ldb, s.ldc].map(|x| x as u64);
        // Safety: `plan` checked that each buffer holds its matrix with its leading dimension;
        // the launch uses the rung's grid, block and shared memory.
        unsafe { self.launch(launch, (c, a, b, m, n, k, lda, ldb, ldc, alpha, beta)) }
    }

    /// `C = α·op(A)·op(B) + β·C` with the tuned rung and a chosen plan (its tiles, its split
    /// of `k`, for which it allocates a workspace of [`SplitK::workspace_len`] elements,
    /// stream-ordered, from the driver's memory pool, the operands it copies to aligned rows
    /// first, and its strip of columns).
    ///
    /// Errors: as [`matmul_with`](Self::matmul_with), and [`Error::TunedPlanUnfit`] where the
    /// plan's split or strip was made for another shape.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    pub fn matmul_tuned<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        beta: T,
        c: &mut DeviceBuffer<T>,
        shape: MatmulShape,
    ) -> Result<()> {
        plan::<T>(tuned.kernel, tuned.tile, shape, a.len(), b.len(), c.len())?;
        let columns = tuned.strip.unwrap_or(shape.n);
        if columns == 0 || columns > shape.n {
            return Err(Error::TunedPlanUnfit { what: "its strip was made for another shape" });
        }
        let main = MatmulShape { n: columns, ..shape };
        if tuned.split.is_some_and(|split| !split.fits(main)) {
            return Err(Error::TunedPlanUnfit { what: "its split of k was made for another shape" });
        }
        if tuned.realign != Realign::default() {
            return self.matmul_realigned(tuned, alpha, a, b, beta, c, shape);
        }
        let main_plan = TunedPlan { strip: None, ..tuned };
        self.tuned_part(main_plan, alpha, a.slice(..)?, b.slice(..)?, beta, c.slice_mut(..)?, main)?;
        if columns == shape.n {
            return Ok(());
        }
        // The strip: the same rows of op(A), op(B)'s and C's columns from `columns` on.
        let rest = MatmulShape { n: shape.n - columns, ..shape };
        let b_from = if shape.op_b == Op::N { columns } else { columns * shape.ldb };
        let sms = self.info().multiprocessors;
        let rest_plan = TunedPlan::fastest::<T>(tuned.kernel, rest, sms, false).1.without_realign();
        self.tuned_part(rest_plan, alpha, a.slice(..)?, b.slice(b_from..)?, beta, c.slice_mut(columns..)?, rest)
    }

    /// [`matmul_tuned`](Self::matmul_tuned) after copying the plan's [`Realign`] operands
    /// into workspaces (stream-ordered) whose rows start on 16 bytes; where the device has no
    /// memory for a workspace, the operand is read where it is.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn matmul_realigned<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        beta: T,
        c: &mut DeviceBuffer<T>,
        shape: MatmulShape,
    ) -> Result<()> {
        let [sa, sb, _] = shape.stored();
        let copy = |s: &Stored, from: &DeviceBuffer<T>| -> Result<Option<(DeviceBuffer<T>, usize)>> {
            let ld = Realign::leading_dimension::<T>(s.row_len);
            // Safety: the copy writes every element of every row (each row's `row_len`
            // elements and its padding, zeros).
            let mut to = match unsafe { self.alloc_uninit::<T>(s.rows * ld) } {
                Ok(to) => to,
                Err(bankwise_runtime::Error::OutOfMemory { .. }) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            self.copy_rows_aligned(from, s.ld, &mut to, ld, (s.rows, s.row_len))?;
            Ok(Some((to, ld)))
        };
        let new_a = if tuned.realign.a { copy(&sa, a)? } else { None };
        let new_b = if tuned.realign.b { copy(&sb, b)? } else { None };
        let (a, lda) = new_a.as_ref().map_or((a, shape.lda), |(buf, ld)| (buf, *ld));
        let (b, ldb) = new_b.as_ref().map_or((b, shape.ldb), |(buf, ld)| (buf, *ld));
        let shape = MatmulShape { lda, ldb, ..shape };
        self.matmul_tuned(tuned.without_realign(), alpha, a, b, beta, c, shape)
    }

    /// The launches of a plan without realignment or strip over `shape`, on views of the
    /// operands (a strip's start at their first element).
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn tuned_part<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        mut c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
    ) -> Result<()> {
        let planned = plan::<T>(tuned.kernel, tuned.tile, shape, a.len(), b.len(), c.len())?;
        let Some(launch) = planned.tuned() else { unreachable!("a tuned plan plans a tuned launch") };
        if let Some(split) = tuned.split {
            return self.matmul_split_k(split, alpha, a, b, beta, c, shape, launch);
        }
        let s = shape;
        let [m, n, k, lda, ldb, ldc] = [s.m, s.n, s.k, s.lda, s.ldb, s.ldc].map(|x| x as u64);
        let [count, stride_a, stride_b, stride_c] = [s.batch, s.stride_a, s.stride_b, s.stride_c].map(|x| x as u64);
        let mut first = 0;
        while first < count {
            let products = (count - first).min(u64::from(MAX_GRID_YZ));
            let grid = (launch.grid.0, products as u32, 1);
            let args = (&mut c, a, b, m, n, k, lda, ldb, ldc, alpha, beta, count, first, stride_a, stride_b, stride_c);
            // Safety: `plan` checked that each view holds its batch of matrices with their
            // leading dimensions and strides, and that the `C`s do not overlap; each grid
            // computes the products from `first` on.
            unsafe { self.launch(Launch { grid, ..launch }, args)? };
            first += products;
        }
        Ok(())
    }

    /// The tuned rung over `split`'s slices of `k` into a workspace it allocates (stream-
    /// ordered, not filled), then their sum into `C`; `launch` is `plan`'s for the whole product.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn matmul_split_k<T: Float>(
        &self,
        split: SplitK,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
        launch: Launch<kernels::TunedParams<T>>,
    ) -> Result<()> {
        // Safety: the slices' launches below write every element of the workspace (each
        // covers all of `C`'s tiles, with β = 0) before the sum reads it.
        let mut w = unsafe { self.alloc_uninit::<T>(split.workspace_len(shape))? };
        let s = shape;
        let [m, n, k, lda, ldb, ldc, depth] = [s.m, s.n, s.k, s.lda, s.ldb, s.ldc, split.depth].map(|x| x as u64);
        // Slice `i` of op(A) starts `i·depth` columns in, of op(B) `i·depth` rows down; its
        // partial product is the workspace's `i`-th `m × n` matrix.
        let stride_a = if s.op_a == Op::N { depth } else { depth * lda };
        let stride_b = if s.op_b == Op::N { depth * ldb } else { depth };
        let (full, rest) = (k / depth, k % depth);
        let count = split.slices as u64;
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        // The full slices in one grid, the shallower last one (if any) in another.
        for (first, products, depth) in [(0, full, depth), (full, count - full, rest)] {
            if products == 0 {
                continue;
            }
            let grid = (launch.grid.0, products as u32, 1);
            let args = (&mut w, a, b, m, n, depth, lda, ldb, n, one, zero, count, first, stride_a, stride_b, m * n);
            // Safety: `plan` checked `A` and `B` for the whole product, and each slice reads a
            // part of them; the workspace holds `count` packed `m × n` matrices.
            unsafe { self.launch(Launch { grid, ..launch }, args)? };
        }
        let columns = n.div_ceil(u64::from(SPLIT_SUM_THREADS)).min(u64::from(MAX_GRID_X)) as u32;
        let grid = (columns, m.min(u64::from(MAX_GRID_YZ)) as u32, 1);
        let sum = Launch::new(T::ENTRIES.split_sum, grid, (SPLIT_SUM_THREADS, 1, 1));
        // Safety: the workspace holds `count` packed `m × n` matrices, `C` its `m` rows of
        // `ldc` (`plan`); the kernel's loops take any grid.
        unsafe { self.launch(sum, (c, &w, m, n, ldc, alpha, beta, count)) }
    }
}

/// Threads per block of `matmul_split_sum`, along a row of `C`.
const SPLIT_SUM_THREADS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_have_their_own_errors() {
        let s = MatmulShape::new(3, 4, 5);
        assert!(plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 15, 20, 12).is_ok());
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, MatmulShape::new(0, 4, 5), 15, 20, 12),
            Err(Error::ZeroDimension { what: "m" })
        ));
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, MatmulShape::new(3, 4, 0), 15, 20, 12),
            Err(Error::ZeroDimension { what: "k" })
        ));
        let short = plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 15, 19, 12);
        assert!(matches!(short, Err(Error::MatrixTooShort { matrix: "B", expected: 20, actual: 19, .. })), "{short:?}");
        let ld = plan::<f64>(MatmulKernel::Naive, TunedTile::Square, s.with_leading_dimensions(4, 4, 4), 15, 20, 12);
        assert!(matches!(ld, Err(Error::LeadingDimension { matrix: "A", ld: 4, row_len: 5 })), "{ld:?}");
        // Padded rows: the last row needs only its own length.
        let padded = s.with_leading_dimensions(7, 9, 6);
        assert!(
            plan::<f64>(MatmulKernel::Coalesced, TunedTile::Square, padded, 2 * 7 + 5, 4 * 9 + 4, 2 * 6 + 4).is_ok()
        );
        let huge = MatmulShape::new(1 << 62, 1, 1); // A alone: 2^65 bytes
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, huge, 0, 0, 0),
            Err(Error::ShapeOverflow { .. })
        ));
    }

    #[test]
    fn the_default_rung_is_the_fastest_measured_for_the_shape() {
        let pick = |s: MatmulShape| MatmulKernel::for_shape::<f32>(s, 132, (9, 0));
        // Too few tiles: the tuned rung splits `k` where it is deep enough.
        assert_eq!(pick(MatmulShape::new(1024, 1024, 1024)), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(256, 4096, 4096)), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(1024, 1024, 300)), MatmulKernel::BlockTile1d);
        assert_eq!(pick(MatmulShape::new(2048, 2048, 2048)), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(4095, 4097, 4093)), MatmulKernel::Tuned);
        // Only the tuned kernel computes these, whatever their size.
        assert_eq!(pick(MatmulShape::new(4, 4, 4).with_ops(Op::T, Op::N)), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(4, 4, 4).batched_packed(2)), MatmulKernel::Tuned);
        // f64: the multistage rung where the GPU runs it; launched on an older GPU, its error
        // says what it needs.
        let old = Error::NeedsNewerGpu { kernel: "matmul_multistage_nn_f64".into(), needs: (8, 0), has: (7, 5) };
        assert!(old.to_string().starts_with("matmul_multistage_nn_f64 needs a GPU of compute capability 8.0"), "{old}");
        assert_eq!(MatmulKernel::for_shape::<f64>(MatmulShape::new(1, 1, 1), 132, (9, 0)), MatmulKernel::Multistage);
        assert_eq!(MatmulKernel::for_shape::<f64>(MatmulShape::new(1, 1, 1), 80, (7, 0)), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(4096, 4096, 4096)), MatmulKernel::Tuned);
    }

    #[test]
    fn split_k_fills_the_resident_blocks_with_slices_no_shallower_than_256() {
        let split = |s: MatmulShape| SplitK::for_tiles(s, tuned(4, false), 132);
        // 64 tiles for 264 resident blocks: 4 slices.
        assert_eq!(split(MatmulShape::new(1024, 1024, 1024)), Some(SplitK { slices: 4, depth: 256 }));
        assert_eq!(split(MatmulShape::new(256, 4096, 4096)), Some(SplitK { slices: 4, depth: 1024 }));
        // Enough tiles, too shallow, or a batch: no split.
        assert_eq!(split(MatmulShape::new(2048, 2048, 2048)), None);
        assert_eq!(split(MatmulShape::new(1024, 1024, 511)), None);
        assert_eq!(split(MatmulShape::new(64, 64, 4096).batched_packed(2)), None);
        // f64 runs one block per SM, 128 tiles of 128 × 64 at 1024²: no split.
        assert_eq!(SplitK::for_tiles(MatmulShape::new(1024, 1024, 1024), tuned(8, false), 132), None);
        // One tile: at most 16 slices; depths a multiple of 32 covering k, the last shorter.
        for k in [512, 777, 1000, 4099, 10_007, 1 << 20] {
            for ops in [(Op::N, Op::N), (Op::T, Op::T)] {
                let shape = MatmulShape::new(33, 70, k).with_ops(ops.0, ops.1);
                let s = split(shape).unwrap();
                assert!((2..=SplitK::MAX_SLICES).contains(&s.slices), "{k}: {s:?}");
                assert!(s.depth % 32 == 0 && s.depth >= SplitK::MIN_DEPTH, "{k}: {s:?}");
                assert!((s.slices - 1) * s.depth < k && k <= s.slices * s.depth, "{k}: {s:?}");
                assert_eq!(s.workspace_len(shape), s.slices * 33 * 70);
            }
        }
        assert_eq!(split(MatmulShape::new(33, 70, 10_007)), Some(SplitK { slices: 16, depth: 640 }));
    }

    #[test]
    fn transposed_operands_and_batches_are_checked_as_stored() {
        // Aᵀ stored 5 × 3 (lda ≥ 3), Bᵀ stored 4 × 5 (ldb ≥ 5).
        let s = MatmulShape::new(3, 4, 5).with_ops(Op::T, Op::T);
        assert_eq!((s.lda, s.ldb, s.ldc), (3, 5, 4));
        assert!(s.check_buffers(15, 20, 12).is_ok());
        let short = s.check_buffers(14, 20, 12);
        assert!(matches!(short, Err(Error::MatrixTooShort { matrix: "A", rows: 5, row_len: 3, .. })), "{short:?}");
        // A batch of 3 packed: each matrix right after the one before.
        let b = s.batched_packed(3);
        assert_eq!((b.stride_a, b.stride_b, b.stride_c), (15, 20, 12));
        assert!(b.check_buffers(45, 60, 36).is_ok());
        let short = b.check_buffers(45, 59, 36);
        assert!(matches!(short, Err(Error::BatchTooShort { matrix: "B", expected: 60, .. })), "{short:?}");
        // One B for every product; C's may not overlap.
        assert!(b.batched(3, 15, 0, 12).check_buffers(45, 20, 36).is_ok());
        let overlap = b.batched(3, 15, 0, 11).check_buffers(45, 20, 36);
        assert!(matches!(overlap, Err(Error::OverlappingBatches { stride: 11, span: 12 })), "{overlap:?}");
        assert_eq!(b.to_string(), "3×4×5 TT ×3 (strides 15, 20, 12)");
        assert_eq!(b.flops(), 3.0 * 2.0 * 60.0);
        // The rungs take one product as stored, and say what they lack.
        for (shape, what) in [(s, "a transposed operand"), (MatmulShape::new(3, 4, 5).batched_packed(2), "a batch")] {
            let e = plan::<f32>(MatmulKernel::WarpTile, TunedTile::Square, shape, 100, 100, 100);
            assert!(matches!(e, Err(Error::MatmulUnsupported { what: w, .. }) if w == what), "{e:?}");
        }
    }

    #[test]
    fn the_tuned_kernel_picks_its_entry_by_ops_and_grids_the_batch() {
        let s = MatmulShape::new(300, 129, 7);
        for (ops, entry) in [
            ((Op::N, Op::N), "matmul_tuned_nn_f32"),
            ((Op::N, Op::T), "matmul_tuned_nt_f32"),
            ((Op::T, Op::N), "matmul_tuned_tn_f32"),
            ((Op::T, Op::T), "matmul_tuned_tt_f32"),
        ] {
            let shape = s.with_ops(ops.0, ops.1).batched_packed(70_000);
            let n = 70_000 * 300 * 129;
            let launch = plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, shape, n, n, n).unwrap();
            // 3 × 2 tiles of 128 × 128; the first 65,535 products in the first grid.
            assert_eq!((launch.kernel(), launch.grid(), launch.block()), (entry, (6, 65_535, 1), (256, 1, 1)));
            assert_eq!(launch.shared_bytes(), 2 * 8 * (132 + 132) * 4);
        }
        // A row of 2²⁹ tiles would overflow the kernel's 32-bit tile numbers: refused.
        let wide = MatmulShape::new(1, 1 << 36, 1);
        let e = plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, wide, 1, 1 << 36, 1 << 36);
        assert!(matches!(e, Err(Error::ShapeOverflow { .. })), "{e:?}");
        assert!(
            plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, MatmulShape::new(1, 1 << 35, 1), 1, 1 << 35, 1 << 35)
                .is_ok()
        );
        let f64_plan = plan::<f64>(MatmulKernel::Tuned, TunedTile::Square, s, 300 * 7, 7 * 129, 300 * 129).unwrap();
        assert_eq!((f64_plan.kernel(), f64_plan.grid()), ("matmul_tuned_nn_f64", (9, 1, 1)));
        assert_eq!(f64_plan.shared_bytes(), 2 * 8 * (130 + 66) * 8);
        // Wide tiles: 3 × 1 of 128 × 256, f32 only.
        let lens = (300 * 7, 7 * 129, 300 * 129);
        let wide = plan::<f32>(MatmulKernel::Tuned, TunedTile::Wide, s.with_ops(Op::N, Op::T), lens.0, lens.1, lens.2);
        let wide = wide.unwrap();
        assert_eq!((wide.kernel(), wide.grid(), wide.block()), ("matmul_tuned_wide_nt_f32", (3, 1, 1), (256, 1, 1)));
        assert_eq!(wide.shared_bytes(), 2 * 8 * (132 + 260) * 4);
        let e = plan::<f64>(MatmulKernel::Tuned, TunedTile::Wide, s, lens.0, lens.1, lens.2);
        assert!(matches!(e, Err(Error::TunedPlanUnfit { .. })), "{e:?}");
        let unfit = |p: Result<TunedPlan>| matches!(p, Err(Error::TunedPlanUnfit { .. }));
        assert!(unfit(TunedPlan::new::<f64>(MatmulKernel::Tuned, TunedTile::Wide, s, 132)));
        assert!(unfit(TunedPlan::new::<f32>(MatmulKernel::WarpTile, TunedTile::Square, s, 132)));
        // The multistage rung: the tuned rung's tiles and grid, four stages, its own entries.
        for (tile, entry, stage_bytes) in [
            (TunedTile::Square, "matmul_multistage_nt_f32", 8 * (132 + 132) * 4),
            (TunedTile::Wide, "matmul_multistage_wide_nt_f32", 8 * (132 + 260) * 4),
        ] {
            let p = plan::<f32>(MatmulKernel::Multistage, tile, s.with_ops(Op::N, Op::T), lens.0, lens.1, lens.2);
            let p = p.unwrap();
            assert_eq!((p.kernel(), p.block(), p.shared_bytes()), (entry, (256, 1, 1), 4 * stage_bytes));
        }
        let p = plan::<f64>(MatmulKernel::Multistage, TunedTile::Square, s, lens.0, lens.1, lens.2).unwrap();
        assert_eq!(
            (p.kernel(), p.grid(), p.shared_bytes()),
            ("matmul_multistage_nn_f64", (9, 1, 1), 4 * 16 * (130 + 66) * 8)
        );
        // The multistage rung has wide f64 tiles: 128 × 128, 3 × 2 of them.
        let p = plan::<f64>(MatmulKernel::Multistage, TunedTile::Wide, s, lens.0, lens.1, lens.2).unwrap();
        assert_eq!(
            (p.kernel(), p.grid(), p.shared_bytes()),
            ("matmul_multistage_wide_nn_f64", (6, 1, 1), 4 * 8 * (130 + 130) * 8)
        );
    }

    #[test]
    fn the_tuned_plan_counts_whole_waves_at_each_size_measured_rate() {
        let pick = |s: MatmulShape| {
            let p = TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, 132);
            (p.tile(), p.split().map(|s| (s.slices, s.depth)))
        };
        // 512 wide tiles in 4 waves of 132, as long as 1024 square ones in 4 of 264: the faster
        // size at 4096³ wins, the wide one but for TN.
        for (a, b, tile) in [
            (Op::N, Op::N, TunedTile::Wide),
            (Op::N, Op::T, TunedTile::Wide),
            (Op::T, Op::N, TunedTile::Square),
            (Op::T, Op::T, TunedTile::Wide),
        ] {
            assert_eq!(pick(MatmulShape::new(4096, 4096, 4096).with_ops(a, b)), (tile, None));
        }
        // 544 wide tiles take a fifth wave, 1056 square ones fill 4, and 512 wide ones beside a
        // one-column strip fill 4 as well.
        let odd = MatmulShape::new(4095, 4097, 4093);
        assert_eq!(pick(odd), (TunedTile::Wide, None));
        assert_eq!(TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, odd, 132).strip(), Some(4096));
        assert_eq!(TunedPlan::fastest::<f32>(MatmulKernel::Tuned, odd, 132, false).1.tile(), TunedTile::Square);
        // Split k: 32 wide tiles in 4 slices fill 128 of the 132 SMs, one wave as for the
        // square tiles' 64 × 4 of 264.
        assert_eq!(pick(MatmulShape::new(1024, 1024, 1024)), (TunedTile::Wide, Some((4, 256))));
        assert_eq!(pick(MatmulShape::new(2048, 2048, 2048)), (TunedTile::Wide, None));
        // f64 has square tiles only; one tile of either fits any one-tile shape.
        let p = TunedPlan::for_shape::<f64>(MatmulKernel::Tuned, MatmulShape::new(4096, 4096, 4096), 132);
        assert_eq!((p.tile(), p.split()), (TunedTile::Square, None));
        assert!(matches!(pick(MatmulShape::new(1, 1, 1)), (_, None)));
        // No shape overflows the choice.
        let _ =
            TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, MatmulShape::new(usize::MAX, usize::MAX, usize::MAX), 132);
        let _ = TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, MatmulShape::new(5, 5, 5), 0);
        // Another rung plans as the tuned one; the multistage rung keeps its own.
        assert_eq!(
            TunedPlan::for_shape::<f32>(MatmulKernel::Naive, MatmulShape::new(9, 9, 9), 132).kernel(),
            MatmulKernel::Tuned
        );
        assert_eq!(
            TunedPlan::for_shape::<f32>(MatmulKernel::Multistage, MatmulShape::new(9, 9, 9), 132).kernel(),
            MatmulKernel::Multistage
        );
    }

    #[test]
    fn a_strip_takes_the_columns_past_the_last_whole_column_of_tiles_where_it_saves_waves() {
        use proptest::prelude::*;
        let plan = |s: MatmulShape| TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, 132);
        proptest!(|(m in 1usize..5000, n in 1usize..5000, k in 1usize..5000, ta: bool, tb: bool)| {
            let (op_a, op_b) = (if ta { Op::T } else { Op::N }, if tb { Op::T } else { Op::N });
            let s = MatmulShape::new(m, n, k).with_ops(op_a, op_b);
            let p = plan(s);
            if let Some(columns) = p.strip() {
                let bn = p.tile().tiles::<f32>(p.kernel()).unwrap().warps.tiles.bn as usize;
                prop_assert!(columns > 0 && columns % bn == 0 && columns < n && n - columns < bn, "{s}: {p:?}");
            }
            let f64_plan = TunedPlan::for_shape::<f64>(MatmulKernel::Multistage, s, 132);
            if let Some(columns) = f64_plan.strip() {
                prop_assert!(columns < n && columns % 64 == 0, "{s}: {f64_plan:?}");
            }
        });
        // A whole wave saved: 16 × 8 wide tiles of 2048 columns in one wave of 132, not 144.
        assert_eq!(plan(MatmulShape::new(2048, 2049, 2048)).strip(), Some(2048));
        // Tiles that divide n, and small shapes, where the strip's launches cost more: none.
        for (m, n, k) in [(4096, 4096, 4096), (1024, 1024, 1024), (300, 257, 300), (1, 257, 1), (4095, 4096, 4093)] {
            assert_eq!(plan(MatmulShape::new(m, n, k)).strip(), None, "{m}×{n}×{k}");
        }
    }

    #[test]
    fn split_k_cuts_k_where_its_grids_take_the_fewest_waves_times_depth() {
        let split = |s: MatmulShape| SplitK::for_tiles(s, tuned(4, false), 132);
        // The odd shape's one-column strip: 32 square tiles, 8 slices. Up: 7 of 512 and 509
        // (1021); down: 8 of 480 and 253 (733).
        let s = split(MatmulShape::new(4095, 1, 4093)).unwrap();
        assert_eq!(s, SplitK { slices: 9, depth: 480 });
        assert_eq!(s.full_and_last(4093), (8, 253));
        // Slices that divide k: one grid.
        let s = split(MatmulShape::new(1024, 1024, 1024)).unwrap();
        assert_eq!(s.full_and_last(1024), (4, 0));
        // Rounded down, 17 slices would pass the most: rounded up.
        assert_eq!(split(MatmulShape::new(33, 70, 10_007)), Some(SplitK { slices: 16, depth: 640 }));
        // Rounded down, 16 full slices of 17 tiles would need two waves of 264 blocks: up.
        let s = split(MatmulShape::new(2176, 128, 4096)).unwrap();
        assert_eq!((s, s.full_and_last(4096)), (SplitK { slices: 15, depth: 288 }, (14, 64)));
        // A split that does not fit k answers without panicking.
        assert_eq!(SplitK { slices: 0, depth: 32 }.full_and_last(64), (0, 64));
        // 1000 in 3: up 352 and 296 (648), down 320 and 40 (360) in a fourth slice.
        let s = SplitK::for_tiles(MatmulShape::new(1000, 1000, 1000), tuned(4, true), 132).unwrap();
        assert_eq!((s, s.full_and_last(1000)), (SplitK { slices: 4, depth: 320 }, (3, 40)));
    }

    #[test]
    fn operands_are_realigned_where_their_rows_are_unaligned_and_each_element_is_used_often() {
        use proptest::prelude::*;
        let min = Realign::MIN_USES;
        proptest!(|(m in 1usize..3000, n in 1usize..3000, k in 1usize..3000, pad in 0usize..5, ta: bool, tb: bool, batch in 1usize..3)| {
            let (op_a, op_b) = (if ta { Op::T } else { Op::N }, if tb { Op::T } else { Op::N });
            let s = MatmulShape::new(m, n, k).with_ops(op_a, op_b);
            let s = s.with_leading_dimensions(s.lda + pad, s.ldb + pad, s.ldc).batched_packed(batch);
            let r = Realign::for_shape::<f32>(MatmulKernel::Tuned, s);
            prop_assert_eq!(r.a, batch == 1 && !s.lda.is_multiple_of(4) && n >= min);
            prop_assert_eq!(r.b, batch == 1 && !s.ldb.is_multiple_of(4) && m >= min);
            // Measured slower for f64 and for the multistage rung.
            prop_assert_eq!(Realign::for_shape::<f64>(MatmulKernel::Tuned, s), Realign::default());
            prop_assert_eq!(Realign::for_shape::<f32>(MatmulKernel::Multistage, s), Realign::default());
            let ld = Realign::leading_dimension::<f32>(k);
            prop_assert!(ld >= k && ld < k + 4 && ld.is_multiple_of(4));
            let ld = Realign::leading_dimension::<f64>(k);
            prop_assert!(ld >= k && ld < k + 2 && ld.is_multiple_of(2));
            // The plans carry it, at either tile size.
            prop_assert_eq!(TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, 132).realign(), r);
            let plan = TunedPlan::new::<f32>(MatmulKernel::Tuned, TunedTile::Square, s, 132).unwrap();
            prop_assert_eq!(plan.realign(), r);
            prop_assert_eq!(plan.without_realign().realign(), Realign::default());
        });
        // 4095×4097×4093, the goal's odd shape: both operands.
        let odd = MatmulShape::new(4095, 4097, 4093);
        assert_eq!(Realign::for_shape::<f32>(MatmulKernel::Tuned, odd), Realign { a: true, b: true });
    }

    #[test]
    fn whole_tile_entries_run_where_the_tiles_divide_n_and_rows_are_aligned() {
        use proptest::prelude::*;
        let (tuned, wide, square) = (MatmulKernel::Tuned, TunedTile::Wide, TunedTile::Square);
        proptest!(|(mt in 1usize..5, nt in 1usize..5, k in 1usize..100, dm in 0usize..2, dn in 0usize..2, pad in 0usize..5, batch in 1usize..3)| {
            let (m, n) = (mt * 128 + dm, nt * 256 + dn);
            let s = MatmulShape::new(m, n, k);
            let s = s.with_leading_dimensions(s.lda + pad, s.ldb + pad, s.ldc).batched_packed(batch);
            let aligned = [s.lda, s.ldb].iter().all(|x| x.is_multiple_of(4))
                && (batch == 1 || [s.stride_a, s.stride_b].iter().all(|x| x.is_multiple_of(4)));
            prop_assert_eq!(square.whole::<f32>(tuned, s), aligned && dn == 0);
            prop_assert_eq!(wide.whole::<f32>(tuned, s), aligned && dn == 0);
            let whole = square.entry::<f32>(tuned, s).unwrap().name().contains("_whole_");
            prop_assert_eq!(whole, square.whole::<f32>(tuned, s));
            // f64 has them in the multistage rung's wide tiles (128 × 128) only, f32 in the tuned rung.
            let multistage = MatmulKernel::Multistage;
            prop_assert!(!square.whole::<f64>(tuned, s) && !square.whole::<f32>(multistage, s));
            prop_assert!(!square.whole::<f64>(multistage, s) && !wide.whole::<f32>(multistage, s));
            let aligned_f64 = [s.lda, s.ldb].iter().all(|x| x.is_multiple_of(2))
                && (batch == 1 || [s.stride_a, s.stride_b].iter().all(|x| x.is_multiple_of(2)));
            prop_assert_eq!(wide.whole::<f64>(multistage, s), aligned_f64 && dn == 0);
        });
        // 128 × 128 square tiles divide 128 × 384; the wide ones, 256 across, do not.
        let s = MatmulShape::new(128, 384, 64);
        assert!(square.whole::<f32>(tuned, s) && !wide.whole::<f32>(tuned, s));
        assert_eq!(
            wide.entry::<f32>(tuned, MatmulShape::new(4096, 4096, 4096)).map(|e| e.name()),
            Some("matmul_tuned_wide_whole_nn_f32")
        );
    }

    #[test]
    fn a_split_fits_only_the_k_it_was_made_for() {
        let shape = MatmulShape::new(64, 64, 1030);
        let split = SplitK::for_tiles(shape, tuned(4, false), 132).unwrap();
        assert!(split.fits(shape));
        assert!(split.fits(MatmulShape::new(3, 3, split.slices * split.depth)));
        assert!(!split.fits(MatmulShape::new(64, 64, (split.slices - 1) * split.depth)));
        assert!(!split.fits(MatmulShape::new(64, 64, split.slices * split.depth + 1)));
        assert!(!split.fits(shape.batched_packed(2)));
        assert!(!SplitK { slices: 1, depth: 2000 }.fits(shape));
        assert!(!SplitK { slices: usize::MAX, depth: usize::MAX }.fits(shape));
    }

    #[test]
    fn the_cpu_reference_reads_transposed_operands_and_batches() {
        // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: A·B = [[19, 22], [43, 50]].
        let (a, b) = ([1.0f64, 2.0, 3.0, 4.0], [5.0f64, 6.0, 7.0, 8.0]);
        let (at, bt) = ([1.0f64, 3.0, 2.0, 4.0], [5.0f64, 7.0, 6.0, 8.0]);
        let s = MatmulShape::new(2, 2, 2);
        let want = [19.0, 22.0, 43.0, 50.0];
        for (shape, a, b) in [
            (s, a, b),
            (s.with_ops(Op::T, Op::N), at, b),
            (s.with_ops(Op::N, Op::T), a, bt),
            (s.with_ops(Op::T, Op::T), at, bt),
        ] {
            let (got, _) = crate::cpu::matmul(1.0, &a, &b, 0.0, &[0.0; 4], shape).unwrap();
            assert_eq!(got, want, "{shape}");
        }
        // Two products sharing B, the second A doubled; C's β = 1 term per product.
        let a2 = [1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0];
        let c = [1.0; 8];
        let (got, _) = crate::cpu::matmul(1.0, &a2, &b, 1.0, &c, s.batched(2, 4, 0, 4)).unwrap();
        assert_eq!(got, [20.0, 23.0, 44.0, 51.0, 39.0, 45.0, 87.0, 101.0]);
    }

    #[test]
    fn grids_cover_c_and_cap_at_the_hardware() {
        let s = MatmulShape::new(33, 65, 17);
        let tiled = plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((tiled.grid(), tiled.block(), tiled.shared_bytes()), ((3, 2, 1), (32, 32, 1), 8192));
        let naive = plan::<f64>(MatmulKernel::Naive, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((naive.kernel(), naive.grid(), naive.shared_bytes()), ("matmul_naive_f64", (2, 3, 1), 0));
        let warp = plan::<f32>(MatmulKernel::WarpTile, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!(
            (warp.grid(), warp.block(), warp.shared_bytes()),
            ((1, 1, 1), (256, 1, 1), ((128 + 4) * 8 + 8 * 128) * 4)
        );
        let f64_tiles =
            plan::<f64>(MatmulKernel::BlockTile2d, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((f64_tiles.grid(), f64_tiles.shared_bytes()), ((2, 1, 1), (128 * 8 + 8 * 64) * 8));
        let tall = MatmulShape::new(1 << 22, 1, 1);
        assert_eq!(
            plan::<f32>(MatmulKernel::Coalesced, TunedTile::Square, tall, 1 << 22, 1, 1 << 22).unwrap().grid(),
            (1, 65_535, 1)
        );
    }
}
