//! Block-wide building blocks (CUB's `BlockReduce` role).

use bankwise_device::shared::SharedSlice;
use bankwise_device::thread::{sync_threads, thread_x};
use bankwise_layout::reduce::WARP;

use crate::reduce::{Element, ReduceOp};
use crate::warp;

/// Reduces one value per thread of a 1-D block of `THREADS` threads (a multiple of 32, at most
/// 1024) with `O`: each warp by shuffles ([`warp::reduce`]), the warps' results through
/// `slots` (one shared element per warp), then those by the first warp: CUB's
/// `BlockReduce::Reduce`. Thread 0 gets the block's result, in thread order; the others get
/// unspecified values. Two `__syncthreads`: every thread of the block must call it, and on
/// return every thread is past the second barrier, so `slots` may be reused at once.
///
/// # Safety
/// The block has exactly `THREADS` threads along x, and `slots` has at least `THREADS / 32`
/// elements that no other code touches during the call.
#[inline(always)]
pub unsafe fn reduce<T: Element, O: ReduceOp<T>, const THREADS: u32>(v: T, slots: SharedSlice<T>) -> T {
    const { assert!(THREADS.is_multiple_of(WARP) && THREADS <= 1024, "a block of whole warps, at most 1024 threads") };
    let (tid, warps) = (thread_x(), THREADS / WARP);
    let v = warp::reduce::<T, O>(v);
    if tid % WARP == 0 {
        // SAFETY: `tid / WARP < THREADS / WARP`, within `slots` (the caller's contract), one slot
        // per warp written by its lane 0 alone; the barrier below orders it before the reads.
        unsafe { slots.write((tid / WARP) as usize, v) };
    }
    sync_threads();
    let mut r = O::identity();
    if tid < WARP {
        // SAFETY: `tid < warps` slots, written before the barrier above; none is written again
        // until after the barrier below.
        let mine = if tid < warps { unsafe { slots.read(tid as usize) } } else { O::identity() };
        r = warp::reduce::<T, O>(mine);
    }
    sync_threads();
    r
}
