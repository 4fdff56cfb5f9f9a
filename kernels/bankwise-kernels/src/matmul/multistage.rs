//! Rung 10, [`matmul_multistage`]: rung 9 with its tiles copied to shared memory by
//! `cp.async` (`sm_80` and later) through [`MULTISTAGE_STAGES`] stages, instead of through
//! registers; and [`whole_copy_slots`], where in a step its whole-tile entries start their
//! copies.

use bankwise_device::pipeline;
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{sync_threads, thread_x};
use bankwise_layout::matmul::{MULTISTAGE_STAGES, TunedTiles, VEC, at, multistage};

use super::ladder::warp_step;
use super::tuned::{Batch, block_product, finish_warp_tiles, lanes};
use super::vector::rows_aligned;
use super::{Gemm, Scalar};
use crate::Vector;

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
                // SAFETY: the tiling's slot for this thread, inside the tile; `src` is an element
                // of the matrix where `inside`, and nothing is read (0 bytes) otherwise. The caller
                // orders the copy with the tile's reads (`pipeline::wait_prior` and the barrier
                // that follows).
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
                    // SAFETY: a slot of the tile at a multiple of `per_piece` elements, 16 bytes,
                    // inside the tile.
                    let dst = unsafe { smem.at((at_tile(x, k) + h * per_piece) as usize).cast::<Vector>() };
                    // SAFETY: `src` is 16-byte aligned and inside the matrix (above), `dst` a
                    // 16-byte slot of the tile; the caller orders the copy with the tile's reads.
                    unsafe { dst.load_async(src.cast::<Vector>(), 16) };
                } else {
                    // Element by element at the edges (compute-sanitizer's memcheck counts a
                    // 16-byte copy as reading 16 bytes, whatever it is told to read).
                    for q in h * per_piece..(h + 1) * per_piece {
                        let inside = gk < k_len && gx + (q as u64) < x_len;
                        // Safety: inside the matrix where `inside`.
                        let src = if inside { unsafe { p.add(at(gk, gx + q as u64, ld) as usize) } } else { p };
                        // SAFETY: the tiling's slot for this thread, inside the tile.
                        let dst = unsafe { smem.at((at_tile(x, k) + q) as usize) };
                        // SAFETY: as the element copies along `k`: `src` is inside the matrix where
                        // `inside`, 0 bytes otherwise; the caller orders the copy.
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
    // SAFETY: `g` holds the matrices (the rung's contract); the caller orders the copies with the
    // tile's reads.
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
                let (src, dst) = (src.wrapping_add((h * per_piece) as usize), (at_tile(x, k) + h * per_piece) as usize);
                // SAFETY: the vector is inside the matrix and 16-byte aligned (this function's
                // contract), `dst` a 16-byte slot of the tile; the caller orders the copy.
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
/// `B`'s start first and `A`'s at half. Measured (H100, `f64` at 4096³): 21.74 TFLOP/s NN,
/// 20.90 NT, 21.51 TN, 21.63 TT; every placement tried, against all copies at the step's start:
/// `docs/benchmarks.md`, *Spread copies*.
pub const fn whole_copy_slots(bk: u32, b_along_k: bool) -> (u32, u32) {
    if b_along_k { (bk / 2, 0) } else { (0, bk * 3 / 4) }
}

/// Rung 10, `matmul_multistage`: [`matmul_tuned`](super::matmul_tuned) with its tiles copied
/// from global to shared memory asynchronously (`cp.async`, SASS `LDGSTS`; `sm_80` and later),
/// through [`MULTISTAGE_STAGES`] stages.
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
/// Measured (H100, beside rung 9 and cuBLAS in the same run): `f64` 21.74 TFLOP/s at 4096³
/// (wide whole tiles), 65.0% of the FP64 CUDA cores' peak, 1.75× rung 9; NT 20.90, TN 21.51,
/// TT 21.63 (64.6%); the square tiles alone 18.84. Its warps wait less between issues than
/// rung 9's (Nsight Compute: `docs/decisions.md`). `f32` *not faster* than rung 9: 43.48 at
/// 4096³ (83.8% of cuBLAS; rung 9 48.10), the square tiles alone 37.76. Its warps already
/// issue every 2.8 cycles, and the element copies of the operand read along `k` (one `LDGSTS`
/// per 4 bytes) execute 4% more instructions; NT and TT, with `B` copied that way, run 39.77
/// (rung 9: 46.78 and 46.25).
///
/// Lanes as rung 9's, interleaved in the `f64` entries and the square `f32` ones; the wide
/// `f32` ones measured slower so and keep row-major lanes (`docs/benchmarks.md`, *Interleaved
/// lanes*).
///
/// `WHOLE` entries (wide `f64`, which the host picks where the tiles divide `n` and rows are
/// aligned) copy every step of a block whose tiles lie inside `A` and `B` but a partial last
/// one from addresses computed once, without bounds checks (`copy_whole`), as rung 9's
/// whole-tile entries load; they gain less than `f32`'s, their copies being fewer and their
/// steps longer (`docs/benchmarks.md`, *Whole tiles for `f64`*). They start a step's copies of
/// `A` and of `B` before two different iterations of its loop over `d`
/// ([`whole_copy_slots`]), each operand's from one pointer stepped from copy to copy
/// ([`TunedTiles::copy_step`]).
///
/// # Safety
/// As [`matmul_tuned`](super::matmul_tuned), with `multistage(…).shared_elements()` elements
/// of dynamic shared memory, on a GPU of compute capability 8.0 or later.
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
    // SAFETY: the rung's contract: each product of the batch lies inside the buffers.
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
            // SAFETY: `g` holds this product's matrices; stage `first` is not read before its group
            // arrives (the `wait_prior` and barrier of its step).
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
            // SAFETY: `g` holds this product's matrices; stage `into` was last read the step
            // before, which every thread finished before the barrier above.
            unsafe { copy_tiles(tt, t, &g, smem, along_k, aligned, (m0, n0, k0), into) };
        }
        // The element offset of step `ahead` in each operand.
        let (da, db) = (if along_k.0 { k0 } else { k0 * g.lda }, if along_k.1 { k0 } else { k0 * g.ldb });
        let (a_src, b_src) =
            ((a_start.0.wrapping_add(da as usize), a_start.1), (b_start.0.wrapping_add(db as usize), b_start.1));
        for d in 0..s.bk {
            if whole_ahead && d == a_slot {
                // SAFETY: the step's tiles lie inside `A` and `B`, rows aligned (`whole`); stage
                // `into` is free, as for `copy_tiles` above.
                unsafe { copy_whole(tt, s.bm, along_k.0, t, smem, a_src, |m, k| tt.a_at(into, m, k)) };
            }
            if whole_ahead && d == b_slot {
                // SAFETY: as for `A`.
                unsafe { copy_whole(tt, s.bn, along_k.1, t, smem, b_src, |n, k| tt.b_at(into, k, n)) };
            }
            let (a_at, b_at) = (|m| tt.a_at(stage, m, d), |n| tt.b_at(stage, d, n));
            // SAFETY: the warp tiling's slots of stage `stage`, inside the tile; its copies arrived
            // before the barrier at the top of this step, and the stage is not copied into again
            // before the next step's barrier.
            unsafe { warp_step(w, t, smem, a_at, b_at, &mut acc) };
        }
        pipeline::commit();
        stage = (stage + 1) % STAGES;
        step += 1;
    }
    // SAFETY: `g.c` holds this product's `C` with its leading dimension (the rung's contract).
    unsafe { finish_warp_tiles(&g, w, t, (m0, n0), c_aligned, &acc) };
}
