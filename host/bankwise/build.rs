//! Puts bankwise's kernels into `OUT_DIR` for `src/kernels.rs` to embed: for each module of
//! [`recipe::MODULES`], the PTX, its entries manifest and SASS (cubins) for the architectures
//! of [`recipe::CUBIN_ARCHES`]; and `bankwise-builtin.rs` (the entry names and where the
//! kernels came from).
//!
//! Two modes, chosen by `BANKWISE_PREBUILT` ([`recipe::PREBUILT_ENV`]):
//! - **rebuild** (the default in this repository, or `BANKWISE_PREBUILT=0`): builds
//!   `kernels/bankwise-builtin` and `bankwise-builtin-sm80` with `bankwise-builder` (the
//!   pinned nightly, through rustup). A module's shipped cubins are embedded only if its fresh
//!   PTX and manifest are byte-identical to the shipped ones in `prebuilt/`; otherwise the
//!   build warns that the shipped kernels are stale (`cargo xtask kernels` refreshes them)
//!   and embeds none of that module's cubins, so the driver JIT-compiles its fresh PTX.
//! - **prebuilt** (`BANKWISE_PREBUILT=1`, or where the kernel sources are absent, as in the
//!   published package, or where the crate sits under `$CARGO_HOME`, as a git dependency's
//!   checkout does): copies `prebuilt/`. Stable Rust only: nothing is compiled and rustup is
//!   never run.

#[path = "recipe.rs"]
mod recipe;

use std::env;
use std::fmt;
use std::path::{Path, PathBuf};

use bankwise_builder::manifest;

/// Why the kernels could not be provided; each message names the fix.
#[derive(Debug)]
enum Error {
    /// Building the kernels from source failed.
    Build(bankwise_builder::BuildError),
    /// `BANKWISE_PREBUILT` holds something other than `0` or `1`.
    BadEnv(String),
    /// `BANKWISE_PREBUILT=0` where the kernel sources are absent.
    NoSources(PathBuf),
    /// A shipped file could not be read, or an output written.
    Io { what: String, error: std::io::Error },
    /// The shipped manifest does not parse, or does not list the shipped PTX's entries.
    Inconsistent(PathBuf),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Build(e) => write!(
                f,
                "{e}\n(or set {}=1 to use the shipped kernels in prebuilt/, which need only stable Rust)",
                recipe::PREBUILT_ENV
            ),
            Error::BadEnv(v) => write!(
                f,
                "{}={v:?} is not understood: set it to 1 (use the shipped kernels) or 0 (rebuild them from source), or unset it",
                recipe::PREBUILT_ENV
            ),
            Error::NoSources(dir) => write!(
                f,
                "{}=0 asks to rebuild the kernels, but their sources ({}) are not here; unset it to use the shipped kernels",
                recipe::PREBUILT_ENV,
                dir.display()
            ),
            Error::Io { what, error } => write!(f, "{what}: {error}"),
            Error::Inconsistent(dir) => write!(
                f,
                "the shipped kernels in {} are inconsistent (the entries manifest does not list the PTX's entries); run `cargo xtask kernels` in the bankwise repository to rebuild them",
                dir.display()
            ),
        }
    }
}

fn main() {
    if let Err(e) = run() {
        let text = e.to_string();
        let mut lines = text.lines();
        println!("cargo::error={}", lines.next().unwrap_or(""));
        for line in lines {
            eprintln!("{line}");
        }
        std::process::exit(1);
    }
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|error| Error::Io { what: format!("reading {}", path.display()), error })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|error| Error::Io { what: format!("writing {}", path.display()), error })
}

fn run() -> Result<(), Error> {
    let dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let prebuilt = recipe::prebuilt_dir(&dir);
    println!("cargo::rerun-if-env-changed={}", recipe::PREBUILT_ENV);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=recipe.rs");
    println!("cargo::rerun-if-changed={}", prebuilt.display());

    // The sources of every module present, or none (the published package).
    let have_sources = recipe::MODULES.iter().all(|m| dir.join(m.crate_dir).join("Cargo.toml").is_file());
    let rebuild = match env::var(recipe::PREBUILT_ENV).as_deref() {
        Ok("1") => false,
        Ok("0") if have_sources => true,
        Ok("0") => return Err(Error::NoSources(dir.join(recipe::MODULES[0].crate_dir))),
        Ok("") | Err(env::VarError::NotPresent) => have_sources && !under_cargo_home(&dir),
        Ok(other) => return Err(Error::BadEnv(other.into())),
        Err(env::VarError::NotUnicode(v)) => return Err(Error::BadEnv(v.to_string_lossy().into_owned())),
    };

    let mut names = Vec::new();
    let mut all_match = true;
    for module in &recipe::MODULES {
        let (listed, matches) = provide(module, &dir, &out, &prebuilt, rebuild)?;
        names.extend(listed);
        all_match &= matches;
    }
    let origin =
        if rebuild { format!("Origin::Rebuilt {{ matches_shipped: {all_match} }}") } else { "Origin::Prebuilt".into() };
    let generated = format!(
        "// Generated by build.rs from the modules' entries manifests.\nconst GENERATED_ALL: &[&str] = &[{}];\nconst GENERATED_ORIGIN: Origin = {origin};\n",
        names.join(", ")
    );
    write(&out.join(recipe::GENERATED), generated.as_bytes())
}

/// Writes `module`'s PTX, manifest and cubins into `out`: rebuilt from source where `rebuild`
/// (with the shipped cubins only if the fresh PTX and manifest are the shipped ones), else
/// copied from `prebuilt`. Returns its entry names (quoted, for the generated list) and whether
/// its shipped files are what this build embeds.
fn provide(
    module: &recipe::KernelModule,
    dir: &Path,
    out: &Path,
    prebuilt: &Path,
    rebuild: bool,
) -> Result<(Vec<String>, bool), Error> {
    let shipped_ptx = prebuilt.join(module.ptx_file());
    let shipped_manifest = prebuilt.join(module.entries_file());
    let (ptx, manifest_text, embed_cubins) = if rebuild {
        let built = module.builder(dir).build().map_err(Error::Build)?;
        let ptx = read(&built.ptx)?;
        let manifest_text = read(&built.manifest)?;
        // A missing shipped file counts as stale: the fresh kernels are JIT-compiled.
        let matches = std::fs::read(&shipped_ptx).is_ok_and(|s| s == ptx)
            && std::fs::read(&shipped_manifest).is_ok_and(|s| s == manifest_text)
            && recipe::CUBIN_ARCHES.iter().all(|a| prebuilt.join(module.cubin_file(a)).is_file());
        if !matches {
            println!(
                "cargo::warning=the shipped kernels in {} are stale (the PTX built from {} differs): this build embeds no SASS for it, so the driver JIT-compiles the PTX; run `cargo xtask kernels` to refresh them",
                prebuilt.display(),
                dir.join(module.crate_dir).display()
            );
        }
        (ptx, manifest_text, matches)
    } else {
        let ptx = read(&shipped_ptx)?;
        let manifest_text = read(&shipped_manifest)?;
        write(&out.join(module.ptx_file()), &ptx)?;
        write(&out.join(module.entries_file()), &manifest_text)?;
        (ptx, manifest_text, true)
    };

    // The manifest must parse and list exactly the PTX's entries (names and parameters; the
    // shared memory they declare is only in the manifest): `kernels::ALL` comes from it.
    let ptx_text = String::from_utf8_lossy(&ptx);
    let signature = |e: &manifest::Entry| (e.name.clone(), e.params.clone());
    let listed = manifest::from_text(&String::from_utf8_lossy(&manifest_text))
        .filter(|listed| listed.iter().map(signature).eq(manifest::entries(&ptx_text).iter().map(signature)))
        .ok_or_else(|| Error::Inconsistent(if rebuild { out.to_path_buf() } else { prebuilt.to_path_buf() }))?;

    for arch in recipe::CUBIN_ARCHES {
        let cubin = if embed_cubins { read(&prebuilt.join(module.cubin_file(arch)))? } else { Vec::new() };
        write(&out.join(module.cubin_file(arch)), &cubin)?;
    }
    Ok((listed.iter().map(|e| format!("{:?}", e.name)).collect(), embed_cubins))
}

/// Whether the crate sits under `$CARGO_HOME` (a registry's unpacked source or a git
/// dependency's checkout): the kernels are not edited there, so the shipped ones are used.
fn under_cargo_home(dir: &Path) -> bool {
    let home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    home.and_then(|h| h.canonicalize().ok())
        .zip(dir.canonicalize().ok())
        .is_some_and(|(home, dir)| dir.starts_with(home))
}
