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

/// Launch grid of the ladder's kernels for a `[batch, rows, cols]` transpose: x down each
/// column of tiles (over row tiles), y across the columns of tiles, z over the batch, so that
/// blocks launched one after another take vertically adjacent tiles. Each is capped at the
/// hardware limit; the kernels walk the rest with grid-stride loops, so every shape the memory
/// can hold is covered.
pub const fn grid(rows: u64, cols: u64, batch: u64) -> (u32, u32, u32) {
    let t = TILE as u64;
    (cap(rows.div_ceil(t), MAX_GRID_X), cap(cols.div_ceil(t), MAX_GRID_YZ), cap(batch, MAX_GRID_YZ))
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

/// The tuned transpose (`transpose_*`): one block of [`tuned::THREADS`] threads per tile, the
/// tiles taken down each column of tiles first ([`tuned::Tiles`]).
///
/// For 1-, 2- and 4-byte elements a block moves a square tile of [`tuned::side`] elements as
/// 16-byte vectors: it reads the tile along input rows and stores the vectors whole into
/// shared memory (`STS.128`); then each thread gathers the `16 / elem_bytes` elements of one
/// output vector down a tile column and writes them as one 16-byte store. That needs `rows`
/// and `cols` to be multiples of the vector's element count (every row starts 16-byte
/// aligned); other 2- and 4-byte shapes take [`tuned::unaligned`], 1-byte ones the swizzled
/// ladder kernel. 8-byte elements take the scalar tile of [`tuned::scalar`] at any shape.
pub mod tuned {
    /// Threads per block.
    pub const THREADS: u32 = 256;

    /// Elements per 16-byte vector.
    pub const fn vector(elem_bytes: u32) -> u32 {
        16 / elem_bytes
    }

    /// Tile side in elements of the vectorized kernels (1-, 2- and 4-byte elements): 256-byte
    /// row segments for 2- and 4-byte elements, 128 bytes for 1-byte ones (256 would need
    /// 64 KiB of shared memory). 64×64 f32 tiles measured fastest against 128×64, 128×32
    /// (rows × columns) and 512-thread blocks.
    pub const fn side(elem_bytes: u32) -> u32 {
        match elem_bytes {
            1 | 2 => 128,
            _ => 64,
        }
    }

    /// 16-byte vectors per tile row.
    pub const fn vectors_per_row(elem_bytes: u32) -> u32 {
        side(elem_bytes) / vector(elem_bytes)
    }

    /// 16-byte vectors each thread moves per tile.
    pub const fn vectors_per_thread(elem_bytes: u32) -> u32 {
        side(elem_bytes) * vectors_per_row(elem_bytes) / THREADS
    }

    /// Shared memory per block in bytes: the tile, unpadded.
    pub const fn tile_bytes(elem_bytes: u32) -> u32 {
        side(elem_bytes) * side(elem_bytes) * elem_bytes
    }

    /// Blocks per SM the aligned 4-byte kernel is held to from [`CAPPED_FROM`] elements on:
    /// its 32 registers and 16 KiB tile would let 8 in, and with 4 the transposes of 8192² and
    /// 16384² f32 measured 0.3–0.4 and 0.5–0.6 points of the copy faster (H100, 8192²:
    /// 97.0–97.2% against 96.7–96.9%, five runs each in three sweeps), 11584² as fast, and
    /// 1024²–6144² 0.6–2.7 points slower. The 1- and 2-byte kernels lost 1–6 points with it.
    /// The host enforces it by asking for more shared memory than the tile needs
    /// (`Launch::resident`). The H100's tuning table holds it (`bankwise::tuning::h100`);
    /// another GPU's may hold another cap.
    pub const CAPPED_RESIDENCY: u32 = 4;

    /// Elements from which [`CAPPED_RESIDENCY`] applies.
    pub const CAPPED_FROM: u64 = 1 << 26;

    /// Whether every row of a `rows × cols` matrix of `elem_bytes`-byte elements, and of its
    /// transpose, starts 16-byte aligned: then the aligned kernel applies, else the unaligned one.
    pub const fn aligned(rows: u64, cols: u64, elem_bytes: u32) -> bool {
        let v = vector(elem_bytes) as u64;
        rows.is_multiple_of(v) && cols.is_multiple_of(v)
    }

    /// Tiles of a `[batch, rows, cols]` transpose and the order the blocks take them: down
    /// each column of tiles, then the next column, matrix by matrix. Blocks run roughly in
    /// launch order, so the ~500 blocks in flight then cover a few whole columns of tiles: they
    /// write a few bands of whole output rows, one after another in memory, while their reads
    /// are 1 KiB runs across all input rows. Row-major order (the reverse) measured 1–3% slower
    /// for aligned shapes and 10–14% slower for 8191×8193 on an H100: there the tiles'
    /// misaligned edges split 32-byte sectors between vertically adjacent tiles, which this
    /// order runs side by side.
    ///
    /// The launch grid ([`Tiles::grid`]) spells the order out: x runs down a column of tiles,
    /// y across the columns, z over the batch, so a block finds its tile with no division.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Tiles {
        tall: u64,
        wide: u64,
        /// Tiles down one column of tiles.
        pub down: u64,
        /// Columns of tiles.
        pub across: u64,
        /// Matrices.
        pub batch: u64,
    }

    impl Tiles {
        /// The tiles of `side × side` elements covering a `[batch, rows, cols]` input.
        pub const fn new(side: u32, rows: u64, cols: u64, batch: u64) -> Self {
            Self::rect(side, side, rows, cols, batch)
        }

        /// The tiles of `tall` rows × `wide` columns covering a `[batch, rows, cols]` input.
        pub const fn rect(tall: u32, wide: u32, rows: u64, cols: u64, batch: u64) -> Self {
            let (tall, wide) = (tall as u64, wide as u64);
            Tiles { tall, wide, down: rows.div_ceil(tall), across: cols.div_ceil(wide), batch }
        }

        /// Whether a grid of one block per tile fits the hardware: at most 2^31 − 1 tiles down
        /// a column and 65 535 columns of tiles. Batches past 65 535 matrices are split into
        /// launches of at most that many ([`Tiles::grid`]'s z).
        pub const fn fits(&self) -> bool {
            use super::{MAX_GRID_X, MAX_GRID_YZ};
            self.down <= MAX_GRID_X as u64 && self.across <= MAX_GRID_YZ as u64
        }

        /// The launch grid: one block per tile, `(down, across, batch)`, each capped at the
        /// hardware's limit. The tuned kernels take one tile per block: the host launches them
        /// only where the tiles [`fit`](Tiles::fits), once per `z` matrices.
        pub const fn grid(&self) -> (u32, u32, u32) {
            use super::{MAX_GRID_X, MAX_GRID_YZ, cap};
            // z a multiple of 16, so that every launch's first matrix starts 16-byte aligned
            // wherever the first one does (the unaligned kernel reads aligned vectors).
            (cap(self.down, MAX_GRID_X), cap(self.across, MAX_GRID_YZ), cap(self.batch, MAX_GRID_YZ & !15))
        }

        /// `(matrix, first row, first column)` of the tile `down` tiles down column `across`
        /// of matrix `b`.
        #[inline(always)]
        pub const fn origin(&self, b: u64, down: u64, across: u64) -> (u64, u64, u64) {
            (b, down * self.tall, across * self.wide)
        }
    }

    /// The tuned kernel for 8-byte elements (`transpose_u64`): scalar accesses through a
    /// padded tile of [`ROWS`](scalar::ROWS) × [`COLS`](scalar::COLS) elements, at any shape.
    /// A warp's 32 8-byte accesses already cover 256 contiguous bytes, so 16-byte vectors gain
    /// nothing (measured 0.5% slower at 8192²), and scalar accesses need no alignment, so odd
    /// shapes need no other path. Small matrices whose rows start on a sector take
    /// [`small`]'s kernel.
    pub mod scalar {
        use super::THREADS;

        /// Input rows per tile: output rows of 64 elements (512 bytes). Measured against 32
        /// (2% slower on 8191×8193) and 128 (as fast, twice the registers).
        pub const ROWS: u32 = 64;
        /// Input columns per tile: one warp reads one tile row.
        pub const COLS: u32 = 32;
        /// Pitch of the shared tile in elements: one more than [`COLS`], so the column walk
        /// (lanes `pitch` elements apart, served per half-warp for 8-byte elements) is
        /// conflict-free.
        pub const PITCH: u32 = COLS + 1;
        /// Elements each thread moves per tile.
        pub const PER_THREAD: u32 = ROWS * COLS / THREADS;
        /// Shared memory per block in bytes.
        pub const fn tile_bytes(elem_bytes: u32) -> u32 {
            ROWS * PITCH * elem_bytes
        }

        /// The `(row, column)` of tile element `idx` (`k * THREADS + thread`) on the load side,
        /// where a warp reads one tile row.
        #[inline(always)]
        pub const fn load_role(idx: u32) -> (u32, u32) {
            (idx / COLS, idx % COLS)
        }

        /// The `(output row j, element u)` of slot `idx` on the store side: a warp writes 32
        /// consecutive elements of one output row, reading them down tile column `j`.
        #[inline(always)]
        pub const fn store_role(idx: u32) -> (u32, u32) {
            (idx / ROWS, idx % ROWS)
        }
    }

    /// The tuned kernel for small 8-byte matrices (`transpose_small_u64`): the ladder's padded
    /// 32 × 32 tile, one per block, in blocks of 32 × [`BLOCK_ROWS`](small::BLOCK_ROWS) threads.
    pub mod small {
        use super::super::TILE;

        /// Rows of the tile each thread moves.
        pub const PER_THREAD: u32 = 8;
        /// Threads per block in y (32 in x): 128 threads, 16 blocks per SM at 32 registers.
        pub const BLOCK_ROWS: u32 = TILE / PER_THREAD;
        /// Up to this many elements (32 MiB of 8-byte ones) the small kernel applies. Measured
        /// (H100) at 1024² and 2048² f64: 2–3 points of the copy ahead of `transpose_u64`;
        /// from 4096² the two are within 0.2 point, and the small kernel's 32 × 32 tiles lose
        /// 12–14 points on shapes whose rows start off a sector.
        pub const ELEMENTS: u64 = 1 << 22;
        /// Up to this many elements (8 MiB of 8-byte ones) the small kernel loads and stores
        /// with the cache-streaming hint (`transpose_small_streaming_u64`). Measured (H100,
        /// f64, µs, each run after a copy / after a run of its own): 1024² 8.93–8.99 /
        /// 9.54–9.57 against 8.93–8.96 / 9.73–9.79 without the hint (cuBLAS 9.25–9.31 /
        /// 9.70–9.78); at 512² and 768² the same; from 1024 × 1536 up 2–4% slower after a copy.
        pub const STREAMING_UP_TO: u64 = 1 << 20;

        /// Whether a `[batch, rows, cols]` transpose of 8-byte elements takes the small
        /// kernel: at most [`ELEMENTS`], and every row of input and output starting on a
        /// 32-byte sector (both dimensions multiples of 4), where its tiles share no sectors.
        pub const fn applies(rows: u64, cols: u64, batch: u64) -> bool {
            rows.is_multiple_of(4)
                && cols.is_multiple_of(4)
                && match batch.checked_mul(rows) {
                    Some(n) => match n.checked_mul(cols) {
                        Some(n) => n <= ELEMENTS,
                        None => false,
                    },
                    None => false,
                }
        }
    }

    /// The unaligned kernels (`transpose_unaligned_u16`, `_u32` and their `_large` forms), for
    /// rows that start anywhere. A tile is [`tall`](unaligned::tall) input rows ×
    /// [`wide`](unaligned::wide) input columns, one per block of [`THREADS`]. The functions take
    /// 1-byte elements too (the bank model checks that layout), but no 1-byte kernel is built:
    /// its eight rounds of held vectors went to local memory.
    ///
    /// Load: a tile row's columns start `m` elements past a 16-byte boundary, so they span
    /// `wide / vector` aligned vectors and one more (where `m > 0`). Each lane of the row loads one
    /// of them, the row's last lane the extra one too; a lane takes its neighbour's vector by a
    /// shuffle and keeps elements `m .. m + vector` of the pair (word selects and a funnel shift),
    /// which are exactly its `vector` columns of the tile: one `STS.128` into a tile swizzled as
    /// the aligned kernel's, with no element-by-element staging.
    ///
    /// Store: an output row's piece of `tall` elements starts `m'` elements past a boundary, so it
    /// is `tall / vector − 1` whole aligned chunks and, where `m' > 0`, a partial chunk at each end
    /// that it shares with the tiles above and below. The whole chunks are gathered from the tile
    /// and stored as `STG.128` ([`store_role`](unaligned::store_role)); the partial ones element by
    /// element, in rounds of their own ([`edge_rounds`](unaligned::edge_rounds)) where every lane
    /// stores one element, so no lane loops alone while its warp waits.
    pub mod unaligned {
        use super::{THREADS, vector};

        /// Tile rows: the length of each output row's piece. Tall tiles keep the partial
        /// chunks (two per output row piece) a small share of the stores: 128 × 64 `f32`
        /// tiles measured 84.9% of the copy at 8191 × 8193 on an H200, 64 × 64 ones 72.6% and
        /// 64 × 128 ones 69.2% (`benches/explore/transpose_odd.cu`).
        pub const fn tall(elem_bytes: u32) -> u32 {
            if elem_bytes == 1 { 256 } else { 128 }
        }

        /// Tile columns: 16 aligned vectors of each input row (256-byte row pieces for 2- and
        /// 4-byte elements), 8 for 1-byte ones. A misaligned row piece reads one vector more
        /// than it holds: 128-byte `bf16` pieces (128 × 64 tiles) read nine vectors over five
        /// sectors, and ran 2–12 points of the copy under 128 × 128 tiles on eleven of the
        /// fifteen `bf16` permute suite cases that take them (H100, 2026-12-07; 8191 × 8193
        /// 70.1% → 74.0–74.8%); the three others lost 1–3 points (`docs/benchmarks.md`).
        pub const fn wide(elem_bytes: u32) -> u32 {
            if elem_bytes <= 2 { 128 } else { 64 }
        }

        /// Aligned vectors per tile row (lanes per row in the load phase).
        pub const fn vectors_per_row(elem_bytes: u32) -> u32 {
            wide(elem_bytes) / vector(elem_bytes)
        }

        /// Tile rows each load round covers.
        pub const fn rows_per_round(elem_bytes: u32) -> u32 {
            THREADS / vectors_per_row(elem_bytes)
        }

        /// Load rounds per thread, and store rounds of whole chunks (the same count).
        pub const fn rounds(elem_bytes: u32) -> u32 {
            tall(elem_bytes) / rows_per_round(elem_bytes)
        }

        /// Chunk slots per output row piece: `tall / vector`.
        pub const fn chunks_per_row(elem_bytes: u32) -> u32 {
            tall(elem_bytes) / vector(elem_bytes)
        }

        /// Rounds of the partial chunks: one element per thread, `vector` per output row.
        pub const fn edge_rounds(elem_bytes: u32) -> u32 {
            (wide(elem_bytes) * vector(elem_bytes)).div_ceil(THREADS)
        }

        /// Shared memory per block in bytes: the tile, no padding.
        pub const fn tile_bytes(elem_bytes: u32) -> u32 {
            tall(elem_bytes) * wide(elem_bytes) * elem_bytes
        }

        /// Element offset of tile element `(r, c)`: rows of `wide` elements, vectors swizzled
        /// as [`super::swizzle`] does (XOR with the row's vector group, mod 8), so that the
        /// rows' `STS.128` and the chunks' gathers down a column are conflict-free.
        #[inline(always)]
        pub const fn offset(r: u32, c: u32, elem_bytes: u32) -> u32 {
            let v = vector(elem_bytes);
            r * wide(elem_bytes) + super::swizzle(r, c / v, elem_bytes) * v + c % v
        }

        /// The tile's vector (in 16-byte units) that lane `tv` of tile row `r` stages its
        /// realigned vector into: [`offset`]'s vector, so the kernel's `STS.128` and the model
        /// agree.
        #[inline(always)]
        pub const fn stage_slot(r: u32, tv: u32, elem_bytes: u32) -> u32 {
            r * vectors_per_row(elem_bytes) + super::swizzle(r, tv, elem_bytes)
        }

        /// The tile row of element `i` of chunk `q` of an output row piece that starts `m`
        /// elements past a 16-byte boundary: rows `q · V − m ..`, taken modulo `tall`, so that
        /// chunk 0 of a misaligned piece reads the end chunks' rows, in a vector group of
        /// their own.
        #[inline(always)]
        pub const fn gather_row(q: u32, i: u32, m: u32, elem_bytes: u32) -> u32 {
            let tall = tall(elem_bytes);
            (q * vector(elem_bytes) + i + tall - m) & (tall - 1)
        }

        /// The store role of thread-slot `idx` (`k · THREADS + thread`): output row `j` of the
        /// tile (an input column) and chunk slot `q` of its piece. A warp takes 8 consecutive
        /// chunks of 4 output rows, whose elements lie in 4 distinct 4-byte words of each tile
        /// vector (rows `vector / 4` apart), so the gather meets 32 distinct banks whatever each
        /// row's misalignment.
        #[inline(always)]
        pub const fn store_role(idx: u32, elem_bytes: u32) -> (u32, u32) {
            let v = vector(elem_bytes);
            let groups = chunks_per_row(elem_bytes) / 8;
            let (q_low, rest) = (idx & 7, idx >> 3);
            let (j_low, rest) = (rest & 3, rest >> 2);
            let (jj, q) = (rest / groups, (rest % groups) * 8 + q_low);
            let sub = v / 4;
            ((jj / sub) * v + j_low * sub + jj % sub, q)
        }
    }

    /// The swizzled position of vector `v` in tile row `r`: XOR with the row's vector group
    /// (mod 8). Whole vectors move, so the row write stays one `STS.128` per lane and every
    /// quarter-warp covers all 32 banks; the column gather (8 lanes on 8 row groups × 4
    /// output rows) lands on 32 distinct banks.
    #[inline(always)]
    pub const fn swizzle(r: u32, v: u32, elem_bytes: u32) -> u32 {
        v ^ ((r / vector(elem_bytes)) & 7)
    }

    /// Element offset of tile element `(r, c)` in the swizzled tile.
    #[inline(always)]
    pub const fn offset(r: u32, c: u32, elem_bytes: u32) -> u32 {
        let v = vector(elem_bytes);
        r * side(elem_bytes) + swizzle(r, c / v, elem_bytes) * v + c % v
    }

    /// The output-phase role of thread-slot `idx` (`k * THREADS + thread`): which output row
    /// `j` (input column) and which output vector `u` (input rows `u·V .. u·V+V`) it writes.
    /// A warp covers 4 output rows × 8 consecutive vectors: 128-byte global stores, and a
    /// conflict-free gather.
    #[inline(always)]
    pub const fn store_role(idx: u32, elem_bytes: u32) -> (u32, u32) {
        let groups = vectors_per_row(elem_bytes) / 8;
        let (u_low, q) = (idx & 7, idx >> 3);
        let (j_low, q2) = (q & 3, q >> 2);
        ((q2 / groups) * 4 + j_low, (q2 % groups) * 8 + u_low)
    }
}
