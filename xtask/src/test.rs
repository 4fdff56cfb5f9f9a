//! `cargo xtask test`'s run of `cargo test --workspace`: its output passed through, less the
//! line per passing or skipped test (about 16,000, most of them GPU tests skipped on a machine
//! without one), then one line per test binary that skipped tests, with the reason the binary
//! gave, and the totals.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use anyhow::{Context, Result, bail};

/// Totals of `cargo test`'s per-binary "test result" lines. GPU tests that skip for want of
/// a GPU are reported ignored by their harness, and counted here as skipped.
#[derive(Default)]
pub(crate) struct Counts {
    passed: u64,
    failed: u64,
    skipped: u64,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tests: {} passed, {} failed, {} skipped", self.passed, self.failed, self.skipped)
    }
}

/// What one test binary skipped, and why (the first line it printed with "skipped: ").
struct Skipped {
    binary: String,
    count: u64,
    reason: Option<String>,
}

/// Runs `cargo test --workspace ARGS`, passing its output through but for the `... ok` and
/// `... ignored` lines, and totals the results.
pub(crate) fn run(root: &Path, args: &[&str]) -> Result<Counts> {
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args(["test", "--workspace"])
        .args(args)
        // The shipped-kernel tests (tests/shipped.rs) compare the kernels built from source
        // with prebuilt/: BANKWISE_PREBUILT=1 would skip the build they compare.
        .env_remove("BANKWISE_PREBUILT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start cargo test")?;
    // Both streams, line by line, into one channel: cargo names each test binary on stderr
    // ("Running tests/gpu.rs (…)"), and the binaries print their results on stdout.
    let (tx, rx) = mpsc::channel();
    let forward = |stream: Box<dyn Read + Send>, is_err: bool| {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if tx.send((is_err, line)).is_err() {
                    break;
                }
            }
        })
    };
    let out = forward(Box::new(child.stdout.take().context("cargo test's stdout")?), false);
    let err = forward(Box::new(child.stderr.take().context("cargo test's stderr")?), true);
    drop(tx);
    let mut counts = Counts::default();
    // One entry per test binary, in the order cargo runs them.
    let mut binaries = vec![Skipped { binary: "(before the first binary)".into(), count: 0, reason: None }];
    for (is_err, line) in rx {
        let trimmed = line.trim_start();
        let current = binaries.last_mut().expect("never empty");
        if is_err {
            let started =
                trimmed.strip_prefix("Running ").map(|rest| rest.split(" (").next().unwrap_or(rest).to_string());
            let started =
                started.or_else(|| trimmed.strip_prefix("Doc-tests ").map(|rest| format!("doc-tests of {rest}")));
            if let Some(binary) = started {
                binaries.push(Skipped { binary, count: 0, reason: None });
            } else if line.contains("skipped: ") {
                // The whole line up to the driver's search list, which adds nothing here.
                current.reason.get_or_insert_with(|| line.split(" (tried").next().unwrap_or(&line).to_string());
            }
            eprintln!("{line}");
            continue;
        }
        if trimmed.starts_with("test ") && (line.ends_with(" ... ok") || line.contains(" ... ignored")) {
            current.count += u64::from(line.contains(" ... ignored"));
            continue;
        }
        println!("{line}");
        let Some(result) = line.strip_prefix("test result: ") else { continue };
        for part in result.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(what), Some(n)) = (words.next(), words.next()) else { continue };
            let Ok(n) = n.parse::<u64>() else { continue };
            match what {
                "passed" => counts.passed += n,
                "failed" => counts.failed += n,
                "ignored" => counts.skipped += n,
                _ => {}
            }
        }
    }
    let _ = (out.join(), err.join());
    let status = child.wait()?;
    for s in binaries.iter().filter(|s| s.count > 0) {
        let why = s.reason.as_deref().unwrap_or("marked #[ignore] or `ignore`");
        println!("skipped {:>5} in {}: {why}", s.count, s.binary);
    }
    if !status.success() {
        println!("{counts}");
        bail!("cargo test failed ({status})");
    }
    Ok(counts)
}
