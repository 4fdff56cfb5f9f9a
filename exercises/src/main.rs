//! `cargo xtask exercise`: checks the exercises in order and stops at the first unsolved one,
//! saying what is wrong, which file to edit and which guide chapter explains it; `hint N`
//! gives an exercise's hints one at a time.

use std::process::ExitCode;

use bankwise_exercises::hints::TIERS;
use bankwise_exercises::{EXERCISES, Exercise, SOLUTIONS, find};
use bankwise_runtime::Device;
use bankwise_runtime::bankwise_emu::Report;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "cargo xtask exercise",
    about = "bankwise's exercises: kernels to complete or fix, checked on the CPU emulator (and on a GPU where there is one)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check the exercises in order and stop at the first unsolved one (the default).
    Next,
    /// Check every exercise and list each with its status.
    List,
    /// Check one exercise, by name (`e07_row_stride`) or number (`7`).
    Check {
        /// The exercise.
        name: String,
        /// Also draw what the emulator saw in the check's launches, on the emulator only:
        /// `--draw` in short (each site's cost in one line, the costliest shared request's bank
        /// map, the races), `--draw=full` every launch's every site with its bank map or sectors.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "compact")]
        draw: Option<Draw>,
    },
    /// Print a hint for one exercise: the first of three (where to look) unless TIER is given
    /// (2: the mechanism, 3: nearly the answer).
    Hint {
        /// The exercise, by name or number.
        name: String,
        /// Which hint, 1 to 3.
        #[arg(default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
        tier: u8,
    },
    /// For CI: every exercise must fail as shipped, and every reference solution pass (run
    /// with `--features solutions` for the latter).
    Verify,
}

/// How much `check --draw` draws.
#[derive(Clone, Copy, ValueEnum)]
enum Draw {
    /// The legend once, each site in a line, the costliest shared request's bank map.
    Compact,
    /// Every launch's every site with its bank map or sectors.
    Full,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A kernel's panic (a `todo!()`) is reported by the emulator as the launch's error, which
    // the check prints; the default hook would print it again, with a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    // A GPU where there is one; the emulator checks every exercise in any case.
    let gpu = Device::new(0).ok();
    match cli.command.unwrap_or(Cmd::Next) {
        Cmd::Next => next(gpu.as_ref()),
        Cmd::List => list(gpu.as_ref()),
        Cmd::Check { name, draw } => match find(&name) {
            Some(e) => {
                // On the emulator only, so that the reports drawn are the emulator's.
                let code = report(e, if draw.is_some() { None } else { gpu.as_ref() });
                let color = std::io::IsTerminal::is_terminal(&std::io::stdout());
                let reports = Exercise::last_reports();
                match draw {
                    None => {}
                    Some(_) if reports.is_empty() => {
                        println!("\nNothing to draw: the check stopped before it read the emulator's reports.")
                    }
                    Some(Draw::Compact) => print!("\n{}", Report::draw_compact(&reports, color)),
                    Some(Draw::Full) => {
                        for (i, r) in reports.iter().enumerate() {
                            println!("\n--- launch {} ---\n{}", i + 1, r.draw(color));
                        }
                    }
                }
                code
            }
            None => unknown(&name),
        },
        Cmd::Hint { name, tier } => match find(&name) {
            Some(e) => hint(e, usize::from(tier)),
            None => unknown(&name),
        },
        Cmd::Verify => verify(gpu.as_ref()),
    }
}

fn unknown(name: &str) -> ExitCode {
    eprintln!("no exercise `{name}`; `cargo xtask exercise list` lists them");
    ExitCode::FAILURE
}

/// Prints hint `tier` (from 1) of `e`, and how to ask for the next.
fn hint(e: &Exercise, tier: usize) -> ExitCode {
    let hints = match e.hints() {
        Ok(hints) => hints,
        Err(err) => {
            eprintln!("{err:#}");
            return ExitCode::FAILURE;
        }
    };
    let n = e.number();
    println!("Hint {tier} of {TIERS} for {} ({}):\n", e.name, e.teaches);
    println!("{}\n", hints[tier - 1]);
    if tier < TIERS {
        println!("Still stuck? `cargo xtask exercise hint {n} {}` says more.", tier + 1);
    } else {
        println!(
            "That was the last hint. The reference answer, for after you have tried: \
             exercises/kernels/solutions/{}.rs",
            e.name
        );
    }
    ExitCode::SUCCESS
}

fn where_run(gpu: Option<&Device>) -> &'static str {
    if gpu.is_some() { "on the emulator and the GPU" } else { "on the emulator (no GPU here)" }
}

/// Checks `e` and prints the verdict; a failure with what to do next.
fn report(e: &Exercise, gpu: Option<&Device>) -> ExitCode {
    verdict(e, e.check(gpu), gpu)
}

/// Prints the verdict `result` of checking `e`; a failure with what to do next.
fn verdict(e: &Exercise, result: anyhow::Result<()>, gpu: Option<&Device>) -> ExitCode {
    match result {
        Ok(()) => {
            println!("✓ {} solved, {}", e.name, where_run(gpu));
            ExitCode::SUCCESS
        }
        Err(err) => {
            println!("✗ {}: {}\n", e.name, e.teaches);
            println!("  {err:#}\n");
            println!("  Edit {}; the guide's chapter \"{}\" explains it.", e.file(), e.chapter);
            println!("  Then run `cargo xtask exercise` again.");
            println!("  Stuck? `cargo xtask exercise hint {}`", e.number());
            ExitCode::FAILURE
        }
    }
}

fn next(gpu: Option<&Device>) -> ExitCode {
    for (i, e) in EXERCISES.iter().enumerate() {
        let result = e.check(gpu);
        if result.is_err() {
            println!("{i} of {} exercises solved.\n", EXERCISES.len());
            return verdict(e, result, gpu);
        }
        println!("✓ {}", e.name);
    }
    println!("\nAll {} exercises solved, {}.", EXERCISES.len(), where_run(gpu));
    ExitCode::SUCCESS
}

fn list(gpu: Option<&Device>) -> ExitCode {
    let mut solved = 0;
    for e in EXERCISES {
        let ok = e.check(gpu).is_ok();
        solved += usize::from(ok);
        println!("{} {:<24} {:<36} {}", if ok { "✓" } else { " " }, e.name, e.chapter, e.teaches);
    }
    println!("\n{solved} of {} solved, {}.", EXERCISES.len(), where_run(gpu));
    ExitCode::SUCCESS
}

/// As shipped every exercise fails; built with the `solutions` feature every one passes, on
/// the emulator and, where there is one, on the GPU.
fn verify(gpu: Option<&Device>) -> ExitCode {
    let mut wrong = 0;
    for e in EXERCISES {
        let result = e.check(gpu);
        let as_expected = result.is_ok() == SOLUTIONS;
        wrong += usize::from(!as_expected);
        let verdict = match &result {
            Ok(()) => "passes".to_string(),
            Err(err) => format!("fails: {}", format!("{err:#}").lines().next().unwrap_or_default()),
        };
        println!("{} {:<24} {verdict}", if as_expected { "ok  " } else { "BAD " }, e.name);
    }
    let want = if SOLUTIONS { "every reference solution passes" } else { "every exercise fails as shipped" };
    if wrong > 0 {
        println!("{wrong} of {} not as expected ({want})", EXERCISES.len());
        return ExitCode::FAILURE;
    }
    println!("as expected: {want} ({} exercises, {})", EXERCISES.len(), where_run(gpu));
    ExitCode::SUCCESS
}
