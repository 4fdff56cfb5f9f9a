//! Tiles and grids of the transpose kernels.
//!
//! A transpose maps `src[b][r][c]` (a batch of `rows × cols` row-major matrices) to
//! `dst[b][c][r]`. Every kernel cuts the matrix into [`TILE`]×[`TILE`] tiles; a block of
//! [`TILE`]×[`BLOCK_ROWS`] threads moves one tile, each thread `TILE / BLOCK_ROWS` elements.

/// Side of a square tile, in elements: one warp spans one tile row.
pub const TILE: u32 = 32;
/// Thread rows per block; each thread handles `TILE / BLOCK_ROWS` elements of a tile column.
pub const BLOCK_ROWS: u32 = 8;
/// Largest `gridDim.y` and `gridDim.z` the hardware accepts.
pub const MAX_GRID_YZ: u32 = 65_535;
/// Largest `gridDim.x` the hardware accepts.
pub const MAX_GRID_X: u32 = i32::MAX as u32;

/// Number of tiles needed to cover `n` elements.
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE as u64)
}

/// Launch grid for a `[batch, rows, cols]` transpose: x over column tiles, y over row tiles,
/// z over the batch. Each is capped at the hardware limit; the kernels walk the rest with
/// grid-stride loops, so every shape the memory can hold is covered.
pub const fn grid(rows: u64, cols: u64, batch: u64) -> (u32, u32, u32) {
    (cap(tiles(cols), MAX_GRID_X), cap(tiles(rows), MAX_GRID_YZ), cap(batch, MAX_GRID_YZ))
}

const fn cap(n: u64, max: u32) -> u32 {
    if n > max as u64 { max } else { n as u32 }
}

/// Offset of element `(r, c)` of a matrix with `cols` columns, in the `b`-th matrix of a batch
/// of matrices of `rows × cols` elements. 64-bit: batches past 2^32 elements are valid.
pub const fn offset(b: u64, r: u64, c: u64, rows: u64, cols: u64) -> u64 {
    (b * rows + r) * cols + c
}
