//! Rungs 1 to 8 of the ladder: from one thread per element of `C` reading global memory
//! ([`matmul_naive`]) to register tiles arranged by warp ([`matmul_warptile`]), each one change
//! from the rung before; and [`warp_step`], the warp tiles' step through `k` that the tuned
//! rungs reuse. Each rung's figures are the latest ladder run's (H100, `docs/benchmarks.md`).

use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{sync_threads, thread_x, thread_y};
use bankwise_layout::matmul::{
    ATile, BlockTiles, TILE, VEC, WARPTILE_A, WarpTiles, a_tile, b_tile, blocktile_2d, tiles, warptile,
};

use super::vector::{load_vector, read_vector, rows_aligned, write_vector};
use super::{Gemm, Scalar, for_each_tile};

/// Rung 1, `matmul_naive`: one thread per element of `C`, thread `x` running *down* `C`'s rows
/// (siboehm's first SGEMM kernel). CUDA C++: `row = blockIdx.x*32 + threadIdx.x`.
///
/// Teaches: what uncoalesced costs. The 32 lanes of a warp read 32 different rows of `A` (32
/// sectors per load instead of one broadcast) and write 32 rows of `C`.
///
/// Measured (H100, beside cuBLAS in the same run): 0.50 TFLOP/s f32 and 0.49 f64 at 4096³,
/// 1.0% and 0.8% of cuBLAS. At 4095×4097×4093 it runs 3× faster (1.56 TFLOP/s f32), likely
/// because rows 4096 elements apart put a warp's 32 rows on the same few L2 slices (not yet
/// profiled).
///
/// # Safety
/// The matrices hold their shapes with their leading dimensions; block `TILE × TILE`, grid
/// `bankwise_layout::matmul::grid_rows_in_x`.
#[inline(always)]
pub unsafe fn matmul_naive<T: Scalar>(g: Gemm<T>) {
    for_each_tile(tiles(g.m), tiles(g.n), |tm, tn| {
        let (r, c) = (tm * TILE as u64 + thread_x() as u64, tn * TILE as u64 + thread_y() as u64);
        if r < g.m && c < g.n {
            // SAFETY: `r < m` and `c < n`: inside `C` (`finish`'s and `dot`'s contract); each
            // element has one thread.
            unsafe { g.finish(r, c, g.dot(r, c)) };
        }
    });
}

/// Rung 2, `matmul_coalesced`: thread `x` runs *along* `C`'s rows, as in the article "2.2
/// CUDA-Memory" (its `MatrixMulKernel`: `Col = blockIdx.x*blockDim.x + threadIdx.x`).
///
/// Changes from rung 1: only which index thread `x` takes. Now a warp reads one element of `A`
/// (a broadcast) and 32 consecutive elements of `B` per step, and writes 32 consecutive
/// elements of `C`: every access coalesced. Each element of `A` and `B` is still read from
/// global memory `n` and `m` times over.
///
/// Measured (H100): 3.59 TFLOP/s f32 at 4096³ (7.2× rung 1, 6.9% of cuBLAS), 6.12 at 2048³
/// (12.1%); f64 1.85 (3.0%).
///
/// # Safety
/// As [`matmul_naive`], with grid `bankwise_layout::matmul::grid_columns_in_x`.
#[inline(always)]
pub unsafe fn matmul_coalesced<T: Scalar>(g: Gemm<T>) {
    for_each_tile(tiles(g.n), tiles(g.m), |tn, tm| {
        let (r, c) = (tm * TILE as u64 + thread_y() as u64, tn * TILE as u64 + thread_x() as u64);
        if r < g.m && c < g.n {
            // SAFETY: `r < m` and `c < n`: inside `C` (`finish`'s and `dot`'s contract); each
            // element has one thread.
            unsafe { g.finish(r, c, g.dot(r, c)) };
        }
    });
}

/// Rung 3, `matmul_tiled`: the article's strategy. The block walks `k` one [`TILE`]-wide step
/// at a time; at each step its threads copy a `TILE × TILE` tile of `A` and one of `B` into
/// shared memory (one element each, zero past the matrices' edges), synchronise, and each adds
/// up its row of the `A` tile times its column of the `B` tile from shared memory.
///
/// Changes from rung 2: each element of `A` and `B` is read from global memory once per block
/// instead of once per thread, [`TILE`] times fewer global reads. Bank conflicts: the `A` tile
/// is read along a row by the whole warp (one address: a broadcast), the `B` tile along a row
/// (32 consecutive elements): both conflict-free, as are the row-wise stores (the emulator's
/// counts: 1 wavefront per request for f32, 2 for f64's 256-byte rows).
///
/// Measured (H100): 6.16 TFLOP/s f32 at 4096³ (1.7× rung 2, 11.8% of cuBLAS), 7.52 at 2048³
/// (14.9%); f64 3.94 (6.4%; 11.8% of the FP64 CUDA cores' peak). ptxas merges a thread's reads
/// of four adjacent `A` elements into one `LDS.128`. Each thread still loads two shared-memory
/// values per multiply-add, which now bounds it: the next rungs give each thread a tile of `C`
/// in registers.
///
/// # Safety
/// As [`matmul_coalesced`], with `TILED_SHARED_ELEMENTS` elements of dynamic shared memory.
#[inline(always)]
pub unsafe fn matmul_tiled<T: Scalar>(g: Gemm<T>) {
    let smem = shared::dynamic::<T>();
    let (tx, ty) = (thread_x(), thread_y());
    for_each_tile(tiles(g.n), tiles(g.m), |tn, tm| {
        let (r, c) = (tm * TILE as u64 + ty as u64, tn * TILE as u64 + tx as u64);
        let mut sum = T::ZERO;
        let mut k0 = 0;
        while k0 < g.k {
            // Thread (tx, ty) loads A[r][k0 + tx] and B[k0 + ty][c].
            let (a, b) = (g.a_or_zero(r, k0 + tx as u64), g.b_or_zero(k0 + ty as u64, c));
            // SAFETY: the layout's slots for this thread lie inside the tile the launch gives
            // (`bankwise_layout::matmul`, the rung's shared bytes). Each slot has one writer; the
            // barrier below orders the writes before the reads, and the barrier that ends each step
            // orders the step's reads before the next step's writes.
            unsafe {
                smem.write(a_tile(ty, tx) as usize, a);
                smem.write(b_tile(ty, tx) as usize, b);
            }
            sync_threads();
            for i in 0..TILE {
                // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the barrier
                // above and not again before the barrier that ends the step.
                let (a, b) = unsafe { (smem.read(a_tile(ty, i) as usize), smem.read(b_tile(i, tx) as usize)) };
                sum = a.mul_add(b, sum);
            }
            // Before the next step overwrites the tiles.
            sync_threads();
            k0 += TILE as u64;
        }
        g.finish_inside(r, c, sum);
    });
}

/// Rung 4, `matmul_blocktile_1d`: each thread computes
/// [`TM`](bankwise_layout::matmul::blocktile_1d::TM) elements of `C` down one column,
/// accumulated in registers (siboehm's 1-D block tiling). A block of 512 threads owns a 64 × 64
/// tile of `C`; `k` advances 8 at a time through a 64 × 8 tile of `A` and an 8 × 64 tile of `B`
/// in shared memory, one element of each loaded per thread
/// (`bankwise_layout::matmul::blocktile_1d`).
///
/// Changes from rung 3: per step through `k`, a thread reads one `B` element from shared
/// memory and reuses it for its `TM` multiply-adds, so shared-memory loads per multiply-add
/// fall from 2 to 1 + 1/`TM`; and each element loaded from global memory serves 64 threads'
/// worth of results instead of 32. Bank conflicts: a warp's 32 threads share their rows of the
/// `A` tile (a broadcast) and read 32 consecutive `B` elements: conflict-free.
///
/// Measured (H100): 17.47 TFLOP/s f32 at 4096³ (2.8× rung 3, 33.6% of cuBLAS, 26.1% of the
/// CUDA cores' peak), 16.15 at 1024³ (44.4%); f64 6.88 (11.1%; 20.6% of its peak). 64
/// registers (f32), 68 (f64) on sm_90, no spills: four blocks per SM. With its 64 × 64 tiles
/// it outruns rungs 5 to 8 where their 128 × 128 tiles are fewer than the SMs (1024³,
/// 256×4096×4096).
///
/// # Safety
/// As [`matmul_coalesced`], with block `THREADS` × 1, grid
/// `bankwise_layout::matmul::grid_of_tiles(m, n, BM, BN)` and `SHARED_ELEMENTS` elements of
/// dynamic shared memory.
#[inline(always)]
pub unsafe fn matmul_blocktile_1d<T: Scalar>(g: Gemm<T>) {
    use bankwise_layout::matmul::blocktile_1d::{BK, BM, BN, TM, a_at, a_load, b_at, b_load, c_role};
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    let (row0, col) = c_role(t);
    let ((ar, ac), (br, bc)) = (a_load(t), b_load(t));
    for_each_tile(g.n.div_ceil(BN as u64), g.m.div_ceil(BM as u64), |tn, tm| {
        let (m0, n0) = (tm * BM as u64, tn * BN as u64);
        let mut acc = [T::ZERO; TM as usize];
        let mut k0 = 0;
        while k0 < g.k {
            let a = g.a_or_zero(m0 + ar as u64, k0 + ac as u64);
            let b = g.b_or_zero(k0 + br as u64, n0 + bc as u64);
            // SAFETY: the layout's slots for this thread lie inside the tile the launch gives
            // (`bankwise_layout::matmul`, the rung's shared bytes). Each slot has one writer; the
            // barrier below orders the writes before the reads, and the barrier that ends each step
            // orders the step's reads before the next step's writes.
            unsafe {
                smem.write(a_at(ar, ac) as usize, a);
                smem.write(b_at(br, bc) as usize, b);
            }
            sync_threads();
            for d in 0..BK {
                // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the barrier
                // above and not again before the barrier that ends the step.
                let b = unsafe { smem.read(b_at(d, col) as usize) };
                for (i, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the
                    // barrier above and not again before the barrier that ends the step.
                    *acc = unsafe { smem.read(a_at(row0 + i as u32, d) as usize) }.mul_add(b, *acc);
                }
            }
            sync_threads();
            k0 += BK as u64;
        }
        for (i, &sum) in acc.iter().enumerate() {
            g.finish_inside(m0 + (row0 + i as u32) as u64, n0 + col as u64, sum);
        }
    });
}

/// Rung 5, `matmul_blocktile_2d`: each thread computes a `tm × tn` sub-tile of `C` in registers
/// (siboehm's 2-D block tiling). For `f32` a block of 256 threads owns a 128 × 128 tile of `C`,
/// each thread 8 × 8 of it; `k` advances 8 at a time through a 128 × 8 tile of `A` and an
/// 8 × 128 tile of `B`, four elements of each loaded per thread (`f64`: 128 × 64 tiles, 8 × 4
/// per thread; `bankwise_layout::matmul::blocktile_2d`).
///
/// Changes from rung 4: per step through `k`, a thread reads `tn` values of `B` and `tm` of `A`
/// from shared memory and multiplies every pair: 64 multiply-adds for 16 shared loads (rung 4:
/// 8 for 9), and each element loaded from global memory serves a 128-wide tile instead of a
/// 64-wide one. Bank conflicts: a warp's lanes read the `A` tile at two addresses
/// (broadcasts); their `B` reads are 16 columns 8 elements apart, which share four banks.
///
/// Measured (H100): 21.57 TFLOP/s f32 at 4096³ (1.23× rung 4, 41.5% of cuBLAS); f64 10.34
/// (30.9% of its peak; faster than rungs 6 to 8 at every shape measured). 204 registers (f32)
/// on sm_90: one block of 8 warps per SM, which bounds this rung and the next ones.
///
/// # Safety
/// As [`matmul_coalesced`], with block `threads()` × 1, grid
/// `bankwise_layout::matmul::grid_of_tiles(m, n, bm, bn)` and
/// `shared_elements(ATile::RowMajor)` elements of dynamic shared memory.
#[inline(always)]
pub unsafe fn matmul_blocktile_2d<T: Scalar>(g: Gemm<T>) {
    let s = const {
        let s = blocktile_2d(size_of::<T>() as u32);
        assert!(s.tm as usize <= MAX_SUB && s.tn as usize <= MAX_SUB);
        s
    };
    let (loads_a, loads_b) = const { blocktile_2d(size_of::<T>() as u32).loads() };
    let layout = ATile::RowMajor;
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    let (row0, col0) = s.c_role(t);
    for_each_tile(g.n.div_ceil(s.bn as u64), g.m.div_ceil(s.bm as u64), |tn, tm| {
        let (m0, n0) = (tm * s.bm as u64, tn * s.bn as u64);
        let mut acc = [[T::ZERO; MAX_SUB]; MAX_SUB];
        let mut k0 = 0;
        while k0 < g.k {
            for i in 0..loads_a {
                let (m, k) = s.a_load(t, i);
                let a = g.a_or_zero(m0 + m as u64, k0 + k as u64);
                // SAFETY: the layout's slots for this thread lie inside the tile the launch gives
                // (`bankwise_layout::matmul`, the rung's shared bytes). Each slot has one writer;
                // the barrier below orders the writes before the reads, and the barrier that ends
                // each step orders the step's reads before the next step's writes.
                unsafe { smem.write(s.a_at(layout, m, k) as usize, a) };
            }
            for i in 0..loads_b {
                let (k, n) = s.b_load(t, i);
                let b = g.b_or_zero(k0 + k as u64, n0 + n as u64);
                // SAFETY: the layout's slots for this thread lie inside the tile the launch gives
                // (`bankwise_layout::matmul`, the rung's shared bytes). Each slot has one writer;
                // the barrier below orders the writes before the reads, and the barrier that ends
                // each step orders the step's reads before the next step's writes.
                unsafe { smem.write(s.b_at(layout, k, n) as usize, b) };
            }
            sync_threads();
            for d in 0..s.bk {
                let mut b = [T::ZERO; MAX_SUB];
                for j in 0..s.tn as usize {
                    // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the
                    // barrier above and not again before the barrier that ends the step.
                    b[j] = unsafe { smem.read(s.b_at(layout, d, col0 + j as u32) as usize) };
                }
                for i in 0..s.tm as usize {
                    // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the
                    // barrier above and not again before the barrier that ends the step.
                    let a = unsafe { smem.read(s.a_at(layout, row0 + i as u32, d) as usize) };
                    for j in 0..s.tn as usize {
                        acc[i][j] = a.mul_add(b[j], acc[i][j]);
                    }
                }
            }
            sync_threads();
            k0 += s.bk as u64;
        }
        for i in 0..s.tm as usize {
            for j in 0..s.tn as usize {
                g.finish_inside(m0 + (row0 + i as u32) as u64, n0 + (col0 + j as u32) as u64, acc[i][j]);
            }
        }
    });
}

/// The largest sub-tile side of the register-tiled rungs: their accumulator arrays' size. A
/// rung uses `tm × tn` of them; LLVM unrolls the loops, keeps those in registers and drops
/// the rest.
const MAX_SUB: usize = 8;

/// Loads thread `t`'s vectors of the `A` and `B` tiles of step `k0` for the block's tile at
/// `(m0, n0)` and stores them to shared memory, `A`'s transposed into `layout` (four scalar
/// stores per vector), `B`'s as vectors.
///
/// # Safety
/// As [`load_vector`] for `g`'s matrices; the caller's barriers order the stores.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
unsafe fn stage_vectors<T: Scalar>(
    g: &Gemm<T>,
    s: BlockTiles,
    layout: ATile,
    smem: SharedSlice<T>,
    t: u32,
    (m0, n0, k0): (u64, u64, u64),
    (a_aligned, b_aligned): (bool, bool),
) {
    let (loads_a, loads_b) = s.vector_loads();
    for i in 0..loads_a {
        if let Some((m, k)) = s.a_vector(t, i) {
            // SAFETY: `A` is the matrix `g.a` holds with leading dimension `g.lda` (the rung's
            // contract), and the layout's `k` is a multiple of `VEC`; where `a_aligned`, its rows
            // start on 16 bytes.
            let a = unsafe { load_vector(g.a, g.lda, g.m, g.k, m0 + m as u64, k0 + k as u64, a_aligned) };
            for (q, &x) in a.iter().enumerate() {
                // SAFETY: the layout's slots for this thread lie inside the tile the launch gives;
                // the caller orders the writes (the barriers around each step).
                unsafe { smem.write(s.a_at(layout, m, k + q as u32) as usize, x) };
            }
        }
    }
    for i in 0..loads_b {
        if let Some((k, n)) = s.b_vector(t, i) {
            // SAFETY: as for `A`: `g.b` holds `B` with leading dimension `g.ldb`, and `n` is a
            // multiple of `VEC`.
            let b = unsafe { load_vector(g.b, g.ldb, g.k, g.n, k0 + k as u64, n0 + n as u64, b_aligned) };
            // SAFETY: a `VEC`-aligned slot of the tile for this thread, inside it; the caller
            // orders the writes.
            unsafe { write_vector(smem, s.b_at(layout, k, n), b) };
        }
    }
}

/// The vectorized rungs' body: [`matmul_blocktile_2d`]'s tiles and threads, with vector loads
/// and the `A` tile stored transposed in `layout`.
#[inline(always)]
unsafe fn vectorized<T: Scalar>(layout: ATile, g: Gemm<T>) {
    let s = const {
        let s = blocktile_2d(size_of::<T>() as u32);
        assert!(s.tm as usize <= MAX_SUB && s.tn as usize <= MAX_SUB);
        s
    };
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    let (row0, col0) = s.c_role(t);
    let aligned = (rows_aligned(g.a, g.lda), rows_aligned(g.b, g.ldb));
    for_each_tile(g.n.div_ceil(s.bn as u64), g.m.div_ceil(s.bm as u64), |tn, tm| {
        let (m0, n0) = (tm * s.bm as u64, tn * s.bn as u64);
        let mut acc = [[T::ZERO; MAX_SUB]; MAX_SUB];
        let mut k0 = 0;
        while k0 < g.k {
            // SAFETY: `g` is the rung's matrices (its contract), the launch gives the tile, and the
            // barrier below and the one that ends the step order the staged slots with their reads.
            unsafe { stage_vectors(&g, s, layout, smem, t, (m0, n0, k0), aligned) };
            sync_threads();
            for d in 0..s.bk {
                let mut a = [[T::ZERO; VEC as usize]; MAX_SUB / VEC as usize];
                for v in 0..(s.tm / VEC) as usize {
                    // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the
                    // barrier above and not again before the barrier that ends the step.
                    a[v] = unsafe { read_vector(smem, s.a_at(layout, row0 + v as u32 * VEC, d)) };
                }
                let mut b = [[T::ZERO; VEC as usize]; MAX_SUB / VEC as usize];
                for v in 0..(s.tn / VEC) as usize {
                    // SAFETY: slots of the tile (`bankwise_layout::matmul`), written before the
                    // barrier above and not again before the barrier that ends the step.
                    b[v] = unsafe { read_vector(smem, s.b_at(layout, d, col0 + v as u32 * VEC)) };
                }
                for i in 0..s.tm as usize {
                    let a = a[i / VEC as usize][i % VEC as usize];
                    for j in 0..s.tn as usize {
                        acc[i][j] = a.mul_add(b[j / VEC as usize][j % VEC as usize], acc[i][j]);
                    }
                }
            }
            sync_threads();
            k0 += s.bk as u64;
        }
        for i in 0..s.tm as usize {
            for j in 0..s.tn as usize {
                g.finish_inside(m0 + (row0 + i as u32) as u64, n0 + (col0 + j as u32) as u64, acc[i][j]);
            }
        }
    });
}

/// Rung 6, `matmul_vectorized`: [`matmul_blocktile_2d`] with 16-byte vectors (siboehm's
/// kernel 6). Each thread loads its part of each tile from global memory as vectors of [`VEC`]
/// elements (`LDG.E.128`; scalar loads at the matrices' edges and for rows that are not
/// 16-byte aligned), stores `A`'s transposed ([`ATile::Plain`]) so that a thread's rows of `A`
/// lie side by side, and reads its rows of `A` and columns of `B` as `LDS.128`.
///
/// Changes from rung 5: the transposed `A` tile and the vector accesses: 4 shared loads per
/// step instead of 16 (`f32`). Bank conflicts: the four scalar stores of a loaded `A` vector
/// put lanes `2i` and `2i + 1` (the same row, `k` 4 apart) in the same bank; the `B` reads
/// keep rung 5's pattern (16 vectors 32 bytes apart).
///
/// Measured (H100): 20.53 TFLOP/s f32 at 4096³, 5% *slower* than rung 5 for a quarter of its
/// shared loads: at one block of 8 warps per SM (139 registers) the loop is bound by latency,
/// not by shared-memory issue (not yet profiled further); f64 8.83.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Plain)` elements of shared memory.
#[inline(always)]
pub unsafe fn matmul_vectorized<T: Scalar>(g: Gemm<T>) {
    // SAFETY: this rung's contract (its `# Safety`) is what `vectorized` needs.
    unsafe { vectorized(ATile::Plain, g) }
}

/// Rung 7a, `matmul_vectorized_padded`: [`matmul_vectorized`] with each row of the transposed
/// `A` tile padded by one vector ([`ATile::Padded`]), so rows `k` and `k + 4` start 16 banks
/// apart and the transposing stores are conflict-free, for 128 bytes more shared memory
/// (`f32`).
///
/// Measured (H100): 1.60 store wavefronts per request against rung 6's 2.40 (`f32`), and
/// TFLOP/s at 4096³ within noise of rung 6 (20.64 against 20.53): its stores are 1 in 7 of the
/// shared requests.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Padded)` elements of shared memory.
#[inline(always)]
pub unsafe fn matmul_vectorized_padded<T: Scalar>(g: Gemm<T>) {
    // SAFETY: this rung's contract (its `# Safety`) is what `vectorized` needs.
    unsafe { vectorized(ATile::Padded, g) }
}

/// Rung 7b, `matmul_vectorized_swizzled`: [`matmul_vectorized`] with the columns of rows
/// `4 ..= 7` of the transposed `A` tile XORed with 16 ([`ATile::Swizzled`]): the stores
/// conflict-free as with padding, in no extra memory, for an XOR per index.
///
/// Measured (H100): the same 1.60 store wavefronts per request as padding, and the same speed
/// within noise (20.48 against 20.64 TFLOP/s at 4096³; earlier runs put it ahead:
/// `docs/decisions.md`). Neither layout is measurably faster; the later rungs pad
/// (`WARPTILE_A`), which keeps their index arithmetic free of the XOR.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Swizzled)` elements of shared
/// memory.
#[inline(always)]
pub unsafe fn matmul_vectorized_swizzled<T: Scalar>(g: Gemm<T>) {
    // SAFETY: this rung's contract (its `# Safety`) is what `vectorized` needs.
    unsafe { vectorized(ATile::Swizzled, g) }
}

/// One step through `k` of thread `t`'s warp tiles: its `A` and `B` fragments read as vectors
/// from `a_at(m)` and `b_at(n)` (the shared-memory indices of the step's row of each tile), and
/// their outer products added to `acc`: `MI × NI` sub-tiles of `VEC × VEC`, of which
/// `w.wmiter × w.wniter` are used. Callers size the arrays per tile shape: LLVM drops unused
/// elements, but they change how it numbers registers, and ptxas schedules the same PTX
/// differently under other numbers (the tuned rung's square tiles ran slower:
/// `docs/decisions.md`).
///
/// # Safety
/// As [`read_vector`], for every fragment.
#[inline(always)]
pub(super) unsafe fn warp_step<T: Scalar, const MI: usize, const NI: usize>(
    w: WarpTiles,
    t: u32,
    smem: SharedSlice<T>,
    a_at: impl Fn(u32) -> u32,
    b_at: impl Fn(u32) -> u32,
    acc: &mut [[[[T; VEC as usize]; VEC as usize]; NI]; MI],
) {
    let mut a = [[T::ZERO; VEC as usize]; MI];
    for i in 0..w.wmiter as usize {
        // SAFETY: the warp tile's `VEC`-aligned slots, inside the tile (the caller's `a_at`,
        // `b_at`: `bankwise_layout::matmul`); the caller orders them with the writes (this
        // function's contract).
        a[i] = unsafe { read_vector(smem, a_at(w.c_origin(t, i as u32, 0).0)) };
    }
    let mut b = [[T::ZERO; VEC as usize]; NI];
    for j in 0..w.wniter as usize {
        // SAFETY: as for `A`.
        b[j] = unsafe { read_vector(smem, b_at(w.c_origin(t, 0, j as u32).1)) };
    }
    for i in 0..w.wmiter as usize {
        for j in 0..w.wniter as usize {
            for p in 0..VEC as usize {
                for q in 0..VEC as usize {
                    acc[i][j][p][q] = a[i][p].mul_add(b[j][q], acc[i][j][p][q]);
                }
            }
        }
    }
}

/// Sub-tiles per lane down and across a warp's part of the block's tile in
/// [`matmul_warptile`], at most (`f64` uses 2 × 1).
const WARPTILE_ITER: usize = 2;

/// Rung 8, `matmul_warptile`: the block's tiles and loads of [`matmul_vectorized_padded`], with
/// the threads' sub-tiles arranged by warp (siboehm's warp tiling; CUTLASS's thread layout).
/// Each warp owns a 64 × 32 part of the block's tile (`f32`; 64 × 16 for `f64`); each lane
/// computes 2 × 2 sub-tiles of 4 × 4 spread over it (2 × 1 for `f64`), so that per step the 32
/// lanes read 8 consecutive vectors of the `A` tile and 4 of the `B` tile
/// (`bankwise_layout::matmul::warptile`).
///
/// Changes from rung 7: only which elements of `C` each thread computes. The shared reads
/// become conflict-free (the least wavefronts their bytes need) and a warp's reads of both
/// tiles stay within 64 rows and 32 columns.
///
/// Its lanes run row-major (`bankwise_layout::matmul::Lanes::RowMajor`, 8 down × 4 across):
/// a read of the `A` tile takes 2 wavefronts, one of the `B` tile 4, as the `LDS.128` merge
/// rule has it. Rung 9 interleaves them (2 each), which measured slower here: at 128 registers
/// ptxas makes more instructions of it (`docs/decisions.md`).
///
/// Measured (H100): 3.00 load wavefronts per request against rung 7's 5.00. 128 registers on
/// sm_90 (`f32`): two blocks of 8 warps per SM, 34.19 TFLOP/s at 4096³ (65.9% of cuBLAS,
/// 1.7× rung 7a); `f64` 9.25 at 132 registers, one block per SM.
///
/// # Safety
/// As [`matmul_vectorized_padded`].
#[inline(always)]
pub unsafe fn matmul_warptile<T: Scalar>(g: Gemm<T>) {
    let w = const {
        let w = warptile(size_of::<T>() as u32);
        assert!(w.wmiter as usize <= WARPTILE_ITER && w.wniter as usize <= WARPTILE_ITER && w.tm == VEC && w.tn == VEC);
        w
    };
    let (s, layout) = (w.tiles, WARPTILE_A);
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    let aligned = (rows_aligned(g.a, g.lda), rows_aligned(g.b, g.ldb));
    for_each_tile(g.n.div_ceil(s.bn as u64), g.m.div_ceil(s.bm as u64), |tn, tm| {
        let (m0, n0) = (tm * s.bm as u64, tn * s.bn as u64);
        let mut acc = [[[[T::ZERO; VEC as usize]; VEC as usize]; WARPTILE_ITER]; WARPTILE_ITER];
        let mut k0 = 0;
        while k0 < g.k {
            // SAFETY: as in `vectorized`: `g` is the rung's matrices, the launch gives the tile,
            // and the barriers order the staged slots with their reads.
            unsafe { stage_vectors(&g, s, layout, smem, t, (m0, n0, k0), aligned) };
            sync_threads();
            for d in 0..s.bk {
                let (a_at, b_at) = (|m| s.a_at(layout, m, d), |n| s.b_at(layout, d, n));
                // SAFETY: the warp tiling's slots lie inside the tile, staged before the barrier
                // above and not written again before the barrier that ends the step.
                unsafe { warp_step(w, t, smem, a_at, b_at, &mut acc) };
            }
            sync_threads();
            k0 += s.bk as u64;
        }
        for i in 0..w.wmiter as usize {
            for j in 0..w.wniter as usize {
                let (r0, c0) = w.c_origin(t, i as u32, j as u32);
                for p in 0..VEC as usize {
                    for q in 0..VEC as usize {
                        g.finish_inside(m0 + (r0 + p as u32) as u64, n0 + (c0 + q as u32) as u64, acc[i][j][p][q]);
                    }
                }
            }
        }
    });
}
