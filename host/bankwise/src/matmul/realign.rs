//! [`Realign`]: operands copied to rows that start on 16 bytes before the product.

use super::{Float, MatmulKernel, MatmulShape, starts_on_16_bytes};
use crate::tuning::PlanTarget;

/// Which operands the tuned rung copies, before multiplying, into a workspace whose rows start
/// on 16 bytes. The kernel reads an operand as 16-byte vectors only where every stored row
/// starts on 16 bytes (a leading dimension of a multiple of 4 `f32`); other rows it reads
/// element by element, with a bounds check each. The copy
/// ([`Gpu::copy_rows_aligned`](crate::Gpu::copy_rows_aligned)) moves each element once, which
/// pays where the product reads it many times: an operand is realigned where its rows are not
/// aligned and each of its elements takes part in at least the tuning table's
/// [`realign_min_uses`](crate::tuning::MatmulTuning::realign_min_uses) multiply-adds (`n` of
/// them for `A`, `m` for `B`), for one product (not a batch), in `f32`, by
/// [`MatmulKernel::Tuned`]: copies made `f64` and the multistage rung slower where measured
/// (`docs/benchmarks.md`, *Strips and the split of `k`*; `docs/decisions.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Realign {
    /// Copy `A`.
    pub a: bool,
    /// Copy `B`.
    pub b: bool,
}

impl Realign {
    /// The operands of `shape` that `kernel` copies for `T` on `target`.
    pub fn for_shape<T: Float>(kernel: MatmulKernel, shape: MatmulShape, target: PlanTarget<'_>) -> Realign {
        if kernel != MatmulKernel::Tuned || size_of::<T>() != 4 || shape.batch != 1 {
            return Realign::default();
        }
        let min_uses = target.tuning.matmul.realign_min_uses;
        Realign {
            a: !starts_on_16_bytes::<T>(shape.lda()) && shape.n >= min_uses,
            b: !starts_on_16_bytes::<T>(shape.ldb()) && shape.m >= min_uses,
        }
    }

    /// The leading dimension of the copy of rows `row_len` elements long: the next multiple
    /// of 16 bytes.
    pub fn leading_dimension<T: Float>(row_len: usize) -> usize {
        row_len.next_multiple_of(16 / size_of::<T>())
    }

    /// `shape` with the leading dimensions of the copies of the operands this realigns.
    pub(super) fn shape<T: Float>(self, shape: MatmulShape) -> MatmulShape {
        let [sa, sb, _] = shape.stored();
        let ld = |copied: bool, ld: usize, row_len: usize| match row_len.checked_next_multiple_of(16 / size_of::<T>()) {
            Some(aligned) if copied => aligned,
            _ => ld,
        };
        shape.with_operand_leading_dimensions(ld(self.a, sa.ld, sa.row_len), ld(self.b, sb.ld, sb.row_len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{Op, TunedPlan, TunedTile};
    use crate::tuning::h100::H100;

    const H100_SXM: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

    #[test]
    fn operands_are_realigned_where_their_rows_are_unaligned_and_each_element_is_used_often() {
        use proptest::prelude::*;
        let min = H100.matmul.realign_min_uses;
        proptest!(|(m in 1usize..3000, n in 1usize..3000, k in 1usize..3000, pad in 0usize..5, ta: bool, tb: bool, batch in 1usize..3)| {
            let (op_a, op_b) = (if ta { Op::T } else { Op::N }, if tb { Op::T } else { Op::N });
            let s = MatmulShape::new(m, n, k).with_ops(op_a, op_b);
            let s = s.with_leading_dimensions(s.lda() + pad, s.ldb() + pad, s.ldc()).batched_packed(batch);
            let r = Realign::for_shape::<f32>(MatmulKernel::Tuned, s, H100_SXM);
            prop_assert_eq!(r.a, batch == 1 && !s.lda().is_multiple_of(4) && n >= min);
            prop_assert_eq!(r.b, batch == 1 && !s.ldb().is_multiple_of(4) && m >= min);
            // Measured slower for f64 and for the multistage rung.
            prop_assert_eq!(Realign::for_shape::<f64>(MatmulKernel::Tuned, s, H100_SXM), Realign::default());
            prop_assert_eq!(Realign::for_shape::<f32>(MatmulKernel::Multistage, s, H100_SXM), Realign::default());
            let ld = Realign::leading_dimension::<f32>(k);
            prop_assert!(ld >= k && ld < k + 4 && ld.is_multiple_of(4));
            let ld = Realign::leading_dimension::<f64>(k);
            prop_assert!(ld >= k && ld < k + 2 && ld.is_multiple_of(2));
            // The copies' shape: aligned rows for the copied operands, C as it was.
            let copied = r.shape::<f32>(s);
            prop_assert_eq!(copied.ldc(), s.ldc());
            prop_assert_eq!(copied.lda().is_multiple_of(4), r.a || s.lda().is_multiple_of(4));
            // The plans carry it, at either tile size.
            prop_assert_eq!(TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, H100_SXM).realign(), r);
            let plan = TunedPlan::new::<f32>(MatmulKernel::Tuned, TunedTile::Square, s, H100_SXM).unwrap();
            prop_assert_eq!(plan.realign(), r);
            prop_assert_eq!(plan.without_realign().realign(), Realign::default());
        });
        // 4095×4097×4093, the goal's odd shape: both operands.
        let odd = MatmulShape::new(4095, 4097, 4093);
        assert_eq!(Realign::for_shape::<f32>(MatmulKernel::Tuned, odd, H100_SXM), Realign { a: true, b: true });
        // A table whose copies pay from 5000 uses on: neither.
        let mut dear = H100.clone();
        dear.matmul.realign_min_uses = 5000;
        let target = PlanTarget { tuning: &dear, ..H100_SXM };
        assert_eq!(Realign::for_shape::<f32>(MatmulKernel::Tuned, odd, target), Realign::default());
    }
}
