//! Exercise 19, a privatised histogram without bank conflicts
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `histogram32` counts values below 32 into 32 bins. Shared atomics serialise when a warp's
//! lanes count the same value, which skewed data does all the time; here each thread owns a
//! private set of 32 counters in shared memory instead, counts with plain reads and writes (no
//! other thread touches its counters), and after a barrier the block adds each bin's counters
//! up and adds the sum to the global bins. Where a thread's counters lie in shared memory
//! (`slot`) decides which banks a warp's 32 counts hit at once: as shipped, that depends on
//! the data, and data of one value puts the whole warp in one bank. Lay the counters out so
//! that a warp's counts never conflict, whatever the values; then look at what the merge's
//! reads cost in your layout.
//!
//! Checked: every bin for lengths 1, 31, 32, 33, 1009 and 70 000, on uniform data, on data of
//! one value and on data where one value is nine in ten; no shared atomic in the PTX; and on
//! each data set: no race; at most 32 global atomic requests per block (one per bin); at least
//! one shared store request per warp-wide read of the data (every count made in shared memory);
//! every shared access at 1 wavefront per request.

use bankwise_device::atomic::{self, Scope};
use bankwise_device::shared;
use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Bins: the values counted are below this.
pub const BINS: usize = 32;
/// Threads per block, each with its own `BINS` counters.
pub const BLOCK: usize = 128;

/// The word of shared memory that holds thread `t`'s counter of bin `b`: bin-major, so that
/// the 32 lanes of a warp, whatever bins they count, touch 32 consecutive words (32 banks).
#[inline(always)]
pub fn slot(b: usize, t: usize) -> usize {
    b * BLOCK + t
}

/// Adds the histogram of `data[..n]` (each value below [`BINS`]) to `bins[..BINS]`.
///
/// # Safety
/// `data` holds `n` values below `BINS` and `bins` `BINS` counters; a 1-D grid of blocks of
/// [`BLOCK`] threads (the kernel declares its `BINS · BLOCK · 4` bytes of shared memory).
#[kernel(shared = (BINS * BLOCK * 4) as u32)]
pub unsafe fn histogram32(bins: *mut u32, data: *const u8, n: u64) {
    let counts = shared::dynamic::<u32>();
    let t = thread_x() as usize;
    // Each thread zeroes and counts into its own counters only: no barrier needed until the
    // merge reads other threads'.
    for b in 0..BINS {
        // SAFETY: `slot(b, t) < BINS · BLOCK`: inside the counters the kernel declares, this
        // thread's own.
        unsafe { counts.write(slot(b, t), 0) };
    }
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` values, each below `BINS` (this kernel's contract).
        let b = unsafe { global::read(data.add(i as usize)) } as usize;
        let at = slot(b, t);
        // SAFETY: `b < BINS` and `t < BLOCK`, so `at < BINS · BLOCK`: this thread's own counter,
        // which no other thread touches before the barrier below.
        unsafe { counts.write(at, counts.read(at) + 1) };
        i += stride;
    }
    // Every count is made before the merge reads other threads' counters.
    sync_threads();
    if t < BINS {
        // Lane `t` adds up bin `t`'s counters. Starting each lane at a different thread (`t`, and
        // around) keeps the warp's 32 reads in 32 banks: the bin-major layout puts bin `t`'s
        // counters `BLOCK` words from bin `t − 1`'s, a multiple of 32.
        let mut sum = 0u32;
        for k in 0..BLOCK {
            // SAFETY: `(k + t) % BLOCK < BLOCK` and `t < BINS`: inside the counters, written before
            // the barrier above.
            sum += unsafe { counts.read(slot(t, (k + t) % BLOCK)) };
        }
        if sum != 0 {
            // SAFETY: `t < BINS`, and `bins` holds `BINS` counters (this kernel's contract); other
            // blocks add to them atomically too.
            unsafe { atomic::red_add(bins.add(t), sum, Scope::Device) };
        }
    }
}
