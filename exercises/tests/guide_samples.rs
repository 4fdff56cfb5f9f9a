//! The guide's sample outputs of the exercises' checker (`cargo xtask exercise check N`) are
//! what it prints now for the exercises as shipped (`bankwise_guide::samples`), and the
//! message it shows for a common mistake is what the check says of it.

use std::path::Path;

use bankwise_exercises_kernels::mistakes;
use bankwise_runtime::bankwise_emu::Fault;
use bankwise_runtime::{Device, LaunchConfig, ModuleImage};

#[test]
fn the_guides_exercise_samples_are_what_the_checker_prints() {
    if bankwise_exercises::SOLUTIONS {
        eprintln!("skipped: the guide shows the exercises as shipped, and this build checks the solutions");
        return;
    }
    let exe = Path::new(env!("CARGO_BIN_EXE_bankwise-exercises"));
    // From the repository's root, where the checker finds the hints and names the files.
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let checked =
        bankwise_guide::samples::check_program("bankwise-exercises", exe, Some(root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "the guide shows the checker's output");
}

/// `lanes` (bit `i` = lane `i`) as the checks write them: `lanes 8–31`, `lane 5`.
fn lane_list(lanes: u32) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut lane = 0;
    while lane < 32 {
        if lanes >> lane & 1 == 1 {
            let start = lane;
            while lane < 31 && lanes >> (lane + 1) & 1 == 1 {
                lane += 1;
            }
            runs.push(if start == lane { start.to_string() } else { format!("{start}–{lane}") });
        }
        lane += 1;
    }
    format!("{} {}", if lanes.count_ones() == 1 { "lane" } else { "lanes" }, runs.join(", "))
}

/// The sentence `src/checks.rs` gives a warp collective that lanes never join: the string
/// literal of its `Fault::WarpDivergence` arm, with the continuation lines joined. The
/// explanation is private to the checker, so the test reads it where the checker has it.
fn divergence_sentence() -> String {
    let source = include_str!("../src/checks.rs");
    let arm = source.find("Fault::WarpDivergence {").expect("checks.rs explains Fault::WarpDivergence");
    let open = arm + source[arm..].find('"').expect("its message") + 1;
    let close = open + source[open..].find("\",").expect("its message ends");
    let mut sentence = String::new();
    let mut rest = &source[open..close];
    while let Some(at) = rest.find("\\\n") {
        sentence += &rest[..at];
        rest = rest[at + 2..].trim_start();
    }
    sentence + rest
}

/// Exercise 13's check, given the mistake of shuffling only where `i < n`
/// (`mistakes::warp_sums_in_bounds_only`), explains the shuffle that the lanes past the end never
/// join; the guide's chapter "Exercises" shows that message (`<!-- output:
/// e13-shuffle-past-the-end -->`). The mistake is launched as the check launches it where it
/// first fails (n = 1000, blocks of 256), and the check's sentence is filled in with the
/// emulator's fault, as the check fills it in.
#[test]
fn the_guides_warp_collective_message_is_what_the_check_says() {
    let dev = Device::emulator();
    let module = dev.load_module(ModuleImage::Ptx(bankwise_exercises::PTX), Some(bankwise_exercises::ENTRIES)).unwrap();
    let kernel = module.kernel(mistakes::warp_sums_in_bounds_only).unwrap();
    let n = 1000u64;
    let data = dev.upload(&vec![1u32; n as usize]).unwrap();
    let mut out = dev.alloc_zeros::<u32>(n.div_ceil(32) as usize).unwrap();
    // Safety: `data` holds n elements and `out` ⌈n / 32⌉; blocks of 256 threads.
    let err = unsafe { kernel.launch(dev.stream(), LaunchConfig::for_elements(n, 256), (&mut out, &data, n)) };
    let Err(bankwise_runtime::Error::Emulated { fault, .. }) = err else {
        panic!("the mistake's launch is not a fault of the emulator: {err:?}")
    };
    let Fault::WarpDivergence { thread, site, collective, mask, missing, detail } = fault else {
        panic!("the mistake's fault is not a warp collective that lanes never join: {fault}")
    };
    let message = divergence_sentence()
        .replace("{collective}", collective)
        .replace("{site}", &site.to_string())
        .replace("{thread}", &thread.to_string())
        .replace("{mask:#010x}", &format!("{mask:#010x}"))
        .replacen("{}", &lane_list(mask), 1)
        .replacen("{}", &lane_list(missing), 1)
        .replace("{detail}", &detail);
    assert!(!message.contains('{'), "checks.rs's sentence has a placeholder this test does not fill: {message}");
    bankwise_guide::samples::check_output("exercises.md", "e13-shuffle-past-the-end", &format!("{message}\n"))
        .unwrap_or_else(|e| panic!("{e}"));
}
