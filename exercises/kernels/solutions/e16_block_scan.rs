//! Exercise 16, a block's inclusive scan
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `block_scans` scans each run of 256 elements: `out[i] = data[256·b] + … + data[i]` for the
//! block `b = i / 256`. It works on two levels. Each warp scans its 32 elements with shuffles
//! (`warp_scan`, exercise 15's answer, is given); then the block needs, for each warp, the sum
//! of the warps before it. Lane 31 of each warp holds its warp's total: the totals go through
//! the shared memory the kernel declares (one word per warp), one warp scans them, and every
//! thread adds the total of the warps before its own. The second level is yours to write, and
//! so is the ordering: whenever one warp reads what another wrote, the block must wait
//! between the two.
//!
//! Checked: every element for lengths 1, 31, 32, 33, 256, 257, 1009 and 4099 (the last block
//! partial); no race; every shared access at 1 wavefront per request; the global sectors
//! loaded per sector of input: at most 1.25 (each element loaded once); and at most 9 warp-wide
//! shared loads per block (one warp reading the 8 totals together, and one read per warp).

use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{index_1d, lane_id, sync_threads, thread_x};
use bankwise_device::{global, kernel, warp};

/// Threads per block, and elements per scanned run.
pub const BLOCK: usize = 256;
/// Warps per block.
pub const WARPS: usize = BLOCK / 32;
/// Every lane of the warp takes part in each shuffle.
pub const FULL: u32 = u32::MAX;

/// The inclusive (wrapping) scan of `v` across the warp: lane `l` gets the sum of lanes
/// `0 ..= l`. Every lane of the warp must call it.
#[inline(always)]
#[track_caller]
pub fn warp_scan(mut v: u32) -> u32 {
    let lane = lane_id();
    let mut d = 1;
    while d < 32 {
        let below = warp::shfl_up(FULL, v, d);
        if lane >= d {
            v = v.wrapping_add(below);
        }
        d *= 2;
    }
    v
}

/// `out[i]` = the (wrapping) sum of `data[256·(i / 256) ..= i]`, for `i < n`.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of [`BLOCK`] threads (the kernel declares its
/// `WARPS · 4` bytes of shared memory).
#[kernel(shared = (WARPS * 4) as u32)]
pub unsafe fn block_scans(out: *mut u32, data: *const u32, n: u64) {
    // SAFETY: offset 0, and the kernel declares `WARPS` words, which every launch gives the block.
    let totals = unsafe { SharedArray::<u32, WARPS>::new_unchecked(0) };
    let (t, lane) = (thread_x() as usize, lane_id() as usize);
    let w = t / 32;
    let i = index_1d();
    // Threads past the end take part with 0: every thread must reach every barrier and shuffle.
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let x = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    let mut v = warp_scan(x);
    if lane == 31 {
        // SAFETY: `w < WARPS`: inside `totals`; one writer (lane 31 of warp `w`), before the
        // barrier below.
        unsafe { totals.write(w, v) };
    }
    // Every warp's total is written before warp 0 reads them.
    sync_threads();
    if w == 0 {
        // SAFETY: `lane < WARPS`: inside `totals`, written before the barrier above.
        let total = if lane < WARPS { unsafe { totals.read(lane) } } else { 0 };
        let before = warp_scan(total);
        if lane < WARPS {
            // SAFETY: `lane < WARPS`: inside `totals`; lane `lane` of warp 0 alone writes it, after
            // its own read, and the barrier below orders it before the other warps' reads.
            unsafe { totals.write(lane, before) };
        }
    }
    // Warp 0's scanned totals are written before any warp reads them.
    sync_threads();
    if w > 0 {
        // SAFETY: `w − 1 < WARPS`: inside `totals`, written before the barrier above. Every lane of
        // the warp reads the same word: a broadcast, one wavefront.
        v = v.wrapping_add(unsafe { totals.read(w - 1) });
    }
    if i < n {
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), v) };
    }
}
