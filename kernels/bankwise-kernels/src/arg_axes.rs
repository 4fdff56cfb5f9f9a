//! Argmin and argmax along axes: the kernels behind `Gpu::arg_reduce_axes`.
//!
//! They walk the same [`AxesLayout`] as [`crate::reduce_axes`] (the same plans: rows by a
//! warp or a block, columns through shared memory, splits with a second pass), carrying a
//! [`ArgPair`] instead of a value: a *key* and the element's *position*, its index within the
//! reduced subspace flattened row-major, `(s0 + s) · len + l0 + l` for element `l` of segment
//! `s` of a chunk (segments decode innermost first, so `s` is already the row-major index over
//! the outer reduced groups).
//!
//! The key is an unsigned integer ([`ArgOp::pair`]) ordered so that *larger is better* for
//! both operations: an integer's bits with the sign flipped (argmax) or all bits flipped
//! (argmin); a float's total order with −0 < +0 (`order_key`, as `Min`/`Max` compare), flipped
//! for argmin; any NaN the largest key of all, so that NaN wins as it propagates through
//! `Min`/`Max`. Half types rank their 16-bit patterns the same way (the order of their exact
//! `f32` values). Pairs combine by [`better`]: the larger key, and of equal keys the smaller
//! position. That is a total order, so the result is the first occurrence of the extreme
//! whatever order lanes, warps, rows and partials combine in.
//!
//! A split plan's first pass writes [`ArgPartial`]s (key widened to `u64`, position) to
//! scratch; the second pass reads them as its elements (the key as is, the position carried),
//! with the same kernels instantiated for [`Partials`]. Every entry writes `u64` positions
//! where its layout has one split, partials where it has several.

use bankwise_device::memory::load_global_v4;
use bankwise_device::shared::SharedSlice;
use bankwise_device::thread::{block_x, block_y, grid_dim_x, sync_threads, thread_x, thread_y};
use bankwise_device::warp::{FULL_MASK, shfl_down};
use bankwise_device::{Plain, global};
use bankwise_layout::reduce::{WARP, split};

use crate::half::{Bf16, F16};
use crate::reduce_axes::{AxesLayout, COLUMN_LANES, COLUMN_ROWS, COLUMN_UNROLL, THREADS, divmod};

/// The position of no element: the identity's, which every element's pair beats.
pub const NONE: u64 = u64::MAX;

/// A key type: `u32` for elements of up to 4 bytes, `u64` for 8-byte ones and partials.
pub trait Key: Plain + Ord {
    /// The smallest key (the identity's).
    const ZERO: Self;
    /// The key as a partial's `u64` (order kept).
    fn wide(self) -> u64;
}

impl Key for u32 {
    const ZERO: u32 = 0;
    #[inline(always)]
    fn wide(self) -> u64 {
        self as u64
    }
}

impl Key for u64 {
    const ZERO: u64 = 0;
    #[inline(always)]
    fn wide(self) -> u64 {
        self
    }
}

/// A candidate: its key (larger is better) and its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgPair<K> {
    /// The ranked value.
    pub key: K,
    /// Its position in the flattened reduced subspace ([`NONE`] for the identity).
    pub index: u64,
}

impl<K: Key> ArgPair<K> {
    /// The identity: the smallest key at no position.
    #[inline(always)]
    pub fn identity() -> Self {
        ArgPair { key: K::ZERO, index: NONE }
    }
}

/// `b` if its key is larger, or equal with a smaller position; else `a`. Commutative and
/// associative (a total order on distinct positions), with [`ArgPair::identity`] as identity.
#[inline(always)]
pub fn better<K: Key>(a: ArgPair<K>, b: ArgPair<K>) -> ArgPair<K> {
    if b.key > a.key || (b.key == a.key && b.index < a.index) { b } else { a }
}

/// [`better`] with its test evaluated whole (`|`, `&`), not short-circuited: predicates and
/// selects rather than branches.
#[inline(always)]
fn better_selected<K: Key>(a: ArgPair<K>, b: ArgPair<K>) -> ArgPair<K> {
    let take = (b.key > a.key) | ((b.key == a.key) & (b.index < a.index));
    if take { b } else { a }
}

/// Whether elements of `bytes` bytes are ranked without branches: keys in masks
/// (`float_key!`) and comparisons in selects ([`better_selected`]). With a branch per
/// element, the compiler issued a thread's next 16-byte load only after folding the one before,
/// and the `f32` argmax along rows of 8192² reached 49% of the copy on an H200, 57.0% without.
/// Two-byte elements, eight to a vector, lost 3–7 points that way (their registers), and keep
/// the branches.
const fn branch_free(bytes: usize) -> bool {
    bytes >= 4
}

/// [`better`] for one element of `I` folded into a thread's candidate: [`better_selected`]
/// where `I` is ranked [`branch_free`].
#[inline(always)]
fn better_element<I, K: Key>(a: ArgPair<K>, b: ArgPair<K>) -> ArgPair<K> {
    if branch_free(size_of::<I>()) { better_selected(a, b) } else { better(a, b) }
}

/// A split plan's partial in scratch: the key widened to `u64`, and its position.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgPartial {
    /// [`Key::wide`] of the winner's key.
    pub key: u64,
    /// The winner's position.
    pub index: u64,
}

// SAFETY: two `u64`s, `#[repr(C)]`, 16 bytes with no padding: any bits valid.
unsafe impl Plain for ArgPartial {}

/// Argmin: the position of the first smallest element (of the first NaN, if any).
pub struct ArgMin;
/// Argmax: the position of the first largest element (of the first NaN, if any).
pub struct ArgMax;
/// The second pass of a split plan: partials in, their carried positions out.
pub struct Partials;

/// How an operation ranks elements of `I`.
pub trait ArgOp<I> {
    /// The key type.
    type K: Key;
    /// Element `x` at `position` as a candidate.
    fn pair(x: I, position: u64) -> ArgPair<Self::K>;
}

impl ArgOp<ArgPartial> for Partials {
    type K = u64;
    #[inline(always)]
    fn pair(x: ArgPartial, _position: u64) -> ArgPair<u64> {
        ArgPair { key: x.key, index: x.index }
    }
}

/// `(argmin key, argmax key)` of a float's bits `b` (`$U`): a non-NaN's total order with
/// −0 < +0 as an unsigned integer (negatives' bits flipped, positives' sign bit set), and its
/// complement; every NaN `$K::MAX` (`float_key!`).
macro_rules! arg_keys {
    ($($In:ty => $U:ty, $K:ty, |$x:ident| $bits:expr, $nan:expr);+ $(;)?) => {$(
        impl ArgOp<$In> for ArgMax {
            type K = $K;
            #[inline(always)]
            fn pair($x: $In, position: u64) -> ArgPair<$K> {
                let b: $U = $bits;
                ArgPair { key: float_key!($U, $K, b, $nan, |r: $U| r), index: position }
            }
        }
        impl ArgOp<$In> for ArgMin {
            type K = $K;
            #[inline(always)]
            fn pair($x: $In, position: u64) -> ArgPair<$K> {
                let b: $U = $bits;
                ArgPair { key: float_key!($U, $K, b, $nan, |r: $U| !r), index: position }
            }
        }
    )+};
}

/// `$f` of the rank of `$b`, widened to `$K`, or `$K::MAX` for a NaN. [`branch_free`] for
/// floats of `$U`'s width: the rank is `b` XOR all ones where the sign is set, XOR the sign bit
/// alone where it is not, and the NaN test a mask of all ones. Otherwise the NaN test, then the
/// sign, with branches. The test is a constant: one form is compiled.
macro_rules! float_key {
    ($U:ty, $K:ty, $b:expr, $nan:expr, $f:expr) => {{
        let b: $U = $b;
        let sign: $U = 1 << (<$U>::BITS - 1);
        if branch_free(size_of::<$U>()) {
            let rank = b ^ ((b >> (<$U>::BITS - 1)).wrapping_neg() | sign);
            $f(rank) as $K | <$K>::from($nan(b)).wrapping_neg()
        } else if $nan(b) {
            <$K>::MAX
        } else {
            let rank = if b >> (<$U>::BITS - 1) != 0 { !b } else { b | sign };
            $f(rank) as $K
        }
    }};
}

arg_keys! {
    f32 => u32, u32, |x| x.to_bits(), |b: u32| b & 0x7FFF_FFFF > 0x7F80_0000;
    f64 => u64, u64, |x| x.to_bits(), |b: u64| b & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000;
    Bf16 => u16, u32, |x| x.0, |b: u16| b & 0x7FFF > 0x7F80;
    F16 => u16, u32, |x| x.0, |b: u16| b & 0x7FFF > 0x7C00;
}

/// Integers: signed ones with the sign bit flipped (unsigned order), argmin complemented.
macro_rules! arg_int_keys {
    ($($In:ty => $K:ty, $flip:expr);+ $(;)?) => {$(
        impl ArgOp<$In> for ArgMax {
            type K = $K;
            #[inline(always)]
            fn pair(x: $In, position: u64) -> ArgPair<$K> {
                ArgPair { key: (x as $K) ^ $flip, index: position }
            }
        }
        impl ArgOp<$In> for ArgMin {
            type K = $K;
            #[inline(always)]
            fn pair(x: $In, position: u64) -> ArgPair<$K> {
                ArgPair { key: !((x as $K) ^ $flip), index: position }
            }
        }
    )+};
}

arg_int_keys! {
    i32 => u32, 1 << 31;
    u32 => u32, 0;
    i64 => u64, 1 << 63;
    u64 => u64, 0;
}

/// A chunk of one output's reduced subspace: `(first segment, segments, first element of
/// len, elements)`, as [`AxesLayout::chunk`] gives it.
type Chunk = (u64, u64, u64, u64);

/// Folds the `P` adjacent elements `x` at `position` into `acc`.
#[inline(always)]
fn fold_each<I: Copy, O: ArgOp<I>, const P: usize>(
    mut acc: [ArgPair<O::K>; P],
    x: [I; P],
    position: u64,
) -> [ArgPair<O::K>; P] {
    // Indexed and unrolled: the arrays stay in registers.
    #[allow(clippy::needless_range_loop)]
    for k in 0..P {
        acc[k] = better_element::<I, O::K>(acc[k], O::pair(x[k], position));
    }
    acc
}

/// Folds the `V` elements of a 16-byte vector, at positions `position + k`, into `acc`.
#[inline(always)]
fn fold_vector<I: Copy, O: ArgOp<I>, const V: usize>(
    mut acc: ArgPair<O::K>,
    words: [u32; 4],
    position: u64,
) -> ArgPair<O::K> {
    // SAFETY: `[I; V]` is exactly the 16 bytes of a vector (the kernels assert it), plain data.
    let x: [I; V] = unsafe { core::mem::transmute_copy(&words) };
    #[allow(clippy::needless_range_loop)]
    for k in 0..V {
        acc = better_element::<I, O::K>(acc, O::pair(x[k], position + k as u64));
    }
    acc
}

/// A chunk's positions `first, first + step, …` in row-major order (segment outer), as
/// `fold_strided` in [`crate::reduce_axes`], each folded at its position in the reduced
/// subspace.
///
/// # Safety
/// `load` is valid at every `base + segment_offset(s0 + s) + (l0 + l) · len_stride` with
/// `s < segs`, `l < len`.
#[inline(always)]
unsafe fn fold_strided<I: Copy, O: ArgOp<I>, const P: usize>(
    mut acc: [ArgPair<O::K>; P],
    layout: &AxesLayout,
    base: u64,
    (s0, segs, l0, len): Chunk,
    (first, step): (u64, u64),
    load: impl Fn(u64) -> [I; P],
) -> [ArgPair<O::K>; P] {
    if len == 0 || segs == 0 {
        return acc;
    }
    let (mut s, mut l) = divmod(first, len);
    let mut row = base + layout.segment_offset(s0 + s);
    let mut at = (s0 + s) * layout.len + l0;
    while s < segs {
        // `s < segs` and `l < len`: a position of the chunk, where `load` is valid (the contract).
        acc = fold_each::<I, O, P>(acc, load(row + (l0 + l) * layout.len_stride), at + l);
        l += step;
        if l >= len {
            while l >= len {
                l -= len;
                s += 1;
            }
            if s < segs {
                row = base + layout.segment_offset(s0 + s);
                at = (s0 + s) * layout.len + l0;
            }
        }
    }
    acc
}

/// One row of `n` contiguous elements at `row`, whose first is at position `at`, folded by
/// lane `lane` of a worker of `W`, as `fold_row` in [`crate::reduce_axes`].
///
/// # Safety
/// `row` valid for `n` elements.
#[inline(always)]
unsafe fn fold_row<I: Copy, O: ArgOp<I>, const V: usize, const W: u32>(
    mut acc: ArgPair<O::K>,
    row: *const I,
    n: u64,
    at: u64,
    lane: u32,
) -> ArgPair<O::K> {
    let parts = split(row as u64, n, size_of::<I>() as u64);
    let lane = lane as u64;
    if lane < parts.head {
        // SAFETY: `lane < head ≤ n`.
        acc = better(acc, O::pair(unsafe { global::read(row.add(lane as usize)) }, at + lane));
    }
    // SAFETY: `head ≤ n`: inside the row or one past its end.
    let vectors = unsafe { row.add(parts.head as usize) }.cast::<[u32; 4]>();
    let first = at + parts.head;
    let mut i = lane;
    let step = W as u64;
    while i + step < parts.vectors {
        // SAFETY: `i < i + W < vectors`: whole 16-byte-aligned vectors of the row (`split`).
        let (a, b) =
            unsafe { (load_global_v4(vectors.add(i as usize)), load_global_v4(vectors.add((i + step) as usize))) };
        acc = fold_vector::<I, O, V>(acc, a, first + i * V as u64);
        acc = fold_vector::<I, O, V>(acc, b, first + (i + step) * V as u64);
        i += 2 * step;
    }
    if i < parts.vectors {
        // SAFETY: `i < vectors`.
        acc = fold_vector::<I, O, V>(acc, unsafe { load_global_v4(vectors.add(i as usize)) }, first + i * V as u64);
    }
    if lane < parts.tail {
        let k = parts.head + parts.vectors * V as u64 + lane;
        // SAFETY: `k < head + vectors · V + tail = n`.
        acc = better(acc, O::pair(unsafe { global::read(row.add(k as usize)) }, at + k));
    }
    acc
}

/// The 32 lanes' pairs combined by shuffles (key and position each); lane 0 gets the warp's.
#[inline(always)]
fn warp_better<K: Key>(mut v: ArgPair<K>) -> ArgPair<K> {
    let mut delta = WARP / 2;
    while delta > 0 {
        let other = ArgPair { key: shfl_down(FULL_MASK, v.key, delta), index: shfl_down(FULL_MASK, v.index, delta) };
        v = better(v, other);
        delta /= 2;
    }
    v
}

/// The block's pairs (`THREADS` threads along x) combined: each warp's by shuffles, then the
/// warps' through shared memory (positions at byte 0, keys after them) by the first warp.
/// Thread 0 gets the result. Two barriers: every thread calls it.
///
/// # Safety
/// At least `THREADS / 32 · (8 + size_of::<K>())` bytes of dynamic shared memory, used by
/// nothing else during the call.
#[inline(always)]
unsafe fn block_better<K: Key>(v: ArgPair<K>) -> ArgPair<K> {
    const WARPS: u32 = THREADS / WARP;
    let tid = thread_x();
    let v = warp_better(v);
    // SAFETY: `8 · WARPS` is a multiple of 16 and the launch gives the bytes (the contract).
    let (index, key) = unsafe {
        (
            SharedSlice::<u64>::new_unchecked(0, WARPS as usize),
            SharedSlice::<K>::new_unchecked(8 * WARPS, WARPS as usize),
        )
    };
    if tid.is_multiple_of(WARP) {
        // SAFETY: `tid / WARP < WARPS`, one slot per warp written by its lane 0 alone; the
        // barrier below orders it before the reads.
        unsafe {
            index.write((tid / WARP) as usize, v.index);
            key.write((tid / WARP) as usize, v.key);
        }
    }
    sync_threads();
    let mut r = ArgPair::identity();
    if tid < WARP {
        let mine = if tid < WARPS {
            // SAFETY: `tid < WARPS` slots, written before the barrier above.
            unsafe { ArgPair { key: key.read(tid as usize), index: index.read(tid as usize) } }
        } else {
            ArgPair::identity()
        };
        r = warp_better(mine);
    }
    sync_threads();
    r
}

/// Writes the winner of output `o` for split `p`: its position (`dst[o]`) where the layout
/// has one split, else the partial `(dst as *mut ArgPartial)[p · outputs + o]`.
///
/// # Safety
/// `dst` holds `outputs` positions, or (several splits) `splits · outputs` 16-byte-aligned
/// partials; `p < splits`, `o < outputs`.
#[inline(always)]
unsafe fn store<K: Key>(dst: *mut u64, layout: &AxesLayout, p: u64, o: u64, v: ArgPair<K>) {
    if layout.splits() == 1 {
        // SAFETY: `o < outputs` (the contract).
        unsafe { global::write(dst.add(o as usize), v.index) };
    } else {
        let partial = ArgPartial { key: v.key.wide(), index: v.index };
        // SAFETY: `p · outputs + o < splits · outputs` partials (the contract).
        unsafe { global::write(dst.cast::<ArgPartial>().add((p * layout.outputs + o) as usize), partial) };
    }
}

/// Rows (`len_stride == 1`): a worker of `W` threads per output and split, as
/// `reduce_rows` in [`crate::reduce_axes`], carrying positions.
///
/// # Safety
/// As `reduce_rows`, with `dst` as [`store`] needs it, and for `W == THREADS`
/// `THREADS / 32 · (8 + size_of::<O::K>())` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn arg_rows<I: Copy, O: ArgOp<I>, const V: usize, const W: u32>(
    dst: *mut u64,
    src: *const I,
    layout: AxesLayout,
) {
    const { assert!(W == WARP || W == THREADS, "a worker is a warp or the block") };
    const { assert!(V * size_of::<I>() == 16, "V elements are one 16-byte vector") };
    let per_block = (THREADS / W) as u64;
    let tid = thread_x();
    let lane = tid % W;
    let mut w = block_x() as u64 * per_block + (tid / W) as u64;
    let stride = grid_dim_x() as u64 * per_block;
    let splits = layout.splits();
    while w < layout.workers {
        let (o, p) = divmod(w, splits);
        let chunk @ (s0, segs, l0, len) = layout.chunk(p);
        let base = layout.kept_offset(o);
        let mut acc = ArgPair::<O::K>::identity();
        if len >= W as u64 * V as u64 {
            for s in 0..segs {
                let row = base + layout.segment_offset(s0 + s) + l0;
                let at = (s0 + s) * layout.len + l0;
                // SAFETY: the chunk's row `s`: `len` elements inside `src` (the contract).
                acc = unsafe { fold_row::<I, O, V, W>(acc, src.add(row as usize), len, at, lane) };
            }
        } else {
            // SAFETY: `load` reads one element at an offset of the chunk, inside `src` (the contract).
            let load = |at: u64| [unsafe { global::read(src.add(at as usize)) }];
            // SAFETY: `load` is valid at the chunk's offsets (above).
            [acc] = unsafe { fold_strided::<I, O, 1>([acc], &layout, base, chunk, (lane as u64, W as u64), load) };
        }
        let v = if W == WARP {
            warp_better(acc)
        } else {
            // SAFETY: the block is `THREADS` threads along x, all in this iteration (`w` is the
            // block's), and the dynamic shared memory is this call's (the contract).
            unsafe { block_better(acc) }
        };
        if lane == 0 {
            // SAFETY: `p < splits`, `o < outputs`: inside `dst` (the contract), this worker's own.
            unsafe { store(dst, &layout, p, o, v) };
        }
        w += stride;
    }
}

/// A column thread's share of a chunk, as `fold_column` in [`crate::reduce_axes`]: rows
/// `y, y + 8, …` ([`COLUMN_UNROLL`] loads in flight where the chunk is one long segment),
/// each row's `P` columns folded at the row's position.
///
/// # Safety
/// `load` is valid at every offset of the chunk.
#[inline(always)]
unsafe fn fold_column<I: Copy, O: ArgOp<I>, const P: usize>(
    mut acc: [ArgPair<O::K>; P],
    layout: &AxesLayout,
    base: u64,
    chunk @ (s0, segs, l0, len): Chunk,
    y: u64,
    load: impl Fn(u64) -> [I; P],
) -> [ArgPair<O::K>; P] {
    let step = COLUMN_ROWS as u64;
    if segs != 1 || len < step * COLUMN_UNROLL {
        // SAFETY: the contract is the callee's.
        return unsafe { fold_strided::<I, O, P>(acc, layout, base, chunk, (y, step), load) };
    }
    let ls = layout.len_stride;
    let jump = step * ls;
    let row = base + layout.segment_offset(s0) + l0 * ls;
    let at = s0 * layout.len + l0;
    let mut l = y;
    // Rows `l, l + 8, l + 16, l + 24 < len`: positions of the chunk, where `load` is valid.
    while l + (COLUMN_UNROLL - 1) * step < len {
        let off = row + l * ls;
        let (a, b, c, d) = (load(off), load(off + jump), load(off + 2 * jump), load(off + 3 * jump));
        acc = fold_each::<I, O, P>(acc, a, at + l);
        acc = fold_each::<I, O, P>(acc, b, at + l + step);
        acc = fold_each::<I, O, P>(acc, c, at + l + 2 * step);
        acc = fold_each::<I, O, P>(acc, d, at + l + 3 * step);
        l += COLUMN_UNROLL * step;
    }
    while l < len {
        acc = fold_each::<I, O, P>(acc, load(row + l * ls), at + l);
        l += step;
    }
    acc
}

/// Columns: a block of [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads per tile of adjacent
/// outputs and split, as `reduce_columns` in [`crate::reduce_axes`]; the 8 pairs of each
/// column then combine through shared memory, positions in planes `index[k·THREADS + y·32 +
/// x]` (from byte 0) and keys likewise after them: every warp reads and writes 32 consecutive
/// slots of a plane (conflict-free: 1 wavefront per request for 4-byte keys, 2 for 8-byte keys
/// and positions).
///
/// # Safety
/// As `reduce_columns`, with `dst` as [`store`] needs it and
/// `V · THREADS · (8 + size_of::<O::K>())` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn arg_columns<I: Copy, O: ArgOp<I>, const V: usize>(dst: *mut u64, src: *const I, layout: AxesLayout) {
    const { assert!(V * size_of::<I>() == 16, "V elements are one 16-byte vector") };
    let planes = V * THREADS as usize;
    // SAFETY: `8 · planes` is a multiple of 16 and the launch gives the bytes (the contract).
    let (index, key) = unsafe {
        (SharedSlice::<u64>::new_unchecked(0, planes), SharedSlice::<O::K>::new_unchecked(8 * planes as u32, planes))
    };
    let (x, y) = (thread_x(), thread_y());
    let slot = (y * COLUMN_LANES + x) as usize;
    let splits = layout.splits();
    let per = layout.col_vector;
    let tile_cols = COLUMN_LANES as u64 * per;
    let tiles = layout.cols.div_ceil(tile_cols);
    let vectors = per == V as u64 && (src as usize).is_multiple_of(16);
    let w = block_y() as u64 * grid_dim_x() as u64 + block_x() as u64;
    if w >= layout.workers {
        // The whole block: `w` is the block's.
        return;
    }
    let (rest, p) = divmod(w, splits);
    let (q, tile) = divmod(rest, tiles);
    let c = tile * tile_cols + x as u64 * per;
    let chunk = layout.chunk(p);
    let mut acc = [ArgPair::<O::K>::identity(); V];
    let (inside, o) = (c < layout.cols, q * layout.cols + c);
    if inside {
        let base = layout.kept_offset(q) + c;
        let y = y as u64;
        if vectors {
            // SAFETY: `at` is an offset of the chunk in column `c`, whose `V` columns are an
            // aligned vector inside `src` (`cols` a multiple of `V`; the contract); plain data.
            let load = |at: u64| unsafe {
                core::mem::transmute_copy::<[u32; 4], [I; V]>(&load_global_v4(src.add(at as usize).cast::<[u32; 4]>()))
            };
            // SAFETY: `load` is valid at the chunk's offsets (above).
            acc = unsafe { fold_column::<I, O, V>(acc, &layout, base, chunk, y, load) };
        } else if per == 1 {
            // SAFETY: `at` is an offset of the chunk in column `c < cols`, inside `src`.
            let load = |at: u64| [unsafe { global::read(src.add(at as usize)) }];
            // SAFETY: `load` is valid at the chunk's offsets (above).
            [acc[0]] = unsafe { fold_column::<I, O, 1>([acc[0]], &layout, base, chunk, y, load) };
        } else {
            // A source not 16-byte aligned: the same `V` columns, by scalar loads.
            let load = |at: u64| {
                // SAFETY: `at + k` is an offset of the chunk in column `c + k < cols`.
                core::array::from_fn::<I, V, _>(|k| unsafe { global::read(src.add(at as usize + k)) })
            };
            // SAFETY: `load` is valid at the chunk's offsets (above).
            acc = unsafe { fold_column::<I, O, V>(acc, &layout, base, chunk, y, load) };
        }
    }
    #[allow(clippy::needless_range_loop)]
    for k in 0..V {
        if (k as u64) < per {
            // SAFETY: `k · THREADS + slot < planes`, this thread's, not yet read.
            unsafe {
                index.write(k * THREADS as usize + slot, acc[k].index);
                key.write(k * THREADS as usize + slot, acc[k].key);
            }
        }
    }
    sync_threads();
    // At step `h = 4, 2, 1` row `y < h` takes the better of itself and row `y + h`.
    let mut h = COLUMN_ROWS / 2;
    while h > 0 {
        if y < h {
            for k in 0..V {
                if (k as u64) < per {
                    let a = k * THREADS as usize + (y * COLUMN_LANES + x) as usize;
                    let b = k * THREADS as usize + ((y + h) * COLUMN_LANES + x) as usize;
                    // SAFETY: `a`, `b < planes`; at this step `a` is this thread's alone and `b` is
                    // no thread's `a`; the barrier below separates the steps.
                    unsafe {
                        let mine = ArgPair { key: key.read(a), index: index.read(a) };
                        let theirs = ArgPair { key: key.read(b), index: index.read(b) };
                        let v = better(mine, theirs);
                        index.write(a, v.index);
                        key.write(a, v.key);
                    }
                }
            }
        }
        sync_threads();
        h /= 2;
    }
    if y == 0 && inside {
        for k in 0..V {
            if (k as u64) < per {
                let a = k * THREADS as usize + x as usize;
                // SAFETY: slot `x` of plane `k`'s row 0, final after the tree's last barrier.
                let v = unsafe { ArgPair { key: key.read(a), index: index.read(a) } };
                // SAFETY: `p < splits`, `o + k < outputs` (`c + k < cols`): inside `dst`, this
                // thread's own.
                unsafe { store(dst, &layout, p, o + k as u64, v) };
            }
        }
    }
}

/// Blocks of [`arg_columns`] an SM is to hold at once, the entries' launch bounds (at most 80
/// registers a thread): every type's carries a pair per column (8 for half precision), which
/// ptxas fits in 80 registers without spills (at 64 the 4- and 8-byte ones spill).
pub const ARG_COLUMN_BLOCKS_PER_SM: u32 = 3;

/// Dynamic shared memory of [`arg_rows`] with a block per output, for keys of `key_bytes`: a
/// position and a key per warp.
pub const fn block_shared_bytes(key_bytes: usize) -> u32 {
    THREADS / WARP * (8 + key_bytes as u32)
}

/// Dynamic shared memory of [`arg_columns`] for elements of `elem_bytes` and keys of
/// `key_bytes`: a position plane and a key plane per column a thread owns.
pub const fn column_shared_bytes(elem_bytes: usize, key_bytes: usize) -> u32 {
    THREADS * (16 / elem_bytes as u32) * (8 + key_bytes as u32)
}

/// An arg reduction's parameters: `dst` (positions, or partials where the layout splits),
/// `src` (of `In`; `u64` pairs for the second pass), the layout.
#[cfg(not(target_arch = "nvptx64"))]
pub type ArgParams<In> = (*mut u64, *const In, crate::reduce_axes::AxesLayout);

/// An arg operation's entries for element type `T` (host forms only).
#[cfg(not(target_arch = "nvptx64"))]
pub trait ArgLadder<T> {
    /// `reduce_rows_warp_<op>_<t>`.
    const ROWS_WARP: bankwise_device::KernelEntry<ArgParams<T>>;
    /// `reduce_rows_block_<op>_<t>`.
    const ROWS_BLOCK: bankwise_device::KernelEntry<ArgParams<T>>;
    /// `reduce_columns_<op>_<t>`.
    const COLUMNS: bankwise_device::KernelEntry<ArgParams<T>>;
}

/// The three arg kernels reading `$In` (ranked by `$Op`) from `$Src` pointers, exported as
/// `reduce_rows_warp_<name>`, `reduce_rows_block_<name>`, `reduce_columns_<name>` and named
/// `$warp`, `$block`, `$columns` in the caller's scope.
#[doc(hidden)]
#[macro_export]
macro_rules! __arg_axes_kernels {
    ($Op:ty, [$($name:tt)*], $Src:ty => $In:ty, $warp:ident, $block:ident, $columns:ident) => {
        /// # Safety
        /// See `arg_rows`.
        #[$crate::__device::kernel]
        #[unsafe(export_name = concat!("reduce_rows_warp_", $($name)*))]
        pub unsafe fn $warp(dst: *mut u64, src: *const $Src, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::arg_axes::arg_rows::<$In, $Op, { 16 / core::mem::size_of::<$In>() }, 32>(dst, src.cast(), layout)
            }
        }
        /// # Safety
        /// See `arg_rows`.
        #[$crate::__device::kernel(
            shared = $crate::arg_axes::block_shared_bytes(core::mem::size_of::<<$Op as $crate::arg_axes::ArgOp<$In>>::K>())
        )]
        #[unsafe(export_name = concat!("reduce_rows_block_", $($name)*))]
        pub unsafe fn $block(dst: *mut u64, src: *const $Src, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::arg_axes::arg_rows::<
                    $In,
                    $Op,
                    { 16 / core::mem::size_of::<$In>() },
                    { $crate::reduce_axes::THREADS },
                >(dst, src.cast(), layout)
            }
        }
        /// # Safety
        /// See `arg_columns`.
        #[$crate::__device::kernel(
            launch_bounds($crate::reduce_axes::THREADS, $crate::arg_axes::ARG_COLUMN_BLOCKS_PER_SM),
            shared = $crate::arg_axes::column_shared_bytes(
                core::mem::size_of::<$In>(),
                core::mem::size_of::<<$Op as $crate::arg_axes::ArgOp<$In>>::K>(),
            )
        )]
        #[unsafe(export_name = concat!("reduce_columns_", $($name)*))]
        pub unsafe fn $columns(dst: *mut u64, src: *const $Src, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::arg_axes::arg_columns::<$In, $Op, { 16 / core::mem::size_of::<$In>() }>(dst, src.cast(), layout)
            }
        }
    };
}

/// Instantiates argmin or argmax along axes for element types: per `$name: $T` the entries
/// `reduce_rows_warp_<op>_<name>`, `reduce_rows_block_…` and `reduce_columns_…`, and a unit
/// type `$Ladder` implementing [`ArgLadder<$T>`](ArgLadder):
/// `arg_axes_entries!(ArgMaxAxes = argmax: ArgMax; f32: f32, bf16: Bf16)`.
#[macro_export]
macro_rules! arg_axes_entries {
    ($Ladder:ident = $op:ident: $Op:ty; $($name:ident: $T:ty),+ $(,)?) => {
        /// The typed lookup of this operation's entries (`ArgLadder<T>` per type).
        #[derive(Clone, Copy, Debug)]
        pub struct $Ladder;
        $(
        const _: () = {
            $crate::__arg_axes_kernels!($Op, [stringify!($op), "_", stringify!($name)], $T => $T, rows_warp, rows_block, columns);
            #[cfg(not(target_arch = "nvptx64"))]
            impl $crate::arg_axes::ArgLadder<$T> for $Ladder {
                const ROWS_WARP: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<$T>> = rows_warp;
                const ROWS_BLOCK: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<$T>> = rows_block;
                const COLUMNS: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<$T>> = columns;
            }
        };
        )+
    };
}

/// The second pass's entries, shared by every type and both operations:
/// `reduce_rows_warp_arg_partials`, `reduce_rows_block_arg_partials` and
/// `reduce_columns_arg_partials`, reading the partials as `u64` pairs, as the constants
/// `ARG_COMBINE_ROWS_WARP`, `…_ROWS_BLOCK` and `…_COLUMNS`.
#[macro_export]
macro_rules! arg_axes_combine_entries {
    () => {
        $crate::__arg_axes_kernels!(
            $crate::arg_axes::Partials,
            ["arg_partials"],
            u64 => $crate::arg_axes::ArgPartial,
            arg_combine_rows_warp,
            arg_combine_rows_block,
            arg_combine_columns
        );
        /// The second pass's row kernel with a warp per output.
        #[cfg(not(target_arch = "nvptx64"))]
        pub const ARG_COMBINE_ROWS_WARP: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<u64>> =
            arg_combine_rows_warp;
        /// The second pass's row kernel with a block per output.
        #[cfg(not(target_arch = "nvptx64"))]
        pub const ARG_COMBINE_ROWS_BLOCK: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<u64>> =
            arg_combine_rows_block;
        /// The second pass's column kernel.
        #[cfg(not(target_arch = "nvptx64"))]
        pub const ARG_COMBINE_COLUMNS: $crate::__device::KernelEntry<$crate::arg_axes::ArgParams<u64>> =
            arg_combine_columns;
    };
}
