//! Axis reductions (`Gpu::reduce_axes`) against the CPU references: integers and float
//! min/max bit for bit, float sums within `γ_depth · Σ|x|` of the float64 reference (the
//! plan's depth), the output poisoned before each launch; shapes of every rank 1 to 5 with
//! several axis sets (rows, columns, several reduced groups, size-1 and split outputs); NaN;
//! the errors; and on the emulator, the column kernel's shared-memory combine measured
//! conflict-free.

use bankwise::reduce::{Max, Min, Operation, Sum};
use bankwise::reduce_axes::{AxesElement, AxesKernel, AxesOperation, AxesWork, plan};
use bankwise::{DeviceBuffer, Error, Gpu, cpu};

use super::num_nan::Nan;
use super::{AddTrial, Check, POISON, Target, TestData, fits, seed_of};

/// `(dims, axis sets)` for every target: ranks 1 to 5; the innermost axis reduced (rows) and
/// kept (columns); several reduced groups; size-1 dimensions; extents past the split threshold
/// (2^14) with few outputs; all axes and none.
pub(super) const CASES: &[(&[usize], &[&[usize]])] = &[
    (&[1000], &[&[0]]),
    (&[70_001], &[&[0]]),
    (&[1], &[&[0], &[]]),
    (&[33, 65], &[&[1], &[0], &[0, 1], &[]]),
    (&[300, 2], &[&[1], &[0]]),
    (&[1, 7], &[&[1], &[0]]),
    (&[3, 20_000], &[&[1]]),
    (&[20_000, 3], &[&[0]]),
    (&[7, 130, 9], &[&[1], &[2, 0], &[2], &[0]]),
    (&[4, 1, 33], &[&[0, 1], &[2, 1]]),
    (&[64, 5, 48], &[&[0, 1], &[1]]),
    (&[3, 4, 5, 6], &[&[0, 2], &[3, 1], &[3], &[0, 1, 2, 3]]),
    (&[2, 17, 3, 40], &[&[1, 3], &[0, 2]]),
    (&[3, 2, 5, 4, 7], &[&[0, 2, 4], &[1, 3], &[4, 1]]),
    (&[2, 1, 3, 1, 64], &[&[4, 0], &[3, 1]]),
    (&[5, 3, 1, 2, 1000], &[&[0, 3], &[4, 2]]),
    // Segments of rows long enough for the vectors, unaligned (a block's in `block_rows`).
    (&[2, 3, 401], &[&[0, 2]]),
    (&[3, 2, 1501], &[&[2, 0]]),
];

/// Larger shapes, GPU only: the goals (8192², (64, 4096, 1024)), odd sizes, past the
/// grid's worker count, and splits of long rows and columns.
pub(super) const GPU_CASES: &[(&[usize], &[&[usize]])] = &[
    (&[8192, 8192], &[&[1], &[0]]),
    (&[64, 4096, 1024], &[&[1], &[0, 2]]),
    (&[3, 5_000_011], &[&[1]]),
    (&[1_000_003, 3], &[&[0]]),
    (&[257, 1025, 33], &[&[0, 2], &[1]]),
    (&[2_000_003, 7], &[&[1]]),
    (&[31, 63, 127, 5], &[&[0, 2], &[1, 3]]),
    (&[1 << 26], &[&[0]]),
];

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    let gpu_cases = if target == Target::Gpu { GPU_CASES } else { &[] };
    for &(dims, sets) in CASES.iter().chain(gpu_cases) {
        if !fits(target, dims.iter().product()) {
            continue;
        }
        for &axes in sets {
            let name = |op: &str, t: &str| format!("reduce_axes/{op}/{t}/{dims:?}/{axes:?}");
            macro_rules! per_type {
                ($op:ident: $($t:ty),+) => {$(
                    add(name(<$op as Operation<$t>>::NAME, stringify!($t)), Box::new(move |g| check::<$t, $op>(g, dims, axes)));
                )+};
            }
            per_type!(Sum: f32, f64, i32, u32, i64, u64);
            per_type!(Min: f32, f64, i32, u64);
            per_type!(Max: f32, f64, u32, i64);
            macro_rules! per_half {
                ($($op:ident),+) => {$(
                    add(name(stringify!($op), "bf16"), Box::new(move |g| check_half::<half::bf16, $op>(g, dims, axes)));
                    add(name(stringify!($op), "f16"), Box::new(move |g| check_half::<half::f16, $op>(g, dims, axes)));
                )+};
            }
            per_half!(Sum, Min, Max);
        }
    }
    add("reduce_axes/nan/f32".into(), Box::new(check_nan::<f32>));
    add("reduce_axes/nan/f64".into(), Box::new(check_nan::<f64>));
    add("reduce_axes/rejects_bad_arguments".into(), Box::new(rejects_bad_arguments));
    add("reduce_axes/empty_extents".into(), Box::new(empty_extents));
    add("reduce_axes/scratch_is_reused".into(), Box::new(scratch_is_reused));
    add("reduce_axes/block_rows".into(), Box::new(block_rows));
    if target == Target::Emulator {
        // On an emulator of its own: its reports are not mixed with other trials'.
        add("reduce_axes/column_combine_is_conflict_free".into(), Box::new(|_| column_combine_is_conflict_free()));
    }
}

/// Every case again with a block per row from 1024 elements (the H100 table gives rows a warp up
/// to 65,536 elements, which the emulator's sizes never reach): the block kernels on every
/// target, for a float sum, an integer sum, a maximum and a half-precision sum.
fn block_rows(gpu: &Gpu) -> Check {
    let mut table = gpu.tuning().clone();
    table.memory.axes_block_row_min = 1024;
    // One small table for the process (a Gpu plans with `&'static` tables).
    let gpu = gpu.with_tuning(Box::leak(Box::new(table)));
    for &(dims, sets) in CASES {
        for &axes in sets {
            check::<f32, Sum>(&gpu, dims, axes)?;
            check::<u32, Sum>(&gpu, dims, axes)?;
            check::<f64, Max>(&gpu, dims, axes)?;
            check_half::<half::bf16, Sum>(&gpu, dims, axes)?;
        }
    }
    Ok(())
}

/// Whether the float sum `got` is within the plan's bound of the reference `(sum, abs)`.
fn sum_ok(got: f64, (want, abs): (f64, f64), depth: u64, u: f64, extent: usize) -> Result<(), String> {
    if want.is_nan() {
        return if got.is_nan() { Ok(()) } else { Err(format!("got {got:e}, want NaN")) };
    }
    let tol = cpu::sum_tolerance(depth, u, extent, want, abs);
    let err = (got - want).abs();
    if err <= tol {
        Ok(())
    } else {
        Err(format!("got {got:e}, want {want:e}: error {err:e} > γ_{depth}·Σ|x| = {tol:e}"))
    }
}

fn check<T, O>(gpu: &Gpu, dims: &[usize], axes: &[usize]) -> Check
where
    T: TestData + AsF64 + AxesElement,
    O: AxesOperation<T> + Operation<T> + Default,
{
    let n: usize = dims.iter().product();
    let host = T::data(n, seed_of(&format!("axes{dims:?}{axes:?}{}", O::OP), n), O::OP == "sum");
    let src = gpu.upload(&host)?;
    let outputs: usize = (0..dims.len()).filter(|d| !axes.contains(d)).map(|d| dims[d]).product();
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(outputs)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    let plan = plan::<T, O>(dims, axes, n, outputs, gpu.plan_target())?;
    gpu.reduce_axes(O::default(), &src, dims, axes, &mut dst)?;
    let got = gpu.download(&dst)?;
    let what = |i: usize| format!("{} of {dims:?} over {axes:?}, output {i} (plan {:?})", O::OP, kernels(&plan.work));
    let extent = n / outputs.max(1);
    match (O::OP, T::UNIT_ROUNDOFF) {
        ("sum", Some(u)) => {
            let want = cpu::sum_axes_reference(&host.iter().map(|&x| x.as_f64()).collect::<Vec<_>>(), dims, axes)?;
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                sum_ok(g.as_f64(), w, plan.depth, u, extent).map_err(|e| format!("{}: {e}", what(i)))?;
            }
        }
        _ => {
            let want = cpu::reduce_axes(&host, dims, axes, O::default())?;
            if let Some(i) = cpu::first_bit_difference(&got, &want) {
                return Err(format!("{}: got {:?}, want {:?}", what(i), got[i], want[i]).into());
            }
        }
    }
    Ok(())
}

/// Half precision (`bf16`, `f16`), accumulated in `f32`: random `f32` data rounded to `H`;
/// min and max bit for bit against `cpu::reduce_axes_widened`; sums within the `f32` accumulation's bound
/// `γ_depth(2⁻²⁴) · Σ|x|` of the float64 reference, plus the final rounding to `H`: `u_H` of
/// the result's magnitude (2⁻⁸ for bf16, 2⁻¹¹ for f16), and 2⁻²⁵ absolute (half of f16's
/// smallest subnormal step).
fn check_half<H, O>(gpu: &Gpu, dims: &[usize], axes: &[usize]) -> Check
where
    H: AxesElement<Acc = f32>,
    O: AxesOperation<H> + Operation<f32> + Default,
{
    let n: usize = dims.iter().product();
    let name = std::any::type_name::<H>();
    let wide = f32::data(n, seed_of(&format!("axes{dims:?}{axes:?}{}{name}", O::OP), n), O::OP == "sum");
    let host: Vec<H> = wide.iter().map(|&x| H::narrow(x)).collect();
    let exact: Vec<f32> = host.iter().map(|&h| h.widen()).collect();
    let src = gpu.upload(&host)?;
    let outputs: usize = (0..dims.len()).filter(|d| !axes.contains(d)).map(|d| dims[d]).product();
    let mut dst: DeviceBuffer<H> = gpu.alloc_zeros(outputs)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    let plan = plan::<H, O>(dims, axes, n, outputs, gpu.plan_target())?;
    gpu.reduce_axes(O::default(), &src, dims, axes, &mut dst)?;
    let got: Vec<f32> = gpu.download(&dst)?.into_iter().map(|h| h.widen()).collect();
    let what =
        |i: usize| format!("{} {name} of {dims:?} over {axes:?}, output {i} (plan {:?})", O::OP, kernels(&plan.work));
    if O::OP == "sum" {
        let u_h = H::FINAL_ROUNDOFF.expect("half precision rounds once at the end");
        let extent = n / outputs.max(1);
        let wide: Vec<f64> = exact.iter().map(|&x| x as f64).collect();
        for (i, (&g, &(want, abs))) in got.iter().zip(&cpu::sum_axes_reference(&wide, dims, axes)?).enumerate() {
            let acc = cpu::sum_tolerance(plan.depth, 2f64.powi(-24), extent, want, abs);
            // A sum past the half type's range rounds to an infinity of its sign.
            let may_overflow = H::narrow((want.abs() + acc) as f32).widen().is_infinite();
            if g.is_infinite() && may_overflow && (g > 0.0) == (want > 0.0) {
                continue;
            }
            let tol = acc + u_h * (want.abs() + acc) + 2f64.powi(-25);
            let err = (g as f64 - want).abs();
            if err.is_nan() || err > tol {
                return Err(format!("{}: got {g:e}, want {want:e}: error {err:e} > {tol:e}", what(i)).into());
            }
        }
    } else {
        let want = cpu::reduce_axes_widened(&host, dims, axes, O::default())?;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let w = w.widen();
            if g.to_bits() != w.to_bits() {
                return Err(format!("{}: got {g:e}, want {w:e}", what(i)).into());
            }
        }
    }
    Ok(())
}

/// A value as `f64` (exact for floats; the float branch alone uses it).
trait AsF64: Copy {
    /// The float sum's unit roundoff, `None` for integers (compared exactly).
    const UNIT_ROUNDOFF: Option<f64>;
    fn as_f64(self) -> f64;
}

macro_rules! as_f64 {
    ($($t:ty => $u:expr),+) => {$(
        impl AsF64 for $t {
            const UNIT_ROUNDOFF: Option<f64> = $u;
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )+};
}
as_f64!(f32 => Some(1.0 / (1u64 << 24) as f64), f64 => Some(1.0 / (1u64 << 53) as f64), i32 => None, u32 => None, i64 => None, u64 => None);

/// The kernels of a plan's passes, for messages.
fn kernels(work: &AxesWork) -> Vec<AxesKernel> {
    match work {
        AxesWork::Passes(p) => p.iter().map(|p| p.kernel).collect(),
        _ => vec![],
    }
}

/// A NaN in one output's extent: that output's sum, min and max are NaN (min/max the canonical
/// one), and the others are not, for rows, columns and several groups.
fn check_nan<T: TestData + Nan + AxesElement>(gpu: &Gpu) -> Check
where
    Sum: AxesOperation<T>,
    Min: AxesOperation<T>,
    Max: AxesOperation<T> + Operation<T>,
{
    for (dims, axes, at) in [
        (&[40, 300][..], &[1][..], 4 * 300 + 17),
        (&[300, 40], &[0], 200 * 40 + 3),
        (&[6, 50, 7], &[0, 2], 3 * 350 + 20 * 7 + 6),
    ] {
        let n: usize = dims.iter().product();
        let mut host = T::data(n, seed_of("axes-nan", n), true);
        host[at] = T::nan();
        let src = gpu.upload(&host)?;
        let want = cpu::reduce_axes(&host, dims, axes, Max)?;
        let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(want.len())?;
        for op in ["sum", "min", "max"] {
            gpu.fill_bytes(&mut dst, POISON)?;
            match op {
                "sum" => gpu.reduce_axes(Sum, &src, dims, axes, &mut dst)?,
                "min" => gpu.reduce_axes(Min, &src, dims, axes, &mut dst)?,
                _ => gpu.reduce_axes(Max, &src, dims, axes, &mut dst)?,
            }
            let got = gpu.download(&dst)?;
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let nan = w.is_nan_value();
                let ok = if nan && op != "sum" { g.bits() == T::nan().bits() } else { g.is_nan_value() == nan };
                if !ok {
                    return Err(format!("{op} of {dims:?} over {axes:?}, NaN at {at}: output {i} is {g:?}").into());
                }
            }
        }
    }
    Ok(())
}

fn rejects_bad_arguments(gpu: &Gpu) -> Check {
    let src = gpu.upload(&[1.0f32; 24])?;
    let mut dst = gpu.alloc_zeros::<f32>(6)?;
    type Case = (&'static [usize], &'static [usize], fn(&Error) -> bool);
    let cases: [Case; 6] = [
        (&[], &[], |e| matches!(e, Error::AxesRank { rank: 0 })),
        (&[1, 1, 1, 1, 2, 2, 2, 3, 1], &[0], |e| matches!(e, Error::AxesRank { rank: 9 })),
        (&[4, 6], &[2], |e| matches!(e, Error::AxisOutOfRange { axis: 2, rank: 2 })),
        (&[4, 6], &[0, 0], |e| matches!(e, Error::AxisRepeated { axis: 0 })),
        (&[5, 6], &[0], |e| matches!(e, Error::LengthMismatch { buffer: "src", .. })),
        (&[2, 3, 4], &[1], |e| matches!(e, Error::LengthMismatch { buffer: "dst", expected: 8, actual: 6, .. })),
    ];
    for (dims, axes, want) in cases {
        match gpu.reduce_axes(Sum, &src, dims, axes, &mut dst) {
            Err(e) if want(&e) => {}
            other => return Err(format!("{dims:?} over {axes:?}: {other:?}").into()),
        }
    }
    Ok(())
}

/// A 0-sized reduced axis: the sum writes 0 to every output, min and max refuse; with no
/// outputs, min does nothing.
fn empty_extents(gpu: &Gpu) -> Check {
    let src = gpu.alloc_zeros::<i64>(0)?;
    let mut dst = gpu.alloc_zeros::<i64>(5)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.reduce_axes(Sum, &src, &[5, 0], &[1], &mut dst)?;
    if gpu.download(&dst)? != [0; 5] {
        return Err("an empty sum did not write zeros".into());
    }
    match gpu.reduce_axes(Min, &src, &[5, 0], &[1], &mut dst) {
        Err(Error::EmptyReduction { op: "min", outputs: 5, .. }) => {}
        other => return Err(format!("min over an empty axis: {other:?}").into()),
    }
    let mut none = gpu.alloc_zeros::<i64>(0)?;
    gpu.reduce_axes(Min, &src, &[0, 5], &[1], &mut none)?;
    Ok(())
}

/// `reduce_axes_with_scratch` with one scratch for several calls gives what `reduce_axes`
/// gives (bit for bit: the same plan), and a scratch too small for a split plan is refused.
fn scratch_is_reused(gpu: &Gpu) -> Check {
    let (dims, axes) = ([20_000, 3], [0]);
    let mut scratch = gpu.reduce_axes_scratch::<f32>(&dims, &axes)?;
    let plan = plan::<f32, Sum>(&dims, &axes, 60_000, 3, gpu.plan_target())?;
    if plan.scratch == 0 || scratch.len() != plan.scratch {
        return Err(format!("a split plan wants {} partials, the scratch holds {}", plan.scratch, scratch.len()).into());
    }
    let (mut want, mut got) = (gpu.alloc_zeros::<f32>(3)?, gpu.alloc_zeros::<f32>(3)?);
    for seed in 0..2 {
        let src = gpu.upload(&f32::data(60_000, seed_of("axes-scratch", seed), true))?;
        gpu.reduce_axes(Sum, &src, &dims, &axes, &mut want)?;
        gpu.fill_bytes(&mut got, POISON)?;
        gpu.reduce_axes_with_scratch(Sum, &src, &dims, &axes, &mut got, &mut scratch)?;
        let (w, g) = (gpu.download(&want)?, gpu.download(&got)?);
        if let Some(i) = cpu::first_bit_difference(&g, &w) {
            return Err(format!("call {seed}, output {i}: {} with the scratch, {} without", g[i], w[i]).into());
        }
    }
    let src = gpu.alloc_zeros::<f32>(60_000)?;
    let mut none = gpu.reduce_axes_scratch::<f32>(&[60_000], &[])?;
    match gpu.reduce_axes_with_scratch(Sum, &src, &dims, &axes, &mut got, &mut none) {
        Err(Error::ScratchTooSmall { needed, actual: 0 }) if needed == plan.scratch => Ok(()),
        other => Err(format!("an empty scratch for a split plan: {other:?}").into()),
    }
}

/// The column kernel's combine through shared memory, a plane `shared[k·256 + y·32 + x]` per
/// column a thread owns: every warp reads and writes 32 consecutive slots, so each request
/// takes 1 wavefront for 4-byte elements and 2 (256 bytes, the minimum) for 8-byte ones, at
/// every shared site of the kernel (the 16-byte-vector plan: 4 planes for f32, 2 for u64).
fn column_combine_is_conflict_free() -> Check {
    let gpu = Gpu::emulator()?;
    for bytes in [4, 8] {
        gpu.take_emulator_reports();
        // 128 columns: whole tiles of 32 threads × 4 f32 (or 2 u64) columns, so whole warps
        // everywhere (a last tile of fewer columns reads fewer bytes).
        let (dims, axes) = ([100, 3, 128], [0, 1]);
        if bytes == 4 {
            let src = gpu.upload(&vec![1.5f32; 38_400])?;
            let mut dst = gpu.alloc_zeros::<f32>(128)?;
            gpu.reduce_axes(Sum, &src, &dims, &axes, &mut dst)?;
        } else {
            let src = gpu.upload(&vec![7u64; 38_400])?;
            let mut dst = gpu.alloc_zeros::<u64>(128)?;
            gpu.reduce_axes(Max, &src, &dims, &axes, &mut dst)?;
        }
        let reports = gpu.take_emulator_reports();
        let sites: Vec<_> = reports
            .iter()
            .filter(|r| r.kernel.starts_with("reduce_columns_"))
            .flat_map(|r| r.report.sites.iter())
            .collect();
        if sites.len() < 3 {
            return Err(format!(
                "{bytes}-byte: {} shared sites reported; want the slot write and the tree's",
                sites.len()
            )
            .into());
        }
        let want = if bytes == 4 { 1.0 } else { 2.0 };
        for s in sites {
            if s.wavefronts_per_request() != want {
                return Err(format!(
                    "{bytes}-byte {:?} at {}:{}: {} wavefronts per request, want {want}",
                    s.op,
                    s.site.file,
                    s.site.line,
                    s.wavefronts_per_request()
                )
                .into());
            }
        }
    }
    Ok(())
}
