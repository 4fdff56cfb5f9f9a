//! The launch geometry of the `copy_bytes` and `copy_rows_aligned` kernels.

/// Bytes each vector load or store moves: one `ld.global.v4.u32` (SASS `LDG.E.128`).
pub const VECTOR_BYTES: u64 = 16;
/// Threads per block.
pub const THREADS: u32 = 256;
/// 16-byte vectors one block of `copy_bytes` copies per step of its grid-stride loop: one per
/// thread. With a grid that covers the range, every thread moves one vector and the block
/// scheduler keeps memory busy (on an H200, 100% of the driver's copy at 64 MiB to 1 GiB,
/// against 95–97% for four vectors per thread; `docs/decisions.md`, 2026-11-28).
pub const VECTORS_PER_BLOCK: u64 = THREADS as u64;
/// Independent 16-byte vectors each lane of `copy_rows_aligned` writes per step, all loads
/// issued before the first store, so that several requests per thread are in flight.
pub const ROW_UNROLL: u32 = 4;

/// Blocks to launch for `bytes` bytes: one block per [`VECTORS_PER_BLOCK`] vectors, capped at
/// `max_blocks` (the kernel's grid-stride loop covers the rest), and at least one block so the
/// sub-vector tail is copied too.
pub const fn blocks(bytes: u64, max_blocks: u32) -> u32 {
    let vectors = bytes / VECTOR_BYTES;
    let wanted = vectors.div_ceil(VECTORS_PER_BLOCK);
    if wanted == 0 {
        1
    } else if wanted > max_blocks as u64 {
        max_blocks
    } else {
        wanted as u32
    }
}
