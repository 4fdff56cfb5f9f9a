//! The matrix multiply ladder: `C = α·A·B + β·C`, row-major, each matrix with its own leading
//! dimension (`bankwise_layout::matmul`). Each rung is a named kernel that changes one thing
//! from the one before; the host launches them through `bankwise::Gpu::matmul_with`.
//!
//! The first three rungs give each thread one element of `C`; from [`matmul_blocktile_1d`] on,
//! a thread accumulates several in registers. Every rung reads `C` only where `β ≠ 0`, as BLAS
//! does, so that `β = 0` overwrites whatever `C` held, NaN included.

use core::ops::{Add, Mul};

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::shared;
use bankwise_device::thread::{block_x, block_y, grid_dim_x, grid_dim_y, sync_threads, thread_x, thread_y};
use bankwise_layout::matmul::{TILE, a_tile, at, b_tile, tiles};

/// An element type of the matrix multiply: `f32` or `f64`.
pub trait Scalar: Plain + Copy + PartialEq + Add<Output = Self> + Mul<Output = Self> {
    /// The additive identity.
    const ZERO: Self;
}

impl Scalar for f32 {
    const ZERO: f32 = 0.0;
}

impl Scalar for f64 {
    const ZERO: f64 = 0.0;
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
        let value = if self.beta == T::ZERO { scaled } else { scaled + self.beta * unsafe { global::read(at_c) } };
        unsafe { global::write(at_c, value) };
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
            sum = sum + x * y;
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
/// at 4096³, 1.0% and 0.8% of cuBLAS. At 4095×4097×4093 it runs 3× faster (1.57 TFLOP/s),
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
/// Measured (H100): 3.26 TFLOP/s f32 at 4096³ (6.3× rung 1, 6.3% of cuBLAS), 5.70 at 2048³
/// (11.3%); f64 2.85 (4.7%).
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
/// Measured (H100): 6.06 TFLOP/s f32 at 4096³ (1.9× rung 2, 11.7% of cuBLAS's 51.7), 7.36 at
/// 2048³ (14.7%); f64 3.92 (6.4%; 11.7% of the FP64 CUDA cores' peak). Each thread still loads
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
            let (ka, kb) = (k0 + tx as u64, k0 + ty as u64);
            let a =
                if r < g.m && ka < g.k { unsafe { global::read(g.a.add(at(r, ka, g.lda) as usize)) } } else { T::ZERO };
            let b =
                if kb < g.k && c < g.n { unsafe { global::read(g.b.add(at(kb, c, g.ldb) as usize)) } } else { T::ZERO };
            unsafe {
                smem.write(a_tile(ty, tx) as usize, a);
                smem.write(b_tile(ty, tx) as usize, b);
            }
            sync_threads();
            for i in 0..TILE {
                sum = sum + unsafe { smem.read(a_tile(ty, i) as usize) * smem.read(b_tile(i, tx) as usize) };
            }
            // Before the next step overwrites the tiles.
            sync_threads();
            k0 += TILE as u64;
        }
        if r < g.m && c < g.n {
            unsafe { g.finish(r, c, sum) };
        }
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
/// Measured (H100, 2026-11-23): 15.41 TFLOP/s f32 at 4096³ (2.5× rung 3, 29.8% of cuBLAS,
/// 23% of the CUDA cores' peak), 14.65 at 1024³ (40.1%); f64 6.52 (10.8%; 19.5% of its peak).
/// 62 registers (f32), 70 (f64), no spills.
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
            let (r, ka) = (m0 + ar as u64, k0 + ac as u64);
            let a =
                if r < g.m && ka < g.k { unsafe { global::read(g.a.add(at(r, ka, g.lda) as usize)) } } else { T::ZERO };
            let (kb, c) = (k0 + br as u64, n0 + bc as u64);
            let b =
                if kb < g.k && c < g.n { unsafe { global::read(g.b.add(at(kb, c, g.ldb) as usize)) } } else { T::ZERO };
            unsafe {
                smem.write(a_at(ar, ac) as usize, a);
                smem.write(b_at(br, bc) as usize, b);
            }
            sync_threads();
            for d in 0..BK {
                let b = unsafe { smem.read(b_at(d, col) as usize) };
                for (i, acc) in acc.iter_mut().enumerate() {
                    *acc = *acc + unsafe { smem.read(a_at(row0 + i as u32, d) as usize) } * b;
                }
            }
            sync_threads();
            k0 += BK as u64;
        }
        for (i, &sum) in acc.iter().enumerate() {
            let (r, c) = (m0 + (row0 + i as u32) as u64, n0 + col as u64);
            if r < g.m && c < g.n {
                unsafe { g.finish(r, c, sum) };
            }
        }
    });
}
