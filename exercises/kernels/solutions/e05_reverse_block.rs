//! Exercise 5, shared memory and barriers (guide: "Shared memory and barriers").
//!
//! `reverse_blocks` reverses each run of 256 elements in place: block `b` reads its 256 elements
//! into shared memory, then writes element `255 − t` of shared memory back to position `t`.
//! Thread `t` reads what thread `255 − t` wrote, and nothing orders that read after the write:
//! the emulator reports the race (and the answer it gets is wrong: it runs each thread as far as
//! it can go before starting the next). Make every thread read the word only once its writer has
//! written it, whatever order the threads run in.
//!
//! The answer is one line: a block barrier (`sync_threads()`) between the writes into shared
//! memory and the reads, which no thread passes until every thread of the block has written.
//!
//! Checked: 4 blocks, every element, no race.

use bankwise_device::shared;
use bankwise_device::thread::{block_x, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Threads per block, and elements per reversed run.
pub const BLOCK: usize = 256;

/// Reverses each run of [`BLOCK`] elements of `data` in place.
///
/// # Safety
/// `data` holds `BLOCK · gridDim.x` elements; blocks of [`BLOCK`] threads (the kernel declares
/// its `BLOCK · 4` bytes of shared memory).
#[kernel(shared = (BLOCK * 4) as u32)]
pub unsafe fn reverse_blocks(data: *mut u32) {
    let s = shared::dynamic::<u32>();
    let t = thread_x() as usize;
    let at = block_x() as usize * BLOCK + t;
    // SAFETY: `t < BLOCK` (blocks of `BLOCK` threads) and `at < BLOCK · gridDim.x`: this thread's
    // word of shared memory (the kernel declares `BLOCK` of them) and its element of `data` (this
    // kernel's contract).
    unsafe { s.write(t, global::read(data.add(at))) };
    // Every thread's write happens before any thread reads another's.
    sync_threads();
    // SAFETY: element `at` of `data`, this thread's alone, and word `BLOCK − 1 − t < BLOCK` of
    // shared memory, written by its thread before the barrier above.
    unsafe { global::write(data.add(at), s.read(BLOCK - 1 - t)) };
}
