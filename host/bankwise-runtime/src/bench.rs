//! Timing GPU work honestly, for any kernel: CUDA events around each run, a time-based
//! warm-up, the median of many runs, the runs queued back to back behind a hold kernel so that
//! no time includes the host's launch latency, buffer sets rotated so that inputs are not
//! found in L2, and the driver's copy timed in the same run as the reference bandwidth.
//!
//! ```no_run
//! # fn main() -> bankwise_runtime::Result<()> {
//! use bankwise_runtime::{Device, bench};
//! let dev = Device::new(0)?;
//! let n = 1 << 24;
//! let (src, mut dst) = (dev.alloc_zeros::<f32>(n)?, dev.alloc_zeros::<f32>(n)?);
//! // Time the driver's own copy against itself: about 100% of the copy.
//! let run = bench::versus_copy(&dev, 10, 50, 4 * n, |_| dev.copy_dtod(&src, &mut dst))?;
//! println!("{:.1} µs, {:.1}% of the copy", run.kernel.median_ms * 1e3, 100.0 * run.fraction_of_copy(8 * n as u64));
//! # Ok(()) }
//! ```

use std::time::{Duration, Instant};

use crate::device::Device;
use crate::error::{Error, Result};
use crate::memory::DeviceBuffer;
use crate::stream::Event;

/// The hold kernel's PTX (sm_70 and later), loaded by [`Device::spin_wait`] on first use.
pub const SPIN_WAIT_PTX: &str = include_str!("spin_wait.ptx");
/// The hold kernel's entry in [`SPIN_WAIT_PTX`]: `bankwise_runtime_spin_wait(u64 ns)`.
pub const SPIN_WAIT: &str = "bankwise_runtime_spin_wait";

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

/// A pair of events on a device's stream. On an idle stream the start event fires before the
/// first launch arrives, so the time includes that launch's latency unless a
/// [`Device::spin_wait`] is queued first.
pub struct Timer<'d> {
    device: &'d Device,
    start: Event,
    stop: Event,
}

impl<'d> Timer<'d> {
    /// Creates the events, timing work on `device`'s stream.
    pub fn new(device: &'d Device) -> Result<Self> {
        Ok(Timer { device, start: device.new_event()?, stop: device.new_event()? })
    }

    /// Milliseconds of device time that the work `f` queues takes. Generic over the error so
    /// that callers can time work that fails in their own error type (cuBLAS calls, say).
    pub fn time<E: From<Error>>(&self, f: impl FnOnce() -> Result<(), E>) -> Result<f64, E> {
        self.start.record(self.device.stream())?;
        f()?;
        self.stop.record(self.device.stream())?;
        self.stop.synchronize()?;
        Ok(self.start.elapsed_ms(&self.stop)?)
    }
}

/// Holds `device`'s stream for `duration`: see [`Device::spin_wait`].
pub fn spin_wait(device: &Device, duration: Duration) -> Result<()> {
    device.spin_wait(duration)
}

/// Untimed warm-up before every measurement: at least this long, and at least the caller's
/// run count. A GPU that has been idle raises its clocks over tens of milliseconds; a dozen
/// runs of a small kernel are over long before that.
pub const MIN_WARMUP: Duration = Duration::from_millis(50);

/// Timed runs are queued in batches of this many (pairs of) runs, each behind a hold.
const BATCH: usize = 16;
/// The first batch's hold; doubled, up to [`MAX_HOLD`], whenever the host took longer than
/// the hold to queue a batch (the batch is then queued again).
const FIRST_HOLD: Duration = Duration::from_millis(1);
/// The longest hold: a host slower than this to queue a batch gets its runs timed with
/// whatever gaps remain.
const MAX_HOLD: Duration = Duration::from_millis(256);

/// Runs `f(i)` untimed for at least `warmup` calls and [`MIN_WARMUP`], then `runs` times (at
/// least once), each timed from the end of the run before (see [`measure_pair`]), and returns
/// the statistics. `i` counts all calls, so `f` can rotate among buffer sets.
pub fn measure<E: From<Error>>(
    device: &Device,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> Result<Stats, E> {
    let (stats, _) = measure_pair(device, warmup, runs, &mut f, None::<fn(usize) -> Result<(), E>>)?;
    Ok(stats)
}

/// Like [`measure`] for `f`, and, when `g` is given, the same for `g` with the runs of the two
/// interleaved (f, g, f, g, …). Comparing a kernel with a copy this way puts both under the
/// same clocks, temperature and memory state, which one reference taken at another moment
/// does not: on an H100 such a reference moved by ±1.5% from one process to the next.
///
/// The timed runs are queued back to back on the device's stream, in batches behind a
/// [`Device::spin_wait`], with one event between consecutive runs: each run is timed from the
/// end of the one before, so no run's time includes the host's launch latency. (An event pair
/// around a launch on an idle stream includes it: about 4.4 µs on an H100, 2.4% of a copy of
/// 8192² f32, half of one of 1024².)
pub fn measure_pair<E: From<Error>>(
    device: &Device,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
    mut g: Option<impl FnMut(usize) -> Result<(), E>>,
) -> Result<(Stats, Option<Stats>), E> {
    let runs = runs.max(1);
    let stream = device.stream();
    let started = Instant::now();
    let mut i = 0;
    while i < warmup || started.elapsed() < MIN_WARMUP {
        f(i)?;
        if let Some(g) = g.as_mut() {
            g(i)?;
        }
        device.synchronize()?;
        i += 1;
    }
    let per_run = if g.is_some() { 2 } else { 1 };
    let events = (0..=BATCH * per_run).map(|_| device.new_event()).collect::<Result<Vec<Event>>>()?;
    let (mut fs, mut gs) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    let mut hold = FIRST_HOLD;
    while fs.len() < runs {
        let batch = (runs - fs.len()).min(BATCH);
        device.spin_wait(hold)?;
        let queuing = Instant::now();
        events[0].record(stream)?;
        for k in 0..batch {
            f(i)?;
            events[per_run * k + 1].record(stream)?;
            if let Some(g) = g.as_mut() {
                g(i)?;
                events[per_run * k + 2].record(stream)?;
            }
            i += 1;
        }
        let queued = queuing.elapsed();
        events[per_run * batch].synchronize()?;
        if queued >= hold && hold < MAX_HOLD {
            // The GPU may have caught up with the host, and some runs waited for their launch.
            hold = (hold * 2).min(MAX_HOLD);
            continue;
        }
        for k in 0..batch {
            fs.push(events[per_run * k].elapsed_ms(&events[per_run * k + 1])?);
            if g.is_some() {
                gs.push(events[per_run * k + 1].elapsed_ms(&events[per_run * k + 2])?);
            }
        }
    }
    // `runs` is at least 1, so `fs` holds samples.
    Ok((Stats::from_samples(fs).expect("runs > 0"), Stats::from_samples(gs)))
}

/// How many distinct buffer sets of `bytes_per_set` bytes to rotate among so that the data a
/// run touches was evicted from the L2 cache by the runs in between (at least 3× the L2 size in
/// between); 1 when one set is already that large, at most 64.
pub fn rotation(l2_bytes: usize, bytes_per_set: usize) -> usize {
    if bytes_per_set == 0 {
        return 1;
    }
    (3 * l2_bytes).div_ceil(bytes_per_set).clamp(1, 64)
}

/// A kernel's timing beside the driver's device-to-device copy measured in the same run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VersusCopy {
    /// The kernel's runs.
    pub kernel: Stats,
    /// The copy's runs, interleaved with the kernel's.
    pub copy: Stats,
    /// Bytes each copy read (and wrote).
    pub copy_bytes: u64,
}

impl VersusCopy {
    /// The copy's bandwidth in GB/s, counting bytes read and written.
    pub fn copy_gb_per_s(&self) -> f64 {
        self.copy.gb_per_s(2 * self.copy_bytes)
    }

    /// The kernel's bandwidth for `kernel_bytes` moved per run (read + written) as a fraction
    /// of the copy's.
    pub fn fraction_of_copy(&self, kernel_bytes: u64) -> f64 {
        self.kernel.gb_per_s(kernel_bytes) / self.copy_gb_per_s()
    }
}

/// Times `f` ([`measure_pair`]) interleaved with the driver's `cuMemcpyDtoDAsync` of
/// `copy_bytes` bytes. The copy rotates over buffer sets of its own, enough that none is found
/// in L2 ([`rotation`]): reading the source a kernel had just read, it found that source in L2
/// wherever a set fits there, and ran up to 30% fast. `f` should rotate its own buffers the
/// same way (by the index it is given).
pub fn versus_copy<E: From<Error>>(
    device: &Device,
    warmup: usize,
    runs: usize,
    copy_bytes: usize,
    f: impl FnMut(usize) -> Result<(), E>,
) -> Result<VersusCopy, E> {
    let sets = rotation(device.info().l2_bytes, 2 * copy_bytes);
    let buffers = || (0..sets).map(|_| device.alloc_zeros::<u8>(copy_bytes)).collect::<Result<Vec<DeviceBuffer<u8>>>>();
    let (srcs, mut dsts) = (buffers()?, buffers()?);
    let copy = |i: usize| -> Result<(), E> { Ok(device.copy_dtod(&srcs[i % sets], &mut dsts[i % sets])?) };
    let (kernel, copy) = measure_pair(device, warmup, runs, f, Some(copy))?;
    let copy = copy.expect("measure_pair times g when given");
    Ok(VersusCopy { kernel, copy, copy_bytes: copy_bytes as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_take_the_median_and_extremes() {
        let s = Stats::from_samples(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median_ms, s.min_ms, s.max_ms, s.runs), (2.0, 1.0, 3.0, 3));
        let s = Stats::from_samples(vec![4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.median_ms, 2.5);
        assert_eq!(Stats::from_samples(Vec::new()), None);
        // 1 GB in 1 ms is 1000 GB/s.
        let s = Stats::from_samples(vec![1.0]).unwrap();
        assert_eq!(s.gb_per_s(1_000_000_000), 1000.0);
    }

    #[test]
    fn rotation_puts_three_l2s_between_reuses() {
        let l2 = 50 << 20;
        assert_eq!(rotation(l2, 0), 1);
        assert_eq!(rotation(l2, 1 << 30), 1);
        assert_eq!(rotation(l2, 8 << 20), 19);
        assert_eq!(rotation(l2, 1), 64);
        assert!(rotation(l2, 8 << 20) * (8 << 20) >= 3 * l2);
    }

    #[test]
    fn versus_copy_compares_bandwidths() {
        let s = |ms| Stats { median_ms: ms, min_ms: ms, max_ms: ms, runs: 1 };
        let run = VersusCopy { kernel: s(2.0), copy: s(1.0), copy_bytes: 1_000_000 };
        assert_eq!(run.copy_gb_per_s(), 2.0);
        // The same bytes in twice the time: half the copy's bandwidth.
        assert_eq!(run.fraction_of_copy(2_000_000), 0.5);
    }
}
