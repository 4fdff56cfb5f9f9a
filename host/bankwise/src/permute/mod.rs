//! N-d permutations of row-major tensors: `dst` is `src` with its axes reordered, as
//! PyTorch's `x.permute(perm).contiguous()` and NumPy's `np.transpose(x, perm)` make it.
//!
//! A permutation is planned once ([`PermutePlan::new`], pure, no GPU) the way cuTT and HPTT
//! plan theirs: size-1 axes are dropped and axes that stay adjacent and in order are fused
//! ([`plan::fuse`]), so `(64, 64, 128, 128)` by `(0, 3, 1, 2)` is the batched transpose of
//! `(64, 8192, 128)`. Then one of these kinds of work ([`Work`]):
//!
//! - where the innermost axis moves, tiles through shared memory whose columns run along
//!   `src`'s innermost axes and rows along `dst`'s, so both sides are coalesced (a (batched)
//!   2-D case with both sides of 64 or more goes to the tuned transpose, the same tile with
//!   fixed strides): 16-byte vectors through the tuned transpose's square tile where both
//!   groups span whole vectors and its side; where they do not, 16-byte vectors realigned by
//!   a shuffle through the unaligned transpose's tile if each group is one axis that fills it
//!   (an odd 3-D reversal; 2- and 4-byte elements); else one element per access through a
//!   rectangular "flat" tile shaped to the groups (a narrow group cuts its side, the other
//!   grows to fill the tile). The tiles' shared memory is conflict-free for every width (the
//!   unaligned tile but for its rows' partial end chunks, read one element a lane): the
//!   vectorized tile is the tuned transpose's XOR swizzle at vector granularity (`STS.128`
//!   rows, a gather that puts a quarter-warp's eight 16-byte reads on distinct bank groups);
//!   the flat tile's pitch (`flat_pitch`) starts 32 consecutive rows on 32 banks (rows an odd
//!   number of words apart), or shifts short tiles' rows by the columns a warp reads, except
//!   that tiles under 32 columns wide take 2 wavefronts in their staging stores;
//! - where that is a (batched) 2-D transpose with one side of 2 to 63 and rows of the other a
//!   multiple of 2 bytes, a skinny transpose instead: tiles of all the narrow rows, whose
//!   segments in one tensor and interleaved span in the other both move in whole words of 16,
//!   8, 4 or 2 bytes (`permute_interleave_*`, `permute_deinterleave_*`);
//! - where it stays, a run of it that is 2, 4 or 8 bytes long moves as one wider element (and
//!   the rest is planned again); one of 16 bytes (four `f32`, eight `bf16`) as a 16-byte
//!   vector through the flat tile (`permute_tiled_flat_v4`: 16-byte accesses everywhere, a
//!   pitch that puts a quarter warp's eight rows on distinct bank groups), since a gather of
//!   one-vector rows reads half of each 32-byte sector it touches; and a longer one as a
//!   gather of rows, copied along both sides;
//! - the identity, a copy; an empty tensor, nothing.

pub mod plan;

pub use plan::{Fused, PermutePlan, Tile, Work};

use bankwise_builtin::PermuteWord;
use bankwise_builtin::permute::{ROWS_THREADS, SKINNY_WORDS};
use bankwise_layout::transpose::tuned;

use crate::element::{Element, Width, view, view_mut};
use crate::error::{Error, Result};
use crate::gpu::{DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::transpose::TransposeKernel;

impl Gpu {
    /// Permutes the axes of `src` (row-major, sizes `dims`) into `dst`: `dst`'s axis `j` is
    /// `src`'s axis `perm[j]`, so `dst` has sizes `dims[perm[j]]`. Ranks 1 to 8, any sizes
    /// (0 and 1 included), every [`Element`] type. Plans on each call; to plan once, see
    /// [`Gpu::permute_with_plan`].
    ///
    /// ```
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::Gpu;
    /// let gpu = Gpu::emulator()?; // or Gpu::new()? on a GPU
    /// let src: Vec<u32> = (0..2 * 3 * 4).collect(); // sizes (2, 3, 4)
    /// let src = gpu.upload(&src)?;
    /// let mut dst = gpu.alloc_zeros::<u32>(24)?;
    /// gpu.permute(&src, &mut dst, &[2, 3, 4], &[2, 0, 1])?; // sizes (4, 2, 3)
    /// let dst = gpu.download(&dst)?;
    /// assert_eq!(dst[..6], [0, 4, 8, 12, 16, 20]); // dst[0][a][b] = src[a][b][0]
    /// # Ok(()) }
    /// ```
    ///
    /// Errors: [`Error::RankOutOfRange`], [`Error::NotAPermutation`], [`Error::ShapeOverflow`],
    /// and [`Error::LengthMismatch`] where a buffer does not hold exactly the tensor.
    pub fn permute<T: Element>(
        &self,
        src: &(impl DeviceRead<T> + ?Sized),
        dst: &mut (impl DeviceWrite<T> + ?Sized),
        dims: &[usize],
        perm: &[usize],
    ) -> Result<()> {
        self.permute_with_plan(&PermutePlan::new(dims, perm, T::WIDTH)?, src, dst)
    }

    /// Runs a permutation planned by [`PermutePlan::new`] for `T`'s width.
    ///
    /// ```
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::{Element, Gpu, PermutePlan};
    /// let gpu = Gpu::emulator()?;
    /// let plan = PermutePlan::new(&[4, 1, 6], &[2, 1, 0], f32::WIDTH)?;
    /// println!("{plan}"); // [4, 1, 6] by [2, 1, 0]: a transpose of 4×6 4-byte words
    /// let src = gpu.upload(&[1.0f32; 24])?;
    /// let mut dst = gpu.alloc_zeros::<f32>(24)?;
    /// for _ in 0..3 {
    ///     gpu.permute_with_plan(&plan, &src, &mut dst)?;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// Errors: [`Error::PlanWidthMismatch`] where `T` is not the width planned for, and
    /// [`Error::LengthMismatch`] where a buffer does not hold exactly the tensor.
    pub fn permute_with_plan<T: Element>(
        &self,
        plan: &PermutePlan,
        src: &(impl DeviceRead<T> + ?Sized),
        dst: &mut (impl DeviceWrite<T> + ?Sized),
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        if plan.width != T::WIDTH {
            return Err(Error::PlanWidthMismatch { planned: plan.width.bytes(), given: T::WIDTH.bytes() });
        }
        for (buffer, actual) in [("src", src.len()), ("dst", dst.len())] {
            if actual != plan.elements {
                let shape = format!("{:?}", plan.dims);
                return Err(Error::LengthMismatch { buffer, shape, expected: plan.elements, actual });
            }
        }
        // Views of other libraries' memory may start off 16 bytes: plan again for them.
        let alignment = crate::element::address_alignment(&[src.device_ptr(), dst.device_ptr()]);
        let replanned;
        let plan = if alignment < plan.alignment {
            replanned = PermutePlan::for_alignment(&plan.dims, &plan.perm, plan.width, alignment)?;
            &replanned
        } else {
            plan
        };
        self.run_permute_plan(plan, src, dst)
    }

    /// Runs `plan` (checked: made for `T`'s width, these slices' lengths and alignment).
    pub(crate) fn run_permute_plan<T: Element>(
        &self,
        plan: &PermutePlan,
        src: DeviceSlice<'_, T>,
        dst: DeviceSliceMut<'_, T>,
    ) -> Result<()> {
        self.run_permute_plan_with(plan, src, dst, Offsets::Fitted)
    }

    /// [`Gpu::run_permute_plan`], with the tiles' offsets chosen by `offsets`.
    fn run_permute_plan_with<T: Element>(
        &self,
        plan: &PermutePlan,
        src: DeviceSlice<'_, T>,
        dst: DeviceSliceMut<'_, T>,
        offsets: Offsets,
    ) -> Result<()> {
        let (from, to) = (src, dst);
        match &plan.work {
            Work::Empty => Ok(()),
            Work::Copy => self.copy_slices(from, to),
            Work::Transpose { shape, width } => match width {
                Width::B1 => {
                    self.transpose_slices(TransposeKernel::Tuned, as_words::<T, u8>(from), as_words_mut(to), *shape)
                }
                Width::B2 => {
                    self.transpose_slices(TransposeKernel::Tuned, as_words::<T, u16>(from), as_words_mut(to), *shape)
                }
                Width::B4 => {
                    self.transpose_slices(TransposeKernel::Tuned, as_words::<T, u32>(from), as_words_mut(to), *shape)
                }
                Width::B8 => {
                    self.transpose_slices(TransposeKernel::Tuned, as_words::<T, u64>(from), as_words_mut(to), *shape)
                }
            },
            Work::Skinny { params, interleave, width, word } => {
                let kind = (*interleave, *word);
                match width {
                    Width::B1 => self.permute_skinny::<u8>(params, kind, as_words::<T, u8>(from), as_words_mut(to)),
                    Width::B2 => self.permute_skinny::<u16>(params, kind, as_words::<T, u16>(from), as_words_mut(to)),
                    Width::B4 => self.permute_skinny::<u32>(params, kind, as_words::<T, u32>(from), as_words_mut(to)),
                    Width::B8 => self.permute_skinny::<u64>(params, kind, as_words::<T, u64>(from), as_words_mut(to)),
                }
            }
            Work::Tiled { params, tile, width } => match width {
                Some(Width::B1) => {
                    self.permute_tiled::<u8>(params, (*tile, offsets), as_words::<T, u8>(from), as_words_mut(to))
                }
                Some(Width::B2) => {
                    self.permute_tiled::<u16>(params, (*tile, offsets), as_words::<T, u16>(from), as_words_mut(to))
                }
                Some(Width::B4) => {
                    self.permute_tiled::<u32>(params, (*tile, offsets), as_words::<T, u32>(from), as_words_mut(to))
                }
                Some(Width::B8) => {
                    self.permute_tiled::<u64>(params, (*tile, offsets), as_words::<T, u64>(from), as_words_mut(to))
                }
                None => {
                    self.permute_tiled_vectors(params, (*tile, offsets), as_words::<T, u32>(from), as_words_mut(to))
                }
            },
            Work::Rows { params, width } => match width {
                Some(Width::B1) => self.permute_rows(params, as_words::<T, u8>(from), as_words_mut(to), <u8>::ROWS),
                Some(Width::B2) => self.permute_rows(params, as_words::<T, u16>(from), as_words_mut(to), <u16>::ROWS),
                Some(Width::B4) => self.permute_rows(params, as_words::<T, u32>(from), as_words_mut(to), <u32>::ROWS),
                Some(Width::B8) => self.permute_rows(params, as_words::<T, u64>(from), as_words_mut(to), <u64>::ROWS),
                None => self.permute_rows(
                    params,
                    as_words::<T, u32>(from),
                    as_words_mut(to),
                    crate::builtin::permute::permute_rows_v4,
                ),
            },
        }
    }

    fn permute_tiled<W: PermuteWord + Element>(
        &self,
        params: &bankwise_builtin::permute::Tiled,
        (tile, offsets): (Tile, Offsets),
        src: DeviceSlice<'_, W>,
        dst: DeviceSliceMut<'_, W>,
    ) -> Result<()> {
        // 32-bit offsets where every one fits: fewer than 2³² elements.
        let small = src.len() < 1 << 32 && offsets == Offsets::Fitted;
        // The flat tiles' shared memory is their shape's, given at launch; the other entries
        // declare theirs.
        let (kernel, shared_bytes) = match tile {
            Tile::Vectorized => (W::TILED, 0),
            Tile::Unaligned => {
                let what = || format!("no unaligned tiles of {}-byte words", size_of::<W>());
                let [small_entry, large_entry] =
                    W::TILED_UNALIGNED.ok_or_else(|| Error::PermutePlanUnfit { what: what() })?;
                (if small { small_entry } else { large_entry }, 0)
            }
            Tile::Flat => {
                let kernel = if small { W::TILED_FLAT } else { W::TILED_FLAT_LARGE };
                (kernel, bankwise_builtin::permute::flat_shared_bytes(params, size_of::<W>() as u32, small))
            }
        };
        // Safety: the vectorized entries are planned only where both groups span whole vectors,
        // the unaligned ones only for groups of one axis, and the slices start where their
        // buffers do (16-byte aligned: the plan was made for their alignment).
        unsafe { self.launch_tiles(params, kernel, shared_bytes, src, dst) }
    }

    /// Launches `kernel` over `params`' tiles, in launches of at most [`plan::MAX_BLOCKS`]
    /// blocks of [`tuned::THREADS`] threads, each with `shared_bytes` of dynamic shared memory.
    ///
    /// # Safety
    /// `kernel` is the entry the plan chose for these tiles (its conditions on the groups and
    /// the slices' alignment hold) and `shared_bytes` what it needs for their shape.
    unsafe fn launch_tiles<W: Element>(
        &self,
        params: &bankwise_builtin::permute::Tiled,
        kernel: bankwise_runtime::KernelEntry<bankwise_builtin::permute::TiledParams<W>>,
        shared_bytes: u32,
        src: DeviceSlice<'_, W>,
        mut dst: DeviceSliceMut<'_, W>,
    ) -> Result<()> {
        in_launches(params.tiles(), |first, blocks| {
            let launch = Launch { shared_bytes, ..Launch::new(kernel, (blocks, 1, 1), (tuned::THREADS, 1, 1)) };
            let p = bankwise_builtin::permute::Tiled { first_tile: first, ..*params };
            // Safety: the plan's groups and batch span exactly the tensor in words of `W` (16-byte
            // vectors as four `u32`s), which both slices hold (checked against the plan's element
            // count); the launch takes tiles `first .. first + blocks` of them; the entry's own
            // conditions are this function's contract.
            unsafe { self.launch(launch, (dst.slice_mut(..)?, src, p)) }
        })
    }

    /// The flat tile of 16-byte vectors (a plan's `width: None`), the slices as `u32`s.
    fn permute_tiled_vectors(
        &self,
        params: &bankwise_builtin::permute::Tiled,
        (tile, offsets): (Tile, Offsets),
        src: DeviceSlice<'_, u32>,
        dst: DeviceSliceMut<'_, u32>,
    ) -> Result<()> {
        if tile != Tile::Flat {
            return Err(Error::PermutePlanUnfit { what: format!("no {tile:?} tiles of 16-byte vectors") });
        }
        // 32-bit offsets where every one fits: fewer than 2³² vectors.
        let small = src.len() / 4 < 1 << 32 && offsets == Offsets::Fitted;
        let kernel = if small {
            crate::builtin::permute::permute_tiled_flat_v4
        } else {
            crate::builtin::permute::permute_tiled_flat_large_v4
        };
        let shared_bytes = bankwise_builtin::permute::flat_shared_bytes(params, 16, small);
        // Safety: the shared memory is the flat tile's for this shape, and the slices start
        // where their buffers do, 16-byte aligned (vectors are planned only for that alignment).
        unsafe { self.launch_tiles(params, kernel, shared_bytes, src, dst) }
    }

    fn permute_skinny<W: PermuteWord + Element>(
        &self,
        params: &bankwise_builtin::permute::Skinny,
        (interleave, word): (bool, u32),
        src: DeviceSlice<'_, W>,
        mut dst: DeviceSliceMut<'_, W>,
    ) -> Result<()> {
        let entries = if interleave { W::INTERLEAVE } else { W::DEINTERLEAVE };
        let kernel = SKINNY_WORDS.iter().position(|&w| w == word).and_then(|i| entries[i]).ok_or_else(|| {
            Error::PermutePlanUnfit {
                what: format!("no skinny transpose of {}-byte elements in {word}-byte words", size_of::<W>()),
            }
        })?;
        let shared_bytes = ((word as u64 * params.narrow) << params.row_shift) as u32;
        in_launches(params.tiles(), |first, blocks| {
            let launch = Launch { shared_bytes, ..Launch::new(kernel, (blocks, 1, 1), (tuned::THREADS, 1, 1)) };
            let p = bankwise_builtin::permute::Skinny { first_tile: first, ..*params };
            // Safety: the plan's matrices span exactly the tensor, which both slices hold (checked
            // against the plan's element count); its long side spans whole words and its narrow
            // side and rows are within the kernel's limits (`plan::skinny`); the launch takes tiles
            // `first .. first + blocks` with the shared memory they need; the slices start where
            // their buffers do, aligned to the word (the plan was made for their alignment).
            unsafe { self.launch(launch, (dst.slice_mut(..)?, src, p)) }
        })
    }

    fn permute_rows<W: Element>(
        &self,
        params: &bankwise_builtin::permute::Rows,
        src: DeviceSlice<'_, W>,
        mut dst: DeviceSliceMut<'_, W>,
        kernel: bankwise_runtime::KernelEntry<bankwise_builtin::permute::RowsParams<W>>,
    ) -> Result<()> {
        in_launches(params.blocks(), |first, count| {
            let launch = Launch::new(kernel, (count, 1, 1), (ROWS_THREADS, 1, 1));
            let p = bankwise_builtin::permute::Rows { first_block: first, ..*params };
            // Safety: the plan's rows span exactly the tensor, which both slices hold, in words
            // of `W` (16-byte vectors counted as four `u32`s, the plan's row length in vectors);
            // the launch takes blocks `first .. first + count`; the slices start where their
            // buffers do, aligned for every word.
            unsafe { self.launch(launch, (dst.slice_mut(..)?, src, p)) }
        })
    }
}

/// Which offsets the tiled entries take: 32-bit ones where they fit (the `_large_` entries
/// past 2³² words), or 64-bit ones always, so that the `_large_` entries, which no tensor that
/// fits one GPU's memory reaches in 16-byte words, run in tests on small tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Offsets {
    Fitted,
    #[cfg_attr(not(test), allow(dead_code))]
    Wide,
}

/// Runs `launch(first, count)` over `blocks` blocks in launches of at most
/// [`plan::MAX_BLOCKS`] (the grid's x limit), block `first` of the work being each launch's
/// block 0.
fn in_launches(blocks: u64, mut launch: impl FnMut(u64, u32) -> Result<()>) -> Result<()> {
    let mut first = 0;
    while first < blocks {
        let count = (blocks - first).min(plan::MAX_BLOCKS);
        launch(first, count as u32)?;
        first += count;
    }
    Ok(())
}

/// `src` as words of `U`: the plan's word for this permutation, which divides the tensor's
/// bytes (a run of whole elements), from a buffer's start (aligned for any word).
fn as_words<T: Element, U>(src: DeviceSlice<'_, T>) -> DeviceSlice<'_, U> {
    view(src).expect("the plan's word divides the tensor and the buffer is aligned")
}

/// [`as_words`], for the slice a kernel writes.
fn as_words_mut<T: Element, U>(dst: DeviceSliceMut<'_, T>) -> DeviceSliceMut<'_, U> {
    view_mut(dst).expect("the plan's word divides the tensor and the buffer is aligned")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu;

    /// The tiles' `_large_` entries (64-bit offsets), forced on small tensors on the emulator:
    /// the flat tile in every width and in 16-byte vectors, and the unaligned tile, bit for bit
    /// against `cpu::permute`.
    #[test]
    fn large_tile_entries_permute_small_tensors_on_the_emulator() {
        fn one<T: Element + PartialEq + std::fmt::Debug>(dims: &[usize], perm: &[usize], values: fn(usize) -> T) {
            let gpu = Gpu::emulator().unwrap();
            let n: usize = dims.iter().product();
            let host: Vec<T> = (0..n).map(values).collect();
            let plan = PermutePlan::new(dims, perm, T::WIDTH).unwrap();
            assert!(matches!(plan.work, Work::Tiled { .. }), "{plan}");
            let src = gpu.upload(&host).unwrap();
            let mut dst = gpu.alloc_zeros::<T>(n).unwrap();
            gpu.run_permute_plan_with(&plan, src.slice(..).unwrap(), dst.slice_mut(..).unwrap(), Offsets::Wide)
                .unwrap();
            assert_eq!(gpu.download(&dst).unwrap(), cpu::permute(&host, dims, perm).unwrap(), "{plan}");
        }
        // The flat tile of vectors, 32 × 32 and 4 rows tall; of single elements, with tables.
        one::<f32>(&[37, 5, 41, 4], &[2, 1, 0, 3], |i| i as f32);
        one::<u8>(&[9, 70, 16], &[1, 0, 2], |i| (i * 7) as u8);
        one::<u16>(&[3, 5, 7, 11], &[3, 1, 2, 0], |i| i as u16);
        one::<f64>(&[5, 7, 3, 9], &[2, 0, 3, 1], |i| i as f64);
        // The unaligned tile.
        one::<f32>(&[131, 3, 131], &[2, 1, 0], |i| i as f32);
    }
}
