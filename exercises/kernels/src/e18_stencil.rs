//! Exercise 18, a 2-D stencil with a shared halo
//! (guide: "After reductions: scans, stencils, convolutions, histograms").
//!
//! `laplacian` computes the 5-point stencil `out[r][c] = 4·x[r][c] − x[r−1][c] − x[r+1][c] −
//! x[r][c−1] − x[r][c+1]` over a `rows × cols` matrix, with `x` taken as 0 outside it. Each
//! block of 32 × 8 threads stages its 8 rows of 32 elements in a shared tile and computes from
//! the tile, so that global memory gives it each element once. As shipped, its answers are
//! wrong near the edges of every block (not only the matrix's): find what the stencil reads
//! there that nobody wrote, and have the block fetch it, with coalesced reads.
//!
//! Checked: every element of 1 × 1, 31 × 33, 33 × 65, 64 × 64 and 257 × 301 (partial blocks at
//! the right and bottom); no race; every global store coalesced; and the global sectors
//! loaded per sector of input: at most 2.5 (a halo column costs a sector per row).

use bankwise_device::shared;
use bankwise_device::thread::{block_x, block_y, sync_threads, thread_x, thread_y};
use bankwise_device::{global, kernel};

/// Threads per block along x: a warp, one row of the block's elements.
pub const BLOCK_X: usize = 32;
/// Threads per block along y: rows of the block's elements.
pub const BLOCK_Y: usize = 8;
/// Words between the starts of two rows of the tile: the block's row and a word on each side.
pub const TILE_STRIDE: usize = BLOCK_X + 2;
/// Rows of the tile: the block's rows and one above and below.
pub const TILE_ROWS: usize = BLOCK_Y + 2;

/// `x[r][c]`, or 0 where `(r, c)` is outside the `rows × cols` matrix.
///
/// # Safety
/// `x` holds `rows · cols` elements.
#[inline(always)]
#[track_caller]
unsafe fn input(x: *const i32, rows: usize, cols: usize, r: isize, c: isize) -> i32 {
    let inside = r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols;
    // SAFETY: `(r, c)` inside the matrix, which `x` holds (this function's contract).
    if inside { unsafe { global::read(x.add(r as usize * cols + c as usize)) } } else { 0 }
}

/// `out` = the 5-point Laplacian of `x`, both `rows × cols` row-major, wrapping.
///
/// # Safety
/// The buffers hold `rows · cols` elements; blocks of 32 × 8 threads, a grid of
/// `⌈cols / 32⌉ × ⌈rows / 8⌉` blocks (the kernel declares its `TILE_ROWS · TILE_STRIDE · 4` bytes
/// of shared memory).
#[kernel(shared = (TILE_ROWS * TILE_STRIDE * 4) as u32)]
pub unsafe fn laplacian(out: *mut i32, x: *const i32, rows: u64, cols: u64) {
    let tile = shared::dynamic::<i32>();
    let (tx, ty) = (thread_x() as usize, thread_y() as usize);
    let (rows, cols) = (rows as usize, cols as usize);
    let (r, c) = (block_y() as usize * BLOCK_Y + ty, block_x() as usize * BLOCK_X + tx);
    let (ri, ci) = (r as isize, c as isize);
    // The tile's word for this thread's element: row `ty + 1`, column `tx + 1`.
    let mid = (ty + 1) * TILE_STRIDE + tx + 1;
    // SAFETY: `mid < TILE_ROWS · TILE_STRIDE`: inside the tile the kernel declares, this thread's
    // word alone, written before the barrier below; `input` reads `x` inside the matrix (this
    // kernel's contract). Threads past the matrix write 0: their words are other threads' halo.
    unsafe { tile.write(mid, input(x, rows, cols, ri, ci)) };
    // Every word of the tile that a thread wrote is written before any thread reads it.
    sync_threads();
    if r < rows && c < cols {
        let mut v = 0i32;
        for (at, weight) in
            [(mid, 4i32), (mid - TILE_STRIDE, -1), (mid + TILE_STRIDE, -1), (mid - 1, -1), (mid + 1, -1)]
        {
            // SAFETY: `mid` or one of its four neighbours: inside the tile, which the barrier above
            // orders after every write of it.
            v = v.wrapping_add(weight.wrapping_mul(unsafe { tile.read(at) }));
        }
        // SAFETY: `r < rows` and `c < cols`: inside `out` (this kernel's contract), this thread's
        // element alone.
        unsafe { global::write(out.add(r * cols + c), v) };
    }
}
