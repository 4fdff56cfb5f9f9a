//! # bankwise-emu
//!
//! Runs bankwise GPU kernels, the same Rust source that is compiled to PTX, on the CPU, and
//! reports what the hardware does not tell you: each shared-memory access site's bank
//! conflicts, data races between threads, and out-of-bounds accesses.
//!
//! How it runs a launch ([`launch`]): every GPU thread is a fiber (a `corosensei` coroutine
//! with a stack of its own); the threads of one block share one OS thread and run until they
//! reach a block barrier or a warp collective, where they wait for the others, so
//! `sync_threads`, `sync_warp`, shuffles and votes mean what they mean on the GPU, and the
//! schedule is deterministic. Blocks run in parallel on the CPU's cores. Shared memory is a
//! per-block allocation, filled with `0xFF` bytes at each block's start (NaN for floats):
//! a kernel that reads what it never wrote shows it.
//!
//! What a kernel calls on the host: `bankwise-device` compiles for the host as well as for
//! `nvptx64`, and its host backend calls the functions of [`lane`] (indices, barriers,
//! collectives, and a check of every shared and global access). `#[kernel]` registers each
//! entry's host form in [`registry`] by name, so a runtime can launch it as it launches the PTX
//! entry. Global buffers are [`memory::HostAllocation`]s: every global access through the
//! device crate is checked against them.
//!
//! What it models: the thread hierarchy, barriers and warp collectives with their masks, the
//! shared-memory banks of every NVIDIA GPU since Fermi (the `bankwise-banks` model, which
//! matches Nsight Compute on the H100), races on shared memory between barrier intervals and
//! `sync_warp`s, and atomics. What it does not: timing, caches, occupancy, the memory model
//! beyond barriers (a release/acquire flag in shared memory is reported as a race), and
//! global-memory races.

pub mod lane;
pub mod memory;
pub mod registry;
pub mod report;

mod block;
mod shadow;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use block::STACK_BYTES;
pub use registry::{ByValue, HostKernel, HostParam, KernelEntry, KernelFn};
pub use report::{AccessOp, GlobalSiteStats, Race, RaceKind, Report, SiteStats, costliest_map};

/// Re-exported for `#[kernel]`'s expansion (`inventory::submit!`).
#[doc(hidden)]
pub use inventory;

/// Three dimensions: a block or grid size, or an index in one (CUDA C++ `dim3`/`uint3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dim3 {
    /// Fastest-varying.
    pub x: u32,
    /// Middle.
    pub y: u32,
    /// Slowest-varying.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// `x · y · z`.
    pub const fn count(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The index of linear position `i` (x fastest) in a box of this size.
    pub const fn unflatten(self, i: u64) -> Dim3 {
        let (x, y) = (self.x as u64, self.y as u64);
        Dim3 { x: (i % x) as u32, y: (i / x % y) as u32, z: (i / (x * y)) as u32 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// A place in a kernel's source: the `file:line:column` of a call to the device crate (its
/// accessors are `#[track_caller]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    /// Source file, as the compiler names it.
    pub file: &'static str,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

impl Site {
    /// The site of `location`.
    pub fn of(location: &'static std::panic::Location<'static>) -> Self {
        Site { file: location.file(), line: location.line(), column: location.column() }
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One GPU thread: its block's index and its index in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadId {
    /// `blockIdx`.
    pub block: Dim3,
    /// `threadIdx`.
    pub thread: Dim3,
}

impl std::fmt::Display for ThreadId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "thread {} of block {}", self.thread, self.block)
    }
}

/// Which memory an access went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// The block's shared memory (addresses are byte offsets into it).
    Shared,
    /// Global memory (host addresses of [`memory::HostAllocation`]s).
    Global,
}

impl std::fmt::Display for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Space::Shared => "shared",
            Space::Global => "global",
        })
    }
}

/// What ended an emulated launch early: the emulator's counterpart of the errors
/// compute-sanitizer and the driver report, each naming the site and the thread.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// An access outside its allocation (memcheck's "Invalid __shared__/__global__ read/write").
    #[error(
        "out-of-bounds {space} {} of {bytes} bytes at {} by {thread} at {site}: {detail}",
        if *.write { "write" } else { "read" }, address_of(*.space, *.address)
    )]
    OutOfBounds {
        /// Shared or global.
        space: Space,
        /// A write (or atomic) rather than a read.
        write: bool,
        /// The address: a byte offset for shared memory (wrapped, for an access before the
        /// block's shared memory: read it as an `i64`), the host address for global.
        address: u64,
        /// Bytes accessed.
        bytes: u32,
        /// Who.
        thread: ThreadId,
        /// Where in the kernel.
        site: Site,
        /// What the access fell outside of.
        detail: String,
    },
    /// An access not aligned to its width (the GPU's "misaligned address").
    #[error("misaligned {space} access of {bytes} bytes at {address:#x} by {thread} at {site}")]
    Misaligned {
        /// Shared or global.
        space: Space,
        /// The address.
        address: u64,
        /// Bytes accessed (the alignment needed).
        bytes: u32,
        /// Who.
        thread: ThreadId,
        /// Where.
        site: Site,
    },
    /// The kernel panicked (a failed bounds check, an overflow in a debug build, `trap`).
    #[error("{thread} panicked{}: {message}", .site.map(|s| format!(" at {s}")).unwrap_or_default())]
    Panic {
        /// Who.
        thread: ThreadId,
        /// Where, when known.
        site: Option<Site>,
        /// The panic's message.
        message: String,
    },
    /// No thread of a block can go on, and no more specific cause below was found: some wait
    /// at a barrier or collective that others will never reach (the GPU hangs or, since Volta,
    /// may go on with undefined results).
    #[error("deadlock in block {block}: {detail}")]
    Deadlock {
        /// The block.
        block: Dim3,
        /// Who waits where.
        detail: String,
    },
    /// Threads of one block wait at different block barriers (`sync_threads` calls), which is
    /// undefined in CUDA (compute-sanitizer synccheck's "divergent thread(s) in block").
    #[error(
        "divergent barrier in block {block}: thread {first_thread} waits at the barrier at {first}, thread \
         {second_thread} at another, at {second}. {BARRIER_RULE}"
    )]
    DivergentBarrier {
        /// The block.
        block: Dim3,
        /// One barrier's site.
        first: Site,
        /// A thread waiting there.
        first_thread: Dim3,
        /// Another barrier's site.
        second: Site,
        /// A thread waiting there.
        second_thread: Dim3,
    },
    /// Threads of one block wait at a block barrier (`sync_threads` or a reducing form) that
    /// another thread of the block has exited without reaching: undefined in CUDA, which allows
    /// a barrier in conditional code only where the condition is the same across the block
    /// (compute-sanitizer synccheck's "divergent thread(s) in block").
    #[error(
        "divergent barrier in block {block}: thread {first_thread} waits at the barrier at {first}, but thread \
         {exited_thread} exited without reaching it ({}). {BARRIER_RULE}",
        .after.map_or("before any barrier".to_string(), |s| format!("after the block's previous barrier, at {s}"))
    )]
    ExitedBeforeBarrier {
        /// The block.
        block: Dim3,
        /// The barrier's site.
        first: Site,
        /// A thread waiting there (the first of the block).
        first_thread: Dim3,
        /// A thread that has exited (the first of the block).
        exited_thread: Dim3,
        /// The block's barrier before this one, which every thread passed (`None`: none).
        after: Option<Site>,
    },
    /// Lanes named in one warp collective's mask disagree about it (a different mask or
    /// operation), or a lane calls it with a mask that leaves itself out.
    #[error("warp collective mismatch in {thread} at {site}: {detail}")]
    WarpMismatch {
        /// The lane that found it.
        thread: ThreadId,
        /// Its collective's site.
        site: Site,
        /// What differs.
        detail: String,
    },
    /// A warp collective (`sync_warp`, a shuffle, a vote) waits for lanes its mask names that
    /// never arrive: they have exited, or they wait at a block barrier. Reading from such a lane
    /// is undefined and waiting for one may hang (NVIDIA's CUDA guidelines: a mask names only
    /// the lanes that take part).
    #[error(
        "warp collective divergence in {thread}: {collective} at {site} with mask {mask:#010x} waits for {} that \
         never arrive ({detail}). Every lane a collective's mask names must call it, with the same mask: leave \
         out of the mask the lanes that exit or branch away (`ballot(FULL_MASK, condition)` before the branch \
         gives the lanes that stay)",
        lane_list(*.missing)
    )]
    WarpDivergence {
        /// A lane waiting at the collective (the first of its warp).
        thread: ThreadId,
        /// The collective's site.
        site: Site,
        /// Which collective (`sync_warp`, `a Down shuffle`, `a vote (All)`).
        collective: &'static str,
        /// Its mask.
        mask: u32,
        /// The lanes of the mask that do not arrive (bit `i` = lane `i`).
        missing: u32,
        /// Where they are instead (`lanes 16–31 exited`).
        detail: String,
    },
    /// The launch itself is malformed (a dimension of 0, more than 1024 threads per block).
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),
}

/// An access's address as a fault writes it: hexadecimal, and a shared offset before the
/// block's shared memory as a negative one (`-0x4`).
fn address_of(space: Space, address: u64) -> String {
    match space {
        Space::Shared if (address as i64) < 0 => format!("-{:#x}", (address as i64).unsigned_abs()),
        _ => format!("{address:#x}"),
    }
}

/// How to mend a divergent block barrier, for the faults' messages.
const BARRIER_RULE: &str = "A block barrier must be reached by every thread of the block or by none: make the \
    condition around it the same for the whole block, and put an early return after the block's last barrier \
    (threads with nothing to do still take part in the barriers)";

/// `ids` (ascending) as runs: `0–15, 20`.
pub(crate) fn ranges(ids: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        out.push(if i == j { ids[i].to_string() } else { format!("{}–{}", ids[i], ids[j]) });
        i = j + 1;
    }
    out.join(", ")
}

/// The lanes of `mask`: `lane 5`, `lanes 16–31`.
pub(crate) fn lane_list(mask: u32) -> String {
    let lanes: Vec<u32> = (0..32).filter(|l| mask >> l & 1 == 1).collect();
    format!("{} {}", if lanes.len() == 1 { "lane" } else { "lanes" }, ranges(&lanes))
}

/// The launch-wide facts every block reads: the global allocations at launch and the start
/// time (for `%globaltimer`).
pub(crate) struct Globals {
    pub allocations: Vec<(usize, usize)>,
    pub start: std::time::Instant,
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_bytes: u32,
}

/// Runs one kernel launch to completion: `run` (a registered entry's host form) with the
/// parameter pointers `params` (as `cuLaunchKernel`'s `kernelParams`: one pointer to each
/// argument's value), on `grid` blocks of `block` threads with `shared_bytes` of dynamic
/// shared memory each. Returns what the instrumentation saw, or the first [`Fault`].
///
/// # Safety
/// `params` must hold one pointer per parameter of the kernel, each to a value of the
/// parameter's type; pointer arguments must be addresses of [`memory::HostAllocation`]s (or
/// null) that nothing else writes during the launch.
pub unsafe fn launch(
    run: KernelFn,
    params: &[*mut std::ffi::c_void],
    grid: Dim3,
    block: Dim3,
    shared_bytes: u32,
) -> Result<Report, Fault> {
    if grid.count() == 0 || block.count() == 0 {
        return Err(Fault::InvalidLaunch(format!(
            "grid {grid} and block {block} must have every dimension at least 1"
        )));
    }
    if block.count() > 1024 {
        return Err(Fault::InvalidLaunch(format!("block {block} has {} threads; at most 1024", block.count())));
    }
    let globals =
        Globals { allocations: memory::snapshot(), start: std::time::Instant::now(), grid, block, shared_bytes };
    let blocks = grid.count();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(blocks as usize).max(1);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let first_fault: Mutex<Option<(u64, Fault)>> = Mutex::new(None);
    let params = ParamList(params.to_vec());
    let work = |report: &mut Report| {
        let mut runner = block::Runner::new(&globals);
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks || stop.load(Ordering::Relaxed) {
                break;
            }
            // Safety: the caller vouches for `params`; `run` reads them as its parameters.
            if let Err(fault) = unsafe { runner.run_block(run, params.get(), grid.unflatten(b), report) } {
                stop.store(true, Ordering::Relaxed);
                let mut first = first_fault.lock().unwrap_or_else(|e| e.into_inner());
                // The lowest-numbered failing block wins, so the report does not depend on timing.
                if first.as_ref().is_none_or(|(fb, _)| b < *fb) {
                    *first = Some((b, fault));
                }
            }
        }
    };
    let mut report = Report::default();
    if workers == 1 {
        work(&mut report);
    } else {
        let parts: Vec<Report> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| {
                        let mut part = Report::default();
                        work(&mut part);
                        part
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
        });
        for part in parts {
            report.merge(part);
        }
    }
    if let Some((_, fault)) = first_fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(fault);
    }
    report.finish(blocks, blocks * block.count());
    Ok(report)
}

/// The parameter pointers, shared by the worker threads: each worker only reads the values
/// they point at, which the caller keeps alive and unchanged for the launch.
struct ParamList(Vec<*mut std::ffi::c_void>);
// Safety: see the type's docs; the pointers are only read through, during the launch.
unsafe impl Sync for ParamList {}

impl ParamList {
    fn get(&self) -> &[*mut std::ffi::c_void] {
        &self.0
    }
}
