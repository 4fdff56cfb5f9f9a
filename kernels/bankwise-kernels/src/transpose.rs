//! The transpose ladder: `dst[b][c][r] = src[b][r][c]` for a batch of `rows × cols` matrices.
//!
//! The ladder's kernels share one launch: blocks of `TILE × BLOCK_ROWS` threads (32 × 8), one
//! 32 × 32 tile per block, a grid from [`bankwise_layout::transpose::grid`] that takes the
//! tiles down each column of tiles, and grid-stride loops over tiles so that any shape fits
//! the hardware's grid limits. Figures below: H100, 2026-11-22, GB/s of 2 × the matrix, and %
//! of the driver's copy timed in interleaved runs (`docs/benchmarks.md`). The tuned kernels
//! (`transpose_u8` … `transpose_u64`, `transpose_unaligned_u16` and `_u32` with their
//! `_large` forms, and `transpose_small_u64` in blocks of 128 threads) take 256-thread blocks,
//! exactly one per tile, in the grid of `bankwise_layout::transpose::tuned::Tiles`, with no
//! loop: the host splits batches past the grid's z limit into several launches and gives
//! shapes past its y limit to the swizzled ladder kernel.

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::memory::{load_global_streaming, load_global_v4, store_global_streaming, store_global_v4};
use bankwise_device::shared;
use bankwise_device::thread::{
    block_x, block_y, block_z, grid_dim_x, grid_dim_y, grid_dim_z, sync_threads, thread_x, thread_y,
};
use bankwise_layout::transpose::tuned::{self, Tiles, scalar};
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, TileLayout, offset, tiles};

use crate::Vector;
use crate::tile::SharedTile;

mod realign;
pub use realign::{Index, Pitched, realigned_tile, transpose_unaligned};

/// Rows of the ladder's tile each thread moves: 32 × 32 tiles, blocks of 32 × [`BLOCK_ROWS`].
const LADDER_K: usize = (TILE / BLOCK_ROWS) as usize;

/// Calls `tile(b, down, across)` for every tile this block owns, `down` tiles down column of
/// tiles `across` of matrix `b`, in a launch grid laid out the same way: block `(x, y, z)` takes
/// tile `x` down column `y` of matrix `z`. The ladder's kernels (`ONE = false`) also take,
/// past the grid's limits, every grid-size step after it, consecutive tiles separated by a
/// barrier (each reuses the shared memory of the one before). The tuned kernels (`ONE = true`)
/// take exactly one tile per block, from a grid with a block for every tile
/// ([`Tiles::grid`]), and carry nothing from one tile to the next. Used by every transpose.
///
/// Three choices here, each measured faster than its alternative (H100, three runs or more
/// each; the figures: `docs/decisions.md`, 2026-11-22): tiles taken down each column, not
/// along each row, so that the blocks in flight write whole output rows in sequence, and on
/// odd shapes run at once the vertically adjacent tiles that share the 32-byte sectors of each
/// output row; one loop that steps like an odometer, not three nested ones, which kept
/// loop-invariant addresses live across the tile (the ladder's kernels take 40 registers for
/// f32 on sm_90: six resident blocks per SM); and, for the tuned kernels, no loop at all: the
/// loop's state (six 64-bit counters and bounds) cost registers, and with one tile per block
/// `transpose_u32`, `transpose_u16` and `transpose_u64` take 32, 54 and 48, so that 4–8
/// blocks of 256 threads fit an SM (`docs/benchmarks.md`, *Which kernel runs, and its
/// launch*). A loop over the batch alone would have cost as many registers as the tile loop,
/// so launches past the grid's z limit are split by the host instead, and the ladder's kernels
/// keep their loop for shapes past the grid's other limits.
#[inline(always)]
fn for_each_tile<const ONE: bool>(down: u64, across: u64, batch: u64, mut tile: impl FnMut(u64, u64, u64)) {
    let (bx, by, bz) = (block_x() as u64, block_y() as u64, block_z() as u64);
    if bx >= down || by >= across {
        return;
    }
    if ONE {
        if bz < batch {
            tile(bz, bx, by);
        }
        return;
    }
    let (gx, gy, gz) = (grid_dim_x() as u64, grid_dim_y() as u64, grid_dim_z() as u64);
    // Each step keeps `d < down` and `a < across`, so only the matrix index can end the walk.
    let (mut b, mut d, mut a) = (bz, bx, by);
    while b < batch {
        tile(b, d, a);
        d += gx;
        if d >= down {
            d = bx;
            a += gy;
            if a >= across {
                a = by;
                b += gz;
            }
        }
        if b < batch {
            sync_threads();
        }
    }
}

/// [`for_each_tile`] over the ladder's 32 × 32 tiles, calling `tile(b, first_row, first_col)`.
#[inline(always)]
fn for_each_ladder_tile<const ONE: bool>(rows: u64, cols: u64, batch: u64, mut tile: impl FnMut(u64, u64, u64)) {
    let side = TILE as u64;
    for_each_tile::<ONE>(tiles(rows), tiles(cols), batch, |b, d, a| tile(b, d * side, a * side));
}

/// Step 1, `transpose_naive`: each thread reads `src` along a row (a warp reads 32 consecutive
/// elements: coalesced) and writes `dst` down a column (a warp writes 32 elements `rows` apart:
/// 32 separate 32-byte sectors per warp store, most of each sector wasted).
///
/// Teaches: coalescing. No shared memory, so no bank conflicts; the strided stores are what
/// make it slow. Measured at 8192²: 495 GB/s f32, 17% of a copy; 882 GB/s f64 (30%), whose
/// 8-byte stores waste half as much of each 32-byte sector.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping buffers of `batch · rows · cols` elements, and
/// the launch has the ladder's grid and blocks (`bankwise_layout::transpose`).
#[inline(always)]
pub unsafe fn transpose_naive<T: Plain>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    let (tx, ty) = (thread_x() as u64, thread_y() as u64);
    for_each_ladder_tile::<false>(rows, cols, batch, |b, r0, c0| {
        let c = c0 + tx;
        if c >= cols {
            return;
        }
        let mut r = r0 + ty;
        while r < r0 + TILE as u64 && r < rows {
            // SAFETY: `r < rows` and `c < cols` of matrix `b < batch`: the element is inside `src`
            // and its transpose inside `dst` (the caller's contract: both hold `batch · rows ·
            // cols` elements, apart); one thread writes each output element.
            unsafe {
                let v = global::read(src.add(offset(b, r, c, rows, cols) as usize));
                global::write(dst.add(offset(b, c, r, cols, rows) as usize), v);
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
/// `K` is the rows each thread moves (blocks of 32 × `32 / K` threads); `ONE`, one tile per
/// block (see `for_each_tile`); `STREAM`, 8-byte elements loaded and stored with the
/// cache-streaming hint (`ld/st.global.cs`). The ladder's kernels take `K = 4` (`BLOCK_ROWS` =
/// 8), loop, and use no hint.
///
/// # Safety
/// As [`transpose_naive`], with blocks of 32 × `32 / K` threads and at least
/// `layout.tile_bytes(size_of::<T>())` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn transpose_tile<T: Plain, const K: usize, const ONE: bool, const STREAM: bool>(
    layout: TileLayout,
    dst: *mut T,
    src: *const T,
    rows: u64,
    cols: u64,
    batch: u64,
) {
    // Safety: the launch gives the tile's bytes (`bankwise_layout::transpose`).
    let tile = unsafe { SharedTile::<T>::new_unchecked(layout) };
    let (tx, ty) = (thread_x(), thread_y());
    let block_rows = TILE / K as u32;
    for_each_ladder_tile::<ONE>(rows, cols, batch, |b, r0, c0| {
        // Safety (all accesses below): offsets within the tile, which lies inside the matrix
        // wherever an element is read or written.
        // SAFETY: the origin of a tile of matrix `b` (`for_each_ladder_tile` gives tiles that start
        // inside the matrix), inside `src`.
        let from = unsafe { src.add(offset(b, r0, c0, rows, cols) as usize) };
        // SAFETY: the transposed origin, inside `dst` as `from` is inside `src`.
        let to = unsafe { dst.add(offset(b, c0, r0, cols, rows) as usize) };
        // Interior tiles (all but the last row and column of tiles) skip the bounds checks, so
        // their loads issue back to back before the first one returns.
        let interior = r0 + TILE as u64 <= rows && c0 + TILE as u64 <= cols;
        let row = |k: usize| ty + k as u32 * block_rows;
        // SAFETY: called only for elements inside the matrix (every one of an interior tile, the
        // checked ones of an edge tile), which `src` holds and no thread writes.
        let load = |k: usize| unsafe {
            let p = from.add(row(k) as usize * cols as usize + tx as usize);
            // Safety: T is 8 bytes here, so it and u64 are the same plain bytes.
            if STREAM && size_of::<T>() == 8 {
                core::mem::transmute_copy(&load_global_streaming(p.cast()))
            } else {
                global::read(p)
            }
        };
        // Safety: T is Plain, so zero bytes are a valid value.
        let mut held: [T; K] = unsafe { core::mem::zeroed() };
        if interior {
            for (k, h) in held.iter_mut().enumerate() {
                *h = load(k);
            }
        } else {
            for (k, h) in held.iter_mut().enumerate() {
                if r0 + (row(k) as u64) < rows && c0 + (tx as u64) < cols {
                    *h = load(k);
                }
            }
        }
        // Out-of-range slots get zeros that no output element reads.
        for (k, &h) in held.iter().enumerate() {
            // SAFETY: `row(k) < TILE` and `tx < TILE` (blocks of 32 × `32 / K` threads), inside the
            // tile, whose bytes the launch gives (the caller's contract); each slot has one writer,
            // the barrier below orders the writes before the reads, and the barrier between tiles
            // (`for_each_tile`) orders the previous tile's reads before them.
            unsafe { tile.write(row(k), tx, h) };
        }
        sync_threads();
        // Output row `c0 + j` is input column `c0 + j`; lane `tx` writes output column r0 + tx.
        // SAFETY: called only for output elements inside the transposed matrix, which `dst` holds;
        // `(tx, j)` is inside the tile, written before the barrier above and not again before the
        // barrier between tiles; one thread writes each output element.
        let store = |j: u32| unsafe {
            let v = tile.read(tx, j);
            let p = to.add(j as usize * rows as usize + tx as usize);
            if STREAM && size_of::<T>() == 8 {
                store_global_streaming(p.cast(), core::mem::transmute_copy(&v));
            } else {
                global::write(p, v);
            }
        };
        if interior {
            (0..K).for_each(|k| store(row(k)));
        } else {
            for k in 0..K {
                if c0 + (row(k) as u64) < cols && r0 + (tx as u64) < rows {
                    store(row(k));
                }
            }
        }
    });
}

/// Step 2, `transpose_tiled`: both global sides coalesced, through a plain 32×32 tile.
///
/// Teaches: coalescing fixed, bank conflicts created. The column walk reads 32 elements one
/// pitch (32 elements) apart: for 4-byte elements all in one bank, a 32-way conflict.
/// Measured at 8192²: 1491 GB/s f32 (3× naive, 49.8% of a copy), 2550 f64 (85.5%); Nsight
/// Compute: 32.4 load wavefronts per column read for f32, 32 for f64 (16-way per half-warp).
///
/// # Safety
/// As [`transpose_tile`] with `K = 4`.
#[inline(always)]
pub unsafe fn transpose_tiled<T: Plain>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this function's contract is `transpose_tile`'s with `K = 4` (its `# Safety`).
    unsafe { transpose_tile::<T, LADDER_K, false, false>(TileLayout::Plain, dst, src, rows, cols, batch) }
}

/// Step 3, `transpose_padded`: the same tile with a padded pitch (33 elements for 4- and
/// 8-byte elements, 34 and 36 for 2- and 1-byte ones), so consecutive rows start in different
/// banks and the column walk is conflict-free. Measured at 8192²: 2609 GB/s f32 (+75%, 87.7%
/// of a copy), 2893 f64 (+13%, 97.2%); 1.1 load wavefronts per column read.
///
/// # Safety
/// As [`transpose_tile`] with `K = 4`.
#[inline(always)]
pub unsafe fn transpose_padded<T: Plain>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this function's contract is `transpose_tile`'s with `K = 4` (its `# Safety`).
    unsafe { transpose_tile::<T, LADDER_K, false, false>(TileLayout::Padded, dst, src, rows, cols, batch) }
}

/// Step 4, `transpose_swizzled`: no padding; element `(r, c)` lives at column `c ^ r` of row
/// `r`. Row writes stay a permutation of one row, column reads hit 32 different banks, and the
/// tile is exactly 32×32 elements. Measured at 8192²: conflict-free too (1.1 wavefronts) and
/// as fast as padding, 2587 GB/s f32 and 2894 f64: the 128 bytes it saves per block never
/// limited occupancy, which registers set (six blocks of 256 threads per SM for f32).
///
/// # Safety
/// As [`transpose_tile`] with `K = 4`.
#[inline(always)]
pub unsafe fn transpose_swizzled<T: Plain>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this function's contract is `transpose_tile`'s with `K = 4` (its `# Safety`).
    unsafe { transpose_tile::<T, LADDER_K, false, false>(TileLayout::Swizzled, dst, src, rows, cols, batch) }
}

/// The tile of a tuned kernel's block ([`for_each_tile`] with one tile per block, over
/// [`Tiles`]): `load` it into registers, `stage` them into shared memory, and `store` the
/// transposed tile, one tile per block: a software-pipelined version that loaded the next tile
/// while storing this one kept more registers live, and a persistent grid built on it measured
/// slower (`docs/decisions.md`).
#[inline(always)]
fn each_tile<H: Copy>(
    tiles: &Tiles,
    empty: H,
    load: impl Fn((u64, u64, u64), &mut H),
    stage: impl Fn((u64, u64, u64), &H),
    store: impl Fn((u64, u64, u64)),
) {
    for_each_tile::<true>(tiles.down, tiles.across, tiles.batch, |b, down, across| {
        let here = tiles.origin(b, down, across);
        let mut held = empty;
        load(here, &mut held);
        stage(here, &held);
        sync_threads();
        store(here);
    });
}

/// Step 5, `transpose`: the tuned kernel the library uses by default. It changes, from
/// `transpose_swizzled`:
/// - 16-byte global loads and stores on both sides (`LDG.E.128`/`STG.E.128`) instead of one
///   element per access, so a warp moves 512 bytes per instruction;
/// - tiles whose rows are 256 bytes (128 for 1-byte elements) instead of 32 elements, so DRAM
///   streams longer runs;
/// - a swizzle at vector granularity (`tuned::swizzle`) so the row write is one `STS.128` per
///   lane and the column gather is conflict-free;
/// - 256-thread blocks of exactly one tile each (`tuned::Tiles`, taken down each column of
///   tiles as in the ladder) with no tile loop, each thread with all its loads (4 vectors for
///   f32) in flight at once: 32 registers for f32, so eight blocks fit an SM;
/// - from 2^26 4-byte elements, at most four resident blocks per SM on an H100 (the GPU's
///   tuning table's `transpose_residency`, enforced by the host through shared memory).
///
/// Measured (H100, each against the driver's copy timed in interleaved, back-to-back runs):
/// 2875–2881 GB/s f32 at 8192², 96.97–97.20% of the copy over fifteen runs (cuBLAS `geam`
/// 2834–2842, 95.8–96.1%); 2914 GB/s (96.9%) at 16384²; 1120–1160 GB/s at 1024², where cuBLAS
/// reaches 936–953 (`docs/benchmarks.md`). The one tile per block, the four-block cap and the
/// alternatives measured against them are in `docs/decisions.md` (2026-11-22).
///
/// For the 1-, 2- and 4-byte kernels; `V` is the vector's element count and `N` the vectors
/// per thread (`tuned::vectors_per_thread`). Needs every row of the input and output to start
/// 16-byte aligned (`tuned::aligned`); other 4-byte shapes take [`transpose_unaligned`].
///
/// # Safety
/// As [`transpose_naive`], with every row of `src` and `dst` 16-byte aligned, the grid of
/// `tuned::Tiles`, `tuned::THREADS` threads per block and the tile's dynamic shared memory
/// (`bankwise_layout::transpose::tuned`).
#[inline(always)]
pub unsafe fn transpose_vectorized<T: Plain, const V: usize, const N: usize>(
    dst: *mut T,
    src: *const T,
    rows: u64,
    cols: u64,
    batch: u64,
) {
    let size = size_of::<T>() as u32;
    let (side, per_row) = (tuned::side(size), tuned::vectors_per_row(size));
    let tile = shared::dynamic::<Vector>();
    // Load-phase role: this thread reads vector `tv` of tile rows `tr + k · rows_per_k`.
    let t = thread_x();
    let rows_per_k = tuned::THREADS / per_row;
    let (tr, tv) = (t / per_row, t % per_row);
    let load = |(b, r0, c0): (u64, u64, u64), held: &mut [[u32; 4]; N]| {
        let (first_r, first_c) = (r0 + tr as u64, c0 + (tv * V as u32) as u64);
        // SAFETY: the tile's first element for this thread, inside matrix `b` for every tile that
        // `each_tile` gives (rows and columns start inside it), so inside `src`.
        let first = unsafe { src.add(offset(b, first_r, first_c, rows, cols) as usize) };
        let step = rows_per_k as usize * cols as usize;
        if r0 + side as u64 <= rows && c0 + side as u64 <= cols {
            // An interior tile: no per-load predicate, so all N loads issue back to back.
            for (k, h) in held.iter_mut().enumerate() {
                // SAFETY: an interior tile: every one of its rows and columns is inside the matrix,
                // so each vector is inside `src`, and 16-byte aligned (every row starts aligned:
                // the caller's contract).
                *h = unsafe { load_global_v4(first.add(k * step).cast()) };
            }
        } else {
            for (k, h) in held.iter_mut().enumerate() {
                if first_r + ((k as u32 * rows_per_k) as u64) < rows && first_c < cols {
                    // SAFETY: the checks above keep the vector's row and first column inside the
                    // matrix; rows hold whole vectors (the caller's contract: rows start 16-byte
                    // aligned), so all of it is inside `src`, aligned.
                    *h = unsafe { load_global_v4(first.add(k * step).cast()) };
                }
            }
        }
    };
    let stage = |_, held: &[[u32; 4]; N]| {
        for (k, h) in held.iter().enumerate() {
            let r = tr + k as u32 * rows_per_k;
            // SAFETY: `r < side` and the swizzle keeps each vector inside row `r`'s `per_row`
            // vectors (`bankwise_layout::transpose::tuned`), inside the tile, whose bytes the
            // launch gives; one thread writes each vector, the barrier in `each_tile` orders the
            // writes before the reads, and one tile per block means no later writes.
            unsafe { tile.write((r * per_row + tuned::swizzle(r, tv, size)) as usize, Vector(*h)) };
        }
    };
    let elems = tile.cast::<T>();
    let store = |(b, r0, c0): (u64, u64, u64)| {
        let interior = r0 + side as u64 <= rows && c0 + side as u64 <= cols;
        for k in 0..N as u32 {
            let (j, u) = tuned::store_role(k * tuned::THREADS + t, size);
            let (out_r, out_c) = (c0 + j as u64, r0 + (u * V as u32) as u64);
            if interior || (out_r < cols && out_c < rows) {
                // SAFETY: `tuned::offset` maps each `(row, column)` of the tile into it; every
                // element was written before the barrier in `each_tile`, and nothing writes the
                // tile after it.
                let gathered: [T; V] = core::array::from_fn(|e| unsafe {
                    elems.read(tuned::offset(u * V as u32 + e as u32, j, size) as usize)
                });
                // Safety: [T; V] is exactly 16 bytes of plain data.
                let packed: [u32; 4] = unsafe { core::mem::transmute_copy(&gathered) };
                // SAFETY: the output vector is inside the transposed matrix (interior tile, or the
                // checks above), which `dst` holds with rows 16-byte aligned (the caller's
                // contract); one thread writes each vector.
                unsafe { store_global_v4(dst.add(offset(b, out_r, out_c, cols, rows) as usize).cast(), packed) };
            }
        }
    };
    each_tile(&Tiles::new(side, rows, cols, batch), [[0u32; 4]; N], load, stage, store);
}

/// `transpose` for 8-byte elements, at any shape: the padded tile of `transpose_padded` made
/// taller (64 input rows × 32 columns, `tuned::scalar`), 8 elements per thread, one block per
/// tile, tiles taken down each column. Scalar 8-byte accesses already give each warp 256
/// contiguous bytes, and they need no alignment: odd shapes take the same path. Measured
/// (H100): 2891–2895 GB/s at 8192² (97.2–97.3% of the copy; cuBLAS 2834–2837), 2757 at 8191 ×
/// 8193 (cuBLAS 2665; the padded 32×32 ladder kernel 2652). 48 registers: five blocks per SM
/// (the 16-byte vector version and the tile loop it had before: `docs/decisions.md`).
/// Small matrices whose rows start on a sector take [`transpose_small`] (`tuned::small`).
///
/// # Safety
/// As [`transpose_naive`], with the grid of `tuned::Tiles::rect` over `tuned::scalar`'s tile,
/// `tuned::THREADS` threads per block and its dynamic shared memory.
#[inline(always)]
pub unsafe fn transpose_scalar<T: Plain>(dst: *mut T, src: *const T, rows: u64, cols: u64, batch: u64) {
    const N: usize = scalar::PER_THREAD as usize;
    let tile = shared::dynamic::<T>();
    let t = thread_x();
    let (tall, wide) = (scalar::ROWS as u64, scalar::COLS as u64);
    let load = |(b, r0, c0): (u64, u64, u64), held: &mut [T; N]| {
        let interior = r0 + tall <= rows && c0 + wide <= cols;
        for (k, h) in held.iter_mut().enumerate() {
            let (r, c) = scalar::load_role(k as u32 * tuned::THREADS + t);
            let (r, c) = (r0 + r as u64, c0 + c as u64);
            if interior || (r < rows && c < cols) {
                // SAFETY: interior tile, or the checks above: element `(b, r, c)` is inside the
                // matrix, which `src` holds.
                *h = unsafe { global::read(src.add(offset(b, r, c, rows, cols) as usize)) };
            }
        }
    };
    let stage = |_, held: &[T; N]| {
        for (k, &h) in held.iter().enumerate() {
            let (r, c) = scalar::load_role(k as u32 * tuned::THREADS + t);
            // SAFETY: `load_role` gives a `(r, c)` inside the `ROWS × COLS` tile, and `PITCH >
            // COLS`: inside the shared tile whose bytes the launch gives; one writer per slot,
            // ordered before the reads by the barrier in `each_tile`.
            unsafe { tile.write((r * scalar::PITCH + c) as usize, h) };
        }
    };
    let store = |(b, r0, c0): (u64, u64, u64)| {
        let interior = r0 + tall <= rows && c0 + wide <= cols;
        for k in 0..N as u32 {
            let (j, u) = scalar::store_role(k * tuned::THREADS + t);
            let (out_r, out_c) = (c0 + j as u64, r0 + u as u64);
            if interior || (out_r < cols && out_c < rows) {
                // SAFETY: the slot was written before the barrier in `each_tile`; the output
                // element is inside the transposed matrix (interior tile, or the checks above),
                // which `dst` holds, and one thread writes it.
                unsafe {
                    let v = tile.read((u * scalar::PITCH + j) as usize);
                    global::write(dst.add(offset(b, out_r, out_c, cols, rows) as usize), v);
                }
            }
        }
    };
    // Safety: T is Plain, so zero bytes are a valid value.
    let empty: [T; N] = unsafe { core::mem::zeroed() };
    each_tile(&Tiles::rect(scalar::ROWS, scalar::COLS, rows, cols, batch), empty, load, stage, store);
}

/// `transpose` for small 8-byte matrices (up to `tuned::small::ELEMENTS`) whose rows all start
/// on a 32-byte sector: the padded 32 × 32 tile of `transpose_padded`, one tile per block, in
/// blocks of 32 × 4 threads that move 8 elements each. Small blocks of 32 registers let 16 fit
/// an SM: at 1024² f64 every tile is in flight at once, and each SM's share of the matrix is
/// spread over many small blocks rather than a few large ones. Measured (H100, % of the copy):
/// 1024² 78.9–79.5% (cuBLAS `geam` 76.1–76.7%), 2048² 99.1–99.9% (97.8–98.7%); with every
/// global access hinted cache-streaming (`STREAM`, `transpose_small_streaming_u64`, taken up to
/// 2^20 elements), 9.54–9.57 µs at 1024² run after itself, against cuBLAS's 9.70–9.78. Rows
/// that start off a sector go to `transpose_u64` (the comparisons behind both choices:
/// `docs/decisions.md`).
///
/// # Safety
/// As [`transpose_tile`] with `K = tuned::small::PER_THREAD` and one block per tile.
#[inline(always)]
pub unsafe fn transpose_small<T: Plain, const STREAM: bool>(
    dst: *mut T,
    src: *const T,
    rows: u64,
    cols: u64,
    batch: u64,
) {
    const K: usize = tuned::small::PER_THREAD as usize;
    // SAFETY: this function's contract is `transpose_tile`'s with `K = tuned::small::PER_THREAD`
    // and one tile per block (its `# Safety`).
    unsafe { transpose_tile::<T, K, true, STREAM>(TileLayout::Padded, dst, src, rows, cols, batch) }
}
