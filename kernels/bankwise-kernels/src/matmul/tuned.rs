//! Rung 9, [`matmul_tuned`]: rung 8's warp tiles with the next step's loads in flight while
//! this one computes, `op(A)` and `op(B)` for `op ∈ {N, T}`, over a strided batch; the sum of
//! a split `k` ([`matmul_split_sum`]); the lanes an entry picks ([`lanes`]); and
//! [`tuned_matmul_entries!`](crate::tuned_matmul_entries), which instantiates rungs 9 and 10.
//! `block_product` and `finish_warp_tiles` are rung 9's prologue and epilogue as rung 10 calls
//! them.

use bankwise_device::global;
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{block_dim_x, block_x, block_y, grid_dim_x, grid_dim_y, sync_threads, thread_x};
use bankwise_layout::matmul::{BlockTiles, Lanes, TunedTiles, VEC, WarpTiles, at, grouped_tile, tuned};

use super::ladder::warp_step;
use super::vector::{finish_vector, load_vector, read_global_vector, rows_aligned, write_vector};
use super::{Gemm, Scalar};

/// The batch of the tuned rung: `count` products, the `i`-th reading `A` at `a + i·stride_a`
/// and `B` at `b + i·stride_b` and writing `C` at `c + i·stride_c` (elements). A launch
/// computes products `first + block_y()` (grids hold at most 65,535 rows of blocks).
#[derive(Clone, Copy)]
pub struct Batch {
    /// Products.
    pub count: u64,
    /// The launch's first product.
    pub first: u64,
    /// Elements between consecutive `A`s.
    pub stride_a: u64,
    /// Elements between consecutive `B`s.
    pub stride_b: u64,
    /// Elements between consecutive `C`s.
    pub stride_c: u64,
}

/// The most vectors of one operand tile a thread of the tuned rung loads per step.
const MAX_LOADS: usize = 2;

/// Thread `t`'s vectors of the operand tile `width` wide at `(x0, k0)` of the stored matrix
/// `p` (`x_len` along `x`, `k_len` along `k`, its rows along `k` where `along_k`), zero past
/// its edges: the loads of one step, issued before the step before it is computed.
///
/// # Safety
/// As [`load_vector`].
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
unsafe fn fetch_operand<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    (p, ld, aligned): (*const T, u64, bool),
    (x_len, k_len): (u64, u64),
    (x0, k0): (u64, u64),
    regs: &mut [[T; VEC as usize]; MAX_LOADS],
) {
    for i in 0..tt.vector_loads(width) as usize {
        if let Some((x, k)) = tt.operand_vector(width, along_k, t, i as u32) {
            let (x, k) = (x0 + x as u64, k0 + k as u64);
            // SAFETY: `p` holds the matrix with leading dimension `ld` (this function's contract,
            // `load_vector`'s), and the tiling's vectors start at a multiple of `VEC` along the
            // row.
            regs[i] = unsafe {
                if along_k {
                    load_vector(p, ld, x_len, k_len, x, k, aligned)
                } else {
                    load_vector(p, ld, k_len, x_len, k, x, aligned)
                }
            };
        }
    }
}

/// Stores thread `t`'s fetched vectors of an operand tile into shared memory at `at(x, k)`:
/// a vector that runs along `x` as one 16-byte store, one that runs along `k` as `VEC`
/// scalar stores down the tile (the transpose).
///
/// # Safety
/// As [`write_vector`]; the caller's barriers order the stores.
#[inline(always)]
#[track_caller]
unsafe fn put_operand<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    smem: SharedSlice<T>,
    regs: &[[T; VEC as usize]; MAX_LOADS],
    at: impl Fn(u32, u32) -> u32,
) {
    for i in 0..tt.vector_loads(width) as usize {
        if let Some((x, k)) = tt.operand_vector(width, along_k, t, i as u32) {
            if along_k {
                for q in 0..VEC {
                    // SAFETY: the tiling's slots for this thread, inside the tile; the caller's
                    // barriers order the stores (this function's contract).
                    unsafe { smem.write(at(x, k + q) as usize, regs[i][q as usize]) };
                }
            } else {
                // SAFETY: a `VEC`-aligned slot of the tile for this thread, inside it; the caller's
                // barriers order the store (this function's contract).
                unsafe { write_vector(smem, at(x, k), regs[i]) };
            }
        }
    }
}

/// [`fetch_operand`] of thread `t`'s vectors of both tiles of step `k0` for the block's tile
/// at `(m0, n0)`; `along_k` and `aligned` say, for `A` and `B`, whether their stored rows run
/// along `k` and whether they start on 16 bytes.
///
/// # Safety
/// As [`load_vector`] for `g`'s matrices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fetch_tiles<T: Scalar>(
    tt: TunedTiles,
    t: u32,
    g: &Gemm<T>,
    (a_along_k, b_along_k): (bool, bool),
    (a_aligned, b_aligned): (bool, bool),
    (m0, n0, k0): (u64, u64, u64),
    ra: &mut [[T; VEC as usize]; MAX_LOADS],
    rb: &mut [[T; VEC as usize]; MAX_LOADS],
) {
    let s = tt.warps.tiles;
    // SAFETY: `g`'s matrices are as `load_vector` needs (this function's contract).
    unsafe {
        fetch_operand(tt, s.bm, a_along_k, t, (g.a, g.lda, a_aligned), (g.m, g.k), (m0, k0), ra);
        fetch_operand(tt, s.bn, b_along_k, t, (g.b, g.ldb, b_aligned), (g.n, g.k), (n0, k0), rb);
    }
}

/// Where thread `t`'s vectors of the operand tile `width` wide at `(x0, 0)` of the stored
/// matrix `p` (its rows along `k` where `along_k`) start: the first step's, to which
/// [`fetch_whole`] adds each step's offset. Only computed (`wrapping_add`), not read.
#[inline(always)]
fn vector_starts<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    (p, ld): (*const T, u64),
    x0: u64,
) -> [*const T; MAX_LOADS] {
    let mut starts = [p; MAX_LOADS];
    for i in 0..tt.vector_loads(width) as usize {
        if let Some((x, k)) = tt.operand_vector(width, along_k, t, i as u32) {
            let (x, k) = (x0 + x as u64, k as u64);
            starts[i] = p.wrapping_add(if along_k { at(x, k, ld) } else { at(k, x, ld) } as usize);
        }
    }
    starts
}

/// [`fetch_operand`] for a step whose tile lies whole inside the matrix, its rows starting on
/// 16 bytes: one 16-byte load per vector from `starts[i] + offset`, no bounds checks. The
/// general path's checks (64-bit compares feeding branches, with fixed stalls of up to 13
/// cycles) fall in the same phase of every warp, just after the step's barrier.
///
/// # Safety
/// Each vector's `VEC` elements at `starts[i] + offset` are inside the matrix, 16-byte
/// aligned.
#[inline(always)]
unsafe fn fetch_whole<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    starts: &[*const T; MAX_LOADS],
    offset: u64,
    regs: &mut [[T; VEC as usize]; MAX_LOADS],
) {
    for i in 0..tt.vector_loads(width) as usize {
        if tt.operand_vector(width, along_k, t, i as u32).is_some() {
            // Safety: inside the matrix and aligned (the caller's contract).
            regs[i] = unsafe { read_global_vector(starts[i].wrapping_add(offset as usize)) };
        }
    }
}

/// [`put_operand`] of thread `t`'s fetched vectors of both tiles into stage `stage`.
///
/// # Safety
/// As [`put_operand`].
#[inline(always)]
unsafe fn put_tiles<T: Scalar>(
    tt: TunedTiles,
    t: u32,
    smem: SharedSlice<T>,
    (a_along_k, b_along_k): (bool, bool),
    stage: u32,
    ra: &[[T; VEC as usize]; MAX_LOADS],
    rb: &[[T; VEC as usize]; MAX_LOADS],
) {
    let s = tt.warps.tiles;
    // SAFETY: the caller's contract is `put_operand`'s (its `# Safety`).
    unsafe {
        put_operand(tt, s.bm, a_along_k, t, smem, ra, |m, k| tt.a_at(stage, m, k));
        put_operand(tt, s.bn, b_along_k, t, smem, rb, |n, k| tt.b_at(stage, k, n));
    }
}

/// Rung 9, `matmul_tuned`: [`matmul_warptile`](super::matmul_warptile)'s warp tiles with the
/// loads of the next step overlapped with the computation of this one, `C = α·op(A)·op(B) +
/// β·C` with `op ∈ {N, T}` (`TRANS_A`, `TRANS_B`), over a strided batch.
///
/// Changes from rung 8: two stages of tiles in shared memory. While the block computes from
/// one, each thread's global loads of the next step are in flight into registers; it stores
/// them into the other stage afterwards, and one barrier per step (instead of two) separates
/// the two. Both tiles are `k`-major with 16-byte-padded rows (`bankwise_layout::matmul::
/// TunedTiles`): an operand whose stored rows run along `k` (`A` as stored, `B` transposed) is
/// loaded as vectors along `k` and transposed on its way to shared memory, the other stored
/// as vectors. `C` is written as 16-byte vectors where its rows are aligned. One tile per
/// block, so that no loop state lives across the tile. Two tile sizes (`WIDE`, with `MI × NI`
/// sub-tiles per lane): rung 8's 128 × 128 (`f32` compiled for two blocks per SM:
/// `launch_bounds`, 128 registers, no spills but 12 bytes in the whole-tile NN entry on sm_90),
/// and for `f32` 128 × 256 at one block of 8 warps per SM (232–249 registers), each lane 2 × 4
/// sub-tiles; the host picks one per shape (`bankwise::matmul::TunedPlan`).
///
/// Where `C` has too few tiles to fill the GPU, the host splits `k` over a batch of this
/// kernel ([`matmul_split_sum`], `bankwise::matmul::SplitK`).
///
/// `WHOLE` entries (`f32`, which the host picks where the tiles divide `n` and rows are
/// aligned: `bankwise::matmul::TunedTile::whole`) load every step of a block whose tiles lie
/// inside `A` and `B` but a partial last one from pointers computed once, without bounds
/// checks (`fetch_whole`); a partial last row of tiles takes the checked path. The checked
/// loads' 64-bit compares and branches carry fixed stalls of up to 13 cycles and fall in the
/// same phase of every warp, after the barrier: Nsight Compute at 4096³ (wide tiles) counts
/// 0.13 cycles of `wait` stall per issued instruction on the whole-tile path, 0.24 on the
/// checked one (cuBLAS's kernel 0.01; `docs/benchmarks.md`, *Whole tiles*). The other entries
/// keep the checked loads alone: beside the unchecked path, ptxas made their checked path
/// slower (`docs/decisions.md`).
///
/// Lanes (`bankwise_layout::matmul::Lanes`, the entry's `INTERLEAVED`): interleaved in every
/// entry but the square `f32` ones without the whole-tile path, so that both tiles' `LDS.128`
/// fragment reads take 2 wavefronts instead of 2 (`A`) and 4 (`B`), as Nsight Compute counts.
/// The square `f32` entries without the whole-tile path (128 registers) keep row-major lanes:
/// interleaved, ptxas re-reads the thread index inside their loop, and they ran slower at
/// 4095×4097×4093 (each entry's comparison: `docs/benchmarks.md`, *Interleaved lanes*).
///
/// Measured (H100, beside cuBLAS in the same run), `f32` with the plan the host picks: 48.10
/// TFLOP/s at 4096³ (92.7% of cuBLAS; 1.41× rung 8), 47.10 at 2048³ (93.3%), 41.19 at
/// 4096×4096×256 (94.1%); with `k` split, 30.26 at 1024³ (86.0%) and 42.50 at 256×4096×4096
/// (89.3%); 41.62 at 4095×4097×4093 (86.7%: wide whole tiles over 4096 columns and the last
/// column apart, `bankwise::matmul::TunedPlan::strip`, after the host copied both operands to
/// aligned rows). `f64` 12.44 at 4096³ (37.2% of the FP64 CUDA cores' peak; TN 19.41).
///
/// # Safety
/// The matrices of each product of the batch hold their stored shapes (`A` `k × m` where
/// `TRANS_A`, `B` `n × k` where `TRANS_B`) with their leading dimensions; the `C`s of the batch
/// do not overlap; block `threads()` × 1, grid
/// `bankwise_layout::matmul::grid_of_batched_tiles(m, n, count, bm, bn)` (fewer than 2³¹
/// tiles), and `TunedTiles::shared_elements()` elements of dynamic shared memory.
#[inline(always)]
pub unsafe fn matmul_tuned<
    T: Scalar,
    const TRANS_A: bool,
    const TRANS_B: bool,
    const WIDE: bool,
    const WHOLE: bool,
    const INTERLEAVED: bool,
    const MI: usize,
    const NI: usize,
>(
    g: Gemm<T>,
    batch: Batch,
) {
    let tt = const {
        let tt = tuned(size_of::<T>() as u32, WIDE);
        let tt = TunedTiles { warps: tt.warps.with_lanes(lanes(INTERLEAVED)), ..tt };
        let w = tt.warps;
        assert!(w.wmiter as usize <= MI && w.wniter as usize <= NI && w.tm == VEC && w.tn == VEC);
        assert!(tt.vector_loads(w.tiles.bm) as usize <= MAX_LOADS && tt.vector_loads(w.tiles.bn) as usize <= MAX_LOADS);
        tt
    };
    let (w, s) = (tt.warps, tt.warps.tiles);
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    // One tile per block, one product per row of blocks: no loop, so nothing but the block's
    // coordinates lives across the tile, and the rest fits the 128 registers of two blocks per
    // SM (a grid-stride loop cost spills). The host launches one grid per 65,535 products.
    // (Written out here rather than through `block_product`, which the multistage rung uses:
    // the same computation in another form renumbers this kernel's registers, and ptxas then
    // schedules its loop differently.)
    let (tiles_m, tiles_n) = (g.m.div_ceil(s.bm as u64) as u32, g.n.div_ceil(s.bn as u64) as u32);
    let (id, z) = (block_x(), batch.first + block_y() as u64);
    if id >= tiles_m * tiles_n || z >= batch.count {
        return;
    }
    // Safety: product `z` of the batch lies inside the buffers (the launch's contract).
    let g = unsafe {
        Gemm {
            a: g.a.add((z * batch.stride_a) as usize),
            b: g.b.add((z * batch.stride_b) as usize),
            c: g.c.add((z * batch.stride_c) as usize),
            ..g
        }
    };
    // Where a stored row runs along `k`: `A` as stored, `B` transposed.
    let along_k = (!TRANS_A, TRANS_B);
    let aligned = (rows_aligned(g.a, g.lda), rows_aligned(g.b, g.ldb));
    let c_aligned = rows_aligned(g.c, g.ldc);
    let (tm, tn) = grouped_tile(id, tiles_m, tiles_n);
    let (m0, n0) = (tm as u64 * s.bm as u64, tn as u64 * s.bn as u64);
    let mut acc = [[[[T::ZERO; VEC as usize]; VEC as usize]; NI]; MI];
    let (mut ra, mut rb) = ([[T::ZERO; VEC as usize]; MAX_LOADS], [[T::ZERO; VEC as usize]; MAX_LOADS]);
    // Functions, not closures, stage the tiles: LLVM outlines a closure called from two places,
    // and an outlined call costs registers and bounds checks.
    // SAFETY: `g` holds this product's matrices (the rung's contract, and the batch offset above);
    // the launch gives the tile, and the barrier below orders the stores before the reads.
    unsafe {
        fetch_tiles(tt, t, &g, along_k, aligned, (m0, n0, 0), &mut ra, &mut rb);
        put_tiles(tt, t, smem, along_k, 0, &ra, &rb);
    }
    sync_threads();
    let steps = g.k.div_ceil(s.bk as u64);
    // The `WHOLE` entries load every step of a block whose tiles lie whole inside `A` and `B`,
    // rows aligned, but a partial last one, without bounds checks (`fetch_whole`); the others
    // always check (beside the unchecked path, ptxas made their checked one slower).
    let whole = WHOLE && aligned.0 && aligned.1 && m0 + s.bm as u64 <= g.m && n0 + s.bn as u64 <= g.n;
    let whole_steps = if whole { g.k / s.bk as u64 } else { 0 };
    let a_starts = vector_starts(tt, s.bm, along_k.0, t, (g.a, g.lda), m0);
    let b_starts = vector_starts(tt, s.bn, along_k.1, t, (g.b, g.ldb), n0);
    let mut stage = 0;
    let mut step = 0;
    while step < steps {
        let more = step + 1 < steps;
        if WHOLE && step + 1 < whole_steps {
            // The element offset of step `step + 1` in each operand.
            let k0 = (step + 1) * s.bk as u64;
            let (da, db) = (if along_k.0 { k0 } else { k0 * g.lda }, if along_k.1 { k0 } else { k0 * g.ldb });
            // Safety: the step's tiles lie inside `A` and `B`, rows aligned (`whole`).
            unsafe {
                fetch_whole(tt, s.bm, along_k.0, t, &a_starts, da, &mut ra);
                fetch_whole(tt, s.bn, along_k.1, t, &b_starts, db, &mut rb);
            }
        } else if more {
            let k0 = (step + 1) * s.bk as u64;
            // SAFETY: `g` holds this product's matrices; the loads go to registers, stored after
            // this step's reads.
            unsafe { fetch_tiles(tt, t, &g, along_k, aligned, (m0, n0, k0), &mut ra, &mut rb) };
        }
        for d in 0..s.bk {
            let (a_at, b_at) = (|m| tt.a_at(stage, m, d), |n| tt.b_at(stage, d, n));
            // SAFETY: the warp tiling's slots of this step's stage, inside the tile; stored before
            // the last barrier, and not stored again before the barrier that ends the step.
            unsafe { warp_step(w, t, smem, a_at, b_at, &mut acc) };
        }
        if more {
            // SAFETY: the other stage, which this step does not read; the barrier that ended the
            // step before ordered its reads before these stores, and the barrier below orders the
            // stores before the next step's reads.
            unsafe { put_tiles(tt, t, smem, along_k, stage ^ 1, &ra, &rb) };
        }
        // Orders this step's stores before the next step's reads, and this step's reads
        // before the stores of the step after.
        sync_threads();
        stage ^= 1;
        step += 1;
    }
    for i in 0..w.wmiter as usize {
        for j in 0..w.wniter as usize {
            let (r0, c0) = w.c_origin(t, i as u32, j as u32);
            let c = n0 + c0 as u64;
            for p in 0..VEC as usize {
                let r = m0 + (r0 + p as u32) as u64;
                if r < g.m && c_aligned && c + VEC as u64 <= g.n {
                    // Safety: the row's `VEC` elements from `c` are inside `C`, 16-byte
                    // aligned.
                    unsafe { finish_vector(&g, r, c, acc[i][j][p]) };
                } else {
                    for q in 0..VEC as usize {
                        g.finish_inside(r, c + q as u64, acc[i][j][p][q]);
                    }
                }
            }
        }
    }
}

/// The product of the batch and the tile of its `C` (`(m0, n0)`, `bm × bn` from `s`) this
/// block computes, `None` for a block past them: one tile per block, one product per row of
/// blocks, as in [`matmul_tuned`].
///
/// # Safety
/// Product `batch.first + block_y()` of the batch lies inside the buffers, where it exists.
#[inline(always)]
pub(super) unsafe fn block_product<T: Scalar>(
    g: Gemm<T>,
    batch: Batch,
    s: BlockTiles,
) -> Option<(Gemm<T>, (u64, u64))> {
    let (tiles_m, tiles_n) = (g.m.div_ceil(s.bm as u64) as u32, g.n.div_ceil(s.bn as u64) as u32);
    let (id, z) = (block_x(), batch.first + block_y() as u64);
    if id >= tiles_m * tiles_n || z >= batch.count {
        return None;
    }
    // Safety: product `z` of the batch lies inside the buffers (the contract).
    let g = unsafe {
        Gemm {
            a: g.a.add((z * batch.stride_a) as usize),
            b: g.b.add((z * batch.stride_b) as usize),
            c: g.c.add((z * batch.stride_c) as usize),
            ..g
        }
    };
    let (tm, tn) = grouped_tile(id, tiles_m, tiles_n);
    Some((g, (tm as u64 * s.bm as u64, tn as u64 * s.bn as u64)))
}

/// [`Gemm::finish`] of thread `t`'s warp-tile results `acc` for the block's tile at
/// `(m0, n0)`: rows of `VEC` as 16-byte accesses where `C`'s rows are aligned (`c_aligned`)
/// and the row's vector is inside `C`, element by element otherwise. ([`matmul_tuned`] writes
/// the same loop out, for the reason its prologue does.)
///
/// # Safety
/// `g.c` holds `C` with its leading dimension.
#[inline(always)]
pub(super) unsafe fn finish_warp_tiles<T: Scalar, const MI: usize, const NI: usize>(
    g: &Gemm<T>,
    w: WarpTiles,
    t: u32,
    (m0, n0): (u64, u64),
    c_aligned: bool,
    acc: &[[[[T; VEC as usize]; VEC as usize]; NI]; MI],
) {
    for i in 0..w.wmiter as usize {
        for j in 0..w.wniter as usize {
            let (r0, c0) = w.c_origin(t, i as u32, j as u32);
            let c = n0 + c0 as u64;
            for p in 0..VEC as usize {
                let r = m0 + (r0 + p as u32) as u64;
                if r < g.m && c_aligned && c + VEC as u64 <= g.n {
                    // Safety: the row's `VEC` elements from `c` are inside `C`, 16-byte
                    // aligned.
                    unsafe { finish_vector(g, r, c, acc[i][j][p]) };
                } else {
                    for q in 0..VEC as usize {
                        g.finish_inside(r, c + q as u64, acc[i][j][p][q]);
                    }
                }
            }
        }
    }
}

/// The lanes of a tuned rung's entry: [`Lanes::Interleaved`] where its `INTERLEAVED` literal
/// says so. Each entry takes the layout measured faster for it at 4096³ and 4095×4097×4093
/// (`docs/benchmarks.md`, *Interleaved lanes*): interleaved, its `LDS.128` fragment reads take
/// 2 wavefronts each instead of 2 for `A` and 4 for `B`, but ptxas may spend more instructions
/// (at the 128 registers of the square `f32` tiles it re-reads the thread index inside the
/// loop).
pub const fn lanes(interleaved: bool) -> Lanes {
    if interleaved { Lanes::Interleaved } else { Lanes::RowMajor }
}

/// Split `k`'s last launch: `C = α·Σ_s W_s + β·C` over `slices` partial products `W_s`, each
/// `m × n` and packed, one after another at `w`: a batch of the tuned rung over consecutive
/// slices of `k` (`α = 1`, `β = 0`) wrote them. The sum runs in slice order, so a result does
/// not depend on the launch; a block's threads run along a row (reads and writes coalesced),
/// grid-stride loops over rows and columns.
///
/// # Safety
/// `w` holds `slices·m·n` elements; `g.c` holds `m` rows of `g.ldc ≥ n` elements (`g.a`,
/// `g.b` and `g.k` are not read); block `(x, 1, 1)`, any grid.
#[inline(always)]
pub unsafe fn matmul_split_sum<T: Scalar>(g: Gemm<T>, w: *const T, slices: u64) {
    let plane = g.m * g.n;
    let across = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut r = block_y() as u64;
    while r < g.m {
        let mut c = block_x() as u64 * block_dim_x() as u64 + thread_x() as u64;
        while c < g.n {
            let mut sum = T::ZERO;
            for s in 0..slices {
                // Safety: slice `s`'s element `(r, c)` is inside `w` (the contract).
                sum = sum + unsafe { global::read(w.add((s * plane + r * g.n + c) as usize)) };
            }
            // Safety: `(r, c)` is inside `C`.
            unsafe { g.finish(r, c, sum) };
            c += across;
        }
        r += grid_dim_y() as u64;
    }
}

/// Instantiates a tuned rung (`$rung`: [`matmul_tuned`] or
/// [`matmul_multistage`](super::matmul_multistage)) as entries, each for one type, one pair of
/// `op`s, one tile size (wide: 128 × 256, `f32` only), whether it has the whole-tile path
/// (`WHOLE`) and whether its lanes are interleaved ([`lanes`], the last literal), with `Gemm`'s
/// arguments followed by the batch's, and the launch bounds of the rung's tiles (`$tiles`:
/// `bankwise_layout::matmul::tuned` or `multistage`). The calling crate must depend on
/// `bankwise_device` (which `#[kernel]`'s expansion names) and `bankwise_layout`.
#[macro_export]
macro_rules! tuned_matmul_entries {
    ($rung:ident, $tiles:ident: $($name:ident => $t:ty, $trans_a:literal, $trans_b:literal, $wide:literal, $whole:literal, $interleaved:literal;)+) => {$(
        /// # Safety
        /// As for the rung in `bankwise_kernels::matmul`: the matrices of each product hold
        /// their stored shapes with their leading dimensions, and the launch uses the rung's
        /// grid, block and shared memory.
        #[$crate::__device::kernel(
            launch_bounds(
                bankwise_layout::matmul::$tiles(size_of::<$t>() as u32, $wide).threads(),
                bankwise_layout::matmul::$tiles(size_of::<$t>() as u32, $wide).min_blocks,
            ),
            shared = {
                let bytes = size_of::<$t>() as u32;
                bankwise_layout::matmul::$tiles(bytes, $wide).shared_elements() * bytes
            },
        )]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            c: *mut $t, a: *const $t, b: *const $t, m: u64, n: u64, k: u64,
            lda: u64, ldb: u64, ldc: u64, alpha: $t, beta: $t,
            count: u64, first: u64, stride_a: u64, stride_b: u64, stride_c: u64,
        ) {
            let g = $crate::matmul::Gemm { c, a, b, m, n, k, lda, ldb, ldc, alpha, beta };
            let batch = $crate::matmul::Batch { count, first, stride_a, stride_b, stride_c };
            unsafe { $crate::matmul::$rung::<$t, $trans_a, $trans_b, $wide, $whole, $interleaved, 2, { if $wide { 4 } else { 2 } }>(g, batch) }
        }
    )+};
}
