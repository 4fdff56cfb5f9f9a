//! [`MatmulKernel`]: the rungs of the ladder, their entries, and the rung [`Gpu::matmul`]
//! takes for a shape.
//!
//! [`Gpu::matmul`]: crate::Gpu::matmul

use bankwise_layout::matmul::{ATile, WARPTILE_A};

use super::{Float, MatmulShape, TunedPlan};
use crate::kernels;
use crate::tuning::PlanTarget;

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
    /// stages: no registers hold tiles in flight; wide tiles for `f64` too (128 × 128). The
    /// fastest `f64` rung; slower than [`Tuned`](Self::Tuned) for `f32`. Needs a GPU of compute
    /// capability 8.0 or later ([`Error::NeedsNewerGpu`](crate::Error::NeedsNewerGpu) before).
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
    /// and `op`s N, N: [`TunedTile::entry`](super::TunedTile::entry) gives the others).
    pub fn entries(self) -> [&'static str; 2] {
        [self.entry_name::<f32>(), self.entry_name::<f64>()]
    }

    /// The rung's entry name for `T` (square tiles and `op`s N, N for the tuned rungs).
    pub fn entry_name<T: Float>(self) -> &'static str {
        let e = T::ENTRIES;
        let tuned = |t: &kernels::PerOps<T>| t[0].map_or("", |e| e.name());
        match self.ladder_index() {
            Some(i) => e.ladder[i].name(),
            None if self == MatmulKernel::Tuned => tuned(&e.tuned),
            None => tuned(&e.multistage),
        }
    }

    /// The rung's place in [`kernels::MatmulEntries::ladder`] (`None` for the tuned rungs).
    pub(crate) const fn ladder_index(self) -> Option<usize> {
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

    /// The rung [`Gpu::matmul`](crate::Gpu::matmul) takes for `shape` and `T` on `target`, the
    /// fastest as measured (`docs/benchmarks.md`, *Every rung, six shapes*): for `f64` from
    /// compute capability 8.0 on, [`Multistage`](Self::Multistage), faster than the tuned rung
    /// at every measured shape; otherwise [`Tuned`](Self::Tuned). Both pick their tiles and
    /// split `k` where their tiles are too few to fill the GPU ([`TunedPlan::for_shape`]), and
    /// they alone take transposed operands and batches. For `f32` products of fewer elements
    /// than one 128 × 128 tile per SM whose `k` is too short to split,
    /// [`BlockTile1d`](Self::BlockTile1d), whose 64 × 64 tiles make four times as many blocks.
    pub fn for_shape<T: Float>(shape: MatmulShape, target: PlanTarget<'_>) -> MatmulKernel {
        if T::INDEX == 1 && target.compute_capability >= MatmulKernel::Multistage.min_compute_capability() {
            return MatmulKernel::Multistage;
        }
        let plan = TunedPlan::for_shape::<T>(MatmulKernel::Tuned, shape, target);
        // Fewer elements of `C` than one 128 × 128 tile per SM.
        let area = (shape.m as u64).saturating_mul(shape.n as u64).saturating_mul(shape.batch as u64);
        let few = area < u64::from(target.multiprocessors) * 128 * 128;
        if few && plan.split().is_none() && shape.is_plain() && T::INDEX == 0 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::matmul::Op;
    use crate::tuning::h100::H100;

    #[test]
    fn the_default_rung_is_the_fastest_measured_for_the_shape() {
        let h100 = PlanTarget::new(132, (9, 0), &H100);
        let pick = |s: MatmulShape| MatmulKernel::for_shape::<f32>(s, h100);
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
        assert_eq!(MatmulKernel::for_shape::<f64>(MatmulShape::new(1, 1, 1), h100), MatmulKernel::Multistage);
        let volta = PlanTarget::new(80, (7, 0), &H100);
        assert_eq!(MatmulKernel::for_shape::<f64>(MatmulShape::new(1, 1, 1), volta), MatmulKernel::Tuned);
        assert_eq!(pick(MatmulShape::new(4096, 4096, 4096)), MatmulKernel::Tuned);
    }
}
