//! Argmin and argmax along axes (`Gpu::arg_reduce_axes`) against the CPU reference
//! (`cpu::arg_reduce_axes`), positions compared exactly, the output poisoned before each
//! launch: every type; the shapes of the axis reductions' trials (rows by a warp and by a
//! block, columns, several reduced groups, splits with a second pass) and ranks 6 to 8 with
//! non-adjacent axes; data with many ties (the first must win), all equal, increasing and
//! decreasing (extremes at the first and last positions); NaN (the first NaN wins), −0 and +0;
//! empty and size-1 extents; the scratch; and on a GPU one reduction past 2^31 elements.

use std::fmt::Debug;

use bankwise::half::{bf16, f16};
use bankwise::reduce_axes::{ArgMax, ArgMin, ArgOperation, AxesElement, AxesKernel, AxesWork, arg_plan};
use bankwise::{DeviceBuffer, Error, Gpu, cpu};
use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::axes::{CASES, GPU_CASES};
use super::{AddTrial, Check, POISON, Target, fits, seed_of};

/// Ranks 6 to 8 with non-adjacent reduced axes (and one of all but one axis).
const HIGH_RANKS: &[(&[usize], &[&[usize]])] = &[
    (&[2, 3, 1, 4, 2, 5], &[&[0, 2, 4], &[5, 1, 3]]),
    (&[3, 1, 2, 5, 2, 3, 2], &[&[1, 3, 6], &[0, 2, 4, 6]]),
    (&[2, 2, 3, 2, 2, 3, 2, 2], &[&[0, 2, 5, 7], &[1, 3, 4, 6], &[0, 1, 2, 3, 4, 5, 6]]),
    (&[2, 3, 2, 3, 2, 3, 2, 35], &[&[7, 5, 3, 1], &[0, 6]]),
];

/// The values trials draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    /// Five values: every extreme many times over.
    Ties,
    /// Distinct values (almost always).
    Wide,
    /// One value everywhere: every output's position is 0.
    Equal,
    /// `x[i] = i` (modulo what the type holds exactly): the maximum last, the minimum first.
    Increasing,
    /// `x[i] = −i`: the maximum first, the minimum last.
    Decreasing,
}

/// An element type of the trials.
pub trait ArgData: AxesElement + cpu::ArgOrder + Debug + Send + 'static {
    /// `v` in this type (exact for `|v| < 2^8`; integers wrap, unsigned ones offset).
    fn of(v: i64) -> Self;
    /// NaN, −0 and +0 (floats only).
    fn special() -> [Self; 3];
    /// The largest `|v|` kept exactly by [`of`](Self::of).
    const EXACT: i64;
}

macro_rules! arg_data_int {
    ($($t:ty),+) => {$(
        impl ArgData for $t {
            fn of(v: i64) -> $t {
                (v + (1 << 20)) as $t
            }
            fn special() -> [$t; 3] {
                unreachable!("integers have no NaN")
            }
            const EXACT: i64 = 1 << 19;
        }
    )+};
}
arg_data_int!(i32, u32, i64, u64);

macro_rules! arg_data_float {
    ($($t:ty => |$v:ident| $of:expr, $nan:expr, $neg0:expr, $pos0:expr, $exact:expr);+ $(;)?) => {$(
        impl ArgData for $t {
            fn of($v: i64) -> $t {
                $of
            }
            fn special() -> [$t; 3] {
                [$nan, $neg0, $pos0]
            }
            const EXACT: i64 = $exact;
        }
    )+};
}
arg_data_float! {
    f32 => |v| v as f32, f32::NAN, -0.0, 0.0, 1 << 23;
    f64 => |v| v as f64, f64::NAN, -0.0, 0.0, 1 << 52;
    bf16 => |v| bf16::from_f32(v as f32), bf16::NAN, bf16::NEG_ZERO, bf16::ZERO, 1 << 8;
    f16 => |v| f16::from_f32(v as f32), f16::NAN, f16::NEG_ZERO, f16::ZERO, 1 << 11;
}

/// `n` elements of `pattern`, seeded.
fn data<T: ArgData>(n: usize, seed: u64, pattern: Pattern) -> Vec<T> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|i| match pattern {
            Pattern::Ties => T::of(rng.random_range(-2..=2)),
            Pattern::Wide => T::of(rng.random_range(-T::EXACT + 1..T::EXACT)),
            Pattern::Equal => T::of(3),
            Pattern::Increasing => T::of(i as i64 % T::EXACT),
            Pattern::Decreasing => T::of(-(i as i64 % T::EXACT)),
        })
        .collect()
}

/// Outputs of `dims` over `axes`.
fn outputs(dims: &[usize], axes: &[usize]) -> usize {
    (0..dims.len()).filter(|d| !axes.contains(d)).map(|d| dims[d]).product()
}

/// The kernels of a plan's passes, for messages.
fn kernels(work: &AxesWork) -> Vec<AxesKernel> {
    match work {
        AxesWork::Passes(p) => p.iter().map(|p| p.kernel).collect(),
        _ => vec![],
    }
}

/// `O` of `host` (`dims` over `axes`) on `gpu` into a poisoned output, against the reference.
fn check_data<T: ArgData, O: ArgOperation<T> + Default>(
    gpu: &Gpu,
    host: &[T],
    dims: &[usize],
    axes: &[usize],
) -> Check {
    let src = gpu.upload(host)?;
    let outputs = outputs(dims, axes);
    let mut dst: DeviceBuffer<u64> = gpu.alloc_zeros(outputs)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.arg_reduce_axes(O::default(), &src, dims, axes, &mut dst)?;
    let got = gpu.download(&dst)?;
    let want = cpu::arg_reduce_axes(host, dims, axes, O::default())?;
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        let plan = arg_plan::<T, O>(dims, axes, host.len(), outputs, gpu.plan_target())?;
        let name = std::any::type_name::<T>();
        return Err(format!(
            "{} {name} of {dims:?} over {axes:?}, output {i}: got {:#x}, want {} (plan {:?})",
            O::OP,
            got[i],
            want[i],
            kernels(&plan.work)
        )
        .into());
    }
    Ok(())
}

/// `O` of `dims` over `axes` on data of `pattern`.
fn check<T: ArgData, O: ArgOperation<T> + Default>(
    gpu: &Gpu,
    dims: &[usize],
    axes: &[usize],
    pattern: Pattern,
) -> Check {
    let n: usize = dims.iter().product();
    let seed = seed_of(&format!("arg{dims:?}{axes:?}{}{pattern:?}{}", O::OP, std::any::type_name::<T>()), n);
    check_data::<T, O>(gpu, &data(n, seed, pattern), dims, axes)
}

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    let gpu_cases = if target == Target::Gpu { GPU_CASES } else { &[] };
    for &(dims, sets) in CASES.iter().chain(HIGH_RANKS).chain(gpu_cases) {
        if !fits(target, dims.iter().product()) {
            continue;
        }
        for &axes in sets {
            let name = |op: &str, t: &str, p: Pattern| format!("reduce_axes/{op}/{t}/{dims:?}/{axes:?}/{p:?}");
            macro_rules! per_type {
                ($op:ident, $p:ident: $($t:ty),+) => {$(
                    add(
                        name(<$op as ArgOperation<$t>>::OP, stringify!($t), Pattern::$p),
                        Box::new(move |g| check::<$t, $op>(g, dims, axes, Pattern::$p)),
                    );
                )+};
            }
            // Every type under one operation or the other, on ties and on distinct values.
            per_type!(ArgMax, Ties: f32, i32, u64, bf16);
            per_type!(ArgMin, Ties: f64, u32, i64, f16);
            per_type!(ArgMin, Wide: f32, i32, u64, bf16);
            per_type!(ArgMax, Wide: f64, u32, i64, f16);
        }
    }
    // Every type and operation on a warp's rows, vector columns, a split of rows and one of
    // columns, with extremes first and last.
    for &(dims, axes) in ALL_TYPES {
        macro_rules! all {
            ($($t:ident),+) => {$(
                add(format!("reduce_axes/arg/{}/{dims:?}/{axes:?}/patterns", stringify!($t)), Box::new(move |g| {
                    for p in [Pattern::Ties, Pattern::Equal, Pattern::Increasing, Pattern::Decreasing] {
                        check::<$t, ArgMin>(g, dims, axes, p)?;
                        check::<$t, ArgMax>(g, dims, axes, p)?;
                    }
                    Ok(())
                }));
            )+};
        }
        all!(f32, f64, i32, u32, i64, u64, bf16, f16);
    }
    for len in [1usize, 2, 31, 32, 33, 97, 1000, 4099, 70_001] {
        add(format!("reduce_axes/arg/lengths/{len}"), Box::new(move |g| lengths(g, len)));
    }
    add("reduce_axes/arg/nan/f32".into(), Box::new(check_nan::<f32>));
    add("reduce_axes/arg/nan/f64".into(), Box::new(check_nan::<f64>));
    add("reduce_axes/arg/nan/bf16".into(), Box::new(check_nan::<bf16>));
    add("reduce_axes/arg/nan/f16".into(), Box::new(check_nan::<f16>));
    add("reduce_axes/arg/signed_zeros".into(), Box::new(signed_zeros));
    add("reduce_axes/arg/empty_and_trivial".into(), Box::new(empty_and_trivial));
    add("reduce_axes/arg/scratch_is_reused".into(), Box::new(scratch_is_reused));
    add("reduce_axes/arg/block_rows".into(), Box::new(block_rows));
    if target == Target::Gpu {
        add("reduce_axes/argmax/bf16/past_2^31_elements".into(), Box::new(past_2_31));
    }
}

/// Shapes every type and both operations run: a warp's rows, vector columns (unaligned
/// shapes too), a split row with its second pass, split columns.
const ALL_TYPES: &[(&[usize], &[usize])] = &[
    (&[33, 65], &[1]),
    (&[64, 5, 48], &[1]),
    (&[7, 130, 9], &[2, 0]),
    (&[70_001], &[0]),
    (&[20_000, 3], &[0]),
    (&[2, 3, 5, 4, 7, 3], &[0, 2, 4]),
];

/// `[len]`, `[3, len]` over axis 1 and `[len, 3]` over axis 0, increasing and decreasing
/// (the extreme at the first or the last position) and all equal.
fn lengths(gpu: &Gpu, len: usize) -> Check {
    for (dims, axes) in [(vec![len], vec![0]), (vec![3, len], vec![1]), (vec![len, 3], vec![0])] {
        for p in [Pattern::Increasing, Pattern::Decreasing, Pattern::Equal, Pattern::Ties] {
            check::<f32, ArgMax>(gpu, &dims, &axes, p)?;
            check::<i64, ArgMin>(gpu, &dims, &axes, p)?;
            check::<u32, ArgMax>(gpu, &dims, &axes, p)?;
        }
    }
    Ok(())
}

/// NaNs in one output's extent, several of them: that output's argmin and argmax are the first
/// NaN's position (before or after the extreme numbers), for rows, columns, several groups and
/// splits of both.
fn check_nan<T: ArgData>(gpu: &Gpu) -> Check
where
    ArgMin: ArgOperation<T>,
    ArgMax: ArgOperation<T>,
{
    let [nan, _, _] = T::special();
    for (dims, axes, at) in [
        (&[40, 300][..], &[1][..], &[4 * 300 + 17, 4 * 300 + 5, 4 * 300 + 299][..]),
        (&[300, 40], &[0], &[200 * 40 + 3, 7 * 40 + 3, 299 * 40 + 3]),
        (&[6, 50, 7], &[0, 2], &[3 * 350 + 20 * 7 + 6, 20 * 7, 5 * 350 + 20 * 7]),
        (&[70_001], &[0], &[50_000, 69_999, 123]),
        (&[20_000, 3], &[0], &[15_000 * 3 + 1, 19_999 * 3 + 1, 3 * 3 + 2]),
    ] {
        let n: usize = dims.iter().product();
        let mut host = data::<T>(n, seed_of("arg-nan", n), Pattern::Ties);
        for &i in at {
            host[i] = nan;
        }
        check_data::<T, ArgMin>(gpu, &host, dims, axes)?;
        check_data::<T, ArgMax>(gpu, &host, dims, axes)?;
    }
    Ok(())
}

/// Only zeros of both signs: argmin is the first −0, argmax the first +0, whichever comes
/// first in the data, for every float type, on rows, columns and a split.
fn signed_zeros(gpu: &Gpu) -> Check {
    fn each<T: ArgData>(gpu: &Gpu) -> Check
    where
        ArgMin: ArgOperation<T>,
        ArgMax: ArgOperation<T>,
    {
        let [_, neg, pos] = T::special();
        for (dims, axes) in [(&[9, 100][..], &[1][..]), (&[100, 9], &[0]), (&[70_001], &[0]), (&[5, 7, 6], &[2, 0])] {
            let n: usize = dims.iter().product();
            let mut rng = SmallRng::seed_from_u64(seed_of("arg-zeros", n));
            let host: Vec<T> = (0..n).map(|_| if rng.random_bool(0.5) { neg } else { pos }).collect();
            check_data::<T, ArgMin>(gpu, &host, dims, axes)?;
            check_data::<T, ArgMax>(gpu, &host, dims, axes)?;
        }
        // +0 first, then −0: argmin is 1, argmax 0; and the reverse.
        for (host, min, max) in [([pos, neg, pos], 1, 0), ([neg, pos, neg], 0, 1)] {
            let src = gpu.upload(&host)?;
            let mut dst = gpu.alloc_zeros::<u64>(1)?;
            gpu.arg_reduce_axes(ArgMin, &src, &[3], &[0], &mut dst)?;
            let got_min = gpu.download(&dst)?[0];
            gpu.arg_reduce_axes(ArgMax, &src, &[3], &[0], &mut dst)?;
            let got_max = gpu.download(&dst)?[0];
            if (got_min, got_max) != (min, max) {
                return Err(format!("{host:?}: argmin {got_min}, argmax {got_max}; want {min}, {max}").into());
            }
        }
        Ok(())
    }
    each::<f32>(gpu)?;
    each::<f64>(gpu)?;
    each::<bf16>(gpu)?;
    each::<f16>(gpu)
}

/// A 0-sized reduced axis with outputs is `EmptyReduction`; without outputs nothing happens;
/// reduced axes all of size 1 give position 0 everywhere; bad shapes are the typed errors.
fn empty_and_trivial(gpu: &Gpu) -> Check {
    let src = gpu.alloc_zeros::<f32>(0)?;
    let mut dst = gpu.alloc_zeros::<u64>(5)?;
    match gpu.arg_reduce_axes(ArgMax, &src, &[5, 0], &[1], &mut dst) {
        Err(Error::EmptyReduction { op: "argmax", outputs: 5, .. }) => {}
        other => return Err(format!("argmax over an empty axis: {other:?}").into()),
    }
    let mut none = gpu.alloc_zeros::<u64>(0)?;
    gpu.arg_reduce_axes(ArgMin, &src, &[0, 5], &[1], &mut none)?;
    let src = gpu.upload(&[4i32, 9, 1, 7])?;
    let mut dst = gpu.alloc_zeros::<u64>(4)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.arg_reduce_axes(ArgMax, &src, &[4, 1], &[1], &mut dst)?;
    if gpu.download(&dst)? != [0; 4] {
        return Err("an extent of 1 did not give position 0".into());
    }
    let mut dst = gpu.alloc_zeros::<u64>(1)?;
    gpu.arg_reduce_axes(ArgMin, &src, &[4], &[0], &mut dst)?;
    if gpu.download(&dst)? != [2] {
        return Err("argmin of [4, 9, 1, 7] is not 2".into());
    }
    type Case = (&'static [usize], &'static [usize], fn(&Error) -> bool);
    let cases: [Case; 5] = [
        (&[], &[], |e| matches!(e, Error::AxesRank { rank: 0 })),
        (&[4], &[1], |e| matches!(e, Error::AxisOutOfRange { axis: 1, rank: 1 })),
        (&[2, 2], &[1, 1], |e| matches!(e, Error::AxisRepeated { axis: 1 })),
        (&[5], &[0], |e| matches!(e, Error::LengthMismatch { buffer: "src", .. })),
        (&[2, 2], &[1], |e| matches!(e, Error::LengthMismatch { buffer: "dst", expected: 2, actual: 1, .. })),
    ];
    for (dims, axes, want) in cases {
        match gpu.arg_reduce_axes(ArgMax, &src, dims, axes, &mut dst) {
            Err(e) if want(&e) => {}
            other => return Err(format!("{dims:?} over {axes:?}: {other:?}").into()),
        }
    }
    Ok(())
}

/// `arg_reduce_axes_with_scratch` with one scratch for several calls gives what
/// `arg_reduce_axes` gives, and a scratch too small for a split plan is refused.
fn scratch_is_reused(gpu: &Gpu) -> Check {
    let (dims, axes) = ([20_000, 3], [0]);
    let mut scratch = gpu.arg_reduce_axes_scratch::<f32>(&dims, &axes)?;
    let plan = arg_plan::<f32, ArgMax>(&dims, &axes, 60_000, 3, gpu.plan_target())?;
    if plan.scratch == 0 || scratch.len() != plan.scratch {
        return Err(format!("a split plan wants {} partials, the scratch holds {}", plan.scratch, scratch.len()).into());
    }
    let mut got = gpu.alloc_zeros::<u64>(3)?;
    for seed in 0..2 {
        let host = data::<f32>(60_000, seed_of("arg-scratch", seed), Pattern::Ties);
        let src = gpu.upload(&host)?;
        gpu.fill_bytes(&mut got, POISON)?;
        gpu.arg_reduce_axes_with_scratch(ArgMax, &src, &dims, &axes, &mut got, &mut scratch)?;
        let want = cpu::arg_reduce_axes(&host, &dims, &axes, ArgMax)?;
        if gpu.download(&got)? != want {
            return Err(format!("call {seed} with the scratch: not {want:?}").into());
        }
    }
    let src = gpu.alloc_zeros::<f32>(60_000)?;
    let mut none = gpu.arg_reduce_axes_scratch::<f32>(&[60_000], &[])?;
    match gpu.arg_reduce_axes_with_scratch(ArgMax, &src, &dims, &axes, &mut got, &mut none) {
        Err(Error::ScratchTooSmall { needed, actual: 0 }) if needed == plan.scratch => Ok(()),
        other => Err(format!("an empty scratch for a split plan: {other:?}").into()),
    }
}

/// The trials' shapes with a block per row from 1024 elements (as `reduce_axes/block_rows`):
/// the block kernels, their shared-memory combine and their splits, for four types.
fn block_rows(gpu: &Gpu) -> Check {
    let mut table = gpu.tuning().clone();
    table.memory.axes_block_row_min = 1024;
    let gpu = gpu.with_tuning(Box::leak(Box::new(table)));
    for &(dims, sets) in CASES {
        for &axes in sets {
            check::<f32, ArgMax>(&gpu, dims, axes, Pattern::Ties)?;
            check::<u64, ArgMin>(&gpu, dims, axes, Pattern::Ties)?;
            check::<bf16, ArgMin>(&gpu, dims, axes, Pattern::Wide)?;
            check::<i32, ArgMax>(&gpu, dims, axes, Pattern::Increasing)?;
        }
    }
    Ok(())
}

/// GPU only: argmax of 2^31 + 3 `bf16` (4 GiB) zeros with ones at 2^31 + 1 and 2^31 + 2:
/// position 2^31 + 1 (past 31-bit positions), over one axis and over two rows of 2^30 + 2.
fn past_2_31(gpu: &Gpu) -> Check {
    let n = (1usize << 31) + 4;
    let mut big = None;
    if !super::enough_memory_locked(gpu, n * 2 + (1 << 20), &mut big)? {
        return Ok(());
    }
    let mut host = vec![bf16::ZERO; n];
    host[(1 << 31) + 1] = bf16::ONE;
    host[(1 << 31) + 2] = bf16::ONE;
    let src = gpu.upload(&host)?;
    drop(host);
    let mut dst = gpu.alloc_zeros::<u64>(1)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.arg_reduce_axes(ArgMax, &src, &[n], &[0], &mut dst)?;
    let got = gpu.download(&dst)?;
    if got[0] != (1 << 31) + 1 {
        return Err(format!("argmax past 2^31: got {:#x}, want {:#x}", got[0], (1u64 << 31) + 1).into());
    }
    // Two rows of 2^30 + 2: the second holds both ones, at 2^30 − 1 and 2^30.
    let mut rows = gpu.alloc_zeros::<u64>(2)?;
    gpu.fill_bytes(&mut rows, POISON)?;
    gpu.arg_reduce_axes(ArgMax, &src, &[2, n / 2], &[1], &mut rows)?;
    let got = gpu.download(&rows)?;
    if got != [0, (1 << 30) - 1] {
        return Err(format!("argmax of two rows of 2^30 + 2: got {got:?}, want [0, {}]", (1u64 << 30) - 1).into());
    }
    Ok(())
}
