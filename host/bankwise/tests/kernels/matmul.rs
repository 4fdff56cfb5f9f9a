//! The matrix multiply ladder against the float64 CPU reference (`cpu::matmul`): random inputs
//! within its derived bound, small integer inputs exactly; `C` poisoned with NaN where `β = 0`
//! (it must not be read) and random where `β ≠ 0`; padded leading dimensions, with the padding
//! checked untouched. The tuned kernel at each tile size (square; wide, `f32` only), also over
//! every pair of `op`s and over batches whose matrices have gaps between them (checked
//! untouched) or share one `B`; its whole-tile entries on shapes its tiles divide.

use bankwise::matmul::{Float, MatmulKernel, MatmulShape, Op, TunedPlan, TunedTile};
use bankwise::tuning::{PlanTarget, h100::H100};
use bankwise::{Error, Gpu, cpu};
use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::{AddTrial, Check, Target};

/// The H100 SXM the strips' shapes were chosen for, with its table.
const H100_SXM: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

/// `(m, n, k)`.
type Dims = (usize, usize, usize);

/// `(m, n, k)`: 1, primes, non-multiples of the 32-wide tile, K = 1, thin and wide shapes.
const SHAPES: [Dims; 40] = [
    (1, 1, 1),
    (1, 257, 1),
    (257, 1, 1),
    (1, 1, 300),
    (1, 64, 7),
    (2, 3, 4),
    (5, 1, 9),
    (7, 7, 7),
    (13, 200, 11),
    (17, 300, 5),
    (31, 33, 35),
    (31, 37, 41),
    (32, 32, 32),
    (33, 65, 17),
    (33, 33, 33),
    (40, 50, 1),
    (63, 65, 64),
    (64, 64, 64),
    (65, 63, 31),
    (96, 97, 95),
    (97, 101, 103),
    (100, 3, 2),
    (127, 129, 1),
    (128, 1, 128),
    (1, 128, 128),
    (128, 128, 129),
    (3, 5, 1000),
    (200, 7, 3),
    (11, 13, 257),
    (47, 53, 59),
    (61, 67, 71),
    (73, 79, 83),
    (89, 2, 97),
    (2, 89, 97),
    (64, 96, 160),
    (160, 64, 96),
    (33, 1, 33),
    (1, 33, 33),
    (250, 130, 9),
    (9, 130, 250),
];

/// Shapes of one tile of `C` whose `k` the tuned rung splits (`bankwise::matmul::SplitK`) at
/// either tile size on any device, the emulator on 2 cores included: a last slice shorter than
/// the others, every pair of `op`s.
const SPLIT_SHAPES: [(Dims, (Op, Op)); 5] = [
    ((64, 64, 1030), (Op::N, Op::N)),
    ((3, 60, 777), (Op::N, Op::T)),
    ((100, 3, 1000), (Op::T, Op::N)),
    ((128, 64, 600), (Op::T, Op::T)),
    ((1, 1, 513), (Op::N, Op::N)),
];

/// Shapes whose operands the tuned rung's plan copies to aligned rows first
/// (`bankwise::matmul::Realign`): rows that do not start on 16 bytes, each element used at
/// least 2048 times (`f32`); with the padding of [`Case`] (`pad`), the `op`s. The first two are
/// small enough for the emulator; the last copies `B` only and splits `k`.
const REALIGN_SHAPES: [(Dims, (Op, Op), usize); 5] = [
    ((1, 2048, 3), (Op::N, Op::N), 0),
    ((2048, 1, 3), (Op::N, Op::T), 0),
    ((2100, 2050, 77), (Op::N, Op::N), 1),
    ((2050, 2053, 65), (Op::T, Op::T), 0),
    ((2048, 3, 1031), (Op::N, Op::N), 0),
];

/// Shapes whose last `rest` columns of `C` the tuned rungs compute apart, with a plan of their
/// own (`bankwise::matmul::TunedPlan::with_strip`): `(dims, ops, batch, rest)`; a strip one
/// column wide whose `k` its plan splits (on the emulator's SMs too), one wider than a tile,
/// and a batch with `B` transposed. Small enough for the emulator.
const STRIP_SHAPES: [(Dims, (Op, Op), usize, usize); 4] = [
    ((33, 70, 17), (Op::N, Op::N), 1, 6),
    ((65, 131, 600), (Op::N, Op::T), 1, 1),
    ((40, 257, 9), (Op::T, Op::T), 3, 2),
    ((17, 300, 33), (Op::T, Op::N), 1, 172),
];

/// Shapes where the plan the tuned rungs pick on an H100 computes a strip apart
/// (`TunedPlan::strip`), through `f32`'s rung 9 (the second copies `B` to aligned rows, both
/// split `k`) and `f64`'s rung 10: `(dims, ops)`.
const PICKED_STRIP_SHAPES: [(Dims, (Op, Op), MatmulKernel); 4] = [
    ((1024, 2049, 1024), (Op::N, Op::T), MatmulKernel::Tuned),
    ((2048, 1025, 1024), (Op::T, Op::N), MatmulKernel::Tuned),
    ((2048, 257, 1024), (Op::T, Op::T), MatmulKernel::Multistage),
    ((1024, 1025, 512), (Op::N, Op::N), MatmulKernel::Multistage),
];

/// Shapes the tuned rung's `f32` tiles (and the multistage rung's wide `f64` ones) divide,
/// rows aligned, so that they run their whole-tile entries (`TunedTile::whole`): `(dims, ops, pad, batch)`, the padding keeping rows aligned;
/// enough steps along `k` for the unchecked path, a partial last step, a batch of packed
/// products. The first three are small enough for the emulator.
const WHOLE_SHAPES: [(Dims, (Op, Op), usize, usize); 6] = [
    ((128, 256, 40), (Op::N, Op::N), 0, 1),
    ((128, 256, 45), (Op::N, Op::T), 3, 1),
    ((256, 256, 29), (Op::T, Op::N), 0, 2),
    ((128, 512, 76), (Op::T, Op::T), 8, 1),
    ((384, 256, 1000), (Op::N, Op::N), 0, 1),
    ((256, 768, 128), (Op::N, Op::T), 0, 3),
];

/// What a trial varies besides the shape.
#[derive(Clone, Copy, Debug)]
struct Case {
    alpha: f64,
    beta: f64,
    /// Extra elements at the end of every row (leading dimension = row length + pad).
    pad: usize,
    /// Small integers (checked exactly) instead of random reals.
    integers: bool,
}

/// Which kernel a trial runs: a rung of the ladder (a tuned one with the plan it picks), or a
/// tuned rung with a chosen tile size.
#[derive(Clone, Copy, Debug)]
enum Run {
    Rung(MatmulKernel),
    Tuned(MatmulKernel, TunedTile),
    /// A tuned rung at a tile size whose tiles cover the columns before the given one.
    Strip(MatmulKernel, TunedTile, usize),
}

impl Run {
    fn name(self) -> String {
        match self {
            Run::Rung(k) => k.name().to_string(),
            Run::Tuned(kernel, TunedTile::Square) => kernel.name().to_string(),
            Run::Tuned(kernel, tile) => format!("{}_{}", kernel.name(), tile.name()),
            Run::Strip(kernel, tile, columns) => format!("{} strip from {columns}", Run::Tuned(kernel, tile).name()),
        }
    }
}

/// What a trial of the tuned kernel adds: the `op`s, and a batch (products, whether they
/// share one `B`).
#[derive(Clone, Copy, Debug)]
struct Extra {
    ops: (Op, Op),
    batch: usize,
    shared_b: bool,
}

/// `m × n × k` with the case's padding on every leading dimension, the `op`s, and for a batch
/// strides that leave gaps of 3 elements between the `A`s and 2 between the `C`s.
fn shape_of((m, n, k): Dims, case: Case, extra: Extra) -> MatmulShape {
    let s = MatmulShape::new(m, n, k).with_ops(extra.ops.0, extra.ops.1);
    let s = s.with_leading_dimensions(s.lda() + case.pad, s.ldb() + case.pad, s.ldc() + case.pad);
    if extra.batch == 1 {
        return s;
    }
    let p = s.batched_packed(extra.batch);
    p.batched(extra.batch, p.stride_a() + 3, if extra.shared_b { 0 } else { p.stride_b() }, p.stride_c() + 2)
}

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    let plain = Extra { ops: (Op::N, Op::N), batch: 1, shared_b: false };
    let mut runs: Vec<Run> = MatmulKernel::ALL.into_iter().filter(|k| !k.is_tuned()).map(Run::Rung).collect();
    for kernel in MatmulKernel::ALL.into_iter().filter(|k| k.is_tuned()) {
        runs.extend(TunedTile::ALL.map(|tile| Run::Tuned(kernel, tile)));
    }
    for run in runs {
        let k = run.name();
        // The tuned rung's wide tiles are f32 only.
        let f64s = !matches!(run, Run::Tuned(MatmulKernel::Tuned, TunedTile::Wide));
        // `split`: the trial must split `k`.
        let mut add_both = |name: String, shape: MatmulShape, case: Case, split: bool| {
            add(format!("{k}/f32/{name}"), Box::new(move |g| check_run::<f32>(g, run, shape, case, split)));
            if f64s {
                add(format!("{k}/f64/{name}"), Box::new(move |g| check_run::<f64>(g, run, shape, case, split)));
            }
        };
        for (i, &dims) in SHAPES.iter().enumerate() {
            // Cycle the cases over the shapes, so each shape meets one and each case many.
            let case = [
                Case { alpha: 1.0, beta: 0.0, pad: 0, integers: false },
                Case { alpha: -1.5, beta: 0.75, pad: 0, integers: false },
                Case { alpha: 1.0, beta: 1.0, pad: 3, integers: true },
                Case { alpha: 2.0, beta: 0.0, pad: 5, integers: false },
            ][i % 4];
            let shape = shape_of(dims, case, plain);
            add_both(shape.to_string(), shape, case, false);
            if let Run::Tuned(..) = run {
                // Every shape again with another pair of `op`s (NN's turn: a batch of 4 sharing
                // one B), every third other shape as a batch of 2 or 3.
                let ops = [(Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T), (Op::N, Op::N)][i % 4];
                let (batch, shared_b) = match i % 4 {
                    3 => (4, true),
                    r if i % 3 == 0 => (1 + r, false),
                    _ => (1, false),
                };
                let extra = Extra { ops, batch, shared_b };
                let case = Case { pad: (i % 3) * 2, ..case };
                let shape = shape_of(dims, case, extra);
                add_both(shape.to_string(), shape, case, false);
            }
        }
        if let Run::Tuned(..) = run {
            for (i, &(dims, ops)) in SPLIT_SHAPES.iter().enumerate() {
                let case = [
                    Case { alpha: 1.0, beta: 0.0, pad: 0, integers: false },
                    Case { alpha: -1.5, beta: 0.75, pad: 2, integers: false },
                    Case { alpha: 1.0, beta: 1.0, pad: 1, integers: true },
                ][i % 3];
                let shape = shape_of(dims, case, Extra { ops, batch: 1, shared_b: false });
                add_both(format!("{shape} split"), shape, case, true);
            }
        }
        if target == Target::Gpu {
            // A K past 8192, and a C larger than the L2 cache.
            let case = Case { alpha: 1.0, beta: 0.5, pad: 1, integers: false };
            let deep = shape_of((33, 70, 10_007), case, plain);
            add_both(deep.to_string(), deep, case, false);
            let case = Case { alpha: 1.0, beta: 0.0, pad: 0, integers: true };
            let big = shape_of((1500, 4099, 40), case, plain);
            add(format!("{k}/f32/{big}"), Box::new(move |g| check::<f32>(g, run, big, case)));
        }
    }
    for kernel in MatmulKernel::ALL.into_iter().filter(|k| k.is_tuned()) {
        for (i, &(dims, ops)) in SPLIT_SHAPES.iter().enumerate() {
            // The plan the tuned rung picks, which must split these.
            let case = Case { alpha: 0.5, beta: 0.25, pad: i % 2, integers: false };
            let shape = shape_of(dims, case, Extra { ops, batch: 1, shared_b: false });
            let k = kernel.name();
            add(format!("{k}/f32/{shape} picked"), Box::new(move |g| check_picked::<f32>(g, kernel, shape, case)));
            add(format!("{k}/f64/{shape} picked"), Box::new(move |g| check_picked::<f64>(g, kernel, shape, case)));
        }
    }
    let shapes = if target == Target::Gpu { &WHOLE_SHAPES[..] } else { &WHOLE_SHAPES[..3] };
    for (i, &((m, n, k), (op_a, op_b), pad, batch)) in shapes.iter().enumerate() {
        let case = Case { alpha: [1.0, -0.5][i % 2], beta: [0.0, 0.25, 1.0][i % 3], pad, integers: i % 2 == 0 };
        let s = MatmulShape::new(m, n, k).with_ops(op_a, op_b);
        let shape = s.with_leading_dimensions(s.lda() + pad, s.ldb() + pad, s.ldc() + pad).batched_packed(batch);
        for tile in TunedTile::ALL {
            let run = Run::Tuned(MatmulKernel::Tuned, tile);
            add(
                format!("{}/f32/{shape} whole", run.name()),
                Box::new(move |g| check_whole::<f32>(g, run, shape, case)),
            );
        }
        let run = Run::Tuned(MatmulKernel::Multistage, TunedTile::Wide);
        add(format!("{}/f64/{shape} whole", run.name()), Box::new(move |g| check_whole::<f64>(g, run, shape, case)));
    }
    for (i, &(dims, ops, batch, rest)) in STRIP_SHAPES.iter().enumerate() {
        let case = Case { alpha: -0.75, beta: [0.5, 0.0][i % 2], pad: i % 3, integers: i % 2 == 1 };
        let shape = shape_of(dims, case, Extra { ops, batch, shared_b: false });
        for kernel in MatmulKernel::ALL.into_iter().filter(|k| k.is_tuned()) {
            for tile in TunedTile::ALL {
                let run = Run::Strip(kernel, tile, dims.1 - rest);
                let name = run.name();
                add(format!("{name}/f32/{shape}"), Box::new(move |g| check::<f32>(g, run, shape, case)));
                if tile.tiles::<f64>(kernel).is_some() {
                    add(format!("{name}/f64/{shape}"), Box::new(move |g| check::<f64>(g, run, shape, case)));
                }
            }
        }
    }
    if target == Target::Gpu {
        for (i, &(dims, ops, kernel)) in PICKED_STRIP_SHAPES.iter().enumerate() {
            let case = Case { alpha: 1.5, beta: [0.0, -1.0][i % 2], pad: 0, integers: i % 2 == 0 };
            let shape = shape_of(dims, case, Extra { ops, batch: 1, shared_b: false });
            let k = kernel.name();
            if kernel == MatmulKernel::Tuned {
                add(format!("{k}/f32/{shape} strip"), Box::new(move |g| check_strip::<f32>(g, kernel, shape, case)));
            } else {
                add(format!("{k}/f64/{shape} strip"), Box::new(move |g| check_strip::<f64>(g, kernel, shape, case)));
            }
        }
    }
    // `f32` through the tuned rung only: the copies were measured slower elsewhere.
    let shapes = if target == Target::Gpu { &REALIGN_SHAPES[..] } else { &REALIGN_SHAPES[..2] };
    for (i, &(dims, ops, pad)) in shapes.iter().enumerate() {
        let case = Case { alpha: 1.25, beta: [0.0, 0.5][i % 2], pad, integers: i % 2 == 1 };
        let shape = shape_of(dims, case, Extra { ops, batch: 1, shared_b: false });
        add(format!("matmul_tuned/f32/{shape} realigned"), Box::new(move |g| check_realigned(g, shape, case)));
    }
    if target == Target::Gpu {
        // More products than one grid holds (65,535): the host launches two grids.
        let case = Case { alpha: 1.0, beta: 0.0, pad: 0, integers: true };
        let many = shape_of((3, 5, 2), case, Extra { ops: (Op::T, Op::N), batch: 70_000, shared_b: false });
        for kernel in MatmulKernel::ALL.into_iter().filter(|k| k.is_tuned()) {
            for tile in TunedTile::ALL {
                let run = Run::Tuned(kernel, tile);
                add(format!("{}/f32/{many}", run.name()), Box::new(move |g| check::<f32>(g, run, many, case)));
            }
        }
    }
    add("matmul/rejects_bad_arguments".into(), Box::new(rejects_bad_arguments));
}

/// A buffer of `batch` matrices `stride` apart, each `rows × ld` with its `rows × cols` in the
/// first columns; `fill` everywhere else (padding and gaps).
#[allow(clippy::too_many_arguments)]
fn matrices<T: Float>(
    rng: &mut SmallRng,
    (rows, cols, ld): (usize, usize, usize),
    (batch, stride): (usize, usize),
    integers: bool,
    fill: f64,
) -> Vec<T> {
    let len = (batch - 1) * stride + (rows - 1) * ld + cols;
    let mut v = vec![T::from_f64(fill); len];
    for z in 0..batch {
        for r in 0..rows {
            for c in 0..cols {
                let x = if integers {
                    rng.random_range(-4i32..=4) as f64
                } else {
                    // Reals in [-1, 1) with 20 significant bits: exact in f32.
                    (rng.random_range(-(1 << 20)..(1 << 20)) as f64) / (1 << 20) as f64
                };
                v[z * stride + r * ld + c] = T::from_f64(x);
            }
        }
    }
    v
}

fn check<T: Float>(gpu: &Gpu, run: Run, shape: MatmulShape, case: Case) -> Check {
    let seed = (shape.m * 1_000_003 + shape.n * 1009 + shape.k + shape.batch * 7) as u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    let stored = |op: Op, rows: usize, cols: usize| if op == Op::N { (rows, cols) } else { (cols, rows) };
    let (a_rows, a_cols) = stored(shape.op_a, shape.m, shape.k);
    let (b_rows, b_cols) = stored(shape.op_b, shape.k, shape.n);
    let batch = shape.batch;
    // A's and B's padding and gaps hold NaN: reading them would poison the result.
    let a = matrices::<T>(&mut rng, (a_rows, a_cols, shape.lda()), (batch, shape.stride_a()), case.integers, f64::NAN);
    let b = matrices::<T>(&mut rng, (b_rows, b_cols, shape.ldb()), (batch, shape.stride_b()), case.integers, f64::NAN);
    // C: NaN where β = 0 (it must not be read), values where β ≠ 0; 7 in its padding and gaps.
    let mut c = matrices::<T>(&mut rng, (shape.m, shape.n, shape.ldc()), (batch, shape.stride_c()), case.integers, 7.0);
    // Which product's element each position of C holds, if any.
    let mut element = vec![None; c.len()];
    for z in 0..batch {
        for r in 0..shape.m {
            for col in 0..shape.n {
                let at = z * shape.stride_c() + r * shape.ldc() + col;
                element[at] = Some(((z * shape.m + r) * shape.n + col, (z, r, col)));
                if case.beta == 0.0 {
                    c[at] = T::from_f64(f64::NAN);
                }
            }
        }
    }
    let (alpha, beta) = (T::from_f64(case.alpha), T::from_f64(case.beta));
    let (want, bound) = cpu::matmul(alpha, &a, &b, beta, &c, shape)?;
    let (a_dev, b_dev) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut c_dev = gpu.upload(&c)?;
    match run {
        Run::Rung(kernel) => gpu.matmul_with(kernel, alpha, &a_dev, &b_dev, beta, &mut c_dev, shape)?,
        Run::Tuned(kernel, tile) => {
            let plan = TunedPlan::new::<T>(kernel, tile, shape, gpu.plan_target())?;
            gpu.matmul_tuned(plan, alpha, &a_dev, &b_dev, beta, &mut c_dev, shape)?
        }
        Run::Strip(kernel, tile, columns) => {
            let plan = TunedPlan::new::<T>(kernel, tile, shape, gpu.plan_target())?.with_strip(columns);
            gpu.matmul_tuned(plan, alpha, &a_dev, &b_dev, beta, &mut c_dev, shape)?
        }
    }
    let got = gpu.download(&c_dev)?;
    for (at, (&g, &x)) in got.iter().zip(&c).enumerate() {
        let Some((i, (z, r, col))) = element[at] else {
            if g.into().to_bits() != x.into().to_bits() {
                return Err(format!("{shape}: C's padding at element {at} changed to {g:?}").into());
            }
            continue;
        };
        let (w, tol) = (want[i], bound[i]);
        let g: f64 = g.into();
        let ok = if case.integers { g == w } else { (g - w).abs() <= tol };
        if !ok {
            return Err(format!(
                "{shape} {case:?}: product {z}'s C[{r}][{col}] = {g:e}, reference {w:e}, bound {tol:e} ({})",
                if case.integers { "exact" } else { "within" }
            )
            .into());
        }
    }
    Ok(())
}

/// [`check`], first making sure that the tuned rung at its tile size splits `k` where `split`.
fn check_run<T: Float>(gpu: &Gpu, run: Run, shape: MatmulShape, case: Case, split: bool) -> Check {
    if let (Run::Tuned(kernel, tile), true) = (run, split)
        && TunedPlan::new::<T>(kernel, tile, shape, gpu.plan_target())?.split().is_none()
    {
        return Err(format!("{shape}: the tuned rung's {} tiles do not split k here", tile.name()).into());
    }
    check::<T>(gpu, run, shape, case)
}

/// [`check`] of a tuned rung with the plan it picks, which must split `k` over blocks.
fn check_picked<T: Float>(gpu: &Gpu, kernel: MatmulKernel, shape: MatmulShape, case: Case) -> Check {
    if TunedPlan::for_shape::<T>(kernel, shape, gpu.plan_target()).split().is_none() {
        return Err(format!("{shape}: {} does not split k here", kernel.name()).into());
    }
    check::<T>(gpu, Run::Rung(kernel), shape, case)
}

/// [`check`] of a tuned rung at a tile size, which must run its whole-tile entry.
fn check_whole<T: Float>(gpu: &Gpu, run: Run, shape: MatmulShape, case: Case) -> Check {
    let Run::Tuned(kernel, tile) = run else { return Err("not a tuned rung at a tile size".into()) };
    match tile.entry::<T>(kernel, shape) {
        Some(entry) if entry.name().contains("_whole_") => check::<T>(gpu, run, shape, case),
        other => {
            Err(format!("{shape}: {} runs {:?}, not a whole-tile entry", run.name(), other.map(|e| e.name())).into())
        }
    }
}

/// [`check`] of a tuned rung with the plan it picks, which on an H100 (132 SMs, its tuning
/// table: the GPU the shapes were chosen for) must compute a strip apart.
fn check_strip<T: Float>(gpu: &Gpu, kernel: MatmulKernel, shape: MatmulShape, case: Case) -> Check {
    if TunedPlan::for_shape::<T>(kernel, shape, H100_SXM).strip().is_none() {
        return Err(format!("{shape}: {} computes no strip apart on an H100", kernel.name()).into());
    }
    check::<T>(gpu, Run::Rung(kernel), shape, case)
}

/// [`check`] of the tuned rung in `f32` with the plan it picks, which must copy an operand to
/// aligned rows first.
fn check_realigned(gpu: &Gpu, shape: MatmulShape, case: Case) -> Check {
    let kernel = MatmulKernel::Tuned;
    if TunedPlan::for_shape::<f32>(kernel, shape, gpu.plan_target()).realign() == Default::default() {
        return Err(format!("{shape}: the tuned rung copies no operand to aligned rows here").into());
    }
    check::<f32>(gpu, Run::Rung(kernel), shape, case)
}

/// A rejected call: its kernel, its shape, and the error it must get.
type BadCall = (MatmulKernel, MatmulShape, fn(&Error) -> bool);

fn rejects_bad_arguments(gpu: &Gpu) -> Check {
    let a = gpu.upload(&[1.0f32; 6])?;
    let b = gpu.upload(&[1.0f32; 6])?;
    let mut c = gpu.upload(&[0.0f32; 4])?;
    let tuned = MatmulKernel::Tuned;
    let cases: [BadCall; 8] = [
        (tuned, MatmulShape::new(2, 2, 0), |e| matches!(e, Error::ZeroDimension { what: "k" })),
        (tuned, MatmulShape::new(2, 2, 4), |e| matches!(e, Error::MatrixTooShort { matrix: "A", .. })),
        (tuned, MatmulShape::new(2, 2, 3).with_leading_dimensions(3, 1, 2), |e| {
            matches!(e, Error::LeadingDimension { matrix: "B", .. })
        }),
        // Aᵀ stored 3 × 2 needs lda ≥ 2, and gets 1.
        (tuned, MatmulShape::new(2, 2, 3).with_ops(Op::T, Op::N).with_leading_dimensions(1, 2, 2), |e| {
            matches!(e, Error::LeadingDimension { matrix: "A", ld: 1, row_len: 2 })
        }),
        (tuned, MatmulShape::new(1, 2, 3).batched(0, 3, 0, 2), |e| matches!(e, Error::ZeroDimension { what: "batch" })),
        (tuned, MatmulShape::new(1, 2, 3).batched(2, 3, 0, 1), |e| {
            matches!(e, Error::OverlappingBatches { stride: 1, span: 2 })
        }),
        (tuned, MatmulShape::new(1, 2, 3).batched(3, 3, 0, 2), |e| {
            matches!(e, Error::BatchTooShort { matrix: "A", batch: 3, expected: 9, actual: 6, .. })
        }),
        (MatmulKernel::WarpTile, MatmulShape::new(2, 2, 3).with_ops(Op::N, Op::T), |e| {
            matches!(e, Error::MatmulUnsupported { kernel: "matmul_warptile", .. })
        }),
    ];
    for (kernel, shape, ok) in cases {
        match gpu.matmul_with(kernel, 1.0, &a, &b, 0.0, &mut c, shape) {
            Err(e) if ok(&e) => {}
            other => return Err(format!("{shape}: expected its error, got {other:?}").into()),
        }
    }
    // A tuned plan whose split of k was made for another shape.
    let one = MatmulShape::new(1, 1, 1000);
    let plan = TunedPlan::new::<f32>(MatmulKernel::Tuned, TunedTile::Square, one, gpu.plan_target())?;
    if plan.split().is_none() {
        return Err("1×1×1000 does not split".into());
    }
    match gpu.matmul_tuned(plan, 1.0, &a, &b, 0.0, &mut c, MatmulShape::new(2, 2, 3)) {
        Err(Error::TunedPlanUnfit { .. }) => {}
        other => return Err(format!("a plan for another k: expected its error, got {other:?}").into()),
    }
    // Strips at column 0 and past n.
    let square = MatmulShape::new(2, 2, 3);
    let plan = TunedPlan::new::<f32>(MatmulKernel::Tuned, TunedTile::Square, square, gpu.plan_target())?;
    for columns in [0, 3] {
        match gpu.matmul_tuned(plan.with_strip(columns), 1.0, &a, &b, 0.0, &mut c, square) {
            Err(Error::TunedPlanUnfit { .. }) => {}
            other => {
                return Err(format!("a strip from column {columns} of 2: expected its error, got {other:?}").into());
            }
        }
    }
    // Nothing was launched: C is as it was.
    if gpu.download(&c)? != [0.0; 4] {
        return Err("a rejected call changed C".into());
    }
    Ok(())
}
