//! The first kernel: `c[i] = a[i] + b[i]`, one thread per element.
#![no_std]

use bankwise_device::thread::index_1d;
use bankwise_device::{global, kernel};

/// `c[i] = a[i] + b[i]` for every `i < n`. CUDA C++:
/// `__global__ void vector_add(float *c, const float *a, const float *b, uint64_t n)`.
///
/// Thread `i` of the grid (block × block size + thread) takes element `i`; the launch rounds
/// the grid up to whole blocks, so the last block's extra threads do nothing.
///
/// Global memory is read and written through `bankwise_device::global` (CUDA C++'s `*p` and
/// `*p = v`) rather than by dereferencing the pointers: on the GPU it is the same load and
/// store, and on bankwise's CPU emulator each access is checked against the launch's buffers
/// (one out of bounds is an error that names the line and the thread).
///
/// # Safety
/// `a`, `b` and `c` are device buffers of at least `n` floats.
#[kernel]
pub unsafe fn vector_add(c: *mut f32, a: *const f32, b: *const f32, n: u64) {
    let i = index_1d();
    if i < n {
        let i = i as usize;
        // SAFETY: `i < n`, and `a` and `b` hold `n` floats (this kernel's contract).
        let sum = unsafe { global::read(a.add(i)) + global::read(b.add(i)) };
        // SAFETY: `i < n`, and `c` holds `n` floats; no other thread writes element `i`.
        unsafe { global::write(c.add(i), sum) };
    }
}
