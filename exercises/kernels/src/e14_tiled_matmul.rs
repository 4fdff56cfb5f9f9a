//! Exercise 14, the tiled matrix multiply (guide: "The matrix multiply ladder").
//!
//! `matmul_tiled` computes `C = A · B` for `n × n` matrices with the strategy of the article
//! "2.2 CUDA-Memory (存储, storage)": each block stages a 16 × 16 tile of `A` and one of `B` in
//! shared memory, every thread computes from them, and the block moves on along `k`. The
//! emulator reports a race between a write into the tiles and a read of them by another thread.
//! Find what lets one thread's accesses overtake another's, and order them.
//!
//! Checked: every element of 1 × 1, 17 × 17 and 48 × 48 (integers, exact), and no race.

use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_x, block_y, sync_threads, thread_x, thread_y};
use bankwise_device::{global, kernel};

/// The tile's side, and the block's.
pub const TILE: usize = 16;

/// `c = a · b` (wrapping), all `n × n` row-major.
///
/// # Safety
/// The buffers hold `n · n` elements; blocks of 16 × 16 threads, a grid of `⌈n / 16⌉²`
/// blocks (the kernel declares its `2 · TILE² · 4` bytes of shared memory).
#[kernel(shared = (2 * TILE * TILE * 4) as u32)]
pub unsafe fn matmul_tiled(c: *mut u32, a: *const u32, b: *const u32, n: u64) {
    // Safety: the kernel declares both tiles, one after the other (each TILE² · 4 = 1024 bytes).
    let (a_tile, b_tile) = unsafe {
        (
            SharedArray::<u32, { TILE * TILE }>::new_unchecked(0),
            SharedArray::<u32, { TILE * TILE }>::new_unchecked(1024),
        )
    };
    let (tx, ty) = (thread_x() as usize, thread_y() as usize);
    let n = n as usize;
    let (row, col) = (block_y() as usize * TILE + ty, block_x() as usize * TILE + tx);
    let mut acc = 0u32;
    let mut k0 = 0;
    while k0 < n {
        let a_in = row < n && k0 + tx < n;
        let b_in = k0 + ty < n && col < n;
        // SAFETY: `ty · TILE + tx < TILE²`: this thread's slot of each tile, and `A` and `B` are
        // read only inside them (`a_in`, `b_in`; this kernel's contract). The barrier below orders
        // the writes before this step's reads (whether that is all they need is what this
        // exercise is about).
        unsafe {
            a_tile.write(ty * TILE + tx, if a_in { global::read(a.add(row * n + k0 + tx)) } else { 0 });
            b_tile.write(ty * TILE + tx, if b_in { global::read(b.add((k0 + ty) * n + col)) } else { 0 });
        }
        // The tiles are complete before anyone reads them.
        sync_threads();
        for k in 0..TILE {
            // SAFETY: `ty · TILE + k` and `k · TILE + tx` are below `TILE²`: inside the tiles,
            // written before the barrier above.
            acc = acc.wrapping_add(unsafe { a_tile.read(ty * TILE + k).wrapping_mul(b_tile.read(k * TILE + tx)) });
        }
        k0 += TILE;
    }
    if row < n && col < n {
        // SAFETY: `row < n` and `col < n`: inside `c` (this kernel's contract); one thread writes
        // each element.
        unsafe { global::write(c.add(row * n + col), acc) };
    }
}
