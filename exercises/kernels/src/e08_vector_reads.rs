//! Exercise 8, 16-byte shared loads (guide: "Bank conflicts").
//!
//! `quad_sums` adds each group of four consecutive words: a block copies its words into
//! shared memory (coalesced), then thread `t` reads words `4t .. 4t + 4`. Read one at a time,
//! each of the four reads strides 4 words across the warp, so `gcd(4, 32) = 4` lanes share
//! each bank: 4 requests of 4 wavefronts, 16 per full warp. Read the four words as one
//! 16-byte element instead (SASS `LDS.128`): the hardware serves a 16-byte request a
//! quarter-warp at a time, 8 lanes × 16 bytes filling the 32 banks once, so the warp's 512
//! bytes take 4 wavefronts in one request, the fewest possible. The element must be 16-byte
//! aligned for the compiler to emit one instruction: `s.cast::<Align16<[u32; 4]>>()` (from
//! `bankwise_device`), then element `t`; an `[u32; 4]` alone is 4-byte aligned and still
//! becomes four `LDS` in the PTX. (ptxas 13.0 happens to merge this kernel's four scalar reads
//! into an `LDS.128` on its own, because it can prove the address aligned; the emulator counts
//! the reads the program asks for, and a 16-byte-aligned element makes the PTX ask for one.)
//!
//! Checked: every sum, at most 4 load wavefronts per warp over the kernel, and one 16-byte
//! shared load (`ld.shared.v4`) in the PTX.

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
