//! Exercise 13, warp shuffles (guide: "The reduction ladder").
//!
//! `warp_sums` adds each warp's 32 elements without shared memory: a lane can read another lane's
//! register with `warp::shfl_down(FULL, v, d)`, which gives lane `l` the value `v` of lane `l + d`
//! (and its own where `l + d ≥ 32`). Replace the `todo!()` so that lane 0 ends with the sum of its
//! warp's 32 values, in as few shuffles as a tree takes, and writes it. Every lane a shuffle's mask
//! names must make that shuffle, lanes past `n` too: where one does not, the check names the
//! lanes and says why.
//!
//! Checked: every warp's sum (lengths 32, 1000 and 4099, whose last warps are partly past the
//! end); no shared-memory access; the global sectors loaded per sector of input: at most 1.25
//! (each element loaded once); a shuffle in the PTX; and no shuffle that a lane its mask names
//! skips.

use bankwise_device::thread::{index_1d, lane_id};
use bankwise_device::{global, kernel, warp};

/// Every lane of the warp takes part in each shuffle.
pub const FULL: u32 = u32::MAX;

/// `out[w]` = the (wrapping) sum of elements `32·w .. 32·(w+1)` of `data[..n]`.
///
/// # Safety
/// `data` holds `n` elements and `out` `⌈n / 32⌉`; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_sums(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let mut v = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    todo!("add v across the warp with warp::shfl_down, so that lane 0 holds the sum");
    if lane_id() == 0 && i < n {
        // SAFETY: `i < n`, so `i / 32 < ⌈n / 32⌉`, inside `out` (this kernel's contract); lane 0
        // alone writes its warp's word.
        unsafe { global::write(out.add((i / 32) as usize), v) };
    }
}
