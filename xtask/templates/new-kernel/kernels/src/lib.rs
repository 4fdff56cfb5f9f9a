//! The kernels of {{name}}: a 1-D convolution that stages its input in shared memory.
#![no_std]

use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_x, index_1d, sync_threads, thread_x};
use bankwise_device::{global, kernel};

/// Threads per block: the launch must use blocks of exactly this many (`conv1d`'s contract).
pub const BLOCK: u32 = 256;
/// Elements read on each side of the centre.
pub const RADIUS: usize = 2;
/// The filter's length: `w[0]` weighs `x[i − RADIUS]`, `w[TAPS − 1]` weighs `x[i + RADIUS]`.
pub const TAPS: usize = 2 * RADIUS + 1;
/// Floats in a block's tile: its own `BLOCK` elements and `RADIUS` more on each side (the halo).
const TILE: usize = BLOCK as usize + 2 * RADIUS;

/// `y[i] = Σ_k w[k] · x[i + k − RADIUS]` for every `i < n`, with `x` read as 0 outside `0..n`.
/// CUDA C++: `__global__ void conv1d(float *y, const float *x, const float *w, uint64_t n)`.
///
/// Each block copies the part of `x` it needs (its `BLOCK` elements and the halo) into a tile
/// in shared memory, waits at a barrier until every thread's copy is there, then each thread
/// reads its `TAPS` inputs from the tile: each element of `x` is loaded from global memory
/// about once per block instead of `TAPS` times.
///
/// # Safety
/// `y` and `x` hold `n` floats and `w` holds `TAPS`; blocks of `BLOCK` threads along x. The
/// tile's `TILE · 4` bytes are declared below: every launch gives each block those bytes.
#[kernel(shared = (TILE * 4) as u32)]
pub unsafe fn conv1d(y: *mut f32, x: *const f32, w: *const f32, n: u64) {
    if n == 0 {
        return; // the whole grid returns: `n` is the same for every thread
    }
    // SAFETY: offset 0 of the `TILE` floats this kernel declares.
    let tile = unsafe { SharedArray::<f32, TILE>::new_unchecked(0) };
    let t = thread_x() as usize;
    // Tile element `k` holds `x[first + k − RADIUS]`, or 0 outside `x`.
    let first = block_x() as u64 * BLOCK as u64;
    // Every thread takes part, even one past `n`: each tile element is copied by some thread,
    // and a thread that returned early would never reach the barrier below.
    let mut k = t;
    while k < TILE {
        let wanted = (first + k as u64)
            .checked_sub(RADIUS as u64)
            .filter(|&j| j < n);
        // Every thread of a pass reads, at the ends of `x` an element clamped into it whose
        // value is then replaced by 0, so a warp's reads on each pass are one whole request.
        // (The emulator groups a warp's requests by each lane's n-th read: a lane that skipped
        // a read would be counted with the next pass's requests, as if uncoalesced.)
        let j = (first + k as u64).saturating_sub(RADIUS as u64).min(n - 1);
        // SAFETY: `j < n` (`n ≥ 1` above), and `x` holds `n` floats.
        let value = unsafe { global::read(x.add(j as usize)) };
        // SAFETY: `k < TILE`; each tile element is written by one thread (`k ≡ t mod BLOCK`).
        unsafe { tile.write(k, if wanted.is_some() { value } else { 0.0 }) };
        k += BLOCK as usize;
    }
    // Thread `t` reads tile elements `t ..= t + 2·RADIUS`, which its neighbours wrote: the
    // barrier orders every write above before every read below. Without it the launch fails
    // on the emulator with a race naming the two lines.
    sync_threads();
    let i = index_1d();
    if i < n {
        let mut sum = 0.0;
        for k in 0..TAPS {
            // SAFETY: `t + k < BLOCK + 2·RADIUS = TILE`, written before the barrier; `w` holds
            // `TAPS` floats.
            sum += unsafe { global::read(w.add(k)) * tile.read(t + k) };
        }
        // SAFETY: `i < n`, and `y` holds `n` floats; no other thread writes element `i`.
        unsafe { global::write(y.add(i as usize), sum) };
    }
}
