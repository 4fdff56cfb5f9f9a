//! The planner on the CPU: canonical forms, errors, kernel choices and splits, and every plan
//! interpreted element by element (the kernels' worker, chunk and offset arithmetic, without
//! their threads) against the CPU reference.

use proptest::prelude::*;

use super::plan as plan_of;
use super::plan::{AxesKernel, AxesPlan, AxesSlot, AxesWork, Group, canonical};
use super::{ArgMax, ArgMin, arg_plan};
use crate::cpu;
use crate::error::Error;
use crate::reduce::{Max, Min, Sum};
use crate::tuning::{PlanTarget, Tuning, h100};
use bankwise_builtin::reduce_axes::COLUMN_LANES;

/// An H100's table on `sms` SMs.
fn on(sms: u32) -> PlanTarget<'static> {
    PlanTarget { multiprocessors: sms, ..h100::TARGET }
}

fn groups(spec: &[(usize, bool)]) -> Vec<Group> {
    spec.iter().map(|&(size, reduced)| Group { size, reduced }).collect()
}

#[test]
fn size_one_dimensions_drop_and_neighbours_fuse() {
    // R2 · 1 · R3 · K4: the reduced pair fuses across the dropped 1.
    let c = canonical(&[2, 1, 3, 4], &[0, 2]).unwrap();
    assert_eq!(c.groups, groups(&[(6, true), (4, false)]));
    assert_eq!((c.elements, c.outputs, c.extent), (24, 4, 6));
    // Axes {0, 2} of 4 dims: two reduced groups, alternating with kept ones.
    let c = canonical(&[5, 6, 7, 8], &[2, 0]).unwrap();
    assert_eq!(c.groups, groups(&[(5, true), (6, false), (7, true), (8, false)]));
    // A reduced size-1 axis is a copy; all axes of size 1: no group at all.
    assert_eq!(canonical(&[3, 1], &[1]).unwrap().groups, groups(&[(3, false)]));
    assert_eq!(canonical(&[1, 1], &[0]).unwrap().groups, vec![]);
    // A 0 anywhere: no elements, no groups, and the products still say what is kept.
    let c = canonical(&[4, 0, 3], &[1]).unwrap();
    assert_eq!((c.groups.len(), c.elements, c.outputs, c.extent), (0, 0, 12, 0));
}

#[test]
fn bad_shapes_and_axes_are_typed_errors_that_say_what_was_wrong() {
    let e = canonical(&[], &[]).unwrap_err();
    assert!(matches!(e, Error::AxesRank { rank: 0 }), "{e:?}");
    assert!(e.to_string().contains("rank 0") && e.to_string().contains("1 to 8"), "{e}");
    let e = canonical(&[2; 9], &[0]).unwrap_err();
    assert!(matches!(e, Error::AxesRank { rank: 9 }), "{e:?}");
    let e = canonical(&[2, 3], &[2]).unwrap_err();
    assert!(matches!(e, Error::AxisOutOfRange { axis: 2, rank: 2 }), "{e:?}");
    assert!(e.to_string().contains("axis 2 is out of range") && e.to_string().contains("0 to 1"), "{e}");
    let e = canonical(&[2, 3, 4], &[1, 0, 1]).unwrap_err();
    assert!(matches!(e, Error::AxisRepeated { axis: 1 }), "{e:?}");
    assert!(e.to_string().contains("axis 1 is listed twice"), "{e}");
    let e = canonical(&[1 << 40, 1 << 40], &[0]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{e:?}");
    // A 0 does not hide an overflow of the other dimensions' product.
    let e = canonical(&[0, 1 << 40, 1 << 40], &[0]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{e:?}");
    let e = plan_of::<f32, Sum>(&[2, 3], &[1], 5, 2, on(132)).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { buffer: "src", expected: 6, actual: 5, .. }), "{e:?}");
    let e = plan_of::<f32, Sum>(&[2, 3], &[1], 6, 3, on(132)).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { buffer: "dst", expected: 2, actual: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("dst holds 3 elements"), "{e}");
}

#[test]
fn empty_extents_sum_to_zero_and_have_no_minimum() {
    let p = plan_of::<i32, Sum>(&[3, 0], &[1], 0, 3, on(132)).unwrap();
    assert_eq!(p.work, AxesWork::Identity);
    let e = plan_of::<i32, Min>(&[3, 0], &[1], 0, 3, on(132)).unwrap_err();
    assert!(matches!(e, Error::EmptyReduction { op: "min", outputs: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("min over axes [1] of shape [3, 0] has no value"), "{e}");
    let e = plan_of::<f64, Max>(&[0], &[0], 0, 1, on(132)).unwrap_err();
    assert!(matches!(e, Error::EmptyReduction { op: "max", outputs: 1, .. }), "{e:?}");
    // No outputs: nothing to do, for min as well.
    assert_eq!(plan_of::<i32, Min>(&[0, 5], &[1], 0, 0, on(132)).unwrap().work, AxesWork::Nothing);
    // Nothing reduced (or only size-1 axes): a copy.
    assert_eq!(plan_of::<u64, Max>(&[4, 1], &[1], 4, 4, on(132)).unwrap().work, AxesWork::Copy);
    assert_eq!(plan_of::<u64, Max>(&[4, 2], &[], 8, 8, on(132)).unwrap().work, AxesWork::Copy);
}

fn passes(p: &AxesPlan) -> Vec<super::AxesPass> {
    match &p.work {
        AxesWork::Passes(v) => v.clone(),
        w => panic!("no passes: {w:?}"),
    }
}

#[test]
fn the_innermost_group_picks_rows_or_columns() {
    // 8192 × 8192 f32 row sums: a warp per row (under the H100 table's 65,536), no split; rows
    // of 65,536 take a block each.
    assert_eq!(h100::H100.memory.axes_block_row_min, 65_536);
    let p = passes(&plan_of::<f32, Sum>(&[8192, 8192], &[1], 8192 * 8192, 8192, on(132)).unwrap());
    assert_eq!((p.len(), p[0].kernel, p[0].layout.splits()), (1, AxesKernel::RowsWarp, 1));
    let p = passes(&plan_of::<f32, Sum>(&[4096, 65_536], &[1], 1 << 28, 4096, on(132)).unwrap());
    assert_eq!((p.len(), p[0].kernel, p[0].layout.splits()), (1, AxesKernel::RowsBlock, 1));
    // Short rows: a warp each.
    let p = passes(&plan_of::<f32, Sum>(&[1000, 100], &[1], 100_000, 1000, on(132)).unwrap());
    assert_eq!(p[0].kernel, AxesKernel::RowsWarp);
    // Column sums: 16-byte vectors (tiles of 128 f32 columns, 64 of them), the 8192 rows split
    // into 33 chunks of 249 to fill the H100 table's 16 blocks per SM (2112), combined by a
    // second column pass.
    assert_eq!(h100::H100.memory.axes_column_blocks_per_sm, 16);
    let p = passes(&plan_of::<f32, Sum>(&[8192, 8192], &[0], 8192 * 8192, 8192, on(132)).unwrap());
    assert_eq!((p.len(), p[0].kernel, p[1].kernel), (2, AxesKernel::Columns, AxesKernel::Columns));
    assert_eq!((p[0].layout.col_vector, p[0].layout.splits(), p[0].layout.chunk_len), (4, 33, 249));
    assert_eq!((p[0].layout.workers, p[1].layout.len, p[1].layout.col_vector), (64 * 33, 33, 4));
    assert_eq!((p[0].grid, p[1].grid), ((64 * 33, 1, 1), (64, 1, 1)));
    // The middle axis of (64, 4096, 1024): the outer kept axis and a split of the 4096 rows
    // both make blocks (64 · 8 tiles × 4 splits: 2048, no more than the 2112 of 16 blocks per
    // SM, four whole waves of the 4 an SM holds; 5 splits would leave 448 blocks a fifth wave).
    let p = passes(&plan_of::<f32, Sum>(&[64, 4096, 1024], &[1], 64 << 22, 64 * 1024, on(132)).unwrap());
    assert_eq!((p.len(), p[0].kernel, p[0].layout.kept_rank, p[0].layout.cols), (2, AxesKernel::Columns, 1, 1024));
    assert_eq!((p[0].layout.col_vector, p[0].layout.splits(), p[0].layout.workers), (4, 4, 64 * 8 * 4));
    // f64: vectors of 2; an odd width: scalar columns, tiles of 32.
    let p = passes(&plan_of::<f64, Sum>(&[8192, 8192], &[0], 8192 * 8192, 8192, on(132)).unwrap());
    assert_eq!((p[0].layout.col_vector, p[0].layout.workers / p[0].layout.splits()), (2, 128));
    let p = passes(&plan_of::<f32, Sum>(&[8191, 8193], &[0], 8191 * 8193, 8193, on(132)).unwrap());
    assert_eq!((p[0].layout.col_vector, p[0].layout.workers / p[0].layout.splits()), (1, 257));
}

#[test]
fn column_splits_fill_whole_waves_of_resident_blocks() {
    // The H200's table aims at 4 column blocks per SM: one wave of `f32` columns (4 an SM),
    // rounded down to 3 for `bf16` (its entries' launch bounds), and never past it.
    let h200 = PlanTarget::new(132, (9, 0), &crate::tuning::h200::H200);
    assert_eq!(crate::tuning::h200::H200.memory.axes_column_blocks_per_sm, 4);
    let first = |plan: AxesPlan| passes(&plan)[0];
    // 8192² column sums: 64 tiles of 128 `f32` columns × 8 splits = 512 of 528; 32 tiles of 256
    // `bf16` columns × 12 = 384 of 396. Nine splits would be 576: a second wave of 48.
    let p = first(plan_of::<f32, Sum>(&[8192, 8192], &[0], 8192 * 8192, 8192, h200).unwrap());
    assert_eq!((p.layout.splits(), p.layout.workers), (8, 512));
    let p = first(plan_of::<half::bf16, Sum>(&[8192, 8192], &[0], 8192 * 8192, 8192, h200).unwrap());
    assert_eq!((p.layout.splits(), p.layout.workers), (12, 384));
    // The middle axis of (64, 4096, 1024): 512 tiles of `f32` already fill the wave (one pass).
    let plan = plan_of::<f32, Sum>(&[64, 4096, 1024], &[1], 64 << 22, 64 * 1024, h200).unwrap();
    assert_eq!((passes(&plan).len(), passes(&plan)[0].layout.workers), (1, 512));
    // Argmin/argmax columns hold 3 blocks an SM whatever the type: `f32` rounds down too.
    let p = first(arg_plan::<f32, ArgMax>(&[8192, 8192], &[0], 8192 * 8192, 8192, h200).unwrap());
    assert_eq!((p.layout.splits(), p.layout.workers), (6, 384));
}

#[test]
fn few_outputs_split_into_a_second_column_pass() {
    // One output of 2^24: split into many row workers, then the partials' column.
    let n = 1 << 24;
    let plan = plan_of::<f32, Sum>(&[n], &[0], n, 1, on(132)).unwrap();
    let p = passes(&plan);
    assert_eq!(p.len(), 2);
    let splits = p[0].layout.splits() as usize;
    assert!((2..=super::MAX_SPLITS).contains(&splits), "{splits}");
    assert_eq!((p[0].output, p[1].input, p[1].layout.splits()), (AxesSlot::Scratch, AxesSlot::Scratch, 1));
    assert_eq!(plan.scratch, splits);
    assert_eq!(p[1].layout.len as usize, splits);
    // Four columns of a million rows: the rows split, the second pass is a column reduction.
    let plan = plan_of::<f64, Max>(&[1 << 20, 4], &[0], 4 << 20, 4, on(132)).unwrap();
    let p = passes(&plan);
    assert_eq!((p.len(), p[0].kernel, p[1].kernel), (2, AxesKernel::Columns, AxesKernel::Columns));
    assert_eq!(plan.scratch, p[0].layout.splits() as usize * 4);
}

/// Runs `plan` element by element as the kernels would, worker by worker (wrapping `u64`
/// sums), checking every index and that each output of each pass is written once.
fn interpret(plan: &AxesPlan, src: &[u64]) -> Vec<u64> {
    run_plan(plan, src, 0, |acc, x, _, _| acc.wrapping_add(x))
}

/// Runs `plan` as [`interpret`] does, folding with `fold(acc, x, position, first_pass)` from
/// `zero`, where `position` is the element's index in the flattened reduced subspace as the
/// arg kernels compute it (`(s0 + s) · len + l0 + l`).
fn run_plan<V: Copy>(plan: &AxesPlan, src: &[V], zero: V, fold: impl Fn(V, V, u64, bool) -> V) -> Vec<V> {
    let mut scratch = vec![zero; plan.scratch];
    let mut dst = vec![zero; plan.canonical.outputs];
    for (k, pass) in passes(plan).into_iter().enumerate() {
        let l = pass.layout;
        let input = if pass.input == AxesSlot::Source { src.to_vec() } else { scratch.clone() };
        let out = if pass.output == AxesSlot::Dst { &mut dst } else { &mut scratch };
        let mut written = vec![0u32; (l.splits() * l.outputs) as usize];
        let fold = |base: u64, p: u64| {
            let (s0, segs, l0, len) = l.chunk(p);
            let mut acc = zero;
            for s in 0..segs {
                for i in 0..len {
                    let at = base + l.segment_offset(s0 + s) + (l0 + i) * l.len_stride;
                    acc = fold(acc, input[at as usize], (s0 + s) * l.len + l0 + i, k == 0);
                }
            }
            acc
        };
        for w in 0..l.workers {
            let outputs = if pass.kernel == AxesKernel::Columns {
                let (p, rest) = (w % l.splits(), w / l.splits());
                let width = COLUMN_LANES as u64 * l.col_vector;
                assert!(l.col_vector == 1 || l.cols.is_multiple_of(l.col_vector), "{l:?}");
                let tiles = l.cols.div_ceil(width);
                let (tile, q) = (rest % tiles, rest / tiles);
                (0..width)
                    .map(|x| tile * width + x)
                    .filter(|&c| c < l.cols)
                    .map(|c| (p, q * l.cols + c, l.kept_offset(q) + c))
                    .collect::<Vec<_>>()
            } else {
                let (o, p) = (w / l.splits(), w % l.splits());
                vec![(p, o, l.kept_offset(o))]
            };
            for (p, o, base) in outputs {
                let at = (p * l.outputs + o) as usize;
                out[at] = fold(base, p);
                written[at] += 1;
            }
        }
        assert!(written.iter().all(|&n| n == 1), "{pass:?} wrote outputs {written:?} times");
    }
    dst
}

/// An arg plan run by [`run_plan`] on `(key, position)` pairs as the kernels combine them
/// (the larger key, then the smaller position): the first pass pairs each element with its
/// position, the second carries the partials'. Returns the positions.
fn interpret_arg(plan: &AxesPlan, keys: &[u64]) -> Vec<u64> {
    let better = |a: (u64, u64), b: (u64, u64)| if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a };
    let src: Vec<(u64, u64)> = keys.iter().map(|&k| (k, u64::MAX)).collect();
    let got = run_plan(plan, &src, (0, u64::MAX), |acc, x, at, first| better(acc, if first { (x.0, at) } else { x }));
    got.into_iter().map(|(_, at)| at).collect()
}

/// `dims` over `axes` as an argmax of `u64` keys (few distinct values: many ties), planned and
/// interpreted, against the CPU reference.
fn arg_plan_matches_reference(dims: &[usize], axes: &[usize], target: PlanTarget<'_>, seed: u64) -> Result<(), String> {
    let c = canonical(dims, axes).unwrap();
    let keys: Vec<u64> = (0..c.elements as u64).map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61).collect();
    let want = cpu::arg_reduce_axes(&keys, dims, axes, ArgMax).map_err(|e| e.to_string())?;
    let plan = arg_plan::<u64, ArgMax>(dims, axes, c.elements, c.outputs, target).map_err(|e| e.to_string())?;
    let got = match plan.work {
        AxesWork::Nothing => vec![],
        AxesWork::Copy => vec![0; c.outputs],
        AxesWork::Identity => return Err("an arg plan gave the identity".into()),
        AxesWork::Passes(_) => interpret_arg(&plan, &keys),
    };
    if got == want { Ok(()) } else { Err(format!("{dims:?} over {axes:?}: got {got:?}, want {want:?}")) }
}

/// Random dims (rank 1 to 8, sizes 0 to 6 with 1s common, a few large) and a shuffled subset
/// of axes.
fn shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    let size = prop_oneof![3 => 1usize..=6, 1 => Just(1usize), 1 => 20usize..70];
    proptest::collection::vec(size, 1..=8)
        .prop_flat_map(|dims| {
            let rank = dims.len();
            (Just(dims), proptest::collection::vec(any::<bool>(), rank), any::<u64>())
        })
        .prop_filter("small enough to interpret", |(dims, _, _)| dims.iter().product::<usize>() <= 1 << 16)
        .prop_map(|(dims, pick, seed)| {
            let mut axes: Vec<usize> = (0..dims.len()).filter(|&i| pick[i]).collect();
            // A seeded rotation and reversal: any order is accepted.
            let k = (seed as usize) % axes.len().max(1);
            axes.rotate_left(k);
            if seed & 1 == 1 {
                axes.reverse();
            }
            (dims, axes)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn canonical_groups_alternate_and_keep_the_products((dims, axes) in shapes()) {
        let c = canonical(&dims, &axes).unwrap();
        prop_assert_eq!(c.outputs * c.extent, c.elements);
        if c.elements > 0 {
            prop_assert!(c.groups.iter().all(|g| g.size >= 2));
            prop_assert!(c.groups.windows(2).all(|w| w[0].reduced != w[1].reduced));
            prop_assert_eq!(c.groups.iter().map(|g| g.size).product::<usize>(), c.elements);
            let reduced: usize = c.groups.iter().filter(|g| g.reduced).map(|g| g.size).product();
            prop_assert_eq!(reduced, c.extent);
            prop_assert!(c.groups.len() <= 8);
        }
    }

    #[test]
    fn every_plan_computes_the_reference(
        (dims, axes) in shapes(),
        sms in 1u32..200,
        (rows_per_sm, columns_per_sm, block_row_min) in (1u32..16, 1u32..64, 1u32..40_000),
        seed in any::<u64>(),
    ) {
        // Any table's aims give a plan that computes the reference, only perhaps slower.
        let mut table: Tuning = h100::H100.clone();
        (table.memory.axes_row_blocks_per_sm, table.memory.axes_column_blocks_per_sm) = (rows_per_sm, columns_per_sm);
        table.memory.axes_block_row_min = block_row_min;
        let c = canonical(&dims, &axes).unwrap();
        let target = PlanTarget::new(sms, (9, 0), &table);
        let plan = plan_of::<u64, Sum>(&dims, &axes, c.elements, c.outputs, target).unwrap();
        let src: Vec<u64> = (0..c.elements as u64).map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let want = cpu::reduce_axes(&src, &dims, &axes, Sum).unwrap();
        let got = match plan.work {
            AxesWork::Nothing => vec![],
            AxesWork::Identity => vec![0; c.outputs],
            AxesWork::Copy => src.clone(),
            AxesWork::Passes(_) => interpret(&plan, &src),
        };
        prop_assert_eq!(got, want);
        // The arg plan of the same shape under the same table: the flattened positions.
        let arg = arg_plan_matches_reference(&dims, &axes, target, seed);
        prop_assert!(arg.is_ok(), "{:?}", arg);
    }

    /// Large shapes, planned only: splits stay within bounds, the second pass never splits,
    /// grids stay positive, and scratch holds the partials.
    #[test]
    fn large_plans_are_bounded(dims in proptest::collection::vec(1usize..5000, 1..=5), pick in any::<u8>(), sms in 1u32..200) {
        let axes: Vec<usize> = (0..dims.len()).filter(|&i| pick >> i & 1 == 1).collect();
        let c = canonical(&dims, &axes).unwrap();
        let plan = plan_of::<f32, Min>(&dims, &axes, c.elements, c.outputs, on(sms)).unwrap();
        if let AxesWork::Passes(p) = &plan.work {
            prop_assert!(p.iter().all(|p| p.grid.0 >= 1 && p.grid.1 >= 1 && p.layout.splits() as usize <= super::MAX_SPLITS));
            // Column grids: one block per worker, the last row of blocks partly idle.
            for p in p.iter().filter(|p| p.kernel == AxesKernel::Columns) {
                let (x, y) = (p.grid.0 as u64, p.grid.1 as u64);
                prop_assert!(x * y >= p.layout.workers && x * (y - 1) < p.layout.workers, "{:?}", p.grid);
            }
            if p.len() == 2 {
                prop_assert_eq!(p[1].layout.splits(), 1);
                prop_assert_eq!(plan.scratch, p[0].layout.splits() as usize * c.outputs);
                // A column split fills whole waves at most: the table's 16 blocks per SM, four
                // of the 4 an SM holds of `f32` columns.
                if p[0].kernel == AxesKernel::Columns {
                    prop_assert!(p[0].layout.workers <= 16 * sms as u64, "{} on {sms} SMs", p[0].layout.workers);
                }
                prop_assert!(c.extent >= super::SPLIT_MIN_EXTENT.min(2 * super::COLUMN_CHUNK));
            }
            prop_assert!(plan.depth >= 1 && plan.depth < c.extent as u64 + 20);
        }
    }
}

#[test]
fn arg_plans_compute_the_reference_and_split_like_min() {
    let cases: [(&[usize], &[usize]); 8] = [
        (&[1 << 17], &[0]),
        (&[3, 1 << 16], &[1]),
        (&[1 << 16, 3], &[0]),
        (&[64, 3, 1024], &[0, 2]),
        (&[5, 2, 7000, 2], &[2, 0]),
        (&[40_000, 2, 3], &[0, 2]),
        (&[7, 130, 9], &[2, 0]),
        (&[3, 4, 5, 6], &[3, 1]),
    ];
    for (dims, axes) in cases {
        for sms in [1, 7, 132] {
            arg_plan_matches_reference(dims, axes, on(sms), 5).unwrap();
        }
        // The same passes as a min of the type (partials of 16 bytes: the second pass's columns
        // scalar).
        let c = canonical(dims, axes).unwrap();
        let arg = passes(&arg_plan::<f32, ArgMin>(dims, axes, c.elements, c.outputs, on(132)).unwrap());
        let min = passes(&plan_of::<f32, Min>(dims, axes, c.elements, c.outputs, on(132)).unwrap());
        assert_eq!(arg[0], min[0], "{dims:?} over {axes:?}");
        assert_eq!(arg.len(), min.len());
        if let Some(second) = arg.get(1) {
            assert_eq!(second.layout.col_vector, 1);
        }
    }
}

#[test]
fn arg_errors_are_the_reductions() {
    let e = arg_plan::<f32, ArgMax>(&[3, 0], &[1], 0, 3, on(132)).unwrap_err();
    assert!(matches!(e, Error::EmptyReduction { op: "argmax", outputs: 3, .. }), "{e:?}");
    let e = cpu::arg_reduce_axes::<f32, _>(&[], &[3, 0], &[1], ArgMin).unwrap_err();
    assert!(matches!(e, Error::EmptyReduction { op: "argmin", outputs: 3, .. }), "{e:?}");
    assert_eq!(arg_plan::<i32, ArgMin>(&[0, 5], &[1], 0, 0, on(132)).unwrap().work, AxesWork::Nothing);
    assert_eq!(arg_plan::<u64, ArgMax>(&[4, 1], &[1], 4, 4, on(132)).unwrap().work, AxesWork::Copy);
    let e = arg_plan::<f32, ArgMax>(&[2, 3], &[1], 6, 3, on(132)).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { buffer: "dst", expected: 2, actual: 3, .. }), "{e:?}");
    let e = arg_plan::<f32, ArgMax>(&[2, 3], &[3], 6, 2, on(132)).unwrap_err();
    assert!(matches!(e, Error::AxisOutOfRange { axis: 3, rank: 2 }), "{e:?}");
}

/// The CPU reference's rules: the first of equal extremes, the first NaN over any number,
/// −0 below +0, positions flattened row-major over the reduced axes in increasing order.
#[test]
fn the_arg_reference_takes_the_first_extreme_and_the_first_nan() {
    let nan = f32::NAN;
    assert_eq!(cpu::arg_reduce_axes(&[1.0f32, 3.0, 3.0, 0.0], &[4], &[0], ArgMax).unwrap(), [1]);
    assert_eq!(cpu::arg_reduce_axes(&[1.0f32, 0.0, 3.0, 0.0], &[4], &[0], ArgMin).unwrap(), [1]);
    assert_eq!(cpu::arg_reduce_axes(&[1.0f32, nan, 3.0, nan], &[4], &[0], ArgMin).unwrap(), [1]);
    assert_eq!(cpu::arg_reduce_axes(&[0.0f32, -0.0, -0.0], &[3], &[0], ArgMin).unwrap(), [1]);
    assert_eq!(cpu::arg_reduce_axes(&[-0.0f32, 0.0, 0.0], &[3], &[0], ArgMax).unwrap(), [1]);
    // (2, 3, 2) over axes {0, 2}: output j's positions are i · 2 + k for element (i, j, k).
    let x: Vec<i32> = vec![0, 9, 1, 1, 2, 2, /**/ 5, 0, 1, 7, 2, 2];
    assert_eq!(cpu::arg_reduce_axes(&x, &[2, 3, 2], &[2, 0], ArgMax).unwrap(), [1, 3, 0]);
    let h: Vec<half::bf16> = [1.0f32, 2.0, 2.0].iter().map(|&v| half::bf16::from_f32(v)).collect();
    assert_eq!(cpu::arg_reduce_axes(&h, &[3], &[0], ArgMax).unwrap(), [1]);
}

#[test]
fn split_plans_compute_the_reference() {
    let cases: [(&[usize], &[usize]); 6] = [
        (&[1 << 17], &[0]),
        (&[3, 1 << 16], &[1]),
        (&[1 << 16, 3], &[0]),
        (&[64, 3, 1024], &[0, 2]),
        (&[5, 2, 7000, 2], &[2, 0]),
        (&[40_000, 2, 3], &[0, 2]),
    ];
    for (dims, axes) in cases {
        for sms in [1, 7, 132] {
            let c = canonical(dims, axes).unwrap();
            let plan = plan_of::<u64, Sum>(dims, axes, c.elements, c.outputs, on(sms)).unwrap();
            assert_eq!(passes(&plan).len(), 2, "{dims:?} over {axes:?} on {sms} SMs splits");
            let src: Vec<u64> = (0..c.elements as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            assert_eq!(interpret(&plan, &src), cpu::reduce_axes(&src, dims, axes, Sum).unwrap(), "{dims:?} {axes:?}");
        }
    }
}

/// The kernels' half-precision conversions (integer code, run by the emulator and the GPU)
/// are the `half` crate's, which the host and the CPU references use: widening every bit
/// pattern (NaNs quieted), rounding a stride through every `f32` bit pattern plus the ties, subnormals,
/// overflows and NaNs.
#[test]
fn the_kernels_half_conversions_are_the_half_crates() {
    use bankwise_builtin::reduce_axes::{DeviceBf16, DeviceF16, Stored};
    for bits in 0..=u16::MAX {
        let (b, h) = (half::bf16::from_bits(bits), half::f16::from_bits(bits));
        // bf16 widens by the exact shift, a signalling NaN staying signalling until the first
        // f32 operation quiets it (`half` quiets it at once): the same NaN after any combine.
        let wide = <DeviceBf16 as Stored<f32>>::widen(DeviceBf16(bits)).to_bits();
        let quiet = if b.is_nan() { wide | 0x0040_0000 } else { wide };
        assert_eq!(quiet, b.to_f32().to_bits(), "bf16 {bits:#06x}");
        assert_eq!(
            <DeviceF16 as Stored<f32>>::widen(DeviceF16(bits)).to_bits(),
            h.to_f32().to_bits(),
            "f16 {bits:#06x}"
        );
    }
    let edges = [
        0x3F80_8000u32, // a bf16 tie, to even (down)
        0x3F81_8000,    // a bf16 tie, to even (up)
        0x3F80_1000,    // an f16 tie
        0x3F80_3000,
        0x3380_0000, // 2^-24: f16's smallest subnormal
        0x3300_0000, // 2^-25: a tie to 0
        0x3300_0001,
        0x477F_F000, // f16's largest finite, rounding up to ∞
        0x7F7F_FFFF, // f32's largest: bf16 ∞
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001, // a signalling NaN
        0xFFFF_FFFF,
    ];
    for i in (0..=u32::MAX).step_by(4099).chain(edges) {
        let x = f32::from_bits(i);
        assert_eq!(<DeviceBf16 as Stored<f32>>::narrow(x).0, half::bf16::from_f32(x).to_bits(), "bf16 of {i:#010x}");
        assert_eq!(<DeviceF16 as Stored<f32>>::narrow(x).0, half::f16::from_f32(x).to_bits(), "f16 of {i:#010x}");
    }
}
