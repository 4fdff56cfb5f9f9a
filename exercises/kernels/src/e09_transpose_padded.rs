//! Exercise 9, padding (guide: "Bank conflicts", "The transpose ladder").
//!
//! `transpose_tile` transposes a matrix through a 32 × 32 tile of shared memory: each block reads
//! a tile with coalesced row reads, and writes it out transposed, again by rows, so it reads the
//! tile by *columns*. With rows of 32 words, a column's 32 words are all in one bank: a 32-way
//! conflict. The check prints `takes 32 wavefronts in its costliest request, 24.86 per request on
//! average` (the partial tiles of 100 × 300 and 33 × 65 make smaller requests). Change how the
//! tile's rows lie in shared memory (`TILE_STRIDE`, the words from one row's start to the next;
//! the kernel declares `TILE · TILE_STRIDE` words, so the memory follows it) so that every shared
//! access takes 1 wavefront, the row writes as well as the column reads.
//!
//! Checked: every element of 100 × 300, 64 × 64 and 33 × 65; every shared access at 1
//! wavefront per request; every global access coalesced.

use bankwise_device::shared;
use bankwise_device::thread::{block_x, block_y, sync_threads, thread_x, thread_y};
use bankwise_device::{global, kernel};

/// The tile's side.
pub const TILE: usize = 32;
/// Rows of threads per block: each thread moves `TILE / BLOCK_ROWS` elements.
pub const BLOCK_ROWS: usize = 8;
/// Words between the starts of two rows of the tile.
pub const TILE_STRIDE: usize = TILE;

/// `dst` (`cols × rows`) = the transpose of `src` (`rows × cols`), both row-major.
///
/// # Safety
/// The buffers hold `rows · cols` floats; blocks of 32 × 8 threads, a grid of
/// `⌈cols / 32⌉ × ⌈rows / 32⌉` blocks (the kernel declares its `TILE · TILE_STRIDE · 4` bytes of
/// shared memory).
#[kernel(shared = (TILE * TILE_STRIDE * 4) as u32)]
pub unsafe fn transpose_tile(dst: *mut f32, src: *const f32, rows: u64, cols: u64) {
    let tile = shared::dynamic::<f32>();
    let (tx, ty) = (thread_x() as usize, thread_y() as usize);
    let (bx, by) = (block_x() as usize * TILE, block_y() as usize * TILE);
    let (rows, cols) = (rows as usize, cols as usize);
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        let (r, c) = (by + ty + j, bx + tx);
        if r < rows && c < cols {
            // SAFETY: `ty + j < TILE` and `tx < TILE ≤ TILE_STRIDE`: inside the `TILE ·
            // TILE_STRIDE` words the kernel declares, one writer each, before the barrier below; `r
            // < rows` and `c < cols`: inside `src` (this kernel's contract).
            unsafe { tile.write((ty + j) * TILE_STRIDE + tx, global::read(src.add(r * cols + c))) };
        }
    }
    sync_threads();
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        // Row `bx + ty + j` of the transpose is column `bx + ty + j` of `src`.
        let (r, c) = (bx + ty + j, by + tx);
        if r < cols && c < rows {
            // SAFETY: `r < cols` and `c < rows`: inside `dst` (this kernel's contract), one thread
            // each; the tile's word, inside it as for the write, was written before the barrier
            // above.
            unsafe { global::write(dst.add(r * rows + c), tile.read(tx * TILE_STRIDE + ty + j)) };
        }
    }
}
