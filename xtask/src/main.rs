//! bankwise's developer commands, as ordinary Rust (rust-analyzer's `xtask` pattern).
//!
//! `cargo xtask kernels` rebuilds the kernels shipped in `host/bankwise/prebuilt/`, and
//! `cargo xtask package-check` checks the crates as a registry would serve them.
//!
//! `cargo xtask test` is the README's test command and `.ci/run`'s core: it installs what the
//! build needs (the pinned nightly with rust-src and clippy, ptxas/nvdisasm from PyPI into
//! `.tools/`) and runs the whole test suite. It deliberately does not depend on the `bankwise`
//! crate, whose build script needs that nightly: it has to run before the nightly exists.
//!
//! Every long step says what it is doing and how long it takes on a 2-core machine before it
//! starts, and how long it took after (`progress.rs` holds the figures).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

mod bundle;
mod guide;
mod kernels;
mod new_kernel;
mod package;
mod progress;
mod test;
mod tidy;

/// The nightly that builds the kernels (keep in step with `kernels/rust-toolchain.toml`).
pub(crate) const TOOLCHAIN: &str = "nightly-2026-05-20";
/// CUDA 13's ptxas matches the GPU machines' driver (CUDA 13.0); its nvdisasm starts at 13.2 on PyPI.
const CUDA13_PACKAGES: &[&str] = &["nvidia-cuda-nvcc==13.0.88", "nvidia-cuda-nvdisasm==13.2.51"];
/// CUDA 13 dropped Volta: CUDA 12's ptxas checks the sm_70 baseline.
const CUDA12_PACKAGES: &[&str] = &["nvidia-cuda-nvcc-cu12==12.9.86"];

#[derive(Parser)]
#[command(name = "cargo xtask", about = "bankwise's developer commands")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install the pinned nightly (rust-src, clippy) and CUDA's ptxas/nvdisasm into .tools/.
    Setup,
    /// Set up, then run every test of the workspace (GPU tests skip without a GPU).
    #[command(disable_help_flag = true)]
    Test {
        /// Passed to `cargo test`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// What CI runs: `test`, rustfmt and clippy (-D warnings) on the host and device crates,
    /// the exercises, the recipe (`new-kernel-check`), the guide, then `package-check`; says what each stage takes before it starts, and after it the time
    /// it took and the running total.
    Ci,
    /// Rebuild the kernels shipped in host/bankwise/prebuilt/ (PTX, entries manifest, sm_80
    /// and sm_90 SASS) from kernels/bankwise-builtin.
    Kernels {
        /// Compare with the shipped kernels instead of writing them; fail if they differ.
        #[arg(long)]
        check: bool,
    },
    /// Package every publishable crate, then build and run a consumer of the packages with
    /// only stable Rust installed, and build a kernel crate on the packaged device crates.
    PackageCheck,
    /// Build the PTX and print each kernel's registers, shared memory, stack and spills.
    #[command(disable_help_flag = true)]
    Ptx {
        /// Passed to `bankwise ptx`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run the benchmarks on this machine's GPU and print the table (`bankwise bench`).
    #[command(disable_help_flag = true)]
    Bench {
        /// Passed to `bankwise bench` (suites: copy, transpose, reduce, matmul; --quick;
        /// --shape RxC; --markdown FILE; --charts DIR).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Draw a shared-memory access's bank map from the model (`bankwise banks`; no GPU).
    #[command(disable_help_flag = true)]
    Banks {
        /// Passed to `bankwise banks` (--stride, --width, --pattern, --kernel, --svg FILE …).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run one kernel on the CPU emulator, no GPU needed: check it, print each shared-memory
    /// access site's requests and wavefronts, and any race (`bankwise emulate`).
    #[command(disable_help_flag = true)]
    Emulate {
        /// Passed to `bankwise emulate` (KERNEL, --list, --shape RxC, --len N, --dims MxNxK,
        /// --type T, --op OP, --json, --draw).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Check the exercises (exercises/kernels/src/) in order and stop at the first unsolved
    /// one, on the CPU emulator (and on a GPU where there is one).
    #[command(disable_help_flag = true)]
    Exercise {
        /// Passed to the exercises' checker (`next`, the default; `list`; `check N [--draw]`;
        /// `hint N [TIER]`; `verify`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Build the guide (the mdBook in guide/) into target/guide/, installing the pinned
    /// mdBook into .tools/ on first use.
    Guide,
    /// Measure the bank-conflict probes on this machine's GPU (`bankwise probe`).
    #[command(disable_help_flag = true)]
    Probe {
        /// Passed to `bankwise probe` (--iterations N, --markdown FILE, --once, --ncu-csv FILE).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Check the README's recipe as CI does: `new-kernel` into a temporary folder, its test and
    /// program on the emulator, rustfmt, and the race its test meets without the barrier.
    NewKernelCheck,
    /// Write a project of your own at PATH: a host crate and its kernel crate (PATH/kernels), a
    /// shared-memory kernel with a program that verifies it and a test on the CPU emulator,
    /// wired to this clone by path (or to a git repository).
    NewKernel {
        /// The project's folder; must not exist, or be empty.
        path: PathBuf,
        /// The host crate's name (the kernel crate's is NAME-kernels); default: PATH's last part.
        #[arg(long)]
        name: Option<String>,
        /// Depend on bankwise's crates from this git repository instead of this clone.
        #[arg(long, value_name = "URL")]
        git: Option<String>,
    },
    /// Build the GPU tests, the `bankwise` command and the criterion benches into DIR with a
    /// `run.sh`, for a GPU machine that has no Rust toolchain.
    Bundle {
        /// Output folder.
        dir: PathBuf,
    },
}

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().context("xtask lives in the workspace")?.to_path_buf();
    match Cli::parse().command {
        Cmd::Setup => {
            setup(&root)?;
            println!("xtask: ready: Rust {TOOLCHAIN} with rust-src and clippy; ptxas and nvdisasm in .tools/");
            Ok(())
        }
        Cmd::Test { args } => {
            setup(&root)?;
            let counts = progress::TEST.run(|| test::run(&root, &strs(&args)))?;
            println!("{counts}");
            Ok(())
        }
        Cmd::Ci => ci(&root),
        Cmd::Kernels { check } => {
            setup(&root)?;
            progress::KERNELS.run(|| kernels::kernels(&root, check))
        }
        Cmd::PackageCheck => {
            install_toolchain()?;
            progress::PACKAGE_CHECK.run(|| package::package_check(&root))
        }
        Cmd::Ptx { args } => {
            setup(&root)?;
            cli(&root, "ptx", &args)
        }
        Cmd::Bench { args } => {
            install_toolchain()?;
            cli(&root, "bench", &args)
        }
        Cmd::Banks { args } => cli(&root, "banks", &args),
        Cmd::Emulate { args } => {
            // The kernels build with the nightly; the emulator needs no CUDA tool.
            install_toolchain()?;
            cli(&root, "emulate", &args)
        }
        Cmd::Exercise { args } => {
            install_toolchain()?;
            // The checker's own output says what is wrong: pass its verdict on, nothing more.
            if !exercise(&root, &[], &args)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Cmd::Guide => guide::build(&root),
        Cmd::Probe { args } => cli(&root, "probe", &args),
        Cmd::Bundle { dir } => {
            setup(&root)?;
            progress::BUNDLE.run(|| bundle::run(&root, &dir))
        }
        Cmd::NewKernelCheck => progress::CI_NEW_KERNEL.run(|| new_kernel::check(&root)),
        Cmd::NewKernel { path, name, git } => {
            let source = match git {
                Some(url) => new_kernel::Source::Git(url),
                None => new_kernel::Source::Path(root.canonicalize().context("finding this clone's folder")?),
            };
            let name = new_kernel::create(&path, name.as_deref(), &source)?;
            // The kernel crate's build needs the pinned nightly: installed now, not at the
            // first build.
            install_toolchain()?;
            println!(
                "xtask: wrote {0}/ (host crate {name}) and {0}/kernels/ (kernel crate {name}-kernels); then:\n  \
                 cd {0} && cargo test        # builds the kernels with {TOOLCHAIN}, runs conv1d on the CPU emulator\n  \
                 BANKWISE_EMULATOR=1 cargo run -- --report   # the emulator's report of its launch\n\
                 (2-core machine: {1})",
                path.display(),
                progress::NEW_KERNEL.estimate()
            );
            Ok(())
        }
    }
}

/// What CI runs. Setup and the tests come first (a failure there ends the run); the later
/// checks each run even if one before failed, so that one run reports every problem. Each
/// stage says what it takes before it starts and, after, what it took and the running total;
/// the closing lines give each stage's time and the test counts.
fn ci(root: &Path) -> Result<()> {
    let started = std::time::Instant::now();
    setup(root)?;
    let counts = progress::TEST.run_as("ci", Some(started), || test::run(root, &[]))?;
    let device = root.join("kernels");
    type Check<'a> = (&'a progress::Step, Box<dyn Fn() -> Result<()> + 'a>);
    let checks: Vec<Check> = vec![
        (
            &progress::RUSTFMT,
            Box::new(|| {
                cargo(root, &["fmt", "--all", "--check"])?;
                cargo(root, &["fmt", "--manifest-path", "kernels/Cargo.toml", "--all", "--check"])
            }),
        ),
        (
            &progress::CLIPPY_HOST,
            Box::new(|| cargo(root, &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])),
        ),
        (
            &progress::CLIPPY_DEVICE,
            Box::new(|| {
                let toolchain = format!("+{TOOLCHAIN}");
                let args = [&toolchain, "clippy", "--workspace", "--release", "--", "-D", "warnings"];
                run(Command::new("cargo").current_dir(&device).args(args))
            }),
        ),
        (
            // What an editor shows in the examples' and exercises' kernel crates: `cargo check`
            // there (their `.cargo/config.toml` selects the GPU target) with clippy's lints, no
            // warning.
            &progress::CLIPPY_KERNEL_CRATES,
            Box::new(|| {
                let toolchain = format!("+{TOOLCHAIN}");
                let target_dir = root.join("target/kernel-crates");
                for example in ["vector_add", "custom_reduction", "histogram"] {
                    run(Command::new("cargo")
                        .current_dir(root.join("examples").join(example).join("kernels"))
                        .args([&toolchain, "clippy", "--target-dir"])
                        .arg(&target_dir)
                        .args(["--", "-D", "warnings"]))?;
                }
                // The exercises' kernel crate, as shipped and with its reference solutions.
                for features in [&[][..], &["--features", "solutions"]] {
                    run(Command::new("cargo")
                        .current_dir(root.join("exercises/kernels"))
                        .args([&toolchain, "clippy", "--target-dir"])
                        .arg(&target_dir)
                        .args(features)
                        .args(["--", "-D", "warnings"]))?;
                }
                Ok(())
            }),
        ),
        (
            // Every exercise fails as shipped and every reference solution passes.
            &progress::CI_EXERCISES,
            Box::new(|| {
                let shipped = exercise(root, &[], &["verify".into()])?;
                let solved = exercise(root, &["--features", "solutions"], &["verify".into()])?;
                if !(shipped && solved) {
                    bail!("an exercise passes as shipped, or a reference solution fails (above)");
                }
                Ok(())
            }),
        ),
        (&progress::CI_NEW_KERNEL, Box::new(|| new_kernel::check(root))),
        (&progress::CI_GUIDE, Box::new(|| guide::build(root))),
        (&progress::PACKAGE_CHECK, Box::new(|| package::package_check(root))),
    ];
    let tested = started.elapsed().as_secs_f64();
    let mut failed = Vec::new();
    let mut times = Vec::new();
    for (step, check) in &checks {
        let t = std::time::Instant::now();
        if let Err(e) = step.run_as("ci", Some(started), check) {
            eprintln!("ci: {} failed: {e:#}", step.doing);
            failed.push(step.doing);
        }
        times.push((step.doing, t.elapsed().as_secs_f64()));
    }
    println!("ci: {:<34} {tested:>7.1} s", "setup + test");
    for (name, secs) in &times {
        println!("ci: {name:<34} {secs:>7.1} s");
    }
    println!("ci: {:<34} {:>7.1} s", "total", started.elapsed().as_secs_f64());
    // Last, so that the closing line of CI's output counts the tests.
    println!("{counts}");
    if !failed.is_empty() {
        bail!("CI failed: {}", failed.join(", "));
    }
    Ok(())
}

/// `cargo run --release -p bankwise-cli -- <command> <args>`. The CLI prints its own
/// one-line error (no GPU, bad shape…), so a failure passes its exit code on without adding
/// the cargo command line to it.
fn cli(root: &Path, command: &str, args: &[String]) -> Result<()> {
    let build = ["--release", "-p", "bankwise-cli"];
    let status = cargo_run(root, &progress::CLI, &build, &[&[command][..], &strs(args)].concat())?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

/// `cargo run -p bankwise-exercises FEATURES -- ARGS`: whether it succeeded (its output says
/// what failed).
fn exercise(root: &Path, features: &[&str], args: &[String]) -> Result<bool> {
    let build = [&["-p", "bankwise-exercises"][..], features].concat();
    let status = cargo_run(root, &progress::CHECKER, &build, &strs(args))?;
    Ok(status.success())
}

/// `cargo run BUILD -- ARGS` in the workspace, its output passed through. The build runs first
/// as its own `cargo build BUILD`, announced as `step`, with cargo's progress shown (the first
/// one takes minutes); the run is then `--quiet`, so that a program's output is all it prints.
fn cargo_run(root: &Path, step: &progress::Step, build: &[&str], args: &[&str]) -> Result<std::process::ExitStatus> {
    step.run(|| cargo(root, &[&["build"][..], build].concat()))?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    Command::new(&cargo)
        .current_dir(root)
        .args(["run", "--quiet"])
        .args(build)
        .arg("--")
        .args(args)
        .status()
        .with_context(|| format!("cannot start {cargo}"))
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("cannot start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed ({status})");
    }
    Ok(())
}

pub(crate) fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).current_dir(root).args(args))
}

/// Everything the tests need: the kernels' toolchain and CUDA's offline tools.
pub(crate) fn setup(root: &Path) -> Result<()> {
    install_toolchain()?;
    let cuda13 = ("cuda13", "nvidia/cu13/bin", &["ptxas", "nvdisasm"][..], CUDA13_PACKAGES);
    let cuda12 = ("cuda12", "nvidia/cuda_nvcc/bin", &["ptxas"][..], CUDA12_PACKAGES);
    let missing: Vec<_> = [cuda13, cuda12]
        .into_iter()
        .filter(|(folder, bin, tools, _)| {
            !tools.iter().all(|t| root.join(".tools").join(folder).join(bin).join(t).is_file())
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    progress::CUDA_TOOLS.run(|| missing.iter().try_for_each(|&(folder, _, _, packages)| pip(root, folder, packages)))
}

/// The pinned nightly with rust-src (building the kernels) and clippy (linting them).
fn install_toolchain() -> Result<()> {
    let ready = Command::new("rustup")
        .args(["run", TOOLCHAIN, "rustc", "--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|sysroot| sysroot.join("lib/rustlib/src/rust/library/core").is_dir());
    if !ready {
        eprintln!("xtask: Rust {TOOLCHAIN} with rust-src builds the GPU kernels");
        progress::NIGHTLY.run(|| {
            run(Command::new("rustup").args(["toolchain", "install", TOOLCHAIN, "--profile", "minimal"]).args([
                "--component",
                "rust-src",
                "--component",
                "clippy",
            ]))
        })?;
    }
    let clippy = Command::new("rustup").args(["run", TOOLCHAIN, "cargo-clippy", "--version"]).output();
    if !clippy.is_ok_and(|o| o.status.success()) {
        run(Command::new("rustup").args(["component", "add", "clippy", "--toolchain", TOOLCHAIN]))?;
    }
    Ok(())
}

/// Installs PyPI `packages` into `.tools/<folder>`.
fn pip(root: &Path, folder: &str, packages: &[&str]) -> Result<()> {
    let target = root.join(".tools").join(folder);
    eprintln!(
        "xtask: {} into {}: CUDA's ptxas and nvdisasm, for the tests that read each kernel's registers and SASS \
         without a GPU",
        packages.join(" "),
        target.display()
    );
    let python = if Command::new("python3").arg("--version").output().is_ok() { "python3" } else { "python" };
    run(Command::new(python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--upgrade", "--target"])
        .arg(&target)
        .args(packages))
    .context("installing CUDA's ptxas from PyPI needs python3 with pip")
}
