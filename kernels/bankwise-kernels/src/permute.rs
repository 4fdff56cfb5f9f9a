//! N-d permutations: `dst` is `src` with its axes reordered, `dst[j₀]…[jᵣ₋₁] = src[i₀]…[iᵣ₋₁]`
//! where `i[perm[k]] = j[k]`, both row-major.
//!
//! The host (`bankwise::permute`) first drops size-1 axes and fuses axes that stay adjacent and
//! in order, then gives the work one of two shapes, each described by a parameter struct here:
//!
//! - [`Tiled`], where the innermost axis moves: a 2-D tile through shared memory whose columns
//!   run along `src`'s innermost axes (a [`Group`] of them, contiguous in `src`) and whose rows
//!   run along `dst`'s innermost axes (contiguous in `dst`), so that both global sides are
//!   coalesced; every other axis is a [`Batch`] index, one per tile. A batched 2-D transpose is
//!   this with one axis in each group and one in the batch (the host gives that case to the
//!   tuned transpose, which is this tile with fixed strides). Two kernels: 16-byte vectors on
//!   both sides through the tuned transpose's swizzled tile ([`permute_tiled_vectorized`]),
//!   where both groups span a multiple of the vector; else one element per access through a
//!   padded 32 × 32 tile ([`permute_tiled_scalar`]).
//! - [`Rows`], where the innermost axis stays: `dst` is a gather of whole rows of `src`, copied
//!   along both sides ([`permute_rows`]). Rows of 2, 4 or 8 bytes never get here: the host moves
//!   them as one wider element and plans the rest again.
//!
//! Both kernels take one block per tile (or per chunk of rows) from a one-dimensional grid, so
//! any shape fits the grid's limits (the host splits launches past 2³¹ − 1 blocks).

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared;
use bankwise_device::thread::{block_x, sync_threads, thread_x, thread_y};
use bankwise_layout::transpose::tuned::{self, THREADS};
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, TileLayout};

use crate::Vector;
use crate::tile::SharedTile;

/// The most axes a permutation takes.
pub const MAX_RANK: usize = 8;
/// The most axes one side of a tile ([`Group`]) spans.
pub const MAX_GROUP: usize = 4;
// `Group::offset` is written out for four axes.
const _: () = assert!(MAX_GROUP == 4);
/// The most axes a [`Batch`] spans: all but the innermost (the row gather's; a tile's batch
/// has two fewer than the rank at most).
pub const MAX_BATCH: usize = MAX_RANK - 1;
/// Threads per block of [`permute_rows`].
pub const ROWS_THREADS: u32 = 256;

/// Axes that are contiguous in one tensor and strided in the other: the columns of a tile
/// (the innermost axes of `src`, where column `c` is `src` offset `c`) or its rows (the
/// innermost axes of `dst`, row `r` at `dst` offset `r`). [`Group::offset`] gives an index's
/// offset in the other tensor.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// Elements the group spans (the product of its axes' sizes).
    pub len: u64,
    /// Each axis's stride in the other tensor, innermost first.
    pub strides: [u64; MAX_GROUP],
    /// Each axis's size, innermost first. Only the inner `dims - 1` are read: the host keeps a
    /// group of several axes under 2³¹ elements, so they are decoded in 32-bit arithmetic.
    pub sizes: [u32; MAX_GROUP],
    /// Axes in the group, 1 to [`MAX_GROUP`].
    pub dims: u32,
    /// Unused; keeps the struct free of implicit padding.
    pub reserved: u32,
}

impl Group {
    /// The offset, in the other tensor, of index `x` of the group (`x < len`): a multiply for
    /// a group of one axis, a mixed-radix decode for more. Written out axis by axis: every
    /// index into the arrays is a constant, so the parameter stays in the constant bank (a loop
    /// over them left a dynamic index, and ptxas copied the whole struct to a stack frame).
    #[inline(always)]
    pub fn offset(&self, x: u64) -> u64 {
        let (s, n) = (&self.strides, &self.sizes);
        if self.dims <= 1 {
            return x * s[0];
        }
        let mut x = x as u32;
        let mut offset = (x % n[0]) as u64 * s[0];
        x /= n[0];
        if self.dims == 2 {
            return offset + x as u64 * s[1];
        }
        offset += (x % n[1]) as u64 * s[1];
        x /= n[1];
        if self.dims == 3 {
            return offset + x as u64 * s[2];
        }
        offset += (x % n[2]) as u64 * s[2];
        x /= n[2];
        offset + x as u64 * s[3]
    }
}

/// The axes outside a tile's two groups: one index of the batch per tile, decoded into its
/// offsets in `src` and `dst`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// Indices in the batch (the product of its axes' sizes; 1 for none).
    pub count: u64,
    /// Each axis's size, innermost (fastest-varying across tiles) first.
    pub sizes: [u64; MAX_BATCH],
    /// Each axis's stride in `src`.
    pub src: [u64; MAX_BATCH],
    /// Each axis's stride in `dst`.
    pub dst: [u64; MAX_BATCH],
    /// Axes in the batch, 0 to [`MAX_BATCH`].
    pub dims: u32,
    /// Unused; keeps the struct free of implicit padding.
    pub reserved: u32,
}

impl Batch {
    /// The `src` and `dst` offsets of batch index `b` (`b < count`).
    #[inline(always)]
    pub fn offsets(&self, mut b: u64) -> (u64, u64) {
        let (mut s, mut d) = (0, 0);
        for i in 0..MAX_BATCH {
            if i >= self.dims as usize {
                break;
            }
            let x = if i + 1 == self.dims as usize { b } else { b % self.sizes[i] };
            b /= self.sizes[i];
            s += x * self.src[i];
            d += x * self.dst[i];
        }
        (s, d)
    }
}

/// A permutation whose innermost axis moves, as tiles (see the [module](self)): element
/// `(batch b, row r, column c)` is `src[bs + rows.offset(r) + c]` and `dst[bd + cols.offset(c)
/// + r]`, where `(bs, bd) = batch.offsets(b)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tiled {
    /// The tile's rows: `dst`'s innermost axes.
    pub rows: Group,
    /// The tile's columns: `src`'s innermost axes.
    pub cols: Group,
    /// The other axes.
    pub batch: Batch,
    /// Tiles down the rows (`rows.len` over the kernel's tile side, rounded up).
    pub tiles_down: u64,
    /// Tiles across the columns.
    pub tiles_across: u64,
    /// The tile of this launch's block 0: blocks take tiles `first_tile + block`, down each
    /// column of tiles, then across, then batch index by batch index (the tuned transpose's
    /// order, measured faster than along rows).
    pub first_tile: u64,
}

impl Tiled {
    /// Tiles in all.
    pub const fn tiles(&self) -> u64 {
        self.tiles_down * self.tiles_across * self.batch.count
    }

    /// Block `block`'s tile: its batch's `src` and `dst` offsets and its first row and column.
    #[inline(always)]
    pub fn tile(&self, block: u64, side: u64) -> (u64, u64, u64, u64) {
        let id = self.first_tile + block;
        let (down, rest) = (id % self.tiles_down, id / self.tiles_down);
        let (across, b) = (rest % self.tiles_across, rest / self.tiles_across);
        let (s, d) = self.batch.offsets(b);
        (s, d, down * side, across * side)
    }
}

/// A permutation whose innermost axis stays innermost, as a gather of rows (see the
/// [module](self)): `dst` row `j` (elements `j · row_len ..`) is the `src` row at
/// `outer.offset(j)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// The other axes, in `dst`'s order, innermost first: `src` strides only (a `dst` row
    /// starts at `j · row_len`); the batch's `dst` strides are unused.
    pub outer: Batch,
    /// Elements per row (of the kernel's word: vectors for the vectorized entries).
    pub row_len: u64,
    /// Rows each block copies (1 where a row takes several blocks).
    pub rows_per_block: u64,
    /// Blocks per row (1 where a block copies several rows).
    pub blocks_per_row: u64,
    /// Elements of a row each block copies, where a row takes several blocks.
    pub chunk: u64,
    /// The block of this launch's block 0.
    pub first_block: u64,
}

impl Rows {
    /// Blocks in all.
    pub const fn blocks(&self) -> u64 {
        self.outer.count.div_ceil(self.rows_per_block) * self.blocks_per_row
    }
}

// SAFETY: #[repr(C)] structs of u64 and u32 fields without implicit padding: one layout on
// the host and on nvptx64, and no pointers.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl bankwise_device::ByValue for Tiled {}
// SAFETY: as for `Tiled`.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl bankwise_device::ByValue for Rows {}

/// The tiled permutation with 16-byte vectors on both global sides, for `T` of 1, 2, 4 or 8
/// bytes (`V` elements per vector, `N` vectors per thread): the tile and its roles are the
/// tuned transpose's (`bankwise_layout::transpose::tuned`: 256-byte tile rows, 128 for 1-byte
/// elements, a vector-granular XOR swizzle that makes the row writes `STS.128` and the column
/// gather conflict-free), the addresses are [`Tiled`]'s. Each thread decodes the `src` offsets
/// of its `N` rows and the `dst` offsets of its `N` output rows: a multiply each where the
/// group has one axis, a few 32-bit divisions where it has more.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping, 16-byte aligned buffers holding the permutation
/// `p` describes; `p.rows.len` and `p.cols.len` are multiples of `V` (so every row of both
/// starts 16-byte aligned); the launch has `tuned::THREADS` threads per block, at most
/// `p.tiles() - p.first_tile` blocks for `p`'s tiles of side `tuned::side`, and
/// `tuned::tile_bytes` of dynamic shared memory.
#[inline(always)]
pub unsafe fn permute_tiled_vectorized<T: Plain, const V: usize, const N: usize>(
    dst: *mut T,
    src: *const T,
    p: &Tiled,
) {
    let size = size_of::<T>() as u32;
    let (side, per_row) = (tuned::side(size), tuned::vectors_per_row(size));
    let tile = shared::dynamic::<Vector>();
    let t = thread_x();
    let rows_per_k = THREADS / per_row;
    let (tr, tv) = (t / per_row, t % per_row);
    let (bs, bd, r0, c0) = p.tile(block_x() as u64, side as u64);
    let (rows, cols) = (p.rows.len, p.cols.len);
    let interior = r0 + side as u64 <= rows && c0 + side as u64 <= cols;
    let c = c0 + (tv * V as u32) as u64;
    let mut held = [[0u32; 4]; N];
    for (k, h) in held.iter_mut().enumerate() {
        let r = r0 + (tr + k as u32 * rows_per_k) as u64;
        if interior || (r < rows && c < cols) {
            // SAFETY: row `r` and columns `c .. c + V` lie inside the groups (an interior tile, or
            // the checks; columns come in whole vectors as `cols.len` is a multiple of V), so the
            // vector is inside `src` (the caller's contract), 16-byte aligned as every row of the
            // column group starts on a multiple of `cols.len`.
            *h = unsafe { load_global_v4(src.add((bs + p.rows.offset(r) + c) as usize).cast()) };
        }
    }
    for (k, h) in held.iter().enumerate() {
        let r = tr + k as u32 * rows_per_k;
        // SAFETY: `r < side` and the swizzle keeps the vector inside tile row `r`, inside the
        // tile the launch gives; one thread writes each vector, the barrier below orders the
        // writes before the reads, and one tile per block means no later writes.
        unsafe { tile.write((r * per_row + tuned::swizzle(r, tv, size)) as usize, Vector(*h)) };
    }
    sync_threads();
    let elems = tile.cast::<T>();
    for k in 0..N as u32 {
        let (j, u) = tuned::store_role(k * THREADS + t, size);
        let (out_row, out_col) = (c0 + j as u64, r0 + (u * V as u32) as u64);
        if interior || (out_row < cols && out_col < rows) {
            // SAFETY: `tuned::offset` maps each (row, column) of the tile into it; every element was
            // written before the barrier, and nothing writes the tile after it.
            let gathered: [T; V] =
                core::array::from_fn(|e| unsafe { elems.read(tuned::offset(u * V as u32 + e as u32, j, size) as usize) });
            // SAFETY: [T; V] is exactly 16 bytes of plain data.
            let packed: [u32; 4] = unsafe { core::mem::transmute_copy(&gathered) };
            let at = bd + p.cols.offset(out_row) + out_col;
            // SAFETY: column `out_row` and rows `out_col .. + V` lie inside the groups, so the
            // vector is inside `dst`, aligned as `rows.len` is a multiple of V; one thread writes it.
            unsafe { store_global_v4(dst.add(at as usize).cast(), packed) };
        }
    }
}

/// The tiled permutation one element per access, for groups that do not span whole vectors:
/// the transpose ladder's padded 32 × 32 tile (pitch 33 for 4- and 8-byte elements, 34 and 36
/// for 2- and 1-byte ones: the column walk is conflict-free) in blocks of 32 × 8 threads, each
/// moving four rows, with [`Tiled`]'s addresses.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping buffers holding the permutation `p` describes;
/// the launch has blocks of `TILE × BLOCK_ROWS` threads, at most `p.tiles() - p.first_tile`
/// blocks for tiles of side `TILE`, and the padded tile's dynamic shared memory.
#[inline(always)]
pub unsafe fn permute_tiled_scalar<T: Plain>(dst: *mut T, src: *const T, p: &Tiled) {
    const K: u32 = TILE / BLOCK_ROWS;
    // SAFETY: the launch gives the padded tile's bytes (the caller's contract).
    let tile = unsafe { SharedTile::<T>::new_unchecked(TileLayout::Padded) };
    let (tx, ty) = (thread_x(), thread_y());
    let (bs, bd, r0, c0) = p.tile(block_x() as u64, TILE as u64);
    let (rows, cols) = (p.rows.len, p.cols.len);
    let interior = r0 + TILE as u64 <= rows && c0 + TILE as u64 <= cols;
    // SAFETY: T is Plain, so zero bytes are a valid value.
    let mut held: [T; K as usize] = unsafe { core::mem::zeroed() };
    let c = c0 + tx as u64;
    for (k, h) in held.iter_mut().enumerate() {
        let r = r0 + (ty + k as u32 * BLOCK_ROWS) as u64;
        if interior || (r < rows && c < cols) {
            // SAFETY: `(r, c)` lies inside the groups, so the element is inside `src`.
            *h = unsafe { global::read(src.add((bs + p.rows.offset(r) + c) as usize)) };
        }
    }
    for (k, &h) in held.iter().enumerate() {
        // SAFETY: inside the tile; one writer per slot; the barrier orders it before the reads.
        unsafe { tile.write(ty + k as u32 * BLOCK_ROWS, tx, h) };
    }
    sync_threads();
    let out_col = r0 + tx as u64;
    for k in 0..K {
        let j = ty + k * BLOCK_ROWS;
        let out_row = c0 + j as u64;
        if interior || (out_row < cols && out_col < rows) {
            // SAFETY: `(tx, j)` is inside the tile, written before the barrier; the output element
            // is inside `dst`, and one thread writes it.
            unsafe {
                let v = tile.read(tx, j);
                global::write(dst.add((bd + p.cols.offset(out_row) + out_col) as usize), v);
            }
        }
    }
}

/// The gather of rows: each block copies `rows_per_block` whole rows (decoding each row's
/// `src` offset once, into shared memory) or one `chunk` of a long row, its 256 threads
/// walking the elements in order on both sides: coalesced loads and stores, the only gather
/// being where each row starts. `T` is the word moved: an element, or a 16-byte vector where
/// the row spans whole vectors.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping buffers holding the permutation `p` describes,
/// aligned to `T`, with `p.row_len` counted in `T`s; the launch has [`ROWS_THREADS`] threads per
/// block, at most `p.blocks() - p.first_block` blocks, and `8 · ROWS_THREADS` bytes of dynamic
/// shared memory; `p.rows_per_block ≤ ROWS_THREADS`.
#[inline(always)]
pub unsafe fn permute_rows<T: Plain>(dst: *mut T, src: *const T, p: &Rows) {
    let t = thread_x();
    let block = p.first_block + block_x() as u64;
    if p.blocks_per_row > 1 {
        let (row, part) = (block / p.blocks_per_row, block % p.blocks_per_row);
        let (from, to) = (p.outer.offsets(row).0, row * p.row_len);
        let end = p.row_len.min((part + 1) * p.chunk);
        let mut x = part * p.chunk + t as u64;
        while x < end {
            // SAFETY: `x < row_len` of row `row < outer.count`: inside both buffers; one thread
            // writes each element.
            unsafe { global::write(dst.add((to + x) as usize), global::read(src.add((from + x) as usize))) };
            x += ROWS_THREADS as u64;
        }
        return;
    }
    let starts = shared::dynamic::<u64>();
    let first = block * p.rows_per_block;
    let count = p.rows_per_block.min(p.outer.count - first);
    if (t as u64) < count {
        // SAFETY: `t < ROWS_THREADS`, inside the launch's `8 · ROWS_THREADS` bytes; one writer per
        // slot, ordered before the reads by the barrier below.
        unsafe { starts.write(t as usize, p.outer.offsets(first + t as u64).0) };
    }
    sync_threads();
    // A block copies at most a chunk of words (the host's `rows_per_block · row_len ≤ chunk`,
    // far below 2³²), so the walk divides in 32-bit arithmetic.
    let (total, len) = ((count * p.row_len) as u32, p.row_len as u32);
    // SAFETY: the block's rows are consecutive in `dst`, from row `first`.
    let to = unsafe { dst.add((first * p.row_len) as usize) };
    let mut x = t;
    while x < total {
        let (row, within) = (x / len, x % len);
        // SAFETY: `row < count`: its start was written before the barrier. The element is inside
        // row `first + row` of both buffers, and one thread writes it.
        unsafe {
            let from = starts.read(row as usize) + within as u64;
            global::write(to.add(x as usize), global::read(src.add(from as usize)));
        }
        x += ROWS_THREADS;
    }
}

/// [`permute_rows`] moving 16-byte vectors: `row_len` (and the other counts of `p`) counted in
/// vectors of four `u32`s.
///
/// # Safety
/// As [`permute_rows`] for 16-byte words, with `src` and `dst` 16-byte aligned.
#[inline(always)]
pub unsafe fn permute_rows_vectors(dst: *mut u32, src: *const u32, p: &Rows) {
    // SAFETY: this function's contract is `permute_rows`'s for `Vector`, 16 bytes aligned to 16.
    unsafe { permute_rows::<Vector>(dst.cast(), src.cast(), p) }
}
