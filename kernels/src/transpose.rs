//! The transpose ladder: `dst[b][c][r] = src[b][r][c]` for a batch of `rows × cols` matrices.
//!
//! Every kernel uses the same launch: blocks of `TILE × BLOCK_ROWS` threads (32 × 8), one
//! 32 × 32 tile per block, a grid from [`bankwise_layout::transpose::grid`], and grid-stride
//! loops over tiles so that any shape fits the hardware's grid limits.

use crate::device::{block_x, block_y, block_z, grid_dim_x, grid_dim_y, grid_dim_z, thread_x, thread_y};
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, offset};

/// Calls `tile(b, tile_row, tile_col)` for every tile this block owns.
#[inline(always)]
fn for_each_tile(rows: u64, cols: u64, batch: u64, mut tile: impl FnMut(u64, u64, u64)) {
    let (tiles_r, tiles_c) = (rows.div_ceil(TILE as u64), cols.div_ceil(TILE as u64));
    let mut b = block_z() as u64;
    while b < batch {
        let mut tr = block_y() as u64;
        while tr < tiles_r {
            let mut tc = block_x() as u64;
            while tc < tiles_c {
                tile(b, tr * TILE as u64, tc * TILE as u64);
                tc += grid_dim_x() as u64;
            }
            tr += grid_dim_y() as u64;
        }
        b += grid_dim_z() as u64;
    }
}

/// Step 1, `transpose_naive`: each thread reads `src` along a row (a warp reads 32 consecutive
/// elements: coalesced) and writes `dst` down a column (a warp writes 32 elements `rows` apart:
/// 32 separate 32-byte sectors per warp store, most of each sector wasted).
///
/// Teaches: coalescing. No shared memory, so no bank conflicts; the strided stores are what
/// make it slow. Measured (H100): 416 GB/s on 8192² f32, 14% of a copy; 622 GB/s for f64,
/// whose 8-byte stores waste half as much of each 32-byte sector.
#[inline(always)]
unsafe fn transpose_naive<T: Copy>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    let (tx, ty) = (thread_x() as u64, thread_y() as u64);
    for_each_tile(rows, cols, batch, |b, r0, c0| {
        let c = c0 + tx;
        if c >= cols {
            return;
        }
        let mut r = r0 + ty;
        while r < r0 + TILE as u64 && r < rows {
            unsafe {
                let v = src.add(offset(b, r, c, rows, cols) as usize).read();
                dst.add(offset(b, c, r, cols, rows) as usize).write(v);
            }
            r += BLOCK_ROWS as u64;
        }
    });
}

/// Instantiates a generic transpose for each element width, as `<kernel>_u8` … `<kernel>_u64`.
macro_rules! per_width {
    ($generic:ident: $($name:ident => $t:ty),+ $(,)?) => {$(
        /// # Safety
        /// `src` and `dst` must be valid, non-overlapping buffers of `batch * rows * cols`
        /// elements, and the launch must use the grid and block of
        /// `bankwise_layout::transpose`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            unsafe { $generic::<$t>(dst, src, rows, cols, batch) }
        }
    )+};
}

per_width!(transpose_naive:
    transpose_naive_u8 => u8, transpose_naive_u16 => u16,
    transpose_naive_u32 => u32, transpose_naive_u64 => u64);
