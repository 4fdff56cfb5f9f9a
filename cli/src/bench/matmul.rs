//! The matrix multiply suite of `bankwise bench`: every rung of the ladder beside cuBLAS's
//! `gemm` of the same operands, their runs interleaved (`measure_pair`), at the shapes of the
//! ladder's goals. FLOP/s count `2·m·n·k` per run; the peak is the CUDA cores' (FMA lanes per
//! SM × 2 × SMs × the SM clock), known for sm_80 and sm_90.

use anyhow::Result;
use bankwise::matmul::{MatmulKernel, MatmulShape, Op, TunedPlan, TunedTile};
use bankwise::runtime::cudarc::cublas::CudaBlas;
use bankwise::timing::{Stats, measure_pair, rotation};
use bankwise::{DeviceBuffer, Gpu};
use bankwise_benches::cublas::{self, Gemm};
use indicatif::ProgressBar;

use super::chart::{BLUE, Chart, ORANGE};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The shapes `(m, n, k)` of the ladder's goals; `--quick` takes the first two.
const SHAPES: [(usize, usize, usize); 6] = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (4095, 4097, 4093),
    (4096, 4096, 256),
    (256, 4096, 4096),
];

/// The tuned rung's further cases, beside cuBLAS with the same `op`s (`gemmStridedBatched`
/// for the batch): each pair of `op`s but NN at 4096³, and 64 products of 512³.
fn tuned_shapes() -> [MatmulShape; 4] {
    let s = MatmulShape::new(4096, 4096, 4096);
    [
        s.with_ops(Op::N, Op::T),
        s.with_ops(Op::T, Op::N),
        s.with_ops(Op::T, Op::T),
        MatmulShape::new(512, 512, 512).batched_packed(64),
    ]
}

/// What a row times: a rung (the tuned one with the plan it picks), the tuned rung at a
/// chosen tile size, or that without copying unaligned operands to aligned rows first (timed
/// only where the plan copies some: `bankwise::matmul::Realign`).
#[derive(Clone, Copy)]
enum Which {
    Rung(MatmulKernel),
    Tile(MatmulKernel, TunedTile),
    InPlace(MatmulKernel, TunedTile),
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Rung(k) => k.name(),
            Which::Tile(MatmulKernel::Multistage, TunedTile::Square) => "matmul_multistage (square tiles)",
            Which::Tile(MatmulKernel::Multistage, TunedTile::Wide) => "matmul_multistage (wide tiles)",
            Which::Tile(_, TunedTile::Square) => "matmul_tuned (square tiles)",
            Which::Tile(_, TunedTile::Wide) => "matmul_tuned (wide tiles)",
            Which::InPlace(_, TunedTile::Square) => "matmul_tuned (square tiles, rows read in place)",
            Which::InPlace(_, TunedTile::Wide) => "matmul_tuned (wide tiles, rows read in place)",
        }
    }
}

/// The shapes at which the tuned rung is also timed at each tile size (`f32`): the rates
/// `TunedPlan::for_shape` weighs them by (each pair of `op`s at 4096³, the figures of a GPU's
/// table in `bankwise::tuning`), and the odd shape where the wide tiles' last wave is a sliver.
fn tile_shapes() -> [MatmulShape; 5] {
    let s = MatmulShape::new(4096, 4096, 4096);
    [
        s,
        s.with_ops(Op::N, Op::T),
        s.with_ops(Op::T, Op::N),
        s.with_ops(Op::T, Op::T),
        MatmulShape::new(4095, 4097, 4093),
    ]
}

/// Shapes whose plan computes a strip of columns apart (`TunedPlan::strip`), timed with the
/// tuned rungs' plans beside each tile size without one.
const STRIP_SHAPES: [(usize, usize, usize); 3] = [(2048, 2049, 2048), (3000, 3001, 2999), (4000, 4000, 4000)];

/// One line of the table.
pub struct Row {
    kernel: &'static str,
    dtype: &'static str,
    shape: MatmulShape,
    stats: Stats,
    /// cuBLAS on the same operands, interleaved; `None` without cuBLAS.
    blas: Option<Stats>,
    /// The CUDA cores' peak for this type, in TFLOP/s, where known.
    peak: Option<f64>,
}

impl Row {
    fn tflops(&self, s: &Stats) -> f64 {
        self.shape.flops() / (s.median_ms * 1e-3) / 1e12
    }

    /// The row's cells: kernel, type, shape, median ms, TFLOP/s, cuBLAS's TFLOP/s, % of
    /// cuBLAS, % of peak ("-" where unknown).
    fn cells(&self) -> [String; 8] {
        let ours = self.tflops(&self.stats);
        let blas = self.blas.as_ref().map(|s| self.tflops(s));
        let percent = |of: Option<f64>| of.map_or("-".into(), |x| format!("{:.1}%", 100.0 * ours / x));
        [
            self.kernel.to_string(),
            self.dtype.to_string(),
            self.shape.to_string(),
            format!("{:.3}", self.stats.median_ms),
            format!("{ours:.2}"),
            blas.map_or("-".into(), |b| format!("{b:.2}")),
            percent(blas),
            percent(self.peak),
        ]
    }
}

/// A rung by its name (`--matmul-kernel`).
pub fn parse_kernel(name: &str) -> Result<MatmulKernel, String> {
    MatmulKernel::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
        let names: Vec<_> = MatmulKernel::ALL.iter().map(|k| k.name()).collect();
        format!("no matmul kernel {name:?}; the rungs are {}", names.join(", "))
    })
}

/// Times `kernels` for `f32` and `f64` at each shape; `runs` timed runs after `warmup`.
pub fn suite(
    gpu: &Gpu,
    kernels: &[MatmulKernel],
    quick: bool,
    warmup: usize,
    runs: usize,
    progress: &ProgressBar,
) -> Result<Vec<Row>> {
    let blas = cublas::open(gpu);
    let shapes = if quick { &SHAPES[..2] } else { &SHAPES[..] };
    // The rungs this GPU runs (the multistage rung needs compute capability 8.0).
    let cc = gpu.info().compute_capability;
    let kernels: Vec<MatmulKernel> = kernels.iter().copied().filter(|k| cc >= k.min_compute_capability()).collect();
    let tuned: Vec<Which> = kernels.iter().filter(|k| k.is_tuned()).map(|&k| Which::Rung(k)).collect();
    let extra = if quick { &[][..] } else { &tuned_shapes()[..] };
    let tiles = if quick { &[][..] } else { &tile_shapes()[..] };
    let mut each: Vec<Which> =
        kernels.iter().filter(|k| k.is_tuned()).flat_map(|&k| TunedTile::ALL.map(|t| Which::Tile(k, t))).collect();
    if kernels.contains(&MatmulKernel::Tuned) {
        each.extend(TunedTile::ALL.map(|t| Which::InPlace(MatmulKernel::Tuned, t)));
    }
    let strips = if quick { &[][..] } else { &STRIP_SHAPES[..] };
    let mut beside: Vec<Which> = tuned.clone();
    beside.extend(kernels.iter().filter(|k| k.is_tuned()).flat_map(|&k| TunedTile::ALL.map(|t| Which::Tile(k, t))));
    progress.inc_length(
        (shapes.len() * 2 * kernels.len()
            + (extra.len() * 2 * tuned.len())
            + tiles.len() * each.len()
            + strips.len() * beside.len()) as u64,
    );
    let rungs: Vec<Which> = kernels.iter().map(|&k| Which::Rung(k)).collect();
    let mut rows = Vec::new();
    for &(m, n, k) in shapes {
        let shape = MatmulShape::new(m, n, k);
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), &rungs, shape, warmup, runs, progress)?);
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), &rungs, shape, warmup, runs, progress)?);
    }
    for &shape in extra.iter().filter(|_| !tuned.is_empty()) {
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), &tuned, shape, warmup, runs, progress)?);
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), &tuned, shape, warmup, runs, progress)?);
    }
    for &shape in tiles.iter().filter(|_| !each.is_empty()) {
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), &each, shape, warmup, runs, progress)?);
        // `f64`'s sizes: those it has (the multistage rung's wide tiles).
        let f64s: Vec<Which> =
            each.iter().copied().filter(|w| matches!(w, Which::Tile(MatmulKernel::Multistage, _))).collect();
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), &f64s, shape, warmup, runs, progress)?);
    }
    for &(m, n, k) in strips {
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), &beside, MatmulShape::new(m, n, k), warmup, runs, progress)?);
    }
    Ok(rows)
}

fn shape_rows<T: Gemm>(
    gpu: &Gpu,
    blas: Option<&CudaBlas>,
    kernels: &[Which],
    shape: MatmulShape,
    warmup: usize,
    runs: usize,
    progress: &ProgressBar,
) -> Result<Vec<Row>> {
    let dtype = std::any::type_name::<T>();
    // Packed operands, one after another for a batch.
    let (m, n, k, batch) = (shape.m, shape.n, shape.k, shape.batch);
    let bytes = (m * k + k * n + m * n) * batch * size_of::<T>();
    let sets = rotation(gpu.info().l2_bytes, bytes);
    let mut rng = SmallRng::seed_from_u64((m + n + k + batch) as u64);
    let mut random = |len: usize| -> bankwise::Result<DeviceBuffer<T>> {
        let host: Vec<f64> = (0..len).map(|_| rng.random_range(-1.0..1.0)).collect();
        let host: Vec<T> = host.into_iter().map(T::from_f64).collect();
        Ok(gpu.upload(&host)?)
    };
    let mut sets_of = |len| (0..sets).map(|_| random(len)).collect::<bankwise::Result<Vec<_>>>();
    let (a, b, mut c) = (sets_of(m * k * batch)?, sets_of(k * n * batch)?, sets_of(m * n * batch)?);
    let mut c_blas = sets_of(m * n * batch)?;
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
    let peak = peak_tflops(gpu, size_of::<T>());
    let mut rows = Vec::new();
    let target = gpu.plan_target();
    for &kernel in kernels {
        progress.set_message(format!("{} {dtype} {shape}", kernel.name()));
        if let Which::InPlace(rung, tile) = kernel
            && TunedPlan::new::<T>(rung, tile, shape, target)?.realign() == Default::default()
        {
            // The same plan as the `Tile` row's.
            progress.inc(1);
            continue;
        }
        let (a, b, c, c_blas) = (&a, &b, &mut c, &mut c_blas);
        let ours = |i: usize| -> Result<()> {
            let s = i % sets;
            match kernel {
                Which::Rung(rung) => gpu.matmul_with(rung, alpha, &a[s], &b[s], beta, &mut c[s], shape)?,
                Which::Tile(rung, tile) => {
                    let plan = TunedPlan::new::<T>(rung, tile, shape, target)?;
                    gpu.matmul_tuned(plan, alpha, &a[s], &b[s], beta, &mut c[s], shape)?
                }
                Which::InPlace(rung, tile) => {
                    let plan = TunedPlan::new::<T>(rung, tile, shape, target)?.without_realign();
                    gpu.matmul_tuned(plan, alpha, &a[s], &b[s], beta, &mut c[s], shape)?
                }
            }
            Ok(())
        };
        let theirs = blas.map(|h| {
            move |i: usize| -> Result<()> {
                let s = i % sets;
                T::gemm(h, alpha, &a[s], &b[s], beta, &mut c_blas[s], shape)
            }
        });
        let (stats, blas_stats) = measure_pair(gpu, warmup, runs, ours, theirs)?;
        rows.push(Row { kernel: kernel.name(), dtype, shape, stats, blas: blas_stats, peak });
        progress.inc(1);
    }
    Ok(rows)
}

/// The CUDA cores' peak in TFLOP/s for `bytes`-wide floats, where the lanes per SM are known:
/// sm_90 128 FP32 and 64 FP64 FMA lanes per SM, sm_80 64 and 32.
fn peak_tflops(gpu: &Gpu, bytes: usize) -> Option<f64> {
    let info = gpu.info();
    let lanes = match (info.compute_capability, bytes) {
        ((9, 0), 4) => 128.0,
        ((9, 0), 8) => 64.0,
        ((8, 0), 4) => 64.0,
        ((8, 0), 8) => 32.0,
        _ => return None,
    };
    Some(lanes * 2.0 * info.multiprocessors as f64 * info.clock_khz as f64 * 1e3 / 1e12)
}

/// The table, plain text.
pub fn render(rows: &[Row]) -> String {
    let header = ["kernel", "type", "m×n×k", "median ms", "TFLOP/s", "cuBLAS", "% cuBLAS", "% peak"];
    // The kernel column as wide as the longest rung's name.
    let w = MatmulKernel::ALL.iter().map(|k| k.name().len()).max().unwrap_or(0);
    let line = |c: &[String; 8]| {
        format!("{:<w$} {:<4} {:>16} {:>10} {:>9} {:>10} {:>9} {:>7}\n", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
    };
    let mut out = line(&header.map(String::from));
    for r in rows {
        out += &line(&r.cells());
    }
    out
}

/// The table, Markdown.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| kernel | type | m×n×k | median ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS | % of peak |\n\
         | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        out += &format!("| {} |\n", r.cells().join(" | "));
    }
    out
}

/// The ladder as a bar chart: for each rung, one bar per type, its % of cuBLAS at the largest
/// square shape measured without `op`s or a batch. `None` without such rows.
pub fn chart(rows: &[Row], subtitle: &str) -> Option<String> {
    // The rungs only, not the tuned rung's rows at a chosen tile size.
    let rung = |r: &&Row| MatmulKernel::ALL.iter().any(|k| k.name() == r.kernel);
    let square = |r: &&Row| rung(r) && r.shape.is_plain() && r.shape.m == r.shape.n && r.shape.n == r.shape.k;
    let size = rows.iter().filter(square).map(|r| r.shape.m).max()?;
    let at: Vec<&Row> = rows.iter().filter(square).filter(|r| r.shape.m == size && r.blas.is_some()).collect();
    // In ladder order, once each (the suite measures every rung for f32, then for f64).
    let mut kernels: Vec<&str> = Vec::new();
    for r in &at {
        if !kernels.contains(&r.kernel) {
            kernels.push(r.kernel);
        }
    }
    let percent = |kernel: &str, dtype: &str| {
        let r = at.iter().find(|r| r.kernel == kernel && r.dtype == dtype)?;
        Some(100.0 * r.tflops(&r.stats) / r.tflops(r.blas.as_ref()?))
    };
    Chart {
        title: format!("matmul ladder, {size}³: % of cuBLAS (no TF32) in the same run"),
        subtitle: subtitle.to_string(),
        series: vec![("f32", BLUE), ("f64", ORANGE)],
        rungs: kernels.iter().map(|k| (k.to_string(), vec![percent(k, "f32"), percent(k, "f64")])).collect(),
    }
    .svg()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(median_ms: f64) -> Stats {
        Stats { median_ms, min_ms: median_ms, max_ms: median_ms, runs: 10 }
    }

    #[test]
    fn rows_count_two_flops_per_multiply_add_against_cublas_and_the_peak() {
        let shape = MatmulShape::new(1000, 1000, 500); // 10^9 FLOP
        let row = Row {
            kernel: "matmul_tiled",
            dtype: "f32",
            shape,
            stats: stats(1.0),
            blas: Some(stats(0.25)),
            peak: Some(20.0),
        };
        assert_eq!(row.cells(), ["matmul_tiled", "f32", "1000×1000×500", "1.000", "1.00", "4.00", "25.0%", "5.0%"]);
        let alone = Row { blas: None, peak: None, ..row };
        assert_eq!(alone.cells()[5..], ["-", "-", "-"]);
        let table = markdown(&[alone]);
        assert!(table.ends_with("| matmul_tiled | f32 | 1000×1000×500 | 1.000 | 1.00 | - | - | - |\n"), "{table}");
        assert!(render(&[]).starts_with("kernel "));
    }

    #[test]
    fn the_chart_draws_each_rung_at_the_largest_square_against_cublas() {
        let row = |kernel, dtype, n, ms| Row {
            kernel,
            dtype,
            shape: MatmulShape::new(n, n, n),
            stats: stats(ms),
            blas: Some(stats(1.0)),
            peak: None,
        };
        let rows = [
            row("matmul_naive", "f32", 1024, 100.0),
            row("matmul_naive", "f32", 2048, 50.0),
            row("matmul_tuned", "f32", 2048, 1.25),
            row("matmul_naive", "f64", 2048, 50.0),
            row("matmul_tuned", "f64", 2048, 4.0),
            Row {
                shape: MatmulShape::new(4096, 4096, 4096).with_ops(Op::T, Op::N),
                ..row("matmul_tuned", "f32", 1, 1.0)
            },
        ];
        let svg = chart(&rows, "H100 <test>").unwrap();
        assert!(svg.contains("2048³") && !svg.contains("4096³") && svg.contains("H100 &lt;test&gt;"), "{svg}");
        // 1/50 (twice), 1/1.25, 1/4 of cuBLAS's rate on an axis to 100%: widths 2%, 80%, 25% of 400.
        for (percent, width) in [("2.0%", "8.0"), ("80.0%", "320.0"), ("25.0%", "100.0")] {
            assert!(svg.contains(&format!(">{percent}<")) && svg.contains(&format!("width=\"{width}\"")), "{percent}");
        }
        assert_eq!(svg.matches("<rect x=").count(), 4);
        assert_eq!(svg.matches(">matmul_naive<").count(), 1);
        assert!(chart(&rows[5..], "t").is_none());
    }
}
