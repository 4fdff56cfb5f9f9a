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
//!   tuned transpose, which is this tile with fixed strides, where both sides are 64 or more).
//!   Three kernels: 16-byte vectors on both sides through the tuned transpose's swizzled square
//!   tile ([`permute_tiled_vectorized`]), where both groups span a multiple of the vector and
//!   at least the tile's side; 16-byte vectors realigned by a shuffle through the unaligned
//!   transpose's tile ([`permute_tiled_unaligned`]), where each group is one axis that fills
//!   it; else one element per access through a rectangular tile shaped to the groups
//!   ([`permute_tiled_flat`]). A batched 2-D transpose with one side under 64
//!   and the other long (rows of a multiple of 2 bytes) takes neither: it is a [`Skinny`]
//!   transpose ([`skinny`]), words of 16, 8, 4 or 2 bytes on both sides without padding the
//!   narrow side.
//! - [`Rows`], where the innermost axis stays: `dst` is a gather of whole rows of `src`, copied
//!   along both sides ([`permute_rows`]). Rows of 2, 4 or 8 bytes never get here: the host moves
//!   them as one wider element and plans the rest again; rows of 16 bytes (in tensors on 16
//!   bytes) it moves as vectors through the flat tile ([`permute_tiled_flat_vectors`]).
//!
//! Both kernels take one block per tile (or per chunk of rows) from a one-dimensional grid, so
//! any shape fits the grid's limits (the host splits launches past 2³¹ − 1 blocks).

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared::{self, ALIGN};
use bankwise_device::thread::{block_x, sync_threads, thread_x};
use bankwise_layout::transpose::tuned::{self, THREADS, unaligned};

use crate::Vector;
use crate::transpose::{Index, Pitched, realigned_tile};

pub mod skinny;
pub use skinny::{SKINNY_BYTES_PER_THREAD, SKINNY_MAX_NARROW, Skinny, permute_skinny, skinny_per_thread};

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
/// Words each thread of [`permute_rows`] loads before it stores them.
pub const ROWS_UNROLL: usize = 4;

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
    /// Each inner axis's [`FastDiv`] multiplier, for [`Group::offset32`].
    pub magic: [u64; MAX_GROUP],
    /// Each inner axis's [`FastDiv`] shift.
    pub shift: [u32; MAX_GROUP],
}

/// Division of any `x < 2³¹` by a fixed `d` (`1 ≤ d < 2³¹`) as a multiply and a shift:
/// `x / d = (x · magic) >> shift` with `shift = 31 + ⌈log₂ d⌉` and `magic = ⌈2^shift / d⌉`
/// (at most 2³², so `x · magic` fits 64 bits). Exact: `magic · d − 2^shift < d ≤ 2^⌈log₂ d⌉`
/// keeps the error `x · (magic · d − 2^shift) / (d · 2^shift)` under `1 / d`, too little to
/// cross an integer (Granlund and Montgomery's round-up method). A few instructions where a
/// 32-bit division is a reciprocal estimate and two corrections (about 20).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastDiv {
    /// The multiplier.
    pub magic: u64,
    /// The shift.
    pub shift: u32,
}

impl FastDiv {
    /// The multiplier and shift for `d` (`1 ≤ d < 2³¹`).
    pub const fn new(d: u32) -> FastDiv {
        let log = 32 - (d - 1).leading_zeros();
        let shift = 31 + log;
        FastDiv { magic: (1u64 << shift).div_ceil(d as u64), shift }
    }

    /// `x / d` for `x < 2³¹`.
    #[inline(always)]
    pub const fn divide(magic: u64, shift: u32, x: u32) -> u32 {
        ((x as u64 * magic) >> shift) as u32
    }
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

    /// [`Group::offset`] in 32-bit arithmetic, for tensors of fewer than 2³² elements (every
    /// offset and stride fits): a 32-bit multiply-add per axis where the 64-bit form takes
    /// several instructions and twice the registers.
    #[inline(always)]
    pub fn offset32(&self, x: u32) -> u32 {
        let (s, n) = (&self.strides, &self.sizes);
        if self.dims <= 1 {
            return x.wrapping_mul(s[0] as u32);
        }
        // Each step: the quotient by a multiply and a shift (`FastDiv`), the remainder from it.
        let step = |x: u32, i: usize| {
            let q = FastDiv::divide(self.magic[i], self.shift[i], x);
            (q, (x - q * n[i]).wrapping_mul(s[i] as u32))
        };
        let (x, mut offset) = step(x, 0);
        if self.dims == 2 {
            return offset.wrapping_add(x.wrapping_mul(s[1] as u32));
        }
        let (x, o) = step(x, 1);
        offset = offset.wrapping_add(o);
        if self.dims == 3 {
            return offset.wrapping_add(x.wrapping_mul(s[2] as u32));
        }
        let (x, o) = step(x, 2);
        offset.wrapping_add(o).wrapping_add(x.wrapping_mul(s[3] as u32))
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
    /// Each axis's [`FastDiv`] multiplier, where the batch has fewer than 2³¹ indices
    /// ([`Batch::with_divisors`]); all 0 where not set, and [`Batch::offsets`] divides.
    pub magic: [u64; MAX_BATCH],
    /// Each axis's [`FastDiv`] shift.
    pub shift: [u32; MAX_BATCH],
    /// Unused; keeps the struct free of implicit padding.
    pub padding: u32,
}

impl Batch {
    /// The batch with its axes' [`FastDiv`] divisors set, where it has fewer than 2³¹ indices
    /// (each axis's size then fits them); unchanged otherwise.
    pub const fn with_divisors(mut self) -> Batch {
        if self.count < 1 << 31 {
            let mut i = 0;
            while i < self.dims as usize {
                let div = FastDiv::new(self.sizes[i] as u32);
                (self.magic[i], self.shift[i]) = (div.magic, div.shift);
                i += 1;
            }
        }
        self
    }

    /// The `src` and `dst` offsets of batch index `b` (`b < count`): a mixed-radix decode, by
    /// [`FastDiv`] multiplies where the divisors are set ([`Batch::with_divisors`]), else in
    /// 32-bit divisions where the batch has fewer than 2³² indices (every batch a GPU's memory
    /// holds in practice; a 64-bit division is a long software routine on the GPU). A 32-bit
    /// division is about twenty instructions, run by every thread of a block.
    #[inline(always)]
    pub fn offsets(&self, b: u64) -> (u64, u64) {
        let (mut s, mut d) = (0, 0);
        if self.magic[0] != 0 {
            let mut b = b as u32;
            for i in 0..MAX_BATCH {
                if i >= self.dims as usize {
                    break;
                }
                let x = if i + 1 == self.dims as usize {
                    b
                } else {
                    let q = FastDiv::divide(self.magic[i], self.shift[i], b);
                    let x = b - q * self.sizes[i] as u32;
                    b = q;
                    x
                };
                s += x as u64 * self.src[i];
                d += x as u64 * self.dst[i];
            }
            return (s, d);
        }
        if self.count <= u32::MAX as u64 {
            let mut b = b as u32;
            for i in 0..MAX_BATCH {
                if i >= self.dims as usize {
                    break;
                }
                let n = self.sizes[i] as u32;
                let x = if i + 1 == self.dims as usize { b } else { b % n };
                b /= n;
                s += x as u64 * self.src[i];
                d += x as u64 * self.dst[i];
            }
            return (s, d);
        }
        let mut b = b;
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
    /// The flat kernel's tile: `1 << row_shift` rows (the vectorized kernel's side is fixed).
    pub row_shift: u32,
    /// The flat kernel's tile: `1 << col_shift` columns.
    pub col_shift: u32,
    /// The flat kernel's shared-memory pitch in elements: tile element `(r, c)` is at
    /// `r · pitch + c` (see [`flat_pitch`]).
    pub pitch: u32,
    /// Unused; keeps the struct free of implicit padding.
    pub reserved: u32,
    /// [`FastDiv`] multiplier by `tiles_down`, where there are fewer than 2³¹ tiles
    /// ([`Tiled::with_divisors`]); 0 where not set, and [`Tiled::tile`] divides.
    pub down_magic: u64,
    /// [`FastDiv`] multiplier by `tiles_across`.
    pub across_magic: u64,
    /// [`FastDiv`] shift by `tiles_down`.
    pub down_shift: u32,
    /// [`FastDiv`] shift by `tiles_across`.
    pub across_shift: u32,
}

impl Tiled {
    /// Tiles in all.
    pub const fn tiles(&self) -> u64 {
        self.tiles_down * self.tiles_across * self.batch.count
    }

    /// The parameters with the tile order's and the batch's [`FastDiv`] divisors set, where
    /// they number fewer than 2³¹ (set them after the tile counts).
    pub const fn with_divisors(mut self) -> Tiled {
        self.batch = self.batch.with_divisors();
        (self.down_magic, self.across_magic) = (0, 0);
        if self.tiles() < 1 << 31 {
            let (down, across) = (FastDiv::new(self.tiles_down as u32), FastDiv::new(self.tiles_across as u32));
            (self.down_magic, self.down_shift) = (down.magic, down.shift);
            (self.across_magic, self.across_shift) = (across.magic, across.shift);
        }
        self
    }

    /// Block `block`'s tile of `tall` rows × `wide` columns: its batch's `src` and `dst`
    /// offsets and its first row and column. By [`FastDiv`] multiplies where the divisors are
    /// set ([`Tiled::with_divisors`]), else in 32-bit divisions where the tiles number under
    /// 2³² (always, in practice: see [`Batch::offsets`]).
    #[inline(always)]
    pub fn tile(&self, block: u64, tall: u64, wide: u64) -> (u64, u64, u64, u64) {
        let id = self.first_tile + block;
        let (down, across, b) = if self.down_magic != 0 {
            let id = id as u32;
            let rest = FastDiv::divide(self.down_magic, self.down_shift, id);
            let b = FastDiv::divide(self.across_magic, self.across_shift, rest);
            let (down, across) = (id - rest * self.tiles_down as u32, rest - b * self.tiles_across as u32);
            (down as u64, across as u64, b as u64)
        } else if self.tiles() <= u32::MAX as u64 {
            let (id, d, a) = (id as u32, self.tiles_down as u32, self.tiles_across as u32);
            let rest = id / d;
            ((id % d) as u64, (rest % a) as u64, (rest / a) as u64)
        } else {
            let rest = id / self.tiles_down;
            (id % self.tiles_down, rest % self.tiles_across, rest / self.tiles_across)
        };
        let (s, d) = self.batch.offsets(b);
        (s, d, down * tall, across * wide)
    }
}

/// The flat kernel's pitch, in elements, for a tile of `tall` × `wide` elements (powers of
/// two) of `bytes` each, chosen so that the column walk of the stores meets distinct banks.
/// The lanes one wavefront serves together are a warp's 32 for elements of up to 8 bytes, and
/// 8 (a quarter warp, 128 bytes) for 16-byte vectors:
/// - `tall` at least those lanes (they take consecutive rows of one column): rows a whole odd
///   number of 4-byte words apart (units of the element from 8 bytes up), so 32 consecutive
///   rows start on 32 distinct banks (16 distinct pairs for 8-byte elements, 8 distinct
///   16-byte groups for vectors: the 2 or 4 wavefronts a warp's 256 or 512 bytes need anyway);
/// - fewer rows (the lanes take `lanes / tall` columns of every row; `wide · bytes` is then 128
///   bytes or more, so every row would start on bank 0): rows shifted by the bytes those
///   columns span, at least a word, so the rows' pieces tile the 32 banks.
///
/// The row-major writes of the load phase are contiguous within a row and conflict-free where
/// a row holds the lanes' elements (`wide ≥ 32`, 8 for vectors); narrower tiles (a few
/// columns, several rows a wavefront) take 2 wavefronts, as no pitch serves both walks there
/// (the rows would have to start `wide` words apart).
pub const fn flat_pitch(tall: u32, wide: u32, bytes: u32) -> u32 {
    let lanes = if bytes >= 16 { 8 } else { 32 };
    let pitch_bytes = if tall < lanes {
        let shift = bytes * (lanes / tall);
        wide * bytes + if shift < 4 { 4 } else { shift }
    } else {
        let unit = if bytes < 4 { 4 } else { bytes };
        let rounded = (wide * bytes).div_ceil(unit) * unit;
        if (rounded / unit) % 2 == 0 { rounded + unit } else { rounded }
    };
    pitch_bytes.div_ceil(bytes)
}

/// Bytes of dynamic shared memory [`permute_tiled_flat`] takes for `p`'s tile of `bytes`-byte
/// elements: the tile, then, in a tensor of fewer than 2³² elements (`small`), a table of the
/// tile's columns' `dst` offsets where the column group has several axes (a `u32` a column,
/// from the first multiple of 16 bytes), and after it a table of its rows' `src` offsets where
/// the row group has several axes (a `u32` a row).
pub const fn flat_shared_bytes(p: &Tiled, bytes: u32, small: bool) -> u32 {
    let (columns, rows) = flat_tables(p, bytes, small);
    let tile = (p.pitch << p.row_shift) * bytes;
    match (columns, rows) {
        (_, Some(at)) => at + (4 << p.row_shift),
        (Some(at), None) => at + (4 << p.col_shift),
        (None, None) => tile,
    }
}

/// Where [`flat_shared_bytes`]' tables start, in bytes: the columns' and the rows', where
/// there are.
const fn flat_tables(p: &Tiled, bytes: u32, small: bool) -> (Option<u32>, Option<u32>) {
    let tile = ((p.pitch << p.row_shift) * bytes).next_multiple_of(ALIGN);
    let (columns, rows) = (small && p.cols.dims > 1, small && p.rows.dims > 1);
    let rows_at = if columns { tile + (4 << p.col_shift) } else { tile };
    (if columns { Some(tile) } else { None }, if rows { Some(rows_at) } else { None })
}

/// The flat tile's tables of column and row offsets, where it has them ([`flat_shared_bytes`]).
#[inline(always)]
#[allow(clippy::type_complexity)]
fn flat_offsets_tables<T: Plain, const SMALL: bool>(
    p: &Tiled,
) -> (Option<shared::SharedSlice<u32>>, Option<shared::SharedSlice<u32>>) {
    let (columns, rows) = flat_tables(p, size_of::<T>() as u32, SMALL);
    // SAFETY: the launch gives `flat_shared_bytes(p, bytes, SMALL)` bytes (the kernel's
    // contract), which hold each table where `flat_tables` puts it, on a multiple of 16 bytes.
    unsafe {
        (
            columns.map(|at| shared::SharedSlice::new_unchecked(at, 1 << p.col_shift)),
            rows.map(|at| shared::SharedSlice::new_unchecked(at, 1 << p.row_shift)),
        )
    }
}

/// The words [`permute_tiled_flat`] moves, with their accesses: elements of 1 to 8 bytes as
/// themselves, 16-byte vectors as `ld.global.v4.u32`/`st.global.v4.u32` (a plain copy of a
/// 16-byte struct lowers to two 8-byte accesses). With the vectors in registers, the tile's
/// plain accesses (the defaults of `read_tile`, `write_tile`) compile to `STS.128`/`LDS.128`;
/// two `LDS.64` would meet twice the bank groups of a quarter warp's rows.
pub trait FlatWord: Plain {
    /// Reads the word at global address `p`.
    ///
    /// # Safety
    /// As [`global::read`].
    #[inline(always)]
    unsafe fn load(p: *const Self) -> Self {
        // SAFETY: this function's contract.
        unsafe { global::read(p) }
    }

    /// Writes `v` to global address `p`.
    ///
    /// # Safety
    /// As [`global::write`].
    #[inline(always)]
    unsafe fn store(p: *mut Self, v: Self) {
        // SAFETY: this function's contract.
        unsafe { global::write(p, v) }
    }

    /// Reads word `i` of the tile.
    ///
    /// # Safety
    /// As [`shared::SharedSlice::read`].
    #[inline(always)]
    unsafe fn read_tile(tile: shared::SharedSlice<Self>, i: usize) -> Self {
        // SAFETY: this function's contract.
        unsafe { tile.read(i) }
    }

    /// Writes `v` to word `i` of the tile.
    ///
    /// # Safety
    /// As [`shared::SharedSlice::write`].
    #[inline(always)]
    unsafe fn write_tile(tile: shared::SharedSlice<Self>, i: usize, v: Self) {
        // SAFETY: this function's contract.
        unsafe { tile.write(i, v) }
    }
}

impl FlatWord for u8 {}
impl FlatWord for u16 {}
impl FlatWord for u32 {}
impl FlatWord for u64 {}

impl FlatWord for Vector {
    #[inline(always)]
    unsafe fn load(p: *const Vector) -> Vector {
        // SAFETY: the contract (`global::read`'s), with `p` 16-byte aligned as a `Vector` is.
        Vector(unsafe { load_global_v4(p.cast()) })
    }

    #[inline(always)]
    unsafe fn store(p: *mut Vector, v: Vector) {
        // SAFETY: as in `load`.
        unsafe { store_global_v4(p.cast(), v.0) }
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
    let (bs, bd, r0, c0) = p.tile(block_x() as u64, side as u64, side as u64);
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
        // Gathered whether or not the vector is stored, so that every lane of a warp reads the
        // tile together.
        // SAFETY: `tuned::offset` maps each (row, column) of the tile into it; every element was
        // written before the barrier, and nothing writes the tile after it.
        let gathered: [T; V] =
            core::array::from_fn(|e| unsafe { elems.read(tuned::offset(u * V as u32 + e as u32, j, size) as usize) });
        if interior || (out_row < cols && out_col < rows) {
            // SAFETY: [T; V] is exactly 16 bytes of plain data.
            let packed: [u32; 4] = unsafe { core::mem::transmute_copy(&gathered) };
            let at = bd + p.cols.offset(out_row) + out_col;
            // SAFETY: column `out_row` and rows `out_col .. + V` lie inside the groups, so the
            // vector is inside `dst`, aligned as `rows.len` is a multiple of V; one thread writes it.
            unsafe { store_global_v4(dst.add(at as usize).cast(), packed) };
        }
    }
}

/// The tiled permutation with 16-byte vectors on both global sides where each group is one
/// axis and neither spans whole vectors (a 3-D reversal of odd sizes, `(401, 409, 409)` by
/// `(2, 1, 0)`): the unaligned transpose's tile ([`crate::transpose::realigned_tile`], `tall`
/// rows × `wide` columns of `bankwise_layout::transpose::tuned::unaligned`), its rows `src`'s
/// row axis stride apart and its output rows `dst`'s column axis stride apart, one tile per
/// block in [`Tiled::tile`]'s order (taken batch index first, they measured 54% where this
/// order runs 72%). For 2- and 4-byte elements, as the transpose; `I` is the index width, `V`,
/// `N`, `E` the transpose's. Measured (H200, 2026-11-29, % of the copy): the suite's seven
/// such cases at 72–81% in `f32` and 59–71% in `bf16`, which the flat tile ran at 70–80% and
/// 41–48%.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping, 16-byte aligned buffers holding the permutation
/// `p` describes, with fewer than 2³² elements where `I` is `u32`; `p.rows.dims` and
/// `p.cols.dims` are 1; the launch has `tuned::THREADS` threads per block, at most
/// `p.tiles() - p.first_tile` blocks for `p`'s tiles of `unaligned`'s shape, and
/// `unaligned::tile_bytes` of dynamic shared memory.
#[inline(always)]
pub unsafe fn permute_tiled_unaligned<T: Plain, I: Index, const V: usize, const N: usize, const E: usize>(
    dst: *mut T,
    src: *const T,
    p: &Tiled,
) {
    let size = size_of::<T>() as u32;
    let (tall, wide) = (unaligned::tall(size) as u64, unaligned::wide(size) as u64);
    let (bs, bd, r0, c0) = p.tile(block_x() as u64, tall, wide);
    let place = Pitched {
        src: I::of(bs),
        src_pitch: I::of(p.rows.strides[0]),
        dst: I::of(bd),
        dst_pitch: I::of(p.cols.strides[0]),
    };
    let total = p.rows.len * p.cols.len * p.batch.count;
    // SAFETY: this function's contract: the tile's matrix is the batch index's, its rows
    // `rows.strides[0]` apart in `src` and its output rows `cols.strides[0]` apart in `dst`, inside
    // the buffers of `total` elements; one tile per block, every thread calling it.
    unsafe { realigned_tile::<T, I, V, N, E>(dst, src, place, (p.rows.len, p.cols.len), (r0, c0), total) }
}

/// The tiled permutation one element per access, with rectangular tiles: `1 << row_shift`
/// rows × `1 << col_shift` columns, `K` elements per thread of 256, each phase's roles flat
/// over the tile (loads row-major, stores column-major), so a tile of 4 rows × 1024 columns
/// (an NCHW → NHWC transpose with 3 channels) keeps every thread busy and both global sides
/// coalesced, as a 64 × 64 tile does for large groups. Taken where the groups do not span
/// whole 16-byte vectors or where one group is narrower than the vectorized tile's side. The
/// shared tile's pitch is [`flat_pitch`]. It is bound by instructions, not bandwidth, so its
/// offsets are kept cheap: a fixed step per element on interior tiles of one-axis groups, a
/// table per block of the rows' `src` or the columns' `dst` offsets where a group has several
/// axes ([`flat_shared_bytes`]), the tile's decode by [`FastDiv`] multiplies. Measured (H200,
/// 2026-12-07, % of the copy): the suite's flat cases with a group of several axes at 53–74%
/// in `f32` and 28–45% in `bf16`, which decoding per element ran at 48–70% and 26–39%.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping buffers holding the permutation `p` describes;
/// `(1 << row_shift) · (1 << col_shift) ≤ 256 · K`; the launch has blocks of 256 threads, at
/// most `p.tiles() - p.first_tile` blocks for tiles of that shape, and
/// [`flat_shared_bytes`]`(p, size_of::<T>(), SMALL)` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn permute_tiled_flat<T: FlatWord, const K: usize, const SMALL: bool>(
    dst: *mut T,
    src: *const T,
    p: &Tiled,
) {
    let (rs, cs, pitch) = (p.row_shift, p.col_shift, p.pitch);
    let (tall, wide) = (1u32 << rs, 1u32 << cs);
    let tile = shared::dynamic::<T>();
    let t = thread_x();
    let (bs, bd, r0, c0) = p.tile(block_x() as u64, tall as u64, wide as u64);
    let (rows, cols) = (p.rows.len, p.cols.len);
    let interior = r0 + tall as u64 <= rows && c0 + wide as u64 <= cols;
    // Element offsets: in 32-bit arithmetic where the tensor has fewer than 2³² elements
    // (`SMALL`), from the tile's origin on.
    let src_at = |r: u64, c: u64| {
        if SMALL {
            (bs as u32).wrapping_add(p.rows.offset32(r as u32)).wrapping_add(c as u32) as usize
        } else {
            (bs + p.rows.offset(r) + c) as usize
        }
    };
    let dst_at = |out_row: u64, out_col: u64| {
        if SMALL {
            (bd as u32).wrapping_add(p.cols.offset32(out_row as u32)).wrapping_add(out_col as u32) as usize
        } else {
            (bd + p.cols.offset(out_row) + out_col) as usize
        }
    };
    // Tiles of both groups' sizes where both are small take fewer slots than the block has.
    let slots = tall * wide;
    // SAFETY: T is Plain, so zero bytes are a valid value.
    let mut held: [T; K] = unsafe { core::mem::zeroed() };
    // Where a group has several axes, each of the tile's rows' `src` offsets (columns' `dst`
    // offsets) is decoded once per block into a table (a thread a row or column), instead of
    // once per element: an access then costs one broadcast read of it, where the decode cost
    // about twenty instructions. The rows' table takes a barrier of its own, before the loads.
    let (column_table, row_table) = flat_offsets_tables::<T, SMALL>(p);
    if let Some(offsets) = row_table {
        let mut i = t;
        while i < tall {
            let r = r0 + i as u64;
            if r < rows {
                // SAFETY: `i < tall`, inside the table; one writer per entry, ordered before the
                // reads by the barrier below.
                unsafe { offsets.write(i as usize, p.rows.offset32(r as u32)) };
            }
            i += THREADS;
        }
        sync_threads();
        for (k, h) in held.iter_mut().enumerate() {
            let i = k as u32 * THREADS + t;
            let (r, c) = (i >> cs, c0 + (i & (wide - 1)) as u64);
            if i < slots && (interior || (r0 + (r as u64) < rows && c < cols)) {
                // SAFETY: row `r0 + r < rows` had its entry written before the barrier.
                let at = (bs as u32).wrapping_add(unsafe { offsets.read(r as usize) }).wrapping_add(c as u32);
                // SAFETY: `(r0 + r, c)` lies inside the groups, so the element is inside `src`.
                *h = unsafe { T::load(src.add(at as usize)) };
            }
        }
    } else if SMALL && interior && p.rows.dims == 1 && slots == K as u32 * THREADS {
        // A full interior tile whose rows are one axis: element k is `k · 256` slots past the
        // thread's first, a fixed step in `src`, so the offsets are one multiply-add each and no
        // load is predicated.
        let stride = p.rows.strides[0] as u32;
        let first = (bs as u32)
            .wrapping_add(((r0 as u32).wrapping_add(t >> cs)).wrapping_mul(stride))
            .wrapping_add(c0 as u32 + (t & (wide - 1)));
        // 256 slots are 256 >> cs rows where a row is at most 256 wide, else 256 columns.
        let step = if cs <= 8 { (THREADS >> cs).wrapping_mul(stride) } else { THREADS };
        let per_row = if cs <= 8 { 1 } else { 1u32 << (cs - 8) };
        for (k, h) in held.iter_mut().enumerate() {
            let k = k as u32;
            let off = if cs <= 8 {
                first.wrapping_add(k.wrapping_mul(step))
            } else {
                first.wrapping_add((k / per_row).wrapping_mul(stride)).wrapping_add((k % per_row) * step)
            };
            // SAFETY: an interior tile: every element of it is inside `src`.
            *h = unsafe { T::load(src.add(off as usize)) };
        }
    } else {
        for (k, h) in held.iter_mut().enumerate() {
            let i = k as u32 * THREADS + t;
            let (r, c) = (r0 + (i >> cs) as u64, c0 + (i & (wide - 1)) as u64);
            if i < slots && (interior || (r < rows && c < cols)) {
                // SAFETY: `(r, c)` lies inside the groups, so the element is inside `src`.
                *h = unsafe { T::load(src.add(src_at(r, c))) };
            }
        }
    }
    for (k, &h) in held.iter().enumerate() {
        let i = k as u32 * THREADS + t;
        if i < slots {
            // SAFETY: row `i >> cs < tall` and column `< wide ≤ pitch`: inside the launch's
            // `tall · pitch` elements; one writer per slot, ordered before the reads by the barrier.
            unsafe { T::write_tile(tile, ((i >> cs) * pitch + (i & (wide - 1))) as usize, h) };
        }
    }
    if let Some(offsets) = column_table {
        let mut i = t;
        while i < wide {
            let c = c0 + i as u64;
            if c < cols {
                // SAFETY: `i < wide`, inside the table the launch gives (`flat_shared_bytes`); one
                // writer per entry, ordered before the reads by the barrier below.
                unsafe { offsets.write(i as usize, p.cols.offset32(c as u32)) };
            }
            i += THREADS;
        }
    }
    sync_threads();
    if let Some(offsets) = column_table {
        for k in 0..K as u32 {
            let j = k * THREADS + t;
            if j >= slots {
                break;
            }
            let (r, c) = (j & (tall - 1), j >> rs);
            // Read whether or not the element is stored, as below.
            // SAFETY: `(r, c)` is inside the tile; what it holds was written before the barrier.
            let v = unsafe { T::read_tile(tile, (r * pitch + c) as usize) };
            let (out_row, out_col) = (c0 + c as u64, r0 + r as u64);
            if interior || (out_row < cols && out_col < rows) {
                // SAFETY: column `out_row < cols` had its entry written before the barrier.
                let at = (bd as u32).wrapping_add(unsafe { offsets.read(c as usize) }).wrapping_add(out_col as u32);
                // SAFETY: the output element is inside `dst` (fewer than 2³² elements, so its
                // offset fits 32 bits), and one thread writes it.
                unsafe { T::store(dst.add(at as usize), v) };
            }
        }
        return;
    }
    if SMALL && interior && p.cols.dims == 1 && slots == K as u32 * THREADS {
        // The store phase's counterpart of the load phase's fast path: a full interior tile
        // whose columns are one axis, so slot `k · 256` past the thread's first is a fixed step
        // in `dst` (and in the tile).
        let stride = p.cols.strides[0] as u32;
        let (r, c) = (t & (tall - 1), t >> rs);
        let first = (bd as u32).wrapping_add((c0 as u32 + c).wrapping_mul(stride)).wrapping_add(r0 as u32 + r);
        let at = r * pitch + c;
        for k in 0..K as u32 {
            // 256 slots are 256 >> rs output rows where a tile column is at most 256 tall, else
            // 256 rows down the same column.
            let (off, cell) = if rs <= 8 {
                let columns = k * (THREADS >> rs);
                (first.wrapping_add(columns.wrapping_mul(stride)), at + columns)
            } else {
                let (column, down) = (k >> (rs - 8), (k & ((1 << (rs - 8)) - 1)) * THREADS);
                (first.wrapping_add(column.wrapping_mul(stride)).wrapping_add(down), at + down * pitch + column)
            };
            // SAFETY: the slot is inside the tile, written before the barrier; an interior tile's
            // output elements are all inside `dst`, and one thread writes each.
            unsafe { T::store(dst.add(off as usize), T::read_tile(tile, cell as usize)) };
        }
        return;
    }
    for k in 0..K as u32 {
        let j = k * THREADS + t;
        let (r, c) = (j & (tall - 1), j >> rs);
        let (out_row, out_col) = (c0 + c as u64, r0 + r as u64);
        if j >= slots {
            break;
        }
        // Read whether or not the element is stored, so that every lane of a warp reads the
        // tile together (a value no thread wrote is unspecified, and unused).
        // SAFETY: `(r, c)` is inside the tile; what it holds was written before the barrier.
        let v = unsafe { T::read_tile(tile, (r * pitch + c) as usize) };
        if interior || (out_row < cols && out_col < rows) {
            // SAFETY: the output element is inside `dst`, and one thread writes it.
            unsafe { T::store(dst.add(dst_at(out_row, out_col)), v) };
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
    // SAFETY: T is Plain, so zero bytes are a valid value.
    let zero: T = unsafe { core::mem::zeroed() };
    // SAFETY: `rows_with` calls these only for words inside the buffers (this function's
    // contract); one thread writes each output word.
    let (load, store) = (
        |i: u64| unsafe { global::read(src.add(i as usize)) },
        |i: u64, v: T| unsafe { global::write(dst.add(i as usize), v) },
    );
    rows_with(p, zero, load, store);
}

/// [`permute_rows`]' walk, over words that `load(i)` reads from `src` word `i` and `store(i,
/// v)` writes to `dst` word `i`: plain elements, or 16-byte vectors held as `[u32; 4]` (which,
/// unlike an array of a 16-byte-aligned struct, stays in registers).
#[inline(always)]
fn rows_with<H: Copy>(p: &Rows, zero: H, load: impl Fn(u64) -> H, store: impl Fn(u64, H)) {
    let t = thread_x();
    let block = p.first_block + block_x() as u64;
    if p.blocks_per_row > 1 {
        let (row, part) = (block / p.blocks_per_row, block % p.blocks_per_row);
        let (from, to) = (p.outer.offsets(row).0, row * p.row_len);
        let end = p.row_len.min((part + 1) * p.chunk);
        let mut x = part * p.chunk + t as u64;
        while x < end {
            // Up to ROWS_UNROLL loads in flight before the first store (one at a time measured
            // 81% of the copy at (32, 2048, 32, 32) by (0, 2, 1, 3) f32 on an H100).
            let mut held = [zero; ROWS_UNROLL];
            for (u, h) in held.iter_mut().enumerate() {
                let y = x + (u as u32 * ROWS_THREADS) as u64;
                if y < end {
                    *h = load(from + y);
                }
            }
            for (u, &h) in held.iter().enumerate() {
                let y = x + (u as u32 * ROWS_THREADS) as u64;
                if y < end {
                    store(to + y, h);
                }
            }
            x += (ROWS_UNROLL as u32 * ROWS_THREADS) as u64;
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
    let (total, len, to) = ((count * p.row_len) as u32, p.row_len as u32, first * p.row_len);
    let mut x = t;
    while x < total {
        let mut held = [zero; ROWS_UNROLL];
        for (u, h) in held.iter_mut().enumerate() {
            let y = x + u as u32 * ROWS_THREADS;
            if y < total {
                // SAFETY: row `y / len < count`: its start was written before the barrier.
                let start = unsafe { starts.read((y / len) as usize) };
                *h = load(start + (y % len) as u64);
            }
        }
        for (u, &h) in held.iter().enumerate() {
            let y = x + u as u32 * ROWS_THREADS;
            if y < total {
                store(to + y as u64, h);
            }
        }
        x += ROWS_UNROLL as u32 * ROWS_THREADS;
    }
}

/// [`permute_tiled_flat`] moving 16-byte vectors, where the innermost axis stays as a run of
/// exactly 16 bytes (four `f32`, eight `bf16`): `p` counts vectors. A gather of such rows
/// ([`permute_rows_vectors`]) reads one 16-byte piece of each 32-byte sector it touches, as
/// consecutive `dst` rows come from distant `src` rows; the tile reads and writes whole rows of
/// vectors on both sides. The pitch ([`flat_pitch`]) puts the 8 rows a quarter warp reads on 8
/// distinct 16-byte groups of banks.
///
/// # Safety
/// As [`permute_tiled_flat`] for 16-byte elements, with `src` and `dst` 16-byte aligned.
#[inline(always)]
pub unsafe fn permute_tiled_flat_vectors<const K: usize, const SMALL: bool>(dst: *mut u32, src: *const u32, p: &Tiled) {
    // SAFETY: this function's contract, with the vectors 16-byte aligned as `Vector` is.
    unsafe { permute_tiled_flat::<Vector, K, SMALL>(dst.cast(), src.cast(), p) }
}

/// [`permute_rows`] moving 16-byte vectors: `row_len` (and the other counts of `p`) counted in
/// vectors of four `u32`s.
///
/// # Safety
/// As [`permute_rows`] for 16-byte words, with `src` and `dst` 16-byte aligned.
#[inline(always)]
pub unsafe fn permute_rows_vectors(dst: *mut u32, src: *const u32, p: &Rows) {
    let (src, dst) = (src.cast::<[u32; 4]>(), dst.cast::<[u32; 4]>());
    // SAFETY: `rows_with` calls these only for vectors inside the buffers, 16-byte aligned (this
    // function's contract); one thread writes each output vector.
    let (load, store) = (
        |i: u64| unsafe { load_global_v4(src.add(i as usize)) },
        |i: u64, v: [u32; 4]| unsafe { store_global_v4(dst.add(i as usize), v) },
    );
    rows_with(p, [0; 4], load, store);
}
