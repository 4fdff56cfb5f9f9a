//! Planning a permutation on the host, without a GPU: validation, the normal form (size-1
//! axes dropped, axes that stay adjacent fused), and the choice of kernel and its parameters.

use std::fmt;

use bankwise_builtin::permute::{
    Batch, FastDiv, Group, MAX_BATCH, MAX_GROUP, MAX_RANK, ROWS_THREADS, Rows, SKINNY_MAX_NARROW, SKINNY_WORDS, Skinny,
    Tiled, flat_per_thread, flat_pitch, skinny_per_thread,
};
use bankwise_layout::transpose::tuned::{self, unaligned};

use crate::element::Width;
use crate::error::{Error, Result};
use crate::transpose::Shape;

/// The most blocks one launch takes (the grid's x limit): longer work is split into launches.
pub const MAX_BLOCKS: u64 = i32::MAX as u64;

/// Bytes each block of the row gather copies: 16 KiB, as many as the tuned transpose's
/// f32 tile moves, so that a block has all its loads in flight at once.
pub const ROWS_CHUNK_BYTES: u64 = 16 * 1024;

/// A permutation's axes in normal form: size-1 axes dropped and axes that stay adjacent and
/// in order fused, so that no two consecutive axes of `src` are consecutive in `dst` too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fused {
    /// Sizes of the fused axes, in `src`'s order.
    pub sizes: Vec<usize>,
    /// `dst`'s axis `j` is fused axis `perm[j]` of `src`.
    pub perm: Vec<usize>,
}

/// Checks `dims` and `perm` and returns the element count: rank 1 to [`MAX_RANK`], `perm` a
/// permutation of `0..rank`, and the count within a 64-bit address space of 8-byte elements.
/// A size of 0 is allowed (an empty tensor).
pub fn check(dims: &[usize], perm: &[usize]) -> Result<usize> {
    let rank = dims.len();
    if !(1..=MAX_RANK).contains(&rank) {
        return Err(Error::RankOutOfRange { dims: dims.to_vec(), max: MAX_RANK, what: "permute" });
    }
    let fault = |why: String| Error::NotAPermutation { dims: dims.to_vec(), perm: perm.to_vec(), why };
    if perm.len() != rank {
        return Err(fault(format!("it has {} entries, one per axis needs {rank}", perm.len())));
    }
    let mut seen = [false; MAX_RANK];
    for &axis in perm {
        if axis >= rank {
            return Err(fault(format!("axis {axis} is out of range (axes are 0 to {})", rank - 1)));
        }
        if std::mem::replace(&mut seen[axis], true) {
            return Err(fault(format!("axis {axis} appears twice")));
        }
    }
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| u64::try_from(n).is_ok_and(|n| n.checked_mul(8).is_some()))
        .ok_or_else(|| Error::ShapeOverflow { shape: format!("{dims:?}") })
}

/// The normal form of a checked, non-empty permutation ([`check`]).
pub fn fuse(dims: &[usize], perm: &[usize]) -> Fused {
    // Keep the axes of size > 1, renumbered in src order.
    let kept: Vec<usize> = (0..dims.len()).filter(|&a| dims[a] > 1).collect();
    let renumber = |a: usize| kept.iter().position(|&k| k == a);
    let order: Vec<usize> = perm.iter().filter_map(|&a| renumber(a)).collect();
    // Runs of dst's axes that are consecutive and ascending in src fuse into one.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &a in &order {
        match runs.last_mut() {
            Some(run) if *run.last().expect("runs are non-empty") + 1 == a => run.push(a),
            _ => runs.push(vec![a]),
        }
    }
    // Number the runs by their position in src.
    let mut by_src: Vec<usize> = (0..runs.len()).collect();
    by_src.sort_by_key(|&r| runs[r][0]);
    let sizes = by_src.iter().map(|&r| runs[r].iter().map(|&a| dims[kept[a]]).product()).collect();
    let mut perm = vec![0; runs.len()];
    for (position, &r) in by_src.iter().enumerate() {
        perm[r] = position;
    }
    Fused { sizes, perm }
}

/// What a planned permutation runs.
// A plan is made once per shape and kept: the tiled variant's 560 bytes of kernel parameters
// inline cost nothing a box would save.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// Nothing: the tensor is empty.
    Empty,
    /// Every element stays where it is (the identity, after dropping size-1 axes): one copy.
    Copy,
    /// A (batched) 2-D transpose of `width`-byte words, by the tuned transpose.
    Transpose {
        /// The transpose's shape.
        shape: Shape,
        /// The word moved: the element, or a run of elements that stays together.
        width: Width,
    },
    /// A (batched) 2-D transpose with a narrow side (2 to 63) and a long one whose rows span
    /// whole words of 16, 8, 4 or 2 bytes: whole rows of the narrow side per tile, those words on
    /// both sides (`permute_interleave_*`, `permute_deinterleave_*`).
    Skinny {
        /// The matrices (`first_tile` 0).
        params: Skinny,
        /// `src` is `narrow × long` (interleaving its rows into `dst`), else `long × narrow`.
        interleave: bool,
        /// The element.
        width: Width,
        /// Bytes of the words moved: 16, 8, 4 or 2.
        word: u32,
    },
    /// Tiles through shared memory, where the innermost axis moves (or stays as a run of 16
    /// bytes, moved as one word).
    Tiled {
        /// The tiles' addresses (`first_tile` 0), in words.
        params: Tiled,
        /// The kernel.
        tile: Tile,
        /// The word moved: `None` for 16-byte vectors, through the flat tile only
        /// (`permute_tiled_flat_v4`).
        width: Option<Width>,
    },
    /// A gather of rows, where the innermost axis stays.
    Rows {
        /// The rows' addresses (`first_block` 0), in words.
        params: Rows,
        /// The word: `None` for 16-byte vectors (`permute_rows_v4`).
        width: Option<Width>,
    },
}

/// The kernel of a [`Work::Tiled`] permutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    /// 16-byte vectors through the tuned transpose's square tile (`permute_tiled_*`), where
    /// both groups span whole vectors and at least the tile's side.
    Vectorized,
    /// 16-byte vectors realigned by a shuffle, through the unaligned transpose's tile of `tall
    /// × wide` elements (`permute_tiled_unaligned_*`, 2- and 4-byte words, tensors on 16
    /// bytes), where the vectorized tile does not apply and each group is one axis at least as
    /// long as the tile's side.
    Unaligned,
    /// One element per access through the flat tile (`permute_tiled_flat_*`, whose shape and
    /// pitch `params` holds): any other.
    Flat,
}

/// A permutation planned for an element width: reusable for any buffers of its shape
/// ([`crate::Gpu::permute_with_plan`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermutePlan {
    /// The sizes of `src`'s axes.
    pub dims: Vec<usize>,
    /// `dst`'s axis `j` is `src`'s axis `perm[j]`.
    pub perm: Vec<usize>,
    /// The element width planned for.
    pub width: Width,
    /// The alignment in bytes (1 to 16) both tensors' addresses were planned for: words wider
    /// than it are not formed, nor vectors read (see [`PermutePlan::for_alignment`]).
    pub alignment: u64,
    /// Elements of `src` (and `dst`).
    pub elements: usize,
    /// The normal form (empty for an empty tensor).
    pub fused: Fused,
    /// What runs.
    pub work: Work,
}

impl PermutePlan {
    /// Plans the permutation of `dims` by `perm` for elements of `width`, in tensors that start
    /// on 16 bytes (every allocation does; views that do not are planned again as
    /// [`PermutePlan::for_alignment`] says, by [`crate::Gpu::permute_with_plan`]).
    pub fn new(dims: &[usize], perm: &[usize], width: Width) -> Result<PermutePlan> {
        Self::for_alignment(dims, perm, width, 16)
    }

    /// Plans as [`PermutePlan::new`] for tensors whose addresses are multiples of `alignment`
    /// bytes (a power of two; 16 or more is 16; less than the element's width is the
    /// element's): a run that stays together moves as one wider word only where the word is
    /// no wider than the alignment, and 16-byte vectors (the tuned transpose, the vectorized
    /// tiles, row gathers by vectors) need 16.
    pub fn for_alignment(dims: &[usize], perm: &[usize], width: Width, alignment: u64) -> Result<PermutePlan> {
        let elements = check(dims, perm)?;
        let alignment = alignment.clamp(width.bytes() as u64, 16);
        let alignment = 1 << alignment.ilog2();
        let mut plan = PermutePlan {
            dims: dims.to_vec(),
            perm: perm.to_vec(),
            width,
            alignment,
            elements,
            fused: Fused { sizes: vec![], perm: vec![] },
            work: Work::Empty,
        };
        if elements == 0 {
            return Ok(plan);
        }
        plan.fused = fuse(dims, perm);
        plan.work = work(&plan.fused.sizes, &plan.fused.perm, width.bytes() as u64, alignment);
        Ok(plan)
    }

    /// The shape of `dst`: `dims[perm[j]]` for each axis `j`.
    pub fn dst_dims(&self) -> Vec<usize> {
        self.perm.iter().map(|&a| self.dims[a]).collect()
    }
}

impl fmt::Display for PermutePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} by {:?}: ", self.dims, self.perm)?;
        match &self.work {
            Work::Empty => write!(f, "empty"),
            Work::Copy => write!(f, "a copy"),
            Work::Transpose { shape, width } => write!(f, "a transpose of {shape} {}-byte words", width.bytes()),
            Work::Skinny { params, interleave, width, word } => {
                let (n, long) = (params.narrow, params.long);
                let (from, to) = if *interleave { ((n, long), (long, n)) } else { ((long, n), (n, long)) };
                write!(
                    f,
                    "{} skinny transposes of {}×{} to {}×{} {}-byte elements in {} tiles of {n} × {}, {word}-byte words",
                    params.matrices,
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    width.bytes(),
                    params.tiles(),
                    (1u64 << params.row_shift) * (*word / width.bytes() as u32) as u64
                )
            }
            Work::Tiled { params, tile, width } => write!(
                f,
                "{} rows × {} columns ({} batch indices) of {}-byte words in {} tiles of {}",
                params.rows.len,
                params.cols.len,
                params.batch.count,
                width.map_or(16, Width::bytes),
                params.tiles(),
                match tile {
                    Tile::Vectorized => {
                        let side = tuned::side(width.map_or(16, Width::bytes) as u32);
                        format!("{side} × {side}, 16-byte vectors")
                    }
                    Tile::Unaligned => {
                        let bytes = width.map_or(16, Width::bytes) as u32;
                        format!("{} × {}, 16-byte vectors realigned", unaligned::tall(bytes), unaligned::wide(bytes))
                    }
                    Tile::Flat => {
                        format!("{} × {}, one element per access", 1u32 << params.row_shift, 1u32 << params.col_shift)
                    }
                }
            ),
            Work::Rows { params, width } => write!(
                f,
                "a gather of {} rows of {} {}",
                params.outer.count,
                params.row_len,
                width.map_or("16-byte vectors".to_string(), |w| format!("{}-byte words", w.bytes()))
            ),
        }
    }
}

fn width_of(bytes: u64) -> Width {
    match bytes {
        1 => Width::B1,
        2 => Width::B2,
        4 => Width::B4,
        _ => Width::B8,
    }
}

/// Row-major strides of `sizes`.
fn strides(sizes: &[usize]) -> Vec<u64> {
    let mut s = vec![1u64; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * sizes[i + 1] as u64;
    }
    s
}

/// The work for a normal form of `bytes`-byte words in tensors aligned to `align` bytes.
fn work(sizes: &[usize], perm: &[usize], bytes: u64, align: u64) -> Work {
    let k = sizes.len();
    if k <= 1 {
        return Work::Copy;
    }
    if perm[k - 1] == k - 1 {
        // The innermost axis stays: a run of it is one wider word where that fits 8 bytes (the
        // rest, planned again, then moves its innermost axis: fusion left no two axes that stay
        // adjacent) or is one 16-byte vector (the flat tile of vectors), else a gather of rows.
        let run = bytes * sizes[k - 1] as u64;
        if matches!(run, 2 | 4 | 8) && run <= align {
            return work(&sizes[..k - 1], &perm[..k - 1], run, align);
        }
        if run == 16 && align >= 16 {
            // Rows of one vector gathered read half of each 32-byte sector they touch:
            // `(133, 357, 307, 4)` by `(2, 1, 0, 3)` in `f32` ran at 67% of the copy (H100).
            let (sizes, perm) = (&sizes[..k - 1], &perm[..k - 1]);
            return Work::Tiled { params: flat(sizes, perm, 16), tile: Tile::Flat, width: None };
        }
        return rows(sizes, perm, bytes, align);
    }
    let width = width_of(bytes);
    let side = tuned::side(bytes as u32) as usize;
    // A (batched) 2-D transpose whose sides both fill the tuned transpose's tiles is the tuned
    // transpose; narrower ones take the flat tiles, shaped to them.
    let (rows, cols) = (sizes[k - 2], sizes[k - 1]);
    if (k == 2 || (k == 3 && perm == [0, 2, 1])) && rows >= side && cols >= side && align >= 16 {
        let shape = if k == 2 { Shape::new(rows, cols) } else { Shape::batched(sizes[0], rows, cols) };
        return Work::Transpose { shape, width };
    }
    if let Some(skinny) = skinny(sizes, perm, bytes, align) {
        return skinny;
    }
    let v = tuned::vector(bytes as u32) as u64;
    let side = side as u64;
    let params = tiled(sizes, perm, side, side).with_divisors();
    let (r, c) = (params.rows.len, params.cols.len);
    if r.is_multiple_of(v) && c.is_multiple_of(v) && r >= side && c >= side && align >= 16 {
        return Work::Tiled { params, tile: Tile::Vectorized, width: Some(width) };
    }
    if matches!(bytes, 2 | 4) && align >= 16 {
        // The unaligned transpose's tile, where one axis a side fills it.
        let (tall, wide) = (unaligned::tall(bytes as u32) as u64, unaligned::wide(bytes as u32) as u64);
        let params = tiled(sizes, perm, tall, wide).with_divisors();
        let (rows, cols) = (params.rows, params.cols);
        if rows.dims == 1 && cols.dims == 1 && rows.len >= tall && cols.len >= wide {
            return Work::Tiled { params, tile: Tile::Unaligned, width: Some(width) };
        }
    }
    Work::Tiled { params: flat(sizes, perm, bytes), tile: Tile::Flat, width: Some(width) }
}

/// The skinny transpose of a normal form that is a (batched) 2-D transpose with one side of 2
/// to 63 and the other of whole words (16, 8, 4 or 2 bytes, the widest, no wider than the
/// tensors' alignment), with at least one word per thread of a tile: `None` for any other.
fn skinny(sizes: &[usize], perm: &[usize], bytes: u64, align: u64) -> Option<Work> {
    let k = sizes.len();
    if !((k == 2 && perm == [1, 0]) || (k == 3 && perm == [0, 2, 1])) {
        return None;
    }
    let (rows, cols) = (sizes[k - 2] as u64, sizes[k - 1] as u64);
    let interleave = rows <= cols;
    let (narrow, long) = if interleave { (rows, cols) } else { (cols, rows) };
    let word = SKINNY_WORDS
        .map(u64::from)
        .into_iter()
        .find(|&w| w >= bytes && w <= align && (long * bytes).is_multiple_of(w))?;
    let v = word / bytes;
    if narrow > SKINNY_MAX_NARROW || narrow * (long / v) < 256 {
        return None;
    }
    // Rows of as many words as fit the tile (a power of two), no more than a matrix's row
    // needs, and at least the 128 bytes the kernel's XOR spans.
    let slots = (256 * skinny_per_thread(word as u32)) as u64;
    let fit = 1u64 << (slots / narrow).ilog2();
    let vr = fit.min((long / v).next_power_of_two()).max(128 / word);
    let div = FastDiv::new(narrow as u32);
    let params = Skinny {
        narrow,
        long,
        tiles_per_matrix: long.div_ceil(vr * v),
        matrices: if k == 3 { sizes[0] as u64 } else { 1 },
        first_tile: 0,
        magic: div.magic,
        shift: div.shift,
        row_shift: vr.trailing_zeros(),
    };
    Some(Work::Skinny { params, interleave, width: width_of(bytes), word: word as u32 })
}

/// The side the groups of a flat tile grow to: past it, their width is the tile's to choose.
const FLAT_GROW: u64 = 64;

/// The flat kernel's tile for a normal form of `bytes`-byte elements: `256 · K` elements
/// ([`flat_per_thread`]): 64 rows of 64 columns, 128 of 32 for 8-byte elements, 32 of 32 for
/// 16-byte vectors, and
/// where a group is narrower than its side, that side cut to the group (rounded up to a
/// power of two) and the other lengthened to keep the elements; the other group then grows
/// to fill it (`(64, 64, 2, 2, 64, 64)` by `(0, 1, 4, 2, 5, 3)`: 2 rows, and columns of both
/// 64-element axes, 4096, where 64 would leave the tile 97% empty). Where both are narrower,
/// the tile is just both groups. Where the columns then fill less than 7/8 of the tiles across
/// them, they grow by their next axes until they span eight tiles, if that fills the tiles
/// better: `(4, 291, 33, 4, 367)` by `(1, 3, 2, 4, 0)` has 4 rows and 1468 columns, two tiles
/// of 1024 (72% filled); its columns grow to 48,444 (three axes), 48 tiles, 98.6% filled, and
/// run at 97% of the copy where they ran at 74% (`f32`, H100). The kernel's column table makes
/// a group of several axes cost once per block, not per element. The rows do not grow: rows
/// of several axes take a table and a barrier of their own, and `(133, 357, 307, 4)` by `(2,
/// 1, 0, 3)`, whose 133 rows fill two tiles of 128 52%, ran slower with them grown
/// (`docs/decisions.md`).
fn flat(sizes: &[usize], perm: &[usize], bytes: u64) -> Tiled {
    let slots = flat_slots(bytes) as u64;
    let (mut row_side, mut col_side) = (FLAT_GROW, FLAT_GROW);
    let params = tiled(sizes, perm, row_side, col_side);
    if params.rows.len < FLAT_GROW {
        col_side = slots / pow2(params.rows.len) as u64;
    } else if params.cols.len < FLAT_GROW {
        row_side = slots / pow2(params.cols.len) as u64;
    }
    let shaped = flat_shaped(tiled(sizes, perm, row_side, col_side), bytes);
    let filled = |p: &Tiled| {
        let used = (p.tiles_down << p.row_shift) * (p.tiles_across << p.col_shift);
        (p.rows.len * p.cols.len) as f64 / used as f64
    };
    let shift = shaped.col_shift;
    if (shaped.tiles_across << shift) * 7 <= shaped.cols.len * 8 {
        return shaped;
    }
    let regrown = flat_shaped(tiled(sizes, perm, row_side, col_side.max(8 << shift)), bytes);
    if filled(&regrown) > filled(&shaped) { regrown } else { shaped }
}

/// `params`' flat tile shape, pitch and tile counts for its groups (as [`flat`] describes).
fn flat_shaped(mut params: Tiled, bytes: u64) -> Tiled {
    let slots = flat_slots(bytes);
    let wide_default = if bytes >= 8 { 32 } else { 64 };
    let tall_default = slots / wide_default;
    let (r, c) = (params.rows.len, params.cols.len);
    let (tall, wide) = if r < tall_default as u64 {
        let tall = pow2(r);
        (tall, (slots / tall).min(pow2(c)))
    } else if c < wide_default as u64 {
        let wide = pow2(c);
        ((slots / wide).min(pow2(r)), wide)
    } else {
        (tall_default, wide_default)
    };
    params.row_shift = tall.trailing_zeros();
    params.col_shift = wide.trailing_zeros();
    params.pitch = flat_pitch(tall, wide, bytes as u32);
    params.tiles_down = r.div_ceil(tall as u64);
    params.tiles_across = c.div_ceil(wide as u64);
    params.with_divisors()
}

/// Elements a flat tile holds: 256 threads of `flat_per_thread` each.
fn flat_slots(bytes: u64) -> u32 {
    256 * flat_per_thread(bytes as u32)
}

/// `n` rounded up to a power of two, at most 2³¹.
fn pow2(n: u64) -> u32 {
    n.next_power_of_two().min(1 << 31) as u32
}

/// Grows a group from `axes` (in order) while it spans fewer than `side` elements, stays
/// under 2³¹ elements with more than one axis (the kernel decodes it in 32-bit arithmetic),
/// and holds at most [`MAX_GROUP`] axes; `stride` gives each axis's stride in the other tensor.
fn group(axes: impl Iterator<Item = usize>, sizes: &[usize], stride: &[u64], side: u64) -> (Group, Vec<usize>) {
    let mut g = Group::default();
    let mut members = Vec::new();
    for a in axes {
        let n = sizes[a] as u64;
        let fits = members.is_empty() || (g.len < side && members.len() < MAX_GROUP && g.len * n < 1 << 31);
        if !fits {
            break;
        }
        g.strides[members.len()] = stride[a];
        // Only the inner axes' sizes are read, and a group of several axes is under 2³¹.
        g.sizes[members.len()] = n.min(u32::MAX as u64) as u32;
        if n < 1 << 31 {
            let div = FastDiv::new(n as u32);
            (g.magic[members.len()], g.shift[members.len()]) = (div.magic, div.shift);
        }
        g.len = if members.is_empty() { n } else { g.len * n };
        members.push(a);
    }
    g.dims = members.len() as u32;
    (g, members)
}

/// The tiles of a normal form whose innermost axis moves, for tiles of `row_side` rows and
/// `col_side` columns (each group grows until it spans its side); the callers set the divisors
/// ([`Tiled::with_divisors`]) once the tile counts are final.
fn tiled(sizes: &[usize], perm: &[usize], row_side: u64, col_side: u64) -> Tiled {
    let k = sizes.len();
    let src_stride = strides(sizes);
    let dst_sizes: Vec<usize> = perm.iter().map(|&a| sizes[a]).collect();
    let dst_of_position = strides(&dst_sizes);
    let mut dst_stride = vec![0u64; k];
    for (j, &a) in perm.iter().enumerate() {
        dst_stride[a] = dst_of_position[j];
    }
    let b = perm[k - 1];
    // Columns: src's innermost axes, up to dst's innermost one.
    let (cols, col_axes) = group((0..k).rev().take_while(|&a| a != b), sizes, &dst_stride, col_side);
    // Rows: dst's innermost axes, up to one of the columns'.
    let (rows, row_axes) =
        group(perm.iter().rev().copied().take_while(|a| !col_axes.contains(a)), sizes, &src_stride, row_side);
    let mut batch = Batch { count: 1, ..Batch::default() };
    for &a in perm.iter().rev().filter(|a| !col_axes.contains(a) && !row_axes.contains(a)) {
        let i = batch.dims as usize;
        debug_assert!(i < MAX_BATCH, "two axes at least are in the groups");
        (batch.sizes[i], batch.src[i], batch.dst[i]) = (sizes[a] as u64, src_stride[a], dst_stride[a]);
        batch.count *= sizes[a] as u64;
        batch.dims += 1;
    }
    Tiled {
        rows,
        cols,
        batch,
        tiles_down: rows.len.div_ceil(row_side),
        tiles_across: cols.len.div_ceil(col_side),
        ..Tiled::default()
    }
}

/// The gather of rows of a normal form whose innermost axis stays, in the widest word that
/// divides a row: 16-byte vectors, else 8-, 4-, 2-byte words or the element.
fn rows(sizes: &[usize], perm: &[usize], bytes: u64, align: u64) -> Work {
    let k = sizes.len();
    let row_bytes = bytes * sizes[k - 1] as u64;
    let word =
        [16, 8, 4, 2].into_iter().find(|&w| w >= bytes && w <= align && row_bytes.is_multiple_of(w)).unwrap_or(bytes);
    let src_stride = strides(sizes);
    let mut outer = Batch { count: 1, ..Batch::default() };
    for &a in perm[..k - 1].iter().rev() {
        let i = outer.dims as usize;
        // Strides in words: every stride of an outer axis is a multiple of the row.
        (outer.sizes[i], outer.src[i]) = (sizes[a] as u64, src_stride[a] * bytes / word);
        outer.count *= sizes[a] as u64;
        outer.dims += 1;
    }
    let row_len = row_bytes / word;
    let chunk = ROWS_CHUNK_BYTES / word;
    let (rows_per_block, blocks_per_row) =
        if row_len <= chunk { ((chunk / row_len).min(ROWS_THREADS as u64), 1) } else { (1, row_len.div_ceil(chunk)) };
    let params = Rows { outer: outer.with_divisors(), row_len, rows_per_block, blocks_per_row, chunk, first_block: 0 };
    Work::Rows { params, width: (word <= 8).then(|| width_of(word)) }
}

#[cfg(test)]
mod tests;
