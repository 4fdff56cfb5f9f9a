//! One `#[kernel]` entry per `bankwise-device` primitive (or small group of them), each writing
//! what it observed to a global output buffer: compiled with `-D warnings`, this crate checks
//! that the whole device API builds for the GPU; launched, each entry is a GPU test of its
//! primitive, to compare against the primitive's definition on the host.
//!
//! Build it by hand with `cd kernels && cargo +nightly-2026-05-20 rustc -p
//! bankwise-primitives --release -- --emit=asm -C target-cpu=sm_70 -C linker=true -D warnings`
//! (`cargo clippy` alone does not instantiate the generic primitives, whose size checks fire only
//! then), or from a host build script with `bankwise_builder::PtxBuilder`.
//!
//! In the host form every entry is a constant of its name (a typed `KernelEntry`); the entries
//! instantiated per operation and type are also found through `Atomic` and `Shuffled` (host
//! form only; see `lookup.rs`).
//!
//! Conventions. `g` is the thread's global index in a 1-D launch (`blockIdx.x · blockDim.x +
//! threadIdx.x`), `t` its index in the block, `lane = t % 32`. Launches are 1-D and use whole
//! warps unless an entry says otherwise. "Sample `i`" is the value [`Sample::sample`] gives for
//! `i` (for `u32`: `3i + 1`; `u64`: `i << 32 | 3i + 1`; `f64`: `i + 0.5`; [`Pair`]:
//! `{ value: 1.5 · i, index: i }`). `scope` parameters: 0 block, 1 device, 2 (or more) system;
//! with scope 0 launch a single block, since block-scoped atomics are atomic only within one.
//!
//! | entry | launch | writes |
//! | --- | --- | --- |
//! | `thread_indices(out: *mut u32)` | any 3-D grid and block | 16 words per thread at `16 · linear`, where `linear` numbers the blocks x-fastest and the threads within by `thread_linear`: `threadIdx.xyz, blockIdx.xyz, blockDim.xyz, gridDim.xyz, lane_id, warp_id, thread_linear, 0` |
//! | `global_index(out: *mut u64)` | any 2-D grid and block | at `3 · (index_2d.y · gridDim.x · blockDim.x + index_2d.x)`: `index_1d, index_2d.x, index_2d.y` |
//! | `barrier_reductions(out: *mut u32, modulus: u32)` | one 1-D block | at `3t`, predicate `t % modulus == 0` (false for modulus 0): `sync_threads_count, sync_threads_and, sync_threads_or` (bools as 0/1) |
//! | `block_exchange(out: *mut u32)` | 1-D, `4 · blockDim` bytes of dynamic shared memory | `out[g]` = what thread `blockDim − 1 − t` wrote before `sync_threads`: `3(blockDim − 1 − t) + 2` |
//! | `warp_exchange(out: *mut u32)` | 1-D, `4 · blockDim` bytes of dynamic shared memory | `out[g]` = what lane `(lane + 1) % 32` of the same warp wrote before `sync_warp`: `7 · (t − lane + (lane + 1) % 32) + 1` |
//! | `shfl_{down,up,xor,idx}_{u32,u64,f64,pair}(out: *mut T, arg: u32)` | 1-D | `out[g]` = the shuffle (full mask) of sample `g` with `arg`: down, lane `l` gets sample of lane `l + arg` if `l + arg < 32`, else its own; up, lane `l − arg` if `l ≥ arg`, else its own; xor, lane `l ^ arg` (`arg < 32`); idx, lane `arg % 32` (lanes named within the thread's warp) |
//! | `votes(out: *mut u32, modulus: u32)` | 1-D | at `3g`, predicate `lane % modulus == 0` (false for modulus 0): `all, any, ballot` over the full warp |
//! | `active_mask_divergent(out: *mut u32)` | 1-D | at `3g`: `active_mask()` with the warp converged (`0xffff_ffff` for a full warp); for even lanes `active_mask()` inside `if lane % 2 == 0` (the even lanes only, `0x5555_5555` when they run together; it never holds an odd lane), 0 for odd lanes; the lane's own bit (`1 << lane`), which the divergent mask must contain, for even lanes, else 0 |
//! | `fence_message(data: *mut u32, flag: *mut u32, out: *mut u32, n: u32, scope: u32)` | scope 0: one block of at least 64 threads; scopes 1, 2: two blocks of one thread; `*flag` = 0 | a producer (thread 0 of block 0) writes `data[k] = k² + 1` for `k < n`, fences at the scope (`fence_block`/`fence_device`/`fence_system`) and sets `*flag` = 1 by an atomic exchange; the consumer (thread 32 of block 0 for scope 0, else thread 0 of block 1) spins on `*flag` with atomic adds of 0, fences, and copies `data[0..n]` (volatile loads) into `out[0..n]`: expect `out[k] = k² + 1` |
//! | `atomic_{add,exchange}_{u32,i32,u64,i64,f32,f64}`, `atomic_{min,max}_{u32,i32,u64,i64}` `(target: *mut T, olds: *mut T, values: *const T, n: u32, scope: u32)` | 1-D | for `g < n`: `olds[g]` = the value `*target` had before this thread's operation with `values[g]` |
//! | `red_add_{u32,i32,u64,i64,f32,f64}`, `red_{min,max}_{u32,i32,u64,i64}` `(target: *mut T, values: *const T, n: u32, scope: u32)` | 1-D | for `g < n`: `*target` combined with `values[g]`, no return value |
//! | `atomic_cas_{u32,i32,u64,i64,f32,f64}(target: *mut T, olds: *mut T, expected: *const T, new: *const T, n: u32, scope: u32)` | 1-D | for `g < n`: `olds[g]` = `compare_and_swap(&target[g], expected[g], new[g])`'s old value; `target[g] = new[g]` where it had `expected[g]`'s bits |
//! | `atomic_cas_increment_{u32,i32,u64,i64,f32,f64}(counter: *mut T, n: u32, scope: u32)` | 1-D, `*counter` = 0 | each `g < n` adds one (`1` or `1.0`) to `*counter` by a compare-and-swap loop: expect `n` |
//! | `shared_atomic_{add,exchange}_{u32,i32,u64,i64,f32,f64}`, `shared_atomic_{min,max}_{u32,i32,u64,i64}` `(result: *mut T, olds: *mut T, values: *const T, initial: T)` | one 1-D block, 16 bytes of dynamic shared memory | one shared element starts at `initial`; `olds[t]` = its value before thread `t`'s operation with `values[t]`; `*result` = its final value |
//! | `shared_atomic_cas_{u32,i32,u64,i64,f32,f64}(result: *mut T, olds: *mut T, initial: *const T, expected: *const T, new: *const T)` | one 1-D block, `8 · blockDim` bytes | shared element `t` starts at `initial[t]`; `olds[t]` = its value before `compare_and_swap(expected[t], new[t])`; `result[t]` = its value after |
//! | `shared_cas_increment_{u32,i32,u64,i64,f32,f64}(result: *mut T)` | one 1-D block, 16 bytes | every thread adds one to a shared element (from 0) by a compare-and-swap loop; `*result` = `blockDim` |
//! | `clock_monotonic(out: *mut u64, reads: u32)`, `global_timer_monotonic(out: *mut u64, reads: u32)` | 1-D | at `3g`: the first of `reads` (at least 1) consecutive readings of `clock64` / `global_timer`, the last, and how many readings were below the one before (expect 0) |
//! | `shared_views(out: *mut u32, offset: u32, len: u32)` | one 1-D block, any dynamic shared memory | thread 0: `out[0]` = `dynamic_size()`, `out[1]` = `dynamic::<u32>().len()`, `out[2]` = `SharedSlice::<u32>::new(offset, len)` as 0 (ok) / 1 (misaligned) / 2 (too small), `out[3]` = its `needed` if too small, else 0, `out[4]` = `SharedArray::<u64, 4>::new(offset)` coded so, `out[5]` = `SharedArray::<u64, 4>::BYTES` (32), `out[6]` = the `u32` view cast to bytes, `.len()` (`4 · len` when ok, else 0), `out[7]` = 0; when the view is ok, every thread `t < len` writes `5t + 3` to element `t`, and after a barrier `out[8 + t]` = element `(t + 1) % len` |
//! | `copy_v4{,_streaming,_nc}(dst: *mut [u32; 4], src: *const [u32; 4], n: u64)`, `copy_u64_{streaming,nc}(dst: *mut u64, src: *const u64, n: u64)`, `copy_u32_nc(dst: *mut u32, src: *const u32, n: u64)` | 1-D | `dst[g] = src[g]` for `g < n`, through `load_global_v4`/`store_global_v4`, their `.cs` forms, `load_global_nc_*` (with a plain store), `load/store_global_streaming` |
//! | `planted_off_by_one(dst: *mut u32, src: *const u32, n: u64)` | never on a GPU: the emulator only | deliberately wrong, for the emulator's out-of-bounds test: `dst[g] = src[g]` for `g <= n`, so thread `g = n` reads `src[n]`, one past its end (the emulator stops there) |
#![no_std]

use bankwise_device::atomic::{self, Scope};
use bankwise_device::fence::{fence_block, fence_device, fence_system};
use bankwise_device::global;
use bankwise_device::memory::{
    load_global_nc_u32, load_global_nc_u64, load_global_nc_v4, load_global_streaming, load_global_streaming_v4,
    load_global_v4, store_global_streaming, store_global_streaming_v4, store_global_v4,
};
use bankwise_device::shared::{self, SharedArray, SharedError, SharedSlice};
use bankwise_device::thread::{
    block_dim_x, block_dim_y, block_dim_z, block_x, block_y, block_z, grid_dim_x, grid_dim_y, grid_dim_z, index_1d,
    index_2d, lane_id, sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, thread_linear, thread_x,
    thread_y, thread_z, warp_id,
};
use bankwise_device::time::{clock64, global_timer};
use bankwise_device::warp::{self, FULL_MASK, active_mask, ballot, sync_warp};
use bankwise_device::{Plain, kernel};

#[cfg(not(target_arch = "nvptx64"))]
mod lookup;
#[cfg(not(target_arch = "nvptx64"))]
pub use lookup::{
    Atomic, AtomicOp, AtomicParams, CasIncrementParams, CasParams, CopyParams, RedParams, SharedAtomicParams,
    SharedCasIncrementParams, SharedCasParams, ShuffleKind, ShuffleParams, Shuffled,
};

/// An 8-byte struct for the generic shuffles (an argmax's `(value, index)`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Pair {
    /// The value.
    pub value: f32,
    /// Where it came from.
    pub index: u32,
}

// Safety: an f32 and a u32, 8 bytes with no padding; every bit pattern is valid.
unsafe impl Plain for Pair {}

/// The value thread `i` contributes to a shuffle test.
pub trait Sample: Plain {
    /// Sample `i` (see the crate docs).
    fn sample(i: u32) -> Self;
}
impl Sample for u32 {
    fn sample(i: u32) -> Self {
        3 * i + 1
    }
}
impl Sample for u64 {
    fn sample(i: u32) -> Self {
        (i as u64) << 32 | (3 * i + 1) as u64
    }
}
impl Sample for f64 {
    fn sample(i: u32) -> Self {
        i as f64 + 0.5
    }
}
impl Sample for Pair {
    fn sample(i: u32) -> Self {
        Pair { value: 1.5 * i as f32, index: i }
    }
}

/// The kernels' `scope` parameter: 0 block, 1 device, anything else system.
fn scope_of(code: u32) -> Scope {
    match code {
        0 => Scope::Block,
        1 => Scope::Device,
        _ => Scope::System,
    }
}

/// `index_1d()` as a `usize` offset.
fn g() -> usize {
    index_1d() as usize
}

/// Writes the thread's indices; see the crate docs.
///
/// # Safety
/// `out` holds 16 words per launched thread.
#[kernel]
pub unsafe fn thread_indices(out: *mut u32) {
    let block = (block_z() * grid_dim_y() + block_y()) * grid_dim_x() + block_x();
    let threads = block_dim_x() * block_dim_y() * block_dim_z();
    let linear = block as usize * threads as usize + thread_linear() as usize;
    let words = [
        thread_x(),
        thread_y(),
        thread_z(),
        block_x(),
        block_y(),
        block_z(),
        block_dim_x(),
        block_dim_y(),
        block_dim_z(),
        grid_dim_x(),
        grid_dim_y(),
        grid_dim_z(),
        lane_id(),
        warp_id(),
        thread_linear(),
        0,
    ];
    for (k, w) in words.into_iter().enumerate() {
        // SAFETY: `out` holds 16 words per launched thread (this kernel's contract) and `linear`
        // numbers the launched threads: words `16 · linear + k`, `k < 16`, are inside it and this
        // thread's alone.
        unsafe { global::write(out.add(16 * linear + k), w) };
    }
}

/// Writes `index_1d` and `index_2d`; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per launched thread.
#[kernel]
pub unsafe fn global_index(out: *mut u64) {
    let (x, y) = index_2d();
    let at = 3 * (y * grid_dim_x() as u64 * block_dim_x() as u64 + x) as usize;
    // SAFETY: `out` holds 3 words per launched thread (this kernel's contract) and `at / 3` numbers
    // them: this thread's words, inside it.
    unsafe {
        global::write(out.add(at), index_1d());
        global::write(out.add(at + 1), x);
        global::write(out.add(at + 2), y);
    }
}

/// `sync_threads_count/and/or`; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per thread of the (single) block.
#[kernel]
pub unsafe fn barrier_reductions(out: *mut u32, modulus: u32) {
    let t = thread_x();
    let p = modulus != 0 && t.is_multiple_of(modulus);
    let count = sync_threads_count(p);
    let all = sync_threads_and(p);
    let any = sync_threads_or(p);
    let at = 3 * t as usize;
    // SAFETY: `out` holds 3 words per thread of the block (this kernel's contract): this thread's,
    // inside it.
    unsafe {
        global::write(out.add(at), count);
        global::write(out.add(at + 1), all as u32);
        global::write(out.add(at + 2), any as u32);
    }
}

/// `sync_threads` ordering shared-memory writes before reads across warps; see the crate docs.
///
/// # Safety
/// `out` holds one word per thread; the launch gives `4 · blockDim.x` bytes of dynamic shared
/// memory.
#[kernel]
pub unsafe fn block_exchange(out: *mut u32) {
    let (t, n) = (thread_x(), block_dim_x());
    let s = shared::dynamic::<u32>();
    // SAFETY: `t < blockDim.x`, and the launch gives `4 · blockDim.x` bytes (this kernel's
    // contract): this thread's own word, written before the barrier below.
    unsafe { s.write(t as usize, 3 * t + 2) };
    sync_threads();
    // SAFETY: `out` holds one word per thread, and `g` is this thread's; word `n − 1 − t` of shared
    // memory, written before the barrier above.
    unsafe { global::write(out.add(g()), s.read((n - 1 - t) as usize)) };
}

/// `sync_warp` ordering shared-memory writes before reads within a warp; see the crate docs.
///
/// # Safety
/// `out` holds one word per thread; the launch gives `4 · blockDim.x` bytes of dynamic shared
/// memory and whole warps.
#[kernel]
pub unsafe fn warp_exchange(out: *mut u32) {
    let (t, lane) = (thread_x(), lane_id());
    let s = shared::dynamic::<u32>();
    // SAFETY: `t < blockDim.x`, and the launch gives `4 · blockDim.x` bytes (this kernel's
    // contract): this thread's own word, written before the `sync_warp` below.
    unsafe { s.write(t as usize, 7 * t + 1) };
    sync_warp(FULL_MASK);
    // SAFETY: `out` holds one word per thread; the word read belongs to a lane of this warp (whole
    // warps: this kernel's contract), written before the `sync_warp` above.
    unsafe { global::write(out.add(g()), s.read((t - lane + (lane + 1) % 32) as usize)) };
}

/// The shuffle entries: `$name(out, arg)` writes `$shfl(FULL_MASK, sample(g), arg)`.
macro_rules! shuffles {
    ($($name:ident: $t:ty => $shfl:path;)+) => {$(
        /// A shuffle of sample `g`; see the crate docs.
        ///
        /// # Safety
        /// `out` holds one element per thread; the launch has whole warps.
        #[kernel]
        pub unsafe fn $name(out: *mut $t, arg: u32) {
            let v = <$t as Sample>::sample(index_1d() as u32);
            // SAFETY: `out` holds one element per thread (this kernel's contract), and `g` is this
            // thread's.
            unsafe { global::write(out.add(g()), $shfl(FULL_MASK, v, arg)) };
        }
    )+};
}

shuffles! {
    shfl_down_u32: u32 => warp::shfl_down_u32;
    shfl_up_u32: u32 => warp::shfl_up_u32;
    shfl_xor_u32: u32 => warp::shfl_xor_u32;
    shfl_idx_u32: u32 => warp::shfl_idx_u32;
    shfl_down_u64: u64 => warp::shfl_down_u64;
    shfl_up_u64: u64 => warp::shfl_up_u64;
    shfl_xor_u64: u64 => warp::shfl_xor_u64;
    shfl_idx_u64: u64 => warp::shfl_idx_u64;
    shfl_down_f64: f64 => warp::shfl_down;
    shfl_up_f64: f64 => warp::shfl_up;
    shfl_xor_f64: f64 => warp::shfl_xor;
    shfl_idx_f64: f64 => warp::shfl_idx;
    shfl_down_pair: Pair => warp::shfl_down;
    shfl_up_pair: Pair => warp::shfl_up;
    shfl_xor_pair: Pair => warp::shfl_xor;
    shfl_idx_pair: Pair => warp::shfl_idx;
}

/// `all`, `any`, `ballot`; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per thread; the launch has whole warps.
#[kernel]
pub unsafe fn votes(out: *mut u32, modulus: u32) {
    let lane = lane_id();
    let p = modulus != 0 && lane.is_multiple_of(modulus);
    let (all, any, mask) = (warp::all(FULL_MASK, p), warp::any(FULL_MASK, p), ballot(FULL_MASK, p));
    let at = 3 * g();
    // SAFETY: `out` holds 3 words per thread (this kernel's contract): this thread's.
    unsafe {
        global::write(out.add(at), all as u32);
        global::write(out.add(at + 1), any as u32);
        global::write(out.add(at + 2), mask);
    }
}

/// `active_mask` converged and in a divergent branch; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per thread.
#[kernel]
pub unsafe fn active_mask_divergent(out: *mut u32) {
    let (lane, at) = (lane_id(), 3 * g());
    // SAFETY: `out` holds 3 words per thread (this kernel's contract): this thread's.
    unsafe { global::write(out.add(at), active_mask()) };
    // Only one arm reads the mask, so the compiler cannot hoist the read above the branch.
    if lane % 2 == 0 {
        let m = active_mask();
        // SAFETY: this thread's words, as above.
        unsafe {
            global::write(out.add(at + 1), m);
            global::write(out.add(at + 2), 1 << lane);
        }
    } else {
        // SAFETY: this thread's words, as above.
        unsafe {
            global::write(out.add(at + 1), 0);
            global::write(out.add(at + 2), 0);
        }
    }
}

/// Publishes `data` behind a fence and an atomic flag; see the crate docs.
///
/// # Safety
/// `data` and `out` hold `n` words, `*flag` is 0, and the launch is as the crate docs say (else
/// the consumer spins forever).
#[kernel]
pub unsafe fn fence_message(data: *mut u32, flag: *mut u32, out: *mut u32, n: u32, scope: u32) {
    let s = scope_of(scope);
    let fence = || match s {
        Scope::Block => fence_block(),
        Scope::Device => fence_device(),
        Scope::System => fence_system(),
    };
    let (producer, consumer) = match s {
        Scope::Block => ((0, 0), (0, 32)),
        _ => ((0, 0), (1, 0)),
    };
    let me = (block_x(), thread_x());
    if me == producer {
        for k in 0..n {
            // SAFETY: `k < n`: inside `data`, which holds `n` words (this kernel's contract); the
            // producer alone writes it, and the consumer reads it only after the flag, ordered by
            // the fences.
            unsafe { global::write_volatile(data.add(k as usize), k * k + 1) };
        }
        fence();
        // SAFETY: `flag` is a valid word (this kernel's contract), accessed only by atomics while
        // the kernel runs.
        unsafe { atomic::exchange(flag, 1, s) };
    } else if me == consumer {
        // SAFETY: as the producer's exchange: `flag` is accessed only by atomics.
        while unsafe { atomic::add(flag, 0, s) } == 0 {}
        fence();
        for k in 0..n as usize {
            // SAFETY: `k < n`: inside `out` and `data` (this kernel's contract); the producer's
            // writes of `data` are ordered before this read by its fence, the flag and this
            // thread's fence.
            unsafe { global::write(out.add(k), global::read_volatile(data.add(k))) };
        }
    }
}

/// Global atomics that return the old value, per operation and type.
macro_rules! global_atomics {
    ($($name:ident: $t:ty => $op:path;)+) => {$(
        /// A global atomic of `values[g]` on `*target`, old value to `olds[g]`; see the crate
        /// docs.
        ///
        /// # Safety
        /// `target` valid; `olds` and `values` hold `n` elements.
        #[kernel]
        pub unsafe fn $name(target: *mut $t, olds: *mut $t, values: *const $t, n: u32, scope: u32) {
            let i = g();
            if i < n as usize {
                // SAFETY: `i < n`: inside `olds` and `values`, and `target` is valid (this kernel's
                // contract); every thread accesses `*target` by atomics only.
                unsafe { global::write(olds.add(i), $op(target, global::read(values.add(i)), scope_of(scope))) };
            }
        }
    )+};
}

global_atomics! {
    atomic_add_u32: u32 => atomic::add;
    atomic_add_i32: i32 => atomic::add;
    atomic_add_u64: u64 => atomic::add;
    atomic_add_i64: i64 => atomic::add;
    atomic_add_f32: f32 => atomic::add;
    atomic_add_f64: f64 => atomic::add;
    atomic_min_u32: u32 => atomic::min;
    atomic_min_i32: i32 => atomic::min;
    atomic_min_u64: u64 => atomic::min;
    atomic_min_i64: i64 => atomic::min;
    atomic_max_u32: u32 => atomic::max;
    atomic_max_i32: i32 => atomic::max;
    atomic_max_u64: u64 => atomic::max;
    atomic_max_i64: i64 => atomic::max;
    atomic_exchange_u32: u32 => atomic::exchange;
    atomic_exchange_i32: i32 => atomic::exchange;
    atomic_exchange_u64: u64 => atomic::exchange;
    atomic_exchange_i64: i64 => atomic::exchange;
    atomic_exchange_f32: f32 => atomic::exchange;
    atomic_exchange_f64: f64 => atomic::exchange;
}

/// Global `red` atomics, per operation and type.
macro_rules! global_reds {
    ($($name:ident: $t:ty => $op:path;)+) => {$(
        /// A global `red` of `values[g]` into `*target`; see the crate docs.
        ///
        /// # Safety
        /// `target` valid; `values` holds `n` elements.
        #[kernel]
        pub unsafe fn $name(target: *mut $t, values: *const $t, n: u32, scope: u32) {
            let i = g();
            if i < n as usize {
                // SAFETY: `i < n`: inside `values`, and `target` is valid (this kernel's contract);
                // every thread accesses `*target` by atomics only.
                unsafe { $op(target, global::read(values.add(i)), scope_of(scope)) };
            }
        }
    )+};
}

global_reds! {
    red_add_u32: u32 => atomic::red_add;
    red_add_i32: i32 => atomic::red_add;
    red_add_u64: u64 => atomic::red_add;
    red_add_i64: i64 => atomic::red_add;
    red_add_f32: f32 => atomic::red_add;
    red_add_f64: f64 => atomic::red_add;
    red_min_u32: u32 => atomic::red_min;
    red_min_i32: i32 => atomic::red_min;
    red_min_u64: u64 => atomic::red_min;
    red_min_i64: i64 => atomic::red_min;
    red_max_u32: u32 => atomic::red_max;
    red_max_i32: i32 => atomic::red_max;
    red_max_u64: u64 => atomic::red_max;
    red_max_i64: i64 => atomic::red_max;
}

/// Compare-and-swap entries per type, global and shared: one per element, and a contended
/// increment. `$one` is the type's 1.
macro_rules! cas {
    ($($t:ident: $one:expr => $cas:ident, $inc:ident, $shared_cas:ident, $shared_inc:ident;)+) => {$(
        /// `compare_and_swap` on `target[g]`; see the crate docs.
        ///
        /// # Safety
        /// `target`, `olds`, `expected` and `new` hold `n` elements.
        #[kernel]
        pub unsafe fn $cas(target: *mut $t, olds: *mut $t, expected: *const $t, new: *const $t, n: u32, scope: u32) {
            let i = g();
            if i < n as usize {
                // SAFETY: `i < n`: inside the four buffers (this kernel's contract); `target[i]` is
                // accessed by this thread's atomic alone.
                unsafe {
                    let old = atomic::compare_and_swap(target.add(i), global::read(expected.add(i)), global::read(new.add(i)), scope_of(scope));
                    global::write(olds.add(i), old);
                }
            }
        }

        /// Adds one to `*counter` by a compare-and-swap loop; see the crate docs.
        ///
        /// # Safety
        /// `counter` valid.
        #[kernel]
        pub unsafe fn $inc(counter: *mut $t, n: u32, scope: u32) {
            if g() < n as usize {
                let s = scope_of(scope);
                // SAFETY: `counter` is valid (this kernel's contract), and every thread accesses it
                // by atomics only.
                let mut old = unsafe { atomic::add(counter, 0 as $t, s) };
                loop {
                    // SAFETY: as above.
                    let seen = unsafe { atomic::compare_and_swap(counter, old, old + $one, s) };
                    if atomic::same_bits(seen, old) {
                        break;
                    }
                    old = seen;
                }
            }
        }

        /// `Shared::atomic_compare_and_swap` on shared element `t`; see the crate docs.
        ///
        /// # Safety
        /// One block; the pointers hold `blockDim.x` elements; `8 · blockDim.x` bytes of dynamic
        /// shared memory.
        #[kernel]
        pub unsafe fn $shared_cas(result: *mut $t, olds: *mut $t, initial: *const $t, expected: *const $t, new: *const $t) {
            let t = thread_x() as usize;
            let s = shared::dynamic::<$t>();
            // SAFETY: one block, `t < blockDim.x`: inside the buffers and the `8 · blockDim.x`
            // bytes of shared memory (this kernel's contract); shared element `t` is this thread's
            // alone.
            unsafe {
                s.write(t, global::read(initial.add(t)));
                let old = s.at(t).atomic_compare_and_swap(global::read(expected.add(t)), global::read(new.add(t)));
                global::write(olds.add(t), old);
                global::write(result.add(t), s.read(t));
            }
        }

        /// Every thread adds one to a shared element by a compare-and-swap loop; see the crate
        /// docs.
        ///
        /// # Safety
        /// One block; `result` valid; 16 bytes of dynamic shared memory.
        #[kernel]
        pub unsafe fn $shared_inc(result: *mut $t) {
            // SAFETY: offset 0 is aligned, and one element of at most 8 bytes fits the launch's 16
            // bytes (this kernel's contract).
            let s = unsafe { SharedArray::<$t, 1>::new_unchecked(0) };
            if thread_x() == 0 {
                // SAFETY: thread 0 alone initialises the element; the barrier below orders the
                // write before every atomic.
                unsafe { s.write(0, 0 as $t) };
            }
            sync_threads();
            // SAFETY: element 0 of the array, which has one.
            let slot = unsafe { s.at(0) };
            // An atomic read: swaps 0 for 0, or fails and returns the value.
            // SAFETY: the element is accessed by atomics only between the two barriers.
            let mut old = unsafe { slot.atomic_compare_and_swap(0 as $t, 0 as $t) };
            loop {
                // SAFETY: as above.
                let seen = unsafe { slot.atomic_compare_and_swap(old, old + $one) };
                if atomic::same_bits(seen, old) {
                    break;
                }
                old = seen;
            }
            sync_threads();
            if thread_x() == 0 {
                // SAFETY: `result` is valid (this kernel's contract); the barrier above ordered
                // every atomic before this read, and thread 0 alone writes `result`.
                unsafe { global::write(result, s.read(0)) };
            }
        }
    )+};
}

cas! {
    u32: 1 => atomic_cas_u32, atomic_cas_increment_u32, shared_atomic_cas_u32, shared_cas_increment_u32;
    i32: 1 => atomic_cas_i32, atomic_cas_increment_i32, shared_atomic_cas_i32, shared_cas_increment_i32;
    u64: 1 => atomic_cas_u64, atomic_cas_increment_u64, shared_atomic_cas_u64, shared_cas_increment_u64;
    i64: 1 => atomic_cas_i64, atomic_cas_increment_i64, shared_atomic_cas_i64, shared_cas_increment_i64;
    f32: 1.0 => atomic_cas_f32, atomic_cas_increment_f32, shared_atomic_cas_f32, shared_cas_increment_f32;
    f64: 1.0 => atomic_cas_f64, atomic_cas_increment_f64, shared_atomic_cas_f64, shared_cas_increment_f64;
}

/// Shared-memory atomics that return the old value, per operation and type.
macro_rules! shared_atomics {
    ($($name:ident: $t:ty => $op:ident;)+) => {$(
        /// A shared atomic of `values[t]` on one shared element; see the crate docs.
        ///
        /// # Safety
        /// One block; `olds` and `values` hold `blockDim.x` elements; 16 bytes of dynamic
        /// shared memory.
        #[kernel]
        pub unsafe fn $name(result: *mut $t, olds: *mut $t, values: *const $t, initial: $t) {
            let t = thread_x() as usize;
            // SAFETY: offset 0 is aligned, and one element of at most 8 bytes fits the launch's 16
            // bytes (this kernel's contract).
            let s = unsafe { SharedArray::<$t, 1>::new_unchecked(0) };
            if t == 0 {
                // SAFETY: thread 0 alone initialises the element; the barrier below orders the
                // write before every atomic.
                unsafe { s.write(0, initial) };
            }
            sync_threads();
            // SAFETY: one block, `t < blockDim.x`: inside `olds` and `values` (this kernel's
            // contract); the shared element is accessed by atomics only between the two barriers.
            unsafe { global::write(olds.add(t), s.at(0).$op(global::read(values.add(t)))) };
            sync_threads();
            if t == 0 {
                // SAFETY: `result` is valid; the barrier above ordered every atomic before this
                // read, and thread 0 alone writes `result`.
                unsafe { global::write(result, s.read(0)) };
            }
        }
    )+};
}

shared_atomics! {
    shared_atomic_add_u32: u32 => atomic_add;
    shared_atomic_add_i32: i32 => atomic_add;
    shared_atomic_add_u64: u64 => atomic_add;
    shared_atomic_add_i64: i64 => atomic_add;
    shared_atomic_add_f32: f32 => atomic_add;
    shared_atomic_add_f64: f64 => atomic_add;
    shared_atomic_min_u32: u32 => atomic_min;
    shared_atomic_min_i32: i32 => atomic_min;
    shared_atomic_min_u64: u64 => atomic_min;
    shared_atomic_min_i64: i64 => atomic_min;
    shared_atomic_max_u32: u32 => atomic_max;
    shared_atomic_max_i32: i32 => atomic_max;
    shared_atomic_max_u64: u64 => atomic_max;
    shared_atomic_max_i64: i64 => atomic_max;
    shared_atomic_exchange_u32: u32 => atomic_exchange;
    shared_atomic_exchange_i32: i32 => atomic_exchange;
    shared_atomic_exchange_u64: u64 => atomic_exchange;
    shared_atomic_exchange_i64: i64 => atomic_exchange;
    shared_atomic_exchange_f32: f32 => atomic_exchange;
    shared_atomic_exchange_f64: f64 => atomic_exchange;
}

/// `reads` consecutive readings of `clock`: first, last, and how many went backwards.
#[inline(always)]
fn monotonic(clock: impl Fn() -> u64, reads: u32) -> [u64; 3] {
    let first = clock();
    let (mut last, mut backwards) = (first, 0);
    for _ in 1..reads {
        let now = clock();
        backwards += (now < last) as u64;
        last = now;
    }
    [first, last, backwards]
}

/// `clock64` read `reads` times; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per thread.
#[kernel]
pub unsafe fn clock_monotonic(out: *mut u64, reads: u32) {
    for (k, w) in monotonic(clock64, reads).into_iter().enumerate() {
        // SAFETY: `out` holds 3 words per thread (this kernel's contract): this thread's.
        unsafe { global::write(out.add(3 * g() + k), w) };
    }
}

/// `global_timer` read `reads` times; see the crate docs.
///
/// # Safety
/// `out` holds 3 words per thread.
#[kernel]
pub unsafe fn global_timer_monotonic(out: *mut u64, reads: u32) {
    for (k, w) in monotonic(global_timer, reads).into_iter().enumerate() {
        // SAFETY: `out` holds 3 words per thread (this kernel's contract): this thread's.
        unsafe { global::write(out.add(3 * g() + k), w) };
    }
}

/// A checked constructor's result as a word: 0 ok, 1 misaligned, 2 too small.
fn code<T>(r: &Result<T, SharedError>) -> u32 {
    match r {
        Ok(_) => 0,
        Err(SharedError::Misaligned { .. }) => 1,
        Err(SharedError::TooSmall { .. }) => 2,
    }
}

/// The checked shared-memory constructors against the launch, and a round trip through the
/// view they give; see the crate docs.
///
/// # Safety
/// One block; `out` holds `8 + len` words.
#[kernel]
pub unsafe fn shared_views(out: *mut u32, offset: u32, len: u32) {
    let t = thread_x();
    let view = SharedSlice::<u32>::new(offset, len as usize);
    let array = SharedArray::<u64, 4>::new(offset);
    if t == 0 {
        let needed = match view {
            Err(SharedError::TooSmall { needed, .. }) => needed as u32,
            _ => 0,
        };
        let bytes = view.map_or(0, |v| v.cast::<u8>().len() as u32);
        let words = [
            shared::dynamic_size(),
            shared::dynamic::<u32>().len() as u32,
            code(&view),
            needed,
            code(&array),
            SharedArray::<u64, 4>::BYTES as u32,
            bytes,
            0,
        ];
        for (k, w) in words.into_iter().enumerate() {
            // SAFETY: `k < 8`, and `out` holds `8 + len` words (this kernel's contract); thread 0
            // alone writes them.
            unsafe { global::write(out.add(k), w) };
        }
    }
    let Ok(view) = view else { return };
    let mut i = t;
    while i < len {
        // SAFETY: `i < len`, the length of the checked view (`SharedSlice::new`): inside it; each
        // element is written by one thread, before the barrier below.
        unsafe { view.write(i as usize, 5 * i + 3) };
        i += block_dim_x();
    }
    sync_threads();
    let mut i = t;
    while i < len {
        // SAFETY: `8 + i < 8 + len`: inside `out`, each word written by one thread; `(i + 1) % len
        // < len`, an element written before the barrier above.
        unsafe { global::write(out.add(8 + i as usize), view.read(((i + 1) % len) as usize)) };
        i += block_dim_x();
    }
}

/// The global copies: `$name(dst, src, n)` copies element `g` with `$body`.
macro_rules! copies {
    ($($name:ident($t:ty): |$d:ident, $s:ident| $body:expr;)+) => {$(
        /// `dst[g] = src[g]` for `g < n`; see the crate docs.
        ///
        /// # Safety
        /// `dst` and `src` hold `n` elements and do not overlap; `src` is not written during
        /// the kernel.
        #[kernel]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, n: u64) {
            let i = index_1d();
            if i < n {
                // SAFETY: `i < n`: inside both buffers (this kernel's contract).
                let ($d, $s) = unsafe { (dst.add(i as usize), src.add(i as usize)) };
                // SAFETY: `d` and `s` point at element `i < n` of `dst` and `src`, which do not
                // overlap and which no other thread writes there (this kernel's contract); aligned,
                // as every element of a buffer of `$t`.
                unsafe { $body };
            }
        }
    )+};
}

copies! {
    copy_v4([u32; 4]): |d, s| store_global_v4(d, load_global_v4(s));
    copy_v4_streaming([u32; 4]): |d, s| store_global_streaming_v4(d, load_global_streaming_v4(s));
    copy_v4_nc([u32; 4]): |d, s| store_global_v4(d, load_global_nc_v4(s));
    copy_u64_streaming(u64): |d, s| store_global_streaming(d, load_global_streaming(s));
    copy_u64_nc(u64): |d, s| global::write(d, load_global_nc_u64(s));
    copy_u32_nc(u32): |d, s| global::write(d, load_global_nc_u32(s));
}

/// A copy with a planted bug, for the CPU emulator's out-of-bounds test: one thread per
/// element, `dst[g] = src[g]`, but the bound check is `g <= n` instead of `g < n`, so the
/// thread with `g == n` reads `src[n]`, one past the end (and would write `dst[n]`). The
/// emulator must stop the launch at that read, naming its line and the thread.
///
/// It is here to be wrong: tests must never launch it on a GPU, where it would read and write
/// out of bounds.
///
/// # Safety
/// Launch it only on the CPU emulator, which stops the launch at the out-of-bounds read before
/// it touches memory. On a GPU, any launch with more than `n` threads reads and writes out of
/// bounds.
#[kernel]
pub unsafe fn planted_off_by_one(dst: *mut u32, src: *const u32, n: u64) {
    let i = index_1d();
    if i <= n {
        // SAFETY: none where `i = n`, by design: the thread reads and writes one element past the
        // buffers there (this entry's docs). Only the CPU emulator runs it, and it stops the launch
        // before that access happens.
        unsafe { global::write(dst.add(i as usize), global::read(src.add(i as usize))) };
    }
}
