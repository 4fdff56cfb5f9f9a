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
//!   [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads covers 32 adjacent outputs, threads along x on
//!   the contiguous kept dimension (each warp's loads coalesce into one 128- or 256-byte
//!   request), threads along y on the reduced rows; the 8 partials of each column are then
//!   combined through shared memory, `shared[y·32 + x]`, so that every warp's access is 32
//!   consecutive slots: conflict-free (1 wavefront per request for 4-byte elements, the
//!   minimum 2 for 8-byte ones).
//!
//! Where outputs are few, the host splits each output's reduced subspace among
//! `split_seg × split_len` workers (contiguous chunks of segments and of `len`), which write
//! partials `[split][output]` to scratch; a second pass (a column reduction of that
//! `[splits, outputs]` array over axis 0) combines them. Every combine happens in a fixed
//! order, so results are deterministic (for a given plan): no atomics.
//!
//! Workers are handed out with a grid-stride loop (`worker += grid · workers_per_block`), so
//! no output count meets a grid limit.

use bankwise_device::global;
use bankwise_device::memory::load_global_v4;
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{block_x, grid_dim_x, sync_threads, thread_x, thread_y};
use bankwise_layout::reduce::{WARP, split};

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

/// What one pass of an axis reduction reads and writes: see the [module](self) docs. Passed
/// to the kernels by value (a `#[repr(C)]` parameter of 28 `u64`s, 224 bytes).
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
    /// Workers in all: outputs (rows) or tiles of 32 columns (columns), times the splits.
    pub workers: u64,
}

// SAFETY: `#[repr(C)]` of `u64`s and arrays of them: the same size, alignment and layout on
// the host and on nvptx64, and no pointers.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl bankwise_device::ByValue for AxesLayout {}

impl AxesLayout {
    /// The source offset of kept index `o` (mixed radix over the kept groups).
    #[inline(always)]
    pub fn kept_offset(&self, mut o: u64) -> u64 {
        let mut offset = 0;
        // Constant indices once unrolled: the arrays stay in the parameter space.
        for k in 0..MAX_GROUPS {
            if (k as u64) < self.kept_rank {
                let size = self.kept_size[k];
                offset += (o % size) * self.kept_stride[k];
                o /= size;
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
                let size = self.seg_size[k];
                offset += (s % size) * self.seg_stride[k];
                s /= size;
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
        let (ps, pl) = (p / self.split_len, p % self.split_len);
        let s0 = ps * self.chunk_seg;
        let l0 = pl * self.chunk_len;
        let segs = self.segments.saturating_sub(s0).min(self.chunk_seg);
        let len = self.len.saturating_sub(l0).min(self.chunk_len);
        (s0, segs, l0, len)
    }
}

/// Folds the `segs × len` elements of a chunk that one thread of a worker owns: positions
/// `first, first + step, …` of the chunk in row-major order (segment outer), walked with a
/// carry instead of a division per element. Returns the fold from `acc`.
///
/// # Safety
/// Every `base + segment_offset(s0 + s) + (l0 + l) · len_stride` with `s < segs`, `l < len`
/// is inside `src`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_strided<T: Element, O: ReduceOp<T>>(
    mut acc: T,
    src: *const T,
    layout: &AxesLayout,
    base: u64,
    (s0, segs, l0, len): (u64, u64, u64, u64),
    first: u64,
    step: u64,
) -> T {
    if len == 0 || segs == 0 {
        return acc;
    }
    let (mut s, mut l) = (first / len, first % len);
    let mut row = base + layout.segment_offset(s0 + s);
    while s < segs {
        // SAFETY: `s < segs` and `l < len`: an element of the chunk, inside `src` (the contract).
        let x = unsafe { global::read(src.add((row + (l0 + l) * layout.len_stride) as usize)) };
        acc = O::combine(acc, x);
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

/// Folds element `k` of a 16-byte vector into `acc`, in order.
#[inline(always)]
fn fold_vector<T: Element, O: ReduceOp<T>, const V: usize>(mut acc: T, words: [u32; 4]) -> T {
    // SAFETY: `[T; V]` is exactly the 16 bytes of a vector, plain data.
    let x: [T; V] = unsafe { core::mem::transmute_copy(&words) };
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
unsafe fn fold_row<T: Element, O: ReduceOp<T>, const V: usize, const W: u32>(
    mut acc: T,
    row: *const T,
    n: u64,
    lane: u32,
) -> T {
    let parts = split(row as u64, n, size_of::<T>() as u64);
    let lane = lane as u64;
    if lane < parts.head {
        // SAFETY: `lane < head ≤ n`.
        acc = O::combine(acc, unsafe { global::read(row.add(lane as usize)) });
    }
    // SAFETY: `head ≤ n`: inside the row or one past its end.
    let vectors = unsafe { row.add(parts.head as usize) }.cast::<[u32; 4]>();
    let mut i = lane;
    let step = W as u64;
    while i + step < parts.vectors {
        // SAFETY: `i < i + W < vectors`: whole 16-byte-aligned vectors of the row (`split`).
        let (a, b) =
            unsafe { (load_global_v4(vectors.add(i as usize)), load_global_v4(vectors.add((i + step) as usize))) };
        acc = fold_vector::<T, O, V>(fold_vector::<T, O, V>(acc, a), b);
        i += 2 * step;
    }
    if i < parts.vectors {
        // SAFETY: `i < vectors`.
        acc = fold_vector::<T, O, V>(acc, unsafe { load_global_v4(vectors.add(i as usize)) });
    }
    if lane < parts.tail {
        let at = parts.head + parts.vectors * V as u64 + lane;
        // SAFETY: `at < head + vectors · V + tail = n`.
        acc = O::combine(acc, unsafe { global::read(row.add(at as usize)) });
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
/// `THREADS / 32 · size_of::<T>()` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn reduce_rows<T: Element, O: ReduceOp<T>, const V: usize, const W: u32>(
    dst: *mut T,
    src: *const T,
    layout: AxesLayout,
) {
    const { assert!(W == WARP || W == THREADS, "a worker is a warp or the block") };
    let per_block = (THREADS / W) as u64;
    let tid = thread_x();
    let lane = tid % W;
    let mut w = block_x() as u64 * per_block + (tid / W) as u64;
    let stride = grid_dim_x() as u64 * per_block;
    let splits = layout.splits();
    while w < layout.workers {
        let (o, p) = (w / splits, w % splits);
        let chunk @ (s0, segs, l0, len) = layout.chunk(p);
        let base = layout.kept_offset(o);
        let mut acc = O::identity();
        if len >= W as u64 * V as u64 {
            for s in 0..segs {
                let row = base + layout.segment_offset(s0 + s) + l0;
                // SAFETY: the chunk's row `s`: `len` elements inside `src` (the contract).
                acc = unsafe { fold_row::<T, O, V, W>(acc, src.add(row as usize), len, lane) };
            }
        } else {
            // SAFETY: the chunk's elements are inside `src` (the contract).
            acc = unsafe { fold_strided::<T, O>(acc, src, &layout, base, chunk, lane as u64, W as u64) };
        }
        let v = if W == WARP {
            warp::reduce::<T, O>(acc)
        } else {
            // SAFETY: the block is `THREADS` threads along x, all in this iteration (`w` is the
            // block's), and the dynamic shared memory holds a slot per warp, used by nothing else.
            unsafe { block::reduce::<T, O, THREADS>(acc, shared::dynamic()) }
        };
        if lane == 0 {
            // SAFETY: `p < splits`, `o < outputs`: inside `dst` (the contract), this worker's own.
            unsafe { global::write(dst.add((p * layout.outputs + o) as usize), v) };
        }
        w += stride;
    }
}

/// Combines the [`COLUMN_ROWS`] partials of each of a block's 32 columns, `smem[y·32 + x]`:
/// at step `h = 4, 2, 1` row `y < h` adds row `y + h` (a barrier between steps). Each warp is
/// one row `y`, so it reads and writes 32 consecutive slots: conflict-free. Row 0 then holds
/// the results.
///
/// # Safety
/// `smem` holds `THREADS` slots, each thread's written before the call; every thread of the
/// block calls it.
#[inline(always)]
unsafe fn combine_rows<T: Element, O: ReduceOp<T>>(smem: SharedSlice<T>, x: u32, y: u32) {
    let mut h = COLUMN_ROWS / 2;
    while h > 0 {
        if y < h {
            let (a, b) = ((y * COLUMN_LANES + x) as usize, ((y + h) * COLUMN_LANES + x) as usize);
            // SAFETY: `a` and `b < THREADS`; at this step `a` is this thread's alone and `b` is no
            // thread's `a`; the barrier below separates the steps.
            unsafe { smem.write(a, O::combine(smem.read(a), smem.read(b))) };
        }
        sync_threads();
        h /= 2;
    }
}

/// Columns: the innermost group is kept (`cols` wide, stride 1). A block of
/// [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads takes one worker, 32 adjacent columns of one
/// outer kept index for one split: thread `(x, y)` folds rows `y, y + 8, …` of its column's
/// chunk (walked with a carry over segments), then the 8 partials of each column are combined
/// through shared memory ([`combine_rows`]) and row 0 writes them.
///
/// # Safety
/// `src` holds every element the layout names, `dst` at least `splits · outputs`; blocks of
/// [`COLUMN_LANES`] × [`COLUMN_ROWS`] threads and `THREADS · size_of::<T>()` bytes of dynamic
/// shared memory.
#[inline(always)]
pub unsafe fn reduce_columns<T: Element, O: ReduceOp<T>>(dst: *mut T, src: *const T, layout: AxesLayout) {
    let smem = shared::dynamic::<T>();
    let (x, y) = (thread_x(), thread_y());
    let slot = (y * COLUMN_LANES + x) as usize;
    let splits = layout.splits();
    let tiles = layout.cols.div_ceil(COLUMN_LANES as u64);
    let mut w = block_x() as u64;
    while w < layout.workers {
        let (p, rest) = (w % splits, w / splits);
        let (tile, q) = (rest % tiles, rest / tiles);
        let c = tile * COLUMN_LANES as u64 + x as u64;
        let mut acc = O::identity();
        if c < layout.cols {
            let base = layout.kept_offset(q) + c;
            // SAFETY: the chunk's elements of column `c` are inside `src` (the contract).
            acc =
                unsafe { fold_strided::<T, O>(acc, src, &layout, base, layout.chunk(p), y as u64, COLUMN_ROWS as u64) };
        }
        // SAFETY: `slot < THREADS`, this thread's; the previous worker's last read of it (row 0's,
        // below) was this thread's own, and other slots were last read before the tree's last
        // barrier.
        unsafe { smem.write(slot, acc) };
        sync_threads();
        // SAFETY: every slot written before the barrier above; the whole block calls it.
        unsafe { combine_rows::<T, O>(smem, x, y) };
        if y == 0 && c < layout.cols {
            let o = q * layout.cols + c;
            // SAFETY: slot `x` of row 0, final after the tree's last barrier; `p < splits`,
            // `o < outputs`: inside `dst`, this thread's own output.
            unsafe { global::write(dst.add((p * layout.outputs + o) as usize), smem.read(x as usize)) };
        }
        w += grid_dim_x() as u64;
    }
}

/// An axis reduction's parameters: `dst`, `src`, the layout.
#[cfg(not(target_arch = "nvptx64"))]
pub type AxesParams<T> = (*mut T, *const T, AxesLayout);

/// The axis-reduction entries [`reduce_axes_entries!`](crate::reduce_axes_entries)
/// instantiated for an operation and element type `T` (host forms only).
#[cfg(not(target_arch = "nvptx64"))]
pub trait AxesLadder<T> {
    /// `reduce_rows_warp_<op>_<t>`: a warp per output.
    const ROWS_WARP: bankwise_device::KernelEntry<AxesParams<T>>;
    /// `reduce_rows_block_<op>_<t>`: a block per output.
    const ROWS_BLOCK: bankwise_device::KernelEntry<AxesParams<T>>;
    /// `reduce_columns_<op>_<t>`.
    const COLUMNS: bankwise_device::KernelEntry<AxesParams<T>>;
}

/// Instantiates the axis reductions for an operation and element types: entries
/// `reduce_rows_warp_<op>_<t>`, `reduce_rows_block_<op>_<t>` and `reduce_columns_<op>_<t>`,
/// and a unit type `$Ladder` implementing [`AxesLadder<$t>`](AxesLadder) for each `$t`:
/// `reduce_axes_entries!(SumAxes = sum: Sum; f32, u64)`.
#[macro_export]
macro_rules! reduce_axes_entries {
    ($Ladder:ident = $op:ident: $Op:ty; $($t:ident),+ $(,)?) => {
        /// The typed lookup of this operation's axis-reduction entries (`AxesLadder<T>` per type).
        #[derive(Clone, Copy, Debug)]
        pub struct $Ladder;
        $(
        const _: () = {
            /// # Safety
            /// See `reduce_rows`.
            #[$crate::__device::kernel]
            #[unsafe(export_name = concat!("reduce_rows_warp_", stringify!($op), "_", stringify!($t)))]
            pub unsafe fn rows_warp(dst: *mut $t, src: *const $t, layout: $crate::reduce_axes::AxesLayout) {
                // SAFETY: this entry's contract is the callee's.
                unsafe {
                    $crate::reduce_axes::reduce_rows::<$t, $Op, { 16 / core::mem::size_of::<$t>() }, 32>(dst, src, layout)
                }
            }
            /// # Safety
            /// See `reduce_rows`.
            #[$crate::__device::kernel(shared = $crate::reduce_axes::THREADS / 32 * core::mem::size_of::<$t>() as u32)]
            #[unsafe(export_name = concat!("reduce_rows_block_", stringify!($op), "_", stringify!($t)))]
            pub unsafe fn rows_block(dst: *mut $t, src: *const $t, layout: $crate::reduce_axes::AxesLayout) {
                // SAFETY: this entry's contract is the callee's.
                unsafe {
                    $crate::reduce_axes::reduce_rows::<$t, $Op, { 16 / core::mem::size_of::<$t>() }, { $crate::reduce_axes::THREADS }>(
                        dst, src, layout,
                    )
                }
            }
            /// # Safety
            /// See `reduce_columns`.
            #[$crate::__device::kernel(shared = $crate::reduce_axes::THREADS * core::mem::size_of::<$t>() as u32)]
            #[unsafe(export_name = concat!("reduce_columns_", stringify!($op), "_", stringify!($t)))]
            pub unsafe fn columns(dst: *mut $t, src: *const $t, layout: $crate::reduce_axes::AxesLayout) {
                // SAFETY: this entry's contract is the callee's.
                unsafe { $crate::reduce_axes::reduce_columns::<$t, $Op>(dst, src, layout) }
            }
            #[cfg(not(target_arch = "nvptx64"))]
            impl $crate::reduce_axes::AxesLadder<$t> for $Ladder {
                const ROWS_WARP: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_warp;
                const ROWS_BLOCK: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = rows_block;
                const COLUMNS: $crate::__device::KernelEntry<$crate::reduce_axes::AxesParams<$t>> = columns;
            }
        };
        )+
    };
}
