//! Tiles and grids of the matrix multiply ladder: `C = α·A·B + β·C` with `A` `m × k`, `B`
//! `k × n` and `C` `m × n`, each row-major with its own leading dimension (elements between
//! the starts of consecutive rows).
//!
//! The first rungs give each thread one element of `C` and each block of [`TILE`] × [`TILE`]
//! threads one [`TILE`] × [`TILE`] tile of it. Grids are capped at the hardware's limits and the
//! kernels walk the rest of the tiles with grid-stride loops, so every shape is covered.

use crate::transpose::{MAX_GRID_X, MAX_GRID_YZ};

/// Side of a block's tile of `C`, in elements; threads per block are `TILE × TILE`.
pub const TILE: u32 = 32;

/// Tiles of [`TILE`] needed to cover `n` elements.
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE as u64)
}

/// Grid of the rungs whose thread `x` runs along `C`'s columns (`coalesced`, `tiled`): x over
/// column tiles, y over row tiles.
pub const fn grid_columns_in_x(m: u64, n: u64) -> (u32, u32, u32) {
    (cap(tiles(n), MAX_GRID_X), cap(tiles(m), MAX_GRID_YZ), 1)
}

/// Grid of the naive rung, whose thread `x` runs down `C`'s rows: x over row tiles, y over
/// column tiles.
pub const fn grid_rows_in_x(m: u64, n: u64) -> (u32, u32, u32) {
    (cap(tiles(m), MAX_GRID_X), cap(tiles(n), MAX_GRID_YZ), 1)
}

const fn cap(n: u64, max: u32) -> u32 {
    if n > max as u64 { max } else { n as u32 }
}

/// Offset of element `(r, c)` of a row-major matrix with leading dimension `ld`.
pub const fn at(r: u64, c: u64, ld: u64) -> u64 {
    r * ld + c
}

/// Elements of the tiled rung's shared memory: one [`TILE`] × [`TILE`] tile of `A` and one of
/// `B`, row-major, unpadded.
pub const TILED_SHARED_ELEMENTS: u32 = 2 * TILE * TILE;

/// The tiled rung's shared-memory index of `A`'s tile element `(r, c)`.
pub const fn a_tile(r: u32, c: u32) -> u32 {
    r * TILE + c
}

/// The tiled rung's shared-memory index of `B`'s tile element `(r, c)`.
pub const fn b_tile(r: u32, c: u32) -> u32 {
    TILE * TILE + r * TILE + c
}
