//! Exercise 3, more elements than threads (guide: "Threads, blocks, grids and warps").
//!
//! `fill_squares` writes `out[i] = i · i` for every `i < n`. The host launches a fixed grid, 4
//! blocks of 128 threads whatever `n` is, and the kernel takes one element per thread: for
//! `n` = 100,003 all but the first 512 elements stay unwritten. Make the 512 threads cover any
//! `n`, and keep the warps' stores coalesced while they do: each request of a warp should touch
//! no more 32-byte sectors than its bytes fill. (A contiguous chunk of elements per thread covers
//! `n` and fails that: the check prints `touches 32 sectors in its costliest request, 31.74 per
//! request on average, where 8.72 per request would hold its bytes`.)
//!
//! Checked: every element for lengths 100, 512 and 100,003 from the same grid, and every global
//! store coalesced (the emulator's sectors per request equal the fewest that the bytes fill).

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
