//! The emulator's races through the runtime: by default a launch whose report holds a race is
//! `Error::Race`, naming the sites and threads; collecting, it is `Ok` and the race is in the
//! report. Both keep the report.

mod racy;

use bankwise_runtime::bankwise_emu::RaceKind;
use bankwise_runtime::emulator::RACES_SHOWN;
use bankwise_runtime::{Device, EmulatorChecks, Error, LaunchReport};

#[test]
fn a_race_fails_the_launch_by_default_naming_the_sites_and_threads() {
    let dev = Device::emulator();
    assert_eq!(dev.emulator_checks(), Some(EmulatorChecks::Strict));
    let err = racy::launch(&dev, "neighbour_racy").unwrap_err();
    let Error::Race { report } = &err else { panic!("expected Error::Race, got {err}") };
    assert_eq!(report.kernel, "neighbour_racy");
    // Thread t + 1 stores the word thread t read (write-after-read), and thread 63 reads the word
    // thread 0 stored (read-after-write); each pair once, in source order.
    let kinds: Vec<RaceKind> = report.report.races.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RaceKind::WriteRead, RaceKind::ReadWrite], "{:?}", report.report.races);
    let text = err.to_string();
    assert!(text.starts_with("emulated launch of `neighbour_racy`: 2 pairs of shared-memory accesses race"), "{text}");
    for race in &report.report.races {
        // Each site as file:line:column, with the block and thread of each side.
        assert!(
            text.contains(&format!(
                "{} at {}, then {} at {}",
                race.first_thread, race.first, race.second_thread, race.second
            )),
            "{text}"
        );
        assert!(race.first.file.ends_with("racy/mod.rs"), "{}", race.first);
    }
    assert!(text.contains("thread (1, 0, 0) of block (0, 0, 0) at "), "{text}");
    assert!(text.contains("two threads touch the same shared byte between the same barriers"), "{text}");
    assert!(text.contains("put `sync_threads()` between them"), "{text}");
    assert!(text.contains("EmulatorChecks::Collect") && text.contains("BANKWISE_EMULATOR=collect"), "{text}");
    // The device keeps the report too.
    let kept = dev.take_emulator_reports();
    assert_eq!((kept.len(), kept[0].report.races.len()), (1, 2));
}

#[test]
fn a_race_free_launch_passes_the_default_checks() {
    let dev = Device::emulator();
    racy::launch(&dev, "neighbour_synced").unwrap();
    assert!(dev.take_emulator_reports()[0].report.races.is_empty());
}

#[test]
fn many_races_are_listed_up_to_a_handful_then_counted() {
    let err = racy::launch(&Device::emulator(), "neighbour_racy_many").unwrap_err();
    let Error::Race { report } = &err else { panic!("expected Error::Race, got {err}") };
    let races = &report.report.races;
    assert_eq!(races.len(), 6, "{races:?}");
    let text = err.to_string();
    assert!(text.contains(": 6 pairs of shared-memory accesses race"), "{text}");
    let listed = text.lines().filter(|l| l.starts_with("  ") && l.contains(" race on shared byte ")).count();
    assert_eq!(listed, RACES_SHOWN, "{text}");
    assert!(text.contains(&format!("\n  and {} more\n", 6 - RACES_SHOWN)), "{text}");
}

#[test]
fn collecting_races_the_launch_returns_ok_and_the_report_holds_them() {
    let dev = Device::emulator_with(EmulatorChecks::Collect);
    assert_eq!(dev.emulator_checks(), Some(EmulatorChecks::Collect));
    racy::launch(&dev, "neighbour_racy").unwrap();
    let reports = dev.take_emulator_reports();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].kernel, "neighbour_racy");
    assert_eq!(reports[0].report.races.len(), 2, "{:?}", reports[0].report.races);
    // In short, as a program's `--report` prints it: the races, summed over the launches.
    let text = LaunchReport::draw_compact(&reports, false);
    assert!(text.starts_with("1 launch: "), "{text}");
    assert_eq!(text.matches("RACE: ").count(), 2, "{text}");
}
