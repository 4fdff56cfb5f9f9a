//! `bankwise tune`: sweeps the bandwidth-bound kernels' launch choices on this GPU and writes
//! its tuning table ([`bankwise::tuning`]), as JSON, for `BANKWISE_TUNING` to name.
//!
//! Each choice ([`MemoryTuning`]'s fields) is swept alone, the others held at the table being
//! built: every candidate runs its workloads on random data with rotated buffers, timed with
//! CUDA events (median of `--runs` after a warm-up), interleaved with the driver's copy of the
//! same bytes; the candidate with the highest mean fraction of the copy wins, and a candidate
//! must beat the starting table's value by [`MARGIN`] to replace it (run-to-run noise is
//! 0.2–0.5 points). Then the matrix multiply's tile rates at 4096³ ([`matmul_rates`]); its
//! strip, realign and split figures stay the starting table's (the shipped table of the
//! nearest GPU), which the file says.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bankwise::half::bf16;
use bankwise::reduce::Sum;
use bankwise::reduce_axes::{AxesElement, AxesOperation};
use bankwise::timing::{VersusCopy, measure, rotation, versus_copy};
use bankwise::tuning::{GpuKey, MatmulTuning, MemoryTuning, RungRates, TileRates, Tuning};
use bankwise::{DeviceBuffer, Gpu, ReduceKernel, Shape};
use indicatif::{ProgressBar, ProgressStyle};

use crate::bench::{random, today};

/// `bankwise tune`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Where to write the table (JSON); without it, it is printed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Timed runs per candidate and workload (after as many warm-up runs as the harness needs).
    #[arg(long, default_value_t = 40)]
    runs: usize,
    /// Smaller workloads and fewer runs: checks that tuning works, but is no table to keep.
    #[arg(long)]
    quick: bool,
    /// Keep the starting table's matrix multiply rates instead of measuring them (a few
    /// seconds at 4096³ per tile size, type and pair of `op`s).
    #[arg(long)]
    skip_matmul: bool,
}

/// How much (fraction of the copy) a candidate must gain over the starting value to replace it.
pub const MARGIN: f64 = 0.003;

/// One workload a choice is timed on: its name, the bytes it moves, the bytes of the copy set
/// beside it, and a run (by rotation index) on a GPU planning with the candidate's table.
struct Workload<'a> {
    name: String,
    bytes: u64,
    copy_bytes: usize,
    run: Run<'a>,
}

/// A workload's run: on a GPU planning with a candidate table, rotated buffers by index.
type Run<'a> = Box<dyn FnMut(&Gpu, usize) -> bankwise::Result<()> + 'a>;

/// One launch choice of [`MemoryTuning`]: its field's name, and how to read and set it.
struct Choice {
    name: &'static str,
    get: fn(&MemoryTuning) -> Option<u32>,
    set: fn(&mut MemoryTuning, Option<u32>),
}

/// What every sweep shares: the GPU, the runs per candidate, the progress bar.
struct Tuner<'g> {
    gpu: &'g Gpu,
    runs: usize,
    progress: ProgressBar,
}

impl Tuner<'_> {
    /// Times every candidate of `choice` on `workloads` (the rest of `table` held), prints
    /// each one's fraction of the copy, and sets the winner in `table`.
    fn sweep(
        &self,
        table: &mut Tuning,
        choice: Choice,
        candidates: &[Option<u32>],
        mut workloads: Vec<Workload>,
    ) -> Result<()> {
        self.progress.inc_length((candidates.len() * workloads.len()) as u64);
        let mut results = Vec::new();
        for &candidate in candidates {
            let mut trial = table.clone();
            (choice.set)(&mut trial.memory, candidate);
            // One small table per candidate, kept for the process (a Gpu plans with `&'static`).
            let trial: &'static Tuning = Box::leak(Box::new(trial));
            let on = self.gpu.with_tuning(trial);
            let mut fractions = Vec::new();
            for w in &mut workloads {
                self.progress.set_message(format!("{} = {} on {}", choice.name, show(candidate), w.name));
                let VersusCopy { kernel, copy, .. } =
                    versus_copy(self.gpu, 3, self.runs, w.copy_bytes, |i| (w.run)(&on, i))?;
                fractions.push(kernel.gb_per_s(w.bytes) / copy.gb_per_s(2 * w.copy_bytes as u64));
                self.progress.inc(1);
            }
            let mean = fractions.iter().sum::<f64>() / fractions.len() as f64;
            results.push((candidate, mean, fractions));
        }
        let held = (choice.get)(&table.memory);
        let best = results.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("at least one candidate");
        let chosen = match results.iter().find(|r| r.0 == held) {
            Some(h) if best.1 < h.1 + MARGIN => h,
            _ => best,
        };
        (choice.set)(&mut table.memory, chosen.0);
        self.progress.suspend(|| {
            let names: Vec<&str> = workloads.iter().map(|w| w.name.as_str()).collect();
            println!("{} (% of the copy: {}):", choice.name, names.join("; "));
            for (c, mean, each) in &results {
                let each: Vec<String> = each.iter().map(|f| format!("{:.1}", 100.0 * f)).collect();
                let mark = if *c == chosen.0 { "  <- chosen" } else { "" };
                println!("  {:>5}: {:.1} ({}){mark}", show(*c), 100.0 * mean, each.join(", "));
            }
        });
        Ok(())
    }
}

pub fn run(args: &Args) -> Result<()> {
    let gpu = Gpu::new().context("bankwise tune measures a GPU")?;
    let info = gpu.info().clone();
    let start = gpu.tuning();
    let runs = if args.quick { 5 } else { args.runs };
    let mut table = Tuning {
        device: info.name.clone().into(),
        key: GpuKey::of(&info),
        measured: format!(
            "{} by `bankwise tune` ({} runs per candidate{}); matmul: {}",
            today(),
            runs,
            if args.quick { ", --quick" } else { "" },
            if args.skip_matmul || args.quick {
                format!("the {} table's, not measured", start.device)
            } else {
                format!(
                    "tile rates measured (4096³; checked entries at 4096×4095×4096), strip, realign and split \
                     figures the {} table's",
                    start.device
                )
            }
        )
        .into(),
        ..start.clone()
    };
    let scale = if args.quick { 4 } else { 1 };
    let tuner = Tuner { gpu: &gpu, runs, progress: ProgressBar::new(0) };
    tuner.progress.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("a valid template"));
    eprintln!("tuning {} ({} SMs), starting from the {} table", info.name, info.multiprocessors, start.device);

    // The copy: 256 MiB and 1 GiB of f32 (64 and 256 MiB with --quick); 1024 blocks per SM
    // cover either with one vector per thread.
    let sizes = [26, 28].map(|log| Pairs::<f32>::new(&gpu, (1 << log) / scale));
    let [small, large] = sizes;
    let (small, large) = (small?, large?);
    let choice = Choice {
        name: "copy_blocks_per_sm",
        get: |m| Some(m.copy_blocks_per_sm),
        set: |m, c| m.copy_blocks_per_sm = c.expect("a count"),
    };
    tuner.sweep(
        &mut table,
        choice,
        &[16, 64, 256, 1024].map(Some),
        vec![
            small.workload("copy f32 2^26", 2, |g, s, d| g.copy(s, d)),
            large.workload("copy f32 2^28", 2, |g, s, d| g.copy(s, d)),
        ],
    )?;
    drop((small, large));

    // The tuned reduction: f32 sums of 2^24 and 2^26 elements (bytes read once).
    let sums = [24, 26].map(|log| Singles::new(&gpu, (1 << log) / scale, |x| x));
    let [small, large] = sums;
    let (small, large) = (small?, large?);
    let candidates = [4, 6, 8, 12, 16].map(Some);
    let work = vec![small.reduce_workload(&gpu, "sum f32 2^24", 16)?, large.reduce_workload(&gpu, "sum f32 2^26", 16)?];
    let choice = Choice {
        name: "reduce_blocks_per_sm",
        get: |m| Some(m.reduce_blocks_per_sm),
        set: |m, c| m.reduce_blocks_per_sm = c.expect("a count"),
    };
    tuner.sweep(&mut table, choice, &candidates, work)?;
    drop((small, large));

    // The tuned transpose: aligned f32 from the cap's threshold on, and an odd shape.
    let caps = [None, Some(2), Some(3), Some(4), Some(6)];
    let sides: &[usize] = if args.quick { &[4096] } else { &[8192, 16384] };
    let aligned: Vec<Shape> = sides.iter().map(|&s| Shape::new(s, s)).collect();
    let sets = aligned.iter().map(|s| Pairs::<f32>::new(&gpu, s.rows * s.cols)).collect::<Result<Vec<_>>>()?;
    let work = aligned.iter().zip(&sets).map(|(&shape, p)| p.transpose_workload(shape)).collect();
    let choice =
        Choice { name: "transpose_residency", get: |m| m.transpose_residency, set: |m, c| m.transpose_residency = c };
    tuner.sweep(&mut table, choice, &caps, work)?;
    drop(sets);
    let odd = if args.quick { Shape::new(4095, 4097) } else { Shape::new(8191, 8193) };
    let pairs = Pairs::<f32>::new(&gpu, odd.rows * odd.cols)?;
    let choice =
        Choice { name: "unaligned_residency", get: |m| m.unaligned_residency, set: |m, c| m.unaligned_residency = c };
    tuner.sweep(&mut table, choice, &caps, vec![pairs.transpose_workload(odd)])?;
    drop(pairs);

    // Reductions along axes: rows of a square and a few long rows; columns of a square and the
    // middle axis of a (B, N, D) tensor.
    let side = 8192 / scale.min(2);
    let square = Singles::new(&gpu, side * side, |x| x)?;
    let rows = vec![
        square.axes_workload(&gpu, "rows of a square", &[side, side], &[1])?,
        square.axes_workload(&gpu, "64 long rows", &[64, side * side / 64], &[1])?,
    ];
    let choice = Choice {
        name: "axes_row_blocks_per_sm",
        get: |m| Some(m.axes_row_blocks_per_sm),
        set: |m, c| m.axes_row_blocks_per_sm = c.expect("a count"),
    };
    tuner.sweep(&mut table, choice, &[1, 2, 4, 8, 16, 32, 64].map(Some), rows)?;
    let rows = vec![
        square.axes_workload(&gpu, "rows of a square", &[side, side], &[1])?,
        square.axes_workload(&gpu, "rows of 4 squares' length", &[side / 4, side * 4], &[1])?,
    ];
    let choice = Choice {
        name: "axes_block_row_min",
        get: |m| Some(m.axes_block_row_min),
        set: |m, c| m.axes_block_row_min = c.expect("a length"),
    };
    tuner.sweep(&mut table, choice, &[1024, 4096, 16_384, 65_536, 262_144].map(Some), rows)?;
    // Columns in f32 and bf16: one figure serves both, and bf16's column blocks (three to an SM,
    // eight columns a thread) favour fewer, longer chunks than f32's.
    let halves = Singles::new(&gpu, side * side, bf16::from_f32)?;
    let columns = vec![
        square.axes_workload(&gpu, "columns of a square", &[side, side], &[0])?,
        square.axes_workload(&gpu, "(B, N, D) over N", &[side / 128, side / 8, 1024], &[1])?,
        halves.axes_workload(&gpu, "bf16 columns of a square", &[side, side], &[0])?,
        halves.axes_workload(&gpu, "bf16 (B, N, D) over N", &[side / 128, side / 8, 1024], &[1])?,
    ];
    let choice = Choice {
        name: "axes_column_blocks_per_sm",
        get: |m| Some(m.axes_column_blocks_per_sm),
        set: |m, c| m.axes_column_blocks_per_sm = c.expect("a count"),
    };
    tuner.sweep(&mut table, choice, &[2, 3, 4, 6, 8, 12, 16, 32, 64].map(Some), columns)?;
    drop((square, halves));

    if !(args.skip_matmul || args.quick) {
        table.matmul = matmul_rates(&gpu, &table, &tuner)?;
    }
    tuner.progress.finish_and_clear();

    table.check().map_err(anyhow::Error::msg)?;
    let json = table.to_json();
    match &args.out {
        Some(path) => {
            std::fs::write(path, &json).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}: plan with it by setting BANKWISE_TUNING={}", path.display(), path.display());
        }
        None => println!("{json}"),
    }
    Ok(())
}

/// The tuned rungs' tile rates on this GPU, TFLOP/s per pair of `op`s: each tile size and type
/// a rung has, its whole-tile entries at 4096³ (where it has them), its checked entries at
/// 4096 × 4095 × 4096 with aligned rows (one column short of whole tiles: the same tiles, the
/// bounds checks on). Each the median of `runs` after 3 warm-up runs; the other figures are
/// `table`'s.
fn matmul_rates(gpu: &Gpu, table: &Tuning, tuner: &Tuner) -> Result<MatmulTuning> {
    use bankwise::matmul::{MatmulKernel, MatmulShape, TunedPlan, TunedTile};
    use bankwise::{Float, Op};

    /// One rung's rates for `T`, `None` for sizes it has not (or that cannot run here).
    fn rung<T: Float>(gpu: &Gpu, tuner: &Tuner, kernel: MatmulKernel) -> Result<RungRates> {
        let n = 4096;
        let host: Vec<T> = (0..n * n).map(|i| T::from_f64(((i * 7919) % 1000) as f64 / 1000.0 - 0.5)).collect();
        let (a, b) = (gpu.upload(&host)?, gpu.upload(&host)?);
        let mut c = gpu.alloc_zeros::<T>(n * n)?;
        let ops = [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)];
        let mut rate = |tile: TunedTile, shape: MatmulShape| -> Result<Option<f64>> {
            let Ok(plan) = TunedPlan::new::<T>(kernel, tile, shape, gpu.plan_target()) else { return Ok(None) };
            tuner.progress.set_message(format!("{} {} {} {shape}", kernel.name(), tile.name(), short::<T>()));
            let one = T::from_f64(1.0);
            let zero = T::from_f64(0.0);
            let run = |_| gpu.matmul_tuned(plan, one, &a, &b, zero, &mut c, shape);
            let stats = match measure(gpu, 3, tuner.runs.min(20), run) {
                Ok(stats) => stats,
                // A rung this GPU does not run (the multistage rung before sm_80).
                Err(bankwise::Error::NeedsNewerGpu { .. }) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            tuner.progress.inc(1);
            Ok(Some(shape.flops() / (stats.median_ms * 1e-3) / 1e12))
        };
        let mut sizes = [None, None];
        for (slot, tile) in sizes.iter_mut().zip(TunedTile::ALL) {
            if tile.tiles::<T>(kernel).is_none() {
                continue;
            }
            let (mut checked, mut whole) = ([0.0; 4], [0.0; 4]);
            let mut has_whole = true;
            for (i, &(op_a, op_b)) in ops.iter().enumerate() {
                let cube = MatmulShape::new(n, n, n).with_ops(op_a, op_b);
                // One column short: the same tiles, the checked entries; rows of 4096 kept.
                let short = MatmulShape::new(n, n - 1, n).with_ops(op_a, op_b).with_leading_dimensions(n, n, n);
                let Some(r) = rate(tile, short)? else { break };
                checked[i] = r;
                if tile.whole::<T>(kernel, cube) {
                    whole[i] = rate(tile, cube)?.unwrap_or(r);
                } else {
                    has_whole = false;
                }
            }
            if checked.iter().all(|&r| r > 0.0) {
                *slot = Some(TileRates { checked, whole: has_whole.then_some(whole) });
            }
        }
        Ok(RungRates { square: sizes[0], wide: sizes[1] })
    }

    tuner.progress.inc_length(64);
    let (tuned, multistage) = (MatmulKernel::Tuned, MatmulKernel::Multistage);
    let rates = MatmulTuning {
        tuned_f32: rung::<f32>(gpu, tuner, tuned)?,
        tuned_f64: rung::<f64>(gpu, tuner, tuned)?,
        multistage_f32: rung::<f32>(gpu, tuner, multistage)?,
        multistage_f64: rung::<f64>(gpu, tuner, multistage)?,
        ..table.matmul
    };
    tuner.progress.suspend(|| {
        println!("matmul tile rates (TFLOP/s, NN NT TN TT; checked entries, then whole-tile ones):");
        for (name, r) in [
            ("tuned f32", rates.tuned_f32),
            ("tuned f64", rates.tuned_f64),
            ("multistage f32", rates.multistage_f32),
            ("multistage f64", rates.multistage_f64),
        ] {
            for (size, t) in [("square", r.square), ("wide", r.wide)] {
                if let Some(t) = t {
                    let row = |x: [f64; 4]| x.map(|v| format!("{v:.2}")).join(" ");
                    let whole = t.whole.map_or(String::new(), |w| format!("; whole {}", row(w)));
                    println!("  {name} {size}: {}{whole}", row(t.checked));
                }
            }
        }
    });
    Ok(rates)
}

/// `T`'s short name.
fn short<T>() -> &'static str {
    std::any::type_name::<T>().rsplit("::").next().unwrap_or("?")
}

fn show(c: Option<u32>) -> String {
    c.map_or("none".into(), |c| c.to_string())
}

/// Source and destination buffers of `n` random `T`s, rotated so no run finds its data in L2.
struct Pairs<T> {
    srcs: Vec<DeviceBuffer<T>>,
    dsts: std::cell::RefCell<Vec<DeviceBuffer<T>>>,
    n: usize,
}

impl<T: bankwise::Element> Pairs<T> {
    fn new(gpu: &Gpu, n: usize) -> Result<Self> {
        let sets = rotation(gpu.info().l2_bytes, 2 * n * size_of::<T>());
        let host = random::<T>(n);
        let srcs = (0..sets).map(|_| gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let dsts = (0..sets).map(|_| gpu.alloc_zeros::<T>(n)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        Ok(Pairs { srcs, dsts: dsts.into(), n })
    }

    /// `op` from a source to a destination, moving `passes` · n elements.
    fn workload<'a>(
        &'a self,
        name: &str,
        passes: u64,
        op: impl Fn(&Gpu, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> bankwise::Result<()> + 'a,
    ) -> Workload<'a> {
        let bytes = self.n * size_of::<T>();
        Workload {
            name: name.into(),
            bytes: passes * bytes as u64,
            copy_bytes: bytes,
            run: Box::new(move |g, i| {
                let sets = self.srcs.len();
                op(g, &self.srcs[i % sets], &mut self.dsts.borrow_mut()[i % sets])
            }),
        }
    }

    fn transpose_workload(&self, shape: Shape) -> Workload<'_> {
        self.workload(&format!("transpose f32 {shape}"), 2, move |g, s, d| g.transpose(s, d, shape))
    }
}

/// Rotated sources of `n` random `T`s (`f32` or `bf16`), for work that reads only.
struct Singles<T> {
    srcs: Vec<DeviceBuffer<T>>,
    n: usize,
}

impl<T: bankwise::Element> Singles<T> {
    /// Values in [-1, 1), made by `from_f32`: sums far from overflow.
    fn new(gpu: &Gpu, n: usize, from_f32: fn(f32) -> T) -> Result<Self> {
        let sets = rotation(gpu.info().l2_bytes, n * size_of::<T>());
        let host: Vec<T> =
            random::<u32>(n).iter().map(|&r| from_f32((r >> 8) as f32 / (1 << 23) as f32 - 1.0)).collect();
        let srcs = (0..sets).map(|_| gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        Ok(Singles { srcs, n })
    }
}

impl Singles<f32> {
    /// The tuned sum into an output and scratch of its own (room for `max_per_sm` blocks per
    /// SM, the most any candidate launches).
    fn reduce_workload(&self, gpu: &Gpu, name: &str, max_per_sm: u32) -> Result<Workload<'_>> {
        let bytes = self.n * 4;
        let mut widest = gpu.tuning().clone();
        widest.memory.reduce_blocks_per_sm = max_per_sm;
        let widest: &'static Tuning = Box::leak(Box::new(widest));
        let mut scratch = gpu.with_tuning(widest).reduce_scratch::<f32>(ReduceKernel::Tuned, self.n)?;
        let mut out = gpu.alloc_zeros::<f32>(1)?;
        Ok(Workload {
            name: name.into(),
            bytes: bytes as u64,
            copy_bytes: bytes,
            run: Box::new(move |g, i| {
                g.reduce_into(ReduceKernel::Tuned, Sum, &self.srcs[i % self.srcs.len()], .., &mut out, &mut scratch)
            }),
        })
    }
}

impl<T: AxesElement> Singles<T>
where
    Sum: AxesOperation<T>,
{
    /// The sum of the `dims` tensor (all of a source) over `axes`, which reads it once.
    fn axes_workload(&self, gpu: &Gpu, name: &str, dims: &[usize], axes: &[usize]) -> Result<Workload<'_>> {
        let bytes = self.n * size_of::<T>();
        let kept: usize = (0..dims.len()).filter(|a| !axes.contains(a)).map(|a| dims[a]).product();
        let mut out = gpu.alloc_zeros::<T>(kept)?;
        let (dims, axes) = (dims.to_vec(), axes.to_vec());
        Ok(Workload {
            name: name.into(),
            bytes: bytes as u64,
            copy_bytes: bytes,
            run: Box::new(move |g, i| g.reduce_axes(Sum, &self.srcs[i % self.srcs.len()], &dims, &axes, &mut out)),
        })
    }
}
