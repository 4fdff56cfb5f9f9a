//! The matrix multiply suite of `bankwise bench`: every rung of the ladder beside cuBLAS's
//! `gemm` of the same operands, their runs interleaved (`measure_pair`), at the shapes of the
//! ladder's goals. FLOP/s count `2·m·n·k` per run; the peak is the CUDA cores' (FMA lanes per
//! SM × 2 × SMs × the SM clock), known for sm_80 and sm_90.

use anyhow::Result;
use bankwise::matmul::{MatmulKernel, MatmulShape};
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
}

/// Times every rung for `f32` and `f64` at each shape; `runs` timed runs after `warmup`.
pub fn suite(gpu: &Gpu, quick: bool, warmup: usize, runs: usize, progress: &ProgressBar) -> Result<Vec<Row>> {
    let blas = cublas::open(gpu);
    let shapes = if quick { &SHAPES[..2] } else { &SHAPES[..] };
    progress.inc_length((shapes.len() * 2 * MatmulKernel::ALL.len()) as u64);
    let mut rows = Vec::new();
    for &(m, n, k) in shapes {
        let shape = MatmulShape::new(m, n, k);
        rows.extend(shape_rows::<f32>(gpu, blas.as_ref(), shape, warmup, runs, progress)?);
        rows.extend(shape_rows::<f64>(gpu, blas.as_ref(), shape, warmup, runs, progress)?);
    }
    Ok(rows)
}

fn shape_rows<T: Gemm>(
    gpu: &Gpu,
    blas: Option<&CudaBlas>,
    shape: MatmulShape,
    warmup: usize,
    runs: usize,
    progress: &ProgressBar,
) -> Result<Vec<Row>> {
    let dtype = std::any::type_name::<T>();
    let (m, n, k) = (shape.m, shape.n, shape.k);
    let bytes = (m * k + k * n + m * n) * size_of::<T>();
    let sets = rotation(gpu.info().l2_bytes, bytes);
    let mut rng = SmallRng::seed_from_u64((m + n + k) as u64);
    let mut random = |len: usize| -> bankwise::Result<DeviceBuffer<T>> {
        let host: Vec<f64> = (0..len).map(|_| rng.random_range(-1.0..1.0)).collect();
        let host: Vec<T> = host.into_iter().map(T::from_f64).collect();
        gpu.upload(&host)
    };
    let mut sets_of = |len| (0..sets).map(|_| random(len)).collect::<bankwise::Result<Vec<_>>>();
    let (a, b, mut c) = (sets_of(m * k)?, sets_of(k * n)?, sets_of(m * n)?);
    let mut c_blas = sets_of(m * n)?;
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
    let peak = peak_tflops(gpu, size_of::<T>());
    let mut rows = Vec::new();
    for kernel in MatmulKernel::ALL {
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
    let mut out = format!(
        "{:<20} {:<4} {:>16} {:>10} {:>9} {:>10} {:>9} {:>7}\n",
        "kernel", "type", "m×n×k", "median ms", "TFLOP/s", "cuBLAS", "% cuBLAS", "% peak"
    );
    for r in rows {
        let blas = r.blas.as_ref().map(|s| r.tflops(s));
        out += &format!(
            "{:<20} {:<4} {:>16} {:>10.3} {:>9.2} {:>10} {:>9} {:>7}\n",
            r.kernel,
            r.dtype,
            r.shape.to_string(),
            r.stats.median_ms,
            r.tflops(&r.stats),
            blas.map_or("-".into(), |b| format!("{b:.2}")),
            blas.map_or("-".into(), |b| format!("{:.1}%", 100.0 * r.tflops(&r.stats) / b)),
            r.peak.map_or("-".into(), |p| format!("{:.1}%", 100.0 * r.tflops(&r.stats) / p)),
        );
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
        let blas = r.blas.as_ref().map(|s| r.tflops(s));
        out += &format!(
            "| {} | {} | {} | {:.3} | {:.2} | {} | {} | {} |\n",
            r.kernel,
            r.dtype,
            r.shape,
            r.stats.median_ms,
            r.tflops(&r.stats),
            blas.map_or("-".into(), |b| format!("{b:.2}")),
            blas.map_or("-".into(), |b| format!("{:.1}%", 100.0 * r.tflops(&r.stats) / b)),
            r.peak.map_or("-".into(), |p| format!("{:.1}%", 100.0 * r.tflops(&r.stats) / p)),
        );
    }
    out
}
