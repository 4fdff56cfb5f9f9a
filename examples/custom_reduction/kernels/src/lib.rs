//! A reduction of your own: the index of the largest element (argmax), with bankwise's
//! block-wide building block `bankwise_kernels::block::reduce` over an operation defined here.
#![no_std]

use bankwise_device::global;
use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_x, grid_dim_x, index_1d, thread_x};
use bankwise_device::{Plain, kernel};
use bankwise_kernels::block;
use bankwise_kernels::reduce::ReduceOp;

/// Threads per block of both kernels: the host launches them with this many.
pub const THREADS: u32 = 256;

/// Shared memory each kernel declares: one candidate per warp.
pub const SHARED_BYTES: u32 = size_of::<Candidate>() as u32 * THREADS / 32;

/// A candidate: a value and where it was. 8 bytes with no padding, so warp shuffles move it
/// whole (`block::reduce` combines through `shfl.sync`).
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Candidate {
    /// The element's value.
    pub value: f32,
    /// Its index in the input.
    pub index: u32,
}

// Safety: two 4-byte fields, no padding; every bit pattern is a valid f32 and u32.
unsafe impl Plain for Candidate {}

/// The larger candidate; NaN counts as larger than every number (as NumPy's `argmax`), and
/// ties go to the smaller index. That is the maximum of a total order, so the operation is
/// associative and commutative: any tree gives the same answer.
pub struct Larger;

impl ReduceOp<Candidate> for Larger {
    #[inline(always)]
    fn identity() -> Candidate {
        Candidate { value: f32::NEG_INFINITY, index: u32::MAX }
    }

    #[inline(always)]
    fn combine(a: Candidate, b: Candidate) -> Candidate {
        let b_wins = match (a.value.is_nan(), b.value.is_nan()) {
            (true, true) => b.index < a.index,
            (true, false) => false,
            (false, true) => true,
            (false, false) => b.value > a.value || (b.value == a.value && b.index < a.index),
        };
        if b_wins { b } else { a }
    }
}

/// One partial per block: each thread folds the elements `i ≡ its index (mod the grid)`, then
/// the block combines its threads' candidates with `block::reduce`.
///
/// # Safety
/// `src` holds `n ≤ 2^32` floats and `partials` one candidate per block; blocks of
/// [`THREADS`] threads (the kernel declares [`SHARED_BYTES`], a slot per warp).
#[kernel(shared = SHARED_BYTES)]
pub unsafe fn argmax_blocks(partials: *mut Candidate, src: *const f32, n: u64) {
    let mut best = Larger::identity();
    let stride = grid_dim_x() as u64 * THREADS as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `src` holds `n` floats (this kernel's contract).
        let value = unsafe { global::read(src.add(i as usize)) };
        best = Larger::combine(best, Candidate { value, index: i as u32 });
        i += stride;
    }
    // SAFETY: `partials` holds one candidate per block (this kernel's contract); the offset is this
    // block's.
    finish_block(best, unsafe { partials.add(block_x() as usize) });
}

/// The partials to one candidate, in one block.
///
/// # Safety
/// `partials` holds `count` candidates and `result` one; one block of [`THREADS`] threads and
/// the shared memory it declares, as [`argmax_blocks`].
#[kernel(shared = SHARED_BYTES)]
pub unsafe fn argmax_partials(result: *mut Candidate, partials: *const Candidate, count: u32) {
    let mut best = Larger::identity();
    let mut i = thread_x();
    while i < count {
        // SAFETY: `i < count`, and `partials` holds `count` candidates (this kernel's contract).
        best = Larger::combine(best, unsafe { global::read(partials.add(i as usize)) });
        i += THREADS;
    }
    finish_block(best, result);
}

/// Combines the block's candidates; thread 0 writes the result to `out`.
#[inline(always)]
fn finish_block(mine: Candidate, out: *mut Candidate) {
    // One slot per warp at the start of the dynamic shared memory (the host gives exactly that).
    // Safety: offset 0 is aligned, and every launch gives `8 · THREADS / 32` bytes.
    let slots = unsafe { SharedArray::<Candidate, { (THREADS / 32) as usize }>::new_unchecked(0) };
    // Safety: THREADS threads along x, and nothing else touches `slots`.
    let best = unsafe { block::reduce::<Candidate, Larger, THREADS>(mine, slots.as_slice()) };
    if thread_x() == 0 {
        // SAFETY: `out` is a candidate of `partials` or `result`, which the contracts of the two
        // kernels, this private function's only callers, say exist; thread 0 alone writes it.
        unsafe { global::write(out, best) };
    }
}
