//! The kernel entries the `bankwise` library launches on GPUs of compute capability 8.0 and
//! later: those that use `cp.async` (`bankwise_device::pipeline`), which `sm_70` PTX cannot
//! hold. Compiled into a second PTX module, for `sm_80`, that `bankwise`'s build script
//! embeds beside `bankwise-builtin`'s; the host loads it where the GPU has the instructions.
#![no_std]

use bankwise_device::kernel;
use bankwise_kernels::matmul::{Batch, Gemm, matmul_multistage};

/// Instantiates the multistage rung for one type, one pair of `op`s and one tile size (wide:
/// 128 × 256, `f32` only), with `Gemm`'s arguments followed by the batch's.
macro_rules! multistage {
    ($($name:ident => $t:ty, $trans_a:literal, $trans_b:literal, $wide:literal;)+) => {$(
        /// # Safety
        /// As for `bankwise_kernels::matmul::matmul_multistage`.
        #[kernel(launch_bounds(
            bankwise_layout::matmul::multistage(size_of::<$t>() as u32, $wide).threads(),
            bankwise_layout::matmul::multistage(size_of::<$t>() as u32, $wide).min_blocks,
        ))]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            c: *mut $t, a: *const $t, b: *const $t, m: u64, n: u64, k: u64,
            lda: u64, ldb: u64, ldc: u64, alpha: $t, beta: $t,
            count: u64, first: u64, stride_a: u64, stride_b: u64, stride_c: u64,
        ) {
            let g = Gemm { c, a, b, m, n, k, lda, ldb, ldc, alpha, beta };
            let batch = Batch { count, first, stride_a, stride_b, stride_c };
            unsafe { matmul_multistage::<$t, $trans_a, $trans_b, $wide, 2, { if $wide { 4 } else { 2 } }>(g, batch) }
        }
    )+};
}

multistage! {
    matmul_multistage_nn_f32 => f32, false, false, false;
    matmul_multistage_nt_f32 => f32, false, true, false;
    matmul_multistage_tn_f32 => f32, true, false, false;
    matmul_multistage_tt_f32 => f32, true, true, false;
    matmul_multistage_nn_f64 => f64, false, false, false;
    matmul_multistage_nt_f64 => f64, false, true, false;
    matmul_multistage_tn_f64 => f64, true, false, false;
    matmul_multistage_tt_f64 => f64, true, true, false;
    matmul_multistage_wide_nn_f32 => f32, false, false, true;
    matmul_multistage_wide_nt_f32 => f32, false, true, true;
    matmul_multistage_wide_tn_f32 => f32, true, false, true;
    matmul_multistage_wide_tt_f32 => f32, true, true, true;
}
