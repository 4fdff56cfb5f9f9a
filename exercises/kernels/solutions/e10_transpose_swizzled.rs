//! Exercise 10, swizzling (guide: "Bank conflicts", "The transpose ladder").
//!
//! Exercise 9 again, with exactly 32 × 32 words of shared memory (the kernel declares no more,
//! and the check holds it to that: padding would need more). As shipped, the check prints
//! `takes 32 wavefronts in its costliest request, 24.86 per request on average`, as exercise 9's
//! does. Keep each row of the tile in its own 32 words, but choose where in its row each
//! element goes (`at(r, c)`, which the write and the read both use), so that the 32 elements of
//! a column lie in 32 different banks while those of a row still do.
//!
//! The answer stores element `(r, c)` of the tile at word `32 · r + (c ^ r)`: XOR with `r` is a
//! different permutation of each row's 32 words, so row `r` still fills 32 banks, and column `c`
//! read by rows `0..32` goes to banks `c ^ r`, all different.
//!
//! Checked: every element of 100 × 300, 64 × 64 and 33 × 65; every shared access at 1
//! wavefront per request; every global access coalesced; 4096 bytes of shared memory declared.

use bankwise_device::shared;
use bankwise_device::thread::{block_x, block_y, sync_threads, thread_x, thread_y};
use bankwise_device::{global, kernel};

/// The tile's side.
pub const TILE: usize = 32;
/// Rows of threads per block.
pub const BLOCK_ROWS: usize = 8;

/// Where element `(r, c)` of the tile lives: row `r`, its words permuted by XOR with `r`.
#[inline(always)]
fn at(r: usize, c: usize) -> usize {
    r * TILE + (c ^ r)
}

/// `dst` (`cols × rows`) = the transpose of `src` (`rows × cols`), both row-major.
///
/// # Safety
/// The buffers hold `rows · cols` floats; blocks of 32 × 8 threads, a grid of
/// `⌈cols / 32⌉ × ⌈rows / 32⌉` blocks (the kernel declares its `TILE · TILE · 4` bytes of shared
/// memory).
#[kernel(shared = (TILE * TILE * 4) as u32)]
pub unsafe fn transpose_swizzled(dst: *mut f32, src: *const f32, rows: u64, cols: u64) {
    let tile = shared::dynamic::<f32>();
    let (tx, ty) = (thread_x() as usize, thread_y() as usize);
    let (bx, by) = (block_x() as usize * TILE, block_y() as usize * TILE);
    let (rows, cols) = (rows as usize, cols as usize);
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        let (r, c) = (by + ty + j, bx + tx);
        if r < rows && c < cols {
            // SAFETY: `at` maps `ty + j < TILE` and `tx < TILE` into the `TILE · TILE` words the
            // kernel declares, one writer each, before the barrier below; `r < rows` and `c <
            // cols`: inside `src` (this kernel's contract).
            unsafe { tile.write(at(ty + j, tx), global::read(src.add(r * cols + c))) };
        }
    }
    sync_threads();
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        let (r, c) = (bx + ty + j, by + tx);
        if r < cols && c < rows {
            // SAFETY: `r < cols` and `c < rows`: inside `dst` (this kernel's contract), one thread
            // each; the tile's word, inside it as for the write, was written before the barrier
            // above.
            unsafe { global::write(dst.add(r * rows + c), tile.read(at(tx, ty + j))) };
        }
    }
}
