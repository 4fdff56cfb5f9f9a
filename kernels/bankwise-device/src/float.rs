//! Floating-point arithmetic the compiler does not choose by itself.
//!
//! rustc never contracts `a * b + c` into one fused multiply-add (Rust's float operations are
//! rounded one by one), so the PTX holds `mul.rn` and `add.rn`, two instructions and two
//! roundings. CUDA C++ contracts by default (`nvcc --fmad=true`), which is what its kernels'
//! figures assume: a matrix multiply's inner loop is one `FFMA` per multiply-add. These
//! functions ask for it explicitly.

use crate::backend;

/// `fmaf(a, b, c)` (PTX `fma.rn.f32`, SASS `FFMA`): `a·b + c` rounded once.
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    backend::fma_rn_f32(a, b, c)
}

/// `fma(a, b, c)` (PTX `fma.rn.f64`, SASS `DFMA`): `a·b + c` rounded once.
#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    backend::fma_rn_f64(a, b, c)
}
