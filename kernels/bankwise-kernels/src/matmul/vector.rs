//! The 16-byte accesses of the vectorized rungs and after: [`VEC`] elements of a row as one
//! 16-byte word (`f32`) or two (`f64`), loaded and stored as `LDG.E.128`/`STG.E.128` in global
//! memory and `LDS.128`/`STS.128` in shared memory, and `C`'s results finished a vector at once.

use core::mem::transmute_copy;

use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared::SharedSlice;
use bankwise_layout::matmul::{VEC, at};

use super::{Gemm, Scalar};
use crate::Vector;

/// Whether every row of the matrix at `p` with leading dimension `ld` starts on 16 bytes, so
/// that [`VEC`] elements from a column that is a multiple of [`VEC`] are whole 16-byte vectors.
#[inline(always)]
pub(super) fn rows_aligned<T>(p: *const T, ld: u64) -> bool {
    p.addr().is_multiple_of(16) && (ld * size_of::<T>() as u64).is_multiple_of(16)
}

/// [`VEC`] elements from the 16-byte words that hold them: the first for `f32`, both for
/// `f64`. Each size is copied from a value of the same size, which LLVM keeps in registers.
///
/// # Safety
/// `T` is `f32` or `f64` (any bits are a value of either).
#[inline(always)]
unsafe fn from_words<T: Scalar>(w: [[u32; 4]; 2]) -> [T; 4] {
    // SAFETY: `T` is `f32` or `f64` (this function's contract), and the branch copies as many bytes
    // as `[T; 4]` has: `w[0]`'s 16 for `f32`, all 32 for `f64`; any bits are a value of either.
    if size_of::<T>() == 4 { unsafe { transmute_copy(&w[0]) } } else { unsafe { transmute_copy(&w) } }
}

/// The 16-byte words that hold [`VEC`] elements, as [`from_words`] takes them.
#[inline(always)]
fn to_words<T: Scalar>(v: [T; 4]) -> [[u32; 4]; 2] {
    // Safety: same sizes; `f32` and `f64` have no padding.
    if size_of::<T>() == 4 { [unsafe { transmute_copy(&v) }, [0; 4]] } else { unsafe { transmute_copy(&v) } }
}

/// Elements `(r, c .. c + VEC)` of the row-major `rows × cols` matrix at `p`, zero past its
/// edges: 16-byte loads (`LDG.E.128`, one for `f32`, two for `f64`) where `aligned`
/// ([`rows_aligned`]) and the vector is inside the matrix, scalar loads otherwise.
///
/// # Safety
/// `p` holds the matrix with leading dimension `ld`; `c` is a multiple of [`VEC`].
#[inline(always)]
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn load_vector<T: Scalar>(
    p: *const T,
    ld: u64,
    rows: u64,
    cols: u64,
    r: u64,
    c: u64,
    aligned: bool,
) -> [T; 4] {
    let mut v = [T::ZERO; VEC as usize];
    if r < rows {
        // SAFETY: `r < rows`: row `r` of the matrix, which `p` holds (this function's contract).
        let row = unsafe { p.add(at(r, 0, ld) as usize) };
        if aligned && c + VEC as u64 <= cols {
            // SAFETY: `c + VEC ≤ cols`: inside row `r`; where `aligned`, rows start on 16 bytes and
            // `c` is a multiple of `VEC` (this function's contract), so the vector is 16-byte
            // aligned.
            v = unsafe { read_global_vector(row.add(c as usize)) };
        } else {
            for (i, x) in v.iter_mut().enumerate() {
                let ci = c + i as u64;
                if ci < cols {
                    // SAFETY: `ci < cols`: inside row `r`.
                    *x = unsafe { global::read(row.add(ci as usize)) };
                }
            }
        }
    }
    v
}

/// The `VEC` elements at `p` as 16-byte global loads (`LDG.E.128`; two for `f64`).
///
/// # Safety
/// `p` is 16-byte aligned and holds `VEC` elements.
#[inline(always)]
#[track_caller]
pub(super) unsafe fn read_global_vector<T: Scalar>(p: *const T) -> [T; 4] {
    let words = p.cast::<[u32; 4]>();
    // SAFETY: `p` is 16-byte aligned and holds `VEC` elements (this function's contract): one
    // 16-byte word for `f32`, two for `f64`.
    let w = unsafe { [load_global_v4(words), if size_of::<T>() == 8 { load_global_v4(words.add(1)) } else { [0; 4] }] };
    // SAFETY: `Scalar` types are `f32` and `f64` (this crate's only implementations), as
    // `from_words` needs.
    unsafe { from_words(w) }
}

/// Elements `i .. i + VEC` of `s` as 16-byte shared loads (`LDS.128`; two for `f64`).
///
/// # Safety
/// `i` is a multiple of [`VEC`], the elements are inside `s`, and as [`SharedSlice::read`].
#[inline(always)]
#[track_caller]
pub(super) unsafe fn read_vector<T: Scalar>(s: SharedSlice<T>, i: u32) -> [T; 4] {
    // Each 16-byte word from an element handle (`Shared::cast`), so that the address is
    // element `i`'s and folds with the caller's constant offsets.
    // SAFETY: `i` (and, for `f64`, `i + 2`) is a multiple of `VEC` elements, 16 bytes, inside `s`
    // with the rest of its vector (this function's contract); the caller orders the read as
    // `SharedSlice::read` asks.
    let word = |j: u32| unsafe { s.at(j as usize).cast::<Vector>().read().0 };
    let w = [word(i), if size_of::<T>() == 8 { word(i + 2) } else { [0; 4] }];
    // SAFETY: `Scalar` types are `f32` and `f64` (this crate's only implementations), as
    // `from_words` needs.
    unsafe { from_words(w) }
}

/// Writes `v` to elements `i .. i + VEC` of `s` as 16-byte shared stores (`STS.128`).
///
/// # Safety
/// As [`read_vector`], with [`SharedSlice::write`].
#[inline(always)]
#[track_caller]
pub(super) unsafe fn write_vector<T: Scalar>(s: SharedSlice<T>, i: u32, v: [T; 4]) {
    let w = to_words(v);
    // SAFETY: as `read_vector`: elements `i .. i + VEC` inside `s`, 16-byte aligned, and a write
    // the caller orders as `SharedSlice::write` asks.
    unsafe { s.at(i as usize).cast::<Vector>().write(Vector(w[0])) };
    if size_of::<T>() == 8 {
        // SAFETY: the second 16 bytes of the same `f64` vector, inside `s`.
        unsafe { s.at(i as usize + 2).cast::<Vector>().write(Vector(w[1])) };
    }
}

/// Writes `VEC` elements to global memory at `p` as 16-byte stores (`STG.E.128`; two for
/// `f64`).
///
/// # Safety
/// `p` is 16-byte aligned and holds `VEC` elements.
#[inline(always)]
#[track_caller]
unsafe fn store_vector<T: Scalar>(p: *mut T, v: [T; 4]) {
    let words = p.cast::<[u32; 4]>();
    let w = to_words(v);
    // SAFETY: `p` is 16-byte aligned and holds `VEC` elements (this function's contract).
    unsafe { store_global_v4(words, w[0]) };
    if size_of::<T>() == 8 {
        // SAFETY: the second 16 bytes of the `f64` vector at `p`.
        unsafe { store_global_v4(words.add(1), w[1]) };
    }
}

/// [`Gemm::finish`] of `VEC` elements of a row of `C` at once, as 16-byte accesses.
///
/// # Safety
/// Elements `(r, c .. c + VEC)` are inside `C` and 16-byte aligned.
#[inline(always)]
pub(super) unsafe fn finish_vector<T: Scalar>(g: &Gemm<T>, r: u64, c: u64, dots: [T; 4]) {
    // SAFETY: elements `(r, c .. c + VEC)` are inside `C` (this function's contract).
    let at_c = unsafe { g.c.add(at(r, c, g.ldc) as usize) };
    let mut v = [T::ZERO; VEC as usize];
    if g.beta == T::ZERO {
        for q in 0..VEC as usize {
            v[q] = g.alpha * dots[q];
        }
    } else {
        // SAFETY: the vector at `at_c` is inside `C` and 16-byte aligned (this function's
        // contract); the thread that writes it is the one that reads it.
        let old = unsafe { read_global_vector(at_c.cast_const()) };
        for q in 0..VEC as usize {
            v[q] = g.beta.mul_add(old[q], g.alpha * dots[q]);
        }
    }
    // SAFETY: as the read: inside `C`, 16-byte aligned, and each element of `C` has one writing
    // thread.
    unsafe { store_vector(at_c, v) };
}
