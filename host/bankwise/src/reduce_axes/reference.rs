//! CPU references of the axis reductions (re-exported in [`crate::cpu`]).

use std::cmp::Ordering;

use super::AxesElement;
use super::arg::ArgOperation;
use super::plan::canonical;
use crate::error::{Error, Result};
use crate::reduce::Operation;

/// For each element of a row-major `dims` tensor, in order, the index of its output (the
/// row-major index over the dimensions not in `axes`), after the same checks as
/// [`crate::Gpu::reduce_axes`] (the source length against `dims`).
fn output_indices(dims: &[usize], axes: &[usize], src_len: usize) -> Result<(usize, impl Iterator<Item = usize>)> {
    let c = canonical(dims, axes)?;
    if src_len != c.elements {
        let shape = super::plan::list(dims);
        return Err(Error::LengthMismatch { buffer: "src", shape, expected: c.elements, actual: src_len });
    }
    // Each dimension's stride in the output (0 for a reduced one).
    let mut out_stride = vec![0usize; dims.len()];
    let mut stride = 1;
    for d in (0..dims.len()).rev() {
        if !axes.contains(&d) {
            out_stride[d] = stride;
            stride *= dims[d];
        }
    }
    let iter = crate::cpu::strided_walk(dims.to_vec(), out_stride);
    Ok((c.outputs, iter))
}

/// The `O` reduction of the row-major `dims` tensor `src` over `axes`, each output folded from
/// the identity in source order: the exact reference for integers (wrapping sums are
/// associative) and float min/max (order-independent). An empty extent gives the identity.
pub fn reduce_axes<T: Copy, O: Operation<T>>(src: &[T], dims: &[usize], axes: &[usize], _op: O) -> Result<Vec<T>> {
    let (outputs, indices) = output_indices(dims, axes, src.len())?;
    let mut out = vec![O::identity(); outputs];
    for (&x, o) in src.iter().zip(indices) {
        out[o] = O::combine(out[o], x);
    }
    Ok(out)
}

/// The `O` reduction of `src` as the kernels define it for an [`AxesElement`]: each element
/// widened to its accumulator (`f32` for `bf16` and `f16`), folded there from the identity in
/// source order ([`reduce_axes`]), each result rounded to `T` once. The exact reference for
/// min and max of half types.
pub fn reduce_axes_widened<T: AxesElement, O: Operation<T::Acc>>(
    src: &[T],
    dims: &[usize],
    axes: &[usize],
    op: O,
) -> Result<Vec<T>> {
    let wide: Vec<T::Acc> = src.iter().map(|&x| x.widen()).collect();
    Ok(reduce_axes(&wide, dims, axes, op)?.into_iter().map(T::narrow).collect())
}

/// The float64 reference of a float sum over `axes`: per output `(Σ x_i, Σ |x_i|)`, the first
/// compensated (Neumaier) as in [`crate::cpu::sum_reference`]. A result of the kernels with
/// rounding depth `d` (`AxesPlan::depth`) passes if it is within
/// `cpu::sum_tolerance(d, u, extent, sum, abs)` of `sum`.
pub fn sum_axes_reference<T: Copy + Into<f64>>(src: &[T], dims: &[usize], axes: &[usize]) -> Result<Vec<(f64, f64)>> {
    let (outputs, indices) = output_indices(dims, axes, src.len())?;
    let (mut sum, mut comp, mut abs) = (vec![0.0f64; outputs], vec![0.0f64; outputs], vec![0.0f64; outputs]);
    for (&x, o) in src.iter().zip(indices) {
        let x: f64 = x.into();
        let t = sum[o] + x;
        comp[o] += if sum[o].abs() >= x.abs() { (sum[o] - t) + x } else { (x - t) + sum[o] };
        sum[o] = t;
        abs[o] += x.abs();
    }
    Ok((0..outputs).map(|o| (sum[o] + comp[o], abs[o])).collect())
}

/// The order argmin and argmax rank elements by, for the CPU reference: floats as
/// `Min`/`Max` order them (−0 < +0), NaN apart; half types by their exact `f32` values.
pub trait ArgOrder: Copy {
    /// Whether it is a NaN (which beats every number for both argmin and argmax).
    fn is_nan(self) -> bool;
    /// The order of two non-NaN values.
    fn order(self, other: Self) -> Ordering;
}

macro_rules! arg_order_int {
    ($($t:ty),+) => {$(
        impl ArgOrder for $t {
            fn is_nan(self) -> bool {
                false
            }
            fn order(self, other: $t) -> Ordering {
                self.cmp(&other)
            }
        }
    )+};
}
arg_order_int!(i32, u32, i64, u64);

macro_rules! arg_order_float {
    ($($t:ty => |$x:ident| $wide:expr),+) => {$(
        impl ArgOrder for $t {
            fn is_nan(self) -> bool {
                let $x = self;
                $wide.is_nan()
            }
            fn order(self, other: $t) -> Ordering {
                // `total_cmp` orders −0 below +0; NaNs never reach it.
                let w = |$x: $t| $wide;
                w(self).total_cmp(&w(other))
            }
        }
    )+};
}
arg_order_float!(f32 => |x| x, f64 => |x| x, half::bf16 => |x| x.to_f32(), half::f16 => |x| x.to_f32());

/// Argmin or argmax (`O`) of the row-major `dims` tensor `src` over `axes`: per output, the
/// position of its first extreme (its first NaN, where it has one) within the reduced axes
/// flattened row-major, found by walking the source in order and keeping a candidate until a
/// strictly better element comes. Errors as [`crate::Gpu::arg_reduce_axes`]'s shape checks,
/// and [`Error::EmptyReduction`] for an empty extent with outputs.
pub fn arg_reduce_axes<T: AxesElement + ArgOrder, O: ArgOperation<T>>(
    src: &[T],
    dims: &[usize],
    axes: &[usize],
    _op: O,
) -> Result<Vec<u64>> {
    let (outputs, indices) = output_indices(dims, axes, src.len())?;
    let c = canonical(dims, axes)?;
    if c.extent == 0 && outputs > 0 {
        let list = super::plan::list;
        return Err(Error::EmptyReduction { op: O::OP, shape: list(dims), axes: list(axes), outputs });
    }
    // Each dimension's stride in the flattened reduced subspace (0 for a kept one).
    let mut position_stride = vec![0usize; dims.len()];
    let mut stride = 1;
    for d in (0..dims.len()).rev() {
        if axes.contains(&d) {
            position_stride[d] = stride;
            stride *= dims[d];
        }
    }
    let positions = crate::cpu::strided_walk(dims.to_vec(), position_stride);
    let mut best: Vec<Option<(T, usize)>> = vec![None; outputs];
    for ((&x, o), at) in src.iter().zip(indices).zip(positions) {
        let wins = match best[o] {
            None => true,
            Some((b, _)) if b.is_nan() => false,
            Some(_) if x.is_nan() => true,
            Some((b, _)) => x.order(b) == if O::LARGEST { Ordering::Greater } else { Ordering::Less },
        };
        if wins {
            best[o] = Some((x, at));
        }
    }
    Ok(best.into_iter().map(|b| b.map_or(0, |(_, at)| at as u64)).collect())
}
