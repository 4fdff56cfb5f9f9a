//! Bank-conflict probes: measure on the GPU what [`crate::banks`] predicts.
//!
//! A probe launches one block of [`WARPS`] warps; every warp performs the same warp-wide
//! shared-memory access (a [`banks::Access`]: 32 byte offsets and an active mask) `iterations ×`
//! [`UNROLL`] times, timed with `clock64`. The warps keep the shared-memory pipe busy, so the
//! time per access is proportional to the wavefronts it needs: divided by the time of a
//! 1-wavefront access it *counts* them ([`normalised`]). [`patterns`] is the list the
//! `bankwise probe` table runs, each with the model's prediction ([`predict`]).
//!
//! [`plan`] validates a probe without a GPU; [`Gpu::probe`] runs one and checks that every lane
//! read (or wrote) exactly its offset, from checksums of a known fill pattern.

use crate::banks::{self, Access, Analysis, Geometry, MAX_LANES, Width};
use crate::error::{Error, Result};
use crate::gpu::{Gpu, Launch};
use bankwise_layout::probe::{VERIFY, fill_value, fill_word, store_value, store_word};
use bankwise_layout::transpose::{TILE, TileLayout};
use bankwise_runtime::KernelEntry;
use bankwise_runtime::bankwise_emu::RaceKind;

pub use bankwise_layout::probe::{MAX_SHARED_BYTES, UNROLL, WARPS};

/// Largest iteration count [`plan`] accepts: at most ~2^25 accesses per warp, well under a
/// second even for the slowest (128-wavefront) patterns.
pub const MAX_ITERATIONS: u32 = 1 << 21;

/// Default iterations: 4096 accesses per warp, 65536 per block.
pub const DEFAULT_ITERATIONS: u32 = 256;

pub use crate::banks::Op;

/// A validated probe: the launch and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbePlan {
    /// Kernel, grid (one block), block ([`WARPS`] warps) and dynamic shared memory.
    pub launch: Launch<ProbeParams>,
    /// Byte offset per lane (0 for inactive lanes).
    pub offsets: [u32; MAX_LANES],
    /// Bit `i` set iff lane `i` accesses.
    pub mask: u32,
    /// Loop iterations; each performs [`UNROLL`] accesses per warp.
    pub iterations: u32,
}

impl ProbePlan {
    /// Accesses each warp performs.
    pub fn accesses_per_warp(&self) -> u64 {
        u64::from(self.iterations) * u64::from(UNROLL)
    }

    /// Warp-level shared-memory instructions of the probed access in one launch: what
    /// `smsp__sass_inst_executed_op_shared_{ld,st}.sum` counts when verification is off.
    pub fn warp_instructions(&self) -> u64 {
        self.accesses_per_warp() * u64::from(WARPS)
    }
}

/// A probe entry's parameters: `cycles`, `sums`, `offsets`, `mask`, `iterations`,
/// `shared_bytes`, `flags`.
pub type ProbeParams = (*mut u64, *mut u32, *const u32, u32, u32, u32, u32);

/// The probe entry for `op` at `width`; `None` for the matrix instructions, which no probe runs.
fn entry(op: Op, width: Width) -> Option<KernelEntry<ProbeParams>> {
    use bankwise_builtin::probe::*;
    Some(match (op, width) {
        (Op::Load, Width::B1) => probe_load_u8,
        (Op::Load, Width::B2) => probe_load_u16,
        (Op::Load, Width::B4) => probe_load_u32,
        (Op::Load, Width::B8) => probe_load_u64,
        (Op::Load, Width::B16) => probe_load_u128,
        (Op::Store, Width::B1) => probe_store_u8,
        (Op::Store, Width::B2) => probe_store_u16,
        (Op::Store, Width::B4) => probe_store_u32,
        (Op::Store, Width::B8) => probe_store_u64,
        (Op::Store, Width::B16) => probe_store_u128,
        (Op::LoadMatrix | Op::StoreMatrix, _) => return None,
    })
}

/// Validates a probe of `access` (`op`, `iterations` loop iterations) and plans its launch.
///
/// Errors: [`Error::ProbeUnsupportedOp`] (the matrix instructions), [`Error::ProbeNoActiveLane`],
/// [`Error::ProbeMisaligned`], [`Error::ProbeOutOfBounds`]
/// (past [`MAX_SHARED_BYTES`]), [`Error::ProbeIterations`] (0 or above [`MAX_ITERATIONS`]).
pub fn plan(access: &Access, op: Op, iterations: u32) -> Result<ProbePlan> {
    let kernel = entry(op, access.width).ok_or(Error::ProbeUnsupportedOp { op })?;
    if access.active_mask() == 0 {
        return Err(Error::ProbeNoActiveLane);
    }
    let width = access.width.bytes();
    let mut offsets = [0u32; MAX_LANES];
    let mut end = 0u32;
    for (lane, addr) in access.addresses.iter().enumerate() {
        let (lane, Some(offset)) = (lane as u32, *addr) else { continue };
        if !offset.is_multiple_of(u64::from(width)) {
            return Err(Error::ProbeMisaligned { lane, offset, width });
        }
        let last = offset.checked_add(u64::from(width)).filter(|&e| e <= u64::from(MAX_SHARED_BYTES));
        let Some(last) = last else {
            return Err(Error::ProbeOutOfBounds { lane, offset, width, limit: MAX_SHARED_BYTES });
        };
        offsets[lane as usize] = offset as u32;
        end = end.max(last as u32);
    }
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::ProbeIterations { iterations, max: MAX_ITERATIONS });
    }
    let launch = Launch {
        kernel,
        grid: (1, 1, 1),
        block: (WARPS * 32, 1, 1),
        // Whole 128-byte bank rows, so the fill covers every word a lane can touch.
        shared_bytes: end.next_multiple_of(128),
        resident: None,
    };
    Ok(ProbePlan { launch, offsets, mask: access.active_mask(), iterations })
}

/// The sum of the 32-bit parts of the `width`-byte value at `offset` of memory described by
/// `word` (whole words) and `value` (1- and 2-byte parts), as the kernels fold it.
fn fold(width: u32, offset: u32, word: fn(u32) -> u32, value: fn(u32, u32) -> u32) -> u32 {
    if width < 4 {
        value(offset, width)
    } else {
        (0..width / 4).fold(0u32, |s, k| s.wrapping_add(word(offset / 4 + k)))
    }
}

/// What each lane's checksum must be after a verified run of `plan` (`None` for inactive
/// lanes): the sum of everything a load read, or the value a store reads back.
pub fn expected_sums(plan: &ProbePlan, op: Op, width: Width) -> [Option<u32>; MAX_LANES] {
    let w = width.bytes();
    std::array::from_fn(|lane| {
        (plan.mask >> lane & 1 == 1).then(|| {
            let offset = plan.offsets[lane];
            match op {
                // `plan` refuses the matrix instructions; they fold as the loads and stores would.
                Op::Load | Op::LoadMatrix => {
                    fold(w, offset, fill_word, fill_value).wrapping_mul(plan.accesses_per_warp() as u32)
                }
                Op::Store | Op::StoreMatrix => fold(w, offset, store_word, store_value),
            }
        })
    })
}

/// One measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    /// `clock64` cycles each warp spent on all its accesses (they overlap: every warp waits
    /// for the whole block).
    pub warp_cycles: Vec<u64>,
    /// Accesses each warp performed.
    pub accesses_per_warp: u64,
    /// Cycles per warp-access: the slowest warp's cycles over all the block's accesses.
    pub cycles_per_access: f64,
}

impl Gpu {
    /// Runs a probe of `access` and returns the cycles one warp-access costs. Shared memory is
    /// filled with a known pattern first and every lane's checksum is checked, so an error
    /// ([`Error::ProbeChecksum`]) means the kernel did not access the planned offsets.
    pub fn probe(&self, access: &Access, op: Op, iterations: u32) -> Result<ProbeResult> {
        let plan = plan(access, op, iterations)?;
        let (cycles, sums) = self.run_probe(&plan, op, VERIFY)?;
        let expected = expected_sums(&plan, op, access.width);
        for (i, &got) in sums.iter().enumerate() {
            let (warp, lane) = ((i / 32) as u32, i % 32);
            if let Some(want) = expected[lane]
                && got != want
            {
                return Err(Error::ProbeChecksum {
                    kernel: plan.launch.kernel.name(),
                    lane: lane as u32,
                    warp,
                    got,
                    want,
                });
            }
        }
        let slowest = cycles.iter().copied().max().unwrap_or(0);
        let cycles_per_access = slowest as f64 / (plan.warp_instructions() as f64);
        Ok(ProbeResult { warp_cycles: cycles, accesses_per_warp: plan.accesses_per_warp(), cycles_per_access })
    }

    /// Launches a probe of `access` once with one iteration and no fill or read-back, so that
    /// under a profiler the launch's only shared-memory instructions are the probed ones
    /// ([`ProbePlan::warp_instructions`] of them). Waits for it to finish.
    pub fn probe_once(&self, access: &Access, op: Op) -> Result<()> {
        let plan = plan(access, op, 1)?;
        self.run_probe(&plan, op, 0).map(drop)
    }

    fn run_probe(&self, plan: &ProbePlan, op: Op, flags: u32) -> Result<(Vec<u64>, Vec<u32>)> {
        let offsets = self.upload(&plan.offsets)?;
        let mut cycles = self.alloc_zeros::<u64>(WARPS as usize)?;
        let mut sums = self.alloc_zeros::<u32>(WARPS as usize * 32)?;
        let (mask, iterations, shared) = (plan.mask, plan.iterations, plan.launch.shared_bytes);
        // Safety: `plan` checked that every active offset is aligned and inside `shared` bytes
        // of dynamic shared memory; the buffers hold one u64 per warp and one u32 per thread.
        let launched =
            unsafe { self.launch(plan.launch, (&mut cycles, &mut sums, &offsets, mask, iterations, shared, flags)) };
        match launched {
            // Every warp of a store probe stores the same values at the same offsets, on purpose:
            // the probe times the stores, and all warps time one pattern. Those write-after-write
            // races between warps are its design; the emulator, which fails a launch on any race,
            // reports them (the launch ran to its end, and the checksums below still judge it).
            Err(Error::Runtime(bankwise_runtime::Error::Race { report }))
                if op == Op::Store && report.report.races.iter().all(|r| r.kind == RaceKind::WriteWrite) => {}
            other => other?,
        }
        Ok((self.download(&cycles)?, self.download(&sums)?))
    }
}

/// The model's account of `access`, loaded or stored, on every GPU since Fermi
/// ([`Geometry::MODERN`]).
pub fn predict(access: &Access, op: Op) -> std::result::Result<Analysis, banks::BankError> {
    banks::analyze(&access.clone().with_op(op), &Geometry::MODERN)
}

/// Measured wavefronts: cycles per access over those of a 1-wavefront access (the
/// calibration: a conflict-free 4-byte access, `stride-1`, of the same [`Op`]).
pub fn normalised(cycles_per_access: f64, calibration: f64) -> f64 {
    cycles_per_access / calibration
}

/// Relative tolerance of [`agrees`].
pub const TOLERANCE: f64 = 0.2;

/// Whether `measured` wavefronts match the model's: within [`TOLERANCE`] of it, or half a
/// wavefront, whichever is larger.
pub fn agrees(model: u32, measured: f64) -> bool {
    let model = f64::from(model);
    (measured - model).abs() <= (TOLERANCE * model).max(0.5)
}

/// One of a transpose tile's two shared-memory accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileAccess {
    /// Lane `i` reads tile element `(i, 0)`: the column walk that feeds coalesced stores.
    ColumnRead,
    /// Lane `i` writes tile element `(0, i)`: the row written from coalesced loads.
    RowWrite,
}

impl TileAccess {
    /// Both, column read first.
    pub const ALL: [TileAccess; 2] = [TileAccess::ColumnRead, TileAccess::RowWrite];

    /// `"column-read"` or `"row-write"`.
    pub const fn name(self) -> &'static str {
        match self {
            TileAccess::ColumnRead => "column-read",
            TileAccess::RowWrite => "row-write",
        }
    }

    /// The op it is in the transpose kernels.
    pub const fn op(self) -> Op {
        match self {
            TileAccess::ColumnRead => Op::Load,
            TileAccess::RowWrite => Op::Store,
        }
    }
}

/// The library's name for a tile layout's transpose kernel.
pub const fn tile_kernel_name(layout: TileLayout) -> &'static str {
    match layout {
        TileLayout::Plain => "transpose_tiled",
        TileLayout::Padded => "transpose_padded",
        TileLayout::Swizzled => "transpose_swizzled",
    }
}

/// Warp 0's access to a `layout` tile of `elem_bytes`-byte elements in its first step, with byte
/// addresses from [`TileLayout::offset`], the function the kernels use; `None` unless
/// `elem_bytes` is 1, 2, 4 or 8.
pub fn tile_access(layout: TileLayout, elem_bytes: u32, kind: TileAccess) -> Option<Access> {
    let width = Width::from_bytes(elem_bytes).filter(|_| elem_bytes <= 8)?;
    debug_assert_eq!(TILE as usize, MAX_LANES);
    let access = Access::from_fn(width, u32::MAX, |lane| {
        let (r, c) = match kind {
            TileAccess::ColumnRead => (lane, 0),
            TileAccess::RowWrite => (0, lane),
        };
        u64::from(layout.offset(r, c, elem_bytes)) * u64::from(elem_bytes)
    });
    Some(access.with_op(match kind {
        TileAccess::ColumnRead => Op::Load,
        TileAccess::RowWrite => Op::Store,
    }))
}

/// One row of the probe table.
#[derive(Clone, Debug)]
pub struct ProbePattern {
    /// Short identifier (unique in [`patterns`]).
    pub name: String,
    /// The access.
    pub access: Access,
    /// Which ops to probe it with: both, or only the one a transpose tile performs.
    pub ops: &'static [Op],
}

/// The probe table: 4-byte strides 1..=32, the source articles' worked examples
/// ([`banks::named_patterns`]), 8- and 16-byte, broadcast, 1- and 2-byte and active-mask cases,
/// and the transpose tiles' column reads and row writes for every layout and element size.
/// `stride-1` comes first: it is the 1-wavefront calibration.
pub fn patterns() -> Vec<ProbePattern> {
    const BOTH: &[Op] = &Op::ALL;
    let mut out: Vec<ProbePattern> = Vec::new();
    let mut add = |name: String, access: Access| out.push(ProbePattern { name, access, ops: BOTH });
    for s in 1..=32 {
        add(format!("stride-{s}"), Access::strided(Width::B4, 0, s));
    }
    // The matrix patterns are the model's alone until probe kernels run `ldmatrix`.
    for p in banks::named_patterns() {
        if !p.name.starts_with("stride-") && !p.access.op.is_matrix() {
            add(p.name.to_string(), p.access);
        }
    }
    let all = u32::MAX;
    for (w, width) in [(8, Width::B8), (16, Width::B16)] {
        add(format!("b{w}-stride-1"), Access::strided(width, 0, 1));
        add(format!("b{w}-stride-2"), Access::strided(width, 0, 2));
        add(format!("b{w}-broadcast"), Access::strided(width, 0, 0));
        add(format!("b{w}-column-128B"), Access::strided(width, 0, 128 / u64::from(width.bytes())));
    }
    add("b4-broadcast".into(), Access::strided(Width::B4, 0, 0));
    add("b4-two-words-bank0".into(), Access::from_fn(Width::B4, all, |i| 128 * u64::from(i % 2)));
    add("b4-four-lanes-per-word".into(), Access::from_fn(Width::B4, all, |i| 4 * u64::from(i / 4)));
    add("b4-eight-words-bank0".into(), Access::from_fn(Width::B4, all, |i| 128 * u64::from(i % 8)));
    add("b1-stride-1".into(), Access::strided(Width::B1, 0, 1));
    add("b1-stride-4".into(), Access::strided(Width::B1, 0, 4));
    add("b1-stride-128".into(), Access::strided(Width::B1, 0, 128));
    add("b1-stride-32".into(), Access::strided(Width::B1, 0, 32));
    add("b2-stride-1".into(), Access::strided(Width::B2, 0, 1));
    add("b2-stride-2".into(), Access::strided(Width::B2, 0, 2));
    add("b2-stride-64".into(), Access::strided(Width::B2, 0, 64));
    add("b2-stride-16".into(), Access::strided(Width::B2, 0, 16));
    for (mask, name) in [(0x1, "lane0"), (0xFF, "lanes0-7"), (0x5555_5555, "even"), (0xFFFF_0000, "upper-half")] {
        add(format!("mask-{name}-stride-32"), Access::strided(Width::B4, 0, 32).with_mask(mask));
    }
    add("mask-lane0-stride-1".into(), Access::strided(Width::B4, 0, 1).with_mask(1));
    add("mask-even-b8-stride-1".into(), Access::strided(Width::B8, 0, 1).with_mask(0x5555_5555));
    for layout in [TileLayout::Plain, TileLayout::Padded, TileLayout::Swizzled] {
        for elem in [1, 2, 4, 8] {
            for (kind, access) in TileAccess::ALL.into_iter().filter_map(|k| Some((k, tile_access(layout, elem, k)?))) {
                out.push(ProbePattern {
                    name: format!("{}-b{elem}-{}", tile_kernel_name(layout), kind.name()),
                    access,
                    ops: match kind {
                        TileAccess::ColumnRead => &[Op::Load],
                        TileAccess::RowWrite => &[Op::Store],
                    },
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_accepts_every_pattern() {
        let all = patterns();
        assert!(all.len() >= 60, "{} patterns", all.len());
        let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "names are unique");
        assert_eq!(all[0].name, "stride-1");
        for p in &all {
            for &op in p.ops {
                let plan = plan(&p.access, op, DEFAULT_ITERATIONS).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                assert!(plan.launch.shared_bytes <= MAX_SHARED_BYTES);
                assert!(predict(&p.access, Op::Load).is_ok(), "{}", p.name);
            }
        }
    }

    #[test]
    fn plan_picks_kernel_and_shared_size() {
        let p = plan(&Access::strided(Width::B16, 0, 1), Op::Store, 3).unwrap();
        assert_eq!(p.launch.kernel.name(), "probe_store_u128");
        assert_eq!((p.launch.grid, p.launch.block, p.launch.shared_bytes), ((1, 1, 1), (512, 1, 1), 512));
        assert_eq!((p.accesses_per_warp(), p.warp_instructions()), (48, 768));
        let q = plan(&Access::strided(Width::B1, 4, 1).with_mask(0b10), Op::Load, 1).unwrap();
        assert_eq!(
            (q.launch.kernel.name(), q.mask, q.offsets[1], q.offsets[0], q.launch.shared_bytes),
            ("probe_load_u8", 2, 5, 0, 128)
        );
    }

    #[test]
    fn plan_rejects_each_bad_input() {
        let matrix = Access::matrices(4, |k, r| 16 * u64::from(8 * k + r)).unwrap();
        assert!(matches!(plan(&matrix, Op::LoadMatrix, 1), Err(Error::ProbeUnsupportedOp { op: Op::LoadMatrix })));
        assert!(patterns().iter().all(|p| !p.access.op.is_matrix()), "no probe runs ldmatrix yet");
        let none = Access::strided(Width::B4, 0, 1).with_mask(0);
        assert!(matches!(plan(&none, Op::Load, 1), Err(Error::ProbeNoActiveLane)));
        let mis = Access::from_fn(Width::B8, 0b100, |_| 12);
        assert!(matches!(plan(&mis, Op::Load, 1), Err(Error::ProbeMisaligned { lane: 2, offset: 12, width: 8 })));
        let far = Access::from_fn(Width::B4, 1 << 31, |_| u64::from(MAX_SHARED_BYTES) - 2);
        assert!(matches!(plan(&far, Op::Store, 1), Err(Error::ProbeMisaligned { lane: 31, .. })));
        let far = Access::from_fn(Width::B4, 1 << 31, |_| u64::from(MAX_SHARED_BYTES));
        assert!(matches!(plan(&far, Op::Store, 1), Err(Error::ProbeOutOfBounds { lane: 31, width: 4, .. })));
        let huge = Access::from_fn(Width::B16, 1, |_| u64::MAX - 15);
        assert!(matches!(plan(&huge, Op::Load, 1), Err(Error::ProbeOutOfBounds { lane: 0, .. })));
        let last = Access::from_fn(Width::B16, 1, |_| u64::from(MAX_SHARED_BYTES) - 16);
        assert_eq!(plan(&last, Op::Load, 1).unwrap().launch.shared_bytes, MAX_SHARED_BYTES);
        let ok = Access::strided(Width::B4, 0, 1);
        assert!(matches!(plan(&ok, Op::Load, 0), Err(Error::ProbeIterations { iterations: 0, .. })));
        let too_many = MAX_ITERATIONS + 1;
        assert!(matches!(plan(&ok, Op::Load, too_many), Err(Error::ProbeIterations { .. })));
        assert!(plan(&ok, Op::Load, MAX_ITERATIONS).is_ok());
        for e in [plan(&none, Op::Load, 1).unwrap_err(), plan(&mis, Op::Load, 1).unwrap_err()] {
            assert!(e.to_string().contains("probe"), "{e}");
        }
    }

    #[test]
    fn expected_sums_follow_the_fill_pattern() {
        let p = plan(&Access::strided(Width::B8, 8, 1).with_mask(0b11), Op::Load, 2).unwrap();
        let sums = expected_sums(&p, Op::Load, Width::B8);
        let want0 = fill_word(2).wrapping_add(fill_word(3)).wrapping_mul(32);
        assert_eq!((sums[0], sums[2]), (Some(want0), None));
        let q = plan(&Access::strided(Width::B1, 0, 1), Op::Store, 1).unwrap();
        let sums = expected_sums(&q, Op::Store, Width::B1);
        assert_eq!(sums[5], Some(store_word(1) >> 8 & 0xFF));
        assert_ne!(sums[5], Some(fill_word(1) >> 8 & 0xFF));
    }

    #[test]
    fn agreement_tolerance() {
        assert!(agrees(1, 1.4) && !agrees(1, 1.6));
        assert!(agrees(32, 26.0) && agrees(32, 38.0) && !agrees(32, 25.0));
        assert_eq!(normalised(64.0, 2.0), 32.0);
    }

    fn counts(layout: TileLayout, elem: u32, kind: TileAccess) -> (u32, u32, u32, u32) {
        let access = tile_access(layout, elem, kind).unwrap();
        let a = predict(&access, access.op).unwrap();
        (a.transactions(), a.wavefronts(), a.degree(), a.conflicts())
    }

    /// Checked by hand: the plain tile's column walk puts lane i at byte 32·e·i, i.e. word 8·e·i.
    /// 4-byte: word 32i, bank 0 for all 32 lanes (32-way). 8-byte: words 64i, 64i+1, banks 0-1,
    /// 16 lanes per half-warp transaction (16-way, 2 transactions). 2-byte: word 16i, banks 0
    /// and 16 with 16 words each (16-way). 1-byte: word 8i, banks 0, 8, 16, 24 with 8 words
    /// each (8-way).
    #[test]
    fn plain_tile_column_reads_conflict() {
        let p = TileLayout::Plain;
        assert_eq!(counts(p, 4, TileAccess::ColumnRead), (1, 32, 32, 31));
        assert_eq!(counts(p, 8, TileAccess::ColumnRead), (2, 32, 16, 30));
        assert_eq!(counts(p, 2, TileAccess::ColumnRead), (1, 16, 16, 15));
        assert_eq!(counts(p, 1, TileAccess::ColumnRead), (1, 8, 8, 7));
    }

    /// Padded pitches (36, 34, 33, 33 elements) and the XOR swizzle spread a column over all
    /// banks; rows are contiguous in every layout. 8-byte accesses always need two transactions
    /// (256 bytes), but one wavefront each.
    #[test]
    fn padded_and_swizzled_tiles_are_conflict_free() {
        for layout in [TileLayout::Padded, TileLayout::Swizzled] {
            for elem in [1, 2, 4] {
                for kind in TileAccess::ALL {
                    assert_eq!(counts(layout, elem, kind), (1, 1, 1, 0), "{layout:?} {elem} {kind:?}");
                }
            }
            for kind in TileAccess::ALL {
                assert_eq!(counts(layout, 8, kind), (2, 2, 1, 0), "{layout:?} 8 {kind:?}");
            }
        }
        for elem in [1, 2, 4] {
            assert_eq!(counts(TileLayout::Plain, elem, TileAccess::RowWrite), (1, 1, 1, 0));
        }
    }

    #[test]
    fn tile_access_uses_the_layout_offsets() {
        let a = tile_access(TileLayout::Swizzled, 2, TileAccess::ColumnRead).unwrap();
        assert_eq!(a.addresses[3], Some(2 * (3 * 32 + 3)));
        let b = tile_access(TileLayout::Padded, 1, TileAccess::RowWrite).unwrap();
        assert_eq!(b.addresses[31], Some(31));
        assert_eq!(tile_access(TileLayout::Padded, 8, TileAccess::ColumnRead).unwrap().addresses[1], Some(8 * 33));
        assert!(tile_access(TileLayout::Padded, 16, TileAccess::ColumnRead).is_none());
    }
}
