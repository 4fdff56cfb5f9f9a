//! The matrix multiply ladder's entries: every rung for `f32` and `f64`, the tuned rung per pair of
//! `op`s and tile, and split `k`'s sum.

use bankwise_device::kernel;
use bankwise_kernels::matmul::{
    Gemm, matmul_blocktile_1d, matmul_blocktile_2d, matmul_coalesced, matmul_naive, matmul_split_sum, matmul_tiled,
    matmul_vectorized, matmul_vectorized_padded, matmul_vectorized_swizzled, matmul_warptile,
};
use bankwise_kernels::tuned_matmul_entries;
use bankwise_layout::matmul::{self as layout, ATile};

/// Instantiates a rung of the matrix multiply ladder for `f32` and `f64`, as
/// `<rung>_f32`, `<rung>_f64`, with the arguments in `Gemm`'s order.
macro_rules! per_type {
    ($generic:ident, |$b:ident| $shared:expr; $($name:ident => $t:ty),+ $(,)?) => {$(
        /// # Safety
        /// As for the rung in `bankwise_kernels::matmul`: the matrices hold their shapes with
        /// their leading dimensions, and the launch uses the rung's grid and block.
        #[kernel(shared = { let $b = size_of::<$t>() as u32; $shared })]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            c: *mut $t, a: *const $t, b: *const $t, m: u64, n: u64, k: u64,
            lda: u64, ldb: u64, ldc: u64, alpha: $t, beta: $t,
        ) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { $generic::<$t>(Gemm { c, a, b, m, n, k, lda, ldb, ldc, alpha, beta }) }
        }
    )+};
}

per_type!(matmul_naive, |_b| 0; matmul_naive_f32 => f32, matmul_naive_f64 => f64);
per_type!(matmul_coalesced, |_b| 0; matmul_coalesced_f32 => f32, matmul_coalesced_f64 => f64);
per_type!(matmul_tiled, |b| layout::TILED_SHARED_ELEMENTS * b; matmul_tiled_f32 => f32, matmul_tiled_f64 => f64);
per_type!(matmul_blocktile_1d, |b| layout::blocktile_1d::SHARED_ELEMENTS * b; matmul_blocktile_1d_f32 => f32, matmul_blocktile_1d_f64 => f64);
per_type!(matmul_blocktile_2d, |b| layout::blocktile_2d(b).shared_elements(ATile::RowMajor) * b; matmul_blocktile_2d_f32 => f32, matmul_blocktile_2d_f64 => f64);
per_type!(matmul_vectorized, |b| layout::blocktile_2d(b).shared_elements(ATile::Plain) * b; matmul_vectorized_f32 => f32, matmul_vectorized_f64 => f64);
per_type!(matmul_vectorized_padded, |b| layout::blocktile_2d(b).shared_elements(ATile::Padded) * b;
    matmul_vectorized_padded_f32 => f32, matmul_vectorized_padded_f64 => f64);
per_type!(matmul_vectorized_swizzled, |b| layout::blocktile_2d(b).shared_elements(ATile::Swizzled) * b;
    matmul_vectorized_swizzled_f32 => f32, matmul_vectorized_swizzled_f64 => f64);
per_type!(matmul_warptile, |b| layout::blocktile_2d(b).shared_elements(layout::WARPTILE_A) * b;
    matmul_warptile_f32 => f32, matmul_warptile_f64 => f64);

tuned_matmul_entries! {
    matmul_tuned, tuned:
    matmul_tuned_nn_f32 => f32, false, false, false, false, false;
    matmul_tuned_nt_f32 => f32, false, true, false, false, false;
    matmul_tuned_tn_f32 => f32, true, false, false, false, false;
    matmul_tuned_tt_f32 => f32, true, true, false, false, false;
    matmul_tuned_nn_f64 => f64, false, false, false, false, true;
    matmul_tuned_nt_f64 => f64, false, true, false, false, true;
    matmul_tuned_tn_f64 => f64, true, false, false, false, true;
    matmul_tuned_tt_f64 => f64, true, true, false, false, true;
    matmul_tuned_wide_nn_f32 => f32, false, false, true, false, true;
    matmul_tuned_wide_nt_f32 => f32, false, true, true, false, true;
    matmul_tuned_wide_tn_f32 => f32, true, false, true, false, true;
    matmul_tuned_wide_tt_f32 => f32, true, true, true, false, true;
    // Whole tiles (`f32`): every block's tiles inside `A` and `B`, rows aligned.
    matmul_tuned_whole_nn_f32 => f32, false, false, false, true, true;
    matmul_tuned_whole_nt_f32 => f32, false, true, false, true, true;
    matmul_tuned_whole_tn_f32 => f32, true, false, false, true, true;
    matmul_tuned_whole_tt_f32 => f32, true, true, false, true, true;
    matmul_tuned_wide_whole_nn_f32 => f32, false, false, true, true, true;
    matmul_tuned_wide_whole_nt_f32 => f32, false, true, true, true, true;
    matmul_tuned_wide_whole_tn_f32 => f32, true, false, true, true, true;
    matmul_tuned_wide_whole_tt_f32 => f32, true, true, true, true, true;
}

/// Instantiates split `k`'s sum for one type: `C = α·Σ_s W_s + β·C`.
macro_rules! split_sum {
    ($($name:ident => $t:ty;)+) => {$(
        /// # Safety
        /// As for `bankwise_kernels::matmul::matmul_split_sum`.
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(c: *mut $t, w: *const $t, m: u64, n: u64, ldc: u64, alpha: $t, beta: $t, slices: u64) {
            let (a, b) = (core::ptr::null(), core::ptr::null());
            let g = Gemm { c, a, b, m, n, k: 0, lda: 0, ldb: 0, ldc, alpha, beta };
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's, which does not read `g.a`, `g.b` or `g.k`.
            unsafe { matmul_split_sum::<$t>(g, w, slices) }
        }
    )+};
}
split_sum! {
    matmul_split_sum_f32 => f32;
    matmul_split_sum_f64 => f64;
}
