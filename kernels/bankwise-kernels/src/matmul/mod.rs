//! The matrix multiply ladder: `C = α·A·B + β·C`, row-major, each matrix with its own leading
//! dimension (`bankwise_layout::matmul`). Each rung is a named kernel that changes one thing
//! from the one before; the host launches them through `bankwise::Gpu::matmul_with`.
//!
//! The first three rungs give each thread one element of `C`; from [`matmul_blocktile_1d`] on,
//! a thread accumulates several in registers. Every rung reads `C` only where `β ≠ 0`, as BLAS
//! does, so that `β = 0` overwrites whatever `C` held, NaN included.
//!
//! The rungs by file: `ladder` holds rungs 1 to 8 ([`matmul_naive`] … [`matmul_warptile`]);
//! `tuned` rung 9 ([`matmul_tuned`]), the sum of a split `k` ([`matmul_split_sum`]) and
//! [`tuned_matmul_entries!`](crate::tuned_matmul_entries), which instantiates rungs 9 and 10;
//! `multistage` rung 10 ([`matmul_multistage`], `cp.async`); `vector` the 16-byte global and
//! shared accesses they share; this file the arguments ([`Gemm`]) and the element type
//! ([`Scalar`]). Each rung's doc comment gives its latest figures (H100); every rung's at six
//! shapes, beside cuBLAS, are in `docs/benchmarks.md`, and the experiments behind the choices
//! in `docs/decisions.md`.

// The register-tiled rungs index their accumulators with loop counters over constant ranges:
// LLVM unrolls those and keeps the arrays in registers, where iterator chains (`zip` over
// arrays by value) left them in local memory (`docs/decisions.md`).
#![allow(clippy::needless_range_loop)]

mod ladder;
mod multistage;
mod tuned;
mod vector;

use core::ops::{Add, Mul};

use bankwise_device::Plain;
use bankwise_device::float::{fma_f32, fma_f64};
use bankwise_device::global;
use bankwise_device::thread::{block_x, block_y, grid_dim_x, grid_dim_y};
use bankwise_layout::matmul::at;

pub use ladder::{
    matmul_blocktile_1d, matmul_blocktile_2d, matmul_coalesced, matmul_naive, matmul_tiled, matmul_vectorized,
    matmul_vectorized_padded, matmul_vectorized_swizzled, matmul_warptile,
};
pub use multistage::{matmul_multistage, whole_copy_slots};
pub use tuned::{Batch, lanes, matmul_split_sum, matmul_tuned};

/// An element type of the matrix multiply: `f32` or `f64`.
pub trait Scalar: Plain + Copy + PartialEq + Add<Output = Self> + Mul<Output = Self> {
    /// The additive identity.
    const ZERO: Self;
    /// `self·b + c`, fused (`FFMA`/`DFMA`), as CUDA C++ compiles `c += a * b`.
    fn mul_add(self, b: Self, c: Self) -> Self;
}

impl Scalar for f32 {
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        fma_f32(self, b, c)
    }
}

impl Scalar for f64 {
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f64, c: f64) -> f64 {
        fma_f64(self, b, c)
    }
}

/// The arguments every rung takes, in their order: `C` (`m × n`, leading dimension `ldc`),
/// `A` (`m × k`, `lda`), `B` (`k × n`, `ldb`), and `α`, `β`.
#[derive(Clone, Copy)]
pub struct Gemm<T> {
    /// `C`, `m × n`.
    pub c: *mut T,
    /// `A`, `m × k`.
    pub a: *const T,
    /// `B`, `k × n`.
    pub b: *const T,
    /// Rows of `A` and `C`.
    pub m: u64,
    /// Columns of `B` and `C`.
    pub n: u64,
    /// Columns of `A`, rows of `B`.
    pub k: u64,
    /// Elements between rows of `A`.
    pub lda: u64,
    /// Elements between rows of `B`.
    pub ldb: u64,
    /// Elements between rows of `C`.
    pub ldc: u64,
    /// The product's factor.
    pub alpha: T,
    /// `C`'s factor; `C` is not read where it is 0.
    pub beta: T,
}

impl<T: Scalar> Gemm<T> {
    /// Writes `α·dot + β·C[r][c]`, reading `C` only where `β ≠ 0`.
    ///
    /// # Safety
    /// `(r, c)` is inside `C`.
    #[inline(always)]
    unsafe fn finish(&self, r: u64, c: u64, dot: T) {
        // SAFETY: `(r, c)` is inside `C` (this function's contract), which `c` holds with rows
        // `ldc` apart.
        let at_c = unsafe { self.c.add(at(r, c, self.ldc) as usize) };
        let scaled = self.alpha * dot;
        let value =
            // SAFETY: `at_c` is inside `C`; the thread that writes this element is the one that
            // reads it.
            if self.beta == T::ZERO { scaled } else { self.beta.mul_add(unsafe { global::read(at_c) }, scaled) };
        // SAFETY: `at_c` is inside `C`, and each element of `C` has one writing thread.
        unsafe { global::write(at_c, value) };
    }

    /// `A[r][c]`, or zero outside `A` (the tiles' padding past its edges).
    #[inline(always)]
    #[track_caller]
    fn a_or_zero(&self, r: u64, c: u64) -> T {
        if r < self.m && c < self.k {
            // SAFETY: `(r, c)` is inside `A`, which the launch's contract says `a` holds.
            unsafe { global::read(self.a.add(at(r, c, self.lda) as usize)) }
        } else {
            T::ZERO
        }
    }

    /// `B[r][c]`, or zero outside `B`.
    #[inline(always)]
    #[track_caller]
    fn b_or_zero(&self, r: u64, c: u64) -> T {
        if r < self.k && c < self.n {
            // SAFETY: `(r, c)` is inside `B`, which the launch's contract says `b` holds.
            unsafe { global::read(self.b.add(at(r, c, self.ldb) as usize)) }
        } else {
            T::ZERO
        }
    }

    /// [`finish`](Self::finish) where `(r, c)` is inside `C`; nothing outside it.
    #[inline(always)]
    fn finish_inside(&self, r: u64, c: u64, dot: T) {
        if r < self.m && c < self.n {
            // Safety: `(r, c)` is inside `C`.
            unsafe { self.finish(r, c, dot) };
        }
    }

    /// `Σ_i A[r][i]·B[i][c]`, straight from global memory.
    ///
    /// # Safety
    /// `(r, c)` is inside `C`.
    #[inline(always)]
    unsafe fn dot(&self, r: u64, c: u64) -> T {
        let mut sum = T::ZERO;
        for i in 0..self.k {
            // SAFETY: `r < m` and `c < n` (this function's contract) and `i < k`: inside `A` and
            // `B`, which the launch's contract says `a` and `b` hold; no thread writes them.
            let (x, y) = unsafe {
                (
                    global::read(self.a.add(at(r, i, self.lda) as usize)),
                    global::read(self.b.add(at(i, c, self.ldb) as usize)),
                )
            };
            sum = x.mul_add(y, sum);
        }
        sum
    }
}

/// Visits the origin `(row tile, column tile)` of every tile of `C` this block owns, with the
/// grid's x over `x_tiles` and y over `y_tiles` (grid-stride: grids are capped).
#[inline(always)]
fn for_each_tile(x_tiles: u64, y_tiles: u64, mut f: impl FnMut(u64, u64)) {
    let mut tx = block_x() as u64;
    while tx < x_tiles {
        let mut ty = block_y() as u64;
        while ty < y_tiles {
            f(tx, ty);
            ty += grid_dim_y() as u64;
        }
        tx += grid_dim_x() as u64;
    }
}
