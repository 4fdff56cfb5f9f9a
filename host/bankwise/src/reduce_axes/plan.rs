//! The planning of an axis reduction, pure and GPU-free: validation, the canonical form
//! (size-1 dimensions dropped, adjacent reduced and adjacent kept dimensions fused), the
//! choice of kernel, the split of each output among several workers where outputs are few,
//! and each pass's [`AxesLayout`] and worst-case rounding depth.

use bankwise_builtin::reduce_axes::{AxesLayout, COLUMN_LANES, COLUMN_ROWS, MAX_GROUPS, THREADS};

use crate::error::{Error, Result};
use crate::tuning::PlanTarget;

/// The largest rank an axis reduction takes.
pub const MAX_RANK: usize = 8;
/// Threads of a row worker that is a warp.
const WARP: u32 = 32;
/// Outputs whose reduced extent is below this are never split among workers.
pub const SPLIT_MIN_EXTENT: usize = 1 << 14;
/// At most this many workers share one output (the second pass reduces that many partials).
pub const MAX_SPLITS: usize = 1024;
/// A split hands each worker at least this many elements of the innermost reduced group
/// (rows), where the group is long enough.
const ROW_CHUNK: usize = 4096;
/// A split hands each column worker at least this many rows: 16 per thread, four rounds of
/// four loads (two of eight for `bf16`); a tile of 128 f32 columns reads 64 KiB per chunk.
pub const COLUMN_CHUNK: usize = 128;
// Blocks per SM a row or column pass aims to fill before splitting outputs, and the row
// length from which a block rather than a warp takes a row, are the GPU's tuning table's
// (`MemoryTuning::axes_row_blocks_per_sm`, `axes_column_blocks_per_sm`, `axes_block_row_min`).
/// Blocks per SM at most in a row grid; workers past it are taken by a grid-stride loop.
const GRID_BLOCKS_PER_SM: usize = 64;
/// Blocks at most along a grid's x.
const GRID_X_MAX: u64 = (1 << 31) - 1;

/// Dimensions fused into one: their product and whether they are reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Elements (at least 2).
    pub size: usize,
    /// Whether the reduction runs over it.
    pub reduced: bool,
}

/// A validated shape and axis set in canonical form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// Outer to inner, no size-1 group, reduced and kept alternating (empty when a dimension
    /// is 0, or all are 1).
    pub groups: Vec<Group>,
    /// Elements of the tensor.
    pub elements: usize,
    /// Outputs: the product of the kept dimensions (1 where all are reduced).
    pub outputs: usize,
    /// Elements each output reduces: the product of the reduced dimensions (1 where none).
    pub extent: usize,
}

/// `[2, 3, 4]`.
pub(crate) fn list(xs: &[usize]) -> String {
    format!("{xs:?}")
}

/// Checks `dims` and `axes` (rank 1 to 8, axes in range and distinct, sizes whose product fits
/// a `usize`), and fuses them into their canonical form.
pub fn canonical(dims: &[usize], axes: &[usize]) -> Result<Canonical> {
    let rank = dims.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(Error::AxesRank { rank });
    }
    let mut reduced = [false; MAX_RANK];
    for &axis in axes {
        if axis >= rank {
            return Err(Error::AxisOutOfRange { axis, rank });
        }
        if reduced[axis] {
            return Err(Error::AxisRepeated { axis });
        }
        reduced[axis] = true;
    }
    let overflow = || Error::ShapeOverflow { shape: list(dims) };
    let elements = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).ok_or_else(overflow)?;
    // Each product divides `elements` unless a dimension is 0, so check them all the same.
    let product = |keep: bool| -> Result<usize> {
        let mut n = 1usize;
        for (d, &r) in dims.iter().zip(&reduced) {
            if r != keep {
                n = n.checked_mul(*d).ok_or_else(overflow)?;
            }
        }
        Ok(n)
    };
    let (outputs, extent) = (product(true)?, product(false)?);
    let mut groups: Vec<Group> = Vec::new();
    if elements > 0 {
        for (&size, &r) in dims.iter().zip(&reduced) {
            match groups.last_mut() {
                _ if size == 1 => {}
                Some(g) if g.reduced == r => g.size *= size,
                _ => groups.push(Group { size, reduced: r }),
            }
        }
    }
    Ok(Canonical { groups, elements, outputs, extent })
}

/// Which kernel a pass launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxesKernel {
    /// `reduce_rows_warp`: a warp per output (and split), 8 per block.
    RowsWarp,
    /// `reduce_rows_block`: a block of 256 per output (and split).
    RowsBlock,
    /// `reduce_columns`: a block of 32 × 8 per 32 (scalar) or 32 · V (16-byte vectors)
    /// adjacent outputs (and split).
    Columns,
}

impl AxesKernel {
    /// The entry's name without the `_<op>_<type>` suffix.
    pub const fn name(self) -> &'static str {
        match self {
            AxesKernel::RowsWarp => "reduce_rows_warp",
            AxesKernel::RowsBlock => "reduce_rows_block",
            AxesKernel::Columns => "reduce_columns",
        }
    }

    /// Threads per block in x, y, z.
    pub const fn block(self) -> (u32, u32, u32) {
        match self {
            AxesKernel::Columns => (COLUMN_LANES, COLUMN_ROWS, 1),
            _ => (THREADS, 1, 1),
        }
    }

    /// Workers a block takes at once.
    const fn workers_per_block(self) -> usize {
        match self {
            AxesKernel::RowsWarp => (THREADS / WARP) as usize,
            _ => 1,
        }
    }
}

/// Where a pass reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxesSlot {
    /// The caller's source.
    Source,
    /// The partials, `[splits][outputs]`.
    Scratch,
    /// The caller's destination.
    Dst,
}

/// One launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxesPass {
    /// The kernel.
    pub kernel: AxesKernel,
    /// What it reads and writes.
    pub layout: AxesLayout,
    /// Blocks in x, y, z: rows, at most 64 per SM in x (the kernels loop over workers past
    /// it); columns, one per worker (`y · x + x_index`, extra blocks of the last row return).
    pub grid: (u32, u32, u32),
    /// What it reads.
    pub input: AxesSlot,
    /// What it writes.
    pub output: AxesSlot,
    /// The most roundings of a float sum on any element's path through this pass.
    pub depth: u64,
}

/// What an axis reduction does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxesWork {
    /// Nothing: there are no outputs.
    Nothing,
    /// Write the identity to every output (a sum over an empty extent).
    Identity,
    /// Copy the source (every reduced dimension has size 1).
    Copy,
    /// These launches, in order.
    Passes(Vec<AxesPass>),
}

/// A validated axis reduction and its launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxesPlan {
    /// The canonical form.
    pub canonical: Canonical,
    /// What to do.
    pub work: AxesWork,
    /// Elements of scratch the passes use (partials).
    pub scratch: usize,
    /// The most roundings of a float sum on any element's path to its output: a result errs by
    /// at most `γ_depth · Σ|x_i|` over its inputs.
    pub depth: u64,
}

/// Plans `dims` reduced over `axes`, from a source of `src_len` and into a destination of
/// `dst_len` elements of `bytes.0` each (partials of `bytes.1`, the accumulator's), whose
/// column kernel an SM holds `bytes.2` blocks of at once, for `target` (its SMs, and its
/// table's blocks per SM to aim for). `op` names
/// the operation in errors; `empty_is_identity` says whether an empty extent gives the
/// identity (a sum) or is an error (a minimum, a maximum), where there are outputs.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    dims: &[usize],
    axes: &[usize],
    src_len: usize,
    dst_len: usize,
    (elem_bytes, acc_bytes, resident): (usize, usize, u32),
    op: &'static str,
    empty_is_identity: bool,
    target: PlanTarget<'_>,
) -> Result<AxesPlan> {
    let c = canonical(dims, axes)?;
    if src_len != c.elements {
        let shape = list(dims);
        return Err(Error::LengthMismatch { buffer: "src", shape, expected: c.elements, actual: src_len });
    }
    if dst_len != c.outputs {
        let shape = format!("{} reduced over axes {}", list(dims), list(axes));
        return Err(Error::LengthMismatch { buffer: "dst", shape, expected: c.outputs, actual: dst_len });
    }
    let done = |work| Ok(AxesPlan { canonical: c.clone(), work, scratch: 0, depth: 0 });
    if c.outputs == 0 {
        return done(AxesWork::Nothing);
    }
    if c.extent == 0 {
        if empty_is_identity {
            return done(AxesWork::Identity);
        }
        return Err(Error::EmptyReduction { op, shape: list(dims), axes: list(axes), outputs: c.outputs });
    }
    if c.extent == 1 {
        return done(AxesWork::Copy);
    }
    let first = pass(&c.groups, elem_bytes, target, Some(resident))?;
    let splits = first.layout.splits() as usize;
    if splits == 1 {
        let depth = first.depth;
        let first = AxesPass { input: AxesSlot::Source, output: AxesSlot::Dst, ..first };
        return Ok(AxesPlan { canonical: c, work: AxesWork::Passes(vec![first]), scratch: 0, depth });
    }
    // The partials `[splits][outputs]`, reduced over their first axis.
    let partials = canonical(&[splits, c.outputs], &[0])?;
    let second = pass(&partials.groups, acc_bytes, target, None)?;
    debug_assert_eq!(second.layout.splits(), 1);
    let depth = first.depth + second.depth;
    let passes = vec![
        AxesPass { input: AxesSlot::Source, output: AxesSlot::Scratch, ..first },
        AxesPass { input: AxesSlot::Scratch, output: AxesSlot::Dst, ..second },
    ];
    let scratch = splits * c.outputs;
    Ok(AxesPlan { canonical: c, work: AxesWork::Passes(passes), scratch, depth })
}

/// A group's size and stride in the source.
type Strided = (u64, u64);

/// Kept groups (innermost first, with their strides) and reduced groups likewise, of
/// canonical `groups` whose strides are those of a row-major tensor.
fn strided(groups: &[Group]) -> (Vec<Strided>, Vec<Strided>) {
    let (mut kept, mut reduced) = (Vec::new(), Vec::new());
    let mut stride = 1u64;
    for g in groups.iter().rev() {
        let entry = (g.size as u64, stride);
        if g.reduced {
            reduced.push(entry)
        } else {
            kept.push(entry)
        }
        stride *= g.size as u64;
    }
    (kept, reduced)
}

/// `(sizes, strides)` arrays of up to [`MAX_GROUPS`] groups.
fn arrays(groups: &[Strided]) -> ([u64; MAX_GROUPS], [u64; MAX_GROUPS]) {
    let (mut size, mut stride) = ([1; MAX_GROUPS], [0; MAX_GROUPS]);
    for (k, &(n, s)) in groups.iter().enumerate() {
        (size[k], stride[k]) = (n, s);
    }
    (size, stride)
}

/// How an output's `segments × len` extent splits among `want` workers: chunks of `len` of at
/// least `min_chunk` (rounded up to a multiple of `align`) first, then of the segments.
/// Returns `(split_seg, chunk_seg, split_len, chunk_len)`; none is empty.
fn split_extent(segments: u64, len: u64, want: u64, min_chunk: u64, align: u64) -> (u64, u64, u64, u64) {
    let split_len = want.min(len.div_ceil(min_chunk)).max(1);
    let chunk_len = len.div_ceil(split_len).next_multiple_of(align).min(len);
    let split_len = len.div_ceil(chunk_len);
    let split_seg = want.div_ceil(split_len).min(segments).max(1);
    let chunk_seg = segments.div_ceil(split_seg);
    (segments.div_ceil(chunk_seg), chunk_seg, split_len, chunk_len)
}

/// `⌈log2(n)⌉`.
fn levels(n: u32) -> u64 {
    n.next_power_of_two().trailing_zeros() as u64
}

/// A pass over canonical `groups` (at least one reduced), for elements of `elem_bytes` on
/// `target`. `split` is where the pass may split its outputs (a first pass): the blocks an SM
/// holds of its column kernel; `None` for a second pass, which never splits.
fn pass(groups: &[Group], elem_bytes: usize, target: PlanTarget<'_>, split: Option<u32>) -> Result<AxesPass> {
    let sms = target.multiprocessors.max(1) as usize;
    let memory = &target.tuning.memory;
    let (row_per_sm, column_per_sm) =
        (memory.axes_row_blocks_per_sm as usize, memory.axes_column_blocks_per_sm as usize);
    let (kept, reduced) = strided(groups);
    let rows = groups.last().is_some_and(|g| g.reduced);
    // Rows: every kept group decodes the output; columns: all but the innermost, `cols`.
    let (cols, kept_outer) = if rows { (1, &kept[..]) } else { (kept[0].0, &kept[1..]) };
    let ((len, len_stride), segs) = (reduced[0], &reduced[1..]);
    assert!(kept_outer.len() <= MAX_GROUPS && segs.len() <= MAX_GROUPS, "a rank of at most 8 alternates ≤ 4 groups");
    let (kept_size, kept_stride) = arrays(kept_outer);
    let (seg_size, seg_stride) = arrays(segs);
    let segments: u64 = segs.iter().map(|g| g.0).product();
    let outer: u64 = kept_outer.iter().map(|g| g.0).product();
    let outputs = outer * cols;
    let extent = segments * len;
    let vector = (16 / elem_bytes) as u64;
    // Columns: `V` adjacent columns per thread (one 16-byte load per row) where `cols` is a
    // multiple of `V`, so that every row of a tile starts on a vector boundary; else one.
    let col_vector = if !rows && cols.is_multiple_of(vector) { vector } else { 1 };
    let block_min = memory.axes_block_row_min.max(1) as u64;
    let row_kernel = |e: u64| if e >= block_min { AxesKernel::RowsBlock } else { AxesKernel::RowsWarp };
    // Blocks without a split, and the split that fills the target.
    let (kernel0, units) = if rows {
        (row_kernel(extent), outputs)
    } else {
        (AxesKernel::Columns, outer * cols.div_ceil(COLUMN_LANES as u64 * col_vector))
    };
    let blocks = units.div_ceil(kernel0.workers_per_block() as u64);
    let (target, min_chunk, align, min_extent) = if rows {
        ((row_per_sm * sms) as u64, ROW_CHUNK as u64, vector, SPLIT_MIN_EXTENT as u64)
    } else {
        // Whole waves of the blocks an SM holds at once (the entries' launch bounds): the
        // table's figure rounded down to a multiple of them.
        let resident = split.unwrap_or(1).max(1) as usize;
        let per_sm = (column_per_sm / resident).max(1) * resident;
        ((per_sm * sms) as u64, COLUMN_CHUNK as u64, 1, 2 * COLUMN_CHUNK as u64)
    };
    let want = if split.is_some() && blocks < target && extent >= min_extent {
        // Columns: at most the target, never a few blocks past whole waves, which would run
        // as a wave of their own (on an H200, 8192² `f32` column sums split into 576 blocks,
        // a wave of 528 and 48 more, ran at 78.8% of the copy; `docs/decisions.md`). Rows: at
        // least the target.
        let want = if rows { target.div_ceil(blocks) } else { target / blocks };
        want.min(extent / min_chunk).min(MAX_SPLITS as u64)
    } else {
        1
    };
    let (split_seg, chunk_seg, split_len, chunk_len) =
        if want > 1 { split_extent(segments, len, want, min_chunk, align) } else { (1, segments, 1, len) };
    let splits = split_seg * split_len;
    let kernel = if rows { row_kernel(chunk_seg * chunk_len) } else { AxesKernel::Columns };
    let workers = units * splits;
    let grid = if kernel == AxesKernel::Columns {
        // One block per worker: x up to 2^31 − 1 blocks, y as many rows of them as needed.
        let x = workers.clamp(1, GRID_X_MAX);
        (x, workers.div_ceil(x).max(1))
    } else {
        (workers.div_ceil(kernel.workers_per_block() as u64).min((GRID_BLOCKS_PER_SM * sms) as u64).max(1), 1)
    };
    // The roundings on an element's path: its thread's chain, then the worker's tree.
    let depth = match kernel {
        // A chunk of long rows: `⌈len / 8⌉` per segment; shorter ones walked together, fewer.
        // Rows `y, y + 8, …` of one segment, or of several walked as one range: a chain of
        // `⌈segs · len / 8⌉` (however many rows the kernel loads at once).
        AxesKernel::Columns => (chunk_seg * chunk_len).div_ceil(COLUMN_ROWS as u64) + levels(COLUMN_ROWS),
        k => {
            let w = k.block().0 / k.workers_per_block() as u32;
            // Chunks of at least `w · vector` take the vectors, a shorter last one the strided walk.
            let strided = (chunk_seg * chunk_len).div_ceil(w as u64);
            let vectors = chunk_seg * (vector * chunk_len.div_ceil(vector).div_ceil(w as u64) + 2);
            let chain = if chunk_len >= w as u64 * vector { vectors.max(strided) } else { strided };
            chain + levels(w)
        }
    };
    let layout = AxesLayout {
        kept_rank: kept_outer.len() as u64,
        kept_size,
        kept_stride,
        seg_rank: segs.len() as u64,
        seg_size,
        seg_stride,
        len,
        len_stride,
        cols,
        col_vector,
        outputs,
        segments,
        split_seg,
        chunk_seg,
        split_len,
        chunk_len,
        workers,
    };
    let overflow = || Error::ShapeOverflow { shape: format!("{groups:?}") };
    let grid = (u32::try_from(grid.0).map_err(|_| overflow())?, u32::try_from(grid.1).map_err(|_| overflow())?, 1);
    Ok(AxesPass { kernel, layout, grid, input: AxesSlot::Source, output: AxesSlot::Dst, depth })
}
