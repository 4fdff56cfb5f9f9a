//! Reductions along axes of a row-major tensor: the kernels behind `Gpu::reduce_axes`.
//!
//! The host (`bankwise::reduce_axes`) drops size-1 dimensions and fuses adjacent reduced and
//! adjacent kept dimensions, so that what reaches a kernel is a few groups, described by an
//! [`AxesLayout`] passed by value:
//! - the *kept* groups an output index decodes into (mixed radix, innermost first), each with
//!   its stride in the source;
//! - the reduced subspace of one output as `segments × len`: `len` elements `len_stride` apart
//!   along the innermost reduced group, repeated for each of `segments`, the product of the
//!   other reduced groups, whose offsets decode the same way. An axis set with more than one
//!   reduced group (axes {0, 2} of 4 dims) is one such product: nothing else is special.
//!
//! Two kernels read that description:
//! - [`reduce_rows`] where the innermost group is reduced (`len_stride == 1`): a *worker* of
//!   `W` threads (a warp, or the whole block of [`THREADS`]) per output reads its rows along
//!   contiguous memory, 16-byte vectors on the aligned middle of each row (a scalar head and
//!   tail), then combines its lanes by shuffles ([`warp::reduce`]) or [`block::reduce`];
//! - [`reduce_columns`] where the innermost group is kept: a block of
//!   [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads covers a tile of adjacent outputs, threads
//!   along x on the contiguous kept dimension, threads along y on the reduced rows. Where the
//!   kept dimension is a multiple of the 16-byte vector (`col_vector == V`), each thread owns
//!   `V` adjacent columns and reads them as one 16-byte load per row (a warp reads 512
//!   contiguous bytes of a row per instruction); otherwise one column with scalar loads (a
//!   warp's 32 coalesce into one 128- or 256-byte request). Each thread issues
//!   [`Stored::COLUMN_UNROLL`] rows' loads before folding any of them, in row order (where a chunk is
//!   one segment of enough rows; otherwise one load at a time). The 8 partials of
//!   each column are then combined through shared memory, one plane of `shared[y·32 + x]` per
//!   owned column, so that every warp's access is 32 consecutive slots: conflict-free (1
//!   wavefront per request for 4-byte elements, the minimum 2 for 8-byte ones).
//!
//! Where outputs are few, the host splits each output's reduced subspace among
//! `split_seg × split_len` workers (contiguous chunks of segments and of `len`), which write
//! partials `[split][output]` to scratch; a second pass (a column reduction of that
//! `[splits, outputs]` array over axis 0) combines them. Every combine happens in a fixed
//! order, so results are deterministic (for a given plan): no atomics.
//!
//! Row workers are handed out with a grid-stride loop (`worker += grid · workers_per_block`);
//! column blocks take one worker each, numbered over a 2-D grid (`y · grid_x + x`), so that no
//! layout field stays live in registers across workers. No output count meets a grid limit.

use bankwise_device::global;
use bankwise_device::memory::load_global_v4;
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{block_x, block_y, grid_dim_x, sync_threads, thread_x, thread_y};
use bankwise_layout::reduce::{WARP, split};

use crate::half::Stored;
use crate::reduce::{Element, ReduceOp};
use crate::{block, warp};

/// Groups a layout describes at most on each side (kept outside the worker's own index,
/// reduced outside `len`): after fusion reduced and kept groups alternate, and a rank of at
/// most 8 leaves at most 4 of each.
pub const MAX_GROUPS: usize = 4;
/// Threads per block of both kernels.
pub const THREADS: u32 = 256;
/// Threads along x (the contiguous kept dimension) of a [`reduce_columns`] block.
pub const COLUMN_LANES: u32 = WARP;
/// Threads along y (the reduced rows) of a [`reduce_columns`] block.
pub const COLUMN_ROWS: u32 = THREADS / COLUMN_LANES;
/// Rows a column thread loads before folding them, where a chunk's innermost reduced group
/// has at least `COLUMN_ROWS` times as many: four 16-byte loads in flight per thread. The
/// argmin/argmax kernels' figure, and every type's but `bf16`'s ([`Stored::COLUMN_UNROLL`]).
pub const COLUMN_UNROLL: u64 = 4;

/// What one pass of an axis reduction reads and writes: see the [module](self) docs. Passed
/// to the kernels by value (a `#[repr(C)]` parameter of 29 `u64`s, 232 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxesLayout {
    /// Kept groups an output index (rows: the output; columns: the output over `cols`)
    /// decodes into, innermost first.
    pub kept_rank: u64,
    /// Their sizes.
    pub kept_size: [u64; MAX_GROUPS],
    /// Their strides in the source, in elements.
    pub kept_stride: [u64; MAX_GROUPS],
    /// Reduced groups outside `len`, innermost first.
    pub seg_rank: u64,
    /// Their sizes.
    pub seg_size: [u64; MAX_GROUPS],
    /// Their strides in the source.
    pub seg_stride: [u64; MAX_GROUPS],
    /// Elements of the innermost reduced group.
    pub len: u64,
    /// Their stride (1 for [`reduce_rows`]).
    pub len_stride: u64,
    /// Columns: the innermost kept group's size (its stride is 1); rows: 1.
    pub cols: u64,
    /// Columns: adjacent columns per thread, 1 or the 16-byte vector's `V` (only where `cols`
    /// is a multiple of `V`, so that a thread's columns are one aligned vector in every row of
    /// an aligned source); rows: 1.
    pub col_vector: u64,
    /// Outputs of the pass (the product of the kept groups and `cols`): partial `p` of output
    /// `o` is written at `dst[p · outputs + o]`.
    pub outputs: u64,
    /// Segments in all (the product of `seg_size`).
    pub segments: u64,
    /// Chunks the segments are split into, and segments per chunk.
    pub split_seg: u64,
    /// Segments per chunk (the last may hold fewer).
    pub chunk_seg: u64,
    /// Chunks `len` is split into.
    pub split_len: u64,
    /// Elements of `len` per chunk (a multiple of the vector for rows).
    pub chunk_len: u64,
    /// Workers in all: outputs (rows) or tiles of `32 · col_vector` columns (columns), times
    /// the splits.
    pub workers: u64,
}

// SAFETY: `#[repr(C)]` of `u64`s and arrays of them: the same size, alignment and layout on
// the host and on nvptx64, and no pointers.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl bankwise_device::ByValue for AxesLayout {}

/// `(a / b, a % b)`, in 32-bit arithmetic where both fit (a 64-bit division is a software
/// routine several times as long; worker, chunk and offset decodes are almost always 32-bit
/// sized).
#[inline(always)]
pub fn divmod(a: u64, b: u64) -> (u64, u64) {
    if (a | b) >> 32 == 0 {
        let (a, b) = (a as u32, b as u32);
        ((a / b) as u64, (a % b) as u64)
    } else {
        (a / b, a % b)
    }
}

impl AxesLayout {
    /// The source offset of kept index `o` (mixed radix over the kept groups).
    #[inline(always)]
    pub fn kept_offset(&self, mut o: u64) -> u64 {
        let mut offset = 0;
        // Constant indices once unrolled: the arrays stay in the parameter space.
        for k in 0..MAX_GROUPS {
            if (k as u64) < self.kept_rank {
                let (q, r) = divmod(o, self.kept_size[k]);
                offset += r * self.kept_stride[k];
                o = q;
            }
        }
        offset
    }

    /// The source offset of segment `s`.
    #[inline(always)]
    pub fn segment_offset(&self, mut s: u64) -> u64 {
        let mut offset = 0;
        for k in 0..MAX_GROUPS {
            if (k as u64) < self.seg_rank {
                let (q, r) = divmod(s, self.seg_size[k]);
                offset += r * self.seg_stride[k];
                s = q;
            }
        }
        offset
    }

    /// Splits along segments and `len` together.
    #[inline(always)]
    pub fn splits(&self) -> u64 {
        self.split_seg * self.split_len
    }

    /// Split `p`'s chunk: `(first segment, segments, first element of len, elements)`.
    #[inline(always)]
    pub fn chunk(&self, p: u64) -> (u64, u64, u64, u64) {
        let (ps, pl) = divmod(p, self.split_len);
        let s0 = ps * self.chunk_seg;
        let l0 = pl * self.chunk_len;
        let segs = self.segments.saturating_sub(s0).min(self.chunk_seg);
        let len = self.len.saturating_sub(l0).min(self.chunk_len);
        (s0, segs, l0, len)
    }
}

/// Blocks of [`reduce_columns`] an SM is to hold at once for elements of `bytes`, the entries'
/// launch bounds: 4 (at most 64 registers a thread) for 4- and 8-byte elements, 3 (at most
/// 80) for half precision, whose 8 columns a thread and their conversions need more. Without
/// bounds ptxas gives the f32 kernel 66 registers (3 blocks), bf16's 76 and f16's 80.
pub const fn column_blocks_per_sm(bytes: usize) -> u32 {
    if bytes == 2 { 3 } else { 4 }
}

/// A chunk of one output's reduced subspace: `(first segment, segments, first element of
/// len, elements)`, as [`AxesLayout::chunk`] gives it.
type Chunk = (u64, u64, u64, u64);

/// `acc[k] = combine(acc[k], x[k])` for each of `P` adjacent columns.
#[inline(always)]
fn fold_each<T: Element, O: ReduceOp<T>, const P: usize>(mut acc: [T; P], x: [T; P]) -> [T; P] {
    // Indexed and unrolled: the arrays stay in registers.
    #[allow(clippy::needless_range_loop)]
    for k in 0..P {
        acc[k] = O::combine(acc[k], x[k]);
    }
    acc
}

/// Folds the `segs × len` positions of a chunk that one thread of a worker owns: positions
/// `first, first + step, …` of the chunk in row-major order (segment outer), walked with a
/// carry instead of a division per element. `load(offset)` reads the `P` adjacent elements
/// at a source offset. Returns the fold from `acc`.
///
/// # Safety
/// `load` is valid at every `base + segment_offset(s0 + s) + (l0 + l) · len_stride` with
/// `s < segs`, `l < len`.
#[inline(always)]
unsafe fn fold_strided<T: Element, O: ReduceOp<T>, const P: usize>(
    mut acc: [T; P],
    layout: &AxesLayout,
    base: u64,
    (s0, segs, l0, len): Chunk,
    (first, step): (u64, u64),
    load: impl Fn(u64) -> [T; P],
) -> [T; P] {
    if len == 0 || segs == 0 {
        return acc;
    }
    let (mut s, mut l) = divmod(first, len);
    let mut row = base + layout.segment_offset(s0 + s);
    while s < segs {
        // `s < segs` and `l < len`: a position of the chunk, where `load` is valid (the contract).
        acc = fold_each::<T, O, P>(acc, load(row + (l0 + l) * layout.len_stride));
        l += step;
        if l >= len {
            while l >= len {
                l -= len;
                s += 1;
            }
            if s < segs {
                row = base + layout.segment_offset(s0 + s);
            }
        }
    }
    acc
}

/// The `V` elements of a 16-byte vector, widened to the accumulator.
#[inline(always)]
fn widen_vector<I: Stored<A>, A: Element, const V: usize>(words: [u32; 4]) -> [A; V] {
    // SAFETY: `[I; V]` is exactly the 16 bytes of a vector (the kernels assert it), plain data.
    let x: [I; V] = unsafe { core::mem::transmute_copy(&words) };
    // Indexed and unrolled, as in `fold_each`: no local memory.
    let mut out = [x[0].widen(); V];
    #[allow(clippy::needless_range_loop)]
    for k in 1..V {
        out[k] = x[k].widen();
    }
    out
}

/// Folds element `k` of a 16-byte vector into `acc`, in order.
#[inline(always)]
fn fold_vector<I: Stored<A>, A: Element, O: ReduceOp<A>, const V: usize>(mut acc: A, words: [u32; 4]) -> A {
    let x = widen_vector::<I, A, V>(words);
    // Indexed, not `into_iter`, whose iterator rustc kept in local memory (the PTX's
    // `__local_depot`); unrolled, the elements stay in registers.
    #[allow(clippy::needless_range_loop)]
    for k in 0..V {
        acc = O::combine(acc, x[k]);
    }
    acc
}

/// One row of `n` contiguous elements at `row`, folded by lane `lane` of a worker of `W`:
/// the scalar head (to the first 16-byte boundary) by its first lanes, the vectors round
/// robin (two loads in flight per lane before either is used), the scalar tail by the first
/// lanes.
///
/// # Safety
/// `row` valid for `n` elements.
#[inline(always)]
unsafe fn fold_row<I: Stored<A>, A: Element, O: ReduceOp<A>, const V: usize, const W: u32>(
    mut acc: A,
    row: *const I,
    n: u64,
    lane: u32,
) -> A {
    let parts = split(row as u64, n, size_of::<I>() as u64);
    let lane = lane as u64;
    if lane < parts.head {
        // SAFETY: `lane < head ≤ n`.
        acc = O::combine(acc, unsafe { global::read(row.add(lane as usize)) }.widen());
    }
    // SAFETY: `head ≤ n`: inside the row or one past its end.
    let vectors = unsafe { row.add(parts.head as usize) }.cast::<[u32; 4]>();
    let mut i = lane;
    let step = W as u64;
    while i + step < parts.vectors {
        // SAFETY: `i < i + W < vectors`: whole 16-byte-aligned vectors of the row (`split`).
        let (a, b) =
            unsafe { (load_global_v4(vectors.add(i as usize)), load_global_v4(vectors.add((i + step) as usize))) };
        acc = fold_vector::<I, A, O, V>(fold_vector::<I, A, O, V>(acc, a), b);
        i += 2 * step;
    }
    if i < parts.vectors {
        // SAFETY: `i < vectors`.
        acc = fold_vector::<I, A, O, V>(acc, unsafe { load_global_v4(vectors.add(i as usize)) });
    }
    if lane < parts.tail {
        let at = parts.head + parts.vectors * V as u64 + lane;
        // SAFETY: `at < head + vectors · V + tail = n`.
        acc = O::combine(acc, unsafe { global::read(row.add(at as usize)) }.widen());
    }
    acc
}

/// Rows whose innermost group is reduced: a worker of `W` threads (32: a warp, 8 per block;
/// or [`THREADS`]: the block) per output and split. Rows of at least `W · V` elements take
/// [`fold_row`]'s vectors, row after row of the chunk; shorter ones (many segments of few
/// elements) are walked as one strided range so that every lane works. Then the worker's
/// lanes combine (`warp::reduce` or `block::reduce`, in lane order) and its lane 0 writes
/// `dst[p · outputs + o]`.
///
/// # Safety
/// `layout.len_stride == 1`; `src` holds every element the layout names, `dst` at least
/// `splits · outputs`; blocks of [`THREADS`] threads along x, and for `W == THREADS`
/// `THREADS / 32 · size_of::<A>()` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn reduce_rows<I, A, Out, O, const V: usize, const W: u32>(dst: *mut Out, src: *const I, layout: AxesLayout)
where
    I: Stored<A>,
    A: Element,
    Out: Stored<A>,
    O: ReduceOp<A>,
{
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
        let mut acc = O::identity();
        if len >= W as u64 * V as u64 {
            for s in 0..segs {
                let row = base + layout.segment_offset(s0 + s) + l0;
                // SAFETY: the chunk's row `s`: `len` elements inside `src` (the contract).
                acc = unsafe { fold_row::<I, A, O, V, W>(acc, src.add(row as usize), len, lane) };
            }
        } else {
            // SAFETY: `load` reads one element at an offset of the chunk, inside `src` (the contract).
            let load = |at: u64| [unsafe { global::read(src.add(at as usize)) }.widen()];
            // SAFETY: `load` is valid at the chunk's offsets (above).
            [acc] = unsafe { fold_strided::<A, O, 1>([acc], &layout, base, chunk, (lane as u64, W as u64), load) };
        }
        let v = if W == WARP {
            warp::reduce::<A, O>(acc)
        } else {
            // SAFETY: the block is `THREADS` threads along x, all in this iteration (`w` is the
            // block's), and the dynamic shared memory holds a slot per warp, used by nothing else.
            unsafe { block::reduce::<A, O, THREADS>(acc, shared::dynamic()) }
        };
        if lane == 0 {
            // SAFETY: `p < splits`, `o < outputs`: inside `dst` (the contract), this worker's own.
            unsafe { global::write(dst.add((p * layout.outputs + o) as usize), Out::narrow(v)) };
        }
        w += stride;
    }
}

/// Folds a column thread's share of a chunk: where the chunk is one segment of at least `U`
/// rows per thread, rows `y, y + 8, …` with `U` rows' loads issued before any is folded (then
/// folded in row order); otherwise (several segments, or few rows) one strided walk over the
/// chunk, one load at a time, so that every row of threads works. Only the one-segment loop
/// unrolls: the segments' sizes and strides, live across a loop over segments, would cost it
/// registers (and so blocks per SM).
///
/// # Safety
/// `load` is valid at every offset of the chunk (as for [`fold_strided`]).
#[inline(always)]
unsafe fn fold_column<T: Element, O: ReduceOp<T>, R: Copy, const P: usize, const U: usize>(
    mut acc: [T; P],
    layout: &AxesLayout,
    base: u64,
    chunk @ (s0, segs, l0, len): Chunk,
    y: u64,
    load: impl Fn(u64) -> R,
    widen: impl Fn(R) -> [T; P],
) -> [T; P] {
    let step = COLUMN_ROWS as u64;
    let unroll = U as u64;
    if segs != 1 || len < step * unroll {
        // SAFETY: the contract is the callee's.
        return unsafe { fold_strided::<T, O, P>(acc, layout, base, chunk, (y, step), |at| widen(load(at))) };
    }
    let ls = layout.len_stride;
    let jump = step * ls;
    let row = base + layout.segment_offset(s0) + l0 * ls;
    let mut l = y;
    // Rows `l, l + 8, …, l + 8·(U − 1) < len`: positions of the chunk, where `load` is valid.
    while l + (unroll - 1) * step < len {
        let at = row + l * ls;
        // The rows as loaded, widened only as each is folded: eight widened rows at once took
        // a 256-byte stack frame for `f16`, whose widening is integer code of its own.
        let rows: [R; U] = core::array::from_fn(|i| load(at + i as u64 * jump));
        // Indexed and unrolled, as in `fold_each`: the rows stay in registers.
        #[allow(clippy::needless_range_loop)]
        for i in 0..U {
            acc = fold_each::<T, O, P>(acc, widen(rows[i]));
        }
        l += unroll * step;
    }
    while l < len {
        acc = fold_each::<T, O, P>(acc, widen(load(row + l * ls)));
        l += step;
    }
    acc
}

/// Combines the [`COLUMN_ROWS`] partials of each of a block's columns, plane `k < planes` of
/// `smem[k·THREADS + y·32 + x]`: at step `h = 4, 2, 1` row `y < h` adds row `y + h` (a barrier
/// between steps). Each warp is one row `y`, so it reads and writes 32 consecutive slots of a
/// plane: conflict-free. Row 0 of each plane then holds the results.
///
/// # Safety
/// `smem` holds `planes · THREADS` slots, each thread's written before the call; every thread
/// of the block calls it with the same `planes`.
#[inline(always)]
unsafe fn combine_rows<T: Element, O: ReduceOp<T>, const V: usize>(smem: SharedSlice<T>, x: u32, y: u32, planes: u64) {
    let mut h = COLUMN_ROWS / 2;
    while h > 0 {
        if y < h {
            for k in 0..V {
                if (k as u64) < planes {
                    let plane = k * THREADS as usize;
                    let a = plane + (y * COLUMN_LANES + x) as usize;
                    let b = plane + ((y + h) * COLUMN_LANES + x) as usize;
                    // SAFETY: `a` and `b < planes · THREADS`; at this step `a` is this thread's alone
                    // and `b` is no thread's `a`; the barrier below separates the steps.
                    unsafe { smem.write(a, O::combine(smem.read(a), smem.read(b))) };
                }
            }
        }
        sync_threads();
        h /= 2;
    }
}

/// Columns: the innermost group is kept (`cols` wide, stride 1). A block of
/// [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads takes one worker, a tile of `32 · col_vector`
/// adjacent columns of one outer kept index for one split: thread `(x, y)` folds columns
/// `x · col_vector …` of the tile over rows `y, y + 8, …` of the chunk ([`fold_column`]; 16-byte
/// loads where `col_vector == V` and `src` is 16-byte aligned, scalar ones otherwise), then
/// the 8 partials of each column are combined through shared memory ([`combine_rows`]) and
/// row 0 writes them. `U` is the rows a thread loads before folding them
/// ([`Stored::COLUMN_UNROLL`] of `I`).
///
/// # Safety
/// `src` holds every element the layout names, `dst` at least `splits · outputs`;
/// `col_vector` is 1, or `V` with `cols` a multiple of `V`; blocks of [`COLUMN_LANES`] ×
/// [`COLUMN_ROWS`] threads and `V · THREADS · size_of::<A>()` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn reduce_columns<I, A, Out, O, const V: usize, const U: usize>(
    dst: *mut Out,
    src: *const I,
    layout: AxesLayout,
) where
    I: Stored<A>,
    A: Element,
    Out: Stored<A>,
    O: ReduceOp<A>,
{
    const { assert!(V * size_of::<I>() == 16, "V elements are one 16-byte vector") };
    let smem = shared::dynamic::<A>();
    let (x, y) = (thread_x(), thread_y());
    let slot = (y * COLUMN_LANES + x) as usize;
    let splits = layout.splits();
    let per = layout.col_vector;
    let tile_cols = COLUMN_LANES as u64 * per;
    let tiles = layout.cols.div_ceil(tile_cols);
    // Every row of the tile starts a multiple of `V` elements into an aligned source (`cols`,
    // and so every row stride, is a multiple of `V`): whole aligned vectors.
    let vectors = per == V as u64 && (src as usize).is_multiple_of(16);
    // One worker per block, no grid-stride loop: a loop would keep every layout field the
    // body reads live in registers across it, and registers bound the blocks an SM holds.
    let w = block_y() as u64 * grid_dim_x() as u64 + block_x() as u64;
    if w >= layout.workers {
        // The whole block: `w` is the block's.
        return;
    }
    {
        let (rest, p) = divmod(w, splits);
        let (q, tile) = divmod(rest, tiles);
        let c = tile * tile_cols + x as u64 * per;
        let chunk = layout.chunk(p);
        let mut acc = [O::identity(); V];
        // Where column `c`'s partial goes, worked out before the fold so that `p`, `q` and the
        // sizes need no registers during it.
        let (inside, out) = (c < layout.cols, p * layout.outputs + q * layout.cols + c);
        // With `per == V`, `c < cols` means all `V` columns are (`cols` is a multiple of `V`).
        if inside {
            let base = layout.kept_offset(q) + c;
            let y = y as u64;
            if vectors {
                // SAFETY: `at` is an offset of the chunk in column `c`, whose `V` columns are an
                // aligned vector inside `src` (above; the contract).
                let load = |at: u64| unsafe { load_global_v4(src.add(at as usize).cast::<[u32; 4]>()) };
                // SAFETY: `load` is valid at the chunk's offsets (above).
                acc = unsafe {
                    fold_column::<A, O, _, V, U>(acc, &layout, base, chunk, y, load, widen_vector::<I, A, V>)
                };
            } else if per == 1 {
                // SAFETY: `at` is an offset of the chunk in column `c < cols`, inside `src`.
                let load = |at: u64| unsafe { global::read(src.add(at as usize)) };
                let widen = |x: I| [x.widen()];
                // SAFETY: `load` is valid at the chunk's offsets (above).
                [acc[0]] = unsafe { fold_column::<A, O, _, 1, U>([acc[0]], &layout, base, chunk, y, load, widen) };
            } else {
                // A source not 16-byte aligned: the same `V` columns, by scalar loads.
                let load = |at: u64| -> [I; V] {
                    // SAFETY: `at + k` is an offset of the chunk in column `c + k < cols`.
                    core::array::from_fn(|k| unsafe { global::read(src.add(at as usize + k)) })
                };
                let widen = |x: [I; V]| -> [A; V] { core::array::from_fn(|k| x[k].widen()) };
                // SAFETY: `load` is valid at the chunk's offsets (above).
                acc = unsafe { fold_column::<A, O, _, V, U>(acc, &layout, base, chunk, y, load, widen) };
            }
        }
        #[allow(clippy::needless_range_loop)]
        for k in 0..V {
            if (k as u64) < per {
                // SAFETY: `k · THREADS + slot < V · THREADS`, this thread's, not yet read.
                unsafe { smem.write(k * THREADS as usize + slot, acc[k]) };
            }
        }
        sync_threads();
        // SAFETY: every slot of the `per` planes written before the barrier above; the whole
        // block calls it with the same `per`.
        unsafe { combine_rows::<A, O, V>(smem, x, y, per) };
        if y == 0 && inside {
            for k in 0..V {
                if (k as u64) < per {
                    // SAFETY: slot `x` of plane `k`'s row 0, final after the tree's last barrier.
                    let v = unsafe { smem.read(k * THREADS as usize + x as usize) };
                    // SAFETY: `out + k = p · outputs + o` with `p < splits`, `o = q · cols + c + k <
                    // outputs` (`c + k < cols`): inside `dst`, this thread's own.
                    unsafe { global::write(dst.add((out + k as u64) as usize), Out::narrow(v)) };
                }
            }
        }
    }
}

/// An axis reduction's parameters: `dst` (of `Out`), `src` (of `In`), the layout.
#[cfg(not(target_arch = "nvptx64"))]
pub type AxesParams<Out, In = Out> = (*mut Out, *const In, AxesLayout);

/// The axis-reduction entries [`reduce_axes_entries!`](crate::reduce_axes_entries) (or
/// [`reduce_axes_half_entries!`](crate::reduce_axes_half_entries)) instantiated for an
/// operation and element type `T` (host forms only). Partials of a split plan are kept in
/// [`Acc`](AxesLadder::Acc): `T` itself, or `f32` for half precision, so that the second pass
/// rounds to `T` once.
#[cfg(not(target_arch = "nvptx64"))]
pub trait AxesLadder<T> {
    /// The accumulator and the partials' type.
    type Acc;
    /// `reduce_rows_warp_<op>_<t>`: a warp per output, `T` to `T`.
    const ROWS_WARP: bankwise_device::KernelEntry<AxesParams<T>>;
    /// `reduce_rows_block_<op>_<t>`: a block per output.
    const ROWS_BLOCK: bankwise_device::KernelEntry<AxesParams<T>>;
    /// `reduce_columns_<op>_<t>`.
    const COLUMNS: bankwise_device::KernelEntry<AxesParams<T>>;
    /// The first pass of a split plan, `T` to partials: [`ROWS_WARP`](Self::ROWS_WARP)'s kernel.
    const SPLIT_ROWS_WARP: bankwise_device::KernelEntry<AxesParams<Self::Acc, T>>;
    /// As [`ROWS_BLOCK`](Self::ROWS_BLOCK).
    const SPLIT_ROWS_BLOCK: bankwise_device::KernelEntry<AxesParams<Self::Acc, T>>;
    /// As [`COLUMNS`](Self::COLUMNS).
    const SPLIT_COLUMNS: bankwise_device::KernelEntry<AxesParams<Self::Acc, T>>;
    /// The second pass of a split plan, partials to `T`.
    const COMBINE_ROWS_WARP: bankwise_device::KernelEntry<AxesParams<T, Self::Acc>>;
    /// As [`ROWS_BLOCK`](Self::ROWS_BLOCK).
    const COMBINE_ROWS_BLOCK: bankwise_device::KernelEntry<AxesParams<T, Self::Acc>>;
    /// As [`COLUMNS`](Self::COLUMNS).
    const COMBINE_COLUMNS: bankwise_device::KernelEntry<AxesParams<T, Self::Acc>>;
}

/// One operation's three axis kernels reading `$In`, accumulating in `$A` and writing `$Out`,
/// exported as `reduce_rows_warp_<op>_<suffix>`, `reduce_rows_block_…`, `reduce_columns_…`
/// and named `$warp`, `$block`, `$columns` in the caller's scope.
#[doc(hidden)]
#[macro_export]
macro_rules! __reduce_axes_kernels {
    ($Op:ty, $op:ident, [$($suffix:tt)*], $In:ty => $A:ty => $Out:ty, $warp:ident, $block:ident, $columns:ident) => {
        /// # Safety
        /// See `reduce_rows`.
        #[$crate::__device::kernel]
        #[unsafe(export_name = concat!("reduce_rows_warp_", stringify!($op), "_", $($suffix)*))]
        pub unsafe fn $warp(dst: *mut $Out, src: *const $In, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::reduce_axes::reduce_rows::<$In, $A, $Out, $Op, { 16 / core::mem::size_of::<$In>() }, 32>(
                    dst, src, layout,
                )
            }
        }
        /// # Safety
        /// See `reduce_rows`.
        #[$crate::__device::kernel(shared = $crate::reduce_axes::THREADS / 32 * core::mem::size_of::<$A>() as u32)]
        #[unsafe(export_name = concat!("reduce_rows_block_", stringify!($op), "_", $($suffix)*))]
        pub unsafe fn $block(dst: *mut $Out, src: *const $In, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::reduce_axes::reduce_rows::<
                    $In,
                    $A,
                    $Out,
                    $Op,
                    { 16 / core::mem::size_of::<$In>() },
                    { $crate::reduce_axes::THREADS },
                >(dst, src, layout)
            }
        }
        /// # Safety
        /// See `reduce_columns`.
        #[$crate::__device::kernel(
            launch_bounds($crate::reduce_axes::THREADS, $crate::reduce_axes::column_blocks_per_sm(core::mem::size_of::<$In>())),
            shared = $crate::reduce_axes::THREADS * (16 / core::mem::size_of::<$In>() * core::mem::size_of::<$A>()) as u32
        )]
        #[unsafe(export_name = concat!("reduce_columns_", stringify!($op), "_", $($suffix)*))]
        pub unsafe fn $columns(dst: *mut $Out, src: *const $In, layout: $crate::reduce_axes::AxesLayout) {
            // SAFETY: this entry's contract is the callee's.
            unsafe {
                $crate::reduce_axes::reduce_columns::<
                    $In,
                    $A,
                    $Out,
                    $Op,
                    { 16 / core::mem::size_of::<$In>() },
                    { <$In as $crate::half::Stored<$A>>::COLUMN_UNROLL },
                >(dst, src, layout)
            }
        }
    };
}

/// Instantiates the axis reductions for an operation and element types, each its own
/// accumulator: entries `reduce_rows_warp_<op>_<t>`, `reduce_rows_block_<op>_<t>` and
/// `reduce_columns_<op>_<t>`, and a unit type `$Ladder` implementing
/// [`AxesLadder<$t>`](AxesLadder) for each `$t`: `reduce_axes_entries!(SumAxes = sum: Sum; f32, u64)`.
#[macro_export]
macro_rules! reduce_axes_entries {
    ($Ladder:ident = $op:ident: $Op:ty; $($t:ident),+ $(,)?) => {
        /// The typed lookup of this operation's axis-reduction entries (`AxesLadder<T>` per type).
        #[derive(Clone, Copy, Debug)]
        pub struct $Ladder;
        $(
        const _: () = {
            $crate::__reduce_axes_kernels!($Op, $op, [stringify!($t)], $t => $t => $t, rows_warp, rows_block, columns);
            #[cfg(not(target_arch = "nvptx64"))]
            impl $crate::reduce_axes::AxesLadder<$t> for $Ladder {
                type Acc = $t;
                const ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_warp;
                const ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_block;
                const COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = columns;
                const SPLIT_ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_warp;
                const SPLIT_ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_block;
                const SPLIT_COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = columns;
                const COMBINE_ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_warp;
                const COMBINE_ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_block;
                const COMBINE_COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = columns;
            }
        };
        )+
    };
}

/// The axis reductions of half-precision types for an operation whose ladder
/// [`reduce_axes_entries!`](crate::reduce_axes_entries) declared: per `$name: $T` (a
/// [`Stored<f32>`](crate::half::Stored) type such as [`Bf16`](crate::half::Bf16)), the three
/// kernels `$T` to `$T` (`reduce_columns_<op>_<name>`), `$T` to `f32` partials
/// (`…_<name>_f32`) and `f32` partials to `$T` (`…_f32_<name>`), all accumulating in `f32`:
/// `reduce_axes_half_entries!(SumAxes = sum: Sum; bf16: Bf16)`.
#[macro_export]
macro_rules! reduce_axes_half_entries {
    ($Ladder:ident = $op:ident: $Op:ty; $($name:ident: $T:ty),+ $(,)?) => {$(
        const _: () = {
            $crate::__reduce_axes_kernels!($Op, $op, [stringify!($name)], $T => f32 => $T, rows_warp, rows_block, columns);
            $crate::__reduce_axes_kernels!(
                $Op, $op, [stringify!($name), "_f32"], $T => f32 => f32, split_warp, split_block, split_columns
            );
            $crate::__reduce_axes_kernels!(
                $Op, $op, ["f32_", stringify!($name)], f32 => f32 => $T, combine_warp, combine_block, combine_columns
            );
            #[cfg(not(target_arch = "nvptx64"))]
            impl $crate::reduce_axes::AxesLadder<$T> for $Ladder {
                type Acc = f32;
                const ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T>> = rows_warp;
                const ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T>> = rows_block;
                const COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T>> = columns;
                const SPLIT_ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<f32, $T>> = split_warp;
                const SPLIT_ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<f32, $T>> = split_block;
                const SPLIT_COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<f32, $T>> = split_columns;
                const COMBINE_ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T, f32>> = combine_warp;
                const COMBINE_ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T, f32>> =
                    combine_block;
                const COMBINE_COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$T, f32>> =
                    combine_columns;
            }
        };
    )+};
}
