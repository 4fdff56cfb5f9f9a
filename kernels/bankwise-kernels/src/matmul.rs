//! The matrix multiply ladder: `C = α·A·B + β·C`, row-major, each matrix with its own leading
//! dimension (`bankwise_layout::matmul`). Each rung is a named kernel that changes one thing
//! from the one before; the host launches them through `bankwise::Gpu::matmul_with`.
//!
//! The first three rungs give each thread one element of `C`; from [`matmul_blocktile_1d`] on,
//! a thread accumulates several in registers. Every rung reads `C` only where `β ≠ 0`, as BLAS
//! does, so that `β = 0` overwrites whatever `C` held, NaN included.

// The register-tiled rungs index their accumulators with loop counters over constant ranges:
// LLVM unrolls those and keeps the arrays in registers, where iterator chains (`zip` over
// arrays by value) left them in local memory (measured: 416-byte stack frames).
#![allow(clippy::needless_range_loop)]

use core::mem::transmute_copy;
use core::ops::{Add, Mul};

use bankwise_device::Plain;
use bankwise_device::float::{fma_f32, fma_f64};
use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::pipeline;
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{
    block_dim_x, block_x, block_y, grid_dim_x, grid_dim_y, sync_threads, thread_x, thread_y,
};
use bankwise_layout::matmul::{
    ATile, BlockTiles, Lanes, MULTISTAGE_STAGES, TILE, TunedTiles, VEC, WARPTILE_A, WarpTiles, a_tile, at, b_tile,
    blocktile_2d, grouped_tile, multistage, tiles, tuned, warptile,
};

use crate::Vector;

/// An element type of the matrix multiply: `f32` or `f64`.
pub trait Scalar: Plain + Copy + PartialEq + Add<Output = Self> + Mul<Output = Self> {
    /// The additive identity.
    const ZERO: Self;
    /// `self·b + c`, fused (`FFMA`/`DFMA`), as CUDA C++ compiles `c += a * b`.
    fn mul_add(self, b: Self, c: Self) -> Self;
}

impl Scalar for f32 {
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        fma_f32(self, b, c)
    }
}

impl Scalar for f64 {
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f64, c: f64) -> f64 {
        fma_f64(self, b, c)
    }
}

/// The arguments every rung takes, in their order: `C` (`m × n`, leading dimension `ldc`),
/// `A` (`m × k`, `lda`), `B` (`k × n`, `ldb`), and `α`, `β`.
#[derive(Clone, Copy)]
pub struct Gemm<T> {
    /// `C`, `m × n`.
    pub c: *mut T,
    /// `A`, `m × k`.
    pub a: *const T,
    /// `B`, `k × n`.
    pub b: *const T,
    /// Rows of `A` and `C`.
    pub m: u64,
    /// Columns of `B` and `C`.
    pub n: u64,
    /// Columns of `A`, rows of `B`.
    pub k: u64,
    /// Elements between rows of `A`.
    pub lda: u64,
    /// Elements between rows of `B`.
    pub ldb: u64,
    /// Elements between rows of `C`.
    pub ldc: u64,
    /// The product's factor.
    pub alpha: T,
    /// `C`'s factor; `C` is not read where it is 0.
    pub beta: T,
}

impl<T: Scalar> Gemm<T> {
    /// Writes `α·dot + β·C[r][c]`, reading `C` only where `β ≠ 0`.
    ///
    /// # Safety
    /// `(r, c)` is inside `C`.
    #[inline(always)]
    unsafe fn finish(&self, r: u64, c: u64, dot: T) {
        let at_c = unsafe { self.c.add(at(r, c, self.ldc) as usize) };
        let scaled = self.alpha * dot;
        let value =
            if self.beta == T::ZERO { scaled } else { self.beta.mul_add(unsafe { global::read(at_c) }, scaled) };
        unsafe { global::write(at_c, value) };
    }

    /// `A[r][c]`, or zero outside `A` (the tiles' padding past its edges).
    #[inline(always)]
    #[track_caller]
    fn a_or_zero(&self, r: u64, c: u64) -> T {
        // Safety: `(r, c)` is inside `A`, which the launch's contract says `a` holds.
        if r < self.m && c < self.k {
            unsafe { global::read(self.a.add(at(r, c, self.lda) as usize)) }
        } else {
            T::ZERO
        }
    }

    /// `B[r][c]`, or zero outside `B`.
    #[inline(always)]
    #[track_caller]
    fn b_or_zero(&self, r: u64, c: u64) -> T {
        // Safety: `(r, c)` is inside `B`, which the launch's contract says `b` holds.
        if r < self.k && c < self.n {
            unsafe { global::read(self.b.add(at(r, c, self.ldb) as usize)) }
        } else {
            T::ZERO
        }
    }

    /// [`finish`](Self::finish) where `(r, c)` is inside `C`; nothing outside it.
    #[inline(always)]
    fn finish_inside(&self, r: u64, c: u64, dot: T) {
        if r < self.m && c < self.n {
            // Safety: `(r, c)` is inside `C`.
            unsafe { self.finish(r, c, dot) };
        }
    }

    /// `Σ_i A[r][i]·B[i][c]`, straight from global memory.
    ///
    /// # Safety
    /// `(r, c)` is inside `C`.
    #[inline(always)]
    unsafe fn dot(&self, r: u64, c: u64) -> T {
        let mut sum = T::ZERO;
        for i in 0..self.k {
            let (x, y) = unsafe {
                (
                    global::read(self.a.add(at(r, i, self.lda) as usize)),
                    global::read(self.b.add(at(i, c, self.ldb) as usize)),
                )
            };
            sum = x.mul_add(y, sum);
        }
        sum
    }
}

/// Visits the origin `(row tile, column tile)` of every tile of `C` this block owns, with the
/// grid's x over `x_tiles` and y over `y_tiles` (grid-stride: grids are capped).
#[inline(always)]
fn for_each_tile(x_tiles: u64, y_tiles: u64, mut f: impl FnMut(u64, u64)) {
    let mut tx = block_x() as u64;
    while tx < x_tiles {
        let mut ty = block_y() as u64;
        while ty < y_tiles {
            f(tx, ty);
            ty += grid_dim_y() as u64;
        }
        tx += grid_dim_x() as u64;
    }
}

/// Rung 1, `matmul_naive`: one thread per element of `C`, thread `x` running *down* `C`'s rows
/// (siboehm's first SGEMM kernel). CUDA C++: `row = blockIdx.x*32 + threadIdx.x`.
///
/// Teaches: what uncoalesced costs. The 32 lanes of a warp read 32 different rows of `A` (32
/// sectors per load instead of one broadcast) and write 32 rows of `C`.
///
/// Measured (H100, 2026-11-23, beside cuBLAS in the same run): 0.50 TFLOP/s f32 and 0.49 f64
/// at 4096³, 1.0% and 0.8% of cuBLAS. At 4095×4097×4093 it runs 3× faster (1.55 TFLOP/s),
/// likely because rows 4096 elements apart put a warp's 32 rows on the same few L2 slices (not
/// yet profiled).
///
/// # Safety
/// The matrices hold their shapes with their leading dimensions; block `TILE × TILE`, grid
/// `bankwise_layout::matmul::grid_rows_in_x`.
#[inline(always)]
pub unsafe fn matmul_naive<T: Scalar>(g: Gemm<T>) {
    for_each_tile(tiles(g.m), tiles(g.n), |tm, tn| {
        let (r, c) = (tm * TILE as u64 + thread_x() as u64, tn * TILE as u64 + thread_y() as u64);
        if r < g.m && c < g.n {
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
/// Measured (H100): 3.61 TFLOP/s f32 at 4096³ (7.2× rung 1, 7.0% of cuBLAS), 6.08 at 2048³
/// (12.2%); f64 1.86 (3.1%).
///
/// # Safety
/// As [`matmul_naive`], with grid `bankwise_layout::matmul::grid_columns_in_x`.
#[inline(always)]
pub unsafe fn matmul_coalesced<T: Scalar>(g: Gemm<T>) {
    for_each_tile(tiles(g.n), tiles(g.m), |tn, tm| {
        let (r, c) = (tm * TILE as u64 + thread_y() as u64, tn * TILE as u64 + thread_x() as u64);
        if r < g.m && c < g.n {
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
/// Measured (H100): 6.15 TFLOP/s f32 at 4096³ (1.7× rung 2, 11.9% of cuBLAS's 51.7), 7.47 at
/// 2048³ (15.0%); f64 3.92 (6.4%; 11.7% of the FP64 CUDA cores' peak). ptxas merges a thread's
/// reads of four adjacent `A` elements into one `LDS.128`. Each thread still loads
/// two shared-memory values per multiply-add, which now bounds it: the next rungs give each
/// thread a tile of `C` in registers.
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
            unsafe {
                smem.write(a_tile(ty, tx) as usize, a);
                smem.write(b_tile(ty, tx) as usize, b);
            }
            sync_threads();
            for i in 0..TILE {
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

/// Rung 4, `matmul_blocktile_1d`: each thread computes [`TM`](blocktile_1d::TM) elements of `C`
/// down one column, accumulated in registers (siboehm's 1-D block tiling). A block of 512
/// threads owns a 64 × 64 tile of `C`; `k` advances 8 at a time through a 64 × 8 tile of `A`
/// and an 8 × 64 tile of `B` in shared memory, one element of each loaded per thread
/// (`bankwise_layout::matmul::blocktile_1d`).
///
/// Changes from rung 3: per step through `k`, a thread reads one `B` element from shared
/// memory and reuses it for its `TM` multiply-adds, so shared-memory loads per multiply-add
/// fall from 2 to 1 + 1/`TM`; and each element loaded from global memory serves 64 threads'
/// worth of results instead of 32. Bank conflicts: a warp's 32 threads share their rows of the
/// `A` tile (a broadcast) and read 32 consecutive `B` elements: conflict-free.
///
/// Measured (H100, 2026-11-23): 17.41 TFLOP/s f32 at 4096³ (2.8× rung 3, 33.7% of cuBLAS,
/// 26% of the CUDA cores' peak), 16.23 at 1024³ (44.6%); f64 6.87 (11.3%; 20.5% of its peak).
/// 64 registers (f32), 68 (f64) on sm_90, no spills: four blocks per SM. With its 64 × 64 tiles
/// it is the fastest rung where the later rungs' 128 × 128 tiles are fewer than the SMs
/// (1024³, 256×4096×4096).
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
            unsafe {
                smem.write(a_at(ar, ac) as usize, a);
                smem.write(b_at(br, bc) as usize, b);
            }
            sync_threads();
            for d in 0..BK {
                let b = unsafe { smem.read(b_at(d, col) as usize) };
                for (i, acc) in acc.iter_mut().enumerate() {
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

/// Whether every row of the matrix at `p` with leading dimension `ld` starts on 16 bytes, so
/// that [`VEC`] elements from a column that is a multiple of [`VEC`] are whole 16-byte vectors.
#[inline(always)]
fn rows_aligned<T>(p: *const T, ld: u64) -> bool {
    p.addr().is_multiple_of(16) && (ld * size_of::<T>() as u64).is_multiple_of(16)
}

/// [`VEC`] elements from the 16-byte words that hold them: the first for `f32`, both for
/// `f64`. Each size is copied from a value of the same size, which LLVM keeps in registers.
///
/// # Safety
/// `T` is `f32` or `f64` (any bits are a value of either).
#[inline(always)]
unsafe fn from_words<T: Scalar>(w: [[u32; 4]; 2]) -> [T; 4] {
    if size_of::<T>() == 4 { unsafe { transmute_copy(&w[0]) } } else { unsafe { transmute_copy(&w) } }
}

/// The 16-byte words that hold [`VEC`] elements, as [`from_words`] takes them.
#[inline(always)]
fn to_words<T: Scalar>(v: [T; 4]) -> [[u32; 4]; 2] {
    // Safety: same sizes; `f32` and `f64` have no padding.
    if size_of::<T>() == 4 { [unsafe { transmute_copy(&v) }, [0; 4]] } else { unsafe { transmute_copy(&v) } }
}

/// Elements `(r, c .. c + VEC)` of the row-major `rows × cols` matrix at `p`, zero past its
/// edges: 16-byte loads (`LDG.E.128`, one for `f32`, two for `f64`) where `aligned`
/// ([`rows_aligned`]) and the vector is inside the matrix, scalar loads otherwise.
///
/// # Safety
/// `p` holds the matrix with leading dimension `ld`; `c` is a multiple of [`VEC`].
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
unsafe fn load_vector<T: Scalar>(p: *const T, ld: u64, rows: u64, cols: u64, r: u64, c: u64, aligned: bool) -> [T; 4] {
    let mut v = [T::ZERO; VEC as usize];
    if r < rows {
        let row = unsafe { p.add(at(r, 0, ld) as usize) };
        if aligned && c + VEC as u64 <= cols {
            v = unsafe { read_global_vector(row.add(c as usize)) };
        } else {
            for (i, x) in v.iter_mut().enumerate() {
                let ci = c + i as u64;
                if ci < cols {
                    *x = unsafe { global::read(row.add(ci as usize)) };
                }
            }
        }
    }
    v
}

/// The `VEC` elements at `p` as 16-byte global loads (`LDG.E.128`; two for `f64`).
///
/// # Safety
/// `p` is 16-byte aligned and holds `VEC` elements.
#[inline(always)]
#[track_caller]
unsafe fn read_global_vector<T: Scalar>(p: *const T) -> [T; 4] {
    let words = p.cast::<[u32; 4]>();
    let w = unsafe { [load_global_v4(words), if size_of::<T>() == 8 { load_global_v4(words.add(1)) } else { [0; 4] }] };
    unsafe { from_words(w) }
}

/// Elements `i .. i + VEC` of `s` as 16-byte shared loads (`LDS.128`; two for `f64`).
///
/// # Safety
/// `i` is a multiple of [`VEC`], the elements are inside `s`, and as [`SharedSlice::read`].
#[inline(always)]
#[track_caller]
unsafe fn read_vector<T: Scalar>(s: SharedSlice<T>, i: u32) -> [T; 4] {
    // Each 16-byte word from an element handle (`Shared::cast`), so that the address is
    // element `i`'s and folds with the caller's constant offsets.
    let word = |j: u32| unsafe { s.at(j as usize).cast::<Vector>().read().0 };
    let w = [word(i), if size_of::<T>() == 8 { word(i + 2) } else { [0; 4] }];
    unsafe { from_words(w) }
}

/// Writes `v` to elements `i .. i + VEC` of `s` as 16-byte shared stores (`STS.128`).
///
/// # Safety
/// As [`read_vector`], with [`SharedSlice::write`].
#[inline(always)]
#[track_caller]
unsafe fn write_vector<T: Scalar>(s: SharedSlice<T>, i: u32, v: [T; 4]) {
    let w = to_words(v);
    unsafe { s.at(i as usize).cast::<Vector>().write(Vector(w[0])) };
    if size_of::<T>() == 8 {
        unsafe { s.at(i as usize + 2).cast::<Vector>().write(Vector(w[1])) };
    }
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
/// Measured (H100, 2026-11-23): 21.50 TFLOP/s f32 at 4096³ (1.23× rung 4, 41.6% of cuBLAS);
/// f64 10.36 (31% of its peak, the fastest `f64` rung at every measured shape). 204 registers
/// (f32) on sm_90: one block of 8 warps per SM, which bounds this rung and the next ones
/// (`docs/benchmarks.md`).
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
                unsafe { smem.write(s.a_at(layout, m, k) as usize, a) };
            }
            for i in 0..loads_b {
                let (k, n) = s.b_load(t, i);
                let b = g.b_or_zero(k0 + k as u64, n0 + n as u64);
                unsafe { smem.write(s.b_at(layout, k, n) as usize, b) };
            }
            sync_threads();
            for d in 0..s.bk {
                let mut b = [T::ZERO; MAX_SUB];
                for j in 0..s.tn as usize {
                    b[j] = unsafe { smem.read(s.b_at(layout, d, col0 + j as u32) as usize) };
                }
                for i in 0..s.tm as usize {
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
            let a = unsafe { load_vector(g.a, g.lda, g.m, g.k, m0 + m as u64, k0 + k as u64, a_aligned) };
            for (q, &x) in a.iter().enumerate() {
                unsafe { smem.write(s.a_at(layout, m, k + q as u32) as usize, x) };
            }
        }
    }
    for i in 0..loads_b {
        if let Some((k, n)) = s.b_vector(t, i) {
            let b = unsafe { load_vector(g.b, g.ldb, g.k, g.n, k0 + k as u64, n0 + n as u64, b_aligned) };
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
            unsafe { stage_vectors(&g, s, layout, smem, t, (m0, n0, k0), aligned) };
            sync_threads();
            for d in 0..s.bk {
                let mut a = [[T::ZERO; VEC as usize]; MAX_SUB / VEC as usize];
                for v in 0..(s.tm / VEC) as usize {
                    a[v] = unsafe { read_vector(smem, s.a_at(layout, row0 + v as u32 * VEC, d)) };
                }
                let mut b = [[T::ZERO; VEC as usize]; MAX_SUB / VEC as usize];
                for v in 0..(s.tn / VEC) as usize {
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
/// Measured (H100, 2026-11-23): 20.44 TFLOP/s f32 at 4096³, 5% *slower* than rung 5 for a
/// quarter of its shared loads: at one block of 8 warps per SM (139 registers) the loop is
/// bound by latency, not by shared-memory issue (not yet profiled further); f64 8.86.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Plain)` elements of shared memory.
#[inline(always)]
pub unsafe fn matmul_vectorized<T: Scalar>(g: Gemm<T>) {
    unsafe { vectorized(ATile::Plain, g) }
}

/// Rung 7a, `matmul_vectorized_padded`: [`matmul_vectorized`] with each row of the transposed
/// `A` tile padded by one vector ([`ATile::Padded`]), so rows `k` and `k + 4` start 16 banks
/// apart and the transposing stores are conflict-free, for 128 bytes more shared memory
/// (`f32`).
///
/// Measured (H100, 2026-11-23): store wavefronts per request 2.40 → 1.60 (`f32`), and
/// TFLOP/s at 4096³ within noise of rung 6 (20.65 against 20.44; 20.10 to 20.65 over three
/// runs): its stores are 1 in 7 of the shared requests.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Padded)` elements of shared memory.
#[inline(always)]
pub unsafe fn matmul_vectorized_padded<T: Scalar>(g: Gemm<T>) {
    unsafe { vectorized(ATile::Padded, g) }
}

/// Rung 7b, `matmul_vectorized_swizzled`: [`matmul_vectorized`] with the columns of rows
/// `4 ..= 7` of the transposed `A` tile XORed with 16 ([`ATile::Swizzled`]): the stores
/// conflict-free as with padding, in no extra memory, for an XOR per index.
///
/// Measured (H100, 2026-11-23): the same 1.60 store wavefronts per request as padding, and
/// the same speed within noise: 20.43 against 20.10 TFLOP/s at 4096³ in one run, 20.49 against
/// 20.65 in each of the two latest. Neither layout is measurably faster; the later rungs pad
/// (`WARPTILE_A`), which keeps their index arithmetic free of the XOR.
///
/// # Safety
/// As [`matmul_blocktile_2d`], with `shared_elements(ATile::Swizzled)` elements of shared
/// memory.
#[inline(always)]
pub unsafe fn matmul_vectorized_swizzled<T: Scalar>(g: Gemm<T>) {
    unsafe { vectorized(ATile::Swizzled, g) }
}

/// One step through `k` of thread `t`'s warp tiles: its `A` and `B` fragments read as vectors
/// from `a_at(m)` and `b_at(n)` (the shared-memory indices of the step's row of each tile), and
/// their outer products added to `acc`: `MI × NI` sub-tiles of `VEC × VEC`, of which
/// `w.wmiter × w.wniter` are used. Callers size the arrays per tile shape: LLVM drops unused
/// elements, but they change how it numbers registers, and ptxas schedules the same PTX
/// differently under other numbers (the tuned rung's square tiles: 7% slower at 4096³).
///
/// # Safety
/// As [`read_vector`], for every fragment.
#[inline(always)]
unsafe fn warp_step<T: Scalar, const MI: usize, const NI: usize>(
    w: WarpTiles,
    t: u32,
    smem: SharedSlice<T>,
    a_at: impl Fn(u32) -> u32,
    b_at: impl Fn(u32) -> u32,
    acc: &mut [[[[T; VEC as usize]; VEC as usize]; NI]; MI],
) {
    let mut a = [[T::ZERO; VEC as usize]; MI];
    for i in 0..w.wmiter as usize {
        a[i] = unsafe { read_vector(smem, a_at(w.c_origin(t, i as u32, 0).0)) };
    }
    let mut b = [[T::ZERO; VEC as usize]; NI];
    for j in 0..w.wniter as usize {
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
/// rule has it; rung 9 interleaves them (2 each), which measured slower here (31.46 against
/// 33.79 TFLOP/s at 4096³, 2026-11-24; at 128 registers ptxas made 2176 instructions of it
/// against 2144).
///
/// Measured (H100, 2026-11-24): load wavefronts per request 5.00 → 3.00. 128 registers on
/// sm_90 (`f32`): two blocks of 8 warps per SM, 34.26 TFLOP/s at 4096³ (65.9% of cuBLAS,
/// 1.7× rung 7a); `f64` 9.27 at 132 registers, one block per SM.
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
            unsafe { stage_vectors(&g, s, layout, smem, t, (m0, n0, k0), aligned) };
            sync_threads();
            for d in 0..s.bk {
                let (a_at, b_at) = (|m| s.a_at(layout, m, d), |n| s.b_at(layout, d, n));
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

/// Writes `VEC` elements to global memory at `p` as 16-byte stores (`STG.E.128`; two for
/// `f64`).
///
/// # Safety
/// `p` is 16-byte aligned and holds `VEC` elements.
#[inline(always)]
#[track_caller]
unsafe fn store_vector<T: Scalar>(p: *mut T, v: [T; 4]) {
    let words = p.cast::<[u32; 4]>();
    let w = to_words(v);
    unsafe { store_global_v4(words, w[0]) };
    if size_of::<T>() == 8 {
        unsafe { store_global_v4(words.add(1), w[1]) };
    }
}

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
                    unsafe { smem.write(at(x, k + q) as usize, regs[i][q as usize]) };
                }
            } else {
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
    unsafe {
        put_operand(tt, s.bm, a_along_k, t, smem, ra, |m, k| tt.a_at(stage, m, k));
        put_operand(tt, s.bn, b_along_k, t, smem, rb, |n, k| tt.b_at(stage, k, n));
    }
}

/// The product of the batch and the tile of its `C` (`(m0, n0)`, `bm × bn` from `s`) this
/// block computes, `None` for a block past them: one tile per block, one product per row of
/// blocks, as in [`matmul_tuned`].
///
/// # Safety
/// Product `batch.first + block_y()` of the batch lies inside the buffers, where it exists.
#[inline(always)]
unsafe fn block_product<T: Scalar>(g: Gemm<T>, batch: Batch, s: BlockTiles) -> Option<(Gemm<T>, (u64, u64))> {
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

/// Rung 9, `matmul_tuned`: [`matmul_warptile`]'s warp tiles with the loads of the next step
/// overlapped with the computation of this one, `C = α·op(A)·op(B) + β·C` with `op ∈ {N, T}`
/// (`TRANS_A`, `TRANS_B`), over a strided batch.
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
/// checks ([`fetch_whole`]); a partial last row of tiles takes the checked path. The checked loads' 64-bit compares and branches carry fixed
/// stalls of up to 13 cycles and fall in the same phase of every warp, after the barrier:
/// Nsight Compute at 4096³ (wide tiles) counted 0.24 cycles of `wait` stall per issued
/// instruction with them, 0.13 without (cuBLAS's kernel 0.01), issue slots busy 77.6% → 79.5%
/// (cuBLAS 90.1%), 2.47 G → 2.37 G instructions (cuBLAS 2.43 G). The other entries keep the
/// checked loads alone: beside the unchecked path, ptxas made their checked path 10% slower.
///
/// Lanes (`bankwise_layout::matmul::Lanes`, the entry's `INTERLEAVED`): interleaved in every
/// entry but the square `f32` ones without the whole-tile path, so that both tiles' `LDS.128`
/// fragment reads take 2 wavefronts instead of 2 (`A`) and 4 (`B`), as Nsight Compute counts.
/// Measured at 4096³ beside the row-major build the same day: wide whole tiles 46.56 → 47.74
/// NN, 45.88 → 47.16 NT, 48.09 → 47.23 TN, 45.74 → 45.86 TT; square whole tiles 44.43 →
/// 44.94 NN, 40.45 → 43.14 NT, 45.25 → 48.25 TN, 44.40 → 45.59 TT; `f64` TN 18.32 → 19.44,
/// at 4095×4097×4093 15.73 → 17.58. The square `f32` entries without the whole-tile path
/// (128 registers) lost 6% at 4095×4097×4093 (39.86 → 37.67: ptxas re-reads the thread index
/// inside the loop), so they keep row-major lanes.
///
/// Measured (H100, 2026-11-24, beside cuBLAS in the same run), `f32` with the plan the host
/// picks: 48.01 TFLOP/s at 4096³ (92.7% of cuBLAS; 1.41× rung 8), 46.75 at 2048³ (93.4%),
/// 41.45 at 4096×4096×256 (94.3%); with `k` split, 30.46 at 1024³ (86.3%) and 42.45 at
/// 256×4096×4096 (90.2%); 41.62 at 4095×4097×4093 (86.7%: wide whole tiles over 4096 columns
/// and the last column apart, `bankwise::matmul::TunedPlan::strip`, after the host copied both
/// operands to aligned rows; square tiles without a strip 40.84, reading in place 39.08).
/// `f64` 12.32 at 4096³ (36.8% of the FP64 CUDA cores' peak; TN 19.32).
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
    unsafe {
        fetch_tiles(tt, t, &g, along_k, aligned, (m0, n0, 0), &mut ra, &mut rb);
        put_tiles(tt, t, smem, along_k, 0, &ra, &rb);
    }
    sync_threads();
    let steps = g.k.div_ceil(s.bk as u64);
    // The `WHOLE` entries load every step of a block whose tiles lie whole inside `A` and `B`,
    // rows aligned, but a partial last one, without bounds checks (`fetch_whole`); the others
    // always check (adding the unchecked path slowed their checked one by 10%).
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
            unsafe { fetch_tiles(tt, t, &g, along_k, aligned, (m0, n0, k0), &mut ra, &mut rb) };
        }
        for d in 0..s.bk {
            let (a_at, b_at) = (|m| tt.a_at(stage, m, d), |n| tt.b_at(stage, d, n));
            unsafe { warp_step(w, t, smem, a_at, b_at, &mut acc) };
        }
        if more {
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

/// [`Gemm::finish`] of thread `t`'s warp-tile results `acc` for the block's tile at
/// `(m0, n0)`: rows of `VEC` as 16-byte accesses where `C`'s rows are aligned (`c_aligned`)
/// and the row's vector is inside `C`, element by element otherwise. ([`matmul_tuned`] writes
/// the same loop out, for the reason its prologue does.)
///
/// # Safety
/// `g.c` holds `C` with its leading dimension.
#[inline(always)]
unsafe fn finish_warp_tiles<T: Scalar, const MI: usize, const NI: usize>(
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

/// Starts thread `t`'s copies of the operand tile `width` wide at `(x0, k0)` of the stored
/// matrix `p` (`x_len` along `x`, `k_len` along `k`, its rows along `k` where `along_k`) into
/// shared memory at `at(x, k)`, zero-filled past the matrix's edges (a source of zero bytes
/// reads nothing; the matrix's start stands in for its address). A tile whose stored rows run
/// along `x` is copied as 16-byte pieces of a row where `aligned` and the piece is inside the
/// matrix (one per vector for `f32`, two for `f64`), element by element otherwise; one whose
/// rows run along `k` element by element ([`TunedTiles::operand_element`]), which transposes
/// it on the way.
///
/// # Safety
/// `p` holds the matrix with leading dimension `ld`; as
/// [`Shared::load_async`](bankwise_device::shared::Shared::load_async), with the
/// caller's waits and barriers ordering the copies.
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_operand<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    smem: SharedSlice<T>,
    (p, ld, aligned): (*const T, u64, bool),
    (x_len, k_len): (u64, u64),
    (x0, k0): (u64, u64),
    at_tile: impl Fn(u32, u32) -> u32,
) {
    let size = size_of::<T>() as u32;
    if along_k {
        for i in 0..tt.element_copies(width) {
            if let Some((x, k)) = tt.operand_element(width, t, i) {
                let (gx, gk) = (x0 + x as u64, k0 + k as u64);
                let inside = gx < x_len && gk < k_len;
                // Safety: inside the matrix where `inside` (the contract).
                let src = if inside { unsafe { p.add(at(gx, gk, ld) as usize) } } else { p };
                unsafe { smem.at(at_tile(x, k) as usize).load_async(src, if inside { size } else { 0 }) };
            }
        }
        return;
    }
    let per_piece = 16 / size;
    for i in 0..tt.vector_loads(width) {
        if let Some((x, k)) = tt.operand_vector(width, false, t, i) {
            let (gx, gk) = (x0 + x as u64, k0 + k as u64);
            for h in 0..VEC / per_piece {
                let first = gx + (h * per_piece) as u64;
                let whole = aligned && gk < k_len && first + per_piece as u64 <= x_len;
                if whole {
                    // Safety: the piece is inside the matrix and 16-byte aligned (`aligned`,
                    // and `first` a multiple of `per_piece`).
                    let src = unsafe { p.add(at(gk, first, ld) as usize) };
                    let dst = unsafe { smem.at((at_tile(x, k) + h * per_piece) as usize).cast::<Vector>() };
                    unsafe { dst.load_async(src.cast::<Vector>(), 16) };
                } else {
                    // Element by element at the edges (compute-sanitizer's memcheck counts a
                    // 16-byte copy as reading 16 bytes, whatever it is told to read).
                    for q in h * per_piece..(h + 1) * per_piece {
                        let inside = gk < k_len && gx + (q as u64) < x_len;
                        // Safety: inside the matrix where `inside`.
                        let src = if inside { unsafe { p.add(at(gk, gx + q as u64, ld) as usize) } } else { p };
                        let dst = unsafe { smem.at((at_tile(x, k) + q) as usize) };
                        unsafe { dst.load_async(src, if inside { size } else { 0 }) };
                    }
                }
            }
        }
    }
}

/// [`copy_operand`] of thread `t`'s parts of both tiles of step `k0` for the block's tile at
/// `(m0, n0)` into stage `stage`.
///
/// # Safety
/// As [`copy_operand`] for `g`'s matrices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_tiles<T: Scalar>(
    tt: TunedTiles,
    t: u32,
    g: &Gemm<T>,
    smem: SharedSlice<T>,
    (a_along_k, b_along_k): (bool, bool),
    (a_aligned, b_aligned): (bool, bool),
    (m0, n0, k0): (u64, u64, u64),
    stage: u32,
) {
    let s = tt.warps.tiles;
    unsafe {
        let a_at = |m, k| tt.a_at(stage, m, k);
        copy_operand(tt, s.bm, a_along_k, t, smem, (g.a, g.lda, a_aligned), (g.m, g.k), (m0, k0), a_at);
        let b_at = |n, k| tt.b_at(stage, k, n);
        copy_operand(tt, s.bn, b_along_k, t, smem, (g.b, g.ldb, b_aligned), (g.n, g.k), (n0, k0), b_at);
    }
}

/// Where thread `t`'s first copy of the operand tile `width` wide at `(x0, 0)` of the stored
/// matrix `p` reads in the first step, as [`copy_operand`] makes it (an element where the
/// stored rows run along `k`, a vector otherwise), and the elements from each of its copies
/// to the next, `(dx, dk)` apart in the tile ([`TunedTiles::copy_step`]); [`copy_whole`] adds
/// each step's offset. Only computed (`wrapping_add`), not read.
#[inline(always)]
fn copy_start<T: Scalar>(
    tt: TunedTiles,
    (width, along_k): (u32, bool),
    (dx, dk): (u32, u32),
    t: u32,
    (p, ld): (*const T, u64),
    x0: u64,
) -> (*const T, u64) {
    let (first, step) = if along_k {
        (tt.operand_element(width, t, 0).map(|(x, k)| at(x0 + x as u64, k as u64, ld)), dx as u64 * ld + dk as u64)
    } else {
        (
            tt.operand_vector(width, false, t, 0).map(|(x, k)| at(k as u64, x0 + x as u64, ld)),
            dk as u64 * ld + dx as u64,
        )
    };
    (first.map_or(p, |e| p.wrapping_add(e as usize)), step)
}

/// [`copy_operand`] for a step whose tile lies whole inside the matrix, its rows starting on
/// 16 bytes: the thread's copies from `src`, `step` elements apart, with no bounds checks.
///
/// # Safety
/// Every copy's source is inside the matrix; as [`copy_operand`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_whole<T: Scalar>(
    tt: TunedTiles,
    width: u32,
    along_k: bool,
    t: u32,
    smem: SharedSlice<T>,
    (mut src, step): (*const T, u64),
    at_tile: impl Fn(u32, u32) -> u32,
) {
    let size = size_of::<T>() as u32;
    // Written out, not `tt.copies(width, along_k)`: LLVM left that call unfolded, the loop not
    // unrolled, and the accumulators in local memory.
    let copies = if along_k { tt.element_copies(width) } else { tt.vector_loads(width) };
    for i in 0..copies {
        if along_k {
            if let Some((x, k)) = tt.operand_element(width, t, i) {
                // Safety: inside the matrix (the contract).
                unsafe { smem.at(at_tile(x, k) as usize).load_async(src, size) };
            }
        } else if let Some((x, k)) = tt.operand_vector(width, false, t, i) {
            let per_piece = 16 / size;
            for h in 0..VEC / per_piece {
                // Safety: the vector is inside the matrix, 16-byte aligned (the contract).
                let (src, dst) = (src.wrapping_add((h * per_piece) as usize), (at_tile(x, k) + h * per_piece) as usize);
                unsafe { smem.at(dst).cast::<Vector>().load_async(src.cast::<Vector>(), 16) };
            }
        }
        src = src.wrapping_add(step as usize);
    }
}

/// The iterations of a step's loop over `d` (of `bk`) before which the multistage rung's
/// whole-tile entries start the copies of the step [`MULTISTAGE_STAGES`] − 1 ahead: `A`'s,
/// then `B`'s. Started all after the barrier, every warp of the block queues its copies at
/// once while the FP64 pipe waits. Where `B` is copied as vectors (NN, TN) `B`'s start at
/// three quarters of the step; where its stored rows run along `k` (NT, TT: element copies)
/// `B`'s start first and `A`'s at half. Measured (H100, 2026-11-24, `f64` at 4096³): 21.90
/// TFLOP/s NN, 21.21 NT, 21.86 TN, 21.64 TT, against 20.66–20.89, 20.44–20.81, 20.58–20.92 and
/// 21.16–21.50 with all at the start; the other placements tried are in `docs/benchmarks.md`.
pub const fn whole_copy_slots(bk: u32, b_along_k: bool) -> (u32, u32) {
    if b_along_k { (bk / 2, 0) } else { (0, bk * 3 / 4) }
}

/// Rung 10, `matmul_multistage`: [`matmul_tuned`] with its tiles copied from global to shared
/// memory asynchronously (`cp.async`, SASS `LDGSTS`; `sm_80` and later), through
/// [`MULTISTAGE_STAGES`] stages.
///
/// Changes from rung 9: the loads. A thread no longer loads the next step's tiles into
/// registers and stores them after computing; it starts copies that land in shared memory by
/// themselves, [`MULTISTAGE_STAGES`] − 1 steps ahead, and waits for a step's copies
/// (`pipeline::wait_prior`) just before the barrier that opens it. No registers hold tiles in
/// flight, the loads and stores of the staging become one instruction per piece, and three
/// steps of global latency are hidden instead of one. An operand whose stored rows run along
/// `k` is copied element by element into the `k`-major tile (4-byte copies for `f32`), each
/// warp's copy reading whole sectors and storing to 32 distinct banks; the other as 16-byte
/// pieces of its rows. Compute and `C`'s writes are rung 9's, and its tiles but for `f64`'s:
/// wide ones of 128 × 128 beside the square ones, which step 16 deep; one block per SM at
/// every size (`bankwise_layout::matmul::multistage`).
///
/// Measured (H100, 2026-11-23, beside rung 9 and cuBLAS in one run): `f64` 20.12 TFLOP/s at
/// 4096³ (wide tiles), 60.1% of the FP64 CUDA cores' peak, 1.65× rung 9; with rung 9's square
/// tiles 17.19, 16 deep 18.27: Nsight Compute at 2048³ shows warps waiting less (6.66 → 4.57
/// cycles between issues). `f32` *not faster* than rung 9: its warps already issue every 2.8
/// cycles, and the element copies of the operand read along `k` (one `LDGSTS` per 4 bytes)
/// execute 4% more instructions (41.1 M against 39.4 M at 2048³); NT and TT, with `B` copied
/// that way, lose 7–9%.
///
/// Lanes as rung 9's, interleaved in the `f64` entries and the square `f32` ones; the wide
/// `f32` ones measured slower so (43.15 → 41.77 at 4096³) and keep row-major lanes;
/// interleaving took `f64` from 20.33 to 20.93 and the square `f32` tiles from 35.87 to 37.35
/// in the run that compared them. Measured (2026-11-24, the last ladder run): `f64` 21.74 at
/// 4096³ (65.0% of the FP64 peak), NT 20.90, TN 21.51, TT 21.63 (64.6%); `f32` 43.48 (83.8% of
/// cuBLAS; rung 9 48.10), square tiles 37.76.
///
/// `WHOLE` entries (wide `f64`, which the host picks where the tiles divide `n` and rows are
/// aligned) copy every step of a block whose tiles lie inside `A` and `B` but a
/// partial last one from addresses computed once, without bounds checks ([`copy_whole`]), as
/// rung 9's whole-tile entries load. Measured (2026-11-24, row-major lanes, two runs against
/// one without them): 4096³ NN 20.23–20.31 against 20.29, TN 20.02–20.32 against 19.63, TT
/// 21.02–21.05 against 20.39: smaller gains than `f32`'s, its copies being fewer and its steps
/// longer. They start a step's copies of `A` and of `B` before two different iterations of its
/// loop over `d` ([`whole_copy_slots`]), each operand's from one pointer stepped from copy to
/// copy ([`TunedTiles::copy_step`]): 20.66–20.89 → 21.90 at 4096³ NN.
///
/// # Safety
/// As [`matmul_tuned`], with `multistage(…).shared_elements()` elements of dynamic shared
/// memory, on a GPU of compute capability 8.0 or later.
#[inline(always)]
pub unsafe fn matmul_multistage<
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
    const STAGES: u32 = MULTISTAGE_STAGES;
    // The tiles, and for the `WHOLE` entries the steps between a thread's copies of each
    // operand (`copy_start`).
    let (tt, a_step, b_step) = const {
        let tt = multistage(size_of::<T>() as u32, WIDE);
        let tt = TunedTiles { warps: tt.warps.with_lanes(lanes(INTERLEAVED)), ..tt };
        let w = tt.warps;
        assert!(w.wmiter as usize <= MI && w.wniter as usize <= NI && w.tm == VEC && w.tn == VEC);
        assert!(tt.stages == STAGES && STAGES >= 2 && STAGES.is_power_of_two());
        let s = w.tiles;
        let (a_slot, b_slot) = whole_copy_slots(s.bk, TRANS_B);
        match (tt.copy_step(s.bm, !TRANS_A), tt.copy_step(s.bn, TRANS_B)) {
            (Some(a_step), Some(b_step)) if a_slot < s.bk && b_slot < s.bk => (tt, a_step, b_step),
            _ => {
                assert!(!WHOLE, "whole-tile entries step from copy to copy, at two iterations of a step");
                (tt, (0, 0), (0, 0))
            }
        }
    };
    let (w, s) = (tt.warps, tt.warps.tiles);
    let smem = shared::dynamic::<T>();
    let t = thread_x();
    let Some((g, (m0, n0))) = (unsafe { block_product(g, batch, s) }) else { return };
    // Where a stored row runs along `k`: `A` as stored, `B` transposed.
    let along_k = (!TRANS_A, TRANS_B);
    let aligned = (rows_aligned(g.a, g.lda), rows_aligned(g.b, g.ldb));
    let c_aligned = rows_aligned(g.c, g.ldc);
    let mut acc = [[[[T::ZERO; VEC as usize]; VEC as usize]; NI]; MI];
    let steps = g.k.div_ceil(s.bk as u64);
    // The first STAGES − 1 steps in flight, one group each (empty past the last step).
    for first in 0..(STAGES - 1) as u64 {
        if first < steps {
            let k0 = first * s.bk as u64;
            unsafe { copy_tiles(tt, t, &g, smem, along_k, aligned, (m0, n0, k0), first as u32) };
        }
        pipeline::commit();
    }
    // The `WHOLE` entries copy every step of a block whose tiles lie whole inside `A` and `B`,
    // rows aligned, but a partial last one, without bounds checks (`copy_whole`).
    let whole = WHOLE && aligned.0 && aligned.1 && m0 + s.bm as u64 <= g.m && n0 + s.bn as u64 <= g.n;
    let whole_steps = if whole { g.k / s.bk as u64 } else { 0 };
    let a_start = copy_start(tt, (s.bm, along_k.0), a_step, t, (g.a, g.lda), m0);
    let b_start = copy_start(tt, (s.bn, along_k.1), b_step, t, (g.b, g.ldb), n0);
    let (a_slot, b_slot) = whole_copy_slots(s.bk, along_k.1);
    let mut stage = 0;
    let mut step = 0;
    while step < steps {
        // This step's group has arrived (this thread's copies), and after the barrier every
        // thread's; every thread has also finished computing from the stage the step before
        // used, which the copies started next overwrite.
        pipeline::wait_prior::<{ STAGES - 2 }>();
        sync_threads();
        let ahead = step + (STAGES - 1) as u64;
        let into = (stage + STAGES - 1) % STAGES;
        let k0 = ahead * s.bk as u64;
        let whole_ahead = WHOLE && ahead < whole_steps;
        if !whole_ahead && ahead < steps {
            unsafe { copy_tiles(tt, t, &g, smem, along_k, aligned, (m0, n0, k0), into) };
        }
        // The element offset of step `ahead` in each operand.
        let (da, db) = (if along_k.0 { k0 } else { k0 * g.lda }, if along_k.1 { k0 } else { k0 * g.ldb });
        let (a_src, b_src) =
            ((a_start.0.wrapping_add(da as usize), a_start.1), (b_start.0.wrapping_add(db as usize), b_start.1));
        for d in 0..s.bk {
            // Safety: the step's tiles lie inside `A` and `B`, rows aligned (`whole`).
            if whole_ahead && d == a_slot {
                unsafe { copy_whole(tt, s.bm, along_k.0, t, smem, a_src, |m, k| tt.a_at(into, m, k)) };
            }
            if whole_ahead && d == b_slot {
                unsafe { copy_whole(tt, s.bn, along_k.1, t, smem, b_src, |n, k| tt.b_at(into, k, n)) };
            }
            let (a_at, b_at) = (|m| tt.a_at(stage, m, d), |n| tt.b_at(stage, d, n));
            unsafe { warp_step(w, t, smem, a_at, b_at, &mut acc) };
        }
        pipeline::commit();
        stage = (stage + 1) % STAGES;
        step += 1;
    }
    unsafe { finish_warp_tiles(&g, w, t, (m0, n0), c_aligned, &acc) };
}

/// [`Gemm::finish`] of `VEC` elements of a row of `C` at once, as 16-byte accesses.
///
/// # Safety
/// Elements `(r, c .. c + VEC)` are inside `C` and 16-byte aligned.
#[inline(always)]
unsafe fn finish_vector<T: Scalar>(g: &Gemm<T>, r: u64, c: u64, dots: [T; 4]) {
    let at_c = unsafe { g.c.add(at(r, c, g.ldc) as usize) };
    let mut v = [T::ZERO; VEC as usize];
    if g.beta == T::ZERO {
        for q in 0..VEC as usize {
            v[q] = g.alpha * dots[q];
        }
    } else {
        let old = unsafe { read_global_vector(at_c.cast_const()) };
        for q in 0..VEC as usize {
            v[q] = g.beta.mul_add(old[q], g.alpha * dots[q]);
        }
    }
    unsafe { store_vector(at_c, v) };
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

/// The lanes of a tuned rung's entry: [`Lanes::Interleaved`] where its `INTERLEAVED` literal
/// says so. Each entry takes the layout measured faster for it (H100, 2026-11-24, 4096³ and
/// 4095×4097×4093 beside the other in the same build): interleaved, its `LDS.128` fragment
/// reads take 2 wavefronts each instead of 2 for `A` and 4 for `B`, but ptxas may spend
/// more instructions (at the 128 registers of the square `f32` tiles it re-reads the thread
/// index inside the loop).
pub const fn lanes(interleaved: bool) -> Lanes {
    if interleaved { Lanes::Interleaved } else { Lanes::RowMajor }
}

/// Instantiates a tuned rung (`$rung`: [`matmul_tuned`] or [`matmul_multistage`]) as entries,
/// each for one type, one pair of `op`s, one tile size (wide: 128 × 256, `f32` only),
/// whether it has the whole-tile path (`WHOLE`) and whether its lanes are interleaved
/// ([`lanes`], the last literal), with
/// `Gemm`'s arguments followed by the batch's, and the launch bounds of the rung's tiles
/// (`$tiles`: `bankwise_layout::matmul::tuned` or `multistage`). The calling crate must depend
/// on `bankwise_device` (which `#[kernel]`'s expansion names) and `bankwise_layout`.
#[macro_export]
macro_rules! tuned_matmul_entries {
    ($rung:ident, $tiles:ident: $($name:ident => $t:ty, $trans_a:literal, $trans_b:literal, $wide:literal, $whole:literal, $interleaved:literal;)+) => {$(
        /// # Safety
        /// As for the rung in `bankwise_kernels::matmul`: the matrices of each product hold
        /// their stored shapes with their leading dimensions, and the launch uses the rung's
        /// grid, block and shared memory.
        #[$crate::__device::kernel(launch_bounds(
            bankwise_layout::matmul::$tiles(size_of::<$t>() as u32, $wide).threads(),
            bankwise_layout::matmul::$tiles(size_of::<$t>() as u32, $wide).min_blocks,
        ))]
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
