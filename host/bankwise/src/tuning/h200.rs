//! The H200's table: an NVIDIA H200 (SXM, sm_90, 132 SMs, 141 GB of HBM3e), CUDA 13.0, measured
//! 2026-11-28 by `bankwise tune` (`docs/benchmarks.md`, *The H200, 2026-11-28*). It shares the
//! H100 SXM's SMs and clocks, so the matrix multiply's rates came out within 1% of the H100's
//! but for a few `f64` entries; its memory is 1.4 times as fast, which changes the launch
//! choices of the bandwidth-bound kernels.

use std::borrow::Cow;

use super::{GpuKey, MatmulTuning, MemoryTuning, RungRates, TileRates, Tuning};

/// The H200's figures.
pub static H200: Tuning = Tuning {
    device: Cow::Borrowed("NVIDIA H200"),
    key: GpuKey { compute_capability: (9, 0), multiprocessors: 132, memory_gib: 140 },
    measured: Cow::Borrowed(
        "2026-11-28 by `bankwise tune`: the second of two sweeps, copy and rows from a third; columns 2026-11-29 by `bench axes`",
    ),
    matmul: MATMUL,
    memory: MEMORY,
};

/// The bandwidth-bound kernels' choices, from the second of two `bankwise tune` sweeps (the
/// figures are % of the driver's copy, 40 timed runs per candidate) but for the copy's and the
/// row reductions', which a third sweep the same day took from wider candidates: the
/// one-vector-per-thread `copy_bytes` with up to 1024 blocks per SM, a grid that covers 1 GiB
/// (2^26 and 2^28 `f32`: 100.1 and 99.9%; 256: 99.6, 97.2; 64: 96.2, 94.6; 16: 93.5, 93.4);
/// the reduction with 6 (4 to 16 within a point of it); the aligned `f32` transpose uncapped,
/// unlike the H100's (8192² and 16384²: 97.2% uncapped, 93.7% held to 4 blocks per SM, 84.1% to
/// 2); the unaligned one at 6 (77.6% at 8191×8193, 76.7% uncapped: the first sweep kept it
/// uncapped, so the two are within noise); the reductions along axes aiming at 32 blocks per SM
/// along rows (64 long rows: 76.4%, 66.2% with 16, 74.8% with 64; rows of 8192² 83–85% with
/// any) and 4 across columns, one whole wave of column blocks (2026-11-29, `bench axes` with
/// this figure set by a table file, after column splits became whole waves and `bf16` columns
/// took eight rows in flight: 8192² column sums `f32` 92.5% with 4, 88.7% with 8, 85.5% with
/// 12, 85.1% with 16, 83.8% with 64; `bf16` 76.6, 71.0, 64.2, 62.5, 67.3%; the middle axis of
/// (64, 4096, 1024) `bf16` 103.0, 95.2, 93.4, 91.7, 88.1%); a warp per row below 65,536
/// elements, as on the H100.
const MEMORY: MemoryTuning = MemoryTuning {
    copy_blocks_per_sm: 1024,
    reduce_blocks_per_sm: 6,
    transpose_residency: None,
    transpose_capped_from: bankwise_layout::transpose::tuned::CAPPED_FROM,
    unaligned_residency: Some(6),
    axes_row_blocks_per_sm: 32,
    axes_column_blocks_per_sm: 4,
    axes_block_row_min: 65_536,
};

/// TFLOP/s at 4096³ per pair of `op`s (NN, NT, TN, TT), `bankwise tune`'s 20 runs per entry
/// (checked entries at 4096×4095×4096). The strip, realign and split figures are the H100's:
/// they weigh launches and copies against the product, which the two GPUs run at the same
/// rates.
const MATMUL: MatmulTuning = MatmulTuning {
    tuned_f32: RungRates {
        square: Some(TileRates { checked: [42.30, 39.00, 42.75, 40.49], whole: Some([44.86, 42.81, 48.23, 45.43]) }),
        wide: Some(TileRates { checked: [42.31, 43.80, 43.02, 43.90], whole: Some([47.70, 46.74, 47.15, 45.97]) }),
    },
    tuned_f64: RungRates { square: Some(TileRates { checked: [11.77, 10.90, 19.41, 14.93], whole: None }), wide: None },
    multistage_f32: RungRates {
        square: Some(TileRates { checked: [37.29, 33.75, 37.85, 37.13], whole: None }),
        wide: Some(TileRates { checked: [42.11, 39.75, 42.01, 39.74], whole: None }),
    },
    multistage_f64: RungRates {
        square: Some(TileRates { checked: [18.74, 18.71, 18.99, 19.10], whole: None }),
        wide: Some(TileRates { checked: [18.92, 19.76, 20.12, 20.56], whole: Some([21.27, 21.04, 21.94, 21.28]) }),
    },
    strip_seconds: 10e-6,
    realign_min_uses: 2048,
    split_min_depth: 256,
};
