//! Exercise 11, divergence (guide: "The reduction ladder").
//!
//! `block_sums` adds each block's 256 elements in a tree in shared memory: at step `s` (1, 2, 4,
//! …) the thread whose index is a multiple of `2s` adds in its neighbour `s` away. It is right,
//! and wasteful: the working threads are spread over every warp, so all 8 warps run every step
//! with most of their lanes idle. The check prints `the tree's shared loads took 95 warp-wide
//! requests per block; with the working threads packed into the fewest warps they take 25`. Keep
//! the same additions at each step, but hand them to threads so that the working threads fill the
//! fewest warps and the other warps skip the step entirely.
//!
//! Checked: every block's sum, and the tree's shared-memory loads: at most 25 warp-wide
//! requests per block (12 for each operand of the additions, 1 for the final read), where the
//! spread-out tree takes 95.

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
pub unsafe fn block_sums(out: *mut u32, data: *const u32, n: u64) {
    let s = shared::dynamic::<u32>();
    let t = thread_x() as usize;
    let i = index_1d();
    // SAFETY: `t < BLOCK` (blocks of `BLOCK` threads): this thread's word of the `BLOCK` the kernel
    // declares, written before the barrier below; `data` is read only where `i < n` (this kernel's
    // contract).
    unsafe { s.write(t, if i < n { global::read(data.add(i as usize)) } else { 0 }) };
    sync_threads();
    let mut step = 1;
    while step < BLOCK {
        if t.is_multiple_of(2 * step) {
            // SAFETY: `t` is a multiple of `2 · step ≤ BLOCK`, so `t + step < BLOCK`: inside shared
            // memory. Within a step `t` has one writer and no `t + step` is written; the barriers
            // order the steps.
            unsafe { s.write(t, s.read(t).wrapping_add(s.read(t + step))) };
        }
        sync_threads();
        step *= 2;
    }
    if t == 0 {
        // SAFETY: `out` holds one word per block (this kernel's contract), written by its thread 0
        // alone; word 0 holds the block's sum after the tree's last barrier.
        unsafe { global::write(out.add(block_x() as usize), s.read(0)) };
    }
}
