//! The first kernel: `c[i] = a[i] + b[i]`, one thread per element.
#![no_std]

use bankwise_device::kernel;
use bankwise_device::thread::index_1d;

/// `c[i] = a[i] + b[i]` for every `i < n`. CUDA C++:
/// `__global__ void vector_add(float *c, const float *a, const float *b, uint64_t n)`.
///
/// Thread `i` of the grid (block × block size + thread) takes element `i`; the launch rounds
/// the grid up to whole blocks, so the last block's extra threads do nothing.
///
/// # Safety
/// `a`, `b` and `c` are device buffers of at least `n` floats.
#[kernel]
pub unsafe fn vector_add(c: *mut f32, a: *const f32, b: *const f32, n: u64) {
    let i = index_1d();
    if i < n {
        let i = i as usize;
        unsafe { *c.add(i) = *a.add(i) + *b.add(i) };
    }
}
