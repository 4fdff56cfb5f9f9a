//! Exercise 3, more elements than threads (guide: "Threads, blocks, grids and warps").
//!
//! `fill_squares` writes `out[i] = i · i` for every `i < n`. The host launches a fixed grid
//! (4 blocks of 128 threads, whatever `n` is), so each thread must take more than one element:
//! thread `t` of the grid takes `t`, `t + T`, `t + 2T`, … where `T` is the number of threads in
//! the grid (`grid_dim_x() · block_dim_x()`). This is the grid-stride loop; consecutive threads
//! still touch consecutive elements at each step.
//!
//! Checked: lengths 100, 512 and 100,003, every element.

use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d};
use bankwise_device::{global, kernel};

/// `out[i] = i · i` (wrapping) for every `i < n`, from any grid.
///
/// # Safety
/// `out` holds `n` elements.
#[kernel]
pub unsafe fn fill_squares(out: *mut u64, n: u64) {
    let i = index_1d();
    if i < n {
        // SAFETY: `i < n`, and `out` holds `n` elements (this kernel's contract); one thread writes
        // each.
        unsafe { global::write(out.add(i as usize), i.wrapping_mul(i)) };
    }
}
