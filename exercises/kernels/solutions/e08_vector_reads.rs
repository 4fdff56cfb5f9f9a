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
//! The answer reads the four words as one 16-byte element (SASS `LDS.128`): the hardware serves a
//! 16-byte request a quarter-warp at a time, 8 lanes × 16 bytes filling the 32 banks once, so the
//! warp's 512 bytes take 4 wavefronts in one request. The element must be 16-byte aligned for the
//! compiler to emit one instruction: `s.cast::<Align16<[u32; 4]>>()`, then element `t`; an
//! `[u32; 4]` alone is 4-byte aligned and still becomes four `LDS` in the PTX. (ptxas 13.0 happens
//! to merge the four scalar reads into an `LDS.128` on its own, because it can prove the address
//! aligned; the emulator counts the reads the program asks for, and a 16-byte-aligned element
//! makes the PTX ask for one.)
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
        // One 16-byte read of a 16-byte-aligned element: LDS.128, four wavefronts for the warp.
        // SAFETY: element `t < blockDim.x` of 16 bytes: inside the `blockDim.x · 16` bytes of
        // shared memory, 16-byte aligned (the view starts at offset 0), written before the barrier
        // above.
        let v = unsafe { s.cast::<Align16<[u32; 4]>>().read(t) }.0;
        let sum = v[0].wrapping_add(v[1]).wrapping_add(v[2]).wrapping_add(v[3]);
        // SAFETY: `first + t < quads`, and `out` holds `quads` words (this kernel's contract); one
        // thread writes each.
        unsafe { global::write(out.add(first + t), sum) };
    }
}
