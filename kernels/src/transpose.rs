//! The transpose ladder: `dst[b][c][r] = src[b][r][c]` for a batch of `rows × cols` matrices.
//!
//! Every kernel uses the same launch: blocks of `TILE × BLOCK_ROWS` threads (32 × 8), one
//! 32 × 32 tile per block, a grid from [`bankwise_layout::transpose::grid`], and grid-stride
//! loops over tiles so that any shape fits the hardware's grid limits.

use crate::device::{
    block_x, block_y, block_z, dynamic_shared, grid_dim_x, grid_dim_y, grid_dim_z, load_global_v4, store_global_v4,
    sync_threads, thread_x, thread_y,
};
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, TileLayout, offset, tuned};

/// Calls `tile(b, first_row, first_col)` for every `side × side` tile this block owns.
#[inline(always)]
fn for_each_tile(side: u32, rows: u64, cols: u64, batch: u64, mut tile: impl FnMut(u64, u64, u64)) {
    let side = side as u64;
    let (tiles_r, tiles_c) = (rows.div_ceil(side), cols.div_ceil(side));
    let mut b = block_z() as u64;
    while b < batch {
        let mut tr = block_y() as u64;
        while tr < tiles_r {
            let mut tc = block_x() as u64;
            while tc < tiles_c {
                tile(b, tr * side, tc * side);
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
    for_each_tile(TILE, rows, cols, batch, |b, r0, c0| {
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

/// Steps 2–4: the tile through shared memory. Each block reads a 32×32 tile along its rows
/// (coalesced), writes it into shared memory, waits for the whole tile, then writes the output
/// tile along *its* rows (coalesced too) by reading the shared tile down a column. `layout`
/// decides where that column walk lands in the banks; it is a constant at each call site, so
/// the offset arithmetic folds away.
///
/// The loops over tiles are uniform across the block (they depend on block indices only), so
/// every thread reaches both barriers; out-of-range elements are skipped, never the barriers.
#[inline(always)]
unsafe fn transpose_tile<T: Copy>(layout: TileLayout, dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    let tile = dynamic_shared::<T>();
    let size = size_of::<T>() as u32;
    let (tx, ty) = (thread_x(), thread_y());
    for_each_tile(TILE, rows, cols, batch, |b, r0, c0| {
        let c = c0 + tx as u64;
        for k in 0..TILE / BLOCK_ROWS {
            let r = ty + k * BLOCK_ROWS;
            if r0 + (r as u64) < rows && c < cols {
                unsafe {
                    let v = src.add(offset(b, r0 + r as u64, c, rows, cols) as usize).read();
                    tile.add(layout.offset(r, tx, size) as usize).write(v);
                }
            }
        }
        sync_threads();
        // Output row `c0 + j` is input column `c0 + j`; lane `tx` writes output column r0 + tx.
        let r = r0 + tx as u64;
        for k in 0..TILE / BLOCK_ROWS {
            let j = ty + k * BLOCK_ROWS;
            if c0 + (j as u64) < cols && r < rows {
                unsafe {
                    let v = tile.add(layout.offset(tx, j, size) as usize).read();
                    dst.add(offset(b, c0 + j as u64, r, cols, rows) as usize).write(v);
                }
            }
        }
        // The next tile overwrites shared memory: everyone must be done reading this one.
        sync_threads();
    });
}

/// Step 2, `transpose_tiled`: both global sides coalesced, through a plain 32×32 tile.
///
/// Teaches: coalescing fixed, bank conflicts created. The column walk reads 32 elements one
/// pitch (32 elements) apart: for 4-byte elements all in one bank, a 32-way conflict.
#[inline(always)]
unsafe fn transpose_tiled<T: Copy>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_tile(TileLayout::Plain, dst, src, rows, cols, batch) }
}

/// Step 3, `transpose_padded`: the same tile with a padded pitch (33 elements for 4- and
/// 8-byte elements, 34 and 36 for 2- and 1-byte ones), so consecutive rows start in different
/// banks and the column walk is conflict-free.
#[inline(always)]
unsafe fn transpose_padded<T: Copy>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_tile(TileLayout::Padded, dst, src, rows, cols, batch) }
}

/// Step 4, `transpose_swizzled`: no padding; element `(r, c)` lives at column `c ^ r` of row
/// `r`. Row writes stay a permutation of one row, column reads hit 32 different banks, and the
/// tile is exactly 32×32 elements.
#[inline(always)]
unsafe fn transpose_swizzled<T: Copy>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_tile(TileLayout::Swizzled, dst, src, rows, cols, batch) }
}

/// A 16-byte vector, aligned so that shared-memory accesses to it are `STS.128`/`LDS.128`.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Vector([u32; 4]);

/// Step 5, `transpose`: the tuned kernel the library uses by default. It changes, from
/// `transpose_swizzled`:
/// - 16-byte global loads and stores on both sides (`LDG.E.128`/`STG.E.128`) instead of one
///   element per access, so a warp moves 512 bytes per instruction;
/// - `N` vectors per thread, all loads issued before the first shared store: many bytes in
///   flight per SM without a huge grid;
/// - tiles whose rows are 256 bytes (128 bytes for 1-byte elements) instead of 32 elements,
///   so DRAM streams longer runs;
/// - a swizzle at vector granularity (`tuned::swizzle`) so the row write is one `STS.128`
///   per lane and the column gather is conflict-free.
///
/// `V` is the vector's element count and `N` the vectors per thread (`tuned::vectors_per_thread`).
/// Needs `rows` and `cols` to be multiples of `V` (the host falls back to the swizzled kernel).
#[inline(always)]
unsafe fn transpose_vectorized<T: Copy, const V: usize, const N: usize>(
    dst: *mut T,
    src: *const T,
    rows: u64,
    cols: u64,
    batch: u64,
) {
    let size = size_of::<T>() as u32;
    let (side, per_row) = (tuned::side(size), tuned::vectors_per_row(size));
    let tile = dynamic_shared::<Vector>();
    // Load-phase role: this thread reads vector `tv` of tile rows `tr + k · rows_per_k`.
    let t = thread_x();
    let rows_per_k = tuned::THREADS / per_row;
    let (tr, tv) = (t / per_row, t % per_row);
    for_each_tile(side, rows, cols, batch, |b, r0, c0| {
        let interior = r0 + side as u64 <= rows && c0 + side as u64 <= cols;
        let (first_r, first_c) = (r0 + tr as u64, c0 + (tv * V as u32) as u64);
        let first = unsafe { src.add(offset(b, first_r, first_c, rows, cols) as usize) };
        let step = rows_per_k as usize * cols as usize;
        let mut held = [[0u32; 4]; N];
        if interior {
            // No per-load predicate: all N loads issue back to back.
            for (k, h) in held.iter_mut().enumerate() {
                *h = unsafe { load_global_v4(first.add(k * step).cast()) };
            }
        } else {
            for (k, h) in held.iter_mut().enumerate() {
                if first_r + ((k as u32 * rows_per_k) as u64) < rows && first_c < cols {
                    *h = unsafe { load_global_v4(first.add(k * step).cast()) };
                }
            }
        }
        for (k, h) in held.iter().enumerate() {
            let r = tr + k as u32 * rows_per_k;
            unsafe { tile.add((r * per_row + tuned::swizzle(r, tv, size)) as usize).write(Vector(*h)) };
        }
        sync_threads();
        let elems = tile.cast::<T>();
        for k in 0..N as u32 {
            let (j, u) = tuned::store_role(k * tuned::THREADS + t, size);
            let (out_r, out_c) = (c0 + j as u64, r0 + (u * V as u32) as u64);
            if interior || (out_r < cols && out_c < rows) {
                let gathered: [T; V] = core::array::from_fn(|e| unsafe {
                    elems.add(tuned::offset(u * V as u32 + e as u32, j, size) as usize).read()
                });
                // Safety: [T; V] is exactly 16 bytes of plain data.
                let packed: [u32; 4] = unsafe { core::mem::transmute_copy(&gathered) };
                unsafe { store_global_v4(dst.add(offset(b, out_r, out_c, cols, rows) as usize).cast(), packed) };
            }
        }
        sync_threads();
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

per_width!(transpose_tiled:
    transpose_tiled_u8 => u8, transpose_tiled_u16 => u16,
    transpose_tiled_u32 => u32, transpose_tiled_u64 => u64);

per_width!(transpose_padded:
    transpose_padded_u8 => u8, transpose_padded_u16 => u16,
    transpose_padded_u32 => u32, transpose_padded_u64 => u64);

per_width!(transpose_swizzled:
    transpose_swizzled_u8 => u8, transpose_swizzled_u16 => u16,
    transpose_swizzled_u32 => u32, transpose_swizzled_u64 => u64);

/// # Safety
/// As for the other transposes, and `rows`, `cols` multiples of 16 / element size.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_u8(dst: *mut u8, src: *const u8, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_vectorized::<u8, 16, 4>(dst, src, rows, cols, batch) }
}
/// # Safety
/// As for [`transpose_u8`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_u16(dst: *mut u16, src: *const u16, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_vectorized::<u16, 8, 8>(dst, src, rows, cols, batch) }
}
/// # Safety
/// As for [`transpose_u8`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_u32(dst: *mut u32, src: *const u32, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_vectorized::<u32, 4, 4>(dst, src, rows, cols, batch) }
}
/// # Safety
/// As for [`transpose_u8`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_vectorized::<u64, 2, 2>(dst, src, rows, cols, batch) }
}
