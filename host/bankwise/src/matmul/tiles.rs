//! [`TunedTile`]: the tuned rungs' tile sizes, their entries, and their measured rates.

use bankwise_layout::matmul::{TunedTiles, multistage, tuned};

use super::{Float, MatmulKernel, MatmulShape, ops_index, starts_on_16_bytes};
use crate::kernels;
use crate::tuning::{MatmulTuning, RungRates};
use bankwise_runtime::KernelEntry;

/// The tuned rung's tile sizes (`bankwise_layout::matmul::tuned`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TunedTile {
    /// 128 × 128 tiles of `C` for `f32`, two blocks per SM; 128 × 64 for `f64`, one.
    #[default]
    Square,
    /// 128 × 256 tiles of `C`, one block of 8 warps per SM: more work per warp between
    /// barriers, half as many tiles. `f32` only in the tuned rung; the multistage rung's `f64`
    /// wide tiles are 128 × 128.
    Wide,
}

impl TunedTile {
    /// Every tile size.
    pub const ALL: [TunedTile; 2] = [TunedTile::Square, TunedTile::Wide];

    /// The tiles of `kernel` (a tuned rung, [`MatmulKernel::is_tuned`]) for `T`; `None` where
    /// `T` has no entries of this size (the tuned rung's wide `f64`) or the kernel is not a tuned
    /// rung.
    pub fn tiles<T: Float>(self, kernel: MatmulKernel) -> Option<TunedTiles> {
        let (bytes, wide) = (size_of::<T>() as u32, self == TunedTile::Wide);
        match kernel {
            MatmulKernel::Tuned if wide && T::INDEX != 0 => None,
            MatmulKernel::Tuned => Some(tuned(bytes, wide)),
            MatmulKernel::Multistage => Some(multistage(bytes, wide)),
            _ => None,
        }
    }

    /// Whether `kernel` runs `shape` for `T` with this size's whole-tile entries (the tuned
    /// rung's `f32` ones, the multistage rung's wide `f64` ones), where the tiles divide `n`
    /// and every row of `A` and `B`, in every product, starts on 16 bytes (the kernel checks
    /// the same again per block, so the choice only decides speed). Every block inside `C`
    /// then loads every step but a partial last one without bounds checks; those of a partial
    /// last row of tiles check theirs, in the same launch (`docs/benchmarks.md`, *Whole
    /// tiles*). A partial last column of tiles is a strip's ([`TunedPlan::strip`](super::TunedPlan::strip)).
    pub fn whole<T: Float>(self, kernel: MatmulKernel, shape: MatmulShape) -> bool {
        let Some(t) = self.tiles::<T>(kernel) else { return false };
        let s = t.warps.tiles;
        let aligned = starts_on_16_bytes::<T>;
        let strides = shape.batch == 1 || (aligned(shape.stride_a()) && aligned(shape.stride_b()));
        let has = match kernel {
            MatmulKernel::Tuned => T::INDEX == 0,
            MatmulKernel::Multistage => T::INDEX == 1 && self == TunedTile::Wide,
            _ => false,
        };
        has && shape.n.is_multiple_of(s.bn as usize) && aligned(shape.lda()) && aligned(shape.ldb()) && strides
    }

    /// The entry of `kernel` for `T` and `shape`'s `op`s ([`whole`](Self::whole) tiles where
    /// they fit); `None` as for [`tiles`](Self::tiles).
    pub fn entry<T: Float>(
        self,
        kernel: MatmulKernel,
        shape: MatmulShape,
    ) -> Option<KernelEntry<kernels::TunedParams<T>>> {
        let ops = ops_index(shape);
        let whole = self.whole::<T>(kernel, shape);
        let e = T::ENTRIES;
        let table = match (kernel, self) {
            (MatmulKernel::Tuned, TunedTile::Square) if whole => &e.tuned_whole,
            (MatmulKernel::Tuned, TunedTile::Wide) if whole => &e.tuned_wide_whole,
            (MatmulKernel::Tuned, TunedTile::Square) => &e.tuned,
            (MatmulKernel::Tuned, TunedTile::Wide) => &e.tuned_wide,
            (MatmulKernel::Multistage, TunedTile::Wide) if whole => &e.multistage_wide_whole,
            (MatmulKernel::Multistage, TunedTile::Square) => &e.multistage,
            (MatmulKernel::Multistage, TunedTile::Wide) => &e.multistage_wide,
            _ => return None,
        };
        table[ops]
    }

    /// The size's name, as the bench prints it.
    pub const fn name(self) -> &'static str {
        match self {
            TunedTile::Square => "square",
            TunedTile::Wide => "wide",
        }
    }

    /// The rate in TFLOP/s at which [`TunedPlan::for_shape`](super::TunedPlan::for_shape)
    /// counts this size's waves for `kernel`, `T` and `shape`'s `op`s: `tuning`'s figure at
    /// 4096³, that of the [`whole`](Self::whole)-tile entries where `shape` takes them. `None`
    /// where the table has none (the rung lacks the size for `T`, or it was not measured).
    pub fn measured_tflops<T: Float>(
        self,
        kernel: MatmulKernel,
        shape: MatmulShape,
        tuning: &MatmulTuning,
    ) -> Option<f64> {
        let rung: &RungRates = match (kernel, T::INDEX) {
            (MatmulKernel::Tuned, 0) => &tuning.tuned_f32,
            (MatmulKernel::Tuned, _) => &tuning.tuned_f64,
            (MatmulKernel::Multistage, 0) => &tuning.multistage_f32,
            (MatmulKernel::Multistage, _) => &tuning.multistage_f64,
            _ => return None,
        };
        let rates = match self {
            TunedTile::Square => rung.square,
            TunedTile::Wide => rung.wide,
        }?;
        let row = if self.whole::<T>(kernel, shape) { rates.whole.unwrap_or(rates.checked) } else { rates.checked };
        Some(row[ops_index(shape)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::Op;
    use crate::tuning::TileRates;
    use crate::tuning::h100::H100;

    #[test]
    fn whole_tile_entries_run_where_the_tiles_divide_n_and_rows_are_aligned() {
        use proptest::prelude::*;
        let (tuned, wide, square) = (MatmulKernel::Tuned, TunedTile::Wide, TunedTile::Square);
        proptest!(|(mt in 1usize..5, nt in 1usize..5, k in 1usize..100, dm in 0usize..2, dn in 0usize..2, pad in 0usize..5, batch in 1usize..3)| {
            let (m, n) = (mt * 128 + dm, nt * 256 + dn);
            let s = MatmulShape::new(m, n, k);
            let s = s.with_leading_dimensions(s.lda() + pad, s.ldb() + pad, s.ldc()).batched_packed(batch);
            let aligned = [s.lda(), s.ldb()].iter().all(|x| x.is_multiple_of(4))
                && (batch == 1 || [s.stride_a(), s.stride_b()].iter().all(|x| x.is_multiple_of(4)));
            prop_assert_eq!(square.whole::<f32>(tuned, s), aligned && dn == 0);
            prop_assert_eq!(wide.whole::<f32>(tuned, s), aligned && dn == 0);
            let whole = square.entry::<f32>(tuned, s).unwrap().name().contains("_whole_");
            prop_assert_eq!(whole, square.whole::<f32>(tuned, s));
            // f64 has them in the multistage rung's wide tiles (128 × 128) only, f32 in the tuned rung.
            let multistage = MatmulKernel::Multistage;
            prop_assert!(!square.whole::<f64>(tuned, s) && !square.whole::<f32>(multistage, s));
            prop_assert!(!square.whole::<f64>(multistage, s) && !wide.whole::<f32>(multistage, s));
            let aligned_f64 = [s.lda(), s.ldb()].iter().all(|x| x.is_multiple_of(2))
                && (batch == 1 || [s.stride_a(), s.stride_b()].iter().all(|x| x.is_multiple_of(2)));
            prop_assert_eq!(wide.whole::<f64>(multistage, s), aligned_f64 && dn == 0);
        });
        // 128 × 128 square tiles divide 128 × 384; the wide ones, 256 across, do not.
        let s = MatmulShape::new(128, 384, 64);
        assert!(square.whole::<f32>(tuned, s) && !wide.whole::<f32>(tuned, s));
        assert_eq!(
            wide.entry::<f32>(tuned, MatmulShape::new(4096, 4096, 4096)).map(|e| e.name()),
            Some("matmul_tuned_wide_whole_nn_f32")
        );
    }

    #[test]
    fn the_rates_come_from_the_table_by_rung_type_size_ops_and_whole_tiles() {
        let rates = |checked: f64, whole: Option<f64>| TileRates {
            checked: [checked, 2.0, 3.0, 4.0],
            whole: whole.map(|w| [w, 20.0, 30.0, 40.0]),
        };
        let rung = |square, wide| RungRates { square, wide };
        let table = MatmulTuning {
            tuned_f32: rung(Some(rates(1.0, Some(10.0))), Some(rates(1.5, None))),
            tuned_f64: rung(Some(rates(5.0, None)), None),
            multistage_f32: rung(Some(rates(6.0, None)), None),
            multistage_f64: rung(None, Some(rates(7.0, Some(70.0)))),
            ..H100.matmul
        };
        let (tuned, multistage) = (MatmulKernel::Tuned, MatmulKernel::Multistage);
        let whole = MatmulShape::new(256, 256, 64);
        let checked = MatmulShape::new(256, 255, 64);
        let rate = |tile: TunedTile, kernel, shape, f64s: bool| {
            if f64s {
                tile.measured_tflops::<f64>(kernel, shape, &table)
            } else {
                tile.measured_tflops::<f32>(kernel, shape, &table)
            }
        };
        assert_eq!(rate(TunedTile::Square, tuned, whole, false), Some(10.0));
        assert_eq!(rate(TunedTile::Square, tuned, checked, false), Some(1.0));
        assert_eq!(rate(TunedTile::Square, tuned, whole.with_ops(Op::T, Op::N), false), Some(30.0));
        assert_eq!(rate(TunedTile::Square, tuned, checked.with_ops(Op::N, Op::T), false), Some(2.0));
        // No whole-tile row: the checked one stands for it.
        assert_eq!(rate(TunedTile::Wide, tuned, whole, false), Some(1.5));
        assert_eq!(rate(TunedTile::Square, tuned, whole, true), Some(5.0));
        assert_eq!(rate(TunedTile::Wide, tuned, whole, true), None);
        assert_eq!(rate(TunedTile::Square, multistage, whole, false), Some(6.0));
        assert_eq!(rate(TunedTile::Wide, multistage, whole, false), None);
        assert_eq!(rate(TunedTile::Square, multistage, whole, true), None);
        assert_eq!(rate(TunedTile::Wide, multistage, whole.with_ops(Op::T, Op::T), true), Some(40.0));
        assert_eq!(rate(TunedTile::Wide, multistage, checked, true), Some(7.0));
        assert_eq!(rate(TunedTile::Square, MatmulKernel::WarpTile, whole, false), None);
    }
}
