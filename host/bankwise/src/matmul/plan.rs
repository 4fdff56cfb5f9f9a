//! [`TunedPlan`]: how a tuned rung computes a shape, and the wave model that picks it.

use super::{Float, MatmulKernel, MatmulShape, Realign, SplitK, TunedTile};
use crate::error::{Error, Result};
use crate::tuning::PlanTarget;

/// How a tuned rung ([`MatmulKernel::is_tuned`]) computes a shape: which rung, its tiles,
/// whether it splits `k`, which operands it copies to aligned rows first, and whether it
/// computes the columns past its last whole column of tiles apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunedPlan {
    kernel: MatmulKernel,
    tile: TunedTile,
    split: Option<SplitK>,
    realign: Realign,
    strip: Option<usize>,
}

impl TunedPlan {
    /// `kernel` with `tile` for `T` and `shape`, with the split its tiles call for on `target`
    /// ([`SplitK::for_tiles`]) and the copies [`Realign::for_shape`] makes.
    /// [`Error::TunedPlanUnfit`] where `T` has no tiles of that size or `kernel` is not a tuned
    /// rung.
    pub fn new<T: Float>(
        kernel: MatmulKernel,
        tile: TunedTile,
        shape: MatmulShape,
        target: PlanTarget<'_>,
    ) -> Result<TunedPlan> {
        if !kernel.is_tuned() {
            return Err(Error::TunedPlanUnfit { what: "only the tuned rungs (Tuned, Multistage) run a plan" });
        }
        let tiles = tile
            .tiles::<T>(kernel)
            .ok_or(Error::TunedPlanUnfit { what: "the tuned rung's wide tiles are f32 only" })?;
        let (split, realign) =
            (SplitK::for_tiles(shape, tiles, target), Realign::for_shape::<T>(kernel, shape, target));
        Ok(TunedPlan { kernel, tile, split, realign, strip: None })
    }

    /// The plan of `kernel` (a tuned rung; [`Tuned`](MatmulKernel::Tuned) for any other)
    /// predicted fastest for `T` and `shape` on `target`: of the sizes `T` has, the one whose
    /// blocks finish first, counting whole waves of the blocks resident at once, each as long
    /// as its tiles' multiply-adds at the size's rate in `target`'s tuning table
    /// ([`TunedTile::measured_tflops`], on the rows the kernel reads: realigned copies' where
    /// it makes them). A size whose last wave is a sliver loses, unless the columns past its
    /// last whole column of tiles, computed apart as a [`strip`](Self::strip) with a plan of
    /// their own (counted the same way, plus the table's
    /// [`strip_seconds`](crate::tuning::MatmulTuning::strip_seconds)), leave fewer waves: on
    /// 132 SMs, 4095×4097×4093 makes 544 wide tiles, 5 waves of 132, against 1056 square ones
    /// in 4 waves of 264, and 512 wide ones in 4 waves beside a one-column strip. The plans
    /// this picks against each size forced are measured in `docs/benchmarks.md` (*Tile
    /// sizes*, *Strips and the split of `k`*).
    pub fn for_shape<T: Float>(kernel: MatmulKernel, shape: MatmulShape, target: PlanTarget<'_>) -> TunedPlan {
        Self::fastest::<T>(kernel, shape, target, true).1
    }

    /// [`for_shape`](Self::for_shape) with its predicted time in seconds, and with strips
    /// where `strips`. Sizes without a rate in the table are predicted infinitely slow, so
    /// that they are picked only where no size has one.
    pub(super) fn fastest<T: Float>(
        kernel: MatmulKernel,
        shape: MatmulShape,
        target: PlanTarget<'_>,
        strips: bool,
    ) -> (f64, TunedPlan) {
        let kernel = if kernel.is_tuned() { kernel } else { MatmulKernel::Tuned };
        let realign = Realign::for_shape::<T>(kernel, shape, target);
        // The tiles run on the copies' rows.
        let shape = realign.shape::<T>(shape);
        let plan = TunedPlan { kernel, tile: TunedTile::Square, split: None, realign, strip: None };
        let mut best: Option<(f64, TunedPlan)> = None;
        let mut consider = |cost: f64, plan: TunedPlan| {
            if best.is_none_or(|(fastest, _)| cost < fastest) {
                best = Some((cost, plan));
            }
        };
        for tile in TunedTile::ALL {
            let Some(t) = tile.tiles::<T>(kernel) else { continue };
            let plan = TunedPlan { tile, split: SplitK::for_tiles(shape, t, target), ..plan };
            consider(plan.seconds::<T>(shape, target), plan);
            let columns = shape.n - shape.n % t.warps.tiles.bn as usize;
            if !strips || columns == shape.n || columns == 0 {
                continue;
            }
            let (main, rest) = (shape.with_columns(columns), shape.with_columns(shape.n - columns));
            let plan = TunedPlan { split: SplitK::for_tiles(main, t, target), strip: Some(columns), ..plan };
            let strip = Self::fastest::<T>(kernel, rest, target, false).0 + target.tuning.matmul.strip_seconds;
            consider(plan.seconds::<T>(main, target) + strip, plan);
        }
        // Every tuned rung has square tiles for every type.
        best.unwrap_or((f64::INFINITY, plan))
    }

    /// The predicted time in seconds of this plan's tiles (not its strip) over `shape` on
    /// `target`, as [`for_shape`](Self::for_shape) counts it: with a split, its full slices'
    /// grid and then the shallower last slice's.
    fn seconds<T: Float>(self, shape: MatmulShape, target: PlanTarget<'_>) -> f64 {
        let Some(t) = self.tile.tiles::<T>(self.kernel) else { return f64::INFINITY };
        let Some(rate) = self.tile.measured_tflops::<T>(self.kernel, shape, &target.tuning.matmul) else {
            return f64::INFINITY;
        };
        let (s, sms) = (t.warps.tiles, target.multiprocessors);
        let resident = (u64::from(sms) * u64::from(t.min_blocks)).max(1);
        let tiles = (shape.m.div_ceil(s.bm as usize) as u64)
            .saturating_mul(shape.n.div_ceil(s.bn as usize) as u64)
            .saturating_mul(shape.batch as u64);
        let wave_depth = match self.split {
            None => tiles.div_ceil(resident).saturating_mul(shape.k as u64),
            Some(split) => split.wave_depth(shape.k, tiles, resident),
        };
        let per_wave = 2.0 * f64::from(sms) * f64::from(t.min_blocks) * f64::from(s.bm) * f64::from(s.bn);
        wave_depth as f64 * per_wave / (rate * 1e12)
    }

    /// The rung.
    pub fn kernel(self) -> MatmulKernel {
        self.kernel
    }

    /// The tile size.
    pub fn tile(self) -> TunedTile {
        self.tile
    }

    /// The split of `k`, if any.
    pub fn split(self) -> Option<SplitK> {
        self.split
    }

    /// The operands copied to aligned rows first.
    pub fn realign(self) -> Realign {
        self.realign
    }

    /// The plan without copying operands to aligned rows (the kernel then reads rows that
    /// do not start on 16 bytes element by element).
    pub fn without_realign(self) -> TunedPlan {
        TunedPlan { realign: Realign::default(), ..self }
    }

    /// The first column of `C` past the plan's tiles, where it computes the columns from
    /// there on apart, with the plan [`for_shape`](Self::for_shape) picks for them alone on
    /// the GPU that runs it (without a strip of its own, on the operands this plan realigned);
    /// its tiles then cover the columns before it.
    pub fn strip(self) -> Option<usize> {
        self.strip
    }

    /// The plan with its tiles over `C`'s columns before `columns` and the rest computed
    /// apart ([`strip`](Self::strip)); [`Gpu::matmul_tuned`](crate::Gpu::matmul_tuned) rejects
    /// a strip past `n`.
    pub fn with_strip(self, columns: usize) -> TunedPlan {
        TunedPlan { strip: Some(columns), ..self }
    }

    /// The plan's tiles alone, over every column they are launched on.
    pub(super) fn without_strip(self) -> TunedPlan {
        TunedPlan { strip: None, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::Op;
    use crate::tuning::h100::H100;
    use crate::tuning::{RungRates, TileRates, Tuning};

    const H100_SXM: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

    #[test]
    fn the_tuned_plan_counts_whole_waves_at_each_size_measured_rate() {
        let pick = |s: MatmulShape| {
            let p = TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, H100_SXM);
            (p.tile(), p.split().map(|s| (s.slices, s.depth)))
        };
        // 512 wide tiles in 4 waves of 132, as long as 1024 square ones in 4 of 264: the faster
        // size at 4096³ wins, the wide one but for TN.
        for (a, b, tile) in [
            (Op::N, Op::N, TunedTile::Wide),
            (Op::N, Op::T, TunedTile::Wide),
            (Op::T, Op::N, TunedTile::Square),
            (Op::T, Op::T, TunedTile::Wide),
        ] {
            assert_eq!(pick(MatmulShape::new(4096, 4096, 4096).with_ops(a, b)), (tile, None));
        }
        // 544 wide tiles take a fifth wave, 1056 square ones fill 4, and 512 wide ones beside a
        // one-column strip fill 4 as well.
        let odd = MatmulShape::new(4095, 4097, 4093);
        assert_eq!(pick(odd), (TunedTile::Wide, None));
        assert_eq!(TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, odd, H100_SXM).strip(), Some(4096));
        assert_eq!(TunedPlan::fastest::<f32>(MatmulKernel::Tuned, odd, H100_SXM, false).1.tile(), TunedTile::Square);
        // Split k: 32 wide tiles in 4 slices fill 128 of the 132 SMs, one wave as for the
        // square tiles' 64 × 4 of 264.
        assert_eq!(pick(MatmulShape::new(1024, 1024, 1024)), (TunedTile::Wide, Some((4, 256))));
        assert_eq!(pick(MatmulShape::new(2048, 2048, 2048)), (TunedTile::Wide, None));
        // f64 has square tiles only; one tile of either fits any one-tile shape.
        let p = TunedPlan::for_shape::<f64>(MatmulKernel::Tuned, MatmulShape::new(4096, 4096, 4096), H100_SXM);
        assert_eq!((p.tile(), p.split()), (TunedTile::Square, None));
        assert!(matches!(pick(MatmulShape::new(1, 1, 1)), (_, None)));
        // No shape overflows the choice.
        let huge = MatmulShape::new(usize::MAX, usize::MAX, usize::MAX);
        let _ = TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, huge, H100_SXM);
        let _ = TunedPlan::for_shape::<f32>(
            MatmulKernel::Tuned,
            MatmulShape::new(5, 5, 5),
            PlanTarget { multiprocessors: 0, ..H100_SXM },
        );
        // Another rung plans as the tuned one; the multistage rung keeps its own.
        assert_eq!(
            TunedPlan::for_shape::<f32>(MatmulKernel::Naive, MatmulShape::new(9, 9, 9), H100_SXM).kernel(),
            MatmulKernel::Tuned
        );
        assert_eq!(
            TunedPlan::for_shape::<f32>(MatmulKernel::Multistage, MatmulShape::new(9, 9, 9), H100_SXM).kernel(),
            MatmulKernel::Multistage
        );
    }

    #[test]
    fn the_plan_weighs_the_sizes_and_the_strip_by_the_table_it_is_given() {
        let (odd, square) = (MatmulShape::new(4095, 4097, 4093), MatmulShape::new(4096, 4096, 4096));
        let plan = |s: MatmulShape, t: &Tuning| {
            TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, PlanTarget { tuning: t, ..H100_SXM })
        };
        assert_eq!((plan(square, &H100).tile(), plan(odd, &H100).strip()), (TunedTile::Wide, Some(4096)));
        // A GPU whose square tiles ran twice as fast as its wide ones: square, and at the odd
        // shape their 1056 tiles fill 4 waves without a strip.
        let mut fast_square = H100.clone();
        let rates = |x: f64| Some(TileRates { checked: [x; 4], whole: None });
        fast_square.matmul.tuned_f32 = RungRates { square: rates(80.0), wide: rates(40.0) };
        assert_eq!(plan(square, &fast_square).tile(), TunedTile::Square);
        assert_eq!((plan(odd, &fast_square).tile(), plan(odd, &fast_square).strip()), (TunedTile::Square, None));
        // Launches as slow as a wave: no strip.
        let mut slow_launches = H100.clone();
        slow_launches.matmul.strip_seconds = 1e-2;
        assert_eq!(plan(odd, &slow_launches).strip(), None);
        // Without the wide tiles' rates, the square ones, which have theirs; without any, still
        // a plan (square).
        let mut no_wide = H100.clone();
        no_wide.matmul.tuned_f32.wide = None;
        assert_eq!(plan(square, &no_wide).tile(), TunedTile::Square);
        let mut none = H100.clone();
        none.matmul.tuned_f32 = RungRates { square: None, wide: None };
        let p = plan(MatmulShape::new(1024, 1024, 1024), &none);
        assert_eq!((p.tile(), p.split().map(|s| s.slices)), (TunedTile::Square, Some(4)));
    }

    #[test]
    fn a_strip_takes_the_columns_past_the_last_whole_column_of_tiles_where_it_saves_waves() {
        use proptest::prelude::*;
        let plan = |s: MatmulShape| TunedPlan::for_shape::<f32>(MatmulKernel::Tuned, s, H100_SXM);
        proptest!(|(m in 1usize..5000, n in 1usize..5000, k in 1usize..5000, ta: bool, tb: bool)| {
            let (op_a, op_b) = (if ta { Op::T } else { Op::N }, if tb { Op::T } else { Op::N });
            let s = MatmulShape::new(m, n, k).with_ops(op_a, op_b);
            let p = plan(s);
            if let Some(columns) = p.strip() {
                let bn = p.tile().tiles::<f32>(p.kernel()).unwrap().warps.tiles.bn as usize;
                prop_assert!(columns > 0 && columns % bn == 0 && columns < n && n - columns < bn, "{s}: {p:?}");
            }
            let f64_plan = TunedPlan::for_shape::<f64>(MatmulKernel::Multistage, s, H100_SXM);
            if let Some(columns) = f64_plan.strip() {
                prop_assert!(columns < n && columns % 64 == 0, "{s}: {f64_plan:?}");
            }
        });
        // A whole wave saved: 16 × 8 wide tiles of 2048 columns in one wave of 132, not 144.
        assert_eq!(plan(MatmulShape::new(2048, 2049, 2048)).strip(), Some(2048));
        // Tiles that divide n, and small shapes, where the strip's launches cost more: none.
        for (m, n, k) in [(4096, 4096, 4096), (1024, 1024, 1024), (300, 257, 300), (1, 257, 1), (4095, 4096, 4093)] {
            assert_eq!(plan(MatmulShape::new(m, n, k)).strip(), None, "{m}×{n}×{k}");
        }
    }

    #[test]
    fn the_plan_s_builders_keep_what_each_sets_in_either_order() {
        use proptest::prelude::*;
        proptest!(|(m in 1usize..3000, n in 1usize..3000, k in 1usize..3000, columns in 0usize..3000, wide: bool)| {
            let tile = if wide { TunedTile::Wide } else { TunedTile::Square };
            let p = TunedPlan::new::<f32>(MatmulKernel::Tuned, tile, MatmulShape::new(m, n, k), H100_SXM).unwrap();
            let (a, b) = (p.with_strip(columns).without_realign(), p.without_realign().with_strip(columns));
            prop_assert_eq!(a, b);
            prop_assert_eq!((a.strip(), a.realign()), (Some(columns), Realign::default()));
            prop_assert_eq!((a.kernel(), a.tile(), a.split()), (p.kernel(), p.tile(), p.split()));
        });
    }
}
