//! Builds a Rust GPU kernel crate into one PTX module, from a build script: bankwise's
//! `cuda_builder`.
//!
//! In the `build.rs` of the host crate that launches the kernels, for a kernel crate in its
//! `kernels/` folder (package name `kernels`):
//!
//! ```no_run
//! bankwise_builder::PtxBuilder::new("kernels").build().unwrap_or_else(|e| e.fail());
//! ```
//!
//! and in the host crate, `include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"))` is the PTX
//! and `kernels.entries` beside it the entries manifest.
//!
//! The recipe (rustc's own `nvptx64-nvidia-cuda` target, no LLVM of our own): the kernel
//! crate is a `cdylib`, compiled with fat LTO into a single codegen unit, `panic = "abort"`,
//! `core` rebuilt from source (`-Zbuild-std=core`, which needs the `rust-src` component), and
//! `--emit=asm`, whose output is the whole linked module with `core` included: PTX needs no
//! further link, so the `llvm-bitcode-linker` that the nightly does not ship is never called.
//! The builder sets those profile options itself; the kernel crate only has to be a `cdylib`
//! and name its nightly in a `rust-toolchain.toml` (in its folder or above), the one place
//! the toolchain is pinned.
//!
//! Everything is written under `OUT_DIR` (the nested build's target directory too), nothing
//! into a source tree. The build script is re-run when a source file of the kernel crate or
//! of any of its path dependencies changes, or its manifests, toolchain file or cargo config.

// The example above is a build script: its `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

mod failure;
pub mod launch_bounds;
pub mod manifest;
pub mod shared_bytes;
mod statics;

use std::env;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use manifest::{Entry, Param};

/// The target every kernel crate is built for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// The default architecture: the driver JIT-compiles `sm_70` PTX for any GPU from Volta on.
pub const DEFAULT_ARCH: &str = "sm_70";

/// Builds a kernel crate into PTX. See the [crate docs](crate).
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    path: PathBuf,
    arch: String,
    release: bool,
    llvm_args: Vec<String>,
    rustc_args: Vec<String>,
    features: Vec<String>,
    out_dir: Option<PathBuf>,
    rerun: bool,
}

/// What a build produced.
#[derive(Clone, Debug)]
pub struct Built {
    /// The PTX module: `OUT_DIR/<crate>.ptx`.
    pub ptx: PathBuf,
    /// The entries manifest beside it: `OUT_DIR/<crate>.entries` ([`manifest::to_text`]).
    pub manifest: PathBuf,
    /// The module's entries.
    pub entries: Vec<Entry>,
    /// The toolchain the kernels were built with (from `rust-toolchain.toml`).
    pub toolchain: String,
    /// Every source file and manifest the PTX depends on (outside the toolchain).
    pub inputs: Vec<PathBuf>,
}

/// Why a build failed: each says, in one sentence, what to do about it.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// `rustup` could not be run.
    NoRustup,
    /// No `rust-toolchain.toml` (or `rust-toolchain`) at or above the kernel crate.
    NoToolchainFile {
        /// The kernel crate.
        krate: PathBuf,
    },
    /// The pinned toolchain is not installed.
    ToolchainMissing {
        /// The toolchain named by the file.
        toolchain: String,
        /// The file that names it.
        file: PathBuf,
    },
    /// The toolchain lacks `rust-src`, which `-Zbuild-std=core` needs.
    RustSrcMissing {
        /// The toolchain.
        toolchain: String,
    },
    /// The path holds no `Cargo.toml`.
    NotACrate {
        /// The path given.
        path: PathBuf,
    },
    /// The kernel crate's library is not a `cdylib`.
    NotCdylib {
        /// The crate's `Cargo.toml`.
        manifest: PathBuf,
    },
    /// rustc rejected the kernel crate; `messages` is what the compiler said.
    Compile {
        /// The crate's `Cargo.toml`.
        manifest: PathBuf,
        /// The toolchain used.
        toolchain: String,
        /// The compiler's messages (its stderr).
        messages: String,
    },
    /// A `#[kernel(launch_bounds(..))]` could not be applied to the PTX, or a
    /// `#[kernel(shared = ..)]` could not be read from it.
    LaunchBounds {
        /// The crate's `Cargo.toml`.
        manifest: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// Neither `OUT_DIR` (a build script's) nor [`PtxBuilder::out_dir`] says where to write.
    NoOutDir,
    /// Reading or writing a file failed.
    Io {
        /// What was being done.
        what: String,
        /// The error.
        error: std::io::Error,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoRustup => write!(
                f,
                "building GPU kernels needs rustup (it selects the kernel crate's pinned nightly), and `rustup` could not be run; install rustup and make sure it is on the PATH"
            ),
            BuildError::NoToolchainFile { krate } => write!(
                f,
                "no rust-toolchain.toml at or above {}; add one that pins a nightly, e.g. `[toolchain] channel = \"nightly-2026-05-20\"` with `components = [\"rust-src\"]`",
                krate.display()
            ),
            BuildError::ToolchainMissing { toolchain, file } => write!(
                f,
                "the GPU kernels need Rust {toolchain} (pinned by {}), which is not installed; run `rustup toolchain install {toolchain} --profile minimal --component rust-src`",
                file.display()
            ),
            BuildError::RustSrcMissing { toolchain } => write!(
                f,
                "Rust {toolchain} lacks the rust-src component that rebuilding `core` for the GPU needs; run `rustup component add rust-src --toolchain {toolchain}`"
            ),
            BuildError::NotACrate { path } => {
                write!(f, "{} is not a crate (no Cargo.toml there); pass the kernel crate's folder", path.display())
            }
            BuildError::NotCdylib { manifest } => write!(
                f,
                "{} does not build a cdylib, the one crate type whose PTX is a whole module; add `[lib] crate-type = [\"cdylib\"]` to it",
                manifest.display()
            ),
            BuildError::Compile { manifest, toolchain, messages } => write!(
                f,
                "compiling the GPU kernels of {} with {toolchain} failed; fix the errors the compiler reported:\n{messages}",
                manifest.display()
            ),
            BuildError::LaunchBounds { manifest, message } => write!(
                f,
                "the launch bounds of the kernels of {} could not be written into the PTX: {message}",
                manifest.display()
            ),
            BuildError::NoOutDir => write!(
                f,
                "OUT_DIR is not set: call PtxBuilder::build from a build script, or give the output folder with PtxBuilder::out_dir"
            ),
            BuildError::Io { what, error } => write!(f, "{what}: {error}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl BuildError {
    /// Reports the error to cargo (`cargo::error=`) and exits the build script: for
    /// `build().unwrap_or_else(|e| e.fail())`. The first line is the sentence that names the
    /// fix; the compiler's own messages follow on stderr, which cargo shows for a failed script.
    /// Where the script's package depends on the kernel crate, cargo compiles its host form too
    /// and prints those messages itself; then only each error's first line and location follow,
    /// so that no error is shown twice.
    pub fn fail(&self) -> ! {
        let host_form_built = env::var_os("CARGO_MANIFEST_DIR")
            .is_some_and(|dir| matches!(self, BuildError::Compile { manifest, .. } if failure::host_form_is_built(manifest, Path::new(&dir))));
        let text = self.report(host_form_built);
        let mut lines = text.lines();
        println!("cargo::error={}", lines.next().unwrap_or(""));
        for line in lines {
            eprintln!("{line}");
        }
        std::process::exit(1)
    }

    /// What [`fail`](Self::fail) prints: the [`Display`](fmt::Display) text, except for a
    /// compile error whose messages cargo also shows from the kernel crate's host form.
    fn report(&self, host_form_built: bool) -> String {
        match self {
            BuildError::Compile { manifest, toolchain, messages } if host_form_built => {
                let dir = manifest.parent().unwrap_or(manifest);
                format!(
                    "compiling the GPU kernels of {} with {toolchain} failed; fix the errors below (cargo's build of the kernel crate for the host shows them in full above, where it meets them too; `cargo check` in {} shows the GPU build's in full):\n{}",
                    manifest.display(),
                    dir.display(),
                    failure::headlines(messages)
                )
            }
            _ => self.to_string(),
        }
    }
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
    let what = what.into();
    move |error| BuildError::Io { what, error }
}

impl PtxBuilder {
    /// A builder for the kernel crate at `path` (relative to the calling crate's manifest
    /// folder when run from a build script), for [`DEFAULT_ARCH`], in release mode.
    pub fn new(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let path = match env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) if path.is_relative() => PathBuf::from(dir).join(path),
            _ => path.to_path_buf(),
        };
        PtxBuilder {
            path,
            arch: DEFAULT_ARCH.into(),
            release: true,
            llvm_args: Vec::new(),
            rustc_args: Vec::new(),
            features: Vec::new(),
            out_dir: None,
            rerun: true,
        }
    }

    /// The architecture the PTX targets (`sm_70`, `sm_80`, `sm_90`, …): the oldest GPU that
    /// may load it, and the instructions the kernels may use.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// Release (optimised, the default) or debug (`opt-level = 0`) PTX.
    pub fn release(mut self, release: bool) -> Self {
        self.release = release;
        self
    }

    /// An extra argument for LLVM (`-C llvm-args=…`), such as `-unroll-threshold=1500`.
    pub fn llvm_arg(mut self, arg: impl Into<String>) -> Self {
        self.llvm_args.push(arg.into());
        self
    }

    /// An extra argument for rustc on the kernel crate itself (not its dependencies), such as
    /// `-D` then `warnings`: each call adds one argument, after the builder's own.
    pub fn rustc_arg(mut self, arg: impl Into<String>) -> Self {
        self.rustc_args.push(arg.into());
        self
    }

    /// Makes every warning of the kernel crate an error (`-D warnings`, on that crate only),
    /// so that a build script fails on code that would only warn.
    pub fn deny_warnings(self) -> Self {
        self.rustc_arg("-D").rustc_arg("warnings")
    }

    /// Enables a cargo feature of the kernel crate.
    pub fn feature(mut self, feature: impl Into<String>) -> Self {
        self.features.push(feature.into());
        self
    }

    /// Writes into `dir` instead of `OUT_DIR`, and prints no `cargo::` directives: for use
    /// outside a build script (tools, tests).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self.rerun = false;
        self
    }

    /// Builds the PTX and its entries manifest into the output folder.
    pub fn build(self) -> Result<Built, BuildError> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => env::var_os("OUT_DIR").map(PathBuf::from).ok_or(BuildError::NoOutDir)?,
        };
        let manifest_path = self.path.join("Cargo.toml");
        let manifest_text =
            std::fs::read_to_string(&manifest_path).map_err(|_| BuildError::NotACrate { path: self.path.clone() })?;
        if self.rerun {
            // Before anything can fail, so that fixing the cause re-runs the script.
            println!("cargo::rerun-if-changed={}", manifest_path.display());
        }
        let name = package_name(&manifest_text).ok_or(BuildError::NotACrate { path: self.path.clone() })?;
        if !is_cdylib(&manifest_text) {
            return Err(BuildError::NotCdylib { manifest: manifest_path });
        }
        let (toolchain, toolchain_file) = pinned_toolchain(&self.path)?;
        if self.rerun {
            println!("cargo::rerun-if-changed={}", toolchain_file.display());
        }
        check_toolchain(&toolchain, &toolchain_file)?;

        let target_dir = out_dir.join("bankwise-builder").join(&name);
        let profile = if self.release { "release" } else { "dev" };
        let mut cmd = toolchain_cmd(&toolchain, "cargo");
        cmd.current_dir(&self.path)
            // Only the cdylib: a kernel crate may also list `rlib`, for its host form (the
            // emulator's), which is never built for nvptx64.
            .args(["rustc", "--lib", "--crate-type", "cdylib", "--profile", profile, "--target", TARGET])
            .args(["-Zbuild-std=core", "--manifest-path"])
            .arg(&manifest_path)
            .arg("--target-dir")
            .arg(&target_dir);
        if !self.features.is_empty() {
            cmd.args(["--features", &self.features.join(",")]);
        }
        cmd.args(["--", "--emit=asm", "-C", &format!("target-cpu={}", self.arch), "-C", "linker=true"]);
        for arg in &self.llvm_args {
            cmd.args(["-C", &format!("llvm-args={arg}")]);
        }
        cmd.args(&self.rustc_args);
        // The recipe's profile, whatever the kernel crate's own profile says.
        let upper = profile.to_uppercase();
        for (key, value) in [("LTO", "fat"), ("CODEGEN_UNITS", "1"), ("PANIC", "abort")] {
            cmd.env(format!("CARGO_PROFILE_{upper}_{key}"), value);
        }
        let output = cmd.output().map_err(|_| BuildError::NoRustup)?;
        let messages = String::from_utf8_lossy(&output.stderr).into_owned();
        if !output.status.success() {
            return Err(BuildError::Compile {
                manifest: manifest_path,
                toolchain,
                messages: compiler_messages(&messages),
            });
        }

        let stem = name.replace('-', "_");
        let dir = target_dir.join(TARGET).join(if self.release { "release" } else { "debug" });
        let asm = dir.join("deps").join(format!("{stem}.s"));
        let ptx_text = std::fs::read_to_string(&asm).map_err(io(format!("reading the PTX {}", asm.display())))?;
        let ptx_text = launch_bounds::apply(&ptx_text)
            .map_err(|message| BuildError::LaunchBounds { manifest: manifest_path.clone(), message })?;
        let (ptx_text, declared) = shared_bytes::extract(&ptx_text)
            .map_err(|message| BuildError::LaunchBounds { manifest: manifest_path.clone(), message })?;
        std::fs::create_dir_all(&out_dir).map_err(io(format!("creating {}", out_dir.display())))?;
        let ptx = out_dir.join(format!("{name}.ptx"));
        std::fs::write(&ptx, &ptx_text).map_err(io(format!("writing {}", ptx.display())))?;
        let mut entries = manifest::entries(&ptx_text);
        for entry in &mut entries {
            entry.shared_bytes = declared.iter().find(|(name, _)| *name == entry.name).map_or(0, |&(_, b)| b);
        }
        let manifest = out_dir.join(format!("{name}.entries"));
        std::fs::write(&manifest, manifest::to_text(&entries))
            .map_err(io(format!("writing {}", manifest.display())))?;

        let inputs = inputs(&dir.join(format!("{stem}.d")), &toolchain_file)?;
        if self.rerun {
            for input in &inputs {
                println!("cargo::rerun-if-changed={}", input.display());
            }
        }
        Ok(Built { ptx, manifest, entries, toolchain, inputs })
    }
}

/// `name = "…"` of the `[package]` table.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(value) = line.strip_prefix("name") {
            return Some(value.trim_start().strip_prefix('=')?.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// Whether the `[lib]` table's `crate-type` lists `cdylib`.
fn is_cdylib(manifest: &str) -> bool {
    let mut in_lib = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_lib = line == "[lib]";
        } else if in_lib && (line.starts_with("crate-type") || line.starts_with("crate_type")) {
            return line.contains("\"cdylib\"");
        }
    }
    false
}

/// The toolchain named by the nearest `rust-toolchain.toml` (or `rust-toolchain`) at or above
/// `dir`, as rustup itself would pick it, and that file.
fn pinned_toolchain(dir: &Path) -> Result<(String, PathBuf), BuildError> {
    for folder in dir.ancestors() {
        for file in ["rust-toolchain.toml", "rust-toolchain"] {
            let path = folder.join(file);
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let channel = text.lines().find_map(|l| {
                let value = l.trim().strip_prefix("channel")?.trim_start().strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_string())
            });
            // The legacy file holds just the toolchain's name.
            let channel = channel.or_else(|| (file == "rust-toolchain").then(|| text.trim().to_string()));
            if let Some(channel) = channel.filter(|c| !c.is_empty()) {
                return Ok((channel, path));
            }
        }
    }
    Err(BuildError::NoToolchainFile { krate: dir.to_path_buf() })
}

fn check_toolchain(toolchain: &str, file: &Path) -> Result<(), BuildError> {
    Command::new("rustup").arg("--version").output().map_err(|_| BuildError::NoRustup)?;
    let sysroot = toolchain_cmd(toolchain, "rustc").args(["--print", "sysroot"]).output();
    let sysroot = match sysroot {
        Ok(out) if out.status.success() => PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        _ => return Err(BuildError::ToolchainMissing { toolchain: toolchain.into(), file: file.into() }),
    };
    if !rust_src_present(&sysroot) {
        return Err(BuildError::RustSrcMissing { toolchain: toolchain.into() });
    }
    Ok(())
}

/// Whether the toolchain at `sysroot` has the `rust-src` component: the standard library's
/// sources and lock file, which `-Zbuild-std` reads.
fn rust_src_present(sysroot: &Path) -> bool {
    let library = sysroot.join("lib/rustlib/src/rust/library");
    library.join("Cargo.lock").is_file() && library.join("core/src/lib.rs").is_file()
}

/// A command for the pinned toolchain's `cargo`/`rustc`, with the outer build's variables
/// removed: an inherited `RUSTC`, `RUSTFLAGS` or `CARGO_TARGET_DIR` would point the nested
/// build at the outer compiler or at the outer target directory (and its lock).
fn toolchain_cmd(toolchain: &str, tool: &str) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", toolchain, tool]);
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        let keep = key == "CARGO_HOME" || key == "RUSTUP_HOME";
        if !keep && (key.starts_with("CARGO") || key.starts_with("RUST")) {
            cmd.env_remove(OsString::from(key.as_ref()));
        }
    }
    cmd
}

/// The compiler's diagnostics from cargo's stderr, without its progress lines.
fn compiler_messages(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("Compiling ")
                || t.starts_with("Finished ")
                || t.starts_with("Updating ")
                || t.starts_with("Locking "))
        })
        .collect();
    kept.join("\n")
}

/// Source files and manifests the PTX was built from: cargo's dep-info of the artifact, less
/// the toolchain's own sources, plus each crate's `Cargo.toml`, the workspace's lock file and
/// cargo configuration, and the toolchain file.
fn inputs(dep_info: &Path, toolchain_file: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let text = std::fs::read_to_string(dep_info).map_err(io(format!("reading {}", dep_info.display())))?;
    let sources = text.split_once(':').map(|(_, deps)| deps).unwrap_or("");
    let cargo_home = env::var_os("CARGO_HOME").map(PathBuf::from);
    let mut found: Vec<PathBuf> = Vec::new();
    // Paths are space-separated; a space inside a path is escaped as `\ `.
    for path in sources.replace("\\ ", "\u{0}").split_whitespace().map(|p| PathBuf::from(p.replace('\u{0}', " "))) {
        let external = path.components().any(|c| c.as_os_str() == "rustlib")
            || cargo_home.as_ref().is_some_and(|h| path.starts_with(h));
        if external || !path.is_absolute() {
            continue;
        }
        // The crate's manifest: the nearest Cargo.toml above the source file.
        if let Some(krate) = path.ancestors().skip(1).find(|d| d.join("Cargo.toml").is_file()) {
            found.push(krate.join("Cargo.toml"));
            for extra in [krate.join("Cargo.lock"), krate.join(".cargo/config.toml")] {
                if extra.is_file() {
                    found.push(extra);
                }
            }
        }
        found.push(path);
    }
    if let Some(dir) = toolchain_file.parent() {
        for extra in [dir.join("Cargo.toml"), dir.join("Cargo.lock"), dir.join(".cargo/config.toml")] {
            if extra.is_file() {
                found.push(extra);
            }
        }
    }
    found.push(toolchain_file.to_path_buf());
    found.sort();
    found.dedup();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_package_name_and_crate_type() {
        let toml = "[package]\nname = \"my-kernels\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n";
        assert_eq!(package_name(toml).as_deref(), Some("my-kernels"));
        assert!(is_cdylib(toml));
        assert!(!is_cdylib("[package]\nname = \"x\"\n"));
        assert!(!is_cdylib("[package]\nname = \"x\"\n[lib]\ncrate-type = [\"rlib\"]\n"));
    }

    #[test]
    fn a_compile_error_is_told_once() {
        let messages = "error[E0308]: mismatched types\n  --> src/lib.rs:3:9\n   |\n3  |     let x: u32 = 0.0;\n\nerror: could not compile `k` (lib) due to 1 previous error";
        let err = BuildError::Compile {
            manifest: PathBuf::from("/p/kernels/Cargo.toml"),
            toolchain: "nightly-2026-05-20".into(),
            messages: messages.into(),
        };
        // Where cargo builds the host form, which prints the messages in full: each error's
        // first line and location, once.
        let short = err.report(true);
        assert!(short.starts_with("compiling the GPU kernels of /p/kernels/Cargo.toml with nightly-2026-05-20 failed"));
        assert!(short.contains("`cargo check` in /p/kernels shows"), "{short}");
        assert!(short.ends_with("\nerror[E0308]: mismatched types\n  --> src/lib.rs:3:9"), "{short}");
        assert!(!short.contains("let x"), "{short}");
        // Where nothing else shows them: the messages in full, once.
        let full = err.report(false);
        assert_eq!(full, err.to_string());
        assert_eq!(full.matches("mismatched types").count(), 1, "{full}");
        assert!(full.contains("let x: u32 = 0.0;"), "{full}");
    }

    #[test]
    fn rust_src_is_found_only_where_it_is() {
        let sysroot = std::env::temp_dir().join(format!("bankwise-builder-sysroot-{}", std::process::id()));
        let library = sysroot.join("lib/rustlib/src/rust/library");
        std::fs::create_dir_all(library.join("core/src")).unwrap();
        assert!(!rust_src_present(&sysroot), "no lock file yet");
        std::fs::write(library.join("Cargo.lock"), "").unwrap();
        std::fs::write(library.join("core/src/lib.rs"), "").unwrap();
        assert!(rust_src_present(&sysroot));
        std::fs::remove_dir_all(&sysroot).unwrap();
        let message = BuildError::RustSrcMissing { toolchain: "nightly-2026-05-20".into() }.to_string();
        assert!(message.contains("rustup component add rust-src --toolchain nightly-2026-05-20"), "{message}");
        let message = BuildError::NoRustup.to_string();
        assert!(message.contains("install rustup"), "{message}");
    }

    #[test]
    fn the_legacy_toolchain_file_and_the_nearest_file_win() {
        let dir = std::env::temp_dir().join(format!("bankwise-builder-pin-{}", std::process::id()));
        let inner = dir.join("kernels");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(dir.join("rust-toolchain.toml"), "[toolchain]\nchannel = \"nightly-2026-01-01\"\n").unwrap();
        assert_eq!(pinned_toolchain(&inner).unwrap().0, "nightly-2026-01-01");
        std::fs::write(inner.join("rust-toolchain"), "nightly-2026-05-20\n").unwrap();
        assert_eq!(pinned_toolchain(&inner).unwrap(), ("nightly-2026-05-20".into(), inner.join("rust-toolchain")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
