//! Exercise 15, a warp's inclusive scan
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `warp_scans` writes, for every element, the (wrapping) sum of its warp's elements up to and
//! including it: `out[i] = data[32·w] + … + data[i]` for the warp `w = i / 32`. A reduction
//! leaves one lane with everything; a scan leaves every lane with its own prefix, so every
//! lane must keep what it has gathered and gather more. Do it in registers, with the warp's
//! shuffles (`bankwise_device::warp`), in as many steps as a warp reduction takes.
//!
//! Checked: every element for lengths 1, 31, 32, 33, 997 and 4099 (blocks of 256 threads, the
//! last warp partial); no shared-memory access; the global sectors loaded per sector of input:
//! at most 1.25 (each element loaded once); and a shuffle in the PTX.

use bankwise_device::thread::{index_1d, lane_id};
use bankwise_device::{global, kernel, warp};

/// Every lane of the warp takes part in each shuffle.
pub const FULL: u32 = u32::MAX;

/// `out[i]` = the (wrapping) sum of `data[32·(i / 32) ..= i]`, for `i < n`.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_scans(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    // Lanes past the end take part with 0: every lane must reach every shuffle.
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let mut v = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    todo!(
        "scan v across the warp with shuffles, so that each lane holds the sum of its own and every lower lane's value"
    );
    if i < n {
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), v) };
    }
}
