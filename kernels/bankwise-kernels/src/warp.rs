//! Warp-wide building blocks (CUB's `WarpReduce` role).

use bankwise_device::warp::{FULL_MASK, shfl_down};
use bankwise_layout::reduce::WARP;

use crate::reduce::{Element, ReduceOp};

/// Reduces the 32 lanes' values of a full warp with `O` by shuffles down (5 levels of
/// `shfl.sync.down`, SASS `SHFL.DOWN`; two per level for 8-byte types): CUB's
/// `WarpReduce::Reduce`. Lane 0 gets `v₀ ∘ v₁ ∘ … ∘ v₃₁` (in lane order, so `O` need not
/// commute); the other lanes get partial results. All 32 lanes must call it together.
///
/// Works for any [`ReduceOp`] over any 4- or 8-byte [`Element`], such as an argmax over a
/// `#[repr(C)]` `(value: f32, index: u32)` pair.
#[inline(always)]
pub fn reduce<T: Element, O: ReduceOp<T>>(mut v: T) -> T {
    let mut delta = WARP / 2;
    while delta > 0 {
        v = O::combine(v, shfl_down(FULL_MASK, v, delta));
        delta /= 2;
    }
    v
}
