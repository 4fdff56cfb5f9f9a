//! Reductions: the sum, minimum or maximum (or any associative [`Operation`] with a kernel
//! instantiation) of a range of a [`DeviceBuffer`].
//!
//! ```no_run
//! # fn main() -> bankwise::Result<()> {
//! use bankwise::reduce::{Max, Sum};
//! let gpu = bankwise::Gpu::new()?;
//! let buf = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! assert_eq!(gpu.reduce(Sum, &buf)?, 10.0);
//! assert_eq!(gpu.reduce_range(Max, &buf, 1..3)?, 3.0);
//! # Ok(()) }
//! ```
//!
//! Semantics (the device kernels and the CPU references in [`crate::cpu`] agree exactly):
//! - integer sums wrap (two's complement, modulo 2^bits);
//! - float sums round at each addition, in the kernel's tree order (see
//!   [`bankwise_layout::reduce::tree_depth`] for the error bound), and propagate NaN;
//! - float min/max are IEEE 754-2019 `minimum`/`maximum`: any NaN gives the canonical quiet
//!   NaN (`f32::NAN`, `f64::NAN`), and −0 < +0; so they are exact and order-independent;
//! - an empty range gives the operation's identity (0, the type's MAX/MIN, ±∞) without a launch.
//!
//! Finishing: the tree rungs relaunch themselves over the per-block partials (ping-ponging
//! between two scratch buffers) until one value is left; `reduce_atomic` combines straight
//! into the result with atomics; the tuned kernel finishes in one launch (last-block pattern).

use std::ops::{Bound, Range, RangeBounds};

use crate::element::Element;
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, DeviceRead, DeviceWrite, Gpu, Launch};
use crate::tuning::PlanTarget;
use bankwise_builtin::reduce::{Ladder, TreeParams, TunedParams};
use bankwise_layout::reduce::{THREADS, split, tree_blocks, tuned};
use bankwise_runtime::KernelEntry;

mod sealed {
    pub trait Sealed {}
}

/// The element types with reduction kernels: `f32 f64 i32 u32 i64 u64`.
pub trait Reducible: Element + sealed::Sealed {
    /// The kernels' suffix (`"f32"`).
    const NAME: &'static str;
}

macro_rules! reducible {
    ($($t:ident),+) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NAME: &'static str = stringify!($t);
        }
    )+};
}
reducible!(f32, f64, i32, u32, i64, u64);

/// An associative operation with an identity, the host side of the device trait
/// `bankwise_kernels::reduce::ReduceOp`. [`Sum`], [`Min`] and [`Max`] are built in; for your
/// own, instantiate the kernels with `reduce_ladder!(YourLadder = name: YourOp; types…)` in
/// `kernels/bankwise-builtin` (in a clone of bankwise: [`crate::Gpu`] launches the entries of
/// that module) and implement this trait with `type Ladder = YourLadder` and the same identity
/// and combine (the latter is the CPU reference the results are checked against). In a kernel crate of
/// your own, `reduce_ladder!` or `block::reduce` does the same, launched through
/// [`crate::runtime`] (`examples/custom_reduction`).
pub trait Operation<T>: Copy {
    /// The operation's name in reports and benchmarks (`"sum"`).
    const NAME: &'static str;
    /// The operation's entries for `T`: the type `reduce_ladder!(Ladder = op: Op; …)` declared
    /// beside them (`bankwise_builtin::reduce::SumLadder` for [`Sum`]).
    type Ladder: Ladder<T>;
    /// `combine(identity(), x) == x`.
    fn identity() -> T;
    /// The operation, exactly as the device computes it.
    fn combine(a: T, b: T) -> T;
}

/// Sum; wraps for integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sum;
/// Minimum; NaN-propagating for floats, −0 < +0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Min;
/// Maximum; NaN-propagating for floats, −0 < +0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Max;

macro_rules! int_ops {
    ($($t:ty),+) => {$(
        impl Operation<$t> for Sum {
            const NAME: &'static str = "sum";
            type Ladder = bankwise_builtin::reduce::SumLadder;
            fn identity() -> $t { 0 }
            fn combine(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl Operation<$t> for Min {
            const NAME: &'static str = "min";
            type Ladder = bankwise_builtin::reduce::MinLadder;
            fn identity() -> $t { <$t>::MAX }
            fn combine(a: $t, b: $t) -> $t { a.min(b) }
        }
        impl Operation<$t> for Max {
            const NAME: &'static str = "max";
            type Ladder = bankwise_builtin::reduce::MaxLadder;
            fn identity() -> $t { <$t>::MIN }
            fn combine(a: $t, b: $t) -> $t { a.max(b) }
        }
    )+};
}
int_ops!(i32, u32, i64, u64);

macro_rules! float_ops {
    ($($t:ty => $bits:ty),+) => {$(
        impl Operation<$t> for Sum {
            const NAME: &'static str = "sum";
            type Ladder = bankwise_builtin::reduce::SumLadder;
            fn identity() -> $t { 0.0 }
            fn combine(a: $t, b: $t) -> $t { a + b }
        }
        impl Operation<$t> for Min {
            const NAME: &'static str = "min";
            type Ladder = bankwise_builtin::reduce::MinLadder;
            fn identity() -> $t { <$t>::INFINITY }
            fn combine(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if a.total_cmp(&b).is_le() { a } else { b }
            }
        }
        impl Operation<$t> for Max {
            const NAME: &'static str = "max";
            type Ladder = bankwise_builtin::reduce::MaxLadder;
            fn identity() -> $t { <$t>::NEG_INFINITY }
            fn combine(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if a.total_cmp(&b).is_ge() { a } else { b }
            }
        }
    )+};
}
float_ops!(f32 => i32, f64 => i64);

/// The reduction kernels, one rung of the ladder each; each changes one thing from the one
/// before (the doc comments in `kernels/bankwise-kernels/src/reduce.rs` say what and why).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReduceKernel {
    /// `reduce_atomic`: one global atomic per element.
    Atomic,
    /// `reduce_interleaved_divergent`: shared-memory tree, `tid % (2s) == 0` (divergent warps).
    InterleavedDivergent,
    /// `reduce_interleaved_strided`: `index = 2·s·tid` (no divergence, bank conflicts).
    InterleavedStrided,
    /// `reduce_sequential`: sequential addressing (conflict-free).
    Sequential,
    /// `reduce_first_add`: two elements per thread combined while loading.
    FirstAdd,
    /// `reduce_unrolled_warp`: the last warp unrolled, `__syncwarp` between its steps.
    UnrolledWarp,
    /// `reduce_shuffle`: the last warp by shuffles.
    Shuffle,
    /// `reduce`: the tuned one-pass kernel, the library's default.
    #[default]
    Tuned,
}

impl ReduceKernel {
    /// Every kernel, in ladder order.
    pub const ALL: [ReduceKernel; 8] = [
        ReduceKernel::Atomic,
        ReduceKernel::InterleavedDivergent,
        ReduceKernel::InterleavedStrided,
        ReduceKernel::Sequential,
        ReduceKernel::FirstAdd,
        ReduceKernel::UnrolledWarp,
        ReduceKernel::Shuffle,
        ReduceKernel::Tuned,
    ];

    /// The kernel's name, as in the PTX without the `_<op>_<type>` suffix.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceKernel::Atomic => "reduce_atomic",
            ReduceKernel::InterleavedDivergent => "reduce_interleaved_divergent",
            ReduceKernel::InterleavedStrided => "reduce_interleaved_strided",
            ReduceKernel::Sequential => "reduce_sequential",
            ReduceKernel::FirstAdd => "reduce_first_add",
            ReduceKernel::UnrolledWarp => "reduce_unrolled_warp",
            ReduceKernel::Shuffle => "reduce_shuffle",
            ReduceKernel::Tuned => "reduce",
        }
    }

    /// Whether this is a tree rung that adds two elements per thread while loading.
    pub const fn first_add(self) -> bool {
        matches!(self, ReduceKernel::FirstAdd | ReduceKernel::UnrolledWarp | ReduceKernel::Shuffle)
    }

    /// Whether this is a tree rung (one partial per block, relaunched over the partials).
    pub const fn is_tree(self) -> bool {
        !matches!(self, ReduceKernel::Atomic | ReduceKernel::Tuned)
    }

    /// The worst-case number of roundings on any element's path to the result, for `n`
    /// elements starting at element `start` of an allocation (which is 256-byte aligned) and
    /// a device `target` (its SMs, and its table's blocks per SM of the tuned kernel): a float
    /// sum's error is at most `γ_k · Σ|x_i|`.
    pub fn depth<T: Reducible>(self, start: usize, n: usize, target: PlanTarget<'_>) -> u64 {
        let size = T::WIDTH.bytes() as u64;
        let n = n as u64;
        match self {
            _ if n == 0 => 0,
            ReduceKernel::Atomic => n - 1,
            ReduceKernel::Tuned => {
                let addr = start as u64 * size;
                let grid = tuned_grid(split(addr, n, size).vectors, target);
                tuned::depth(addr, n, size, grid)
            }
            k => bankwise_layout::reduce::tree_depth(n, k.first_add()),
        }
    }
}

/// Which buffer a pass reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The caller's range.
    Source,
    /// Scratch buffer A (per-block partials).
    A,
    /// Scratch buffer B (partials of partials).
    B,
    /// The caller's one-element output.
    Out,
}

/// A reduction pass's launch: a tree or atomic rung's, or the tuned kernel's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassLaunch<T> {
    /// `dst`, `src`, `n`.
    Tree(Launch<TreeParams<T>>),
    /// `dst`, `partials`, `counter`, `src`, `n`.
    Tuned(Launch<TunedParams<T>>),
}

impl<T> PassLaunch<T> {
    /// The entry's name.
    pub fn name(&self) -> &'static str {
        match self {
            PassLaunch::Tree(l) => l.kernel.name(),
            PassLaunch::Tuned(l) => l.kernel.name(),
        }
    }

    /// Blocks in x, y, z.
    pub fn grid(&self) -> (u32, u32, u32) {
        match self {
            PassLaunch::Tree(l) => l.grid,
            PassLaunch::Tuned(l) => l.grid,
        }
    }

    /// Threads per block in x, y, z.
    pub fn block(&self) -> (u32, u32, u32) {
        match self {
            PassLaunch::Tree(l) => l.block,
            PassLaunch::Tuned(l) => l.block,
        }
    }

    /// Shared memory per block: what the entry declares plus dynamic bytes.
    pub fn used_shared_bytes(&self) -> u32 {
        match self {
            PassLaunch::Tree(l) => l.used_shared_bytes(),
            PassLaunch::Tuned(l) => l.used_shared_bytes(),
        }
    }
}

/// One launch of a reduction: `input[0..len]` → `output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass<T> {
    /// The launch.
    pub launch: PassLaunch<T>,
    /// What it reads.
    pub input: Slot,
    /// Elements it reads.
    pub len: u64,
    /// Where it writes (one value per block for the tree rungs).
    pub output: Slot,
}

/// A validated reduction: the element range and the launches that reduce it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReducePlan<T> {
    /// The range of the source buffer.
    pub range: Range<usize>,
    /// Whether the output is set to the identity first (empty ranges and `reduce_atomic`).
    pub write_identity: bool,
    /// The launches, in order (none for an empty range).
    pub passes: Vec<Pass<T>>,
    /// Elements of scratch buffer A and B the passes use.
    pub scratch: (usize, usize),
    /// Whether the tuned kernel's retirement counter is used.
    pub counter: bool,
}

/// The range `bounds` of a buffer of `len` elements, checked.
pub fn resolve_range(bounds: impl RangeBounds<usize>, len: usize) -> Result<Range<usize>> {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    let (Some(start), Some(end)) = (start, end) else {
        return Err(Error::RangeOutOfBounds { start: usize::MAX, end: usize::MAX, len });
    };
    if start > end {
        return Err(Error::RangeReversed { start, end });
    }
    if end > len {
        return Err(Error::RangeOutOfBounds { start, end, len });
    }
    Ok(start..end)
}

/// The tree or atomic rung `kernel`'s entry for `O` and `T` (`None` for the tuned kernel,
/// whose parameters differ: `<O::Ladder as Ladder<T>>::TUNED`).
pub fn tree_entry<T: Reducible, O: Operation<T>>(kernel: ReduceKernel) -> Option<KernelEntry<TreeParams<T>>> {
    Some(match kernel {
        ReduceKernel::Atomic => O::Ladder::ATOMIC,
        ReduceKernel::InterleavedDivergent => O::Ladder::INTERLEAVED_DIVERGENT,
        ReduceKernel::InterleavedStrided => O::Ladder::INTERLEAVED_STRIDED,
        ReduceKernel::Sequential => O::Ladder::SEQUENTIAL,
        ReduceKernel::FirstAdd => O::Ladder::FIRST_ADD,
        ReduceKernel::UnrolledWarp => O::Ladder::UNROLLED_WARP,
        ReduceKernel::Shuffle => O::Ladder::SHUFFLE,
        ReduceKernel::Tuned => return None,
    })
}

/// The name of `kernel`'s entry for `O` and `T` (`reduce_shuffle_max_u64`), for reports.
pub fn entry_name<T: Reducible, O: Operation<T>>(kernel: ReduceKernel) -> &'static str {
    match tree_entry::<T, O>(kernel) {
        Some(entry) => entry.name(),
        None => <O::Ladder as Ladder<T>>::TUNED.name(),
    }
}

/// Validates a reduction of `range` of a source of `src_len` elements into an output of
/// `out_len` elements with `kernel`, and plans its launches for `target` (its SMs; its table's
/// blocks per SM of the tuned kernel).
pub fn plan<T: Reducible, O: Operation<T>>(
    kernel: ReduceKernel,
    src_len: usize,
    range: impl RangeBounds<usize>,
    out_len: usize,
    target: PlanTarget<'_>,
) -> Result<ReducePlan<T>> {
    plan_at::<T, O>(kernel, 0, src_len, resolve_range(range, src_len)?, out_len, target)
}

/// The tuned kernel's blocks for `vectors` 16-byte vectors on `target`.
fn tuned_grid(vectors: u64, target: PlanTarget<'_>) -> u32 {
    tuned::grid_per_sm(vectors, target.multiprocessors, target.tuning.memory.reduce_blocks_per_sm)
}

/// [`plan`] for a source whose element 0 is at the device address `base` (the tuned kernel
/// splits its range where the address crosses 16 bytes; allocations start on 256, other
/// libraries' views anywhere), and a `range` already resolved inside its `src_len` elements.
fn plan_at<T: Reducible, O: Operation<T>>(
    kernel: ReduceKernel,
    base: u64,
    src_len: usize,
    range: Range<usize>,
    out_len: usize,
    target: PlanTarget<'_>,
) -> Result<ReducePlan<T>> {
    let multiprocessors = target.multiprocessors;
    debug_assert!(range.start <= range.end && range.end <= src_len, "resolve_range checked it");
    if out_len == 0 {
        return Err(Error::LengthMismatch { buffer: "out", shape: "[1]".into(), expected: 1, actual: 0 });
    }
    let entry = tree_entry::<T, O>(kernel);
    let size = T::WIDTH.bytes();
    let n = range.len() as u64;
    let empty =
        ReducePlan { range: range.clone(), write_identity: true, passes: Vec::new(), scratch: (0, 0), counter: false };
    if n == 0 {
        return Ok(empty);
    }
    let grid_limit = i32::MAX as u64;
    match kernel {
        ReduceKernel::Atomic => {
            let blocks = n.div_ceil(THREADS as u64).min(multiprocessors.max(1) as u64 * 32) as u32;
            let launch = PassLaunch::Tree(Launch::new(O::Ladder::ATOMIC, (blocks, 1, 1), (THREADS, 1, 1)));
            Ok(ReducePlan { passes: vec![Pass { launch, input: Slot::Source, len: n, output: Slot::Out }], ..empty })
        }
        ReduceKernel::Tuned => {
            let addr = base + range.start as u64 * size as u64;
            let grid = tuned_grid(split(addr, n, size as u64).vectors, target);
            // The kernel declares its `tuned::SHARED_BYTES`.
            let launch = PassLaunch::Tuned(Launch::new(O::Ladder::TUNED, (grid, 1, 1), (tuned::THREADS, 1, 1)));
            Ok(ReducePlan {
                write_identity: false,
                passes: vec![Pass { launch, input: Slot::Source, len: n, output: Slot::Out }],
                scratch: (grid as usize, 0),
                counter: true,
                ..empty
            })
        }
        _ => {
            let first_add = kernel.first_add();
            let mut passes = Vec::new();
            let (mut input, mut len, mut scratch) = (Slot::Source, n, (0usize, 0usize));
            loop {
                let blocks = tree_blocks(len, first_add);
                if blocks > grid_limit {
                    return Err(Error::ShapeOverflow { shape: format!("[{n}]") });
                }
                let output = match (blocks, input) {
                    (1, _) => Slot::Out,
                    (_, Slot::A) => Slot::B,
                    _ => Slot::A,
                };
                match output {
                    Slot::A => scratch.0 = scratch.0.max(blocks as usize),
                    Slot::B => scratch.1 = scratch.1.max(blocks as usize),
                    _ => {}
                }
                // Each tree rung declares its `THREADS · size` bytes of shared memory.
                let Some(entry) = entry else { unreachable!("a tree rung has a tree entry") };
                let launch = PassLaunch::Tree(Launch::new(entry, (blocks as u32, 1, 1), (THREADS, 1, 1)));
                passes.push(Pass { launch, input, len, output });
                if output == Slot::Out {
                    break;
                }
                (input, len) = (output, blocks);
            }
            Ok(ReducePlan { write_identity: false, passes, scratch, ..empty })
        }
    }
}

/// Device memory a reduction needs besides its input and output: two buffers of partials
/// and the tuned kernel's retirement counter (which each launch leaves at 0). Make one with
/// [`Gpu::reduce_scratch`] and reuse it for any reduction of up to that many elements.
pub struct ReduceScratch<T> {
    a: DeviceBuffer<T>,
    b: DeviceBuffer<T>,
    counter: DeviceBuffer<u32>,
}

impl<T> std::fmt::Debug for ReduceScratch<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReduceScratch<{}>[{}, {}]", std::any::type_name::<T>(), self.a.len(), self.b.len())
    }
}

impl Gpu {
    /// The `op` reduction of all of `src` with the tuned kernel, returned to the host
    /// (waits for it). The identity for an empty buffer.
    pub fn reduce<T: Reducible, O: Operation<T>>(&self, op: O, src: &(impl DeviceRead<T> + ?Sized)) -> Result<T> {
        self.reduce_with(ReduceKernel::Tuned, op, src, ..)
    }

    /// The `op` reduction of `src[range]` with the tuned kernel. The range may start anywhere
    /// (unaligned starts are handled); a range past the end is [`Error::RangeOutOfBounds`].
    pub fn reduce_range<T: Reducible, O: Operation<T>>(
        &self,
        op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        range: impl RangeBounds<usize>,
    ) -> Result<T> {
        self.reduce_with(ReduceKernel::Tuned, op, src, range)
    }

    /// The `op` reduction of `src[range]` with a chosen rung of the ladder. Allocates its
    /// scratch and output; see [`Gpu::reduce_into`] to reuse them.
    pub fn reduce_with<T: Reducible, O: Operation<T>>(
        &self,
        kernel: ReduceKernel,
        op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        range: impl RangeBounds<usize>,
    ) -> Result<T> {
        let (src, _reading) = self.read("src", src)?;
        let range = resolve_range(range, src.len())?;
        if range.is_empty() {
            return Ok(O::identity());
        }
        let mut scratch = self.reduce_scratch::<T>(kernel, range.len())?;
        let mut out = self.alloc_zeros::<T>(1)?;
        self.reduce_into(kernel, op, &src, range, &mut out, &mut scratch)?;
        Ok(self.download(&out)?[0])
    }

    /// Scratch for reductions of up to `max_len` elements with `kernel`.
    pub fn reduce_scratch<T: Reducible>(&self, kernel: ReduceKernel, max_len: usize) -> Result<ReduceScratch<T>> {
        let (a, b) = match kernel {
            ReduceKernel::Atomic => (0, 0),
            ReduceKernel::Tuned => {
                let per_sm = self.tuning().memory.reduce_blocks_per_sm.max(1);
                (self.info().multiprocessors.max(1) as usize * per_sm as usize, 0)
            }
            k => {
                let a = tree_blocks(max_len.max(1) as u64, k.first_add());
                (a as usize, tree_blocks(a, k.first_add()) as usize)
            }
        };
        Ok(ReduceScratch { a: self.alloc_zeros(a)?, b: self.alloc_zeros(b)?, counter: self.alloc_zeros(1)? })
    }

    /// Queues the `op` reduction of `src[range]` into `out[0]` with `kernel`, using `scratch`;
    /// nothing is waited for. An empty range writes the identity (a copy, no launch).
    pub fn reduce_into<T: Reducible, O: Operation<T>>(
        &self,
        kernel: ReduceKernel,
        _op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        range: impl RangeBounds<usize>,
        out: &mut (impl DeviceWrite<T> + ?Sized),
        scratch: &mut ReduceScratch<T>,
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (mut out, _writing) = self.write("out", out)?;
        let range = resolve_range(range, src.len())?;
        let plan = plan_at::<T, O>(kernel, src.device_ptr(), src.len(), range, out.len(), self.plan_target())?;
        let (need_a, need_b) = plan.scratch;
        if need_a > scratch.a.len() || need_b > scratch.b.len() {
            return Err(Error::ScratchTooSmall { needed: need_a + need_b, actual: scratch.a.len() + scratch.b.len() });
        }
        if plan.write_identity {
            self.stream().upload_into_slice(&[O::identity()], &mut out.slice_mut(0..1)?)?;
        }
        let source = src.slice(plan.range.clone())?;
        for pass in &plan.passes {
            let n = pass.len;
            let ReduceScratch { a, b, counter } = scratch;
            // Safety: `plan` sized every pass: the input holds `len` elements, the output one
            // per block (scratch checked above, `out` at least one), shared memory per block as
            // the kernel expects; A and B are distinct buffers, so no pass reads what it writes.
            unsafe {
                match (pass.launch, pass.input, pass.output) {
                    (PassLaunch::Tuned(l), Slot::Source, Slot::Out) => {
                        self.launch(l, (&mut out, &mut *a, &mut *counter, source, n))?
                    }
                    (PassLaunch::Tree(l), Slot::Source, Slot::Out) => self.launch(l, (&mut out, source, n))?,
                    (PassLaunch::Tree(l), Slot::Source, Slot::A) => self.launch(l, (&mut *a, source, n))?,
                    (PassLaunch::Tree(l), Slot::A, Slot::B) => self.launch(l, (&mut *b, &*a, n))?,
                    (PassLaunch::Tree(l), Slot::B, Slot::A) => self.launch(l, (&mut *a, &*b, n))?,
                    (PassLaunch::Tree(l), Slot::A, Slot::Out) => self.launch(l, (&mut out, &*a, n))?,
                    (PassLaunch::Tree(l), Slot::B, Slot::Out) => self.launch(l, (&mut out, &*b, n))?,
                    (_, input, output) => unreachable!("reduce plan never routes {input:?} to {output:?}"),
                }
            }
        }
        Ok(())
    }
}
