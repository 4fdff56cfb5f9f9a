//! Reductions along axes of a row-major tensor: [`Gpu::reduce_axes`], the sum, minimum or
//! maximum over any set of axes (PyTorch's `x.sum(dim=…)`, `x.amin(dim=…)`).
//!
//! The plan ([`plan()`], pure, tested on the CPU) validates the shape and axes, drops size-1
//! dimensions and fuses adjacent reduced and adjacent kept ones, then picks:
//! - a *row* reduction where the innermost group is reduced: a warp (short rows) or a block
//!   per output, along contiguous memory with 16-byte loads on each row's aligned middle;
//! - a *column* reduction where the innermost group is kept: 32 threads along the contiguous
//!   kept dimension (coalesced), 8 along the reduced rows, their partials combined through
//!   shared memory without bank conflicts;
//! - where outputs are too few to fill the GPU, several workers per output writing partials,
//!   and a second (column) pass over them: deterministic, no atomics.
//!
//! Other reduced groups (axes {0, 2} of 4 dimensions) become *segments* of the reduced
//! extent, whose offsets the kernels decode in mixed radix (`docs/reductions.md`).
//!
//! Semantics are those of [`crate::reduce`]: integer sums wrap; float min/max propagate NaN
//! and order −0 < +0 (exact); a float sum errs by at most `γ_d · Σ|x_i|` per output, with `d`
//! the plan's [`AxesPlan::depth`] ([`crate::cpu::gamma`]). An empty reduced extent gives 0
//! for a sum and is [`crate::Error::EmptyReduction`] for min and max (unless there are no outputs).
//!
//! [`Gpu::arg_reduce_axes`] finds the position of the minimum or maximum ([`ArgMin`],
//! [`ArgMax`]) on the same plans, carrying `(key, position)` pairs.
//!
//! Half precision (`half::bf16`, `half::f16`) accumulates in `f32`, partials included, and
//! rounds to the half type once at the end: a sum errs by at most `γ_d(2⁻²⁴) · Σ|x_i|` plus
//! that rounding, `u · |result|` (`u` = 2⁻⁸ for bf16, 2⁻¹¹ for f16; 2⁻²⁵ absolute where an
//! f16 result is subnormal). Min and max are exact.

mod arg;
mod plan;
pub(crate) mod reference;
#[cfg(test)]
mod tests;

pub use arg::{ARG_PARTIAL_BYTES, ArgMax, ArgMin, ArgOperation, ArgScratch, arg_combine_entry, arg_entry, arg_plan};
pub use plan::{
    AxesKernel, AxesPass, AxesPlan, AxesSlot, AxesWork, COLUMN_CHUNK, Canonical, Group, MAX_RANK, MAX_SPLITS,
    SPLIT_MIN_EXTENT, canonical,
};

use bankwise_builtin::reduce_axes::{AxesLadder, AxesParams, DeviceBf16, DeviceF16, column_blocks_per_sm};
use bankwise_runtime::KernelEntry;

use crate::element::{Element, view, view_mut};
use crate::error::Result;
use crate::gpu::{DeviceBuffer, DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::reduce::{Max, Min, Operation, Reducible, Sum};
use crate::tuning::PlanTarget;

mod sealed {
    pub trait Sealed {}
}

/// An element type with axis reductions: the six [`Reducible`] types, each accumulating in
/// itself, and `half::bf16` and `half::f16`, accumulating in `f32` and rounded to the half
/// type once, at the end (PyTorch's `sum(dim=…)` on half tensors does the same). Sealed.
pub trait AxesElement: Element + sealed::Sealed {
    /// The kernels' type of the same bits (`Self`, or the kernels' `Bf16` and `F16`).
    type Device: 'static;
    /// The accumulator, and the type of a split plan's partials.
    type Acc: AxesElement<Device = Self::Acc, Acc = Self::Acc> + Reducible;
    /// The unit roundoff of the final rounding to `Self`: `None` where `Acc` is `Self` (no
    /// rounding besides the accumulation's); 2^-8 for `bf16`, 2^-11 for `f16`.
    const FINAL_ROUNDOFF: Option<f64>;
    /// The value as the accumulator (exact).
    fn widen(self) -> Self::Acc;
    /// The accumulator rounded to this type (to nearest, ties to even), as the kernels do.
    fn narrow(a: Self::Acc) -> Self;
}

macro_rules! axes_same {
    ($($t:ty),+) => {$(
        impl sealed::Sealed for $t {}
        impl AxesElement for $t {
            type Device = $t;
            type Acc = $t;
            const FINAL_ROUNDOFF: Option<f64> = None;
            fn widen(self) -> $t {
                self
            }
            fn narrow(a: $t) -> $t {
                a
            }
        }
    )+};
}
axes_same!(f32, f64, i32, u32, i64, u64);

macro_rules! axes_half {
    ($($t:ty => $device:ty, $u:expr);+) => {$(
        impl sealed::Sealed for $t {}
        impl AxesElement for $t {
            type Device = $device;
            type Acc = f32;
            const FINAL_ROUNDOFF: Option<f64> = Some($u);
            fn widen(self) -> f32 {
                self.to_f32()
            }
            fn narrow(a: f32) -> $t {
                <$t>::from_f32(a)
            }
        }
    )+};
}
axes_half!(half::bf16 => DeviceBf16, 1.0 / 256.0; half::f16 => DeviceF16, 1.0 / 2048.0);

/// An operation with axis-reduction kernels for `T`: [`Sum`], [`Min`] and [`Max`] of every
/// [`AxesElement`].
pub trait AxesOperation<T: AxesElement>: Copy {
    /// Its name in errors and reports (`"sum"`).
    const OP: &'static str;
    /// Its entries (`bankwise_builtin::reduce_axes::SumAxes` for [`Sum`]).
    type Axes: AxesLadder<T::Device, Acc = T::Acc>;
    /// What a reduction over no elements gives: the identity for a sum (0); `None` for min and
    /// max, for which it is [`crate::Error::EmptyReduction`].
    fn empty() -> Option<T>;
}

macro_rules! axes_ops {
    ($($t:ty),+) => {$(
        impl AxesOperation<$t> for Sum {
            const OP: &'static str = "sum";
            type Axes = bankwise_builtin::reduce_axes::SumAxes;
            fn empty() -> Option<$t> {
                Some(<$t>::narrow(<Sum as Operation<<$t as AxesElement>::Acc>>::identity()))
            }
        }
        impl AxesOperation<$t> for Min {
            const OP: &'static str = "min";
            type Axes = bankwise_builtin::reduce_axes::MinAxes;
            fn empty() -> Option<$t> {
                None
            }
        }
        impl AxesOperation<$t> for Max {
            const OP: &'static str = "max";
            type Axes = bankwise_builtin::reduce_axes::MaxAxes;
            fn empty() -> Option<$t> {
                None
            }
        }
    )+};
}
axes_ops!(f32, f64, i32, u32, i64, u64, half::bf16, half::f16);

/// The entry of `kernel` for `O` and `T`, `T` to `T` (a plan without a split).
pub fn entry<T: AxesElement, O: AxesOperation<T>>(kernel: AxesKernel) -> KernelEntry<AxesParams<T::Device>> {
    match kernel {
        AxesKernel::RowsWarp => O::Axes::ROWS_WARP,
        AxesKernel::RowsBlock => O::Axes::ROWS_BLOCK,
        AxesKernel::Columns => O::Axes::COLUMNS,
    }
}

/// The entry of `kernel` for the first pass of a split plan: `T` to partials.
fn split_entry<T: AxesElement, O: AxesOperation<T>>(kernel: AxesKernel) -> KernelEntry<AxesParams<T::Acc, T::Device>> {
    match kernel {
        AxesKernel::RowsWarp => O::Axes::SPLIT_ROWS_WARP,
        AxesKernel::RowsBlock => O::Axes::SPLIT_ROWS_BLOCK,
        AxesKernel::Columns => O::Axes::SPLIT_COLUMNS,
    }
}

/// The entry of `kernel` for the second pass of a split plan: partials to `T`.
fn combine_entry<T: AxesElement, O: AxesOperation<T>>(
    kernel: AxesKernel,
) -> KernelEntry<AxesParams<T::Device, T::Acc>> {
    match kernel {
        AxesKernel::RowsWarp => O::Axes::COMBINE_ROWS_WARP,
        AxesKernel::RowsBlock => O::Axes::COMBINE_ROWS_BLOCK,
        AxesKernel::Columns => O::Axes::COMBINE_COLUMNS,
    }
}

/// Validates the `O` reduction of a row-major `dims` tensor of `T` over `axes` (source of
/// `src_len`, destination of `dst_len` elements) and plans it for `target`. Errors: [`crate::Error::AxesRank`], [`crate::Error::AxisOutOfRange`],
/// [`crate::Error::AxisRepeated`], [`crate::Error::ShapeOverflow`], [`crate::Error::LengthMismatch`],
/// [`crate::Error::EmptyReduction`].
pub fn plan<T: AxesElement, O: AxesOperation<T>>(
    dims: &[usize],
    axes: &[usize],
    src_len: usize,
    dst_len: usize,
    target: PlanTarget<'_>,
) -> Result<AxesPlan> {
    plan::plan(dims, axes, src_len, dst_len, widths::<T>(), O::OP, O::empty().is_some(), target)
}

/// What [`plan::plan`] weighs of a reduction of `T`: the element's bytes, the accumulator's
/// (the partials') and the blocks an SM holds of its column kernel.
fn widths<T: AxesElement>() -> (usize, usize, u32) {
    (T::WIDTH.bytes(), T::Acc::WIDTH.bytes(), column_blocks_per_sm(T::WIDTH.bytes()))
}

/// Device memory an axis reduction needs besides its source and destination: the partials
/// `[splits][outputs]` of a plan that splits outputs among workers. Make one with
/// [`Gpu::reduce_axes_scratch`] and pass it to [`Gpu::reduce_axes_with_scratch`] as often as
/// wanted: an allocation per call (what [`Gpu::reduce_axes`] does where a plan splits) costs
/// more than a small reduction.
pub struct AxesScratch<T: AxesElement> {
    partials: DeviceBuffer<T::Acc>,
}

impl<T: AxesElement> AxesScratch<T> {
    /// Partials it holds.
    pub fn len(&self) -> usize {
        self.partials.len()
    }

    /// Whether it holds none (enough for every plan that does not split).
    pub fn is_empty(&self) -> bool {
        self.partials.is_empty()
    }
}

impl<T: AxesElement> std::fmt::Debug for AxesScratch<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AxesScratch<{}>[{}]", std::any::type_name::<T>(), self.partials.len())
    }
}

impl Gpu {
    /// Scratch for reductions of a `dims` tensor of `T` over `axes` on this GPU (the partials
    /// of its plan, none where the plan does not split; any operation). The same errors as
    /// [`Gpu::reduce_axes`]'s shape checks, except that an empty extent is not one here.
    pub fn reduce_axes_scratch<T: AxesElement>(&self, dims: &[usize], axes: &[usize]) -> Result<AxesScratch<T>> {
        let c = canonical(dims, axes)?;
        // A sum's plan: min and max split alike, and its empty extent is no error.
        let plan = plan::plan(dims, axes, c.elements, c.outputs, widths::<T>(), "sum", true, self.plan_target())?;
        Ok(AxesScratch { partials: self.partials::<T>(plan.scratch)? })
    }

    /// Queues the `op` reduction of `src` (any [`AxesElement`]), a row-major tensor of sizes `dims` (rank 1 to 8,
    /// any size 0 or more), over the axes `axes` (any subset, in any order, each once) into
    /// `dst`, which holds the kept dimensions' product of elements (1 where every axis is
    /// reduced), row-major in the kept dimensions' order. Nothing is waited for; scratch for
    /// partials, where the plan splits outputs, is allocated by the call
    /// ([`Gpu::reduce_axes_with_scratch`] reuses it).
    ///
    /// ```
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::reduce::{Max, Sum};
    /// let gpu = bankwise::Gpu::emulator()?; // or Gpu::new() on a GPU
    /// // A (2, 3, 4) tensor holding 0, 1, …, 23.
    /// let src = gpu.upload(&(0..24).map(|i| i as f32).collect::<Vec<_>>())?;
    /// // Over the middle axis: a (2, 4) result.
    /// let mut rows = gpu.alloc_zeros::<f32>(8)?;
    /// gpu.reduce_axes(Sum, &src, &[2, 3, 4], &[1], &mut rows)?;
    /// assert_eq!(gpu.download(&rows)?, [12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]);
    /// // Over the first and last: a (3,) result.
    /// let mut max = gpu.alloc_zeros::<f32>(3)?;
    /// gpu.reduce_axes(Max, &src, &[2, 3, 4], &[2, 0], &mut max)?;
    /// assert_eq!(gpu.download(&max)?, [15.0, 19.0, 23.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// Errors, before any launch: [`crate::Error::AxesRank`], [`crate::Error::AxisOutOfRange`],
    /// [`crate::Error::AxisRepeated`], [`crate::Error::ShapeOverflow`], [`crate::Error::LengthMismatch`] (`src` or
    /// `dst`), [`crate::Error::EmptyReduction`] (min or max over a 0-sized axis).
    pub fn reduce_axes<T: AxesElement, O: AxesOperation<T>>(
        &self,
        _op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        dims: &[usize],
        axes: &[usize],
        dst: &mut (impl DeviceWrite<T> + ?Sized),
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        let plan = plan::<T, O>(dims, axes, src.len(), dst.len(), self.plan_target())?;
        let mut scratch = AxesScratch::<T> { partials: self.partials::<T>(plan.scratch)? };
        self.run_axes::<T, O>(plan, src, dst, &mut scratch)
    }

    /// [`Gpu::reduce_axes`] with partials in `scratch` (from [`Gpu::reduce_axes_scratch`]
    /// for this shape and axes on this GPU, or any holding at least the plan's):
    /// [`crate::Error::ScratchTooSmall`] where it holds fewer. Nothing is allocated.
    pub fn reduce_axes_with_scratch<T: AxesElement, O: AxesOperation<T>>(
        &self,
        _op: O,
        src: &(impl DeviceRead<T> + ?Sized),
        dims: &[usize],
        axes: &[usize],
        dst: &mut (impl DeviceWrite<T> + ?Sized),
        scratch: &mut AxesScratch<T>,
    ) -> Result<()> {
        let (src, _reading) = self.read("src", src)?;
        let (dst, _writing) = self.write("dst", dst)?;
        let plan = plan::<T, O>(dims, axes, src.len(), dst.len(), self.plan_target())?;
        if plan.scratch > scratch.len() {
            return Err(crate::Error::ScratchTooSmall { needed: plan.scratch, actual: scratch.len() });
        }
        self.run_axes::<T, O>(plan, src, dst, scratch)
    }

    /// Uninitialised room for `len` partials (no fill: a split plan's first pass writes each
    /// partial its second pass reads, in the same call).
    fn partials<T: AxesElement>(&self, len: usize) -> Result<DeviceBuffer<T::Acc>> {
        // SAFETY: only `run_axes` reads the partials, each after the same call's first pass
        // wrote it (every `p · outputs + o` of the plan, once; `tests::interpret` checks it).
        Ok(unsafe { self.alloc_uninit(len) }?)
    }

    /// Queues `plan`'s work (checked against `src`, `dst` and `scratch` by the callers).
    fn run_axes<T: AxesElement, O: AxesOperation<T>>(
        &self,
        plan: AxesPlan,
        src: DeviceSlice<'_, T>,
        mut dst: DeviceSliceMut<'_, T>,
        scratch: &mut AxesScratch<T>,
    ) -> Result<()> {
        let passes = match plan.work {
            AxesWork::Nothing => return Ok(()),
            AxesWork::Identity => {
                let zero = O::empty().expect("the plan gives the identity only where the operation has one");
                return Ok(self.stream().upload_into_slice(&vec![zero; dst.len()], &mut dst)?);
            }
            AxesWork::Copy => return self.copy_slices(src, dst),
            AxesWork::Passes(passes) => passes,
        };
        let cast = "an element and its kernels' type have one size and alignment";
        let source = view::<T, T::Device>(src).expect(cast);
        let mut out = view_mut::<T, T::Device>(dst).expect(cast);
        let partials = &mut scratch.partials;
        for pass in passes {
            let (grid, block) = (pass.grid, pass.kernel.block());
            let layout = pass.layout;
            // SAFETY: `plan` sized every pass: the source holds the elements its layout names
            // (`src` checked against `dims`; the scratch holds at least `splits · outputs`
            // partials, checked by the callers), the output `splits · outputs` elements (`dst`
            // checked; scratch likewise), blocks and shared memory as the kernels expect
            // (declared by the entries). No pass reads what it writes. `T` and `T::Device` are
            // the same bits.
            unsafe {
                match (pass.input, pass.output) {
                    (AxesSlot::Source, AxesSlot::Dst) => {
                        let launch = Launch::new(entry::<T, O>(pass.kernel), grid, block);
                        self.launch(launch, (&mut out, &source, layout))?
                    }
                    (AxesSlot::Source, AxesSlot::Scratch) => {
                        let launch = Launch::new(split_entry::<T, O>(pass.kernel), grid, block);
                        self.launch(launch, (&mut *partials, &source, layout))?
                    }
                    (AxesSlot::Scratch, AxesSlot::Dst) => {
                        let launch = Launch::new(combine_entry::<T, O>(pass.kernel), grid, block);
                        self.launch(launch, (&mut out, &*partials, layout))?
                    }
                    (input, output) => unreachable!("an axes plan never routes {input:?} to {output:?}"),
                }
            }
        }
        Ok(())
    }
}
