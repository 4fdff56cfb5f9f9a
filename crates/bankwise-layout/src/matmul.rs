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

/// Grid of the register-tiled rungs, whose blocks own `bm × bn` tiles of `C`: x over column
/// tiles, y over row tiles.
pub const fn grid_of_tiles(m: u64, n: u64, bm: u32, bn: u32) -> (u32, u32, u32) {
    (cap(n.div_ceil(bn as u64), MAX_GRID_X), cap(m.div_ceil(bm as u64), MAX_GRID_YZ), 1)
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

/// The 1-D register-tiled rung (`matmul_blocktile_1d`): a block owns a [`BM`](blocktile_1d::BM)
/// × [`BN`](blocktile_1d::BN) tile of `C`; each of its [`THREADS`](blocktile_1d::THREADS)
/// threads computes [`TM`](blocktile_1d::TM) elements of one column of it, in registers; `k`
/// advances [`BK`](blocktile_1d::BK) at a time through a `BM × BK` tile of `A` and a `BK × BN`
/// tile of `B` in shared memory, one element of each per thread.
pub mod blocktile_1d {
    /// Rows of the block's tile of `C`.
    pub const BM: u32 = 64;
    /// Columns of the block's tile of `C`.
    pub const BN: u32 = 64;
    /// Depth of each step through `k`.
    pub const BK: u32 = 8;
    /// Elements of `C` per thread, down a column.
    pub const TM: u32 = 8;
    /// Threads per block: one per `TM` elements of the tile.
    pub const THREADS: u32 = BM * BN / TM;
    /// Elements of shared memory: the `A` tile, then the `B` tile.
    pub const SHARED_ELEMENTS: u32 = BM * BK + BK * BN;

    /// Thread `t`'s column of the `C` tile, and the first of its `TM` rows.
    pub const fn c_role(t: u32) -> (u32, u32) {
        (t / BN * TM, t % BN)
    }
    /// The `A` tile element `(r, c)` that thread `t` loads.
    pub const fn a_load(t: u32) -> (u32, u32) {
        (t / BK, t % BK)
    }
    /// The `B` tile element `(r, c)` that thread `t` loads.
    pub const fn b_load(t: u32) -> (u32, u32) {
        (t / BN, t % BN)
    }
    /// Shared-memory index of the `A` tile's element `(r, c)` (row-major, `BK` wide).
    pub const fn a_at(r: u32, c: u32) -> u32 {
        r * BK + c
    }
    /// Shared-memory index of the `B` tile's element `(r, c)` (row-major, `BN` wide).
    pub const fn b_at(r: u32, c: u32) -> u32 {
        BM * BK + r * BN + c
    }
}
