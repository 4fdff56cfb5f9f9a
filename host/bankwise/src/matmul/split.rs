//! [`SplitK`]: `k` split over blocks where `C` has too few tiles to fill the GPU.

use bankwise_layout::matmul::TunedTiles;

use super::MatmulShape;
use crate::tuning::PlanTarget;

/// How the tuned rung splits `k` when `C` has too few tiles to give every SM its blocks
/// (1024³ has 64 tiles of 128 × 128 for the 264 blocks 132 SMs run at once): a batch of the
/// tuned kernel computes the partial products of consecutive slices of `k` into a workspace,
/// one `m × n` matrix per slice, and `matmul_split_sum` adds them in slice order,
/// `C = α·Σ W + β·C`. One product only (a batch brings its own blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitK {
    /// Slices of `k` (at least 2).
    pub slices: usize,
    /// Depth of every slice but the last, which takes the rest: a multiple of 32.
    pub depth: usize,
}

impl SplitK {
    /// The most slices.
    pub const MAX_SLICES: usize = 16;

    /// The split for `shape` in `tiles` on `target`: about as many slices as fill the blocks
    /// resident at once (the tiles' `min_blocks` per SM) with the tiles, no full slice
    /// shallower than the tuning table's
    /// [`split_min_depth`](crate::tuning::MatmulTuning::split_min_depth) (the last may be),
    /// whatever the `op`s; `None` where that is fewer than 2, and for batches.
    pub fn for_tiles(shape: MatmulShape, tiles: TunedTiles, target: PlanTarget<'_>) -> Option<SplitK> {
        if shape.batch != 1 {
            return None;
        }
        let s = tiles.warps.tiles;
        let count = shape.m.div_ceil(s.bm as usize).saturating_mul(shape.n.div_ceil(s.bn as usize));
        let resident = target.multiprocessors as usize * tiles.min_blocks as usize;
        let min_depth = target.tuning.matmul.split_min_depth.max(1);
        let most = (resident / count.max(1)).min(shape.k / min_depth).min(Self::MAX_SLICES);
        if most < 2 {
            return None;
        }
        // `most` slices, their depth rounded up to a multiple of 32 and the last one shallower,
        // or rounded down and a shallow rest after them. The full slices run in one grid and a
        // shallower last one in another after it, so the cut whose grids take the least waves
        // times depth wins: 4093 in 8 slices is 7 of 512 and 509, or 8 of 480 and 253.
        let k = shape.k;
        let cut = |depth: usize| {
            let slices = k.div_ceil(depth);
            (2..=Self::MAX_SLICES).contains(&slices).then_some(SplitK { slices, depth })
        };
        let time = |s: &SplitK| s.wave_depth(k, count as u64, resident as u64);
        // (At least 32: a table's depth under 32 would round it to nothing.)
        let down = (k / most / 32 * 32).max(32);
        [cut(k.div_ceil(most).next_multiple_of(32)), cut(down)].into_iter().flatten().min_by_key(time)
    }

    /// What the split's launches cost for `tiles` tiles of `C` with `resident` blocks at once,
    /// in waves times elements of `k`: the full slices' grid, then the shallower last slice's
    /// alone (what [`for_tiles`](Self::for_tiles) and
    /// [`TunedPlan::for_shape`](super::TunedPlan::for_shape) weigh).
    pub(super) fn wave_depth(self, k: usize, tiles: u64, resident: u64) -> u64 {
        let waves = |blocks: u64| blocks.div_ceil(resident.max(1));
        let (full, last) = self.full_and_last(k);
        let last = if last == 0 { 0 } else { waves(tiles).saturating_mul(last as u64) };
        waves(tiles.saturating_mul(full as u64)).saturating_mul(self.depth as u64).saturating_add(last)
    }

    /// For a split that [`fits`](Self::fits) `k`: the slices as deep as
    /// [`depth`](Self::depth), and the depth of the shallower last one (0 where the slices
    /// divide `k`).
    pub fn full_and_last(self, k: usize) -> (usize, usize) {
        let before = self.slices.saturating_sub(1);
        let last = k.saturating_sub(before.saturating_mul(self.depth));
        if last == self.depth { (self.slices, 0) } else { (before, last) }
    }

    /// Whether the split covers `shape`'s `k` as [`for_tiles`](Self::for_tiles) makes it: one
    /// product, at least 2 slices of a nonzero depth, the last one not empty.
    pub fn fits(self, shape: MatmulShape) -> bool {
        let covers = self.depth.checked_mul(self.slices).is_some_and(|all| all >= shape.k);
        shape.batch == 1 && self.slices >= 2 && self.depth > 0 && covers && (self.slices - 1) * self.depth < shape.k
    }

    /// Elements of the workspace: one `m × n` partial product per slice.
    pub fn workspace_len(self, shape: MatmulShape) -> usize {
        self.slices * shape.m * shape.n
    }
}

#[cfg(test)]
mod tests {
    use bankwise_layout::matmul::tuned;

    use super::*;
    use crate::matmul::Op;
    use crate::tuning::Tuning;
    use crate::tuning::h100::H100;

    const H100_SXM: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

    #[test]
    fn split_k_fills_the_resident_blocks_with_slices_no_shallower_than_the_table_s_depth() {
        let split = |s: MatmulShape| SplitK::for_tiles(s, tuned(4, false), H100_SXM);
        let min_depth = H100.matmul.split_min_depth;
        assert_eq!(min_depth, 256);
        // 64 tiles for 264 resident blocks: 4 slices.
        assert_eq!(split(MatmulShape::new(1024, 1024, 1024)), Some(SplitK { slices: 4, depth: 256 }));
        assert_eq!(split(MatmulShape::new(256, 4096, 4096)), Some(SplitK { slices: 4, depth: 1024 }));
        // Enough tiles, too shallow, or a batch: no split.
        assert_eq!(split(MatmulShape::new(2048, 2048, 2048)), None);
        assert_eq!(split(MatmulShape::new(1024, 1024, 511)), None);
        assert_eq!(split(MatmulShape::new(64, 64, 4096).batched_packed(2)), None);
        // f64 runs one block per SM, 128 tiles of 128 × 64 at 1024²: no split.
        assert_eq!(SplitK::for_tiles(MatmulShape::new(1024, 1024, 1024), tuned(8, false), H100_SXM), None);
        // One tile: at most 16 slices; depths a multiple of 32 covering k, the last shorter.
        for k in [512, 777, 1000, 4099, 10_007, 1 << 20] {
            for ops in [(Op::N, Op::N), (Op::T, Op::T)] {
                let shape = MatmulShape::new(33, 70, k).with_ops(ops.0, ops.1);
                let s = split(shape).unwrap();
                assert!((2..=SplitK::MAX_SLICES).contains(&s.slices), "{k}: {s:?}");
                assert!(s.depth % 32 == 0 && s.depth >= min_depth, "{k}: {s:?}");
                assert!((s.slices - 1) * s.depth < k && k <= s.slices * s.depth, "{k}: {s:?}");
                assert_eq!(s.workspace_len(shape), s.slices * 33 * 70);
            }
        }
        assert_eq!(split(MatmulShape::new(33, 70, 10_007)), Some(SplitK { slices: 16, depth: 640 }));
        // A table that allows slices of 64 splits 1024×1024×511: 6 slices of 96 and one of 31
        // (two waves of 96 and one of 31) beat 4 of 128 and one of 127.
        let mut shallow = H100.clone();
        shallow.matmul.split_min_depth = 64;
        fn target(tuning: &Tuning) -> PlanTarget<'_> {
            PlanTarget { tuning, ..H100_SXM }
        }
        let s = SplitK::for_tiles(MatmulShape::new(1024, 1024, 511), tuned(4, false), target(&shallow));
        assert_eq!(s, Some(SplitK { slices: 6, depth: 96 }));
        // Any depth, down to 0, gives slices of at least 32 without panicking.
        for depth in [0, 1, 31] {
            shallow.matmul.split_min_depth = depth;
            let s = SplitK::for_tiles(MatmulShape::new(1, 1, 100), tuned(4, false), target(&shallow)).unwrap();
            assert!(s.depth >= 32 && s.fits(MatmulShape::new(1, 1, 100)), "{depth}: {s:?}");
        }
    }

    #[test]
    fn split_k_cuts_k_where_its_grids_take_the_fewest_waves_times_depth() {
        let split = |s: MatmulShape| SplitK::for_tiles(s, tuned(4, false), H100_SXM);
        // The odd shape's one-column strip: 32 square tiles, 8 slices. Up: 7 of 512 and 509
        // (1021); down: 8 of 480 and 253 (733).
        let s = split(MatmulShape::new(4095, 1, 4093)).unwrap();
        assert_eq!(s, SplitK { slices: 9, depth: 480 });
        assert_eq!(s.full_and_last(4093), (8, 253));
        // Slices that divide k: one grid.
        let s = split(MatmulShape::new(1024, 1024, 1024)).unwrap();
        assert_eq!(s.full_and_last(1024), (4, 0));
        // Rounded down, 17 slices would pass the most: rounded up.
        assert_eq!(split(MatmulShape::new(33, 70, 10_007)), Some(SplitK { slices: 16, depth: 640 }));
        // Rounded down, 16 full slices of 17 tiles would need two waves of 264 blocks: up.
        let s = split(MatmulShape::new(2176, 128, 4096)).unwrap();
        assert_eq!((s, s.full_and_last(4096)), (SplitK { slices: 15, depth: 288 }, (14, 64)));
        // A split that does not fit k answers without panicking.
        assert_eq!(SplitK { slices: 0, depth: 32 }.full_and_last(64), (0, 64));
        // 1000 in 3: up 352 and 296 (648), down 320 and 40 (360) in a fourth slice.
        let s = SplitK::for_tiles(MatmulShape::new(1000, 1000, 1000), tuned(4, true), H100_SXM).unwrap();
        assert_eq!((s, s.full_and_last(1000)), (SplitK { slices: 4, depth: 320 }, (3, 40)));
    }

    #[test]
    fn a_split_fits_only_the_k_it_was_made_for() {
        let shape = MatmulShape::new(64, 64, 1030);
        let split = SplitK::for_tiles(shape, tuned(4, false), H100_SXM).unwrap();
        assert!(split.fits(shape));
        assert!(split.fits(MatmulShape::new(3, 3, split.slices * split.depth)));
        assert!(!split.fits(MatmulShape::new(64, 64, (split.slices - 1) * split.depth)));
        assert!(!split.fits(MatmulShape::new(64, 64, split.slices * split.depth + 1)));
        assert!(!split.fits(shape.batched_packed(2)));
        assert!(!SplitK { slices: 1, depth: 2000 }.fits(shape));
        assert!(!SplitK { slices: usize::MAX, depth: usize::MAX }.fits(shape));
    }
}
