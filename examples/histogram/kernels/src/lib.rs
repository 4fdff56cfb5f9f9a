//! A histogram of bytes with shared-memory atomics: the standard way to count into few bins
//! from many threads without serialising every count on one global address.
#![no_std]

use bankwise_device::atomic::{self, Scope};
use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// One bin per byte value.
pub const BINS: usize = 256;

/// Adds the histogram of `data[..n]` to `bins[..256]`.
///
/// Each block counts its share of the bytes into its own 256 bins in shared memory
/// (`atom.shared.add`, which the SM executes close to the data and which contends only among
/// the block's threads), then adds each non-zero bin to the global bins with one global atomic
/// (`red.global.add`): 256 global atomics per block instead of one per byte.
///
/// # Safety
/// `data` holds `n` bytes and `bins` 256 counters; a 1-D grid (the kernel declares its
/// `BINS · 4` bytes of shared memory, which every launch gives each block).
#[kernel(shared = (BINS * 4) as u32)]
pub unsafe fn histogram(bins: *mut u32, data: *const u8, n: u64) {
    // Safety: offset 0 of the BINS counters the kernel declares.
    let local = unsafe { SharedArray::<u32, BINS>::new_unchecked(0) };
    let (tid, threads) = (thread_x() as usize, block_dim_x() as usize);
    let mut b = tid;
    while b < BINS {
        // Safety: each bin is zeroed by one thread, before the barrier that orders it before
        // every count.
        unsafe { local.write(b, 0) };
        b += threads;
    }
    sync_threads();
    let stride = grid_dim_x() as u64 * threads as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` bytes (this kernel's contract).
        let byte = unsafe { global::read(data.add(i as usize)) };
        // Safety: an atomic, so concurrent counts into one bin are not a race.
        unsafe { local.at(byte as usize).atomic_add(1) };
        i += stride;
    }
    sync_threads();
    let mut b = tid;
    while b < BINS {
        // Safety: every count is ordered before this read by the barrier above.
        let count = unsafe { local.read(b) };
        if count != 0 {
            // Safety: `bins` holds BINS counters; other blocks add to them atomically too.
            unsafe { atomic::red_add(bins.add(b), count, Scope::Device) };
        }
        b += threads;
    }
}
