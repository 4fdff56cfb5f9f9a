//! Wrong answers the checks must reject: common mistakes, each a kernel that compiles and
//! launches like an exercise's answer, for the checks' tests (`exercises/src/checks.rs`). Not
//! exercises: the files to edit are in `src/`.

use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d, lane_id};
use bankwise_device::{global, kernel, warp};

/// Exercise 3 with a contiguous chunk of `⌈n / T⌉` elements per thread (`T` threads in the
/// grid): every element right, and a warp's stores `8 · ⌈n / T⌉` bytes apart.
///
/// # Safety
/// `out` holds `n` elements.
#[kernel]
pub unsafe fn fill_squares_chunked(out: *mut u64, n: u64) {
    let per_thread = n.div_ceil(grid_dim_x() as u64 * block_dim_x() as u64);
    let start = index_1d() * per_thread;
    let mut i = start;
    while i < n && i < start + per_thread {
        // SAFETY: `i < n`, and `out` holds `n` elements (this kernel's contract); the chunks do
        // not overlap, so one thread writes each.
        unsafe { global::write(out.add(i as usize), i.wrapping_mul(i)) };
        i += 1;
    }
}

/// Exercise 13 with the shuffles inside `if i < n`: the lanes of the last warp past the end
/// never call the shuffles that the full mask says they join.
///
/// # Safety
/// `data` holds `n` elements and `out` `⌈n / 32⌉`; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_sums_in_bounds_only(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    if i < n {
        // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
        let mut v = unsafe { global::read(data.add(i as usize)) };
        let mut d = 16;
        while d > 0 {
            v = v.wrapping_add(warp::shfl_down(u32::MAX, v, d));
            d /= 2;
        }
        if lane_id() == 0 {
            // SAFETY: `i < n`, so `i / 32 < ⌈n / 32⌉`, inside `out` (this kernel's contract);
            // lane 0 alone writes its warp's word.
            unsafe { global::write(out.add((i / 32) as usize), v) };
        }
    }
}
