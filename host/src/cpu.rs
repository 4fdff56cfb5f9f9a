//! CPU reference implementations: what every kernel is checked against.

use crate::error::{Error, Result};
use crate::transpose::Shape;

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
