//! [`MatmulShape`]: the dimensions, leading dimensions, `op`s and batch of a product, its
//! builders, and its validation against the buffers.

use std::fmt;

use super::Op;
use crate::error::{Error, Result};

/// The dimensions of `C = α·op(A)·op(B) + β·C`, the three leading dimensions, the `op`s and
/// the batch.
///
/// The builders ([`with_leading_dimensions`](Self::with_leading_dimensions),
/// [`with_ops`](Self::with_ops), [`batched`](Self::batched),
/// [`batched_packed`](Self::batched_packed)) each set their own part and nothing else, so
/// they give the same shape in any order. What the caller did not set is derived when read
/// ([`lda`](Self::lda) …, [`stride_a`](Self::stride_a) …, [`check_buffers`](Self::check_buffers)):
/// the leading dimensions of packed matrices for the dimensions and `op`s, and the strides of
/// packed batches for the leading dimensions. Equality compares what was set: a shape with
/// leading dimensions set to the packed ones is not equal to one without them (the first keeps
/// them when its `op`s change, the second follows the `op`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatmulShape {
    /// Rows of `op(A)` and `C`.
    pub m: usize,
    /// Columns of `op(B)` and `C`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// Whether `A` is used as stored or transposed.
    pub op_a: Op,
    /// Whether `B` is used as stored or transposed.
    pub op_b: Op,
    /// Products in the batch (1: one product).
    pub batch: usize,
    /// `lda`, `ldb`, `ldc` as set; `None`: those of packed matrices.
    leading: Option<[usize; 3]>,
    /// `stride_a`, `stride_b`, `stride_c` as set; `None`: those of packed batches.
    strides: Option<[usize; 3]>,
}

/// One stored matrix of a [`MatmulShape`]: its name, stored rows, stored row length, leading
/// dimension and batch stride.
#[derive(Clone, Copy)]
pub(super) struct Stored {
    pub(super) name: &'static str,
    pub(super) rows: usize,
    pub(super) row_len: usize,
    pub(super) ld: usize,
    pub(super) stride: usize,
}

impl MatmulShape {
    /// One product of packed matrices as stored: leading dimensions `k`, `n`, `n` until the
    /// builders set other `op`s or leading dimensions.
    pub const fn new(m: usize, n: usize, k: usize) -> Self {
        MatmulShape { m, n, k, op_a: Op::N, op_b: Op::N, batch: 1, leading: None, strides: None }
    }

    /// The same shape with these leading dimensions, whatever the `op`s (set before or after).
    pub const fn with_leading_dimensions(self, lda: usize, ldb: usize, ldc: usize) -> Self {
        MatmulShape { leading: Some([lda, ldb, ldc]), ..self }
    }

    /// The same shape with these `op`s. Leading dimensions set with
    /// [`with_leading_dimensions`](Self::with_leading_dimensions) stay; where none were set,
    /// those of packed matrices stored this way follow (`A` `k × m`, `lda = m`, where `op_a`
    /// is [`Op::T`]).
    pub const fn with_ops(self, op_a: Op, op_b: Op) -> Self {
        MatmulShape { op_a, op_b, ..self }
    }

    /// A batch of `batch` products, each matrix these strides (in elements) after the one
    /// before.
    pub const fn batched(self, batch: usize, stride_a: usize, stride_b: usize, stride_c: usize) -> Self {
        MatmulShape { batch, strides: Some([stride_a, stride_b, stride_c]), ..self }
    }

    /// A batch of `batch` products of packed matrices, each right after the one before:
    /// strides of one stored matrix each, with the shape's leading dimensions and `op`s
    /// whenever they are set.
    pub const fn batched_packed(self, batch: usize) -> Self {
        MatmulShape { batch, strides: None, ..self }
    }

    /// `A`'s leading dimension (≥ its stored row's length: `k`, or `m` for [`Op::T`]).
    pub fn lda(self) -> usize {
        self.stored()[0].ld
    }

    /// `B`'s leading dimension (≥ `n`, or `k` for [`Op::T`]).
    pub fn ldb(self) -> usize {
        self.stored()[1].ld
    }

    /// `C`'s leading dimension (≥ `n`).
    pub fn ldc(self) -> usize {
        self.stored()[2].ld
    }

    /// Elements between the `A`s of the batch (0 for one `A` shared by every product).
    pub fn stride_a(self) -> usize {
        self.stored()[0].stride
    }

    /// Elements between the `B`s of the batch (0 for one shared `B`).
    pub fn stride_b(self) -> usize {
        self.stored()[1].stride
    }

    /// Elements between the `C`s of the batch; they must not overlap.
    pub fn stride_c(self) -> usize {
        self.stored()[2].stride
    }

    /// Floating-point operations, `2·m·n·k` per product, as FLOP/s figures count them.
    pub fn flops(self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.batch as f64
    }

    /// Whether this is one product of matrices as stored, what every rung computes.
    pub fn is_plain(self) -> bool {
        self.op_a == Op::N && self.op_b == Op::N && self.batch == 1
    }

    /// `A`, `B`, `C` as stored: the leading dimensions and strides set, or derived.
    pub(super) fn stored(self) -> [Stored; 3] {
        let (a_rows, a_len) = if self.op_a == Op::N { (self.m, self.k) } else { (self.k, self.m) };
        let (b_rows, b_len) = if self.op_b == Op::N { (self.k, self.n) } else { (self.n, self.k) };
        let dims = [("A", a_rows, a_len), ("B", b_rows, b_len), ("C", self.m, self.n)];
        [0, 1, 2].map(|i| {
            let (name, rows, row_len) = dims[i];
            let ld = self.leading.map_or(row_len, |l| l[i]);
            let packed = rows.saturating_sub(1).saturating_mul(ld).saturating_add(row_len);
            let stride = self.strides.map_or(packed, |s| s[i]);
            Stored { name, rows, row_len, ld, stride }
        })
    }

    /// The same matrices with every leading dimension and stride set explicitly, so that
    /// changing a dimension (a strip's `n`) keeps the memory layout.
    fn resolved(self) -> MatmulShape {
        let [a, b, c] = self.stored();
        MatmulShape { leading: Some([a.ld, b.ld, c.ld]), strides: Some([a.stride, b.stride, c.stride]), ..self }
    }

    /// The first `n` columns of `op(B)` and `C` (or, for a view whose operands start further
    /// in, the columns after them), in the same memory layout.
    pub(super) fn with_columns(self, n: usize) -> MatmulShape {
        MatmulShape { n, ..self.resolved() }
    }

    /// The same layout with `A` and `B` read through these leading dimensions (copies of them).
    pub(super) fn with_operand_leading_dimensions(self, lda: usize, ldb: usize) -> MatmulShape {
        let s = self.resolved();
        MatmulShape { leading: Some([lda, ldb, s.ldc()]), ..s }
    }

    /// Checks the dimensions, the leading dimensions, the strides, and that each buffer holds
    /// its matrices.
    pub fn check_buffers(self, a_len: usize, b_len: usize, c_len: usize) -> Result<()> {
        for (what, n) in [("m", self.m), ("n", self.n), ("k", self.k), ("batch", self.batch)] {
            if n == 0 {
                return Err(Error::ZeroDimension { what });
            }
        }
        for (s, actual) in self.stored().into_iter().zip([a_len, b_len, c_len]) {
            if s.ld < s.row_len {
                return Err(Error::LeadingDimension { matrix: s.name, ld: s.ld, row_len: s.row_len });
            }
            // Addresses are computed in 64 bits on the GPU, in bytes up to 8 per element.
            let fits = |x: usize| u64::try_from(x).is_ok_and(|x| x.checked_mul(8).is_some());
            let overflow = || Error::ShapeOverflow { shape: self.to_string() };
            let one = (s.rows - 1)
                .checked_mul(s.ld)
                .and_then(|x| x.checked_add(s.row_len))
                .filter(|&x| fits(x))
                .ok_or_else(overflow)?;
            if self.batch == 1 && actual < one {
                let (matrix, rows, row_len, ld) = (s.name, s.rows, s.row_len, s.ld);
                return Err(Error::MatrixTooShort { matrix, rows, row_len, ld, expected: one, actual });
            }
            let all = (self.batch - 1)
                .checked_mul(s.stride)
                .and_then(|x| x.checked_add(one))
                .filter(|&x| fits(x))
                .ok_or_else(overflow)?;
            if actual < all {
                let (matrix, batch, stride) = (s.name, self.batch, s.stride);
                return Err(Error::BatchTooShort { matrix, batch, stride, expected: all, actual });
            }
            if s.name == "C" && self.batch > 1 && s.stride < one {
                return Err(Error::OverlappingBatches { stride: s.stride, span: one });
            }
        }
        Ok(())
    }
}

impl fmt::Display for MatmulShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}×{}", self.m, self.n, self.k)?;
        if (self.op_a, self.op_b) != (Op::N, Op::N) {
            let op = |o: Op| if o == Op::N { "N" } else { "T" };
            write!(f, " {}{}", op(self.op_a), op(self.op_b))?;
        }
        let packed = MatmulShape { leading: None, ..*self }.stored().map(|s| s.ld);
        if let Some([lda, ldb, ldc]) = self.leading.filter(|&l| l != packed) {
            write!(f, " (lda {lda}, ldb {ldb}, ldc {ldc})")?;
        }
        if self.batch != 1 {
            write!(f, " ×{} (strides {}, {}, {})", self.batch, self.stride_a(), self.stride_b(), self.stride_c())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_operands_and_batches_are_checked_as_stored() {
        // Aᵀ stored 5 × 3 (lda ≥ 3), Bᵀ stored 4 × 5 (ldb ≥ 5).
        let s = MatmulShape::new(3, 4, 5).with_ops(Op::T, Op::T);
        assert_eq!((s.lda(), s.ldb(), s.ldc()), (3, 5, 4));
        assert!(s.check_buffers(15, 20, 12).is_ok());
        let short = s.check_buffers(14, 20, 12);
        assert!(matches!(short, Err(Error::MatrixTooShort { matrix: "A", rows: 5, row_len: 3, .. })), "{short:?}");
        // A batch of 3 packed: each matrix right after the one before.
        let b = s.batched_packed(3);
        assert_eq!((b.stride_a(), b.stride_b(), b.stride_c()), (15, 20, 12));
        assert!(b.check_buffers(45, 60, 36).is_ok());
        let short = b.check_buffers(45, 59, 36);
        assert!(matches!(short, Err(Error::BatchTooShort { matrix: "B", expected: 60, .. })), "{short:?}");
        // One B for every product; C's may not overlap.
        assert!(b.batched(3, 15, 0, 12).check_buffers(45, 20, 36).is_ok());
        let overlap = b.batched(3, 15, 0, 11).check_buffers(45, 20, 36);
        assert!(matches!(overlap, Err(Error::OverlappingBatches { stride: 11, span: 12 })), "{overlap:?}");
        assert_eq!(b.to_string(), "3×4×5 TT ×3 (strides 15, 20, 12)");
        assert_eq!(b.flops(), 3.0 * 2.0 * 60.0);
        // Leading dimensions print where they differ from the packed ones.
        assert_eq!(s.with_leading_dimensions(3, 5, 4).to_string(), "3×4×5 TT");
        assert_eq!(s.with_leading_dimensions(4, 5, 4).to_string(), "3×4×5 TT (lda 4, ldb 5, ldc 4)");
    }

    #[test]
    fn padded_leading_dimensions_survive_setting_the_ops_after_them() {
        // Set before the `op`s, in the order one writes them: kept (they used to be reset to
        // the packed ones, and the product read the wrong elements).
        let s = MatmulShape::new(3, 4, 5).with_leading_dimensions(7, 9, 6).with_ops(Op::T, Op::N);
        assert_eq!((s.lda(), s.ldb(), s.ldc()), (7, 9, 6));
        assert_eq!(s, MatmulShape::new(3, 4, 5).with_ops(Op::T, Op::N).with_leading_dimensions(7, 9, 6));
        // Aᵀ is stored 5 × 3 with rows 7 apart: 4·7 + 3 elements.
        assert!(s.check_buffers(31, 4 * 9 + 4, 2 * 6 + 4).is_ok());
        assert!(matches!(s.check_buffers(30, 40, 16), Err(Error::MatrixTooShort { matrix: "A", expected: 31, .. })));
        // Packed strides follow the leading dimensions set after them.
        let b = MatmulShape::new(3, 4, 5).batched_packed(2).with_leading_dimensions(7, 9, 6);
        assert_eq!((b.stride_a(), b.stride_b(), b.stride_c()), (2 * 7 + 5, 4 * 9 + 4, 2 * 6 + 4));
        // Without leading dimensions set, the packed ones follow the `op`s either way.
        let t = MatmulShape::new(3, 4, 5).batched_packed(2).with_ops(Op::T, Op::T);
        assert_eq!((t.lda(), t.ldb(), t.stride_a(), t.stride_b()), (3, 5, 15, 20));
    }

    /// One builder call of [`MatmulShape`].
    #[derive(Clone, Copy, Debug)]
    enum Call {
        Leading(usize, usize, usize),
        Ops(Op, Op),
        Batched(usize, usize, usize, usize),
        BatchedPacked(usize),
    }

    impl Call {
        fn apply(self, s: MatmulShape) -> MatmulShape {
            match self {
                Call::Leading(a, b, c) => s.with_leading_dimensions(a, b, c),
                Call::Ops(a, b) => s.with_ops(a, b),
                Call::Batched(batch, a, b, c) => s.batched(batch, a, b, c),
                Call::BatchedPacked(batch) => s.batched_packed(batch),
            }
        }
    }

    #[test]
    fn the_builders_give_the_same_shape_in_any_order() {
        use proptest::prelude::*;
        let op = || prop_oneof![Just(Op::N), Just(Op::T)];
        let calls = (
            (1usize..40, 1usize..40, 1usize..40),
            (0usize..50, 0usize..50, 0usize..50),
            (op(), op()),
            (1usize..4, 0usize..2000, 0usize..2000, 0usize..2000, any::<bool>()),
        );
        let lens = (0usize..8000, 0usize..8000, 0usize..8000);
        proptest!(|(((m, n, k), (lda, ldb, ldc), (op_a, op_b), (batch, sa, sb, sc, packed)) in calls,
                    picked in proptest::sample::subsequence(vec![0usize, 1, 2], 0..=3).prop_shuffle(),
                    (a_len, b_len, c_len) in lens)| {
            let batch_call = if packed { Call::BatchedPacked(batch) } else { Call::Batched(batch, sa, sb, sc) };
            let all = [Call::Leading(lda, ldb, ldc), Call::Ops(op_a, op_b), batch_call];
            let shuffled = picked.iter().fold(MatmulShape::new(m, n, k), |s, &i| all[i].apply(s));
            let mut in_order = picked.clone();
            in_order.sort_unstable();
            let sorted = in_order.iter().fold(MatmulShape::new(m, n, k), |s, &i| all[i].apply(s));
            prop_assert_eq!(shuffled, sorted);
            prop_assert_eq!(shuffled.to_string(), sorted.to_string());
            let (got, want) = (shuffled.check_buffers(a_len, b_len, c_len), sorted.check_buffers(a_len, b_len, c_len));
            prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
            // Each call's part is what it set, or what is derived without it.
            let s = shuffled;
            let ops = if picked.contains(&1) { (op_a, op_b) } else { (Op::N, Op::N) };
            prop_assert_eq!((s.op_a, s.op_b), ops);
            let a_len = if ops.0 == Op::N { k } else { m };
            let b_len = if ops.1 == Op::N { n } else { k };
            let lds = if picked.contains(&0) { (lda, ldb, ldc) } else { (a_len, b_len, n) };
            prop_assert_eq!((s.lda(), s.ldb(), s.ldc()), lds);
            let rows = [if ops.0 == Op::N { m } else { k }, if ops.1 == Op::N { k } else { n }, m];
            let packed_strides = [(rows[0] - 1) * lds.0 + a_len, (rows[1] - 1) * lds.1 + b_len, (rows[2] - 1) * lds.2 + n];
            let (batch_set, strides) = match (picked.contains(&2), packed) {
                (false, _) => (1, packed_strides),
                (true, true) => (batch, packed_strides),
                (true, false) => (batch, [sa, sb, sc]),
            };
            prop_assert_eq!(s.batch, batch_set);
            prop_assert_eq!([s.stride_a(), s.stride_b(), s.stride_c()], strides);
        });
    }

    #[test]
    fn the_cpu_reference_reads_transposed_operands_and_batches() {
        // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: A·B = [[19, 22], [43, 50]].
        let (a, b) = ([1.0f64, 2.0, 3.0, 4.0], [5.0f64, 6.0, 7.0, 8.0]);
        let (at, bt) = ([1.0f64, 3.0, 2.0, 4.0], [5.0f64, 7.0, 6.0, 8.0]);
        let s = MatmulShape::new(2, 2, 2);
        let want = [19.0, 22.0, 43.0, 50.0];
        for (shape, a, b) in [
            (s, a, b),
            (s.with_ops(Op::T, Op::N), at, b),
            (s.with_ops(Op::N, Op::T), a, bt),
            (s.with_ops(Op::T, Op::T), at, bt),
        ] {
            let (got, _) = crate::cpu::matmul(1.0, &a, &b, 0.0, &[0.0; 4], shape).unwrap();
            assert_eq!(got, want, "{shape}");
        }
        // Two products sharing B, the second A doubled; C's β = 1 term per product.
        let a2 = [1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0];
        let c = [1.0; 8];
        let (got, _) = crate::cpu::matmul(1.0, &a2, &b, 1.0, &c, s.batched(2, 4, 0, 4)).unwrap();
        assert_eq!(got, [20.0, 23.0, 44.0, 51.0, 39.0, 45.0, 87.0, 101.0]);
    }
}
