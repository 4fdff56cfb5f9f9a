//! Builds the device crate (`kernels/`) into one PTX module and embeds it in the library.
//!
//! Our `cuda_builder`: rustc's own `nvptx64-nvidia-cuda` backend with the pinned nightly,
//! `core` rebuilt from source (`-Zbuild-std=core`), and the cdylib + fat-LTO recipe of
//! `shared/TOOLCHAIN.md` that yields a whole PTX module without a bitcode linker.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The nightly the kernels are built and tested with. Keep in step with `kernels/rust-toolchain.toml`.
const TOOLCHAIN: &str = "nightly-2026-05-20";
/// The commit of that nightly: an image's plain `nightly` of the same build is accepted too.
const COMMIT: &str = "e50aa6fba";
/// Baseline architecture: the driver JIT-compiles this PTX for any GPU from Volta (sm_70) on.
const TARGET_CPU: &str = "sm_70";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    let kernels = root.join("kernels");
    for p in ["kernels/src", "kernels/Cargo.toml", "kernels/rust-toolchain.toml", "layout/src", "layout/Cargo.toml"] {
        println!("cargo::rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo::rerun-if-env-changed=BANKWISE_TOOLCHAIN");

    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("bankwise_kernels.ptx");
    match build_ptx(&kernels) {
        Ok(ptx) => {
            std::fs::copy(&ptx, &out).map(drop).unwrap_or_else(|e| fail(&format!("cannot copy {}: {e}", ptx.display())))
        }
        Err(msg) => fail(&msg),
    }
}

fn fail(msg: &str) -> ! {
    println!("cargo::error={msg}");
    // Non-zero, so that cargo also shows this script's stderr: the kernel compiler's messages.
    std::process::exit(1)
}

/// A command for the pinned toolchain's `cargo`/`rustc`, with the outer build's variables
/// removed: an inherited `RUSTC`, `RUSTFLAGS` or `CARGO_TARGET_DIR` would point the inner
/// build at the stable compiler or at the outer target directory (and its lock).
fn toolchain_cmd(toolchain: &str, tool: &str) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", toolchain, tool]);
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        let keep = key == "CARGO_HOME" || key == "RUSTUP_HOME";
        if !keep && (key.starts_with("CARGO") || key.starts_with("RUST")) {
            cmd.env_remove(key.as_ref());
        }
    }
    cmd
}

/// Picks the pinned nightly, or `BANKWISE_TOOLCHAIN`, or a plain `nightly` of the same commit.
fn find_toolchain() -> Result<String, String> {
    let install = format!("rustup toolchain install {TOOLCHAIN} --profile minimal --component rust-src");
    let mut candidates = vec![TOOLCHAIN.to_string(), "nightly".to_string()];
    if let Ok(t) = env::var("BANKWISE_TOOLCHAIN") {
        candidates.insert(0, t);
    }
    for tc in candidates {
        let Ok(out) = toolchain_cmd(&tc, "rustc").arg("-vV").output() else {
            return Err(format!(
                "bankwise needs rustup to build its GPU kernels; install rustup, then run `{install}`"
            ));
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let pinned = tc == TOOLCHAIN || env::var("BANKWISE_TOOLCHAIN").as_deref() == Ok(tc.as_str());
        if out.status.success() && (pinned || text.contains(COMMIT)) {
            let sysroot =
                toolchain_cmd(&tc, "rustc").args(["--print", "sysroot"]).output().map_err(|e| e.to_string())?;
            let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
            if !sysroot.join("lib/rustlib/src/rust/library/core").is_dir() {
                return Err(format!(
                    "the Rust toolchain {tc} lacks the rust-src component that building the GPU kernels needs; run `rustup component add rust-src --toolchain {tc}`"
                ));
            }
            return Ok(tc);
        }
    }
    Err(format!("building bankwise's GPU kernels needs Rust {TOOLCHAIN} with rust-src; run `{install}`"))
}

fn build_ptx(kernels: &Path) -> Result<PathBuf, String> {
    let toolchain = find_toolchain()?;
    // Its own target directory: the outer cargo holds the lock on ours for the whole build.
    let target_dir = kernels.join("target");
    let status = toolchain_cmd(&toolchain, "cargo")
        .current_dir(kernels)
        .args(["rustc", "--release", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--manifest-path"])
        .arg(kernels.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .args(["--", "--emit=asm", "-C", &format!("target-cpu={TARGET_CPU}"), "-C", "linker=true"])
        // The tuned kernels keep a few 16-byte vectors per thread in arrays walked by short
        // loops; LLVM's default unroll threshold leaves some of those loops rolled, and a
        // rolled loop over an array puts the array in local memory (ptxas: stack frame).
        .args(["-C", "llvm-args=-unroll-threshold=1500"])
        .status()
        .map_err(|e| format!("cannot run cargo from {toolchain}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "compiling the GPU kernels (kernels/) with {toolchain} failed; the compiler's messages are above (run `cargo build -vv` to see them)"
        ));
    }
    let ptx = target_dir.join("nvptx64-nvidia-cuda/release/deps/bankwise_kernels.s");
    if !ptx.is_file() {
        return Err(format!("the kernels built but {} is missing", ptx.display()));
    }
    Ok(ptx)
}
