//! The reduction ladder: from one global atomic per element to a one-pass reduction as fast
//! as CUB, generic over the operation ([`ReduceOp`]) and the element type ([`Element`]).
//!
//! Every kernel is written once, generically, and instantiated per (operation, type) pair by
//! [`reduce_ladder!`](crate::reduce_ladder), with entries named
//! `reduce_<rung>_<op>_<type>` (`reduce_shuffle_sum_f32`) and `reduce_<op>_<type>` for the
//! tuned kernel. Built in: `sum`, `min`, `max` for `f32 f64 i32 u32 i64 u64`.
//!
//! ## A user-defined operation
//!
//! Any associative operation with an identity works. Implement [`ReduceOp`] for it and
//! instantiate the ladder, here in this crate (it becomes part of bankwise's PTX module, which
//! `Gpu::new` loads whole):
//!
//! ```ignore
//! pub struct BitOr;
//! impl ReduceOp<u32> for BitOr {
//!     fn identity() -> u32 { 0 }
//!     fn combine(a: u32, b: u32) -> u32 { a | b }
//! }
//! reduce_ladder!(bitor: BitOr; u32);   // reduce_atomic_bitor_u32 … reduce_bitor_u32
//! ```
//!
//! and on the host implement `bankwise::reduce::Operation<u32>` with `NAME = "bitor"` and the
//! same identity and combine (the CPU reference). `reduce_atomic` uses a compare-and-swap loop
//! unless the operation overrides [`ReduceOp::atomic_combine`] with a native atomic.
//!
//! ## A user-defined element type
//!
//! The element can be any [`Plain`] type of 4 or 8 bytes; shuffles and compare-and-swap move
//! it as bits. An argmax over `(value, index)` pairs, in a kernel of one's own built on the
//! building blocks ([`warp::reduce`], [`block::reduce`]):
//!
//! ```ignore
//! #[derive(Clone, Copy)]
//! #[repr(C)]
//! pub struct ArgMax { value: f32, index: u32 }
//! unsafe impl bankwise_device::Plain for ArgMax {} // 8 bytes, no padding, any bits valid
//!
//! pub struct Larger;
//! impl ReduceOp<ArgMax> for Larger {
//!     fn identity() -> ArgMax { ArgMax { value: f32::NEG_INFINITY, index: u32::MAX } }
//!     fn combine(a: ArgMax, b: ArgMax) -> ArgMax { if b.value > a.value { b } else { a } }
//! }
//! // In a kernel of 256 threads: thread 0 gets the block's largest element and its index.
//! let best = unsafe { block::reduce::<ArgMax, Larger, 256>(mine, shared::dynamic()) };
//! ```
//!
//! ## Finishing
//!
//! The tree rungs (`reduce_interleaved_divergent` … `reduce_shuffle`) write one partial per
//! block; the host launches the same kernel again over the partials until one value is left
//! (as in Mark Harris's "Optimizing Parallel Reduction in CUDA"). `reduce_atomic` combines
//! straight into the result. The tuned `reduce` finishes in its own launch: the last block to
//! retire (a `__threadfence` and an atomic ticket) combines every block's partial.

use bankwise_device::Plain;
use bankwise_device::atomic::{self, Scope};
use bankwise_device::fence::fence_device;
use bankwise_device::global;
use bankwise_device::memory::load_global_v4;
use bankwise_device::shared::{self, SharedArray, SharedSlice};
use bankwise_device::thread::{block_x, grid_dim_x, sync_threads, thread_x};
use bankwise_device::warp::{FULL_MASK, sync_warp};
use bankwise_layout::reduce::{
    THREADS, WARP, elements_per_block, interleaved_divergent, interleaved_strided, sequential, split, tuned,
};

use crate::{block, warp};

/// An element type the reductions accept: [`Plain`] data of 4 or 8 bytes, which warp shuffles
/// move and compare-and-swap loops compare bit-wise (any other size fails to compile where the
/// ladder is instantiated). Every such type is one: the built-in `f32 f64 i32 u32 i64 u64`, or
/// a user's `#[repr(C)]` pair such as `{ value: f32, index: u32 }` for an argmax.
pub trait Element: Plain {}
impl<T: Plain> Element for T {}

/// An associative operation with an identity: what a reduction folds with. `combine` need not
/// be commutative for the tree rungs and `reduce`, which keep the elements' order within each
/// combine; `reduce_atomic` combines in arbitrary order, so it also needs commutativity.
pub trait ReduceOp<T: Element> {
    /// `combine(identity(), x) == x` for every `x`.
    fn identity() -> T;
    /// The operation.
    fn combine(a: T, b: T) -> T;
    /// `*p = combine(*p, v)` atomically. The default is a compare-and-swap loop.
    ///
    /// # Safety
    /// `p` must be a valid, aligned global address.
    #[inline(always)]
    unsafe fn atomic_combine(p: *mut T, v: T) {
        // SAFETY: `p` is a valid, aligned global address (this method's contract); a volatile load,
        // which PTX treats as a relaxed access, so it does not race with other threads' atomics on
        // `p`. It is only a first guess: the compare-and-swap checks it.
        let mut old = unsafe { global::read_volatile(p) };
        loop {
            // SAFETY: `p` is a valid, aligned global address (this method's contract), and the
            // reductions access `*p` only with atomics while they run (the first read above is
            // volatile).
            let seen = unsafe { atomic::compare_and_swap(p, old, Self::combine(old, v), Scope::Device) };
            if atomic::same_bits(seen, old) {
                return;
            }
            old = seen;
        }
    }
}

/// Sum. Integer sums wrap (two's complement, modulo 2^bits); float sums round at each step
/// and propagate NaN (and give NaN for +∞ + −∞), as IEEE addition does.
pub struct Sum;
/// Minimum. For floats: IEEE 754-2019 `minimum`: any NaN gives NaN (the canonical quiet NaN,
/// bits `0x7fc0_0000` / `0x7ff8_0000_0000_0000`), and −0 < +0; identity +∞.
pub struct Min;
/// Maximum: as [`Min`], mirrored; identity −∞ for floats.
pub struct Max;

macro_rules! int_ops {
    ($($t:ty),+) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)]
            fn identity() -> $t { 0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            // SAFETY: `p` is a valid, aligned global address (this method's contract), and the
            // reductions access `*p` only with atomics while they run (the host sets it before the
            // launch).
            unsafe fn atomic_combine(p: *mut $t, v: $t) { unsafe { atomic::red_add(p, v, Scope::Device) } }
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)]
            fn identity() -> $t { <$t>::MAX }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { if b < a { b } else { a } }
            #[inline(always)]
            // SAFETY: `p` is a valid, aligned global address (this method's contract), and the
            // reductions access `*p` only with atomics while they run (the host sets it before the
            // launch).
            unsafe fn atomic_combine(p: *mut $t, v: $t) { unsafe { atomic::red_min(p, v, Scope::Device) } }
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)]
            fn identity() -> $t { <$t>::MIN }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { if b > a { b } else { a } }
            #[inline(always)]
            // SAFETY: `p` is a valid, aligned global address (this method's contract), and the
            // reductions access `*p` only with atomics while they run (the host sets it before the
            // launch).
            unsafe fn atomic_combine(p: *mut $t, v: $t) { unsafe { atomic::red_max(p, v, Scope::Device) } }
        }
    )+};
}
int_ops!(i32, u32, i64, u64);

macro_rules! float_ops {
    ($($t:ty => $bits:ty);+ $(;)?) => {$(
        impl ReduceOp<$t> for Sum {
            #[inline(always)]
            fn identity() -> $t { 0.0 }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t { a + b }
            #[inline(always)]
            // SAFETY: `p` is a valid, aligned global address (this method's contract), and the
            // reductions access `*p` only with atomics while they run (the host sets it before the
            // launch).
            unsafe fn atomic_combine(p: *mut $t, v: $t) { unsafe { atomic::red_add(p, v, Scope::Device) } }
        }
        impl ReduceOp<$t> for Min {
            #[inline(always)]
            fn identity() -> $t { <$t>::INFINITY }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if order_key!($bits, b) < order_key!($bits, a) { b } else { a }
            }
        }
        impl ReduceOp<$t> for Max {
            #[inline(always)]
            fn identity() -> $t { <$t>::NEG_INFINITY }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if order_key!($bits, b) > order_key!($bits, a) { b } else { a }
            }
        }
    )+};
}

/// A signed integer that orders non-NaN floats totally, with −0 < +0.
macro_rules! order_key {
    ($bits:ty, $x:expr) => {{
        let b = $x.to_bits() as $bits;
        b ^ ((((b >> (<$bits>::BITS - 1)) as <$bits as Unsigned>::U) >> 1) as $bits)
    }};
}

/// The unsigned type of a signed one (for the logical shift in `order_key!`).
trait Unsigned {
    type U;
}
impl Unsigned for i32 {
    type U = u32;
}
impl Unsigned for i64 {
    type U = u64;
}

float_ops!(f32 => i32; f64 => i64);

/// Step 1, `reduce_atomic`: every thread walks the range with a grid stride and combines each
/// element straight into `*dst` with one global atomic (`red.global.add`, or a CAS loop for
/// float min/max and user operations). The host sets `*dst` to the identity first.
///
/// Why it is slow: every atomic on the one address is serialised in L2, one element at a time.
/// Measured (H100, f32 sum): 2 GB/s at every size: each add waits for the last one.
///
/// # Safety
/// `src` valid for `n` elements; `dst` a valid global address.
#[inline(always)]
pub unsafe fn reduce_atomic<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let stride = grid_dim_x() as u64 * THREADS as u64;
    let mut i = block_x() as u64 * THREADS as u64 + thread_x() as u64;
    while i < n {
        // SAFETY: `i < n`: inside `src`, which holds `n` elements; `dst` is a valid global address
        // (this function's contract), combined into by atomics alone.
        unsafe { O::atomic_combine(dst, global::read(src.add(i as usize))) };
        i += stride;
    }
}

/// One element per thread into shared memory (the identity past the end).
#[inline(always)]
unsafe fn load_one<T: Element, O: ReduceOp<T>>(src: *const T, n: u64) -> T {
    let i = block_x() as u64 * elements_per_block(false) + thread_x() as u64;
    // SAFETY: `i < n`: inside `src`, which holds `n` elements (the calling rungs' contract).
    if i < n { unsafe { global::read(src.add(i as usize)) } } else { O::identity() }
}

/// Two elements per thread, `THREADS` apart, combined while loading.
#[inline(always)]
unsafe fn load_first_add<T: Element, O: ReduceOp<T>>(src: *const T, n: u64) -> T {
    let i = block_x() as u64 * elements_per_block(true) + thread_x() as u64;
    // SAFETY: `i < n`: inside `src`, which holds `n` elements (the calling rungs' contract).
    let a = if i < n { unsafe { global::read(src.add(i as usize)) } } else { O::identity() };
    let j = i + THREADS as u64;
    // SAFETY: `j < n`: inside `src`.
    let b = if j < n { unsafe { global::read(src.add(j as usize)) } } else { O::identity() };
    O::combine(a, b)
}

/// `shared[a] = combine(shared[a], shared[b])`.
#[inline(always)]
unsafe fn combine_at<T: Element, O: ReduceOp<T>>(smem: SharedSlice<T>, (a, b): (u32, u32)) {
    // SAFETY: the callers pass pairs of `bankwise_layout::reduce`'s trees, both below `THREADS`:
    // inside `smem`, the launch's `THREADS` slots. Within a step each `a` has one thread and no `b`
    // is an `a`, and a barrier separates the steps.
    unsafe {
        let v = O::combine(smem.read(a as usize), smem.read(b as usize));
        smem.write(a as usize, v);
    }
}

/// Step 2, `reduce_interleaved_divergent`: the classic shared-memory tree of the parallel-sum
/// article and of Mark Harris's "Optimizing Parallel Reduction in CUDA". Each block loads
/// `THREADS` elements into shared memory, then at step `s = 1, 2, 4, …` thread `tid` with
/// `tid % (2s) == 0` adds `shared[tid + s]` into `shared[tid]`, with `__syncthreads` between
/// steps; thread 0 writes the block's partial to `dst[block]`. The host relaunches over the
/// partials until one is left.
///
/// Changes from step 1: no atomics; a block cooperates through shared memory. Slow part: the
/// active threads are spread over all warps (`tid % 2s`), so every warp diverges and stays
/// resident for every step. Measured (H100, f32 sum, 2^26): 878 GB/s.
///
/// # Safety
/// `src` valid for `n` elements, `dst` for `ceil(n / THREADS)`; `THREADS` threads per block
/// and `THREADS · size_of::<T>()` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn reduce_interleaved_divergent<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_one::<T, O>(src, n)) };
    sync_threads();
    let mut s = 1;
    while s < THREADS {
        if let Some(ab) = interleaved_divergent(tid, s) {
            // SAFETY: a pair of the tree's step (see `combine_at`), after the barrier that ended
            // the step before.
            unsafe { combine_at::<T, O>(smem, ab) };
        }
        sync_threads();
        s *= 2;
    }
    if tid == 0 {
        // SAFETY: `dst` holds one element per block (this function's contract), written by the
        // block's thread 0 alone; slot 0 holds the block's result, ordered before this read by the
        // tree's last barrier.
        unsafe { global::write(dst.add(block_x() as usize), smem.read(0)) };
    }
}

/// Step 3, `reduce_interleaved_strided`: thread `tid` works on `index = 2·s·tid`, so the
/// active threads are the lowest ones and whole warps retire (no divergence until fewer than
/// 32 threads are active).
///
/// New problem: a warp's indices are `2s` words apart, a `2s`-way shared-memory bank conflict
/// (16-way at `s = 8`, 32-way beyond; `bankwise::banks` computes it from
/// `bankwise_layout::reduce::interleaved_strided`).
/// Measured (H100, f32 sum, 2^26): 693 GB/s, below the divergent rung; Nsight Compute:
/// 3.86 wavefronts per shared load (the bank model and the emulator: 3.80) and 2.75 per store
/// (2^20).
///
/// # Safety
/// As [`reduce_interleaved_divergent`].
#[inline(always)]
pub unsafe fn reduce_interleaved_strided<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_one::<T, O>(src, n)) };
    sync_threads();
    let mut s = 1;
    while s < THREADS {
        if let Some(ab) = interleaved_strided(tid, s, THREADS) {
            // SAFETY: a pair of the tree's step (see `combine_at`), after the barrier that ended
            // the step before.
            unsafe { combine_at::<T, O>(smem, ab) };
        }
        sync_threads();
        s *= 2;
    }
    if tid == 0 {
        // SAFETY: `dst` holds one element per block (this function's contract), written by the
        // block's thread 0 alone; slot 0 holds the block's result, ordered before this read by the
        // tree's last barrier.
        unsafe { global::write(dst.add(block_x() as usize), smem.read(0)) };
    }
}

/// The sequential-addressing tree from `shared[0..THREADS]` down to `shared[0..stop]`
/// (`stop` = 0: to one value), a `__syncthreads` after each step.
#[inline(always)]
unsafe fn sequential_tree<T: Element, O: ReduceOp<T>>(smem: SharedSlice<T>, tid: u32, stop: u32) {
    let mut s = THREADS / 2;
    while s > stop {
        if let Some(ab) = sequential(tid, s) {
            // SAFETY: a pair of the tree's step (see `combine_at`), after the barrier that ended
            // the step before.
            unsafe { combine_at::<T, O>(smem, ab) };
        }
        sync_threads();
        s /= 2;
    }
}

/// Step 4, `reduce_sequential`: sequential addressing. At step `s = THREADS/2, …, 1` thread
/// `tid < s` adds `shared[tid + s]` into `shared[tid]`.
///
/// Changes from step 3: a warp reads 32 consecutive words, one per bank (conflict-free), and
/// the active threads are still contiguous (no divergence in full warps). Half the threads
/// idle from the first step on, though.
/// Measured (H100, f32 sum, 2^26): 904 GB/s; 1.02 wavefronts per shared load.
///
/// # Safety
/// As [`reduce_interleaved_divergent`].
#[inline(always)]
pub unsafe fn reduce_sequential<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_one::<T, O>(src, n)) };
    sync_threads();
    // SAFETY: `smem` is the launch's `THREADS` slots, and every thread of the block calls the tree
    // (its barriers).
    unsafe { sequential_tree::<T, O>(smem, tid, 0) };
    if tid == 0 {
        // SAFETY: `dst` holds one element per block (this function's contract), written by the
        // block's thread 0 alone; slot 0 holds the block's result, ordered before this read by the
        // tree's last barrier.
        unsafe { global::write(dst.add(block_x() as usize), smem.read(0)) };
    }
}

/// Step 5, `reduce_first_add`: each thread loads two elements `THREADS` apart and combines
/// them before writing shared memory, so a block reduces `2 · THREADS` elements.
///
/// Changes from step 4: half the blocks for the same input; no thread is idle during the
/// first combine, and each thread has two loads in flight.
/// Measured (H100, f32 sum, 2^26): 1664 GB/s (1.8×).
///
/// # Safety
/// As [`reduce_interleaved_divergent`], with `dst` valid for `ceil(n / (2 · THREADS))`.
#[inline(always)]
pub unsafe fn reduce_first_add<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_first_add::<T, O>(src, n)) };
    sync_threads();
    // SAFETY: `smem` is the launch's `THREADS` slots, and every thread of the block calls the tree
    // (its barriers).
    unsafe { sequential_tree::<T, O>(smem, tid, 0) };
    if tid == 0 {
        // SAFETY: `dst` holds one element per block (this function's contract), written by the
        // block's thread 0 alone; slot 0 holds the block's result, ordered before this read by the
        // tree's last barrier.
        unsafe { global::write(dst.add(block_x() as usize), smem.read(0)) };
    }
}

/// Step 6, `reduce_unrolled_warp`: once 64 values are left, the first warp finishes alone,
/// unrolled, without `__syncthreads`.
///
/// The parallel-sum article and Harris's 2007 slides do the last six steps with no synchronisation at all,
/// relying on a warp's lanes running in lockstep through a `volatile` array
/// ([`reduce_unrolled_warp_unsynced`]). Since Volta (independent thread scheduling) lanes of a
/// warp may be at different instructions, so lane `i` reading `shared[i + 16]` while lane
/// `i + 16` writes it is a data race: it can read the old or the new value. Here each step
/// reads, `__syncwarp`s, writes, `__syncwarp`s (`bar.warp.sync`), which orders the lanes'
/// shared-memory accesses; still far cheaper than `__syncthreads`.
///
/// Changes from step 5: the last 6 steps without block barriers, and no idle warps waiting
/// at them. Measured (H100, f32 sum, 2^26): 2194 GB/s (1.3×).
///
/// # Safety
/// As [`reduce_first_add`].
#[inline(always)]
pub unsafe fn reduce_unrolled_warp<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_first_add::<T, O>(src, n)) };
    sync_threads();
    // SAFETY: `smem` is the launch's `THREADS` slots, and every thread of the block calls the tree
    // (its barriers).
    unsafe { sequential_tree::<T, O>(smem, tid, WARP) };
    if tid < WARP {
        // SAFETY: `tid < WARP`: this lane's slot, written in the tree before its last barrier.
        let mut v = unsafe { smem.read(tid as usize) };
        let mut s = WARP;
        while s > 0 {
            // SAFETY: `tid + s < 2 · WARP ≤ THREADS`; the `sync_warp` after the previous step's
            // writes orders them before this read.
            v = O::combine(v, unsafe { smem.read((tid + s) as usize) });
            sync_warp(FULL_MASK); // every lane has read before any lane overwrites
            // SAFETY: this lane's own slot; the `sync_warp` above ordered every lane's read of it
            // before this write.
            unsafe { smem.write(tid as usize, v) };
            sync_warp(FULL_MASK); // every lane has written before the next step reads
            s /= 2;
        }
        if tid == 0 {
            // SAFETY: `dst` holds one element per block (this function's contract), written by the
            // block's thread 0 alone.
            unsafe { global::write(dst.add(block_x() as usize), v) };
        }
    }
}

/// Not a rung of the ladder: `reduce_unrolled_warp` as the parallel-sum article and Harris's
/// 2007 slides wrote it, the last six steps done warp-synchronously with no synchronisation at
/// all (each step reads `shared[tid + s]`, combines, writes `shared[tid]`), relying on the
/// lanes of a warp running in lockstep. Its shared accesses in those steps are volatile
/// (`ld/st.volatile.shared`), as the original's `volatile` array made them: without it LLVM
/// keeps only the last of each lane's six stores, and the kernel would not even be racy, just
/// wrong.
///
/// Teaches: why that is wrong now. Since Volta (independent thread scheduling) the lanes of a
/// warp are not in lockstep and may be at different instructions, so lane `i` reading
/// `shared[i + 16]` while lane `i + 16` writes it is a data race: it can read the old or the
/// new value. [`reduce_unrolled_warp`] puts a `__syncwarp` between each step's reads and its
/// writes and another after the writes.
///
/// Measured on an H100 (CUDA 13.0, 2026-11-23, 2^20 u32): the sum comes out right, so no
/// result shows the race. `compute-sanitizer --tool racecheck --racecheck-report all` does
/// see it, as 2,113,541 "Warp Level Programming" RAW hazard *warnings* (0 errors: lane 16
/// writes what lane 0 then reads), after 196 s for that one launch. bankwise's CPU emulator
/// reports it in milliseconds on any machine: the race on shared memory, naming the read's and
/// the write's sites (the two lines of the loop) and the two threads. Its sum there comes out
/// wrong, too: the emulator runs each lane on to its next synchronisation point before the
/// next lane starts, so lane 0 combines values that its neighbours have not updated yet.
///
/// # Safety
/// As [`reduce_first_add`]; the race is by design, so the result is not guaranteed: launch it
/// only to show the race.
#[inline(always)]
pub unsafe fn reduce_unrolled_warp_unsynced<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_first_add::<T, O>(src, n)) };
    sync_threads();
    // SAFETY: `smem` is the launch's `THREADS` slots, and every thread of the block calls the tree
    // (its barriers).
    unsafe { sequential_tree::<T, O>(smem, tid, WARP) };
    if tid < WARP {
        // SAFETY: `tid < WARP`: this lane's slot, written in the tree before its last barrier.
        let mut v = unsafe { smem.at(tid as usize).read_volatile() };
        let mut s = WARP;
        while s > 0 {
            // The race: lane `tid + s` may write `shared[tid + s]` before or after this read.
            // SAFETY: `tid + s < 2 · WARP ≤ THREADS`, inside `smem`. Not ordered with lane `tid +
            // s`'s write: that race is what this kernel shows (its `# Safety`), and the volatile
            // load reads the old value or the new one.
            v = O::combine(v, unsafe { smem.at((tid + s) as usize).read_volatile() });
            // SAFETY: this lane's own slot, inside `smem`; other lanes' reads of it race with this
            // write, by design (see the read above).
            unsafe { smem.at(tid as usize).write_volatile(v) };
            s /= 2;
        }
        if tid == 0 {
            // SAFETY: `dst` holds one element per block (this function's contract), written by the
            // block's thread 0 alone.
            unsafe { global::write(dst.add(block_x() as usize), v) };
        }
    }
}

/// Step 7, `reduce_shuffle`: the last warp combines the 64 remaining values in registers
/// with `shfl.sync.down` (SASS `SHFL.DOWN`) instead of through shared memory.
///
/// Changes from step 6: no shared-memory traffic and no `__syncwarp` in the last 5 steps; a
/// shuffle both moves and synchronises. Measured (H100, f32 sum, 2^26): 2228 GB/s.
///
/// # Safety
/// As [`reduce_first_add`].
#[inline(always)]
pub unsafe fn reduce_shuffle<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, n: u64) {
    let smem = shared::dynamic::<T>();
    let tid = thread_x();
    // SAFETY: `tid < THREADS`: this thread's slot, written before the barrier below; `src`
    // holds the `n` elements the load reads (this function's contract).
    unsafe { smem.at(tid as usize).write(load_first_add::<T, O>(src, n)) };
    sync_threads();
    // SAFETY: `smem` is the launch's `THREADS` slots, and every thread of the block calls the tree
    // (its barriers).
    unsafe { sequential_tree::<T, O>(smem, tid, WARP) };
    if tid < WARP {
        // SAFETY: `tid + WARP < 2 · WARP ≤ THREADS`: slots written in the tree, before its last
        // barrier.
        let v = unsafe { O::combine(smem.read(tid as usize), smem.read((tid + WARP) as usize)) };
        let v = warp::reduce::<T, O>(v);
        if tid == 0 {
            // SAFETY: `dst` holds one element per block (this function's contract), written by the
            // block's thread 0 alone.
            unsafe { global::write(dst.add(block_x() as usize), v) };
        }
    }
}

/// Combines element `k` of a 16-byte vector into accumulator `k`.
#[inline(always)]
fn fold<T: Element, O: ReduceOp<T>, const V: usize>(acc: &mut [T; V], words: &[u32; 4]) {
    // Safety: [T; V] is exactly the 16 bytes of a vector, plain data.
    let x: [T; V] = unsafe { core::mem::transmute_copy(words) };
    for k in 0..V {
        acc[k] = O::combine(acc[k], x[k]);
    }
}

/// Step 8, `reduce`: the tuned kernel and the library's default. Changes from step 7:
/// - a fixed grid (`BLOCKS_PER_SM` blocks per SM, from the device's SM count) with a
///   grid-stride loop, so each thread reduces many elements in registers before any shared
///   memory or barrier is involved;
/// - 16-byte loads (`LDG.E.128`), `UNROLL` of them issued before the first is used, on the
///   16-byte-aligned middle of the range; the unaligned head and the tail (each fewer than a
///   vector) element by element;
/// - one accumulator per vector lane (independent add chains), then the block by shuffles
///   (warp, then across warps through 8 shared slots): two barriers per block in total;
/// - one launch: each block writes its partial, fences, and takes a ticket from an atomic
///   counter; the last block to retire adds all partials in block order (deterministic) and
///   writes the result, then resets the counter to 0 for the next launch.
///
/// Measured (H100, f32 sum): 2953 GB/s at 2^26 and 3114 at 2^28 (CUB: 2.61 and 2.98
/// TB/s); 3.11–3.13 TB/s at 2^28 for every type.
///
/// # Safety
/// `src` valid for `n` elements, `dst` for 1, `partials` for `gridDim.x`, `counter` a `u32`
/// that is 0; `tuned::THREADS` threads per block and `tuned::SHARED_BYTES` of dynamic shared
/// memory.
#[inline(always)]
pub unsafe fn reduce_tuned<T: Element, O: ReduceOp<T>, const V: usize>(
    dst: *mut T,
    partials: *mut T,
    counter: *mut u32,
    src: *const T,
    n: u64,
) {
    let slots = shared::dynamic::<T>();
    // Safety: the launch gives `tuned::SHARED_BYTES`, which ends past the flag (offset 64).
    let flag = unsafe { SharedArray::<u32, 1>::new_unchecked(tuned::FLAG_OFFSET) };
    let (tid, block, grid) = (thread_x(), block_x(), grid_dim_x());
    let threads = tuned::THREADS as u64;
    let parts = split(src as u64, n, size_of::<T>() as u64);
    let mut acc = [O::identity(); V];
    if block == 0 && (tid as u64) < parts.head {
        // SAFETY: `tid < parts.head ≤ n`: inside `src`, which holds `n` elements (this function's
        // contract).
        acc[0] = unsafe { global::read(src.add(tid as usize)) };
    }
    // SAFETY: `parts.head ≤ n`: inside `src` or one past its end.
    let vectors = unsafe { src.add(parts.head as usize) }.cast::<[u32; 4]>();
    let per_block = threads * tuned::UNROLL as u64;
    let stride = grid as u64 * per_block;
    let mut first = block as u64 * per_block + tid as u64;
    while first + (tuned::UNROLL as u64 - 1) * threads < parts.vectors {
        // No per-load predicate: all UNROLL loads issue back to back.
        let mut held = [[0u32; 4]; tuned::UNROLL as usize];
        for (k, h) in held.iter_mut().enumerate() {
            // SAFETY: `first + k · threads < parts.vectors` (the loop's condition): a whole
            // 16-byte-aligned vector of the middle of `src` (`split`).
            *h = unsafe { load_global_v4(vectors.add((first + k as u64 * threads) as usize)) };
        }
        for h in &held {
            fold::<T, O, V>(&mut acc, h);
        }
        first += stride;
    }
    for k in 0..tuned::UNROLL as u64 {
        let i = first + k * threads;
        if i < parts.vectors {
            // SAFETY: `i < parts.vectors`: a whole 16-byte-aligned vector of the middle of `src`
            // (`split`).
            fold::<T, O, V>(&mut acc, &unsafe { load_global_v4(vectors.add(i as usize)) });
        }
    }
    let tail_start = parts.head + parts.vectors * V as u64;
    if block == 0 && (tid as u64) < parts.tail {
        // SAFETY: `tail_start + tid < head + vectors · V + tail = n`: inside `src`.
        acc[0] = O::combine(acc[0], unsafe { global::read(src.add((tail_start + tid as u64) as usize)) });
    }
    // The accumulators pairwise, then the block.
    let mut width = V;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] = O::combine(acc[2 * k], acc[2 * k + 1]);
        }
    }
    // SAFETY: `tuned::THREADS` threads along x, and `slots`, the start of the launch's
    // `tuned::SHARED_BYTES`, holds a slot per warp before the flag (offset 64), which nothing else
    // touches meanwhile.
    let v = unsafe { block::reduce::<T, O, { tuned::THREADS }>(acc[0], slots) };
    if tid == 0 {
        // SAFETY: `partials` holds `gridDim.x` elements (this function's contract); the block's
        // thread 0 alone writes its own.
        unsafe { global::write(partials.add(block as usize), v) };
        fence_device(); // the partial is visible device-wide before the ticket is
        // SAFETY: `counter` is a valid `u32` (this function's contract), which every block accesses
        // with this atomic until the last block, after its ticket, resets it.
        let last = unsafe { atomic::add(counter, 1, Scope::Device) } == grid - 1;
        if last {
            fence_device(); // and every other block's partial before ours is read
        }
        // SAFETY: thread 0 alone writes the flag, inside the launch's shared memory; the barrier
        // below orders the write before every read.
        unsafe { flag.write(0, last as u32) };
    }
    sync_threads();
    // SAFETY: the flag, written by thread 0 before the barrier above.
    if unsafe { flag.read(0) } == 0 {
        return;
    }
    let mut r = O::identity();
    let mut i = tid;
    while i < grid {
        // Volatile: straight from L2, never a stale L1 line.
        // SAFETY: `i < grid`: a partial of `partials`, written and fenced by its block before that
        // block took its ticket; this, the last block, fenced after taking the last ticket.
        r = O::combine(r, unsafe { global::read_volatile(partials.add(i as usize)) });
        i += tuned::THREADS;
    }
    // SAFETY: as the first reduce: `slots` is free again, since `block::reduce` returns past its
    // last barrier.
    let r = unsafe { block::reduce::<T, O, { tuned::THREADS }>(r, slots) };
    if tid == 0 {
        // SAFETY: `dst` holds one element (this function's contract), written by the last block's
        // thread 0 alone; every block has taken its ticket, so no other thread accesses `counter`
        // any more.
        unsafe {
            global::write(dst, r);
            global::write_volatile(counter, 0);
        }
    }
}

/// Bytes of shared memory a tree rung (`reduce_interleaved_divergent` … `reduce_shuffle`)
/// declares for elements of `T`: one slot per thread.
pub const fn tree_shared_bytes<T>() -> u32 {
    THREADS * core::mem::size_of::<T>() as u32
}

/// A tree rung's parameters: `dst` (one value per block), `src`, `n`.
#[cfg(not(target_arch = "nvptx64"))]
pub type TreeParams<T> = (*mut T, *const T, u64);
/// The tuned rung's parameters: `dst`, `partials` (one per block), the retirement `counter`,
/// `src`, `n`.
#[cfg(not(target_arch = "nvptx64"))]
pub type TunedParams<T> = (*mut T, *mut T, *mut u32, *const T, u64);

/// The entries [`reduce_ladder!`] instantiated for an operation and element type `T`: the
/// typed lookup a host uses instead of names (implemented by the ladder type the macro
/// declares; host forms only).
#[cfg(not(target_arch = "nvptx64"))]
pub trait Ladder<T> {
    /// `reduce_atomic_<op>_<t>`.
    const ATOMIC: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_interleaved_divergent_<op>_<t>`.
    const INTERLEAVED_DIVERGENT: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_interleaved_strided_<op>_<t>`.
    const INTERLEAVED_STRIDED: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_sequential_<op>_<t>`.
    const SEQUENTIAL: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_first_add_<op>_<t>`.
    const FIRST_ADD: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_unrolled_warp_<op>_<t>`.
    const UNROLLED_WARP: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_shuffle_<op>_<t>`.
    const SHUFFLE: bankwise_device::KernelEntry<TreeParams<T>>;
    /// `reduce_<op>_<t>`, the tuned one-pass kernel.
    const TUNED: bankwise_device::KernelEntry<TunedParams<T>>;
}

/// Instantiates the whole ladder for an operation and element types: entries
/// `reduce_atomic_<op>_<t>`, `reduce_interleaved_divergent_<op>_<t>`,
/// `reduce_interleaved_strided_<op>_<t>`, `reduce_sequential_<op>_<t>`,
/// `reduce_first_add_<op>_<t>`, `reduce_unrolled_warp_<op>_<t>`, `reduce_shuffle_<op>_<t>`
/// and `reduce_<op>_<t>`, each a `#[kernel]` declaring its shared memory, and a unit type
/// `$Ladder` implementing [`Ladder<$t>`](Ladder) for each `$t` (in the host form), by which a
/// host finds them: `reduce_ladder!(SumLadder = sum: Sum; f32, f64)`. `$op` names the entries,
/// `$Op` is a type implementing [`ReduceOp`] for each `$t`. The calling crate must depend on
/// `bankwise_device` (which `#[kernel]`'s expansion names).
#[macro_export]
macro_rules! reduce_ladder {
    ($Ladder:ident = $op:ident: $Op:ty; $($t:ident),+ $(,)?) => {
        /// The typed lookup of this operation's reduction entries (`Ladder<T>` per element type).
        #[derive(Clone, Copy, Debug)]
        pub struct $Ladder;
        $(
        const _: () = {
            $crate::reduce_ladder!(@rung atomic: reduce_atomic, "reduce_atomic_", 0, $op, $Op, $t);
            $crate::reduce_ladder!(@rung divergent: reduce_interleaved_divergent, "reduce_interleaved_divergent_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            $crate::reduce_ladder!(@rung strided: reduce_interleaved_strided, "reduce_interleaved_strided_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            $crate::reduce_ladder!(@rung sequential: reduce_sequential, "reduce_sequential_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            $crate::reduce_ladder!(@rung first_add: reduce_first_add, "reduce_first_add_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            $crate::reduce_ladder!(@rung unrolled_warp: reduce_unrolled_warp, "reduce_unrolled_warp_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            $crate::reduce_ladder!(@rung shuffle: reduce_shuffle, "reduce_shuffle_",
                $crate::reduce::tree_shared_bytes::<$t>(), $op, $Op, $t);
            /// # Safety
            /// See `reduce_tuned`.
            #[$crate::__device::kernel(shared = $crate::__layout::reduce::tuned::SHARED_BYTES)]
            #[unsafe(export_name = concat!("reduce_", stringify!($op), "_", stringify!($t)))]
            pub unsafe fn tuned(dst: *mut $t, partials: *mut $t, counter: *mut u32, src: *const $t, n: u64) {
                // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
                // callee's.
                unsafe {
                    $crate::reduce::reduce_tuned::<$t, $Op, { 16 / core::mem::size_of::<$t>() }>(dst, partials, counter, src, n)
                }
            }
            #[cfg(not(target_arch = "nvptx64"))]
            impl $crate::reduce::Ladder<$t> for $Ladder {
                const ATOMIC: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = atomic;
                const INTERLEAVED_DIVERGENT: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = divergent;
                const INTERLEAVED_STRIDED: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = strided;
                const SEQUENTIAL: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = sequential;
                const FIRST_ADD: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = first_add;
                const UNROLLED_WARP: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = unrolled_warp;
                const SHUFFLE: $crate::__device::KernelEntry<$crate::reduce::TreeParams<$t>> = shuffle;
                const TUNED: $crate::__device::KernelEntry<$crate::reduce::TunedParams<$t>> = tuned;
            }
        };
        )+
    };
    (@rung $name:ident: $rung:ident, $prefix:literal, $shared:expr, $op:ident, $Op:ty, $t:ident) => {
        /// # Safety
        /// See the generic kernel of this rung.
        #[$crate::__device::kernel(shared = $shared)]
        #[unsafe(export_name = concat!($prefix, stringify!($op), "_", stringify!($t)))]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, n: u64) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { $crate::reduce::$rung::<$t, $Op>(dst, src, n) }
        }
    };
}
