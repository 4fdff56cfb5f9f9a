//! Exercise 6, shared atomics (guide: "Shared memory and barriers").
//!
//! `histogram` counts bytes into 256 bins: each block counts into its own bins in shared memory,
//! then adds them to the global bins. Counting with a read and a write (`bins[b] = bins[b] + 1`)
//! is a race when two threads of the block count the same byte value at once: both read the old
//! count, and one increment is lost. (The emulator runs threads one after another, so its counts
//! come out right; it reports the race anyway, which is what makes the kernel wrong.) Make every
//! count count, whatever the threads meet on, and keep the per-block bins in shared memory.
//!
//! Checked: every bin for 1, 1000 and 70 000 bytes, no race, and at most 256 global atomic
//! requests per block (one per bin: the block's counts reach the global bins once).

use bankwise_device::atomic::{self, Scope};
use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// One bin per byte value.
pub const BINS: usize = 256;

/// Adds the histogram of `data[..n]` to `bins[..256]`.
///
/// # Safety
/// `data` holds `n` bytes and `bins` 256 counters; a 1-D grid (the kernel declares its
/// `BINS · 4` bytes of shared memory).
#[kernel(shared = (BINS * 4) as u32)]
pub unsafe fn histogram(bins: *mut u32, data: *const u8, n: u64) {
    // Safety: offset 0, and the kernel declares BINS counters, which every launch gives the block.
    let local = unsafe { SharedArray::<u32, BINS>::new_unchecked(0) };
    let (tid, threads) = (thread_x() as usize, block_dim_x() as usize);
    let mut b = tid;
    while b < BINS {
        // SAFETY: `b < BINS`: inside `local`; each bin is zeroed by one thread, before the barrier
        // that orders it before every count.
        unsafe { local.write(b, 0) };
        b += threads;
    }
    sync_threads();
    let stride = grid_dim_x() as u64 * threads as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` bytes (this kernel's contract).
        let byte = unsafe { global::read(data.add(i as usize)) };
        // SAFETY: `byte < 256 = BINS`: inside `local`. Not ordered with other threads counting the
        // same byte value at once: a race (what this exercise is about).
        unsafe { local.write(byte as usize, local.read(byte as usize) + 1) };
        i += stride;
    }
    sync_threads();
    let mut b = tid;
    while b < BINS {
        // SAFETY: `b < BINS`: inside `local`; the barrier above orders every count before this
        // read.
        let count = unsafe { local.read(b) };
        if count != 0 {
            // SAFETY: `b < BINS`, and `bins` holds 256 counters (this kernel's contract); other
            // blocks add to them atomically too.
            unsafe { atomic::red_add(bins.add(b), count, Scope::Device) };
        }
        b += threads;
    }
}
