//! `bankwise bench`: times every kernel on the GPU and prints a table.
//!
//! Method (`bankwise::timing::{measure, versus_copy}`, the runtime's harness): inputs are random (never zeros), the timed runs
//! are queued back to back behind a `spin_wait` and each is timed from the end of the one before,
//! the first runs are discarded as warm-up, the median of the rest is reported, and small
//! problems rotate among enough buffer sets that no run finds its data in L2. Bandwidth counts
//! the bytes that must move (each input byte read once, each output byte written once) and is
//! set beside the driver's device-to-device copy of the same input, timed in runs interleaved
//! with the kernel's on buffer sets of its own (for reductions, in a block of runs right after
//! the kernel's).

mod axes;
mod chart;
mod matmul;
mod permute;

use std::io::Write;

use anyhow::{Context, Result};
use bankwise::half::bf16;
use bankwise::matmul::MatmulKernel;
use bankwise::reduce::{Operation, Reducible};
use bankwise::timing::{Stats, VersusCopy, measure, rotation, versus_copy};
use bankwise::{DeviceBuffer, Element, Gpu, Max, Min, ReduceKernel, Shape, Sum, TransposeKernel};

use bankwise_benches::cublas::{self, Geam};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{RngCore, SeedableRng, rngs::SmallRng};

#[derive(clap::Args)]
pub struct Args {
    /// Suites to run (default: all).
    #[arg(value_enum)]
    suites: Vec<Suite>,
    /// Fewer sizes and runs: a smoke test of the benchmark itself.
    #[arg(long)]
    quick: bool,
    /// Timed runs per case (after warm-up); the median is reported.
    #[arg(long, default_value_t = 50, value_parser = at_least_one)]
    runs: usize,
    /// Untimed warm-up runs per case.
    #[arg(long, default_value_t = 10)]
    warmup: usize,
    /// Also write the table as Markdown to this file.
    #[arg(long)]
    markdown: Option<std::path::PathBuf>,
    /// Only these shapes, as ROWSxCOLS (repeatable); default: 1024², 4096², 8192², 16384²,
    /// 8191×8193.
    #[arg(long = "shape", value_parser = parse_shape)]
    shapes: Vec<Shape>,
    /// Only these rungs of the matmul suite (repeatable), such as matmul_warptile; default: all.
    #[arg(long = "matmul-kernel", value_parser = matmul::parse_kernel)]
    matmul_kernels: Vec<bankwise::matmul::MatmulKernel>,
    /// Write the permute suite's cases to this file, one per line (`DIMS PERM`, such as
    /// `512,512,256 2,1,0`), for the PyTorch peer script (`benches/peers/permute_torch.py`).
    #[arg(long)]
    permute_cases: Option<std::path::PathBuf>,
    /// Also draw each measured ladder as an SVG bar chart into this folder:
    /// `transpose-ladder.svg` (% of the driver's copy per rung and type, at the largest square
    /// measured), `reduction-ladder.svg` (f32 sum, % of the copy, at the largest length) and
    /// `matmul-ladder.svg` (% of cuBLAS per rung and type, at the largest cube).
    #[arg(long)]
    charts: Option<std::path::PathBuf>,
}

/// A count of at least 1 (a median of no runs is no figure).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("at least 1 run is needed for a median".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

pub(crate) fn parse_shape(s: &str) -> Result<Shape, String> {
    let form = "a shape is ROWSxCOLS, two whole numbers such as 4096x4096 or 8191x8193";
    let parts: Vec<&str> = s.split(['x', 'X', '×']).collect();
    let [r, c] = parts[..] else { return Err(format!("{form}; {s:?} has {} parts", parts.len())) };
    let parse = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{form}; {v:?} in {s:?}: {e}"));
    let shape = Shape::new(parse(r)?, parse(c)?);
    shape.elements().map_err(|e| e.to_string())?;
    Ok(shape)
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Suite {
    Copy,
    Transpose,
    /// The reduction ladder: every kernel at 2^20 … 2^28 f32 sum, the tuned one for every type.
    Reduce,
    /// The matrix multiply ladder beside cuBLAS's gemm, f32 and f64, at 1024³ … 4096³ and the
    /// odd, flat and tall shapes (`--runs` capped at 10: the slow rungs take a second a run).
    Matmul,
    /// N-d permutations: 60 cases of ranks 2 to 6 and 2^26 elements, f32 and bf16.
    Permute,
    /// Reductions along axes: rows and columns of 8192², the middle axis of (64, 4096, 1024).
    Axes,
}

/// One line of the table.
struct Row {
    kernel: String,
    dtype: &'static str,
    shape: String,
    /// Bytes the kernel must move per run.
    bytes: u64,
    stats: Stats,
    /// The driver's copy of the kernel's input (its bytes read and written), interleaved.
    copy: Stats,
    copy_bytes: u64,
    /// The side of a square matrix, for the transpose chart.
    square: Option<usize>,
    /// log2 of a reduction's length, for the reduction chart.
    log_len: Option<u32>,
}

impl Row {
    /// A row of `kernel` moving `bytes` in `stats`, beside the copy of `copy_bytes` in `copy`,
    /// in no chart (set `square` or `log_len` after, where it is).
    fn new(
        kernel: impl Into<String>,
        dtype: &'static str,
        shape: impl Into<String>,
        (bytes, stats): (u64, Stats),
        (copy_bytes, copy): (u64, Stats),
    ) -> Row {
        Row {
            kernel: kernel.into(),
            dtype,
            shape: shape.into(),
            bytes,
            stats,
            copy,
            copy_bytes,
            square: None,
            log_len: None,
        }
    }

    fn gb_per_s(&self) -> f64 {
        self.stats.gb_per_s(self.bytes)
    }
    fn copy_gb_per_s(&self) -> f64 {
        self.copy.gb_per_s(self.copy_bytes)
    }
    /// The kernel's bandwidth as a fraction of the interleaved copy's.
    fn of_copy(&self) -> f64 {
        self.gb_per_s() / self.copy_gb_per_s()
    }
}

struct Bench<'g> {
    gpu: &'g Gpu,
    args: &'g Args,
    rows: Vec<Row>,
    progress: ProgressBar,
}

pub fn run(args: &Args) -> Result<()> {
    // Options that the chosen suites would ignore are refused, not ignored.
    let suites_named = |s: Suite| args.suites.is_empty() || args.suites.contains(&s);
    if !args.shapes.is_empty() && !suites_named(Suite::Copy) && !suites_named(Suite::Transpose) {
        anyhow::bail!("--shape applies to the copy and transpose suites, and neither is chosen");
    }
    if !args.matmul_kernels.is_empty() && !suites_named(Suite::Matmul) {
        anyhow::bail!("--matmul-kernel applies to the matmul suite, which is not chosen");
    }
    let permute_cases = permute::suite();
    if let Some(path) = &args.permute_cases {
        if !suites_named(Suite::Permute) {
            anyhow::bail!("--permute-cases applies to the permute suite, which is not chosen");
        }
        let text: String = permute_cases
            .iter()
            .map(|c| {
                let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
                format!("{} {}\n", join(&c.dims), join(&c.perm))
            })
            .collect();
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!(
            "wrote the {} permute cases (random half seeded {:#x}) to {}",
            permute_cases.len(),
            permute::SEED,
            path.display()
        );
    }
    let gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("`bankwise bench` times the kernels on a GPU, and there is none here: {e}\n");
            crate::emulate::ladder_summary()?;
            anyhow::bail!("no timings without a GPU (above: what the emulator can tell without one)");
        }
    };
    let info = gpu.info();
    eprintln!(
        "{} (sm_{}{}, {} SMs, {} MiB L2, {} GiB)",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.l2_bytes >> 20,
        info.memory_bytes >> 30
    );
    // Where the results go is checked before the long run, not after it.
    if let Some(dir) = &args.charts {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create the charts' folder {}", dir.display()))?;
    }
    if let Some(path) = &args.markdown {
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    }
    let suites = if args.suites.is_empty() {
        vec![Suite::Copy, Suite::Transpose, Suite::Reduce, Suite::Matmul, Suite::Permute, Suite::Axes]
    } else {
        args.suites.clone()
    };
    let mut bench = Bench { gpu: &gpu, args, rows: Vec::new(), progress: ProgressBar::new(0) };
    bench.progress.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").unwrap());

    let squares: &[usize] = if args.quick { &[1024, 4096] } else { &[1024, 4096, 8192, 16384] };
    let mut shapes: Vec<Shape> = squares.iter().map(|&n| Shape::new(n, n)).collect();
    if !args.quick {
        shapes.push(Shape::new(8191, 8193));
    }
    if !args.shapes.is_empty() {
        shapes = args.shapes.clone();
    }
    let blas = if suites.contains(&Suite::Transpose) { cublas::open(&gpu) } else { None };
    let per_suite = |s: Suite| match s {
        Suite::Copy => shapes.len() * 4,
        Suite::Transpose => shapes.len() * 2 * (TransposeKernel::ALL.len() + usize::from(blas.is_some())),
        Suite::Reduce | Suite::Matmul | Suite::Permute | Suite::Axes => 0,
    };
    bench.progress.inc_length(suites.iter().map(|&s| per_suite(s) as u64).sum());
    let mut matmul_rows = Vec::new();
    let matmul_runs = if args.quick { (1, 3) } else { (args.warmup.min(3), args.runs.min(10)) };
    for suite in suites {
        if suite == Suite::Reduce {
            bench.reduce_suite()?;
            continue;
        }
        if suite == Suite::Axes {
            bench.axes_suite()?;
            continue;
        }
        if suite == Suite::Permute {
            let cases = if args.quick { &permute_cases[..12] } else { &permute_cases[..] };
            bench.permute_suite(cases)?;
            continue;
        }
        if suite == Suite::Matmul {
            let (warmup, runs) = matmul_runs;
            let kernels =
                if args.matmul_kernels.is_empty() { &MatmulKernel::ALL[..] } else { &args.matmul_kernels[..] };
            matmul_rows = matmul::suite(&gpu, kernels, args.quick, warmup, runs, &bench.progress)?;
            continue;
        }
        for &shape in &shapes {
            match suite {
                Suite::Copy => {
                    bench.copy::<f32>("copy_bytes", shape, |g, s, d| Ok(g.copy(s, d)?))?;
                    bench.copy::<f64>("copy_bytes", shape, |g, s, d| Ok(g.copy(s, d)?))?;
                    bench.copy::<bf16>("copy_bytes", shape, |g, s, d| Ok(g.copy(s, d)?))?;
                    bench.row_copies(shape)?;
                }
                Suite::Reduce | Suite::Matmul | Suite::Permute | Suite::Axes => {}
                Suite::Transpose => {
                    for kernel in TransposeKernel::ALL {
                        let name = kernel.name();
                        bench.copy::<f32>(name, shape, |g, s, d| Ok(g.transpose_with(kernel, s, d, shape)?))?;
                        bench.copy::<f64>(name, shape, |g, s, d| Ok(g.transpose_with(kernel, s, d, shape)?))?;
                    }
                    // Half precision moves through the 2-byte kernels: the tuned one, timed.
                    let tuned = TransposeKernel::Tuned;
                    bench.copy::<bf16>(tuned.name(), shape, |g, s, d| Ok(g.transpose_with(tuned, s, d, shape)?))?;
                    if let Some(blas) = &blas {
                        bench.copy::<f32>("cublas_geam", shape, |g, s, d| f32::geam(blas, g, s, d, shape))?;
                        bench.copy::<f64>("cublas_geam", shape, |g, s, d| f64::geam(blas, g, s, d, shape))?;
                    }
                }
            }
        }
    }
    bench.progress.finish_and_clear();

    if !bench.rows.is_empty() {
        println!("\n{}", render(&bench.rows));
        println!(
            "copy: the driver's cuMemcpyDtoD of the same input, timed in runs interleaved with the kernel's (reductions: right after)"
        );
        print!("{}", permute::summary(&bench.rows));
    }
    if !matmul_rows.is_empty() {
        println!("\n{}", matmul::render(&matmul_rows));
        println!(
            "cuBLAS: its gemm of the same operands (default math mode: no TF32), timed in runs interleaved with the kernel's"
        );
    }
    if let Some(dir) = &args.charts {
        let subtitle = format!("{}, {}", info.name, today());
        let charts = [
            ("transpose-ladder.svg", transpose_chart(&bench.rows, &subtitle)),
            ("reduction-ladder.svg", reduction_chart(&bench.rows, &subtitle)),
            ("matmul-ladder.svg", matmul::chart(&matmul_rows, &subtitle)),
        ];
        for (file, svg) in charts {
            let Some(svg) = svg else { continue };
            let path = dir.join(file);
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
    }
    if let Some(path) = &args.markdown {
        let mut f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        writeln!(
            f,
            "Measured {} on {} (sm_{}{}, {} SMs), median of {} runs after {} warm-up runs.\n",
            today(),
            info.name,
            info.compute_capability.0,
            info.compute_capability.1,
            info.multiprocessors,
            args.runs,
            args.warmup
        )?;
        if !bench.rows.is_empty() {
            writeln!(f, "{}", markdown(&bench.rows))?;
        }
        if !matmul_rows.is_empty() {
            let (warmup, runs) = matmul_runs;
            writeln!(f, "Matrix multiplies: median of {runs} runs after {warmup} warm-up runs.\n")?;
            writeln!(f, "{}", matmul::markdown(&matmul_rows))?;
        }
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

impl Bench<'_> {
    /// Adds `row` to the table and counts it done.
    fn record(&mut self, row: Row) {
        self.rows.push(row);
        self.progress.inc(1);
    }

    /// Times `op` from a `shape`-sized source of random `T`s to a same-sized destination,
    /// interleaved with the driver's copy between the same buffers.
    fn copy<T: Element>(
        &mut self,
        kernel: &str,
        shape: Shape,
        op: impl Fn(&Gpu, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>,
    ) -> Result<()> {
        let dtype = short_type_name::<T>();
        self.progress.set_message(format!("{kernel} {dtype} {shape}"));
        let n = shape.elements()?;
        let bytes = n * size_of::<T>();
        let sets = rotation(self.gpu.info().l2_bytes, 2 * bytes);
        let host = random::<T>(n);
        let srcs = (0..sets).map(|_| self.gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let mut dsts =
            (0..sets).map(|_| self.gpu.alloc_zeros::<T>(n)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let (warmup, runs) = if self.args.quick { (2, 5) } else { (self.args.warmup, self.args.runs) };
        // The driver's copy of the same bytes, interleaved, on rotated buffer sets of its own.
        let VersusCopy { kernel: stats, copy, .. } =
            versus_copy(self.gpu, warmup, runs, bytes, |i| op(self.gpu, &srcs[i % sets], &mut dsts[i % sets]))?;
        let bytes = 2 * bytes as u64;
        self.record(Row {
            square: (shape.rows == shape.cols && shape.batch == 1).then_some(shape.rows),
            ..Row::new(kernel, dtype, shape.to_string(), (bytes, stats), (bytes, copy))
        });
        Ok(())
    }
}

impl Bench<'_> {
    /// `copy_rows_aligned` and the driver's pitched copy (`cuMemcpy2DAsync`) of `shape`'s rows
    /// of `f32` into rows padded to 16 bytes (the tuned matrix multiply's realigned operands),
    /// each beside the driver's plain copy of the same bytes; bandwidth counts the rows read
    /// and the padded rows written.
    fn row_copies(&mut self, shape: Shape) -> Result<()> {
        let (rows, cols) = (shape.rows, shape.cols);
        let ld = cols.next_multiple_of(4);
        let (src_bytes, dst_bytes) = (rows * cols * 4, rows * ld * 4);
        let sets = rotation(self.gpu.info().l2_bytes, src_bytes + dst_bytes);
        let host = random::<f32>(rows * cols);
        let srcs = (0..sets).map(|_| self.gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let mut dsts =
            (0..sets).map(|_| self.gpu.alloc_zeros::<f32>(rows * ld)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let (warmup, runs) = if self.args.quick { (2, 5) } else { (self.args.warmup, self.args.runs) };
        for driver in [false, true] {
            let kernel = if driver { "cuMemcpy2D (rows padded)" } else { "copy_rows_aligned" };
            self.progress.set_message(format!("{kernel} f32 {shape}"));
            let gpu = self.gpu;
            let op = |i: usize| -> Result<()> {
                let (src, dst) = (&srcs[i % sets], &mut dsts[i % sets]);
                if driver {
                    gpu.copy_rows(src, cols, dst, ld, (rows, cols))?;
                } else {
                    gpu.copy_rows_aligned(src, cols, dst, ld, (rows, cols))?;
                }
                Ok(())
            };
            let VersusCopy { kernel: stats, copy, .. } = versus_copy(gpu, warmup, runs, src_bytes, op)?;
            let (moved, copied) = ((src_bytes + dst_bytes) as u64, 2 * src_bytes as u64);
            self.record(Row::new(kernel, "f32", shape.to_string(), (moved, stats), (copied, copy)));
        }
        Ok(())
    }

    /// The reduction suite: every rung at 2^20, 2^24, 2^26, 2^28 f32 sum; the tuned kernel
    /// for sum of every type and min/max of f32. Bandwidth counts the input read once.
    fn reduce_suite(&mut self) -> Result<()> {
        let logs: &[u32] = if self.args.quick { &[20, 24] } else { &[20, 24, 26, 28] };
        self.progress.inc_length((logs.len() * (ReduceKernel::ALL.len() + 7)) as u64);
        for &log in logs {
            let n = 1usize << log;
            for kernel in ReduceKernel::ALL {
                self.reduce::<f32, _>(kernel, Sum, n, log)?;
            }
            self.reduce::<f64, _>(ReduceKernel::Tuned, Sum, n, log)?;
            self.reduce::<i32, _>(ReduceKernel::Tuned, Sum, n, log)?;
            self.reduce::<u32, _>(ReduceKernel::Tuned, Sum, n, log)?;
            self.reduce::<i64, _>(ReduceKernel::Tuned, Sum, n, log)?;
            self.reduce::<u64, _>(ReduceKernel::Tuned, Sum, n, log)?;
            self.reduce::<f32, _>(ReduceKernel::Tuned, Min, n, log)?;
            self.reduce::<f32, _>(ReduceKernel::Tuned, Max, n, log)?;
        }
        Ok(())
    }

    /// Times `kernel`'s `op` reduction of `n` random `T`s into a device buffer (no download),
    /// with scratch and output allocated once.
    fn reduce<T: Reducible, O: Operation<T>>(&mut self, kernel: ReduceKernel, op: O, n: usize, log: u32) -> Result<()> {
        let dtype = short_type_name::<T>();
        let name = format!("{}/{}", kernel.name(), O::NAME);
        self.progress.set_message(format!("{name} {dtype} 2^{log}"));
        let bytes = n * size_of::<T>();
        let sets = rotation(self.gpu.info().l2_bytes, bytes);
        let host = random::<T>(n);
        let srcs = (0..sets).map(|_| self.gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let mut out = self.gpu.alloc_zeros::<T>(1)?;
        // The copy it is set beside: the same input into a buffer of its size.
        let mut copy_dst = self.gpu.alloc_zeros::<T>(n)?;
        let mut scratch = self.gpu.reduce_scratch::<T>(kernel, n)?;
        // One global atomic per element is slow: a few runs say enough.
        let (warmup, runs) = match (self.args.quick, kernel) {
            (_, ReduceKernel::Atomic) => (1, 3),
            (true, _) => (2, 5),
            _ => (self.args.warmup, self.args.runs),
        };
        // Not interleaved: a reduction writes nothing, so between copies it would spend its
        // runs writing back the copies' dirty lines from L2 (measured 9% slower at 2^26 f32).
        // The copy gets its own block of runs right after.
        let stats = measure(self.gpu, warmup, runs, |i| {
            self.gpu.reduce_into(kernel, op, &srcs[i % sets], .., &mut out, &mut scratch)
        })?;
        let copy = measure(self.gpu, warmup, runs.min(50), |i| self.gpu.copy_driver(&srcs[i % sets], &mut copy_dst))?;
        self.record(Row {
            log_len: Some(log),
            ..Row::new(name, dtype, format!("2^{log}"), (bytes as u64, stats), (2 * bytes as u64, copy))
        });
        Ok(())
    }
}

pub(crate) fn random<T: Element>(n: usize) -> Vec<T> {
    // SAFETY: Element types are plain integers and floats (`ValidAsZeroBits`): all zeros is a
    // valid value.
    let mut v: Vec<T> = vec![unsafe { std::mem::zeroed() }; n];
    // Safety: Element types are plain integers and floats; any bit pattern is valid.
    let bytes = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), n * size_of::<T>()) };
    SmallRng::seed_from_u64(n as u64).fill_bytes(bytes);
    v
}

fn render(rows: &[Row]) -> String {
    let w = rows.iter().map(|r| r.shape.chars().count()).max().unwrap_or(0).max(12);
    let mut out = format!(
        "{:<22} {:<5} {:>w$} {:>11} {:>11} {:>9} {:>9} {:>8}\n",
        "kernel", "type", "shape", "median µs", "min µs", "GB/s", "copy GB/s", "% copy"
    );
    for r in rows {
        out += &format!(
            "{:<22} {:<5} {:>w$} {:>11.1} {:>11.1} {:>9.0} {:>9.0} {:>7.1}%\n",
            r.kernel,
            r.dtype,
            r.shape,
            r.stats.median_ms * 1e3,
            r.stats.min_ms * 1e3,
            r.gb_per_s(),
            r.copy_gb_per_s(),
            100.0 * r.of_copy()
        );
    }
    out
}

fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| kernel | type | shape | median µs | GB/s | copy GB/s | % of copy |\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        out += &format!(
            "| {} | {} | {} | {:.1} | {:.0} | {:.0} | {:.1}% |\n",
            r.kernel,
            r.dtype,
            r.shape,
            r.stats.median_ms * 1e3,
            r.gb_per_s(),
            r.copy_gb_per_s(),
            100.0 * r.of_copy()
        );
    }
    out
}

/// The transpose ladder as a bar chart: each rung's (and cuBLAS's) % of the interleaved copy
/// at the largest square shape measured, f32 and f64.
fn transpose_chart(rows: &[Row], subtitle: &str) -> Option<String> {
    let rungs: Vec<&str> = TransposeKernel::ALL.iter().map(|k| k.name()).chain(["cublas_geam"]).collect();
    let square = |r: &&Row| rungs.contains(&r.kernel.as_str()) && r.square.is_some();
    let size = rows.iter().filter(square).filter_map(|r| r.square).max()?;
    let percent = |kernel: &str, dtype: &str| {
        let r = rows.iter().find(|r| r.kernel == kernel && r.dtype == dtype && r.square == Some(size))?;
        Some(100.0 * r.of_copy())
    };
    chart::Chart {
        title: format!("transpose ladder, {size}²: % of the driver's copy, interleaved in the same run"),
        subtitle: subtitle.to_string(),
        series: vec![("f32", chart::BLUE), ("f64", chart::ORANGE)],
        rungs: rungs.iter().map(|k| (k.to_string(), vec![percent(k, "f32"), percent(k, "f64")])).collect(),
    }
    .svg()
}

/// The reduction ladder as a bar chart: each rung's f32 sum, its input read at a % of the
/// driver's copy of the same input (read and written), at the largest length measured.
fn reduction_chart(rows: &[Row], subtitle: &str) -> Option<String> {
    let sums: Vec<String> =
        ReduceKernel::ALL.iter().map(|k| format!("{}/{}", k.name(), <Sum as Operation<f32>>::NAME)).collect();
    let f32_sum = |r: &&Row| sums.contains(&r.kernel) && r.dtype == "f32";
    let log = rows.iter().filter(f32_sum).filter_map(|r| r.log_len).max()?;
    let at: Vec<&Row> = rows.iter().filter(f32_sum).filter(|r| r.log_len == Some(log)).collect();
    chart::Chart {
        title: format!("reduction ladder, f32 sum of 2^{log}: GB/s read, % of the driver's copy right after"),
        subtitle: subtitle.to_string(),
        series: vec![("f32", chart::BLUE)],
        rungs: at
            .iter()
            .map(|r| (r.kernel.trim_end_matches("/sum").to_string(), vec![Some(100.0 * r.of_copy())]))
            .collect(),
    }
    .svg()
}

/// Today's UTC date as `YYYY-MM-DD` (civil-from-days, so no date crate is needed).
pub(crate) fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `T`'s name without its path (`bf16`, not `half::bfloat::bf16`).
fn short_type_name<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, dtype: &'static str, square: Option<usize>, log_len: Option<u32>, ms: f64) -> Row {
        let stats = |median_ms| Stats { median_ms, min_ms: median_ms, max_ms: median_ms, runs: 10 };
        Row {
            kernel: kernel.into(),
            dtype,
            shape: String::new(),
            bytes: 1_000_000,
            stats: stats(ms),
            copy: stats(1.0),
            copy_bytes: 1_000_000,
            square,
            log_len,
        }
    }

    #[test]
    fn shapes_and_run_counts_say_what_they_should_look_like() {
        assert_eq!(parse_shape("4096x4096").map(|s| (s.rows, s.cols)), Ok((4096, 4096)));
        assert_eq!(parse_shape("8191×8193").map(|s| (s.rows, s.cols)), Ok((8191, 8193)));
        for bad in ["4x4x4", "4096", "ax4", "0x4"] {
            let e = parse_shape(bad).map(|_| ()).unwrap_err();
            assert!(e.contains("ROWSxCOLS") || e.contains("at least 1"), "{bad}: {e}");
        }
        assert!(parse_shape("4x4x4").unwrap_err().contains("has 3 parts"));
        assert_eq!(at_least_one("3"), Ok(3));
        assert!(at_least_one("0").unwrap_err().contains("at least 1"));
    }

    #[test]
    fn ladder_charts_take_the_largest_square_or_length_and_each_rungs_share_of_the_copy() {
        let rows = [
            row("transpose_naive", "f32", Some(1024), None, 1.0),
            row("transpose_naive", "f32", Some(8192), None, 4.0),
            row("transpose", "f32", Some(8192), None, 1.25),
            row("transpose", "f64", Some(8192), None, 1.0),
            row("transpose", "f32", None, None, 0.5),
            row("reduce_atomic/sum", "f32", None, Some(26), 50.0),
            row("reduce/sum", "f32", None, Some(26), 0.8),
            row("reduce/sum", "f64", None, Some(26), 1.0),
            row("reduce/sum", "f32", None, Some(20), 0.1),
        ];
        let t = transpose_chart(&rows, "H100").unwrap();
        assert!(t.contains("8192²") && t.contains(">25.0%<") && t.contains(">80.0%<") && t.contains(">100.0%<"), "{t}");
        assert_eq!(t.matches("<rect x=").count(), 3, "{t}");
        let r = reduction_chart(&rows, "H100").unwrap();
        assert!(r.contains("2^26") && r.contains(">2.0%<") && r.contains(">125.0%<"), "{r}");
        assert!(r.contains(">reduce_atomic<") && r.contains(">reduce<") && !r.contains("/sum<"), "{r}");
        assert_eq!(r.matches("<rect x=").count(), 2, "only the f32 sums at 2^26: {r}");
        assert!(transpose_chart(&rows[5..], "x").is_none() && reduction_chart(&rows[..5], "x").is_none());
    }
}
