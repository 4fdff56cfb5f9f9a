//! Reductions on the CPU: the references' properties, the error bound of every tree rung's
//! summation order (simulated in f32 with the kernels' own index functions), and the bank
//! conflicts of the tree rungs' shared-memory steps.

use bankwise::banks::{Access, Geometry, Width, analyze};
use bankwise::cpu::{gamma, reduce, sum_reference, sum_tolerance};
use bankwise::reduce::{Max, Min, Operation, Sum};
use bankwise_layout::reduce::{
    LEVELS, THREADS, WARP, elements_per_block, interleaved_divergent, interleaved_strided, sequential, tree_depth,
};
use proptest::prelude::*;

/// One launch of a tree rung, simulated: each block of `elements_per_block` values (the
/// identity past the end) loads (with the first add) and combines by `step` from `s0`.
fn tree_pass<T: Copy, O: Operation<T>>(v: &[T], first_add: bool, upward: bool, step: Step) -> Vec<T> {
    let per = elements_per_block(first_add) as usize;
    v.chunks(per)
        .map(|chunk| {
            let at = |i: usize| chunk.get(i).copied().unwrap_or_else(O::identity);
            let mut shared: Vec<T> = (0..THREADS as usize)
                .map(|t| if first_add { O::combine(at(t), at(t + THREADS as usize)) } else { at(t) })
                .collect();
            let mut s = if upward { 1 } else { THREADS / 2 };
            while s > 0 && s < THREADS {
                for t in 0..THREADS {
                    if let Some((a, b)) = step(t, s) {
                        shared[a as usize] = O::combine(shared[a as usize], shared[b as usize]);
                    }
                }
                s = if upward { s * 2 } else { s / 2 };
            }
            shared[0]
        })
        .collect()
}

/// The whole multi-pass tree reduction, as the GPU computes it.
fn tree<T: Copy, O: Operation<T>>(v: &[T], first_add: bool, upward: bool, step: Step) -> T {
    let mut v = tree_pass::<T, O>(v, first_add, upward, step);
    while v.len() > 1 {
        v = tree_pass::<T, O>(&v, first_add, upward, step);
    }
    v[0]
}

/// One step of a tree: the `(into, from)` indices of an active thread.
type Step = fn(u32, u32) -> Option<(u32, u32)>;

fn strided(t: u32, s: u32) -> Option<(u32, u32)> {
    interleaved_strided(t, s, THREADS)
}

#[test]
fn tree_depth_counts_the_levels_of_each_pass() {
    assert_eq!(LEVELS, 8);
    assert_eq!(tree_depth(1, false), 8);
    assert_eq!(tree_depth(1000, true), 18); // 1000 → 2 partials → 1: two passes of 1 + 8
    assert_eq!(tree_depth(1 << 28, false), 32);
}

#[test]
fn gamma_is_the_textbook_bound() {
    let u = 2f64.powi(-24);
    assert_eq!(gamma(0, u), 0.0);
    assert!((gamma(10, u) - 10.0 * u / (1.0 - 10.0 * u)).abs() < 1e-20);
    assert!(gamma(1 << 24, u).is_infinite());
}

#[test]
fn float_min_max_follow_ieee_minimum_maximum() {
    assert_eq!(<Min as Operation<f32>>::combine(-0.0, 0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(<Min as Operation<f32>>::combine(0.0, -0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(<Max as Operation<f64>>::combine(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(reduce(&[1.0f32, f32::NAN, -3.0], Min).to_bits(), f32::NAN.to_bits());
    assert_eq!(reduce(&[1.0f64, -f64::NAN, 3.0], Max).to_bits(), f64::NAN.to_bits());
    assert_eq!(reduce::<f32, _>(&[], Min), f32::INFINITY);
    assert_eq!(reduce::<f64, _>(&[], Max), f64::NEG_INFINITY);
    assert!(reduce(&[f32::INFINITY, f32::NEG_INFINITY], Sum).is_nan());
    assert_eq!(reduce(&[i32::MAX, 1], Sum), i32::MIN, "integer sums wrap");
    assert_eq!(reduce(&[u64::MAX, 2], Sum), 1);
}

#[test]
fn compensated_reference_is_exact_where_f64_can_be() {
    // 1 + 2^-60 − 1 is lost by plain f64 summation, kept by the compensated one.
    let v = [1.0f64, 2f64.powi(-60), -1.0];
    assert_eq!(sum_reference(&v).0, 2f64.powi(-60));
    assert_eq!(sum_reference(&v).1, 2.0 + 2f64.powi(-60));
}

proptest! {
    #[test]
    fn integer_sums_wrap_like_wide_arithmetic(v in prop::collection::vec(any::<i32>(), 0..600), w in prop::collection::vec(any::<u64>(), 0..600)) {
        let wide: i128 = v.iter().map(|&x| x as i128).sum();
        prop_assert_eq!(reduce(&v, Sum), wide as i32);
        let wide: u128 = w.iter().map(|&x| x as u128).sum();
        prop_assert_eq!(reduce(&w, Sum), wide as u64);
    }

    #[test]
    fn min_max_match_the_standard_library(v in prop::collection::vec(any::<i64>(), 1..600), f in prop::collection::vec(-1e30f32..1e30, 1..600)) {
        prop_assert_eq!(reduce(&v, Min), *v.iter().min().unwrap());
        prop_assert_eq!(reduce(&v, Max), *v.iter().max().unwrap());
        let lo = f.iter().copied().min_by(f32::total_cmp).unwrap();
        prop_assert_eq!(reduce(&f, Min).to_bits(), lo.to_bits());
        let hi = f.iter().copied().max_by(f32::total_cmp).unwrap();
        prop_assert_eq!(reduce(&f, Max).to_bits(), hi.to_bits());
    }

    #[test]
    fn min_max_of_floats_are_order_independent(mut f in prop::collection::vec(prop_oneof![Just(0.0f64), Just(-0.0), any::<f64>()], 1..300), seed: u64) {
        let (lo, hi) = (reduce(&f, Min).to_bits(), reduce(&f, Max).to_bits());
        let n = f.len();
        f.rotate_left(seed as usize % n);
        prop_assert_eq!(reduce(&f, Min).to_bits(), lo);
        prop_assert_eq!(reduce(&f, Max).to_bits(), hi);
    }

    /// The tree rungs' exact f32 summation orders stay within `γ_k · Σ|x|` of the float64
    /// reference, `k` = `tree_depth`: the bound the GPU tests use.
    #[test]
    fn tree_orders_stay_within_the_stated_bound(v in prop::collection::vec(prop_oneof![-1.0f32..1.0, -1e6f32..1e6, -1e-6f32..1e-6], 1..3000)) {
        let (want, abs) = sum_reference(&v);
        let rungs: [(bool, bool, Step); 4] =
            [(false, true, interleaved_divergent), (false, true, strided), (false, false, sequential), (true, false, sequential)];
        for (first_add, upward, step) in rungs {
            let got = tree::<f32, Sum>(&v, first_add, upward, step) as f64;
            let tol = sum_tolerance(tree_depth(v.len() as u64, first_add), 2f64.powi(-24), v.len(), want, abs);
            prop_assert!((got - want).abs() <= tol, "got {got}, want {want}, tolerance {tol}");
            // And the tree gives the exact integer answer where no rounding happens.
            let ints: Vec<i64> = v.iter().map(|&x| x as i64).collect();
            prop_assert_eq!(tree::<i64, Sum>(&ints, first_add, upward, step), ints.iter().sum::<i64>());
        }
    }
}

/// The word each lane of warp `warp` reads at step `s` (the `from` index, `into` when
/// `into` is set), through `step`; inactive lanes read nothing.
fn warp_access(width: Width, warp: u32, s: u32, into: bool, step: impl Fn(u32, u32) -> Option<(u32, u32)>) -> Access {
    let mask = (0..WARP).filter(|&l| step(warp * WARP + l, s).is_some()).fold(0u32, |m, l| m | 1 << l);
    Access::from_fn(width, mask, |l| {
        let (a, b) = step(warp * WARP + l, s).unwrap();
        (if into { a } else { b }) as u64 * width.bytes() as u64
    })
}

#[test]
fn strided_rung_conflicts_and_sequential_rungs_do_not() {
    for width in [Width::B4, Width::B8] {
        let mut strided_conflicts = 0;
        let mut s = 1;
        while s < THREADS {
            for warp in 0..THREADS / WARP {
                for into in [true, false] {
                    let a = warp_access(width, warp, s, into, strided);
                    let r = analyze(&a, &Geometry::MODERN).unwrap();
                    if a.active_lanes() >= 2 {
                        assert!(
                            !r.is_conflict_free(),
                            "strided s={s} warp {warp}: {} lanes, degree {}",
                            a.active_lanes(),
                            r.degree()
                        );
                    }
                    strided_conflicts += r.conflicts();
                    // The divergent rung's active lanes read words of one 32-word row: for 4-byte
                    // elements one bank each (its problem is divergence, not conflicts).
                    if width == Width::B4 {
                        let r = analyze(&warp_access(width, warp, s, into, interleaved_divergent), &Geometry::MODERN)
                            .unwrap();
                        assert!(r.is_conflict_free(), "divergent s={s} warp {warp}: degree {}", r.degree());
                    }
                }
            }
            s *= 2;
        }
        assert!(strided_conflicts > 0);
        // s = 1 for 4-byte elements: lanes read words 0, 2, …, 62: a 2-way conflict.
        if width == Width::B4 {
            let r = analyze(&warp_access(width, 0, 1, true, strided), &Geometry::MODERN).unwrap();
            assert_eq!(r.degree(), 2);
        }
        let mut s = THREADS / 2;
        while s > 0 {
            for warp in 0..THREADS / WARP {
                for into in [true, false] {
                    let r = analyze(&warp_access(width, warp, s, into, sequential), &Geometry::MODERN).unwrap();
                    assert!(r.is_conflict_free(), "sequential s={s} warp {warp} {width:?}: degree {}", r.degree());
                }
            }
            s /= 2;
        }
    }
}
