//! Exercise 4, coalescing (guide: "Threads, blocks, grids and warps").
//!
//! `copy_matrix` copies a row-major `rows × cols` matrix, one thread per element. It gives the
//! right answer, slowly: consecutive threads (the 32 lanes of a warp) take consecutive *rows* of
//! one column, so each lane's 4 bytes lie in a different 32-byte sector. The check prints
//! `touches 32 sectors in its costliest request, 31.98 per request on average, where 4.88 per
//! request would hold its bytes` (a warp's 128 bytes fill 4 sectors, or 5 where they do not start
//! at a sector's start; the average counts the last, partial warp). Change which element each
//! thread takes so that every request touches no more sectors than its bytes fill.
//!
//! Checked: every element of 100 × 300 and 64 × 64, and every global access site coalesced
//! (the emulator's sectors per request equal the fewest that the request's bytes fill).

use bankwise_device::thread::index_1d;
use bankwise_device::{global, kernel};

/// `dst = src`, both `rows × cols` row-major.
///
/// # Safety
/// `src` and `dst` hold `rows · cols` floats.
#[kernel]
pub unsafe fn copy_matrix(dst: *mut f32, src: *const f32, rows: u64, cols: u64) {
    let i = index_1d();
    if i < rows * cols {
        let (r, c) = (i % rows, i / rows);
        let at = (r * cols + c) as usize;
        // SAFETY: `i < rows · cols` gives `r < rows` and `c < cols`, so `at < rows · cols`: inside
        // both buffers (this kernel's contract); one thread copies each element.
        unsafe { global::write(dst.add(at), global::read(src.add(at))) };
    }
}
