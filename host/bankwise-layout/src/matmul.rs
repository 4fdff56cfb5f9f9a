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

/// Elements per vector of the vectorized rungs: one 16-byte access of `f32`, two of `f64`.
pub const VEC: u32 = 4;

/// The tiles of a register-tiled rung (`matmul_blocktile_2d` and the vectorized rungs): a
/// block of [`threads`](Self::threads) threads owns a `bm × bn` tile of `C`, each thread a
/// `tm × tn` sub-tile of it in registers; `k` advances `bk` at a time through a `bm × bk` tile
/// of `A` and a `bk × bn` tile of `B` in shared memory. [`blocktile_2d`] gives the sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockTiles {
    /// Rows of the block's tile of `C`.
    pub bm: u32,
    /// Columns of the block's tile of `C`.
    pub bn: u32,
    /// Depth of each step through `k`.
    pub bk: u32,
    /// Rows of a thread's sub-tile.
    pub tm: u32,
    /// Columns of a thread's sub-tile.
    pub tn: u32,
}

/// The tiles of the register-tiled rungs for elements of `elem_bytes`: 128 × 128 tiles and 8 × 8
/// sub-tiles for `f32` (64 accumulators, 126–168 registers on sm_90); 128 × 64 and 8 × 4 for
/// `f64`, whose 8 × 8 needed all 255 registers and spilled.
pub const fn blocktile_2d(elem_bytes: u32) -> BlockTiles {
    if elem_bytes == 8 {
        BlockTiles { bm: 128, bn: 64, bk: 8, tm: 8, tn: 4 }
    } else {
        BlockTiles { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 }
    }
}

/// How the vectorized rungs lay out the *transposed* `A` tile in shared memory: element
/// `(m, k)` of `A`'s `bm × bk` tile sits in row `k`, so that a thread's [`VEC`] consecutive
/// rows of `A` are one vector there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ATile {
    /// `A` not transposed: row-major, `bk` wide (`matmul_blocktile_2d`).
    RowMajor,
    /// Transposed, row `k` holding `bm` elements: the scalar stores of a loaded vector conflict.
    Plain,
    /// Transposed, each row padded by [`A_PAD`] elements so rows start in different banks.
    Padded,
    /// Transposed, column `m` of row `k` stored at `m ^ a_swizzle(k)` ([`a_swizzle`]): no
    /// bytes wasted.
    Swizzled,
}

/// Elements added to each row of the [`ATile::Padded`] tile: one vector, which keeps rows
/// 16-byte aligned.
pub const A_PAD: u32 = 4;

/// The XOR applied to the columns of row `k` of the [`ATile::Swizzled`] tile: 16 for the rows
/// of odd vectors of `k`, so that the two lanes that store the same `m` for `k` and `k + 4`
/// use different banks; a multiple of [`VEC`], so vectors stay whole.
pub const fn a_swizzle(k: u32) -> u32 {
    (k / VEC % 2) * 16
}

impl BlockTiles {
    /// Threads per block: one per sub-tile.
    pub const fn threads(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }
    /// Thread `t`'s sub-tile of the block's `C` tile: its first row and first column.
    pub const fn c_role(self, t: u32) -> (u32, u32) {
        (t / (self.bn / self.tn) * self.tm, t % (self.bn / self.tn) * self.tn)
    }
    /// Elements of each tile a thread loads per step, one at a time (`matmul_blocktile_2d`).
    pub const fn loads(self) -> (u32, u32) {
        (self.bm * self.bk / self.threads(), self.bk * self.bn / self.threads())
    }
    /// The `A` tile element `(m, k)` that thread `t` loads in its `i`-th scalar load.
    pub const fn a_load(self, t: u32, i: u32) -> (u32, u32) {
        let e = i * self.threads() + t;
        (e / self.bk, e % self.bk)
    }
    /// The `B` tile element `(k, n)` that thread `t` loads in its `i`-th scalar load.
    pub const fn b_load(self, t: u32, i: u32) -> (u32, u32) {
        let e = i * self.threads() + t;
        (e / self.bn, e % self.bn)
    }
    /// Vectors of each tile a thread loads per step, at most (the vectorized rungs); thread `t`
    /// loads its `i`-th where [`a_vector`](Self::a_vector) / [`b_vector`](Self::b_vector) say so.
    pub const fn vector_loads(self) -> (u32, u32) {
        let t = self.threads();
        ((self.bm * self.bk / VEC).div_ceil(t), (self.bk * self.bn / VEC).div_ceil(t))
    }
    /// The `A` tile vector `(m, k .. k + VEC)` that thread `t` loads in its `i`-th vector load,
    /// if it loads one.
    pub const fn a_vector(self, t: u32, i: u32) -> Option<(u32, u32)> {
        let e = i * self.threads() + t;
        if e < self.bm * self.bk / VEC { Some((e / (self.bk / VEC), e % (self.bk / VEC) * VEC)) } else { None }
    }
    /// The `B` tile vector `(k, n .. n + VEC)` that thread `t` loads in its `i`-th vector load,
    /// if it loads one.
    pub const fn b_vector(self, t: u32, i: u32) -> Option<(u32, u32)> {
        let e = i * self.threads() + t;
        if e < self.bk * self.bn / VEC { Some((e / (self.bn / VEC), e % (self.bn / VEC) * VEC)) } else { None }
    }
    /// Elements between the rows of the `A` tile: `bk` row-major, `bm` transposed (plus
    /// [`A_PAD`] padded).
    pub const fn a_pitch(self, layout: ATile) -> u32 {
        match layout {
            ATile::RowMajor => self.bk,
            ATile::Padded => self.bm + A_PAD,
            ATile::Plain | ATile::Swizzled => self.bm,
        }
    }
    /// Elements of the `A` tile in shared memory.
    pub const fn a_elements(self, layout: ATile) -> u32 {
        match layout {
            ATile::RowMajor => self.bm * self.bk,
            _ => self.a_pitch(layout) * self.bk,
        }
    }
    /// Elements of shared memory: the `A` tile, then the `B` tile.
    pub const fn shared_elements(self, layout: ATile) -> u32 {
        self.a_elements(layout) + self.bk * self.bn
    }
    /// Shared-memory index of the `A` tile's element `(m, k)`.
    pub const fn a_at(self, layout: ATile, m: u32, k: u32) -> u32 {
        match layout {
            ATile::RowMajor => m * self.bk + k,
            ATile::Plain | ATile::Padded => k * self.a_pitch(layout) + m,
            ATile::Swizzled => k * self.bm + (m ^ a_swizzle(k)),
        }
    }
    /// Shared-memory index of the `B` tile's element `(k, n)` (row-major, after the `A` tile).
    pub const fn b_at(self, layout: ATile, k: u32, n: u32) -> u32 {
        self.a_elements(layout) + k * self.bn + n
    }
}

/// The tiles of the warp-tiled rung (`matmul_warptile`): the block's tiles, loads and shared
/// layout are [`tiles`](Self::tiles)' (with the `A` tile [`ATile::Padded`]); each warp owns a
/// `wm × wn` part of the block's tile, and each lane `wmiter × wniter` sub-tiles of `tm × tn`
/// spread over it, so that the lanes of a warp read consecutive vectors of both tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WarpTiles {
    /// The block's tiles (its `tm × tn`: a thread's results in all).
    pub tiles: BlockTiles,
    /// Rows of a warp's part of the block's tile.
    pub wm: u32,
    /// Columns of a warp's part.
    pub wn: u32,
    /// Sub-tiles per lane down a warp's part.
    pub wmiter: u32,
    /// Sub-tiles per lane across it.
    pub wniter: u32,
    /// Rows of a sub-tile: one vector.
    pub tm: u32,
    /// Columns of a sub-tile: one vector.
    pub tn: u32,
    /// How the warp's lanes are laid over its part.
    pub lanes: Lanes,
}

/// How a warp's 32 lanes are laid over its part of the block's tile, `lanes_n` across
/// ([`WarpTiles::lanes_n`]) and the rest down. A warp reads its fragments with `LDS.128`,
/// which shared memory serves a quarter-warp (8 lanes) at a time, and merges the two
/// quarters of a half-warp into one wavefront only if, over the whole warp, every lane reads
/// what lane `l ^ 1` reads, or every lane what lane `l ^ 2` reads (the rule of the article
/// "Cuda 中的bank conflict 和 向量化访存", which the bank model follows). A read of the `A`
/// tile depends on the lane's row alone, one of the `B` tile on its column alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// Lane `l` at row `l / lanes_n`, column `l % lanes_n`: lanes `l` and `l ^ 1` share a row,
    /// so `A`'s reads merge (2 wavefronts), but no two of the pairs share a column, so `B`'s
    /// take 4.
    RowMajor,
    /// Bit 0 of the lane picks its column's lowest bit and bit 1 its row's, the higher bits
    /// the rest of both: lanes `l` and `l ^ 1` share a row and lanes `l` and `l ^ 2` a
    /// column, so both tiles' reads merge (2 wavefronts each: a third fewer in all for
    /// 8 × 8 lanes' tiles, two fifths for 8 × 16). The same addresses in each read, and the
    /// same results, only held by other lanes.
    Interleaved,
}

/// The row and column of lane `l` among `across` lanes across a warp's part, interleaved
/// ([`Lanes::Interleaved`]).
const fn interleaved(l: u32, across: u32) -> (u32, u32) {
    let half = across / 2;
    (((l >> 1) & 1) + 2 * ((l >> 2) / half), (l & 1) + 2 * ((l >> 2) % half))
}

/// The warp-tiled rung's tiles for elements of `elem_bytes`: [`blocktile_2d`]'s block tiles;
/// warps of 64 × 32 (`f32`) or 64 × 16 (`f64`), lanes 8 down × 4 across ([`Lanes::RowMajor`]),
/// sub-tiles 4 × 4.
pub const fn warptile(elem_bytes: u32) -> WarpTiles {
    let tiles = blocktile_2d(elem_bytes);
    if elem_bytes == 8 {
        WarpTiles { tiles, wm: 64, wn: 16, wmiter: 2, wniter: 1, tm: VEC, tn: VEC, lanes: Lanes::RowMajor }
    } else {
        WarpTiles { tiles, wm: 64, wn: 32, wmiter: 2, wniter: 2, tm: VEC, tn: VEC, lanes: Lanes::RowMajor }
    }
}

/// The layout of the warp-tiled rung's transposed `A` tile: padded (in the vectorized rungs on
/// the H100, padding and the swizzle measure the same within noise, 20.65 and 20.49 TFLOP/s at
/// 4096³ in the latest run).
pub const WARPTILE_A: ATile = ATile::Padded;

impl WarpTiles {
    /// Lanes across a warp's sub-tile row (the rest run down it).
    pub const fn lanes_n(self) -> u32 {
        self.wn / self.wniter / self.tn
    }
    /// These tiles with their lanes laid out as `lanes`. Interleaving needs an even number
    /// of lanes across and down (every tile here has 4 across, 8 down).
    pub const fn with_lanes(self, lanes: Lanes) -> WarpTiles {
        let across = self.lanes_n();
        let even = across >= 2 && across <= 16 && 32 % across == 0;
        assert!(matches!(lanes, Lanes::RowMajor) || even, "interleaving needs an even number of lanes each way");
        WarpTiles { lanes, ..self }
    }
    /// The first row and column of `C` (in the block's tile) of thread `t`'s sub-tile `(i, j)`.
    pub const fn c_origin(self, t: u32, i: u32, j: u32) -> (u32, u32) {
        let (w, l) = (t / 32, t % 32);
        let warps_n = self.tiles.bn / self.wn;
        let (wm, wn) = (w / warps_n, w % warps_n);
        let (lm, ln) = match self.lanes {
            Lanes::RowMajor => (l / self.lanes_n(), l % self.lanes_n()),
            Lanes::Interleaved => interleaved(l, self.lanes_n()),
        };
        (
            wm * self.wm + i * (self.wm / self.wmiter) + lm * self.tm,
            wn * self.wn + j * (self.wn / self.wniter) + ln * self.tn,
        )
    }
}

/// BLAS's `op`: whether the tuned kernel reads a matrix as stored or transposed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Op {
    /// As stored: `A` is `m × k` in memory, `B` `k × n`.
    #[default]
    N,
    /// Transposed: `A` is stored `k × m` (`op(A) = Aᵀ`), `B` `n × k`.
    T,
}

impl Op {
    /// Whether a stored row runs along `k`, as `A`'s do with [`Op::N`] and `B`'s with
    /// [`Op::T`]; `a` says which operand.
    pub const fn rows_along_k(self, a: bool) -> bool {
        matches!((self, a), (Op::N, true) | (Op::T, false))
    }
}

/// The tiles of the tuned and multistage rungs (`matmul_tuned`, `matmul_multistage`): warp
/// tiles as [`warptile`]'s, with both operand tiles stored `k`-major (row `k` of the `A` tile
/// holds its `bm` elements of `m`, row `k` of the `B` tile its `bn` of `n`), each row padded by
/// 16 bytes, and [`stages`](Self::stages) copies of the pair: the block computes from one
/// while the tiles of the next steps are on their way into the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TunedTiles {
    /// The warp and block tiles.
    pub warps: WarpTiles,
    /// Bytes per element.
    pub elem_bytes: u32,
    /// Blocks per multiprocessor the entries are compiled for (their launch bounds).
    pub min_blocks: u32,
    /// Copies of the pair of tiles in shared memory: 2 for the tuned rung (one computed
    /// from, one filled from registers); [`MULTISTAGE_STAGES`] for the multistage rung.
    pub stages: u32,
}

/// Stages of the multistage rung: the block computes from one while the copies of the next
/// `MULTISTAGE_STAGES − 1` steps are in flight.
pub const MULTISTAGE_STAGES: u32 = 4;

/// Depth of the multistage rung's steps through `k` for elements of `elem_bytes`: 16 for `f64`
/// (twice the tuned rung's: half the barriers, waits and loop overhead per multiply-add, with
/// no registers holding tiles in flight), 8 for `f32`. Measured on the H100 at 4096³ (TFLOP/s):
/// `f64` 17.19 at 8, 18.28 at 16, 16.79 at 32; `f32` (wide tiles) 43.07 at 8, 39.40 at 16.
pub const fn multistage_bk(elem_bytes: u32) -> u32 {
    if elem_bytes == 8 { 16 } else { 8 }
}

/// The multistage rung's tiles (`matmul_multistage`): [`tuned`]'s warp and block tiles, and
/// for wide `f64` tiles the square `f32` ones' (128 × 128, each lane 2 × 2 sub-tiles of 4 × 4;
/// 8 deep: 20.43 TFLOP/s at 4096³ on the H100, 16 deep 20.51 with a 16-byte spill in NT),
/// [`multistage_bk`] deep otherwise, in [`MULTISTAGE_STAGES`] stages, one block per SM at every size: the
/// square `f32` tiles' element copies need more than the 128 registers of two blocks per SM
/// (ptxas spilled up to 40 bytes at 128).
pub const fn multistage(elem_bytes: u32, wide: bool) -> TunedTiles {
    let t = if wide && elem_bytes == 8 {
        TunedTiles { warps: warptile(4), elem_bytes, min_blocks: 1, stages: 2 }
    } else {
        tuned(elem_bytes, wide)
    };
    let bk = if wide && elem_bytes == 8 { 8 } else { multistage_bk(elem_bytes) };
    let tiles = BlockTiles { bk, ..t.warps.tiles };
    TunedTiles { warps: WarpTiles { tiles, ..t.warps }, stages: MULTISTAGE_STAGES, min_blocks: 1, ..t }
}

/// The tuned rung's tiles for elements of `elem_bytes`; `wide` (`f32` only) selects the
/// 128 × 256 tiles.
///
/// - Square (`wide = false`): [`warptile`]'s tiles, 128 × 128 for `f32` at two blocks per SM
///   (256 threads of 128 registers: ptxas fits them without spills), 128 × 64 for `f64` at
///   one (at 128 registers its fragments and prefetched vectors spilled up to 184 bytes,
///   inside the loop over `k`).
/// - Wide: 128 × 256 tiles of `C`, four warps across and two down, each warp 64 × 64, each
///   lane 2 × 4 sub-tiles of 4 × 4 (128 accumulators), one block of 8 warps per SM with up
///   to 255 registers: 1.5 shared loads per 16 multiply-adds instead of 2, and the SM's
///   time between barriers doubled; as many multiply-adds per SM at once as the square
///   tiles, in half as many blocks.
///
/// The lanes are row-major here; each entry of the tuned rungs lays them out as measured
/// fastest for it (`WarpTiles::with_lanes`, [`Lanes`]).
pub const fn tuned(elem_bytes: u32, wide: bool) -> TunedTiles {
    if wide && elem_bytes == 4 {
        let tiles = BlockTiles { bm: 128, bn: 256, bk: 8, tm: 8, tn: 16 };
        let warps = WarpTiles { tiles, wm: 64, wn: 64, wmiter: 2, wniter: 4, tm: VEC, tn: VEC, lanes: Lanes::RowMajor };
        TunedTiles { warps, elem_bytes, min_blocks: 1, stages: 2 }
    } else {
        let min_blocks = if elem_bytes == 4 { 2 } else { 1 };
        TunedTiles { warps: warptile(elem_bytes), elem_bytes, min_blocks, stages: 2 }
    }
}

impl TunedTiles {
    /// Threads per block.
    pub const fn threads(self) -> u32 {
        self.warps.tiles.threads()
    }

    /// Elements added to each tile row: 16 bytes, so that rows 4 apart (the rows a pair of
    /// lanes stores when transposing a vector that runs along `k`) start 16 banks apart while
    /// rows stay 16-byte aligned.
    pub const fn pad(self) -> u32 {
        16 / self.elem_bytes
    }
    /// Elements between the rows of the `A` tile.
    pub const fn a_pitch(self) -> u32 {
        self.warps.tiles.bm + self.pad()
    }
    /// Elements between the rows of the `B` tile.
    pub const fn b_pitch(self) -> u32 {
        self.warps.tiles.bn + self.pad()
    }
    /// Elements of one stage: the `A` tile, then the `B` tile.
    pub const fn stage_elements(self) -> u32 {
        self.warps.tiles.bk * (self.a_pitch() + self.b_pitch())
    }
    /// Elements of shared memory: every stage.
    pub const fn shared_elements(self) -> u32 {
        self.stages * self.stage_elements()
    }
    /// Shared-memory index of element `(m, k)` of stage `stage`'s `A` tile.
    pub const fn a_at(self, stage: u32, m: u32, k: u32) -> u32 {
        stage * self.stage_elements() + k * self.a_pitch() + m
    }
    /// Shared-memory index of element `(k, n)` of stage `stage`'s `B` tile.
    pub const fn b_at(self, stage: u32, k: u32, n: u32) -> u32 {
        stage * self.stage_elements() + self.warps.tiles.bk * self.a_pitch() + k * self.b_pitch() + n
    }
    /// Vectors a thread loads per step, at most, of an operand tile `width` wide (`bm` for
    /// `A`, `bn` for `B`) and `bk` deep.
    pub const fn vector_loads(self, width: u32) -> u32 {
        (width * self.warps.tiles.bk / VEC).div_ceil(self.warps.tiles.threads())
    }
    /// The vector of an operand tile `width` wide that thread `t` loads in its `i`-th load, if
    /// it loads one, as `(x, k)`: its first element's column `x` (along `m` or `n`) and row
    /// `k`. Where the stored rows run along `k` ([`Op::rows_along_k`]) the vector runs along
    /// `k` (elements `(x, k .. k + VEC)`), otherwise along `x`; either way a warp's loads
    /// cover whole stored rows, 16 bytes per lane.
    pub const fn operand_vector(self, width: u32, along_k: bool, t: u32, i: u32) -> Option<(u32, u32)> {
        let bk = self.warps.tiles.bk;
        let e = i * self.warps.tiles.threads() + t;
        if e >= width * bk / VEC {
            None
        } else if along_k {
            Some((e / (bk / VEC), e % (bk / VEC) * VEC))
        } else {
            Some((e % (width / VEC) * VEC, e / (width / VEC)))
        }
    }

    /// Elements a thread copies per step, at most, of an operand tile `width` wide whose
    /// stored rows run along `k` (the multistage rung's element-wise copies).
    pub const fn element_copies(self, width: u32) -> u32 {
        (width * self.warps.tiles.bk).div_ceil(self.warps.tiles.threads())
    }
    /// The element `(x, k)` of an operand tile `width` wide whose stored rows run along `k`
    /// that thread `t` copies in its `i`-th copy, if it copies one: each warp's copy takes 8
    /// consecutive elements of 4 stored rows (whole 32-byte sectors for `f32`), the warps
    /// taking the 8-element chunks along `k` first, then the next 4 rows. Its stores into the
    /// `k`-major tile, rows `k` apart by a pitch of 4 banks more than a multiple of 32, fall in
    /// 32 distinct banks (`f32`). `bk` is a multiple of 8.
    pub const fn operand_element(self, width: u32, t: u32, i: u32) -> Option<(u32, u32)> {
        let bk = self.warps.tiles.bk;
        let e = i * self.warps.tiles.threads() + t;
        let (chunk, lane) = (e / 32, e % 32);
        let (rows, along) = (chunk / (bk / 8), chunk % (bk / 8));
        if e >= width * bk { None } else { Some((rows * 4 + lane / 8, along * 8 + lane % 8)) }
    }

    /// The distance `(x, k)` from each of a thread's copies of an operand tile `width` wide to
    /// its next one ([`operand_element`](Self::operand_element) where the stored rows run
    /// along `k`, [`operand_vector`](Self::operand_vector) otherwise), where it is the same for
    /// every thread and copy: the multistage rung's whole-tile entries then step one source
    /// pointer from copy to copy instead of holding one per copy in registers.
    pub const fn copy_step(self, width: u32, along_k: bool) -> Option<(u32, u32)> {
        let mut step = None;
        let mut t = 0;
        while t < self.threads() {
            let mut i = 0;
            while i + 1 < self.copies(width, along_k) {
                let (this, next) = (self.copy(width, along_k, t, i), self.copy(width, along_k, t, i + 1));
                match (this, next, step) {
                    (Some((x, k)), Some((nx, nk)), _) if nx < x || nk < k => return None,
                    (Some((x, k)), Some((nx, nk)), None) => step = Some((nx - x, nk - k)),
                    (Some((x, k)), Some((nx, nk)), Some((dx, dk))) if nx - x != dx || nk - k != dk => return None,
                    _ => {}
                }
                i += 1;
            }
            t += 1;
        }
        Some(match step {
            Some(step) => step,
            None => (0, 0),
        })
    }

    /// The copies a thread of the multistage rung makes per step of an operand tile `width`
    /// wide, at most: [`element_copies`](Self::element_copies) where the stored rows run along
    /// `k`, [`vector_loads`](Self::vector_loads) otherwise.
    pub const fn copies(self, width: u32, along_k: bool) -> u32 {
        if along_k { self.element_copies(width) } else { self.vector_loads(width) }
    }

    /// Thread `t`'s `i`-th copy of an operand tile `width` wide, if it makes one:
    /// [`operand_element`](Self::operand_element) where the stored rows run along `k`,
    /// [`operand_vector`](Self::operand_vector) (along `x`) otherwise.
    pub const fn copy(self, width: u32, along_k: bool, t: u32, i: u32) -> Option<(u32, u32)> {
        if along_k { self.operand_element(width, t, i) } else { self.operand_vector(width, false, t, i) }
    }
}

/// Grid of the tuned rung: x over the tiles of `C` (numbered by [`grouped_tile`]), y over the
/// products of the batch, at most [`MAX_GRID_YZ`] of them per launch (the host launches one
/// grid per so many). The tiles of one product must be fewer than 2³¹ (the host checks).
pub const fn grid_of_batched_tiles(m: u64, n: u64, batch: u64, bm: u32, bn: u32) -> (u32, u32, u32) {
    let tiles = m.div_ceil(bm as u64) * n.div_ceil(bn as u64);
    (cap(tiles, MAX_GRID_X), cap(batch, MAX_GRID_YZ), 1)
}

/// Rows of tiles in each group of [`grouped_tile`].
pub const GROUP_M: u32 = 8;

/// The tile `(row, column)` of a `tiles_m × tiles_n` grid of tiles that block `id` computes:
/// down a group of [`GROUP_M`] rows of tiles, then across to the next column of the group,
/// so that the blocks running at one time share rows of `A` and columns of `B` in the L2
/// cache (Triton's "grouped ordering"; CUTLASS's threadblock swizzle).
pub const fn grouped_tile(id: u32, tiles_m: u32, tiles_n: u32) -> (u32, u32) {
    let in_group = GROUP_M * tiles_n;
    let first_m = id / in_group * GROUP_M;
    let rows = if tiles_m - first_m < GROUP_M { tiles_m - first_m } else { GROUP_M };
    (first_m + id % in_group % rows, id % in_group / rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_tiles_visit_every_tile_once() {
        for (tiles_m, tiles_n) in [(1, 1), (3, 5), (8, 8), (17, 3), (33, 1), (1, 40)] {
            let mut seen = vec![false; (tiles_m * tiles_n) as usize];
            for id in 0..tiles_m * tiles_n {
                let (tm, tn) = grouped_tile(id, tiles_m, tiles_n);
                assert!(tm < tiles_m && tn < tiles_n, "{id} of {tiles_m}×{tiles_n}: ({tm}, {tn})");
                let at = (tm * tiles_n + tn) as usize;
                assert!(!seen[at], "({tm}, {tn}) twice in {tiles_m}×{tiles_n}");
                seen[at] = true;
            }
        }
        // Consecutive blocks run down a group of GROUP_M rows of tiles first.
        assert_eq!([0, 1, 7, 8].map(|id| grouped_tile(id, 16, 16)), [(0, 0), (1, 0), (7, 0), (0, 1)]);
    }

    #[test]
    fn lanes_cover_each_result_once_and_interleaved_pairs_share_a_row_or_a_column() {
        let tiles = [warptile(4), warptile(8), tuned(4, true).warps, multistage(8, true).warps];
        for w in tiles.into_iter().flat_map(|w| [Lanes::RowMajor, Lanes::Interleaved].map(|l| w.with_lanes(l))) {
            let s = w.tiles;
            let mut seen = vec![0u32; (s.bm * s.bn) as usize];
            for t in 0..s.threads() {
                for (i, j) in (0..w.wmiter).flat_map(|i| (0..w.wniter).map(move |j| (i, j))) {
                    let (r0, c0) = w.c_origin(t, i, j);
                    for (r, c) in (0..w.tm).flat_map(|r| (0..w.tn).map(move |c| (r, c))) {
                        seen[((r0 + r) * s.bn + c0 + c) as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{w:?}");
            // The merge rule for `LDS.128`: across the warp, lane `l` reads what `l ^ 1` reads
            // (`A`: its row) or what `l ^ 2` reads (`B`: its column).
            let origin = |l: u32| w.c_origin(l, 0, 0);
            let rows_pair = (0..32).all(|l| origin(l).0 == origin(l ^ 1).0);
            let columns_pair = (0..32).all(|l| origin(l).1 == origin(l ^ 2).1);
            assert!(rows_pair, "{w:?}");
            assert_eq!(columns_pair, w.lanes == Lanes::Interleaved, "{w:?}");
        }
    }

    #[test]
    fn tuned_threads_load_each_vector_of_both_tiles_once() {
        for (elem_bytes, wide, stages) in [(4, false, 2), (4, true, 2), (8, false, 2), (4, false, 4), (8, false, 4)] {
            let t = if stages == 2 { tuned(elem_bytes, wide) } else { multistage(elem_bytes, wide) };
            assert_eq!(t.stages, stages);
            let s = t.warps.tiles;
            assert_eq!((t.a_pitch() * elem_bytes) % 16, 0, "rows stay 16-byte aligned");
            // Rows 4 apart start 16 banks (64 bytes) apart.
            assert_eq!(4 * t.a_pitch() * elem_bytes % 128, 64);
            assert_eq!(4 * t.b_pitch() * elem_bytes % 128, 64);
            for (width, along_k) in [(s.bm, true), (s.bm, false), (s.bn, true), (s.bn, false)] {
                let mut seen = vec![0u32; (width * s.bk) as usize];
                for thread in 0..t.threads() {
                    for i in 0..t.vector_loads(width) {
                        if let Some((x, k)) = t.operand_vector(width, along_k, thread, i) {
                            for q in 0..VEC {
                                let (x, k) = if along_k { (x, k + q) } else { (x + q, k) };
                                seen[(k * width + x) as usize] += 1;
                            }
                        }
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{elem_bytes}-byte {width} wide, along k: {along_k}, {t:?}");
            }
            assert!(t.a_at(1, 0, 0) > t.b_at(0, s.bk - 1, s.bn - 1), "stages do not overlap");
            for width in [s.bm, s.bn] {
                let mut seen = vec![0u32; (width * s.bk) as usize];
                for thread in 0..t.threads() {
                    for i in 0..t.element_copies(width) {
                        if let Some((x, k)) = t.operand_element(width, thread, i) {
                            seen[(k * width + x) as usize] += 1;
                        }
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "element copies, {elem_bytes}-byte {width} wide");
            }
        }
    }

    #[test]
    fn copy_steps_lead_from_each_copy_to_the_next() {
        for (elem_bytes, wide) in [(4, false), (4, true), (8, false), (8, true)] {
            let t = multistage(elem_bytes, wide);
            let s = t.warps.tiles;
            for (width, along_k) in [(s.bm, true), (s.bm, false), (s.bn, true), (s.bn, false)] {
                // Independent of `TunedTiles::copy`, which `copy_step` calls.
                let copy = |thread, i| {
                    if along_k {
                        t.operand_element(width, thread, i)
                    } else {
                        t.operand_vector(width, false, thread, i)
                    }
                };
                let copies = if along_k { t.element_copies(width) } else { t.vector_loads(width) };
                let Some((dx, dk)) = t.copy_step(width, along_k) else { continue };
                for thread in 0..t.threads() {
                    for i in 0..copies.saturating_sub(1) {
                        if let (Some((x, k)), Some(next)) = (copy(thread, i), copy(thread, i + 1)) {
                            assert_eq!((x + dx, k + dk), next, "{elem_bytes}-byte {width} wide, along k: {along_k}");
                        }
                    }
                }
            }
        }
        // The wide `f64` tiles (the whole-tile entries'): 4 element copies 32 rows apart, one
        // vector (two 16-byte pieces) per operand.
        let t = multistage(8, true);
        assert_eq!((t.element_copies(128), t.copy_step(128, true)), (4, Some((32, 0))));
        assert_eq!((t.vector_loads(128), t.copy_step(128, false)), (1, Some((0, 0))));
        // A layout whose threads' copies are spaced differently has no step.
        let uneven = TunedTiles { warps: WarpTiles { tiles: BlockTiles { bk: 24, ..t.warps.tiles }, ..t.warps }, ..t };
        assert_eq!(uneven.copy_step(128, true), None);
    }
}
