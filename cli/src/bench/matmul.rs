//! The matrix multiply suite of `bankwise bench`: every rung of the ladder beside cuBLAS's
//! `gemm` of the same operands, their runs interleaved (`measure_pair`), at the shapes of the
//! ladder's goals. FLOP/s count `2·m·n·k` per run; the peak is the CUDA cores' (FMA lanes per
//! SM × 2 × SMs × the SM clock), known for sm_80 and sm_90.

use anyhow::Result;
use bankwise::matmul::{MatmulKernel, MatmulShape, Op};
use bankwise::runtime::cudarc::cublas::CudaBlas;
use bankwise::timing::{Stats, measure_pair, rotation};
use bankwise::{DeviceBuffer, Gpu};
use bankwise_benches::cublas::{self, Gemm};
use indicatif::ProgressBar;
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
    let tuned = kernels.contains(&MatmulKernel::Tuned);
    let extra = if tuned && !quick { &tuned_shapes()[..] } else { &[] };
    progress.inc_length((shapes.len() * 2 * kernels.len() + extra.len() * 2) as u64);
    let mut rows = Vec::new();
    for &(m, n, k) in shapes {
        let shape = MatmulShape::new(m, n, k);
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), kernels, shape, warmup, runs, progress)?);
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), kernels, shape, warmup, runs, progress)?);
    }
    for &shape in extra {
        let tuned = [MatmulKernel::Tuned];
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), &tuned, shape, warmup, runs, progress)?);
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), &tuned, shape, warmup, runs, progress)?);
    }
    Ok(rows)
}

fn shape_rows<T: Gemm>(
    gpu: &Gpu,
    blas: Option<&CudaBlas>,
    kernels: &[MatmulKernel],
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
        gpu.upload(&host)
    };
    let mut sets_of = |len| (0..sets).map(|_| random(len)).collect::<bankwise::Result<Vec<_>>>();
    let (a, b, mut c) = (sets_of(m * k * batch)?, sets_of(k * n * batch)?, sets_of(m * n * batch)?);
    let mut c_blas = sets_of(m * n * batch)?;
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
    let peak = peak_tflops(gpu, size_of::<T>());
    let mut rows = Vec::new();
    for &kernel in kernels {
        progress.set_message(format!("{} {dtype} {shape}", kernel.name()));
        let (a, b, c, c_blas) = (&a, &b, &mut c, &mut c_blas);
        let ours = |i: usize| -> Result<()> {
            let s = i % sets;
            Ok(gpu.matmul_with(kernel, alpha, &a[s], &b[s], beta, &mut c[s], shape)?)
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
}
