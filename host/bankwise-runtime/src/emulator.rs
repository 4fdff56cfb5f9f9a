//! The CPU emulator as a device's backend: what it keeps of each launch ([`LaunchReport`]),
//! and what a launch whose report holds a shared-memory race gives ([`EmulatorChecks`]): by
//! default an error, [`Error::Race`], as a fault is, so that a racy kernel whose answer came
//! out right this time does not pass unnoticed.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// What an emulated launch whose report holds a shared-memory race gives. Faults (out-of-bounds
/// and misaligned accesses, divergent barriers and warp collectives, panics, deadlocks) end a
/// launch with [`Error::Emulated`] either way; a race lets the launch run to its end, so it can
/// be only reported. Pick one with [`Device::emulator_with`](crate::Device::emulator_with) or
/// `BANKWISE_EMULATOR` ([`Device::from_env`](crate::Device::from_env)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EmulatorChecks {
    /// A race is an error, [`Error::Race`], naming the racing sites and threads; the report is
    /// kept as well. The default ([`Device::emulator`](crate::Device::emulator),
    /// `BANKWISE_EMULATOR=1`): a program's checks then also prove its kernels race-free.
    #[default]
    Strict,
    /// A race is only recorded in the launch's report
    /// ([`Device::take_emulator_reports`](crate::Device::take_emulator_reports)) and the launch
    /// returns `Ok`: for tools that show the reports of racy kernels (`bankwise emulate`, the
    /// exercises' checker). `BANKWISE_EMULATOR=collect`.
    Collect,
}

impl EmulatorChecks {
    /// The value of `BANKWISE_EMULATOR` that selects it: `1` or `collect`.
    pub fn env_value(self) -> &'static str {
        match self {
            EmulatorChecks::Strict => "1",
            EmulatorChecks::Collect => "collect",
        }
    }
}

/// What an emulated device keeps: how it treats races, and the report of every launch since
/// the last [`Device::take_emulator_reports`](crate::Device::take_emulator_reports).
#[derive(Debug)]
pub(crate) struct Emulated {
    pub reports: Mutex<Vec<LaunchReport>>,
    pub checks: EmulatorChecks,
    /// Tells this emulated device apart from others in one process ([`crate::DeviceId`]).
    pub id: u64,
}

impl Emulated {
    /// A new emulated device, numbered apart from every other of this process.
    pub(crate) fn new(checks: EmulatorChecks) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Emulated { reports: Mutex::default(), checks, id: NEXT.fetch_add(1, Ordering::Relaxed) }
    }

    /// Keeps the report of a launch that ran to its end; then, under [`EmulatorChecks::Strict`],
    /// a report with a race is [`Error::Race`].
    pub(crate) fn keep(&self, launch: LaunchReport) -> Result<()> {
        let failed = (self.checks == EmulatorChecks::Strict && !launch.report.races.is_empty())
            .then(|| Error::Race { report: Box::new(launch.clone()) });
        self.reports.lock().unwrap_or_else(|p| p.into_inner()).push(launch);
        failed.map_or(Ok(()), Err)
    }
}

/// What one launch on the emulator saw (see [`bankwise_emu::Report`]).
#[derive(Clone, Debug)]
pub struct LaunchReport {
    /// The kernel's entry name.
    pub kernel: String,
    /// Its launch configuration.
    pub config: crate::LaunchConfig,
    /// Shared-memory sites and races.
    pub report: bankwise_emu::Report,
}

impl LaunchReport {
    /// Several launches' reports in short ([`bankwise_emu::Report::draw_compact`]): each shared
    /// and global site in a line, summed over the launches, the races, then the costliest shared
    /// request's bank map and the legend once. `color`: ANSI colours, for a terminal.
    pub fn draw_compact(launches: &[LaunchReport], color: bool) -> String {
        let reports: Vec<bankwise_emu::Report> = launches.iter().map(|l| l.report.clone()).collect();
        bankwise_emu::Report::draw_compact(&reports, color)
    }
}

/// How many racing pairs of sites [`Error::Race`]'s message lists before "and N more".
pub const RACES_SHOWN: usize = 4;

/// [`Error::Race`]'s message: the kernel, each racing pair of sites with its threads (at most
/// [`RACES_SHOWN`]), what a race is, the usual fix, and how to collect reports instead.
pub(crate) fn describe_races(launch: &LaunchReport) -> String {
    let races = &launch.report.races;
    let pairs = if races.len() == 1 {
        "a pair of shared-memory accesses races"
    } else {
        "pairs of shared-memory accesses race"
    };
    let mut out = format!(
        "emulated launch of `{}`: {}{pairs} (two threads touch the same shared byte between the same barriers, at \
         least one writing, so the result depends on which runs first, however right it came out this time):",
        launch.kernel,
        if races.len() == 1 { String::new() } else { format!("{} ", races.len()) },
    );
    for race in races.iter().take(RACES_SHOWN) {
        out += &format!("\n  {race}");
    }
    if races.len() > RACES_SHOWN {
        out += &format!("\n  and {} more", races.len() - RACES_SHOWN);
    }
    out += "\nUsually a barrier is missing between one thread's write and another thread's read of the same \
            element: put `sync_threads()` between them (`sync_warp()` where both are lanes of one warp). To collect \
            races in the launch reports instead of failing, as tools that show them do, open the emulator with \
            `Device::emulator_with(EmulatorChecks::Collect)` (bankwise: `Gpu::emulator_with`) or set \
            BANKWISE_EMULATOR=collect.";
    out
}
