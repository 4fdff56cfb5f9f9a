//! Timing GPU work honestly: CUDA events around each run, warm-up first, the median of many.

use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;

use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// Summary of repeated timings, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Median run.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
    /// Slowest run.
    pub max_ms: f64,
    /// Number of timed runs.
    pub runs: usize,
}

impl Stats {
    /// Summarises `samples` (milliseconds); `None` when there are none.
    pub fn from_samples(mut samples: Vec<f64>) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        let median_ms = if n % 2 == 1 { samples[n / 2] } else { (samples[n / 2 - 1] + samples[n / 2]) / 2.0 };
        Some(Stats { median_ms, min_ms: samples[0], max_ms: samples[n - 1], runs: n })
    }

    /// Throughput in GB/s (10^9 bytes per second) for `bytes` moved per run, at the median.
    pub fn gb_per_s(&self, bytes: u64) -> f64 {
        bytes as f64 / (self.median_ms * 1e-3) / 1e9
    }
}

/// A pair of CUDA events on a [`Gpu`]'s stream.
pub struct Timer<'g> {
    gpu: &'g Gpu,
    start: CudaEvent,
    stop: CudaEvent,
}

impl<'g> Timer<'g> {
    /// Creates the events (with timing enabled).
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        Ok(Timer { gpu, start: gpu.context().new_event(flags)?, stop: gpu.context().new_event(flags)? })
    }

    /// Milliseconds of device time that the work `f` queues takes. Generic over the error so
    /// that callers can time work that fails in their own error type (cuBLAS calls, say).
    pub fn time<E: From<Error>>(&self, f: impl FnOnce() -> Result<(), E>) -> Result<f64, E> {
        self.start.record(self.gpu.stream()).map_err(Error::from)?;
        f()?;
        self.stop.record(self.gpu.stream()).map_err(Error::from)?;
        self.stop.synchronize().map_err(Error::from)?;
        Ok(self.start.elapsed_ms(&self.stop).map_err(Error::from)? as f64)
    }
}

/// Untimed warm-up before every measurement: at least this long, and at least the caller's
/// run count. A GPU that has been idle raises its clocks over tens of milliseconds; a dozen
/// runs of a small kernel are over long before that.
pub const MIN_WARMUP: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `f(i)` untimed for at least `warmup` calls and [`MIN_WARMUP`], then `runs` times each
/// between its own pair of events, and returns the statistics. `i` counts all calls, so `f` can
/// rotate among buffer sets.
pub fn measure<E: From<Error>>(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> Result<Stats, E> {
    let (stats, _) = measure_pair(gpu, warmup, runs, &mut f, None::<fn(usize) -> Result<(), E>>)?;
    Ok(stats)
}

/// Like [`measure`] for `f`, and, when `g` is given, the same for `g` with the runs of the two
/// interleaved (f, g, f, g, …). Comparing a kernel with a copy this way puts both under the
/// same clocks, temperature and memory state, which one reference taken at another moment
/// does not: on an H100 such a reference moved by ±1.5% from one process to the next.
pub fn measure_pair<E: From<Error>>(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
    mut g: Option<impl FnMut(usize) -> Result<(), E>>,
) -> Result<(Stats, Option<Stats>), E> {
    let runs = runs.max(1);
    let timer = Timer::new(gpu)?;
    let started = std::time::Instant::now();
    let mut i = 0;
    while i < warmup || started.elapsed() < MIN_WARMUP {
        f(i)?;
        if let Some(g) = g.as_mut() {
            g(i)?;
        }
        gpu.synchronize()?;
        i += 1;
    }
    let (mut fs, mut gs) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in i..i + runs {
        fs.push(timer.time(|| f(i))?);
        if let Some(g) = g.as_mut() {
            gs.push(timer.time(|| g(i))?);
        }
    }
    Ok((Stats::from_samples(fs).expect("runs > 0"), Stats::from_samples(gs)))
}

/// How many distinct buffer sets of `bytes_per_set` bytes to rotate among so that the data a
/// run touches was evicted from the L2 cache by the runs in between (at least 3× the L2 size in
/// between); 1 when one set is already that large.
pub fn rotation(l2_bytes: usize, bytes_per_set: usize) -> usize {
    if bytes_per_set == 0 {
        return 1;
    }
    (3 * l2_bytes).div_ceil(bytes_per_set).clamp(1, 64)
}
