//! The H100's table: an NVIDIA H100 80GB HBM3 (SXM, sm_90, 132 SMs), driver 580.159.04,
//! CUDA 13.0, measured 2026-11-23 and 2026-11-24 with `bankwise bench matmul`
//! (`docs/benchmarks.md`, *The matrix multiply ladder*; the sweeps behind each figure are in
//! `docs/decisions.md`). It is also [`FALLBACK`](super::FALLBACK), the table of every GPU
//! without one of its own.

use std::borrow::Cow;

use super::{GpuKey, MatmulTuning, MemoryTuning, PlanTarget, RungRates, TileRates, Tuning};

/// An H100 SXM (132 SMs, sm_90) with its table: what planning without a GPU plans for (tests,
/// what-if questions).
pub const TARGET: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

/// The H100 SXM's figures.
pub static H100: Tuning = Tuning {
    device: Cow::Borrowed("NVIDIA H100 80GB HBM3"),
    key: GpuKey { compute_capability: (9, 0), multiprocessors: 132, memory_gib: 80 },
    measured: Cow::Borrowed("2026-11-23 to 2026-11-24 (matmul), 2026-11-22 to 2026-11-26 (memory)"),
    matmul: MATMUL,
    memory: MEMORY,
};

/// The bandwidth-bound kernels' choices, from `bankwise tune` on 2026-11-26 (two sweeps, the
/// same choices; `docs/benchmarks.md`, *Tuning tables*): the copy with up to 64 blocks per SM
/// (98.8–98.9% of the driver's copy at 2^26 f32, 97.5% with 32, measured with the copy's
/// earlier four vectors per thread: the one-vector kernel of 2026-11-28 has not run on an H100,
/// whose next sweep should take the candidates up to 1024 as the H200's did); the reduction with 8 (8 × 256
/// threads fill an SM; 4 to 16 within a point); the aligned f32 transpose held to 4 blocks per
/// SM from 2^26 elements (3 as fast, uncapped 0.6 points slower, 2 far slower); the unaligned
/// one uncapped (caps of 2 to 4 lost 13–21 points); the reductions along axes aiming at 16
/// blocks per SM along rows (64 long rows: 74.2% of the copy, 58.4% with 4) and across columns
/// (8192² column sums 90.0% against 88.3% with 32); a warp per row below 65,536 elements, a
/// block from there (rows of 8192 f32: 85.8% of the copy with a warp per row, 76.9% with a
/// block, as `tune` times them; rows of 32,768: 81.9% against 75.4%; the suite's 8192² f32 row
/// sums 96.4% against 85.7%).
const MEMORY: MemoryTuning = MemoryTuning {
    copy_blocks_per_sm: 64,
    reduce_blocks_per_sm: bankwise_layout::reduce::tuned::BLOCKS_PER_SM,
    transpose_residency: Some(bankwise_layout::transpose::tuned::CAPPED_RESIDENCY),
    transpose_capped_from: bankwise_layout::transpose::tuned::CAPPED_FROM,
    unaligned_residency: None,
    axes_row_blocks_per_sm: 16,
    axes_column_blocks_per_sm: 16,
    axes_block_row_min: 65_536,
};

/// The rates are TFLOP/s at 4096³ per pair of `op`s (NN, NT, TN, TT), each size of a rung in
/// one run. The `f32` rows of the tuned rung: the checked entries' from 2026-11-23 (the wide
/// ones before their lanes were interleaved, which left them as fast at 4095×4097×4093), the
/// whole-tile entries' from 2026-11-24 with interleaved lanes (*Interleaved lanes*). The
/// multistage rung's `f32` rows and every `f64` row: the ladder run of 2026-11-24; the
/// multistage rung's wide `f64` tiles were measured with their whole-tile entries only (4096³
/// takes them), which stand for the checked ones too.
const MATMUL: MatmulTuning = MatmulTuning {
    tuned_f32: RungRates {
        square: Some(TileRates { checked: [43.21, 39.32, 43.38, 40.89], whole: Some([44.94, 43.14, 48.25, 45.59]) }),
        wide: Some(TileRates { checked: [43.97, 43.23, 44.42, 43.89], whole: Some([47.74, 47.16, 47.23, 45.86]) }),
    },
    // The tuned rung has square `f64` tiles only, and no whole-tile `f64` entries.
    tuned_f64: RungRates { square: Some(TileRates { checked: [12.43, 11.58, 19.44, 15.79], whole: None }), wide: None },
    // The multistage rung has no whole-tile `f32` entries.
    multistage_f32: RungRates {
        square: Some(TileRates { checked: [37.35, 34.02, 38.20, 37.16], whole: None }),
        wide: Some(TileRates { checked: [43.14, 39.80, 43.67, 39.72], whole: None }),
    },
    multistage_f64: RungRates {
        square: Some(TileRates { checked: [18.75, 18.74, 18.82, 18.83], whole: None }),
        wide: Some(TileRates { checked: [20.75, 20.54, 20.84, 21.04], whole: None }),
    },
    // A strip's launches (a split of `k` and the sum) take a few microseconds each here: 10 µs
    // keeps small shapes at one launch. With it the picked plans' strips measured (against the
    // best size without one) 41.62 TFLOP/s against 40.84 at 4095×4097×4093, 35.89 against
    // 25.81 at 2048×2049×2048, 38.44 against 34.37 at 3000×3001×2999 (*Strips and the split
    // of `k`*).
    strip_seconds: 10e-6,
    // `copy_rows_aligned` moves 8 bytes per `f32` element at about 2.45 TB/s, and the product
    // spends 2 FLOPs per use at about 43 TFLOP/s, so the copy costs about 70 / uses of the
    // product's time; reading unaligned rows in place cost about 7.7% at 4095×4097×4093
    // (39.08 TFLOP/s in place, 40.84 after the copies, square tiles without a strip). They
    // break even near 900 uses; 2048 leaves a margin (shapes between were not measured).
    realign_min_uses: 2048,
    // 256-deep products (4096×4096×256) ran at 89% of cuBLAS (`docs/decisions.md`, split `k`).
    split_min_depth: 256,
};
