//! Exercise 20, a transposing copy of a non-square tile
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `transpose_wide` transposes a `rows × cols` matrix a tile of 32 rows × 64 columns at a time,
//! with blocks of 32 × 8 threads: each thread moves 8 elements in and 8 out. The read half is
//! written: the block reads its tile's rows from `src` (coalesced) into shared memory. The
//! write half is yours: the tile becomes 64 rows × 32 columns of `dst`, to be written by rows
//! (coalesced), so it is read from shared memory by columns. Work out which thread writes
//! which element, for tiles cut off at the matrix's edges too, then check what your shared
//! reads cost and make them conflict-free (the tile's shape and layout are yours to change).
//!
//! Checked: every element of 1 × 1, 31 × 33, 33 × 65, 64 × 64, 100 × 300 and 257 × 31; no
//! race; every shared access at 1 wavefront per request; every global access coalesced.

use bankwise_device::shared;
use bankwise_device::thread::{block_x, block_y, sync_threads, thread_x, thread_y};
use bankwise_device::{global, kernel};

/// Rows of `src` per tile.
pub const TILE_ROWS: usize = 32;
/// Columns of `src` per tile: two warps' widths.
pub const TILE_COLS: usize = 64;
/// Threads per block along x (a warp).
pub const BLOCK_X: usize = 32;
/// Threads per block along y.
pub const BLOCK_Y: usize = 8;
/// Words between the starts of two rows of the tile.
pub const TILE_STRIDE: usize = TILE_COLS;

/// `dst` (`cols × rows`) = the transpose of `src` (`rows × cols`), both row-major.
///
/// # Safety
/// The buffers hold `rows · cols` elements; blocks of 32 × 8 threads, a grid of
/// `⌈cols / 64⌉ × ⌈rows / 32⌉` blocks (the kernel declares its `TILE_ROWS · TILE_STRIDE · 4`
/// bytes of shared memory).
#[kernel(shared = (TILE_ROWS * TILE_STRIDE * 4) as u32)]
pub unsafe fn transpose_wide(dst: *mut u32, src: *const u32, rows: u64, cols: u64) {
    let tile = shared::dynamic::<u32>();
    let (tx, ty) = (thread_x() as usize, thread_y() as usize);
    // The tile's first row and column in `src`.
    let (r0, c0) = (block_y() as usize * TILE_ROWS, block_x() as usize * TILE_COLS);
    let (rows, cols) = (rows as usize, cols as usize);
    // Word `i · TILE_STRIDE + j` of the tile holds `src[r0 + i][c0 + j]`.
    for i in (ty..TILE_ROWS).step_by(BLOCK_Y) {
        let (r, c) = (r0 + i, c0 + tx);
        // The row's two halves, one warp-wide access each, written out rather than looped: a
        // lane then meets each access the same number of times whatever its column, which is
        // how the emulator groups lanes into a request (a loop over the halves that skips the
        // columns past the edge would group a lane's second half with another's next row).
        if r < rows && c < cols {
            // SAFETY: `i < TILE_ROWS` and `tx < TILE_COLS ≤ TILE_STRIDE`: inside the tile the
            // kernel declares, one writer each, before the barrier below; `r < rows` and
            // `c < cols`: inside `src` (this kernel's contract).
            unsafe { tile.write(i * TILE_STRIDE + tx, global::read(src.add(r * cols + c))) };
        }
        if r < rows && c + BLOCK_X < cols {
            // SAFETY: as above, with `tx + BLOCK_X < TILE_COLS ≤ TILE_STRIDE` and
            // `c + BLOCK_X < cols`.
            unsafe { tile.write(i * TILE_STRIDE + tx + BLOCK_X, global::read(src.add(r * cols + c + BLOCK_X))) };
        }
    }
    sync_threads();
    todo!("write the tile to dst, transposed, with coalesced writes");
}
