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

/// How a [`TILE`]×[`TILE`] tile is laid out in shared memory. The tile is written along its
/// rows (from coalesced global reads) and read down its columns (for coalesced global writes);
/// the layout decides whether that column walk hits one bank 32 times or 32 banks once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileLayout {
    /// Row-major with a pitch of [`TILE`] elements: a column walk stays in one bank for 4-byte
    /// elements (32-way conflict), two banks for 8-byte ones (16-way per half-warp), and 16 or
    /// 8 word-distinct lanes per bank for 2- and 1-byte ones.
    Plain,
    /// Row-major with a pitch of [`padded_pitch`] elements: consecutive rows start in different
    /// banks, so a column walk touches every bank once.
    Padded,
    /// Pitch [`TILE`], element `(r, c)` stored at column `c ^ r`: the XOR permutes each row
    /// differently, so a column walk is spread over all banks with no padding.
    Swizzled,
}

impl TileLayout {
    /// Elements between the starts of consecutive tile rows.
    pub const fn pitch(self, elem_bytes: u32) -> u32 {
        match self {
            TileLayout::Padded => padded_pitch(elem_bytes),
            TileLayout::Plain | TileLayout::Swizzled => TILE,
        }
    }

    /// Offset, in elements, of tile element `(r, c)`, `r, c < TILE`.
    #[inline(always)]
    pub const fn offset(self, r: u32, c: u32, elem_bytes: u32) -> u32 {
        match self {
            TileLayout::Swizzled => r * TILE + (c ^ r),
            TileLayout::Plain | TileLayout::Padded => r * self.pitch(elem_bytes) + c,
        }
    }

    /// Bytes of shared memory one tile needs.
    pub const fn tile_bytes(self, elem_bytes: u32) -> u32 {
        TILE * self.pitch(elem_bytes) * elem_bytes
    }
}

/// The padded pitch, in elements, that makes a column walk conflict-free: an odd number of
/// 4-byte words per row. One extra element does that for 4-byte elements (33 words); 1- and
/// 2-byte elements need a whole extra word (36 and 34 elements: 9 and 17 words), since half or
/// a quarter of a word would leave rows sharing a word's bank. 8-byte elements take 33 (66
/// words, even): 8-byte accesses are served per half-warp, and 16 rows 66 words apart cover
/// the 32 banks exactly once.
pub const fn padded_pitch(elem_bytes: u32) -> u32 {
    match elem_bytes {
        1 => TILE + 4,
        2 => TILE + 2,
        _ => TILE + 1,
    }
}
