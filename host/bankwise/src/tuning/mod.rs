//! Measured tuning, per GPU: the figures the planners weigh their choices by, apart from the
//! planners themselves.
//!
//! The tuned matrix multiply rungs plan each shape by arithmetic ([`TunedPlan::for_shape`]
//! counts whole waves of blocks, [`SplitK`] cuts `k`, [`Realign`] decides which operands to
//! copy), and that arithmetic needs a few figures only a run on the GPU can give: each tile
//! size's rate, what a strip's launches cost, where an operand's copy pays, how shallow a
//! slice of `k` may be. Those figures are a [`Tuning`], one per GPU measured, each in a file
//! of its own here ([`h100`], [`h200`]), listed in [`TABLES`] and told apart by a [`GpuKey`]. How they
//! were measured, and the runs behind each, is in `docs/benchmarks.md`.
//!
//! The bandwidth-bound kernels need fewer figures, all launch choices a run decides
//! ([`MemoryTuning`]): how many blocks of the copy and of the tuned reduction to launch per
//! SM, how many of the tuned transpose's blocks to let reside on an SM, how many blocks the
//! reductions along axes aim for. The copy, transpose, reduction, reduction along axes and
//! permutation launchers read them from their [`Gpu`](crate::Gpu)'s table.
//!
//! A planner reads the table of the GPU it plans for through a [`PlanTarget`]:
//! [`PlanTarget::of`] a device's [`DeviceInfo`] looks its table up ([`Tuning::for_device`]:
//! the table whose key matches the device, else the stated heuristic, [`Tuning::nearest`]);
//! [`PlanTarget::new`] takes any table, for planning without a GPU (tests, what-if questions).
//! A [`Gpu`](crate::Gpu) resolves its table once, when it opens ([`resolve`]): first a table
//! file named by `BANKWISE_TUNING` whose key matches the GPU (`bankwise tune` measures and
//! writes one: [`file`](mod@file)), then the shipped tables. Another GPU's shipped table is one more file
//! beside [`h100`] and [`h200`] and one more line in [`TABLES`].
//!
//! [`TunedPlan::for_shape`]: crate::matmul::TunedPlan::for_shape
//! [`SplitK`]: crate::matmul::SplitK
//! [`Realign`]: crate::matmul::Realign

pub mod file;
pub mod h100;
pub mod h200;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::gpu::DeviceInfo;

pub use file::resolve;

/// Which GPU a [`Tuning`] was measured on: what the driver reports that tells GPUs apart for
/// the planners (an H100 SXM and an H200 share the compute capability and SM count, not the
/// memory; an H100 PCIe has fewer SMs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GpuKey {
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Global memory, in GiB rounded to the nearest.
    pub memory_gib: u32,
}

impl GpuKey {
    /// The key of `info`'s GPU.
    pub fn of(info: &DeviceInfo) -> GpuKey {
        GpuKey {
            compute_capability: info.compute_capability,
            multiprocessors: info.multiprocessors,
            memory_gib: ((info.memory_bytes as u64 + (1 << 29)) >> 30) as u32,
        }
    }

    /// Whether `other` is the same GPU: the same compute capability and SM count, and memory
    /// within a sixteenth of this key's (drivers report a little less than the label says, and
    /// differ by the memory they reserve).
    pub fn matches(self, other: GpuKey) -> bool {
        let slack = self.memory_gib / 16;
        self.compute_capability == other.compute_capability
            && self.multiprocessors == other.multiprocessors
            && self.memory_gib.abs_diff(other.memory_gib) <= slack
    }
}

/// One GPU's measured figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// The GPU measured, as the driver names it.
    pub device: Cow<'static, str>,
    /// What tells it apart ([`Tuning::for_device`] matches it).
    pub key: GpuKey,
    /// When and how the figures were measured (the runs of `docs/benchmarks.md`, or
    /// `bankwise tune`'s).
    pub measured: Cow<'static, str>,
    /// The matrix multiply's figures.
    pub matmul: MatmulTuning,
    /// The bandwidth-bound kernels' launch choices.
    pub memory: MemoryTuning,
}

/// Every shipped table, looked up in order by [`Tuning::exact`].
pub static TABLES: [&Tuning; 2] = [&h100::H100, &h200::H200];

/// The table [`Tuning::nearest`] falls back to where no shipped table has a GPU's compute
/// capability: the H100's. Its figures are the H100's, so on another GPU the tile sizes'
/// relative speeds, the break-even points and the launch choices are guesses; every plan they
/// lead to is still valid, only perhaps not the fastest.
pub static FALLBACK: &Tuning = &h100::H100;

impl Tuning {
    /// The shipped table measured on `info`'s GPU, if any ([`GpuKey::matches`]).
    pub fn exact(info: &DeviceInfo) -> Option<&'static Tuning> {
        let key = GpuKey::of(info);
        TABLES.iter().copied().find(|t| t.key.matches(key))
    }

    /// The heuristic for a GPU without a table of its own: the shipped table of the same
    /// compute capability whose SM count is nearest (the same architecture's caches, shared
    /// memory and rates per SM; an H100 PCIe gets the H100 SXM's, the first in [`TABLES`] of
    /// the two equally near), else [`FALLBACK`].
    pub fn nearest(info: &DeviceInfo) -> &'static Tuning {
        TABLES
            .iter()
            .copied()
            .filter(|t| t.key.compute_capability == info.compute_capability)
            .min_by_key(|t| t.key.multiprocessors.abs_diff(info.multiprocessors))
            .unwrap_or(FALLBACK)
    }

    /// The shipped table the planners read for `info`'s GPU: [`exact`](Self::exact), else
    /// [`nearest`](Self::nearest). A [`Gpu`](crate::Gpu) also looks at the tables
    /// `BANKWISE_TUNING` names first ([`resolve`]).
    pub fn for_device(info: &DeviceInfo) -> &'static Tuning {
        Self::exact(info).unwrap_or_else(|| Self::nearest(info))
    }
}

/// The launch choices of the bandwidth-bound kernels: each the fastest of a sweep on the GPU
/// (`bankwise tune`, [`file`](mod@file)). None changes what a kernel computes, only how many blocks run
/// it and how many share an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryTuning {
    /// `copy_bytes`' blocks per SM at most (its grid-stride loop covers the rest).
    pub copy_blocks_per_sm: u32,
    /// The tuned reduction's blocks per SM at most (one partial each in its scratch).
    pub reduce_blocks_per_sm: u32,
    /// Blocks of the aligned 4-byte tuned transpose let reside on one SM, from
    /// [`transpose_capped_from`](Self::transpose_capped_from) elements on (`None`: as many as
    /// fit).
    pub transpose_residency: Option<u32>,
    /// Elements from which [`transpose_residency`](Self::transpose_residency) applies.
    pub transpose_capped_from: u64,
    /// Blocks of the unaligned 4-byte tuned transpose (shapes whose rows do not start on
    /// 16 bytes, 8191×8193) let reside on one SM (`None`: as many as fit).
    pub unaligned_residency: Option<u32>,
    /// Blocks per SM the reductions along axes split long rows to reach.
    pub axes_row_blocks_per_sm: u32,
    /// Blocks per SM the reductions along axes split few columns to reach.
    pub axes_column_blocks_per_sm: u32,
    /// Elements of a row from which the reductions along axes give it a block of 256 threads
    /// rather than a warp.
    pub axes_block_row_min: u32,
}

/// The matrix multiply's measured figures, read by the tuned rungs' planning
/// ([`crate::matmul`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatmulTuning {
    /// The tuned rung's ([`MatmulKernel::Tuned`](crate::MatmulKernel::Tuned)) rates for `f32`.
    pub tuned_f32: RungRates,
    /// The tuned rung's rates for `f64`.
    pub tuned_f64: RungRates,
    /// The multistage rung's ([`MatmulKernel::Multistage`](crate::MatmulKernel::Multistage))
    /// rates for `f32`.
    pub multistage_f32: RungRates,
    /// The multistage rung's rates for `f64`.
    pub multistage_f64: RungRates,
    /// What a strip ([`TunedPlan::strip`](crate::matmul::TunedPlan::strip)) adds to a plan's
    /// predicted time beside its tiles' waves, in seconds: its launches (a split of `k` and
    /// the sum).
    pub strip_seconds: f64,
    /// The fewest multiply-adds per element for which an operand whose rows are unaligned is
    /// copied to aligned rows first ([`Realign`](crate::matmul::Realign)): where the copy
    /// costs less than reading the rows in place.
    pub realign_min_uses: usize,
    /// The fewest elements of `k` in each full slice of a split ([`SplitK`](crate::matmul::SplitK)):
    /// shallower slices buy blocks with efficiency.
    pub split_min_depth: usize,
}

/// One rung's rates for one type, by tile size ([`TunedTile`](crate::matmul::TunedTile)):
/// `None` for a size the rung does not have for the type (or that was not measured; the
/// planner then prefers the measured sizes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RungRates {
    /// The square tiles' rates.
    pub square: Option<TileRates>,
    /// The wide tiles' rates.
    pub wide: Option<TileRates>,
}

/// TFLOP/s of one tile size at 4096³, per pair of `op`s (NN, NT, TN, TT): the rate at which
/// [`TunedPlan::for_shape`](crate::matmul::TunedPlan::for_shape) counts each wave.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TileRates {
    /// With the entries that check every load's bounds.
    pub checked: [f64; 4],
    /// With the whole-tile entries ([`TunedTile::whole`](crate::matmul::TunedTile::whole)),
    /// where the shape takes them; `None`: the `checked` figures stand for both (the size has
    /// no whole-tile entries, or only they were measured).
    pub whole: Option<[f64; 4]>,
}

/// What a planner plans for: a GPU's SMs and compute capability, and the tuning table it
/// reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanTarget<'t> {
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// The measured figures the planner weighs its choices by.
    pub tuning: &'t Tuning,
}

impl PlanTarget<'static> {
    /// `info`'s GPU with its table ([`Tuning::for_device`]).
    pub fn of(info: &DeviceInfo) -> Self {
        PlanTarget {
            multiprocessors: info.multiprocessors,
            compute_capability: info.compute_capability,
            tuning: Tuning::for_device(info),
        }
    }
}

impl<'t> PlanTarget<'t> {
    /// A GPU of `multiprocessors` SMs and `compute_capability`, planned for with `tuning`.
    pub const fn new(multiprocessors: u32, compute_capability: (i32, i32), tuning: &'t Tuning) -> Self {
        PlanTarget { multiprocessors, compute_capability, tuning }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{MatmulKernel, MatmulShape, Op, TunedTile};

    #[test]
    fn a_gpu_gets_its_own_table_or_the_nearest() {
        let h100 = DeviceInfo::example_sm90();
        assert_eq!(GpuKey::of(&h100), h100::H100.key);
        assert_eq!(Tuning::exact(&h100), Some(&h100::H100));
        // The driver reports a little less memory than the label: still the H100.
        let reported = DeviceInfo { memory_bytes: 85_031_714_816, ..h100.clone() };
        assert_eq!(GpuKey::of(&reported).memory_gib, 79);
        assert_eq!(Tuning::exact(&reported), Some(&h100::H100));
        // An H200 (same SMs and compute capability, 141 GB; nvidia-smi reports 143,771 MiB): its own.
        let h200 = DeviceInfo { memory_bytes: 150_754_820_096, ..h100.clone() };
        assert_eq!(GpuKey::of(&h200), h200::H200.key);
        assert_eq!(Tuning::exact(&h200), Some(&h200::H200));
        assert!(std::ptr::eq(PlanTarget::of(&h200).tuning, &h200::H200));
        // An H100 PCIe (114 SMs), an A100: no table of their own, the H100's for each.
        for other in [
            DeviceInfo { multiprocessors: 114, ..h100.clone() },
            DeviceInfo { compute_capability: (8, 0), multiprocessors: 108, ..h100.clone() },
        ] {
            assert_eq!(Tuning::exact(&other), None, "{other:?}");
            // The nearest of the same compute capability (the H100's), else the fallback.
            assert!(std::ptr::eq(Tuning::for_device(&other), FALLBACK));
        }
        let target = PlanTarget::of(&DeviceInfo { multiprocessors: 114, ..h100 });
        assert_eq!((target.multiprocessors, target.compute_capability), (114, (9, 0)));
        assert!(std::ptr::eq(target.tuning, FALLBACK));
    }

    #[test]
    fn every_table_has_a_rate_for_every_tile_size_the_rungs_have() {
        let shapes = [MatmulShape::new(4096, 4096, 4096), MatmulShape::new(4095, 4097, 4093)];
        for table in TABLES {
            let t = &table.matmul;
            assert!(t.strip_seconds > 0.0 && t.realign_min_uses > 0 && t.split_min_depth > 0, "{}", table.device);
            for kernel in [MatmulKernel::Tuned, MatmulKernel::Multistage] {
                for tile in TunedTile::ALL {
                    for (a, b) in [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)] {
                        for shape in shapes.map(|s| s.with_ops(a, b)) {
                            let rate = |has: bool, rate: Option<f64>| {
                                assert_eq!(rate.is_some(), has, "{} {kernel:?} {tile:?} {shape}", table.device);
                                assert!(rate.is_none_or(|r| r.is_finite() && r > 0.0));
                            };
                            rate(tile.tiles::<f32>(kernel).is_some(), tile.measured_tflops::<f32>(kernel, shape, t));
                            rate(tile.tiles::<f64>(kernel).is_some(), tile.measured_tflops::<f64>(kernel, shape, t));
                        }
                    }
                }
            }
        }
    }
}
