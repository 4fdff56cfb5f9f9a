//! Exercise 8, 16-byte shared loads (guide: "Bank conflicts").
//!
//! `quad_sums` adds each group of four consecutive words: a block copies its words into shared
//! memory (coalesced), then thread `t` reads words `4t .. 4t + 4`, one at a time. Each of those
//! reads strides 4 words across the warp, so 4 lanes share each bank used: 4 requests of 4
//! wavefronts. The check prints `the reads of the groups take 16 wavefronts per full warp (15.85
//! per warp on average: the last warp of a length has fewer lanes)`. A wavefront moves at most
//! 128 bytes, one word per bank, so a warp's 512 bytes need at least 4. Read each thread's four
//! words so that a warp takes those 4, in the PTX the GPU runs as well as on the emulator (which
//! counts the reads as the Rust code makes them; the GPU runs what ptxas makes of the PTX).
//!
//! Checked: every sum, at most 4 load wavefronts per full warp, and one 16-byte shared load
//! (`ld.shared.v4`) in the PTX.

use bankwise_device::shared;
use bankwise_device::thread::{block_dim_x, block_x, sync_threads, thread_x};
use bankwise_device::{Align16, global, kernel};

/// `out[q]` = the (wrapping) sum of words `4q .. 4q + 4` of `data`.
///
/// # Safety
/// `data` holds `4 · quads` words, `out` `quads`; `blockDim.x · 16` bytes of dynamic shared
/// memory.
#[kernel]
pub unsafe fn quad_sums(out: *mut u32, data: *const u32, quads: u64) {
    let s = shared::dynamic::<u32>();
    let (t, threads) = (thread_x() as usize, block_dim_x() as usize);
    let first = block_x() as usize * threads;
    let words = 4 * quads as usize;
    for k in 0..4 {
        let i = k * threads + t;
        if 4 * first + i < words {
            // SAFETY: `i < 4 · blockDim.x`: inside the `blockDim.x · 16` bytes of shared memory
            // (this kernel's contract), one writer each, before the barrier below; word `4 · first
            // + i < 4 · quads` is inside `data`.
            unsafe { s.write(i, global::read(data.add(4 * first + i))) };
        }
    }
    sync_threads();
    if first + t < quads as usize {
        let mut sum = 0u32;
        for j in 0..4 {
            // SAFETY: `4t + j < 4 · blockDim.x`: inside shared memory, written before the barrier
            // above.
            sum = sum.wrapping_add(unsafe { s.read(4 * t + j) });
        }
        // SAFETY: `first + t < quads`, and `out` holds `quads` words (this kernel's contract); one
        // thread writes each.
        unsafe { global::write(out.add(first + t), sum) };
    }
}
