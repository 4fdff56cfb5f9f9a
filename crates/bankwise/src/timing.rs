//! Timing GPU work honestly: CUDA events around each run, warm-up first, the median of many,
//! and the runs queued back to back so that no time includes the host's launch latency.

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, PushKernelArg};

use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::gpu::{Gpu, Launch};
use crate::kernels;

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

/// A pair of CUDA events on a [`Gpu`]'s stream. On an idle stream the start event fires before
/// the first launch arrives, so the time includes that launch's latency unless a
/// [`spin_wait`] is queued first.
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
pub const MIN_WARMUP: Duration = Duration::from_millis(50);

/// Timed runs are queued in batches of this many (pairs of) runs, each behind a
/// [`spin_wait`].
const BATCH: usize = 16;
/// The first batch's hold; doubled, up to [`MAX_HOLD`], whenever the host took longer than
/// the hold to queue a batch (the batch is then queued again).
const FIRST_HOLD: Duration = Duration::from_millis(1);
/// The longest hold: a host slower than this to queue a batch gets its runs timed with
/// whatever gaps remain.
const MAX_HOLD: Duration = Duration::from_millis(256);

/// Holds the GPU for `duration` with the one-thread `spin_wait` kernel, so that the work the
/// host queues next waits behind it and then runs back to back.
pub fn spin_wait(gpu: &Gpu, duration: Duration) -> Result<()> {
    let launch =
        Launch { kernel: kernels::SPIN_WAIT, grid: (1, 1, 1), block: (1, 1, 1), shared_bytes: 0, resident: None };
    let ns = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    // Safety: `spin_wait(ns: u64)` takes one integer and touches no memory.
    unsafe {
        gpu.launch(launch, |l| {
            l.arg(&ns);
        })
    }
}

/// Runs `f(i)` untimed for at least `warmup` calls and [`MIN_WARMUP`], then `runs` times, each
/// timed from the end of the run before (see [`measure_pair`]), and returns the statistics.
/// `i` counts all calls, so `f` can rotate among buffer sets.
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
///
/// The timed runs are queued back to back, in batches behind a [`spin_wait`], with one event
/// between consecutive runs: each run is timed from the end of the one before, so no run's
/// time includes the host's launch latency. (An event pair around a launch on an idle stream
/// includes it: about 4.4 µs on an H100, 2.4% of a copy of 8192² f32, half of one of 1024².)
pub fn measure_pair<E: From<Error>>(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
    mut g: Option<impl FnMut(usize) -> Result<(), E>>,
) -> Result<(Stats, Option<Stats>), E> {
    let runs = runs.max(1);
    let started = Instant::now();
    let mut i = 0;
    while i < warmup || started.elapsed() < MIN_WARMUP {
        f(i)?;
        if let Some(g) = g.as_mut() {
            g(i)?;
        }
        gpu.synchronize()?;
        i += 1;
    }
    let per_run = if g.is_some() { 2 } else { 1 };
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let events = (0..=BATCH * per_run)
        .map(|_| gpu.context().new_event(flags))
        .collect::<Result<Vec<CudaEvent>, _>>()
        .map_err(Error::from)?;
    let (mut fs, mut gs) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    let mut hold = FIRST_HOLD;
    while fs.len() < runs {
        let batch = (runs - fs.len()).min(BATCH);
        spin_wait(gpu, hold)?;
        let queuing = Instant::now();
        events[0].record(gpu.stream()).map_err(Error::from)?;
        for k in 0..batch {
            f(i)?;
            events[per_run * k + 1].record(gpu.stream()).map_err(Error::from)?;
            if let Some(g) = g.as_mut() {
                g(i)?;
                events[per_run * k + 2].record(gpu.stream()).map_err(Error::from)?;
            }
            i += 1;
        }
        let queued = queuing.elapsed();
        events[per_run * batch].synchronize().map_err(Error::from)?;
        if queued >= hold && hold < MAX_HOLD {
            // The GPU may have caught up with the host, and some runs waited for their launch.
            hold = (hold * 2).min(MAX_HOLD);
            continue;
        }
        let elapsed = |a: usize, b: usize| events[a].elapsed_ms(&events[b]).map(f64::from).map_err(Error::from);
        for k in 0..batch {
            fs.push(elapsed(per_run * k, per_run * k + 1)?);
            if g.is_some() {
                gs.push(elapsed(per_run * k + 1, per_run * k + 2)?);
            }
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
