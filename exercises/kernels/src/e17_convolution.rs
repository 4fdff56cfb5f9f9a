//! Exercise 17, a 1-D convolution through a shared tile
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `convolve` applies a 7-tap filter: `out[i] = Σₖ WEIGHTS[k] · data[i + k − R]` for
//! `k = 0 … 2R`, with `data` taken as 0 outside `0 … n`. Each output reads 7 inputs, and each
//! input is read by 7 outputs: reading them all from global memory moves every input sector
//! about 7 times over. The kernel declares a tile of `BLOCK + 2R` words of shared memory: stage
//! the block's inputs in it, with the `R` inputs on each side that its outputs also need (the
//! halo), so that global memory gives each block its inputs once.
//!
//! Checked: every element for lengths 1, 31, 32, 33, 256, 257, 1009 and 100 003 (blocks of 256
//! threads); no race; every global store coalesced; and the global sectors loaded per sector
//! of input: at most 1.5 (the halo's few words are read by two blocks).

use bankwise_device::shared;
use bankwise_device::thread::{block_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Threads per block: one output each.
pub const BLOCK: usize = 256;
/// The filter's radius: each output reads `R` inputs on each side of its own.
pub const R: usize = 3;
/// The filter (not symmetric, so that a mirrored index gives a wrong answer).
pub const WEIGHTS: [i32; 2 * R + 1] = [1, 2, -3, 5, -7, 4, -1];

/// `data[at]`, or 0 where `at` is outside `0 … n`.
///
/// # Safety
/// `data` holds `n` elements.
#[inline(always)]
#[track_caller]
unsafe fn input(data: *const i32, n: usize, at: isize) -> i32 {
    // SAFETY: `0 ≤ at < n`, and `data` holds `n` elements (this function's contract).
    if at >= 0 && (at as usize) < n { unsafe { global::read(data.add(at as usize)) } } else { 0 }
}

/// `out[i]` = `Σₖ WEIGHTS[k] · data[i + k − R]` (wrapping), for `i < n`.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of [`BLOCK`] threads (the kernel declares its
/// `(BLOCK + 2R) · 4` bytes of shared memory).
#[kernel(shared = ((BLOCK + 2 * R) * 4) as u32)]
pub unsafe fn convolve(out: *mut i32, data: *const i32, n: u64) {
    let tile = shared::dynamic::<i32>();
    let i = index_1d();
    if i < n {
        let mut sum = 0i32;
        for (k, w) in WEIGHTS.iter().enumerate() {
            // SAFETY: `input` reads `data` within `0 … n` (this kernel's contract).
            let x = unsafe { input(data, n as usize, i as isize + k as isize - R as isize) };
            sum = sum.wrapping_add(w.wrapping_mul(x));
        }
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), sum) };
    }
}
