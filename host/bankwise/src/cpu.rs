//! CPU reference implementations: what every kernel is checked against.

use crate::error::{Error, Result};
use crate::transpose::Shape;

pub use crate::reduce_axes::reference::{
    ArgOrder, arg_reduce_axes, reduce_axes, reduce_axes_widened, sum_axes_reference,
};

/// `dst[b][c][r] = src[b][r][c]`, in cache-sized blocks so that multi-gigabyte references
/// finish in seconds.
pub fn transpose<T: Copy>(src: &[T], shape: Shape) -> Result<Vec<T>> {
    let n = shape.elements()?;
    if src.len() != n {
        return Err(Error::LengthMismatch { buffer: "src", shape: shape.to_string(), expected: n, actual: src.len() });
    }
    const BLOCK: usize = 64;
    let (rows, cols) = (shape.rows, shape.cols);
    let mut dst = Vec::with_capacity(n);
    // Every element is written below before `dst` is read; initialise from `src` to stay safe.
    dst.extend_from_slice(src);
    for (s, d) in src.chunks_exact(rows * cols).zip(dst.chunks_exact_mut(rows * cols)) {
        for r0 in (0..rows).step_by(BLOCK) {
            for c0 in (0..cols).step_by(BLOCK) {
                for r in r0..(r0 + BLOCK).min(rows) {
                    for c in c0..(c0 + BLOCK).min(cols) {
                        d[c * rows + r] = s[r * cols + c];
                    }
                }
            }
        }
    }
    Ok(dst)
}

/// `src` (row-major, sizes `dims`) with its axes permuted: `dst`'s axis `j` is `src`'s axis
/// `perm[j]`. Written independently of the GPU's planning (no fusion, no tiles): `dst` in order,
/// each element read at its offset in `src` (`strided_walk`).
pub fn permute<T: Copy>(src: &[T], dims: &[usize], perm: &[usize]) -> Result<Vec<T>> {
    let n = crate::permute::plan::check(dims, perm)?;
    if src.len() != n {
        let shape = format!("{dims:?}");
        return Err(Error::LengthMismatch { buffer: "src", shape, expected: n, actual: src.len() });
    }
    let mut dst = Vec::with_capacity(n);
    if n == 0 {
        return Ok(dst);
    }
    let rank = dims.len();
    let mut stride = vec![1usize; rank];
    for a in (0..rank - 1).rev() {
        stride[a] = stride[a + 1] * dims[a + 1];
    }
    let sizes: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
    let steps: Vec<usize> = perm.iter().map(|&a| stride[a]).collect();
    dst.extend(strided_walk(sizes, steps).map(|at| src[at]));
    Ok(dst)
}

/// Row-major order over a tensor of `sizes`, as offsets `Σ index[d] · strides[d]`: an
/// odometer whose innermost coordinate moves on each step (carrying where it wraps). The walk
/// of the CPU references: `dst`'s elements in order with `src`'s strides ([`permute`]), or a
/// source's elements in order with its outputs' strides (the axis reductions).
pub(crate) fn strided_walk(sizes: Vec<usize>, strides: Vec<usize>) -> impl Iterator<Item = usize> {
    let n: usize = sizes.iter().product();
    let mut index = vec![0usize; sizes.len()];
    let mut at = 0usize;
    (0..n).map(move |i| {
        if i > 0 {
            for d in (0..sizes.len()).rev() {
                index[d] += 1;
                at += strides[d];
                if index[d] < sizes[d] {
                    break;
                }
                at -= strides[d] * sizes[d];
                index[d] = 0;
            }
        }
        at
    })
}

/// The index of the first element where `got` and `want` differ bit for bit (or `None`).
/// Compares bits, so `-0.0 ≠ 0.0` and a NaN equals the same NaN: a transpose or a copy moves
/// bits and must reproduce them exactly.
pub fn first_bit_difference<T: crate::Element>(got: &[T], want: &[T]) -> Option<usize> {
    let size = std::mem::size_of::<T>();
    // Safety: Element types are integers and floats: no padding, every byte initialised.
    let bytes = |s: &[T]| unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) };
    if got.len() != want.len() {
        return Some(got.len().min(want.len()));
    }
    let (g, w) = (bytes(got), bytes(want));
    // Compare in large chunks first: multi-gigabyte checks stay fast.
    const CHUNK: usize = 1 << 16;
    for (k, (gc, wc)) in g.chunks(CHUNK * size).zip(w.chunks(CHUNK * size)).enumerate() {
        if gc != wc {
            let i = gc.chunks(size).zip(wc.chunks(size)).position(|(a, b)| a != b).unwrap_or(0);
            return Some(k * CHUNK + i);
        }
    }
    None
}

/// The `O` reduction of `data`, folded left to right from the identity: the reference for
/// integers (wrapping sums are associative) and for min/max (exact, order-independent).
pub fn reduce<T: Copy, O: crate::reduce::Operation<T>>(data: &[T], _op: O) -> T {
    data.iter().fold(O::identity(), |a, &b| O::combine(a, b))
}

/// The float64 reference of a float sum: `(Σ x_i, Σ |x_i|)`, the first compensated (Neumaier),
/// so its own error is at most `2⁻⁵²·|Σ x_i| + n·2⁻¹⁰⁴·Σ|x_i|` (Higham §4.3): far below any
/// f32 or f64 tree's. NaN in, NaN out.
pub fn sum_reference<T: Copy + Into<f64>>(data: &[T]) -> (f64, f64) {
    let (mut sum, mut comp, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for &x in data {
        let x: f64 = x.into();
        let t = sum + x;
        comp += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
        abs += x.abs();
    }
    (sum + comp, abs)
}

/// `γ_k = k·u / (1 − k·u)` for unit roundoff `u` (`2⁻²⁴` for f32, `2⁻⁵³` for f64): a sum
/// whose every element passes through at most `k` roundings errs by at most `γ_k · Σ|x_i|`.
/// Infinite when `k·u ≥ 1` (no bound).
pub fn gamma(k: u64, u: f64) -> f64 {
    let ku = k as f64 * u;
    if ku >= 1.0 { f64::INFINITY } else { ku / (1.0 - ku) }
}

/// The largest error a float sum of `n` elements with absolute sum `abs` and reference `sum`
/// (from [`sum_reference`]) may show against that reference, if every element passes through
/// at most `depth` roundings of unit roundoff `u`: `γ_depth·abs` plus the reference's own bound.
pub fn sum_tolerance(depth: u64, u: f64, n: usize, sum: f64, abs: f64) -> f64 {
    gamma(depth, u) * abs + 2f64.powi(-52) * sum.abs() + n as f64 * 2f64.powi(-104) * abs
}

/// The float64 reference of `C = α·op(A)·op(B) + β·C` (`shape`'s leading dimensions, `op`s and
/// batch, `C` read only where `β ≠ 0`), and each element's error bound: `r` is the batch's
/// `m × n` results packed one after the other, and a result of
/// unit roundoff `u` passes if `|got − r| ≤ bound`, with
/// `bound = (γ_{k+2}(u) + γ_{k+2}(2⁻⁵³))·(|α|·Σ|A||B| + |β|·|C|)`: the dot product's `k`
/// roundings, α's and β's products and the final sum in the kernel's precision, and the same
/// count in the reference's float64 (Higham §3.1).
pub fn matmul<T: crate::matmul::Float>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &[T],
    shape: crate::matmul::MatmulShape,
) -> Result<(Vec<f64>, Vec<f64>)> {
    shape.check_buffers(a.len(), b.len(), c.len())?;
    let s = shape;
    let (alpha, beta): (f64, f64) = (alpha.into(), beta.into());
    let size = s.m * s.n;
    let (mut dot, mut abs) = (vec![0.0f64; s.batch * size], vec![0.0f64; s.batch * size]);
    let g = gamma(s.k as u64 + 2, T::UNIT_ROUNDOFF) + gamma(s.k as u64 + 2, 2f64.powi(-53));
    let transposed = |op| op == crate::matmul::Op::T;
    let (lda, ldb, ldc) = (s.lda(), s.ldb(), s.ldc());
    for z in 0..s.batch {
        let (a, b, c) = (&a[z * s.stride_a()..], &b[z * s.stride_b()..], &c[z * s.stride_c()..]);
        // Element (i, p) of op(A), (p, j) of op(B).
        let a_at = |i: usize, p: usize| if transposed(s.op_a) { p * lda + i } else { i * lda + p };
        let b_at = |p: usize, j: usize| if transposed(s.op_b) { j * ldb + p } else { p * ldb + j };
        let (dot, abs) = (&mut dot[z * size..][..size], &mut abs[z * size..][..size]);
        // i-p-j order: the inner loop runs along rows of the result (and of B as stored).
        for i in 0..s.m {
            let (row, row_abs) = (&mut dot[i * s.n..][..s.n], &mut abs[i * s.n..][..s.n]);
            for p in 0..s.k {
                let x: f64 = a[a_at(i, p)].into();
                for j in 0..s.n {
                    let y: f64 = b[b_at(p, j)].into();
                    row[j] += x * y;
                    row_abs[j] += (x * y).abs();
                }
            }
        }
        for i in 0..s.m {
            for j in 0..s.n {
                let at = i * s.n + j;
                let c_ij: f64 = if beta == 0.0 { 0.0 } else { c[i * ldc + j].into() };
                dot[at] = alpha * dot[at] + beta * c_ij;
                abs[at] = g * (alpha.abs() * abs[at] + beta.abs() * c_ij.abs());
            }
        }
    }
    Ok((dot, abs))
}
