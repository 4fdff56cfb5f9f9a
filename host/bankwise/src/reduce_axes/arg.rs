//! Argmin and argmax along axes: [`Gpu::arg_reduce_axes`], PyTorch's
//! `x.argmax(dim=…)` generalised to any set of axes, on the plans of [`Gpu::reduce_axes`].
//!
//! Each output is the position of its extreme within the reduced axes flattened row-major
//! (the reduced axes in increasing order), as `x.reshape(kept…, -1).argmax(-1)` gives, as a
//! `u64` (PyTorch's int64): the *first* occurrence of the extreme; floats ordered as
//! [`crate::reduce::Min`] and [`crate::reduce::Max`] order them (−0 < +0, exact), NaN
//! propagating, so the first NaN's position wins over every number; half types compared
//! exactly. The kernels carry `(key, position)` pairs through every path and combine them by
//! the larger key, then the smaller position: a total order, so results do not depend on the
//! order partials meet (`docs/reductions.md`).

use bankwise_builtin::reduce_axes::{
    ARG_COLUMN_BLOCKS_PER_SM, ARG_COMBINE_COLUMNS, ARG_COMBINE_ROWS_BLOCK, ARG_COMBINE_ROWS_WARP, ArgLadder,
    ArgMaxAxes, ArgMinAxes, ArgParams,
};
use bankwise_runtime::KernelEntry;

use super::AxesElement;
use super::plan::{self, AxesKernel, AxesPlan, AxesSlot, AxesWork, canonical};
use crate::element::view;
use crate::error::Result;
use crate::gpu::{DeviceBuffer, DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::tuning::PlanTarget;

/// Bytes of one partial of a split arg plan in scratch: a `u64` key and a `u64` position.
pub const ARG_PARTIAL_BYTES: usize = 16;

/// The position of the first smallest element along the reduced axes (of the first NaN, if
/// any): PyTorch's `argmin`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgMin;

/// The position of the first largest element along the reduced axes (of the first NaN, if
/// any): PyTorch's `argmax`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgMax;

/// [`ArgMin`] or [`ArgMax`], with kernels for every [`AxesElement`].
pub trait ArgOperation<T: AxesElement>: Copy {
    /// Its name in errors and reports (`"argmax"`).
    const OP: &'static str;
    /// Whether it finds the largest element (argmax) rather than the smallest.
    const LARGEST: bool;
    /// Its entries (`bankwise_builtin::reduce_axes::ArgMaxAxes` for [`ArgMax`]).
    type Ladder: ArgLadder<T::Device>;
}

macro_rules! arg_ops {
    ($($t:ty),+) => {$(
        impl ArgOperation<$t> for ArgMin {
            const OP: &'static str = "argmin";
            const LARGEST: bool = false;
            type Ladder = ArgMinAxes;
        }
        impl ArgOperation<$t> for ArgMax {
            const OP: &'static str = "argmax";
            const LARGEST: bool = true;
            type Ladder = ArgMaxAxes;
        }
    )+};
}
arg_ops!(f32, f64, i32, u32, i64, u64, half::bf16, half::f16);

/// The entry of `kernel` for `O` and `T` (first pass, or the only one).
pub fn arg_entry<T: AxesElement, O: ArgOperation<T>>(kernel: AxesKernel) -> KernelEntry<ArgParams<T::Device>> {
    match kernel {
        AxesKernel::RowsWarp => O::Ladder::ROWS_WARP,
        AxesKernel::RowsBlock => O::Ladder::ROWS_BLOCK,
        AxesKernel::Columns => O::Ladder::COLUMNS,
    }
}

/// The entry of `kernel` for a split plan's second pass (partials to positions; every type).
pub fn arg_combine_entry(kernel: AxesKernel) -> KernelEntry<ArgParams<u64>> {
    match kernel {
        AxesKernel::RowsWarp => ARG_COMBINE_ROWS_WARP,
        AxesKernel::RowsBlock => ARG_COMBINE_ROWS_BLOCK,
        AxesKernel::Columns => ARG_COMBINE_COLUMNS,
    }
}

/// Validates the `O` arg reduction of a row-major `dims` tensor of `T` over `axes` (source of
/// `src_len` elements, destination of `dst_len` positions) and plans it for `target`: the
/// plan of a min or max of `T` whose partials are 16-byte pairs. Errors as [`super::plan()`]'s.
pub fn arg_plan<T: AxesElement, O: ArgOperation<T>>(
    dims: &[usize],
    axes: &[usize],
    src_len: usize,
    dst_len: usize,
    target: PlanTarget<'_>,
) -> Result<AxesPlan> {
    plan::plan(dims, axes, src_len, dst_len, arg_widths::<T>(), O::OP, false, target)
}

/// What [`plan::plan`] weighs of an arg reduction of `T`: the element's bytes, the partials'
/// (16-byte pairs) and the blocks an SM holds of its column kernel.
fn arg_widths<T: AxesElement>() -> (usize, usize, u32) {
    (T::WIDTH.bytes(), ARG_PARTIAL_BYTES, ARG_COLUMN_BLOCKS_PER_SM)
}

/// Device memory an arg reduction needs besides its source and destination: a split plan's
/// `(key, position)` partials, 16 bytes each. Make one with [`Gpu::arg_reduce_axes_scratch`]
/// and pass it to [`Gpu::arg_reduce_axes_with_scratch`] as often as wanted.
pub struct ArgScratch {
    /// Two `u64`s per partial.
    words: DeviceBuffer<u64>,
}

impl ArgScratch {
    /// Partials it holds.
    pub fn len(&self) -> usize {
        self.words.len() / 2
    }

    /// Whether it holds none (enough for every plan that does not split).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

impl std::fmt::Debug for ArgScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArgScratch[{}]", self.len())
    }
}

impl Gpu {
    /// Scratch for argmin and argmax of a `dims` tensor of `T` over `axes` on this GPU (the
    /// partials of its plan; none where it does not split). The shape checks of
    /// [`Gpu::arg_reduce_axes`], except that an empty extent is not an error here.
    pub fn arg_reduce_axes_scratch<T: AxesElement>(&self, dims: &[usize], axes: &[usize]) -> Result<ArgScratch> {
        let c = canonical(dims, axes)?;
        let plan =
            plan::plan(dims, axes, c.elements, c.outputs, arg_widths::<T>(), "argmax", true, self.plan_target())?;
        self.arg_partials(plan.scratch)
    }

    /// Queues the position of the `op` ([`ArgMin`] or [`ArgMax`]) extreme of `src` (any
    /// [`AxesElement`], a row-major tensor of sizes `dims`, rank 1 to 8) over `axes` (any
    /// subset, any order, each once) into `dst`, one `u64` per output, row-major in the kept
    /// dimensions' order (1 output where every axis is reduced). A position counts within the
    /// reduced axes flattened row-major, increasing axis order; ties give the first; a NaN
    /// beats every number (the first NaN's position). Scratch, where the plan splits, is
    /// allocated by the call ([`Gpu::arg_reduce_axes_with_scratch`] reuses it).
    ///
    /// ```
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::reduce_axes::ArgMax;
    /// let gpu = bankwise::Gpu::emulator()?; // or Gpu::new() on a GPU
    /// // A (2, 3) tensor: [[1, 7, 7], [9, 0, 9]].
    /// let src = gpu.upload(&[1.0f32, 7.0, 7.0, 9.0, 0.0, 9.0])?;
    /// let mut rows = gpu.alloc_zeros::<u64>(2)?;
    /// gpu.arg_reduce_axes(ArgMax, &src, &[2, 3], &[1], &mut rows)?;
    /// assert_eq!(gpu.download(&rows)?, [1, 0]); // the first of equal maxima
    /// let mut all = gpu.alloc_zeros::<u64>(1)?;
    /// gpu.arg_reduce_axes(ArgMax, &src, &[2, 3], &[0, 1], &mut all)?;
    /// assert_eq!(gpu.download(&all)?, [3]);
    /// # Ok(()) }
    /// ```
    ///
    /// Errors, before any launch: those of [`Gpu::reduce_axes`] ([`crate::Error::LengthMismatch`]
    /// naming `dst` where it does not hold one position per output), and
    /// [`crate::Error::EmptyReduction`] over a 0-sized reduced axis with outputs.
    pub fn arg_reduce_axes<T: AxesElement, O: ArgOperation<T>>(
        &self,
        _op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        dims: &[usize],
        axes: &[usize],
        dst: &mut (impl DeviceWrite<u64> + ?Sized),
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        let plan = arg_plan::<T, O>(dims, axes, src.len(), dst.len(), self.plan_target())?;
        let mut scratch = self.arg_partials(plan.scratch)?;
        self.run_arg_axes::<T, O>(plan, src, dst, &mut scratch)
    }

    /// [`Gpu::arg_reduce_axes`] with partials in `scratch` (from
    /// [`Gpu::arg_reduce_axes_scratch`] for this shape and axes on this GPU, or any holding at
    /// least the plan's): [`crate::Error::ScratchTooSmall`] where it holds fewer. Nothing is
    /// allocated.
    pub fn arg_reduce_axes_with_scratch<T: AxesElement, O: ArgOperation<T>>(
        &self,
        _op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        dims: &[usize],
        axes: &[usize],
        dst: &mut (impl DeviceWrite<u64> + ?Sized),
        scratch: &mut ArgScratch,
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        let plan = arg_plan::<T, O>(dims, axes, src.len(), dst.len(), self.plan_target())?;
        if plan.scratch > scratch.len() {
            return Err(crate::Error::ScratchTooSmall { needed: plan.scratch, actual: scratch.len() });
        }
        self.run_arg_axes::<T, O>(plan, src, dst, scratch)
    }

    /// Uninitialised room for `len` partials.
    fn arg_partials(&self, len: usize) -> Result<ArgScratch> {
        // SAFETY: only `run_arg_axes` reads the partials, each after the same call's first pass
        // wrote it (every `p · outputs + o` of the plan, once; `tests::interpret` checks it).
        Ok(ArgScratch { words: unsafe { self.alloc_uninit(2 * len) }? })
    }

    /// Queues `plan`'s work (checked against `src`, `dst` and `scratch` by the callers).
    fn run_arg_axes<T: AxesElement, O: ArgOperation<T>>(
        &self,
        plan: AxesPlan,
        src: DeviceSlice<'_, T>,
        mut dst: DeviceSliceMut<'_, u64>,
        scratch: &mut ArgScratch,
    ) -> Result<()> {
        let passes = match plan.work {
            AxesWork::Nothing => return Ok(()),
            AxesWork::Identity => unreachable!("an arg plan has no identity: an empty extent is an error"),
            // Every reduced axis has size 1: each output's only element, position 0.
            AxesWork::Copy => return Ok(self.stream().upload_into_slice(&vec![0u64; dst.len()], &mut dst)?),
            AxesWork::Passes(passes) => passes,
        };
        let source = view::<T, T::Device>(src).expect("an element and its kernels' type have one size and alignment");
        let words = &mut scratch.words;
        for pass in passes {
            let (grid, block, layout) = (pass.grid, pass.kernel.block(), pass.layout);
            // SAFETY: `plan` sized every pass, as for `run_axes`: the source holds the elements
            // its layout names, the output `outputs` positions (`dst` checked) or, where the
            // pass splits, `splits · outputs` 16-byte partials (the scratch's `2 · len` words,
            // checked by the callers, 16-byte aligned as every allocation); the second pass
            // reads those partials. No pass reads what it writes.
            unsafe {
                match (pass.input, pass.output) {
                    (AxesSlot::Source, AxesSlot::Dst) => {
                        let launch = Launch::new(arg_entry::<T, O>(pass.kernel), grid, block);
                        self.launch(launch, (&mut dst, &source, layout))?
                    }
                    (AxesSlot::Source, AxesSlot::Scratch) => {
                        let launch = Launch::new(arg_entry::<T, O>(pass.kernel), grid, block);
                        self.launch(launch, (&mut *words, &source, layout))?
                    }
                    (AxesSlot::Scratch, AxesSlot::Dst) => {
                        let launch = Launch::new(arg_combine_entry(pass.kernel), grid, block);
                        self.launch(launch, (&mut dst, &*words, layout))?
                    }
                    (input, output) => unreachable!("an axes plan never routes {input:?} to {output:?}"),
                }
            }
        }
        Ok(())
    }
}
