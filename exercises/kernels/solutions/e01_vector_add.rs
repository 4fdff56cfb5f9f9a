//! Exercise 1, your first kernel (guide: "Your first kernel").
//!
//! Write `vector_add`: `c[i] = a[i] + b[i]` for every `i < n`, one thread per element. The
//! launch rounds the grid up to whole blocks of 256 threads, so some threads have no element.
//! Read and write global memory with `global::read(p)` and `global::write(p, v)`.
//!
//! Checked: every element, for lengths 1, 1000 and 4099 (not multiples of the block).

use bankwise_device::thread::index_1d;
use bankwise_device::{global, kernel};

/// `c[i] = a[i] + b[i]` for every `i < n`.
///
/// # Safety
/// `a`, `b` and `c` hold `n` floats.
#[kernel]
pub unsafe fn vector_add(c: *mut f32, a: *const f32, b: *const f32, n: u64) {
    let i = index_1d();
    if i < n {
        let i = i as usize;
        // SAFETY: `i < n`, and `a`, `b` and `c` hold `n` floats (this kernel's contract); one
        // thread writes each element.
        unsafe { global::write(c.add(i), global::read(a.add(i)) + global::read(b.add(i))) };
    }
}
