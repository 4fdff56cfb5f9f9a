//! `PtxBuilder` on small kernel crates (`tests/fixtures/`): a working one, and one for each
//! failure a user meets, whose message must name the fix.
//!
//! The working builds need the pinned nightly with rust-src (`cargo xtask test` installs it);
//! they share one output folder per fixture, so `core` is compiled once for both.

use std::path::{Path, PathBuf};

use bankwise_builder::{BuildError, Param, PtxBuilder, manifest};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// One output folder per fixture and test, under cargo's scratch space for tests.
fn out(fixture: &str, test: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("builder").join(fixture).join(test)
}

#[test]
fn builds_a_kernel_crate_into_ptx_with_its_entries() {
    let dir = out("saxpy", "ok");
    let built = PtxBuilder::new(fixture("saxpy")).out_dir(&dir).build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(built.ptx, dir.join("saxpy-kernels.ptx"));
    let ptx = std::fs::read_to_string(&built.ptx).unwrap();
    assert!(ptx.contains(".target sm_70"), "default architecture");
    assert!(ptx.contains(".visible .entry saxpy("));
    // The manifest beside the PTX lists both entries with their parameter types.
    let text = std::fs::read_to_string(&built.manifest).unwrap();
    assert_eq!(text, "nothing()\nsaxpy(ptr, ptr, f32, u32)\n");
    assert_eq!(manifest::from_text(&text).unwrap(), built.entries);
    assert_eq!(built.entries[1].params[..2], [Param::Ptr, Param::Ptr]);
    assert_eq!(built.toolchain, "nightly-2026-05-20");
    // Re-run triggers: the fixture's sources, the device crate it depends on by path, and the
    // toolchain file; nothing from the toolchain's own sources.
    let has = |end: &str| built.inputs.iter().any(|p| p.ends_with(end));
    assert!(has("saxpy/src/lib.rs") && has("saxpy/Cargo.toml") && has("saxpy/rust-toolchain.toml"));
    assert!(has("bankwise-device/src/lib.rs") && has("bankwise-device/Cargo.toml"), "{:?}", built.inputs);
    assert!(built.inputs.iter().all(|p| !p.components().any(|c| c.as_os_str() == "rustlib")));
    // Nothing is written into the kernel crate's source tree but cargo's lock file.
    let target = fixture("saxpy").join("target");
    assert!(!target.exists(), "{} was created", target.display());
}

#[test]
fn a_newer_architecture_is_passed_to_the_compiler() {
    let built = PtxBuilder::new(fixture("saxpy")).arch("sm_90").out_dir(out("saxpy", "sm_90")).build();
    let built = built.unwrap_or_else(|e| panic!("{e}"));
    assert!(std::fs::read_to_string(&built.ptx).unwrap().contains(".target sm_90"));
}

#[test]
fn compile_errors_are_reported_with_the_compilers_messages() {
    let err = PtxBuilder::new(fixture("saxpy")).feature("broken").out_dir(out("saxpy", "broken")).build().unwrap_err();
    let BuildError::Compile { ref messages, .. } = err else { panic!("expected a compile error, got {err}") };
    assert!(messages.contains("error[E0308]: mismatched types"), "{messages}");
    assert!(messages.contains("src/lib.rs"), "{messages}");
    let text = err.to_string();
    assert!(text.starts_with("compiling the GPU kernels of ") && text.contains("fix the errors"), "{text}");
}

#[test]
fn deny_warnings_turns_the_kernel_crates_warnings_into_errors() {
    // One output folder for both builds: `core` is compiled once.
    let dir = out("saxpy", "warns");
    let warned = PtxBuilder::new(fixture("saxpy")).feature("warns").out_dir(&dir).build();
    assert!(warned.is_ok(), "a warning alone must not fail the build: {:?}", warned.err());
    let err = PtxBuilder::new(fixture("saxpy")).feature("warns").deny_warnings().out_dir(&dir).build().unwrap_err();
    let BuildError::Compile { ref messages, .. } = err else { panic!("expected a compile error, got {err}") };
    assert!(messages.contains("never_called") && messages.contains("-D warnings"), "{messages}");
    // Without the warning the same options build.
    let clean = PtxBuilder::new(fixture("saxpy")).deny_warnings().out_dir(&dir).build();
    assert!(clean.is_ok(), "{:?}", clean.err());
}

#[test]
fn a_crate_that_is_not_a_cdylib_is_refused_with_the_fix() {
    let err = PtxBuilder::new(fixture("not-cdylib")).out_dir(out("not-cdylib", "x")).build().unwrap_err();
    assert!(matches!(err, BuildError::NotCdylib { .. }), "{err}");
    assert!(err.to_string().contains(r#"add `[lib] crate-type = ["cdylib"]`"#), "{err}");
}

#[test]
fn a_missing_toolchain_file_is_refused_with_the_fix() {
    let err = PtxBuilder::new(fixture("no-toolchain")).out_dir(out("no-toolchain", "x")).build().unwrap_err();
    assert!(matches!(err, BuildError::NoToolchainFile { .. }), "{err}");
    assert!(err.to_string().contains("add one that pins a nightly"), "{err}");
}

#[test]
fn a_toolchain_that_is_not_installed_is_named_with_the_install_command() {
    let err = PtxBuilder::new(fixture("missing-toolchain")).out_dir(out("missing-toolchain", "x")).build().unwrap_err();
    assert!(matches!(err, BuildError::ToolchainMissing { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("rustup toolchain install nightly-1999-01-01 --profile minimal --component rust-src"),
        "{text}"
    );
}

#[test]
fn a_path_without_a_crate_is_refused() {
    let err = PtxBuilder::new(fixture("nowhere")).out_dir(out("nowhere", "x")).build().unwrap_err();
    assert!(matches!(err, BuildError::NotACrate { .. }), "{err}");
    assert!(err.to_string().contains("pass the kernel crate's folder"), "{err}");
}
