//! Exercise 2, the last block (guide: "Threads, blocks, grids and warps").
//!
//! `add_scaled` computes `y[i] += a · x[i]`, one thread per element, in blocks of 256. It is
//! right for lengths that are multiples of 256 and reads and writes past the buffers for any
//! other: the emulator stops it at the first access out of bounds and names the line and the
//! thread. Fix it.
//!
//! Checked: lengths 256, 1000 and 1, every element, no access out of bounds.

use bankwise_device::thread::index_1d;
use bankwise_device::{global, kernel};

/// `y[i] += a · x[i]` (wrapping) for every `i < n`.
///
/// # Safety
/// `x` and `y` hold `n` integers.
#[kernel]
pub unsafe fn add_scaled(y: *mut i32, x: *const i32, a: i32, n: u64) {
    let i = index_1d() as usize;
    // SAFETY: element `i` of `x` and `y`, which hold `n` integers (this kernel's contract): sound for
    // a thread that has an element, and not every thread of the launch has one (what this exercise
    // is about).
    unsafe {
        let v = global::read(y.add(i)).wrapping_add(a.wrapping_mul(global::read(x.add(i))));
        global::write(y.add(i), v);
    }
}
