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
        let row = unsafe { p.add(at(r, 0, ld) as usize) };
        if aligned && c + VEC as u64 <= cols {
            v = unsafe { read_global_vector(row.add(c as usize)) };
        } else {
            for (i, x) in v.iter_mut().enumerate() {
                let ci = c + i as u64;
                if ci < cols {
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
    let w = unsafe { [load_global_v4(words), if size_of::<T>() == 8 { load_global_v4(words.add(1)) } else { [0; 4] }] };
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
    let word = |j: u32| unsafe { s.at(j as usize).cast::<Vector>().read().0 };
    let w = [word(i), if size_of::<T>() == 8 { word(i + 2) } else { [0; 4] }];
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
    unsafe { s.at(i as usize).cast::<Vector>().write(Vector(w[0])) };
    if size_of::<T>() == 8 {
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
    unsafe { store_global_v4(words, w[0]) };
    if size_of::<T>() == 8 {
        unsafe { store_global_v4(words.add(1), w[1]) };
    }
}

/// [`Gemm::finish`] of `VEC` elements of a row of `C` at once, as 16-byte accesses.
///
/// # Safety
/// Elements `(r, c .. c + VEC)` are inside `C` and 16-byte aligned.
#[inline(always)]
pub(super) unsafe fn finish_vector<T: Scalar>(g: &Gemm<T>, r: u64, c: u64, dots: [T; 4]) {
    let at_c = unsafe { g.c.add(at(r, c, g.ldc) as usize) };
    let mut v = [T::ZERO; VEC as usize];
    if g.beta == T::ZERO {
        for q in 0..VEC as usize {
            v[q] = g.alpha * dots[q];
        }
    } else {
        let old = unsafe { read_global_vector(at_c.cast_const()) };
        for q in 0..VEC as usize {
            v[q] = g.beta.mul_add(old[q], g.alpha * dots[q]);
        }
    }
    unsafe { store_vector(at_c, v) };
}
