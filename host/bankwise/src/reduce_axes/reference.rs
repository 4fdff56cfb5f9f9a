//! CPU references of the axis reductions (re-exported in [`crate::cpu`]).

use super::AxesElement;
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
