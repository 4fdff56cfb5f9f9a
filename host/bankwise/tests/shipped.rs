//! CPU checks of the kernels shipped in `prebuilt/` (what the published crate and
//! `BANKWISE_PREBUILT=1` builds embed): they are what the sources build today, each cubin is
//! what CUDA 13.0's ptxas makes of the shipped PTX, and the library embeds them. A failure
//! means `cargo xtask kernels` has to be run (and its result committed).
//!
//! ptxas comes from PyPI (`cargo xtask test` installs it into `.tools/`); without it the cubin
//! test fails with a message saying so, as the tests of `tests/ptx.rs` do.

#[path = "../recipe.rs"]
mod recipe;

use std::path::{Path, PathBuf};
use std::process::Command;

use bankwise::kernels::{self, Origin};

const FIX: &str = "run `cargo xtask kernels` to rebuild host/bankwise/prebuilt/ and commit it";

fn prebuilt() -> PathBuf {
    recipe::prebuilt_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
}

fn shipped(name: &str) -> Vec<u8> {
    let path = prebuilt().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read the shipped {}: {e}; {FIX}", path.display()))
}

/// The first line where `a` and `b` differ, for a failure message.
fn first_difference(a: &str, b: &str) -> String {
    let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
    match line {
        Some(i) => format!("line {}: {:?} vs {:?}", i + 1, a.lines().nth(i), b.lines().nth(i)),
        None => format!("one is a prefix of the other ({} vs {} lines)", a.lines().count(), b.lines().count()),
    }
}

/// Each module of the recipe with the library's embedding of it.
fn modules() -> impl Iterator<Item = (&'static recipe::KernelModule, &'static kernels::KernelModule)> {
    assert_eq!(recipe::MODULES.len(), kernels::MODULES.len(), "the recipe and the library list other modules");
    recipe::MODULES.iter().zip(kernels::MODULES).inspect(|(r, k)| assert_eq!(r.stem, k.name))
}

#[test]
fn shipped_kernels_are_what_the_sources_build() {
    for (module, embedded) in modules() {
        let ptx = String::from_utf8(shipped(&module.ptx_file())).expect("the shipped PTX is text");
        let manifest = String::from_utf8(shipped(&module.entries_file())).expect("the shipped manifest is text");
        let name = module.stem;
        match kernels::ORIGIN {
            Origin::Rebuilt { matches_shipped } => {
                // The embedded PTX was built from the module's kernel crate by this build.
                assert!(
                    embedded.ptx == ptx,
                    "{name}: the shipped PTX differs from the PTX the sources build ({}); {FIX}",
                    first_difference(embedded.ptx, &ptx)
                );
                assert!(
                    embedded.manifest == manifest,
                    "{name}: the shipped entries manifest differs from the sources' ({}); {FIX}",
                    first_difference(embedded.manifest, &manifest)
                );
                assert!(matches_shipped, "build.rs found the shipped kernels stale; {FIX}");
            }
            Origin::Prebuilt => {
                eprintln!(
                    "note: built with the prebuilt kernels ({}=1 or no kernel sources): the sources were not built, so only the embedding is checked; `cargo xtask kernels --check` compares with a fresh build",
                    recipe::PREBUILT_ENV
                );
                assert_eq!(embedded.ptx, ptx, "{name}: the embedded PTX is not the shipped one");
                assert_eq!(embedded.manifest, manifest, "{name}: the embedded manifest is not the shipped one");
            }
        }
    }
}

#[test]
fn embedded_sass_is_the_shipped_sass() {
    for (module, embedded) in modules() {
        let sm_80 = shipped(&module.cubin_file("sm_80"));
        let sm_90 = shipped(&module.cubin_file("sm_90"));
        let name = module.stem;
        assert_eq!(embedded.cubin_for((8, 0)), Some(&sm_80[..]), "{name}: sm_80's SASS is not embedded; {FIX}");
        assert_eq!(embedded.cubin_for((8, 9)), Some(&sm_80[..]), "{name}: an 8.9 GPU must get sm_80's SASS");
        assert_eq!(embedded.cubin_for((9, 0)), Some(&sm_90[..]), "{name}: sm_90's SASS is not embedded; {FIX}");
    }
}

/// CUDA 13.0's ptxas: `BANKWISE_CUDA_BIN`'s, `.tools/`'s, then the `PATH`'s (via
/// [`bankwise::tools::find`]), the first of [`recipe::PTXAS_RELEASE`].
fn ptxas() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut candidates: Vec<PathBuf> =
        std::env::var_os("BANKWISE_CUDA_BIN").map(|d| PathBuf::from(d).join("ptxas")).into_iter().collect();
    candidates.push(workspace.join(bankwise::tools::CUDA13_DIR).join("ptxas"));
    candidates.extend(bankwise::tools::find("ptxas"));
    let mut seen = Vec::new();
    for ptxas in candidates.into_iter().filter(|p| p.is_file()) {
        let out = Command::new(&ptxas).arg("--version").output();
        if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(recipe::PTXAS_RELEASE)) {
            return ptxas;
        }
        seen.push(ptxas.display().to_string());
    }
    panic!(
        "no ptxas of CUDA {} found (found: {seen:?}): run `cargo xtask test` (installs it into .tools/) or set BANKWISE_CUDA_BIN to its bin folder",
        recipe::PTXAS_RELEASE
    )
}

#[test]
fn shipped_cubins_are_ptxas_of_the_shipped_ptx() {
    let ptxas = ptxas();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shipped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    for (module, _) in modules() {
        let ptx = dir.join(module.ptx_file());
        std::fs::write(&ptx, shipped(&module.ptx_file())).expect("writing the PTX");
        for arch in recipe::CUBIN_ARCHES {
            let cubin = dir.join(module.cubin_file(arch));
            let out = recipe::ptxas_command(&ptxas, arch, &ptx, &cubin).output().expect("running ptxas");
            assert!(
                out.status.success(),
                "ptxas -arch={arch} rejected the shipped PTX of {}: {}",
                module.stem,
                String::from_utf8_lossy(&out.stderr)
            );
            let made = std::fs::read(&cubin).expect("reading ptxas's cubin");
            assert!(
                made == shipped(&module.cubin_file(arch)),
                "the shipped {arch} cubin of {} is not what {} makes of the shipped PTX; {FIX}",
                module.stem,
                ptxas.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
