//! Checking a kernel's output against a reference: [`exact`] (bit for bit) and [`within`]
//! (per-element absolute bounds), each returning a [`Report`] of the mismatches.
//!
//! ```
//! use bankwise_runtime::verify;
//! let report = verify::within(&[1.0f32, 2.5, 3.0], &[1.0, 2.0, 3.0], |_| 0.1).unwrap();
//! assert_eq!(report.mismatches(), 1);
//! assert!(report.check().unwrap_err().to_string().contains("[1]: got 2.5, want 2.0, bound 0.1"));
//! ```

use std::fmt;

use crate::error::{Error, Result};

/// How many mismatches a [`Report`] lists (all are counted).
pub const LISTED: usize = 8;

/// Values [`exact`] compares bit for bit: integers by value, floats by their bits (so
/// `-0.0 ≠ 0.0` and a NaN equals a NaN of the same bits, as a copy or transpose must give).
pub trait Exact: Copy + fmt::Debug {
    /// Whether `self` and `other` have the same bits.
    fn same(&self, other: &Self) -> bool;
}

macro_rules! exact_eq {
    ($($t:ty),+) => {$(
        impl Exact for $t {
            fn same(&self, other: &Self) -> bool { self == other }
        }
    )+};
}
exact_eq!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize, bool, char);

impl Exact for f32 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Exact for f64 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Exact for half::f16 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Exact for half::bf16 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

/// One element that failed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mismatch<T> {
    /// Its index.
    pub index: usize,
    /// What the output holds.
    pub got: T,
    /// What the reference holds.
    pub want: T,
    /// The absolute bound it was held to ([`within`]; `None` for [`exact`]).
    pub bound: Option<f64>,
}

/// The outcome of a comparison: how many elements were compared, how many failed, and the
/// first [`LISTED`] failures.
#[derive(Clone, Debug, PartialEq)]
pub struct Report<T> {
    /// Elements compared.
    pub len: usize,
    mismatches: usize,
    first: Vec<Mismatch<T>>,
}

impl<T: fmt::Debug> Report<T> {
    fn new(len: usize) -> Self {
        Report { len, mismatches: 0, first: Vec::new() }
    }

    fn push(&mut self, m: Mismatch<T>) {
        self.mismatches += 1;
        if self.first.len() < LISTED {
            self.first.push(m);
        }
    }

    /// Whether every element passed.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    /// How many elements failed.
    pub fn mismatches(&self) -> usize {
        self.mismatches
    }

    /// The first failures (at most [`LISTED`]), by index.
    pub fn first(&self) -> &[Mismatch<T>] {
        &self.first
    }

    /// `Ok` if every element passed, else [`Error::VerifyFailed`] with this report's text.
    pub fn check(&self) -> Result<()> {
        if self.passed() { Ok(()) } else { Err(Error::VerifyFailed(self.to_string())) }
    }
}

impl<T: fmt::Debug> fmt::Display for Report<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed() {
            return write!(f, "all {} elements match", self.len);
        }
        write!(f, "{} of {} elements differ", self.mismatches, self.len)?;
        for m in &self.first {
            write!(f, "; [{}]: got {:?}, want {:?}", m.index, m.got, m.want)?;
            if let Some(b) = m.bound {
                write!(f, ", bound {b:?}")?;
            }
        }
        if self.mismatches > self.first.len() {
            write!(f, "; …")?;
        }
        Ok(())
    }
}

fn same_length(got: usize, want: usize) -> Result<()> {
    if got == want { Ok(()) } else { Err(Error::VerifyLength { got, want }) }
}

/// Compares `got` with `want` bit for bit ([`Exact`]). Different lengths are
/// [`Error::VerifyLength`]; mismatches are in the [`Report`].
pub fn exact<T: Exact>(got: &[T], want: &[T]) -> Result<Report<T>> {
    same_length(got.len(), want.len())?;
    let mut report = Report::new(got.len());
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        if !g.same(w) {
            report.push(Mismatch { index, got: *g, want: *w, bound: None });
        }
    }
    Ok(report)
}

/// Compares `got` with `want` to within an absolute bound per element: element `i` passes when
/// it equals the reference (infinities included) or `|got − want| ≤ bound(i)`. A NaN on either
/// side never passes (see [`within_nan_equal`]); nor does a NaN or negative bound.
/// `bound` can be a constant (`|_| 1e-6`), a slice of bounds (`|i| bounds[i]`), or computed
/// from the reference (`|i| 1e-6 * want[i].abs()`).
pub fn within<T: Copy + Into<f64> + fmt::Debug>(
    got: &[T],
    want: &[T],
    bound: impl Fn(usize) -> f64,
) -> Result<Report<T>> {
    compare_within(got, want, bound, false)
}

/// [`within`], except that an element passes where both sides are NaN (for outputs whose
/// reference legitimately holds NaN).
pub fn within_nan_equal<T: Copy + Into<f64> + fmt::Debug>(
    got: &[T],
    want: &[T],
    bound: impl Fn(usize) -> f64,
) -> Result<Report<T>> {
    compare_within(got, want, bound, true)
}

fn compare_within<T: Copy + Into<f64> + fmt::Debug>(
    got: &[T],
    want: &[T],
    bound: impl Fn(usize) -> f64,
    nan_equal: bool,
) -> Result<Report<T>> {
    same_length(got.len(), want.len())?;
    let mut report = Report::new(got.len());
    for (index, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (a, b) = (g.into(), w.into());
        let limit = bound(index);
        let pass = if a.is_nan() || b.is_nan() {
            nan_equal && a.is_nan() && b.is_nan()
        } else {
            a == b || (a - b).abs() <= limit
        };
        if !pass {
            report.push(Mismatch { index, got: g, want: w, bound: Some(limit) });
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_compares_bits() {
        assert!(exact(&[1u32, 2, 3], &[1, 2, 3]).unwrap().passed());
        let r = exact(&[0.0f32, f32::NAN, 1.0], &[-0.0, f32::NAN, 1.0]).unwrap();
        assert_eq!(r.mismatches(), 1);
        assert_eq!(r.first()[0].index, 0);
        assert!(exact(&[f64::NAN], &[f64::NAN]).unwrap().passed());
    }

    #[test]
    fn a_report_lists_the_first_mismatches_and_counts_all() {
        let want: Vec<u16> = (0..100).collect();
        let got: Vec<u16> = (0..100).map(|i| if i % 10 == 3 { i + 1 } else { i }).collect();
        let r = exact(&got, &want).unwrap();
        assert_eq!(r.mismatches(), 10);
        assert_eq!(r.first().len(), LISTED);
        assert_eq!(r.first()[1], Mismatch { index: 13, got: 14, want: 13, bound: None });
        let text = r.to_string();
        assert!(text.starts_with("10 of 100 elements differ; [3]: got 4, want 3; [13]: got 14"), "{text}");
        assert!(text.ends_with("; …"), "{text}");
        match r.check() {
            Err(Error::VerifyFailed(t)) => assert_eq!(t, text),
            other => panic!("{other:?}"),
        }
        assert_eq!(exact(&want, &want).unwrap().to_string(), "all 100 elements match");
    }

    #[test]
    fn a_length_mismatch_is_its_own_error() {
        assert!(matches!(exact(&[1u8, 2], &[1]), Err(Error::VerifyLength { got: 2, want: 1 })));
        assert!(matches!(within(&[1.0f32], &[1.0, 2.0], |_| 1.0), Err(Error::VerifyLength { got: 1, want: 2 })));
    }

    #[test]
    fn within_holds_each_element_to_its_bound() {
        let bounds = [0.5, 0.01, 0.0];
        let r = within(&[1.4f64, 2.02, 3.0], &[1.0, 2.0, 3.0], |i| bounds[i]).unwrap();
        assert_eq!(r.mismatches(), 1);
        assert_eq!(r.first()[0], Mismatch { index: 1, got: 2.02, want: 2.0, bound: Some(0.01) });
        // Equal infinities pass; an infinity against a finite value does not.
        assert!(within(&[f32::INFINITY], &[f32::INFINITY], |_| 0.0).unwrap().passed());
        assert!(!within(&[f32::INFINITY], &[1e30], |_| 1e300).unwrap().passed());
        // Integers convert to f64.
        assert!(within(&[10i32, 20], &[11, 19], |_| 1.0).unwrap().passed());
    }

    #[test]
    fn nan_never_passes_unless_allowed_on_both_sides() {
        let (nan, one) = (f32::NAN, 1.0f32);
        assert_eq!(within(&[nan, one, nan], &[nan, nan, one], |_| f64::INFINITY).unwrap().mismatches(), 3);
        let r = within_nan_equal(&[nan, one, nan], &[nan, nan, one], |_| f64::INFINITY).unwrap();
        assert_eq!(r.first().iter().map(|m| m.index).collect::<Vec<_>>(), [1, 2]);
        // A NaN bound fails every inexact element.
        assert_eq!(within(&[1.0f64, 2.0], &[1.0, 2.5], |_| f64::NAN).unwrap().mismatches(), 1);
    }
}
