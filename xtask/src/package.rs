//! `cargo xtask package-check`: the crates as a registry would serve them.
//!
//! 1. `cargo package` of every publishable crate of the host workspace (verified: each is built
//!    from its packaged sources, the way `cargo publish` does, except those in [`UNVERIFIED`])
//!    and of the device workspace (`--no-verify --exclude-lockfile`, see [`DEVICE_VERIFY`]).
//! 2. The `.crate` files are unpacked, and `bankwise`'s is checked to carry the prebuilt
//!    kernels and the README.
//! 3. A consumer crate outside both workspaces depends on `bankwise = "0.1.0"` with every
//!    bankwise crate (of both workspaces) patched to its unpacked copy, and is built and run with
//!    a `RUSTUP_HOME` that holds only the stable toolchain, so that any use of the nightly fails.
//!    Its `main` calls `Gpu::new()` and prints the GPU or the one-line error, then runs a
//!    builtin kernel on `Gpu::emulator()` and checks its result.
//! 4. A kernel crate depending on the unpacked device crates is built for
//!    `nvptx64-nvidia-cuda` with the pinned nightly.
//!
//! Everything lives under `target/package-check/` and is kept between runs (incremental
//! builds); the cargo registry cache (`CARGO_HOME`) is shared, so nothing is downloaded twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::TOOLCHAIN;

/// Crates that must be among the host workspace's publishable ones. Every publishable member
/// is packaged and patched into the consumer (new ones, such as `bankwise-runtime` or
/// `bankwise-macros`, join by themselves); add a crate here to make its absence an error.
const HOST_REQUIRED: &[&str] = &[
    "bankwise",
    "bankwise-builder",
    "bankwise-banks",
    "bankwise-emu",
    "bankwise-layout",
    "bankwise-macros",
    "bankwise-runtime",
];
/// Likewise for the device workspace (`kernels`).
const DEVICE_REQUIRED: &[&str] = &["bankwise-builtin", "bankwise-builtin-sm80", "bankwise-device", "bankwise-kernels"];

/// Why the device crates are packaged with `--no-verify --exclude-lockfile`: `bankwise-kernels`
/// depends on `bankwise-layout`, a member of the host workspace, and cargo resolves such a
/// dependency on crates.io both to verify the package and to write its lock file, ignoring
/// `[patch]` (where it is not until it is published: publish `bankwise-layout` first). Step 4
/// builds them instead, against the packaged `bankwise-layout`, for the GPU target they are
/// written for.
const DEVICE_VERIFY: &str = "cargo package (device crates; built for nvptx64 in step 4)";

/// Host crates packaged with `--no-verify --exclude-lockfile`: `bankwise` depends on
/// `bankwise-builtin` (the kernels' host forms, for the emulator), a member of the device
/// workspace, which cargo looks for on crates.io and cannot find until it is published (the
/// publishing order is: layout, macros, banks, emu; device, kernels, builtin, builtin-sm80;
/// builder, runtime; bankwise). Step 3 builds it instead, from its package, against the other packages.
const UNVERIFIED: &[&str] = &["bankwise"];

/// crates.io's limit on a `.crate` file.
const CRATE_LIMIT: u64 = 10 * 1024 * 1024;

/// The environment of a cargo or rustup run with nothing inherited from the cargo running
/// xtask (its `RUSTUP_TOOLCHAIN`, `CARGO_*` and `RUSTC*` variables would pick the toolchain and
/// the target directory), except `CARGO_HOME` and `RUSTUP_HOME`; and rustup's automatic
/// installation off, so that a toolchain that is not installed is an error, not a download.
fn clean(mut cmd: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        let keep = key == "CARGO_HOME" || key == "RUSTUP_HOME";
        if !keep && (key.starts_with("CARGO") || key.starts_with("RUST")) {
            cmd.env_remove(&key);
        }
    }
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
    cmd
}

fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().with_context(|| format!("cannot start {cmd:?}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        bail!("{cmd:?} failed ({}):\n{stderr}{}", out.status, String::from_utf8_lossy(&out.stdout));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Publishable members of the workspace at `dir` (name → version), from `cargo metadata`.
fn publishable(dir: &Path, toolchain: Option<&str>) -> Result<BTreeMap<String, String>> {
    let mut cmd = clean(Command::new("cargo"));
    cmd.current_dir(dir);
    if let Some(t) = toolchain {
        cmd.arg(format!("+{t}"));
    }
    let text = run(cmd.args(["metadata", "--no-deps", "--format-version", "1"]))?;
    let meta: serde_json::Value = serde_json::from_str(&text)?;
    let mut found = BTreeMap::new();
    for pkg in meta["packages"].as_array().context("cargo metadata lists packages")? {
        // `publish = false` reads as an empty list of registries.
        if pkg["publish"].as_array().is_some_and(|r| r.is_empty()) {
            continue;
        }
        let name = pkg["name"].as_str().context("a package name")?;
        found.insert(name.to_string(), pkg["version"].as_str().context("a version")?.to_string());
    }
    Ok(found)
}

fn require(found: &BTreeMap<String, String>, required: &[&str], workspace: &str) -> Result<()> {
    for name in required {
        if !found.contains_key(*name) {
            bail!(
                "{name} is not a publishable member of {workspace} (found: {:?}); publish it or update xtask's list",
                found.keys()
            );
        }
    }
    Ok(())
}

/// Unpacks `<target>/package/<name>-<version>.crate` into `into` and returns the folder.
fn unpack(target: &Path, name: &str, version: &str, into: &Path) -> Result<PathBuf> {
    let file = target.join("package").join(format!("{name}-{version}.crate"));
    let size = std::fs::metadata(&file).with_context(|| format!("{} was not written", file.display()))?.len();
    if size > CRATE_LIMIT {
        bail!("{} is {size} bytes, over crates.io's limit of {CRATE_LIMIT}", file.display());
    }
    let dir = into.join(format!("{name}-{version}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    // `-m`: the files' modification times become now. `cargo package` stamps every file with
    // one fixed date, and the consumer's and kernel crate's builds (kept between runs) judge
    // path dependencies by modification time: without it they reuse builds of the last run's
    // sources (a new module of `bankwise-builtin` was "not found").
    run(Command::new("tar").arg("-xzmf").arg(&file).arg("-C").arg(into))?;
    println!("  {name} {version}: {:.1} KiB packed", size as f64 / 1024.0);
    Ok(dir)
}

/// Removes cargo's unpackings of `crates` from its temporary registries.
///
/// Verifying a package unpacks the packages it depends on from `target/package/tmp-registry`
/// into `$CARGO_HOME/registry/src/-<hash of that path>/<name>-<version>`, and cargo skips the
/// unpacking when that folder exists. The version stays 0.1.0 while the sources change, so
/// without this a `CARGO_HOME` kept from an earlier run verifies against that run's sources
/// (CI failed so: `bankwise-emu` was built against a stale `bankwise-banks`). crates.io's own
/// folder (`index.crates.io-…`) is left alone; temporary registries' names start with `-`.
fn forget_unpacked(crates: &BTreeMap<String, String>) -> Result<()> {
    let home = match std::env::var_os("CARGO_HOME") {
        Some(h) => PathBuf::from(h),
        None => PathBuf::from(std::env::var_os("HOME").context("neither CARGO_HOME nor HOME is set")?).join(".cargo"),
    };
    let Ok(registries) = std::fs::read_dir(home.join("registry/src")) else { return Ok(()) };
    for registry in registries {
        let registry = registry?.path();
        if !registry.file_name().is_some_and(|n| n.to_string_lossy().starts_with('-')) {
            continue;
        }
        for (name, version) in crates {
            let dir = registry.join(format!("{name}-{version}"));
            if dir.exists() {
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
            }
        }
    }
    Ok(())
}

fn patch_table(crates: &BTreeMap<String, PathBuf>) -> String {
    let mut text = String::from("[patch.crates-io]\n");
    for (name, dir) in crates {
        text += &format!("{name} = {{ path = {:?} }}\n", dir.display().to_string());
    }
    text
}

/// The step's timer: prints the step and, when dropped, how long it took.
struct Step(&'static str, Instant);

impl Step {
    fn new(name: &'static str) -> Step {
        println!("xtask package-check: {name}");
        Step(name, Instant::now())
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        println!("xtask package-check: {} took {:.1} s", self.0, self.1.elapsed().as_secs_f64());
    }
}

pub fn package_check(root: &Path) -> Result<()> {
    let work = root.join("target/package-check");
    let unpacked = work.join("crates");
    std::fs::create_dir_all(&unpacked)?;
    let target = root.join("target");
    let device_dir = root.join("kernels");
    let device_target = work.join("device-package");

    let host = publishable(root, None)?;
    require(&host, HOST_REQUIRED, "the host workspace")?;
    let device = publishable(&device_dir, Some(TOOLCHAIN))?;
    require(&device, DEVICE_REQUIRED, "kernels")?;

    let mut host_dirs = BTreeMap::new();
    let mut device_dirs = BTreeMap::new();
    {
        let _step = Step::new("cargo package (host crates, verified but for bankwise: step 3 builds it)");
        forget_unpacked(&host)?;
        let mut verified = clean(Command::new("cargo"));
        verified.current_dir(root).args(["package", "--allow-dirty"]);
        let mut unverified = clean(Command::new("cargo"));
        unverified.current_dir(root).args(["package", "--allow-dirty", "--no-verify", "--exclude-lockfile"]);
        for name in host.keys() {
            let cmd = if UNVERIFIED.contains(&name.as_str()) { &mut unverified } else { &mut verified };
            cmd.args(["-p", name]);
        }
        run(&mut verified)?;
        run(&mut unverified)?;
        for (name, version) in &host {
            host_dirs.insert(name.clone(), unpack(&target, name, version, &unpacked)?);
        }
    }
    {
        let _step = Step::new(DEVICE_VERIFY);
        let mut cmd = clean(Command::new("cargo"));
        cmd.current_dir(&device_dir)
            .arg(format!("+{TOOLCHAIN}"))
            .args(["package", "--allow-dirty", "--no-verify", "--exclude-lockfile", "--target-dir"])
            .arg(&device_target);
        for name in device.keys() {
            cmd.args(["-p", name]);
        }
        run(&mut cmd)?;
        for (name, version) in &device {
            device_dirs.insert(name.clone(), unpack(&device_target, name, version, &unpacked)?);
        }
    }

    // The published bankwise must carry its kernels and README.
    let bankwise = &host_dirs["bankwise"];
    for file in [
        "prebuilt/bankwise-builtin.ptx",
        "prebuilt/bankwise-builtin.entries",
        "prebuilt/bankwise-builtin.sm_80.cubin",
        "prebuilt/bankwise-builtin.sm_90.cubin",
        "prebuilt/bankwise-builtin-sm80.ptx",
        "prebuilt/bankwise-builtin-sm80.entries",
        "prebuilt/bankwise-builtin-sm80.sm_80.cubin",
        "prebuilt/bankwise-builtin-sm80.sm_90.cubin",
        "README.md",
        "recipe.rs",
        "build.rs",
    ] {
        if !bankwise.join(file).is_file() {
            bail!("the bankwise package lacks {file}: check `include` in host/bankwise/Cargo.toml");
        }
    }
    if bankwise.join("../../kernels").exists() || bankwise.join("tests").exists() {
        bail!("the bankwise package unexpectedly carries the kernel sources or the tests");
    }

    {
        let _step = Step::new("consumer crate on stable Rust only");
        let mut all = host_dirs.clone();
        all.extend(device_dirs.iter().map(|(name, dir)| (name.clone(), dir.clone())));
        consumer(root, &work, &all)?;
    }
    {
        let _step = Step::new("kernel crate on the packaged device crates (nightly, nvptx64)");
        let mut all = device_dirs.clone();
        // The device crates' host-side dependencies: the index arithmetic, `#[kernel]`, and the
        // emulator that their host forms call (resolved, though never built for nvptx64).
        for name in ["bankwise-layout", "bankwise-macros", "bankwise-emu", "bankwise-banks"] {
            all.insert(name.into(), host_dirs[name].clone());
        }
        device_consumer(&work, &device_dir, &all)?;
    }
    println!("xtask package-check: ok");
    Ok(())
}

/// A `RUSTUP_HOME` holding only the stable toolchain (linked, not copied), made afresh.
fn stable_only_rustup(work: &Path) -> Result<PathBuf> {
    let sysroot = run(clean(Command::new("rustup")).args(["run", "stable", "rustc", "--print", "sysroot"]))?;
    let home = work.join("rustup-stable-only");
    if home.exists() {
        std::fs::remove_dir_all(&home)?;
    }
    std::fs::create_dir_all(&home)?;
    run(clean(Command::new("rustup")).env("RUSTUP_HOME", &home).args([
        "toolchain",
        "link",
        "stable-only",
        sysroot.trim(),
    ]))?;
    Ok(home)
}

fn consumer(root: &Path, work: &Path, crates: &BTreeMap<String, PathBuf>) -> Result<()> {
    let dir = work.join("consumer");
    std::fs::create_dir_all(dir.join("src"))?;
    let version = crates.get("bankwise").and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned());
    let version = version.as_deref().and_then(|n| n.strip_prefix("bankwise-")).context("bankwise's folder")?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bankwise-consumer\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nbankwise = \"{version}\"\n\n{}\n# Its own workspace, whatever folder it is in.\n[workspace]\n",
            patch_table(crates)
        ),
    )?;
    std::fs::write(dir.join("src/main.rs"), CONSUMER_MAIN)?;
    // The host workspace's lock file: the consumer gets the versions CI tested, offline.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))?;

    let rustup_home = stable_only_rustup(work)?;
    let cargo = || {
        let mut cmd = clean(Command::new("cargo"));
        cmd.current_dir(&dir)
            .env("RUSTUP_HOME", &rustup_home)
            .env("RUSTUP_TOOLCHAIN", "stable-only")
            .env("CARGO_TARGET_DIR", work.join("consumer-target"));
        cmd
    };
    // The nightly must be out of reach, or the check proves nothing.
    let nightly = cargo().arg(format!("+{TOOLCHAIN}")).arg("--version").output()?;
    if nightly.status.success() {
        bail!("the stable-only RUSTUP_HOME {} still reaches {TOOLCHAIN}", rustup_home.display());
    }
    println!("  toolchain: {}", run(cargo().arg("--version"))?.trim());
    run(cargo().args(["build", "--quiet"]))?;
    let out = cargo().args(["run", "--quiet"]).output()?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    print!("{}", stdout.lines().map(|l| format!("  consumer: {l}\n")).collect::<String>());
    if !out.status.success() || stderr.contains("panicked") {
        bail!("the consumer failed ({}):\n{stdout}{stderr}", out.status);
    }
    let lines: Vec<&str> = stdout.lines().collect();
    let [kernels, gpu, emulator] = lines[..] else {
        bail!("the consumer printed {} lines, not 3:\n{stdout}", lines.len())
    };
    if kernels != "kernels: Prebuilt, sm_80 SASS, sm_90 SASS" {
        bail!("the packaged bankwise embeds the wrong kernels: {kernels:?}");
    }
    if !(gpu.starts_with("gpu: ") || gpu.starts_with("no gpu: ")) || gpu.len() < 10 {
        bail!("the consumer's Gpu::new() line is malformed: {gpu:?}");
    }
    if emulator != "emulator: transpose_tiled 64 x 96 correct, 32 wavefronts per request at worst" {
        bail!("the packaged bankwise's emulator gave {emulator:?}");
    }
    Ok(())
}

/// The consumer's `main`: the embedded kernels, `Gpu::new()`'s outcome, and a transpose on the
/// emulator (the builtin kernels' host forms, built from the packaged sources), one line each.
const CONSUMER_MAIN: &str = r#"//! Built by `cargo xtask package-check` against the packaged bankwise crates.
use bankwise::{Gpu, Shape, TransposeKernel};

fn main() -> bankwise::Result<()> {
    let each = |cc| bankwise::kernels::MODULES.iter().all(|m| m.cubin_for(cc).is_some());
    let sass = |cc| if each(cc) { "SASS" } else { "no SASS" };
    println!("kernels: {:?}, sm_80 {}, sm_90 {}", bankwise::kernels::ORIGIN, sass((8, 0)), sass((9, 0)));
    match Gpu::new() {
        Ok(_) => println!("gpu: ready"),
        Err(e) => println!("no gpu: {e}"),
    }
    let gpu = Gpu::emulator()?;
    let shape = Shape::new(64, 96);
    let host: Vec<u32> = (0..64 * 96).collect();
    let src = gpu.upload(&host)?;
    let mut dst = gpu.alloc_zeros::<u32>(host.len())?;
    gpu.transpose_with(TransposeKernel::Tiled, &src, &mut dst, shape)?;
    let correct = gpu.download(&dst)? == bankwise::cpu::transpose(&host, shape)?;
    let report = &gpu.take_emulator_reports()[0].report;
    let worst = report.sites.iter().map(|s| s.wavefronts_per_request()).fold(0.0, f64::max);
    let verdict = if correct { "correct" } else { "WRONG" };
    println!("emulator: transpose_tiled 64 x 96 {verdict}, {worst} wavefronts per request at worst");
    Ok(())
}
"#;

fn device_consumer(work: &Path, device_dir: &Path, crates: &BTreeMap<String, PathBuf>) -> Result<()> {
    let dir = work.join("device-consumer");
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::create_dir_all(dir.join(".cargo"))?;
    std::fs::copy(device_dir.join("rust-toolchain.toml"), dir.join("rust-toolchain.toml"))?;
    std::fs::copy(device_dir.join(".cargo/config.toml"), dir.join(".cargo/config.toml"))?;
    let deps: String = ["bankwise-device", "bankwise-kernels"].iter().map(|n| format!("{n} = \"0.1.0\"\n")).collect();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"device-consumer\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{deps}\n{}\n[profile.dev]\npanic = \"abort\"\n\n[workspace]\n",
            patch_table(crates)
        ),
    )?;
    std::fs::write(
        dir.join("src/lib.rs"),
        "//! Built by `cargo xtask package-check` against the packaged device crates.\n#![no_std]\n\
         pub use bankwise_kernels;\n\n\
         /// # Safety\n/// `out` holds one `u32` per thread.\n\
         #[bankwise_device::kernel]\n\
         pub unsafe fn index(out: *mut u32) {\n    \
         let i = bankwise_device::thread::index_1d();\n    \
         unsafe { *out.add(i as usize) = i as u32 };\n}\n",
    )?;
    let mut cmd = clean(Command::new("cargo"));
    cmd.current_dir(&dir)
        .arg(format!("+{TOOLCHAIN}"))
        .args(["build", "--quiet", "--target-dir"])
        .arg(work.join("device-consumer-target"));
    run(&mut cmd)?;
    Ok(())
}
