//! The unaligned transposes: 16-byte vectors on both global sides of matrices whose rows do
//! not all start 16-byte aligned, realigned in registers by a shuffle. One tile's work
//! ([`realigned_tile`]) over pitched rows, so that the batched 2-D transpose
//! ([`transpose_unaligned`]) and the permutation's tiles of one axis a side
//! (`permute::permute_tiled_unaligned`) share it.

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared;
use bankwise_device::thread::{sync_threads, thread_x};
use bankwise_device::warp::{FULL_MASK, shfl_down_u32};
use bankwise_layout::transpose::tuned::{self, Tiles, unaligned};

use super::for_each_tile;
use crate::Vector;

/// An element index of the unaligned transposes: `u32` for launches of fewer than 2³²
/// elements, where one 32-bit multiply-add stands for two or three 64-bit instructions and
/// half the registers (measured 6–10 points of the copy at 8191 × 8193 on an H200), `u64` for
/// any other. Arithmetic wraps: a value that would overflow is never used as an address.
pub trait Index: Copy + PartialOrd {
    /// `x` truncated to this width.
    fn of(x: u64) -> Self;
    /// `self + x`, wrapping.
    fn plus(self, x: Self) -> Self;
    /// `self − x`, wrapping.
    fn minus(self, x: Self) -> Self;
    /// `self · x`, wrapping.
    fn times(self, x: Self) -> Self;
    /// The low 32 bits.
    fn low(self) -> u32;
    /// As a pointer offset.
    fn at(self) -> usize;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl Index for $t {
            #[inline(always)]
            fn of(x: u64) -> Self { x as $t }
            #[inline(always)]
            fn plus(self, x: Self) -> Self { self.wrapping_add(x) }
            #[inline(always)]
            fn minus(self, x: Self) -> Self { self.wrapping_sub(x) }
            #[inline(always)]
            fn times(self, x: Self) -> Self { self.wrapping_mul(x) }
            #[inline(always)]
            fn low(self) -> u32 { self as u32 }
            #[inline(always)]
            fn at(self) -> usize { self as usize }
        }
    )*};
}

index!(u32, u64);

/// `transpose` for 2- and 4-byte elements in shapes whose rows do not all start 16-byte aligned
/// (a dimension that is not a multiple of `16 / size`, such as 8191 × 8193). Vectors still move on
/// both global sides, realigned in registers (`tuned::unaligned`): each tile row is read as
/// the aligned 16-byte vectors that cover it, a lane takes the next lane's vector by a shuffle
/// and keeps the `V` elements of its own columns, and the tile takes them with one `STS.128`,
/// swizzled as the aligned kernel's tile; each output row's piece is stored as whole aligned
/// chunks, and its two partial end chunks, shared with the tiles above and below, element by
/// element in rounds where every lane stores one. `N` is the rounds of loads and of whole-chunk
/// stores, `E` the rounds of end elements, `I` the index width. Measured (H200, 2026-11-29, %
/// of the driver's copy): 85.5–85.7% at 8191 × 8193 `f32`, ahead of cuBLAS `geam`'s 83.4%, and
/// 69.1–69.3% for `bf16` in 128 × 64 tiles, which the swizzled ladder kernel took at 44%;
/// 16-byte vectors staged element by element, the kernel this replaced, ran `f32` at 77–79%
/// (`docs/decisions.md`). `bf16` in the 128 × 128 tiles that replaced those (H100,
/// 2026-12-07): 73.1–73.3%, and 84.8–84.9% `f32`, against `geam`'s 77.0–77.2%.
///
/// # Safety
/// As [`super::transpose_naive`], with `src` and `dst` 16-byte aligned, fewer than 2³²
/// elements where `I` is `u32`, the grid of `tuned::Tiles::rect` over `unaligned`'s tile,
/// `tuned::THREADS` threads per block and `unaligned::tile_bytes` of dynamic shared memory.
#[inline(always)]
pub unsafe fn transpose_unaligned<T: Plain, I: Index, const V: usize, const N: usize, const E: usize>(
    dst: *mut T,
    src: *const T,
    rows: u64,
    cols: u64,
    batch: u64,
) {
    let size = size_of::<T>() as u32;
    let tiles = Tiles::rect(unaligned::tall(size), unaligned::wide(size), rows, cols, batch);
    let total = batch * rows * cols;
    for_each_tile::<true>(tiles.down, tiles.across, tiles.batch, |b, down, across| {
        let (b, r0, c0) = tiles.origin(b, down, across);
        let (rows_i, cols_i) = (I::of(rows), I::of(cols));
        let matrix = I::of(b).times(rows_i).times(cols_i);
        let matrix_at = Pitched { src: matrix, src_pitch: cols_i, dst: matrix, dst_pitch: rows_i };
        // SAFETY: this function's contract: matrix `b` of `rows × cols` elements, contiguous in
        // both buffers of `total` elements, 16-byte aligned; one tile of the launch's grid.
        unsafe { realigned_tile::<T, I, V, N, E>(dst, src, matrix_at, (rows, cols), (r0, c0), total) }
    });
}

/// Where one tile's matrix lives: its element `(r, c)` at `src[src + r · src_pitch + c]`, and
/// element `i` of its output row `j` at `dst[dst + j · dst_pitch + i]` (`src_pitch ≥ cols`,
/// `dst_pitch ≥ rows`). A contiguous batch's matrix has pitches `cols` and `rows`; a
/// permutation's tile of one axis a side takes the axes' strides.
#[derive(Clone, Copy)]
pub struct Pitched<I> {
    /// The matrix's element `(0, 0)` in `src`.
    pub src: I,
    /// Elements from one input row to the next.
    pub src_pitch: I,
    /// The transposed matrix's element `(0, 0)` in `dst`.
    pub dst: I,
    /// Elements from one output row to the next.
    pub dst_pitch: I,
}

/// One tile of an unaligned transpose ([`transpose_unaligned`]'s description), the tile whose
/// first row and column are `(r0, c0)` of a `rows × cols` matrix at `place`, in buffers of `total`
/// elements: loaded, staged through shared memory, a barrier, stored.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping, 16-byte aligned buffers of `total` elements that
/// hold the matrix and its transpose where `place` says, with fewer than 2³² elements where `I` is
/// `u32`; no two tiles of a launch write the same output element; the launch has
/// `tuned::THREADS` threads per block, every one of which calls this once, and
/// `unaligned::tile_bytes` of dynamic shared memory.
#[inline(always)]
pub unsafe fn realigned_tile<T: Plain, I: Index, const V: usize, const N: usize, const E: usize>(
    dst: *mut T,
    src: *const T,
    place: Pitched<I>,
    (rows, cols): (u64, u64),
    (r0, c0): (u64, u64),
    total: u64,
) {
    let size = size_of::<T>() as u32;
    let (tall, wide) = (unaligned::tall(size), unaligned::wide(size));
    let (per_row, rows_per_k) = (unaligned::vectors_per_row(size), unaligned::rows_per_round(size));
    let v = V as u32;
    let tile = shared::dynamic::<Vector>();
    let elems = tile.cast::<T>();
    let t = thread_x();
    let (tr, tv) = (t / per_row, t % per_row);
    let total_i = I::of(total);
    // Element indices of input element `(r, c)` and of element `i` of output row `j`;
    // misalignment in elements past a 16-byte boundary (the buffers start 16-byte aligned).
    let src_index = |r: u64, c: u64| place.src.plus(I::of(r).times(place.src_pitch)).plus(I::of(c));
    let dst_index = |j: u64, i: u64| place.dst.plus(I::of(j).times(place.dst_pitch)).plus(I::of(i));
    let misalignment = |x: I| x.low() & (v - 1);
    let vector_at = |x: I| -> [u32; 4] {
        if x.plus(I::of(V as u64)) <= total_i {
            // SAFETY: `x + V ≤ total`: the whole vector is inside `src`, and `x` is a multiple of
            // `V` (the callers pass aligned indices) of the 16-byte-aligned buffer.
            unsafe { load_global_v4(src.add(x.at()).cast()) }
        } else if size == 2 {
            // SAFETY: `src` holds `total` elements of 2 bytes.
            unsafe { bankwise_partial_vector_u16(src.cast(), x.at() as u64, total) }
        } else {
            // SAFETY: as above.
            unsafe { partial_vector::<T, I, V>(src, x, total_i) }
        }
    };
    // The phases in turn, written in place: as closures called once each, they were left as
    // functions, their captures passed through a 768-byte stack frame.
    // Load. Held per round: this lane's aligned vector, and the row's extra one (its last lane).
    let mut held = ([[0u32; 4]; N], [[0u32; 4]; N]);
    {
        // Interior: the tile's rows and one more exist, so every window vector is inside `src`
        // (a window ends fewer than `V` elements past its row, and the next row of the matrix
        // starts at least `cols ≥ V` elements past this one's start, and holds `cols`).
        let interior = r0 + (tall as u64) < rows && c0 + wide as u64 <= cols;
        let width = I::of((cols - c0).min(wide as u64));
        let first = src_index(r0 + tr as u64, c0);
        let step = I::of(rows_per_k as u64).times(place.src_pitch);
        // The interior tile's loads in one straight run, every one issued before the first is
        // used (a branch per round kept ptxas from running them together).
        let window = |k: usize| {
            let at = first.plus(I::of(k as u64).times(step));
            let m = misalignment(at);
            let base = at.minus(I::of(m as u64));
            (at, base.plus(I::of((tv * v) as u64)), base.plus(I::of(wide as u64)), tv == per_row - 1 && m != 0)
        };
        if interior {
            for k in 0..N {
                let (_, mine, extra, last) = window(k);
                // SAFETY: an interior tile: the window of each of its rows ends before the next
                // row's `V`-th element, inside `src`; `mine` and `extra` are multiples of `V`.
                held.0[k] = unsafe { load_global_v4(src.add(mine.at()).cast()) };
                if last {
                    // SAFETY: as above.
                    held.1[k] = unsafe { load_global_v4(src.add(extra.at()).cast()) };
                }
            }
        } else {
            for k in 0..N {
                let (at, mine, extra, last) = window(k);
                if r0 + ((tr + k as u32 * rows_per_k) as u64) < rows {
                    // Only the vectors that hold a column of the tile inside the matrix.
                    let end = at.plus(width);
                    if mine < end {
                        held.0[k] = vector_at(mine);
                    }
                    if last && extra < end {
                        held.1[k] = vector_at(extra);
                    }
                }
            }
        }
    }
    // Stage.
    {
        let first = src_index(r0 + tr as u64, c0);
        let step = I::of(rows_per_k as u64).times(place.src_pitch);
        for k in 0..N {
            let m = misalignment(first.plus(I::of(k as u64).times(step)));
            let mine = held.0[k];
            // Every lane shuffles, so the whole warp takes part; a row's last lane keeps its own
            // extra vector instead (the next lane is the next row's, or none).
            let next: [u32; 4] = core::array::from_fn(|w| shfl_down_u32(FULL_MASK, mine[w], 1));
            let next = if tv == per_row - 1 { held.1[k] } else { next };
            let r = tr + k as u32 * rows_per_k;
            let row = realign(mine, next, m * size);
            // SAFETY: `r < tall` and the swizzled vector stays in row `r` (`unaligned::stage_slot`),
            // inside the tile the launch gives; one writer per vector, ordered before the reads
            // by the barrier below, and one tile per block.
            unsafe { tile.write(unaligned::stage_slot(r, tv, size) as usize, Vector(row)) };
        }
    }
    sync_threads();
    // Store.
    {
        let interior = r0 + tall as u64 <= rows && c0 + wide as u64 <= cols;
        // Chunk `q` of output row `j` (a store role) and its piece's misalignment.
        let role = |k: u32| {
            let (j, q) = unaligned::store_role(k * tuned::THREADS + t, size);
            let piece = dst_index(c0 + j as u64, r0);
            (j, q, piece, misalignment(piece))
        };
        // Every round's gather first, then every round's store: gathers and stores interleaved
        // round by round waited on each round's shared loads in turn.
        let mut gathered = [[0u32; 4]; N];
        for (k, g) in gathered.iter_mut().enumerate() {
            let (j, q, _, m) = role(k as u32);
            // SAFETY: every row `gather_row` gives is below `tall`, inside the tile; every vector
            // was written before the barrier.
            let e: [T; V] = core::array::from_fn(|i| unsafe {
                elems.read(unaligned::offset(unaligned::gather_row(q, i as u32, m, size), j, size) as usize)
            });
            // SAFETY: [T; V] is exactly 16 bytes of plain data.
            *g = unsafe { core::mem::transmute_copy(&e) };
        }
        for (k, g) in gathered.iter().enumerate() {
            let (j, q, piece, m) = role(k as u32);
            let out_row = c0 + j as u64;
            // Chunk 0 is whole only where the piece starts aligned; else it is the end chunks.
            if (q == 0 && m != 0) || out_row >= cols {
                continue;
            }
            let at = piece.minus(I::of(m as u64)).plus(I::of((q * v) as u64));
            if interior || r0 + ((q * v + v - m) as u64) <= rows {
                // SAFETY: the chunk's V elements are rows `r0 + q·V − m ..` of output row
                // `out_row`, all inside it, inside `dst`; `at` is a multiple of V of the aligned
                // buffer; one thread writes each chunk.
                unsafe { store_global_v4(dst.add(at.at()).cast(), *g) };
            } else {
                // SAFETY: `[u32; 4]` and `[T; V]` are the same 16 plain bytes.
                let e: [T; V] = unsafe { core::mem::transmute_copy(g) };
                for (i, &x) in e.iter().enumerate() {
                    if r0 + ((q * v + i as u32 - m) as u64) < rows {
                        // SAFETY: an element of output row `out_row` (the check), inside `dst`;
                        // one thread writes it.
                        unsafe { global::write(dst.add(at.plus(I::of(i as u64)).at()), x) };
                    }
                }
            }
        }
        // The end chunks: element `i` of output row `j`'s two partial chunks, one per thread.
        let chunk_end = unaligned::chunks_per_row(size) * v;
        for k in 0..E as u32 {
            let (j, i) = ((k * tuned::THREADS + t) / v, (k * tuned::THREADS + t) % v);
            let out_row = c0 + j as u64;
            let piece = dst_index(out_row, r0);
            let m = misalignment(piece);
            if m == 0 || out_row >= cols || j >= wide {
                continue;
            }
            // Element i of the first chunk (i ≥ m: the piece's rows 0 ..) or of the one past the
            // last whole chunk (i < m: its rows tall − m ..).
            let (rr, past) = if i >= m { (i - m, i) } else { (tall + i - m, chunk_end + i) };
            if r0 + (rr as u64) < rows {
                let at = piece.minus(I::of(m as u64)).plus(I::of(past as u64));
                // SAFETY: row `rr < tall` of the tile, written before the barrier; the element
                // is row `r0 + rr < rows` of output row `out_row`, inside `dst`, and one thread
                // writes it.
                unsafe { global::write(dst.add(at.at()), elems.read(unaligned::offset(rr, j, size) as usize)) };
            }
        }
    }
}

/// The buffer's last, partial vector at element `x`: element by element, never past `total`,
/// zeros after it.
///
/// # Safety
/// `src` holds `total` elements.
#[inline(always)]
unsafe fn partial_vector<T: Plain, I: Index, const V: usize>(src: *const T, x: I, total: I) -> [u32; 4] {
    // SAFETY: T is Plain, so zero bytes are a valid value.
    let mut e: [T; V] = unsafe { core::mem::zeroed() };
    for (i, x_i) in e.iter_mut().enumerate() {
        let at = x.plus(I::of(i as u64));
        if at < total {
            // SAFETY: `at < total`: inside `src`.
            *x_i = unsafe { global::read(src.add(at.at())) };
        }
    }
    // SAFETY: `[T; V]` and `[u32; 4]` are the same 16 plain bytes.
    unsafe { core::mem::transmute_copy(&e) }
}

/// [`partial_vector`] of 2-byte elements as a call: inlined, its eight element reads made the
/// edge tiles' load loop (eight rounds of 128 × 128 tiles) too large for LLVM to unroll, and the
/// held vectors, indexed at run time, went to 256 bytes of local memory. Out of line it costs a
/// 16-byte call frame, on the one vector of a launch that ends its buffer. One concrete function
/// with an unmangled name, 64-bit indices for either index width: a generic one's PTX symbol
/// carries the crate's hash, which differs between checkouts, and the shipped PTX must be what
/// any checkout builds.
///
/// # Safety
/// As [`partial_vector`].
#[inline(never)]
#[unsafe(no_mangle)]
unsafe fn bankwise_partial_vector_u16(src: *const u16, x: u64, total: u64) -> [u32; 4] {
    // SAFETY: this function's contract is the callee's.
    unsafe { partial_vector::<u16, u64, 8>(src, x, total) }
}

/// Bytes `shift .. shift + 16` of the 32 bytes of `a` then `b` (`shift < 16`): the 16-byte
/// vector that starts `shift` bytes into `a`. Words are picked by one select per bit of
/// `shift / 4`, on tuples of scalars: written over an array, LLVM turned the selects into a
/// run-time index and the array into local memory. Then a funnel shift across word pairs by
/// `shift % 4` bytes, a constant zero for 4-byte elements, where it folds away.
#[inline(always)]
fn realign(a: [u32; 4], b: [u32; 4], shift: u32) -> [u32; 4] {
    let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (a, b);
    let words = shift / 4;
    let (x0, x1, x2, x3, x4, x5, x6) =
        if words & 1 != 0 { (a1, a2, a3, b0, b1, b2, b3) } else { (a0, a1, a2, a3, b0, b1, b2) };
    let (y0, y1, y2, y3, y4) = if words & 2 != 0 { (x2, x3, x4, x5, x6) } else { (x0, x1, x2, x3, x4) };
    let bits = (shift % 4) * 8;
    let funnel = |lo: u32, hi: u32| ((((hi as u64) << 32) | lo as u64) >> bits) as u32;
    [funnel(y0, y1), funnel(y1, y2), funnel(y2, y3), funnel(y3, y4)]
}
