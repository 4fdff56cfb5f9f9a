//! Exercise 12, bank conflicts in a reduction (guide: "The reduction ladder", "Bank conflicts").
//!
//! `block_sums_sequential` is exercise 11's answer: thread `t` adds element `2·s·t + s` into
//! `2·s·t`. Its lanes now touch words `2s` apart: at `s = 1` lanes 0 and 16 both hit bank 0, at
//! `s = 2` lanes 0, 8, 16 and 24, and so on (the stride rule: a stride of `2s` words puts
//! `gcd(2s, 32)` lanes in each bank used). The check prints `takes 8 wavefronts in its costliest
//! request, 3.92 per request on average` for each of the addition's three accesses. Keep the
//! working threads packed at the bottom of the block, and change which elements each step pairs
//! up, so that every shared access takes 1 wavefront.
//!
//! The answer is sequential addressing: at each step, with `h` the half-width of what is left
//! (128, 64, …, 1), thread `t < h` adds element `t + h` into element `t`, so consecutive lanes
//! touch consecutive words.
//!
//! Checked: every block's sum, and every shared-memory access site at 1 wavefront per request
//! (no bank conflict).

use bankwise_device::shared;
use bankwise_device::thread::{block_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Threads per block.
pub const BLOCK: usize = 256;

/// `out[b]` = the (wrapping) sum of elements `256·b .. 256·(b+1)` of `data[..n]`.
///
/// # Safety
/// `data` holds `n` elements, `out` one per block; blocks of [`BLOCK`] threads (the kernel
/// declares its `BLOCK · 4` bytes of shared memory).
#[kernel(shared = (BLOCK * 4) as u32)]
pub unsafe fn block_sums_sequential(out: *mut u32, data: *const u32, n: u64) {
    let s = shared::dynamic::<u32>();
    let t = thread_x() as usize;
    let i = index_1d();
    // SAFETY: `t < BLOCK` (blocks of `BLOCK` threads): this thread's word of the `BLOCK` the kernel
    // declares, written before the barrier below; `data` is read only where `i < n` (this kernel's
    // contract).
    unsafe { s.write(t, if i < n { global::read(data.add(i as usize)) } else { 0 }) };
    sync_threads();
    let mut half = BLOCK / 2;
    while half > 0 {
        // Lanes read consecutive words: one wavefront per request.
        if t < half {
            // SAFETY: `t < half` and `t + half < 2 · half ≤ BLOCK`: inside shared memory. Within a
            // step `t` has one writer and no `t + half` is written; the barriers order the steps.
            unsafe { s.write(t, s.read(t).wrapping_add(s.read(t + half))) };
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        // SAFETY: `out` holds one word per block (this kernel's contract), written by its thread 0
        // alone; word 0 holds the block's sum after the tree's last barrier.
        unsafe { global::write(out.add(block_x() as usize), s.read(0)) };
    }
}
