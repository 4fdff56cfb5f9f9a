//! The kernel entries the `bankwise` library launches on GPUs of compute capability 8.0 and
//! later: those that use `cp.async` (`bankwise_device::pipeline`), which `sm_70` PTX cannot
//! hold. Compiled into a second PTX module, for `sm_80`, that `bankwise`'s build script
//! embeds beside `bankwise-builtin`'s; the host loads it where the GPU has the instructions.
#![no_std]

use bankwise_kernels::tuned_matmul_entries;

tuned_matmul_entries! {
    matmul_multistage, multistage:
    matmul_multistage_nn_f32 => f32, false, false, false, false, true;
    matmul_multistage_nt_f32 => f32, false, true, false, false, true;
    matmul_multistage_tn_f32 => f32, true, false, false, false, true;
    matmul_multistage_tt_f32 => f32, true, true, false, false, true;
    matmul_multistage_nn_f64 => f64, false, false, false, false, true;
    matmul_multistage_nt_f64 => f64, false, true, false, false, true;
    matmul_multistage_tn_f64 => f64, true, false, false, false, true;
    matmul_multistage_tt_f64 => f64, true, true, false, false, true;
    matmul_multistage_wide_nn_f32 => f32, false, false, true, false, false;
    matmul_multistage_wide_nt_f32 => f32, false, true, true, false, false;
    matmul_multistage_wide_tn_f32 => f32, true, false, true, false, false;
    matmul_multistage_wide_tt_f32 => f32, true, true, true, false, false;
    matmul_multistage_wide_nn_f64 => f64, false, false, true, false, true;
    matmul_multistage_wide_nt_f64 => f64, false, true, true, false, true;
    matmul_multistage_wide_tn_f64 => f64, true, false, true, false, true;
    matmul_multistage_wide_tt_f64 => f64, true, true, true, false, true;
    // Whole tiles (`f64`, wide): every block's tiles inside `A` and `B`, rows aligned.
    matmul_multistage_wide_whole_nn_f64 => f64, false, false, true, true, true;
    matmul_multistage_wide_whole_nt_f64 => f64, false, true, true, true, true;
    matmul_multistage_wide_whole_tn_f64 => f64, true, false, true, true, true;
    matmul_multistage_wide_whole_tt_f64 => f64, true, true, true, true, true;
}
