//! Matrix multiply, `C = α·A·B + β·C`: `A` is `m × k`, `B` `k × n`, `C` `m × n`, each
//! row-major with a leading dimension (elements between the starts of consecutive rows, at
//! least the row's length). As in BLAS, `C` is not read where `β = 0`.
//!
//! The ladder so far, [`MatmulKernel::ALL`]: naive → coalesced → shared-memory tiles → 1-D
//! and 2-D register tiles → vector loads with a transposed `A` tile → that tile padded or
//! swizzled → warp tiles (`crates/device/bankwise-kernels/src/matmul.rs`).

use std::fmt;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, Gpu, Launch};
use crate::kernels;
use bankwise_layout::matmul::{
    ATile, TILE, TILED_SHARED_ELEMENTS, WARPTILE_A, blocktile_2d, grid_columns_in_x, grid_of_tiles, grid_rows_in_x,
};

mod sealed {
    pub trait Sealed {}
}

/// The element types of the matrix multiply: `f32` and `f64`.
pub trait Float: Element + Into<f64> + bankwise_runtime::KernelArg + sealed::Sealed {
    /// Position in per-type kernel tables such as [`kernels::MATMUL_NAIVE`].
    const INDEX: usize;
    /// The unit roundoff `u` (2^-24, 2^-53), for error bounds.
    const UNIT_ROUNDOFF: f64;
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl sealed::Sealed for f32 {}
impl Float for f32 {
    const INDEX: usize = 0;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl sealed::Sealed for f64 {}
impl Float for f64 {
    const INDEX: usize = 1;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 53) as f64;
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// The dimensions of `C = α·A·B + β·C` and the three leading dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatmulShape {
    /// Rows of `A` and `C`.
    pub m: usize,
    /// Columns of `B` and `C`.
    pub n: usize,
    /// Columns of `A`, rows of `B`.
    pub k: usize,
    /// `A`'s leading dimension (≥ `k`).
    pub lda: usize,
    /// `B`'s leading dimension (≥ `n`).
    pub ldb: usize,
    /// `C`'s leading dimension (≥ `n`).
    pub ldc: usize,
}

impl MatmulShape {
    /// Packed matrices: leading dimensions `k`, `n`, `n`.
    pub const fn new(m: usize, n: usize, k: usize) -> Self {
        MatmulShape { m, n, k, lda: k, ldb: n, ldc: n }
    }

    /// The same dimensions with these leading dimensions.
    pub const fn with_leading_dimensions(self, lda: usize, ldb: usize, ldc: usize) -> Self {
        MatmulShape { lda, ldb, ldc, ..self }
    }

    /// Floating-point operations, `2·m·n·k`, as FLOP/s figures count them.
    pub fn flops(self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Checks the dimensions, the leading dimensions, and that each buffer holds its matrix.
    pub fn check_buffers(self, a_len: usize, b_len: usize, c_len: usize) -> Result<()> {
        for (what, n) in [("m", self.m), ("n", self.n), ("k", self.k)] {
            if n == 0 {
                return Err(Error::ZeroDimension { what });
            }
        }
        for (matrix, rows, row_len, ld, actual) in [
            ("A", self.m, self.k, self.lda, a_len),
            ("B", self.k, self.n, self.ldb, b_len),
            ("C", self.m, self.n, self.ldc, c_len),
        ] {
            if ld < row_len {
                return Err(Error::LeadingDimension { matrix, ld, row_len });
            }
            // Addresses are computed in 64 bits on the GPU, in bytes up to 8 per element.
            let expected = (rows - 1)
                .checked_mul(ld)
                .and_then(|x| x.checked_add(row_len))
                .filter(|&x| u64::try_from(x).is_ok_and(|x| x.checked_mul(8).is_some()))
                .ok_or_else(|| Error::ShapeOverflow { shape: self.to_string() })?;
            if actual < expected {
                return Err(Error::MatrixTooShort { matrix, rows, row_len, ld, expected, actual });
            }
        }
        Ok(())
    }
}

impl fmt::Display for MatmulShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}×{}", self.m, self.n, self.k)?;
        if (self.lda, self.ldb, self.ldc) != (self.k, self.n, self.n) {
            write!(f, " (lda {}, ldb {}, ldc {})", self.lda, self.ldb, self.ldc)?;
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
    #[default]
    WarpTile,
}

impl MatmulKernel {
    /// Every rung, in ladder order.
    pub const ALL: [MatmulKernel; 9] = [
        MatmulKernel::Naive,
        MatmulKernel::Coalesced,
        MatmulKernel::Tiled,
        MatmulKernel::BlockTile1d,
        MatmulKernel::BlockTile2d,
        MatmulKernel::Vectorized,
        MatmulKernel::VectorizedPadded,
        MatmulKernel::VectorizedSwizzled,
        MatmulKernel::WarpTile,
    ];

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
        }
    }

    /// The rung's entries, indexed by [`Float::INDEX`].
    pub const fn entries(self) -> [&'static str; 2] {
        match self {
            MatmulKernel::Naive => kernels::MATMUL_NAIVE,
            MatmulKernel::Coalesced => kernels::MATMUL_COALESCED,
            MatmulKernel::Tiled => kernels::MATMUL_TILED,
            MatmulKernel::BlockTile1d => kernels::MATMUL_BLOCKTILE_1D,
            MatmulKernel::BlockTile2d => kernels::MATMUL_BLOCKTILE_2D,
            MatmulKernel::Vectorized => kernels::MATMUL_VECTORIZED,
            MatmulKernel::VectorizedPadded => kernels::MATMUL_VECTORIZED_PADDED,
            MatmulKernel::VectorizedSwizzled => kernels::MATMUL_VECTORIZED_SWIZZLED,
            MatmulKernel::WarpTile => kernels::MATMUL_WARPTILE,
        }
    }

    /// The rung measured fastest for `shape` and `T` on a GPU of `multiprocessors` SMs (H100,
    /// 2026-11-23, `docs/benchmarks.md`): for `f64`, [`BlockTile2d`](Self::BlockTile2d) at
    /// every measured shape; for `f32`, [`WarpTile`](Self::WarpTile) where its 128 × 128 tiles
    /// give every SM one, else [`BlockTile1d`](Self::BlockTile1d), whose 64 × 64 tiles make four
    /// times as many blocks (16.2 against 10.1 TFLOP/s at 1024³; 21.3 against 16.8 at 2048³).
    pub fn for_shape<T: Float>(shape: MatmulShape, multiprocessors: u32) -> MatmulKernel {
        if T::INDEX == 1 {
            return MatmulKernel::BlockTile2d;
        }
        let s = blocktile_2d(4);
        let tiles = shape.m.div_ceil(s.bm as usize) as u64 * shape.n.div_ceil(s.bn as usize) as u64;
        if tiles >= u64::from(multiprocessors) { MatmulKernel::WarpTile } else { MatmulKernel::BlockTile1d }
    }

    /// The layout of the rung's `A` tile, for the register-tiled rungs from
    /// [`BlockTile2d`](Self::BlockTile2d) on.
    pub const fn a_tile(self) -> Option<ATile> {
        match self {
            MatmulKernel::BlockTile2d => Some(ATile::RowMajor),
            MatmulKernel::Vectorized => Some(ATile::Plain),
            MatmulKernel::VectorizedPadded => Some(ATile::Padded),
            MatmulKernel::VectorizedSwizzled => Some(ATile::Swizzled),
            MatmulKernel::WarpTile => Some(WARPTILE_A),
            _ => None,
        }
    }
}

/// Validates `C = α·A·B + β·C` of `shape` with buffers of `a_len`, `b_len`, `c_len` elements
/// of `T`, and plans the launch of `kernel`'s entry for `T`.
pub fn plan<T: Float>(
    kernel: MatmulKernel,
    shape: MatmulShape,
    a_len: usize,
    b_len: usize,
    c_len: usize,
) -> Result<Launch> {
    shape.check_buffers(a_len, b_len, c_len)?;
    let (m, n) = (shape.m as u64, shape.n as u64);
    let bytes = size_of::<T>() as u32;
    let square = (TILE, TILE, 1);
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
    };
    Ok(Launch { kernel: kernel.entries()[T::INDEX], grid, block, shared_bytes, resident: None })
}

impl Gpu {
    /// `C = α·A·B + β·C` with the fastest rung measured for the shape and type
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
        self.matmul_with(MatmulKernel::for_shape::<T>(shape, self.info().multiprocessors), alpha, a, b, beta, c, shape)
    }

    /// `C = α·A·B + β·C` with a chosen rung of the ladder.
    ///
    /// Errors: [`Error::ZeroDimension`], [`Error::LeadingDimension`], [`Error::MatrixTooShort`],
    /// [`Error::ShapeOverflow`], before anything is launched.
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
        let launch = plan::<T>(kernel, shape, a.len(), b.len(), c.len())?;
        let s = shape;
        let dims = [s.m, s.n, s.k, s.lda, s.ldb, s.ldc].map(|x| x as u64);
        // Safety: `plan` checked that each buffer holds its matrix with its leading dimension;
        // the launch uses the rung's grid, block and shared memory.
        unsafe { self.launch(launch, (c, a, b, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], alpha, beta)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_have_their_own_errors() {
        let s = MatmulShape::new(3, 4, 5);
        assert!(plan::<f32>(MatmulKernel::Tiled, s, 15, 20, 12).is_ok());
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, MatmulShape::new(0, 4, 5), 15, 20, 12),
            Err(Error::ZeroDimension { what: "m" })
        ));
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, MatmulShape::new(3, 4, 0), 15, 20, 12),
            Err(Error::ZeroDimension { what: "k" })
        ));
        let short = plan::<f32>(MatmulKernel::Tiled, s, 15, 19, 12);
        assert!(matches!(short, Err(Error::MatrixTooShort { matrix: "B", expected: 20, actual: 19, .. })), "{short:?}");
        let ld = plan::<f64>(MatmulKernel::Naive, s.with_leading_dimensions(4, 4, 4), 15, 20, 12);
        assert!(matches!(ld, Err(Error::LeadingDimension { matrix: "A", ld: 4, row_len: 5 })), "{ld:?}");
        // Padded rows: the last row needs only its own length.
        let padded = s.with_leading_dimensions(7, 9, 6);
        assert!(plan::<f64>(MatmulKernel::Coalesced, padded, 2 * 7 + 5, 4 * 9 + 4, 2 * 6 + 4).is_ok());
        let huge = MatmulShape::new(1 << 62, 1, 1); // A alone: 2^65 bytes
        assert!(matches!(plan::<f32>(MatmulKernel::Tiled, huge, 0, 0, 0), Err(Error::ShapeOverflow { .. })));
    }

    #[test]
    fn the_default_rung_is_the_fastest_measured_for_the_shape() {
        let pick = |m, n, k| MatmulKernel::for_shape::<f32>(MatmulShape::new(m, n, k), 132);
        assert_eq!(pick(1024, 1024, 1024), MatmulKernel::BlockTile1d);
        assert_eq!(pick(256, 4096, 4096), MatmulKernel::BlockTile1d);
        assert_eq!(pick(2048, 2048, 2048), MatmulKernel::WarpTile);
        assert_eq!(pick(4095, 4097, 4093), MatmulKernel::WarpTile);
        assert_eq!(MatmulKernel::for_shape::<f64>(MatmulShape::new(1, 1, 1), 132), MatmulKernel::BlockTile2d);
    }

    #[test]
    fn grids_cover_c_and_cap_at_the_hardware() {
        let s = MatmulShape::new(33, 65, 17);
        let tiled = plan::<f32>(MatmulKernel::Tiled, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((tiled.grid, tiled.block, tiled.shared_bytes), ((3, 2, 1), (32, 32, 1), 8192));
        let naive = plan::<f64>(MatmulKernel::Naive, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((naive.kernel, naive.grid, naive.shared_bytes), ("matmul_naive_f64", (2, 3, 1), 0));
        let warp = plan::<f32>(MatmulKernel::WarpTile, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((warp.grid, warp.block, warp.shared_bytes), ((1, 1, 1), (256, 1, 1), ((128 + 4) * 8 + 8 * 128) * 4));
        let f64_tiles = plan::<f64>(MatmulKernel::BlockTile2d, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((f64_tiles.grid, f64_tiles.shared_bytes), ((2, 1, 1), (128 * 8 + 8 * 64) * 8));
        let tall = MatmulShape::new(1 << 22, 1, 1);
        assert_eq!(plan::<f32>(MatmulKernel::Coalesced, tall, 1 << 22, 1, 1 << 22).unwrap().grid, (1, 65_535, 1));
    }
}
