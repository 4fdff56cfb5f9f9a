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
//!
//! The parts: [`MatmulShape`] (dimensions, leading dimensions, `op`s, batch, and their
//! validation); [`MatmulKernel`] (the rungs and their entries); the tuned rungs' planning,
//! pure arithmetic that needs no GPU — [`TunedTile`] (tile sizes and their entries),
//! [`TunedPlan`] (which size, split, realignment and strip), [`SplitK`], [`Realign`] — which
//! reads its measured figures from the [tuning table](crate::tuning) of the GPU it plans for
//! ([`PlanTarget`](crate::tuning::PlanTarget)); and the launchers on [`Gpu`](crate::Gpu),
//! with [`plan`], the launch each validated call makes.

mod launch;
mod plan;
mod realign;
mod rungs;
mod shape;
mod split;
mod tiles;

pub use bankwise_layout::matmul::Op;
pub use launch::plan;
pub use plan::TunedPlan;
pub use realign::Realign;
pub use rungs::MatmulKernel;
pub use shape::MatmulShape;
pub use split::SplitK;
pub use tiles::TunedTile;

use crate::element::Element;

mod sealed {
    pub trait Sealed {}
}

/// The element types of the matrix multiply: `f32` and `f64`.
pub trait Float: Element + Into<f64> + bankwise_runtime::ByValue + sealed::Sealed {
    /// Position in per-type tables (0 for `f32`, 1 for `f64`).
    const INDEX: usize;
    /// The matrix multiply's entries for this type.
    const ENTRIES: &'static crate::kernels::MatmulEntries<Self>;
    /// The unit roundoff `u` (2^-24, 2^-53), for error bounds.
    const UNIT_ROUNDOFF: f64;
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl sealed::Sealed for f32 {}
impl Float for f32 {
    const INDEX: usize = 0;
    const ENTRIES: &'static crate::kernels::MatmulEntries<f32> = &crate::kernels::MATMUL_F32;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl sealed::Sealed for f64 {}
impl Float for f64 {
    const INDEX: usize = 1;
    const ENTRIES: &'static crate::kernels::MatmulEntries<f64> = &crate::kernels::MATMUL_F64;
    const UNIT_ROUNDOFF: f64 = 1.0 / (1u64 << 53) as f64;
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// Whether `elements` of `T` span a multiple of 16 bytes: a leading dimension (or batch
/// stride) after which every row (or matrix) of a buffer starts on 16 bytes, as the tuned
/// rungs' vector loads need (the buffers themselves start on 256).
fn starts_on_16_bytes<T: Float>(elements: usize) -> bool {
    elements.is_multiple_of(16 / size_of::<T>())
}

/// The index of `shape`'s pair of `op`s in per-`op` tables: NN, NT, TN, TT.
fn ops_index(shape: MatmulShape) -> usize {
    2 * (shape.op_a == Op::T) as usize + (shape.op_b == Op::T) as usize
}
