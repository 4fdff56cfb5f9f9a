//! Exercise 7, the stride rule (guide: "Bank conflicts").
//!
//! `row_sums` sums each 16-word row of a matrix: a block of 32 threads copies 32 rows into shared
//! memory (coalesced), then thread `t` adds up row `t`. Shared memory has 32 banks of 4 bytes
//! (word `w` is in bank `w mod 32`), and a warp's request takes one pass (wavefront) per distinct
//! word in its busiest bank. At each step lane `t` reads word `ROW_STRIDE · t + j`: with rows 16
//! words apart, 16 lanes read from each bank used, a 16-way conflict. The check prints `takes 16
//! wavefronts in its costliest request, 11.17 per request on average` (the average counts the
//! check's partial blocks, whose requests have fewer lanes: 100 rows leave 4 in the last block).
//! Lay the rows out in shared memory so that every row read takes 1 wavefront; the matrix in
//! global memory and the order of the reads stay as they are. (`ROW_STRIDE` is the distance
//! between two rows' starts in shared memory, at least 16 words; the kernel declares
//! `ROWS · ROW_STRIDE` words, so the memory follows it.)
//!
//! Checked: every row's sum for 32, 100 and 1 rows, and every request of the row reads at 1
//! wavefront. `cargo xtask exercise check 7 --draw` draws what each access costs.

use bankwise_device::shared;
use bankwise_device::thread::{block_x, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Words per row of the matrix.
pub const ROW: usize = 16;
/// Rows per block (one per thread).
pub const ROWS: usize = 32;
/// Words between the starts of two rows in shared memory.
pub const ROW_STRIDE: usize = 16;

/// `out[r]` = the (wrapping) sum of row `r` of the `rows × 16` row-major matrix `data`.
///
/// # Safety
/// `data` holds `rows · 16` elements, `out` `rows`; blocks of [`ROWS`] threads (the kernel
/// declares its `ROWS · ROW_STRIDE · 4` bytes of shared memory).
#[kernel(shared = (ROWS * ROW_STRIDE * 4) as u32)]
pub unsafe fn row_sums(out: *mut u32, data: *const u32, rows: u64) {
    let s = shared::dynamic::<u32>();
    let t = thread_x() as usize;
    let first = block_x() as usize * ROWS;
    // Coalesced: at each step the warp copies 32 consecutive words of the block's rows.
    for k in 0..ROW {
        let i = k * ROWS + t;
        let (r, c) = (i / ROW, i % ROW);
        if ((first + r) as u64) < rows {
            // SAFETY: `r < ROWS` and `c < ROW ≤ ROW_STRIDE`: inside the `ROWS · ROW_STRIDE` words
            // the kernel declares, one writer each, before the barrier below; the row `first + r <
            // rows` is inside `data` (this kernel's contract).
            unsafe { s.write(r * ROW_STRIDE + c, global::read(data.add((first + r) * ROW + c))) };
        }
    }
    sync_threads();
    if ((first + t) as u64) < rows {
        let mut sum = 0u32;
        for j in 0..ROW {
            // SAFETY: `t < ROWS` (blocks of `ROWS` threads) and `j < ROW ≤ ROW_STRIDE`: inside
            // shared memory, written before the barrier above.
            sum = sum.wrapping_add(unsafe { s.read(t * ROW_STRIDE + j) });
        }
        // SAFETY: `first + t < rows`, and `out` holds `rows` words (this kernel's contract); one
        // thread writes each.
        unsafe { global::write(out.add(first + t), sum) };
    }
}
