//! The launch geometry of the `copy_bytes` kernel.

/// Bytes each vector load or store moves: one `ld.global.v4.u32` (SASS `LDG.E.128`).
pub const VECTOR_BYTES: u64 = 16;
/// Threads per block.
pub const THREADS: u32 = 256;
/// Independent 16-byte loads each thread issues before its first store, so that several
/// memory requests per thread are in flight (latency hiding without a huge grid).
pub const UNROLL: u32 = 4;
/// 16-byte vectors one block copies per step of its grid-stride loop.
pub const VECTORS_PER_BLOCK: u64 = THREADS as u64 * UNROLL as u64;

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
