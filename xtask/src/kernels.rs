//! `cargo xtask kernels`: rebuilds the kernels shipped in `host/bankwise/prebuilt/` (for each
//! module of `recipe::MODULES`, the PTX, its entries manifest, and SASS for each architecture of
//! `recipe::CUBIN_ARCHES`) from `kernels/bankwise-builtin` and `bankwise-builtin-sm80`,
//! with the builder options and ptxas command `build.rs` and the tests use
//! (`host/bankwise/recipe.rs`). `--check` compares instead of writing.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

#[path = "../../host/bankwise/recipe.rs"]
mod recipe;

/// The `bankwise` crate's folder.
fn bankwise(root: &Path) -> PathBuf {
    root.join("host/bankwise")
}

/// CUDA 13.0's ptxas ([`recipe::PTXAS_RELEASE`]): `BANKWISE_CUDA_BIN`'s, `.tools/`'s (which
/// `cargo xtask setup` installs), then the `PATH`'s, the first of the right release.
pub fn ptxas(root: &Path) -> Result<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("BANKWISE_CUDA_BIN").map(PathBuf::from).into_iter().collect();
    dirs.push(root.join(".tools/cuda13/nvidia/cu13/bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    let mut seen = Vec::new();
    for ptxas in dirs.into_iter().map(|d| d.join("ptxas")).filter(|p| p.is_file()) {
        let version =
            Command::new(&ptxas).arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        if version.as_deref().is_ok_and(|v| v.contains(recipe::PTXAS_RELEASE)) {
            return Ok(ptxas);
        }
        seen.push(ptxas.display().to_string());
    }
    bail!(
        "no ptxas of CUDA {} found (the shipped SASS is that release's; found: {}): run `cargo xtask setup`, or set BANKWISE_CUDA_BIN to its bin folder",
        recipe::PTXAS_RELEASE,
        if seen.is_empty() { "none".to_string() } else { seen.join(", ") }
    )
}

/// Assembles `ptx` for `arch` into `cubin` and returns the cubin's bytes.
fn assemble(ptxas: &Path, arch: &str, ptx: &Path, cubin: &Path) -> Result<Vec<u8>> {
    let out = recipe::ptxas_command(ptxas, arch, ptx, cubin)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    if !out.status.success() {
        bail!("ptxas -arch={arch} {} failed:\n{}", ptx.display(), String::from_utf8_lossy(&out.stderr));
    }
    std::fs::read(cubin).with_context(|| format!("reading {}", cubin.display()))
}

/// Builds `module` and assembles its cubins: the files it ships, by name.
fn build_module(
    module: &recipe::KernelModule,
    root: &Path,
    bankwise: &Path,
    ptxas: &Path,
) -> Result<Vec<(String, Vec<u8>)>> {
    // A folder of its own under target/, kept between runs: the nested build is incremental.
    let out = root.join("target/xtask-kernels").join(module.stem);
    let started = std::time::Instant::now();
    let built = module.builder(bankwise).out_dir(&out).build().map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!(
        "xtask: built {} with {} in {:.1} s",
        built.ptx.display(),
        built.toolchain,
        started.elapsed().as_secs_f64()
    );
    let mut files =
        vec![(module.ptx_file(), std::fs::read(&built.ptx)?), (module.entries_file(), std::fs::read(&built.manifest)?)];
    // A second copy of the PTX under another name: ptxas must make the same bytes from it.
    let again = out.join("again").join("kernels.ptx");
    std::fs::create_dir_all(again.parent().context("a parent")?)?;
    std::fs::copy(&built.ptx, &again)?;
    for arch in recipe::CUBIN_ARCHES {
        let cubin = assemble(ptxas, arch, &built.ptx, &out.join(module.cubin_file(arch)))?;
        let second = assemble(ptxas, arch, &again, &again.with_extension(format!("{arch}.cubin")))?;
        if cubin != second {
            bail!(
                "ptxas {} is not deterministic for {arch}: two runs on the same PTX made different cubins",
                ptxas.display()
            );
        }
        files.push((module.cubin_file(arch), cubin));
    }
    Ok(files)
}

/// Builds the kernels and writes (or, with `check`, compares) `prebuilt/`.
pub fn kernels(root: &Path, check: bool) -> Result<()> {
    let bankwise = bankwise(root);
    let ptxas = ptxas(root)?;
    let mut files = Vec::new();
    for module in &recipe::MODULES {
        files.extend(build_module(module, root, &bankwise, &ptxas)?);
    }

    let dir = recipe::prebuilt_dir(&bankwise);
    let stale: Vec<&(String, Vec<u8>)> =
        files.iter().filter(|(name, bytes)| std::fs::read(dir.join(name)).ok().as_ref() != Some(bytes)).collect();
    if check {
        if !stale.is_empty() {
            let names: Vec<&str> = stale.iter().map(|(n, _)| n.as_str()).collect();
            bail!(
                "the shipped kernels in {} are stale ({} differ from what the sources build): run `cargo xtask kernels` and commit the result",
                dir.display(),
                names.join(", ")
            );
        }
        println!("xtask: the shipped kernels in {} are what the sources build", dir.display());
        return Ok(());
    }
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in &stale {
        std::fs::write(dir.join(name), bytes).with_context(|| format!("writing {}", dir.join(name).display()))?;
        println!("xtask: wrote {} ({} bytes)", dir.join(name).display(), bytes.len());
    }
    if stale.is_empty() {
        println!("xtask: {} was up to date", dir.display());
    }
    Ok(())
}
