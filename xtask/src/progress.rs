//! What each long xtask step is doing and how long it takes: said before the step starts, with
//! the time it takes on a 2-core machine without a GPU the first time and after, and followed by
//! the time it really took. The figures live in one table, the constants below (`STEPS` lists
//! them), which the README and the guide quote word for word ([`Step::estimate`]); a tidy test
//! keeps the quotations in step.
//! How they were measured, and under what load, is in `docs/decisions.md` (2026-11-26, "first-hour
//! feedback").

use std::time::{Duration, Instant};

use anyhow::Result;

/// A long step of an xtask command and its durations on a 2-core machine.
#[derive(Debug)]
pub(crate) struct Step {
    /// What the step is doing, as announced ("building the guide").
    pub(crate) doing: &'static str,
    /// Seconds it takes the first time: a fresh clone, an empty `target/`.
    pub(crate) first_s: u32,
    /// Seconds it takes after: the typical repeat (nothing changed, or for the exercises one
    /// exercise edited); 0 for an installation, which is skipped once done.
    pub(crate) after_s: u32,
    /// Where the figures come from: measured (see `docs/decisions.md`) or estimated, and why.
    pub(crate) source: Source,
}

/// Where a step's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Timed on the 2-core machine (`docs/decisions.md` gives the load).
    Measured,
    /// Timed by `cargo xtask ci` on the 2-core machine (the repeat); the first time estimated.
    CiRun,
    /// Estimated: bound by the network (a download), or too long to time beside other work.
    Estimated,
}

/// Building xtask itself, which the first `cargo xtask` command does before xtask can say
/// anything (quoted by the docs, never announced: only the tidy tests read it).
#[cfg(test)]
pub(crate) const XTASK: Step =
    Step { doing: "building xtask itself", first_s: 10, after_s: 0, source: Source::Measured };
/// `rustup toolchain install` of the kernels' nightly with rust-src and clippy (about 120 MB).
pub(crate) const NIGHTLY: Step = Step {
    doing: "installing the kernels' nightly Rust through rustup, about 120 MB",
    first_s: 90,
    after_s: 0,
    source: Source::Estimated,
};
/// CUDA's ptxas and nvdisasm from PyPI into `.tools/`.
pub(crate) const CUDA_TOOLS: Step = Step {
    doing: "installing CUDA's ptxas and nvdisasm from PyPI into .tools/, about 200 MB",
    first_s: 150,
    after_s: 0,
    source: Source::Estimated,
};
/// `cargo install` of the pinned mdBook into `.tools/mdbook/`.
pub(crate) const MDBOOK: Step =
    Step { doing: "building mdBook into .tools/mdbook/", first_s: 70, after_s: 0, source: Source::Measured };
/// `mdbook build` of the guide.
pub(crate) const GUIDE: Step =
    Step { doing: "building the guide into target/guide/", first_s: 1, after_s: 1, source: Source::Measured };
/// The exercises' checker and, through its build script, the exercises' kernel crate.
pub(crate) const CHECKER: Step = Step {
    doing: "building the exercises' checker and their kernels",
    first_s: 35,
    after_s: 2,
    source: Source::Measured,
};
/// The `bankwise` command in release mode, with the library's kernels (banks, emulate, ptx,
/// bench, probe).
pub(crate) const CLI: Step = Step {
    doing: "building the bankwise command in release mode, with the library's kernels",
    first_s: 105,
    after_s: 1,
    source: Source::Measured,
};
/// The first example on the emulator, `BANKWISE_EMULATOR=1 cargo run -p vector-add` (quoted by
/// the docs; not an xtask step: only the tidy tests read it).
#[cfg(test)]
pub(crate) const VECTOR_ADD: Step =
    Step { doing: "the first example on the emulator", first_s: 30, after_s: 2, source: Source::Measured };
/// A new project's first `cargo test` after `cargo xtask new-kernel` (its kernel crate built for
/// the GPU and `core` with it, its dependencies compiled, its test on the emulator); after, a
/// kernel edited and tested again. Quoted by the README and said by `new-kernel`.
pub(crate) const NEW_KERNEL: Step =
    Step { doing: "the new project's first cargo test", first_s: 25, after_s: 1, source: Source::Measured };
/// `cargo xtask kernels`: the shipped kernels rebuilt and assembled.
pub(crate) const KERNELS: Step = Step {
    doing: "building the shipped kernels and assembling their SASS",
    first_s: 65,
    after_s: 35,
    source: Source::Measured,
};
/// `cargo test --workspace`, most of it the emulated test suite.
pub(crate) const TEST: Step = Step {
    doing: "building and running every test of the workspace",
    first_s: 705,
    after_s: 400,
    source: Source::Measured,
};
/// CI's rustfmt check of both workspaces.
pub(crate) const RUSTFMT: Step = Step { doing: "rustfmt", first_s: 5, after_s: 1, source: Source::CiRun };
/// CI's clippy over the host workspace.
pub(crate) const CLIPPY_HOST: Step = Step { doing: "clippy (host)", first_s: 240, after_s: 75, source: Source::CiRun };
/// CI's clippy over the device workspace.
pub(crate) const CLIPPY_DEVICE: Step =
    Step { doing: "clippy (device)", first_s: 60, after_s: 10, source: Source::CiRun };
/// CI's clippy over the examples' and the exercises' kernel crates.
pub(crate) const CLIPPY_KERNEL_CRATES: Step =
    Step { doing: "clippy (kernel crates)", first_s: 60, after_s: 10, source: Source::CiRun };
/// CI's check that every exercise fails as shipped and every reference solution passes.
pub(crate) const CI_EXERCISES: Step = Step { doing: "exercises", first_s: 90, after_s: 35, source: Source::CiRun };
/// CI's run of the README's recipe: `new-kernel`, its test and program on the emulator, and the
/// race its test meets without the barrier (`new_kernel::check`).
pub(crate) const CI_NEW_KERNEL: Step =
    Step { doing: "new-kernel recipe", first_s: 60, after_s: 5, source: Source::CiRun };
/// CI's build of the guide (mdBook installed on first use): [`MDBOOK`] then [`GUIDE`].
pub(crate) const CI_GUIDE: Step = Step { doing: "guide", first_s: 70, after_s: 1, source: Source::Measured };
/// `cargo xtask package-check`: the crates packaged, a stable-only consumer built from them.
pub(crate) const PACKAGE_CHECK: Step =
    Step { doing: "package-check", first_s: 300, after_s: 30, source: Source::CiRun };
/// `cargo xtask bundle`: the GPU tests, the examples, the command and the benches, in release.
pub(crate) const BUNDLE: Step = Step {
    doing: "building the GPU tests, the examples, the bankwise command and the benches in release mode",
    first_s: 600,
    after_s: 30,
    source: Source::Estimated,
};

/// Every step, for the docs' quotations and the tests.
#[cfg(test)]
pub(crate) const STEPS: &[&Step] = &[
    &XTASK,
    &NIGHTLY,
    &CUDA_TOOLS,
    &MDBOOK,
    &GUIDE,
    &CHECKER,
    &CLI,
    &VECTOR_ADD,
    &NEW_KERNEL,
    &KERNELS,
    &TEST,
    &RUSTFMT,
    &CLIPPY_HOST,
    &CLIPPY_DEVICE,
    &CLIPPY_KERNEL_CRATES,
    &CI_EXERCISES,
    &CI_NEW_KERNEL,
    &CI_GUIDE,
    &PACKAGE_CHECK,
    &BUNDLE,
];

/// A duration as the docs say it: "a few seconds" under 10, seconds to the nearest 5 under a
/// minute and a half, else whole minutes.
pub(crate) fn about(secs: u32) -> String {
    match secs {
        0..10 => "a few seconds".to_string(),
        10..90 => format!("{} seconds", (secs + 2) / 5 * 5),
        _ => format!("{} minutes", (secs + 30) / 60),
    }
}

/// A measured duration as xtask reports it: "4.2 s", "3 min 41 s".
pub(crate) fn took(elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let whole = secs.round() as u64;
        format!("{} min {} s", whole / 60, whole % 60)
    }
}

impl Step {
    /// What the step takes, as the announcement and the docs say it: "about 3 minutes the
    /// first time, a few seconds after", or for an installation "about 2 minutes, once";
    /// "roughly" instead of "about" where the figure is an estimate; "a few seconds" for a step
    /// that never takes ten seconds.
    pub(crate) fn estimate(&self) -> String {
        let first = about(self.first_s);
        // The first time is an estimate for CI's stages too (their repeat is timed).
        let hedge = if self.source == Source::Measured { "about" } else { "roughly" };
        let first = if self.first_s < 10 { first } else { format!("{hedge} {first}") };
        if self.first_s < 10 {
            first
        } else if self.after_s == 0 {
            format!("{first}, once")
        } else {
            format!("{first} the first time, {} after", about(self.after_s))
        }
    }

    /// The line said before the step starts.
    pub(crate) fn announcement(&self, prefix: &str) -> String {
        format!("{prefix}: {} (2-core machine: {})", self.doing, self.estimate())
    }

    /// [`Step::run_as`] for xtask's own steps: "xtask: …", no running total.
    pub(crate) fn run<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.run_as("xtask", None, f)
    }

    /// Says what the step is doing and how long it takes, runs `f`, then says how long it
    /// really took (also when it failed: the error follows), and with `since` the running
    /// total of the command that started then.
    pub(crate) fn run_as<T>(&self, prefix: &str, since: Option<Instant>, f: impl FnOnce() -> Result<T>) -> Result<T> {
        eprintln!("{}", self.announcement(prefix));
        let started = Instant::now();
        let result = f();
        let verdict = if result.is_ok() { "done" } else { "failed" };
        let total = since.map(|s| format!("; {} so far", took(s.elapsed()))).unwrap_or_default();
        eprintln!("{prefix}: {}: {verdict} in {}{total}", self.doing, took(started.elapsed()));
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_the_docs_say_them() {
        assert_eq!(about(3), "a few seconds");
        assert_eq!(about(22), "20 seconds");
        assert_eq!(about(23), "25 seconds");
        assert_eq!(about(89), "90 seconds");
        assert_eq!(about(90), "2 minutes");
        assert_eq!(about(253), "4 minutes");
        assert_eq!(took(Duration::from_millis(4249)), "4.2 s");
        assert_eq!(took(Duration::from_secs(253)), "4 min 13 s");
        assert_eq!(
            CHECKER.announcement("ci"),
            format!("ci: {} (2-core machine: {})", CHECKER.doing, CHECKER.estimate())
        );
        assert_eq!(
            Step { doing: "x", first_s: 130, after_s: 0, source: Source::Measured }.estimate(),
            "about 2 minutes, once"
        );
        assert_eq!(
            Step { doing: "x", first_s: 130, after_s: 0, source: Source::Estimated }.estimate(),
            "roughly 2 minutes, once"
        );
        assert_eq!(
            Step { doing: "x", first_s: 200, after_s: 12, source: Source::Measured }.estimate(),
            "about 3 minutes the first time, 10 seconds after"
        );
        assert_eq!(Step { doing: "x", first_s: 6, after_s: 1, source: Source::Measured }.estimate(), "a few seconds");
        assert_eq!(
            Step { doing: "x", first_s: 1200, after_s: 300, source: Source::CiRun }.estimate(),
            "roughly 20 minutes the first time, 5 minutes after"
        );
    }

    #[test]
    fn every_step_is_in_the_table_once_and_takes_longer_the_first_time() {
        for (i, step) in STEPS.iter().enumerate() {
            assert!(step.first_s > 0 && step.first_s >= step.after_s, "{step:?}");
            assert!(!STEPS[..i].iter().any(|s| s.doing == step.doing), "{} is in STEPS twice", step.doing);
        }
    }
}
