//! `cargo xtask bundle DIR`: the executables a GPU machine without Rust needs, and a `run.sh`
//! that runs them: the GPU tests of the library, the runtime and the device primitives, the
//! examples, the exercises' reference solutions, the `bankwise` command, the criterion
//! benches and the PyTorch peer scripts (`benches/peers/`, into `peers/`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cargo;

/// GPU test binaries: (package, test target, name in the bundle).
const TESTS: &[(&str, &str, &str)] = &[
    ("bankwise", "gpu", "gpu-tests"),
    ("bankwise-runtime", "gpu", "runtime-tests"),
    ("bankwise-device-tests", "gpu", "device-tests"),
];
/// The examples: (package, binary).
const EXAMPLES: &[(&str, &str)] = &[
    ("vector-add", "vector-add"),
    ("custom-reduction", "custom-reduction"),
    ("histogram", "histogram"),
    ("cudarc-interop", "cudarc-interop"),
];

/// The peers' scripts `./run.sh tensors` runs beside bankwise (`benches/peers/`).
const PEERS: &[&str] = &["permute_torch.py", "axes_torch.py"];

/// Builds the bundle into `dir` (the caller has run `setup`: the builds need ptxas).
pub fn run(root: &Path, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for &(package, test, name) in TESTS {
        let exe = built_executable(root, &["test", "--release", "-p", package, "--test", test, "--no-run"], test)?;
        files.push((exe, name.into()));
    }
    files.push((
        built_executable(root, &["bench", "-p", "bankwise-benches", "--no-run"], "kernels")?,
        "criterion-benches".into(),
    ));
    let mut build = vec!["build", "--release", "-p", "bankwise-cli"];
    for &(package, _) in EXAMPLES {
        build.extend(["-p", package]);
    }
    cargo(root, &build)?;
    files.push((root.join("target/release/bankwise"), "bankwise".into()));
    for &(_, bin) in EXAMPLES {
        files.push((root.join("target/release").join(bin), bin.into()));
    }
    // The exercises' checker built with the reference solutions, so that every solution runs on
    // the GPU (and under the sanitizers) as well as on the emulator. Copied now: a build without
    // the feature would replace it.
    cargo(root, &["build", "--release", "-p", "bankwise-exercises", "--features", "solutions"])?;
    let solutions = dir.join("exercise-solutions");
    std::fs::copy(root.join("target/release/bankwise-exercises"), &solutions)
        .with_context(|| format!("copying the exercises' checker to {}", solutions.display()))?;
    for (from, to) in files {
        std::fs::copy(&from, dir.join(&to)).with_context(|| format!("copying {}", from.display()))?;
    }
    copy_peers(root, dir)?;
    let script = dir.join("run.sh");
    std::fs::write(&script, RUN_SH)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    println!("bundle ready in {}: copy it to a GPU machine and run ./run.sh", dir.display());
    Ok(())
}

/// Copies the peers' scripts ([`PEERS`]) into `dir/peers`.
fn copy_peers(root: &Path, dir: &Path) -> Result<()> {
    let peers = dir.join("peers");
    std::fs::create_dir_all(&peers)?;
    for script in PEERS {
        let from = root.join("benches/peers").join(script);
        std::fs::copy(&from, peers.join(script)).with_context(|| format!("copying {}", from.display()))?;
    }
    Ok(())
}

/// Runs a `cargo … --no-run` build and returns the executable of the target named `name`.
fn built_executable(root: &Path, args: &[&str], name: &str) -> Result<PathBuf> {
    let out = Command::new("cargo")
        .current_dir(root)
        .args(args)
        .arg("--message-format=json-render-diagnostics")
        .stderr(std::process::Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("cargo {} failed", args.join(" "));
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if msg["reason"] == "compiler-artifact"
            && msg["target"]["name"] == name
            && let Some(exe) = msg["executable"].as_str()
        {
            return Ok(exe.into());
        }
    }
    bail!("cargo {} built no executable named {name}", args.join(" "))
}

const RUN_SH: &str = r#"#!/usr/bin/env bash
# bankwise on a GPU machine with no Rust toolchain (made by `cargo xtask bundle`).
#   ./run.sh test [ARGS]       the library's GPU tests (ARGS go to the harness: a filter, --skip X, --list)
#   ./run.sh toolkit           the runtime's and the device primitives' GPU tests, and the examples
#   ./run.sh sanitize [ARGS]   the library's GPU tests under compute-sanitizer memcheck, racecheck, synccheck
#   ./run.sh sanitize-toolkit  the toolkit tests and the examples under memcheck and racecheck
#   ./run.sh exercises         every exercise's reference solution on the GPU (and the emulator),
#                              then under memcheck and racecheck
#   ./run.sh startup [RUNS]    Gpu::new() in fresh processes, JIT cache disabled and enabled
#   ./run.sh bench [ARGS]      the benchmark table (ARGS: copy, transpose, --quick, --markdown FILE)
#   ./run.sh criterion [ARGS]  the criterion benchmarks
#   ./run.sh probe [ARGS]      the bank-conflict probe table (ARGS: --markdown FILE, --once, --ncu-csv FILE)
#   ./run.sh tensors [DIR]     the tensors' figures in one go: the permute suite and the axis reductions
#                              beside PyTorch, transposes beside cuBLAS, copy, reduce (tables into DIR)
#   ./run.sh all               test, toolkit, sanitize, sanitize-toolkit, startup, bench
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-all}"; shift || true
examples=(./vector-add ./custom-reduction ./histogram ./cudarc-interop)
toolkit() {
  # One trial at a time: the timing trials measure the stream, and the trial that allocates
  # past the device's memory stalls it for milliseconds when it runs beside them.
  ./runtime-tests --test-threads 1
  ./device-tests
  for e in "${examples[@]}"; do "$e"; done
}
sanitize() {
  # The probes' timing trials measure cycles, which instrumentation distorts: skipped here.
  local skip=(--skip probe/conflict_free --skip probe/model_agrees)
  for tool in memcheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 ./gpu-tests --test-threads 8 "${skip[@]}" "$@"
  done
  # racecheck's bookkeeping grows with every launch, and one process of all ~7000 trials
  # outlives it: one run per kernel family.
  for family in copy transpose_naive transpose_tiled transpose_padded transpose_swizzled transpose/ \
      reduce_atomic reduce_interleaved reduce_sequential reduce_first_add reduce_unrolled_warp reduce_shuffle reduce/ probe; do
    echo "== compute-sanitizer --tool racecheck: $family"
    compute-sanitizer --tool racecheck --error-exitcode 1 --print-limit 20 ./gpu-tests "$family" --test-threads 4 "${skip[@]}" "$@"
  done
}
sanitize_toolkit() {
  # Skipped: the timing trials (instrumentation distorts their times, and racecheck loses track
  # of launches queued behind the hold kernel) and the trials whose driver calls fail on
  # purpose (a lookup in a cubin without a manifest; an allocation past the device's memory,
  # which memcheck counts as an API error). The examples at small sizes: the sanitizers slow
  # each launch down by orders of magnitude.
  local skip=(--skip bench/ --skip lookup/missing_in_a_bare_cubin --skip memory/allocation_past_the_device)
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool: toolkit"
    compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 ./runtime-tests --test-threads 4 "${skip[@]}"
    compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 ./device-tests --test-threads 4
    for n in 1 1000 65537; do
      for e in "${examples[@]}"; do compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$e" "$n"; done
    done
  done
}
exercises() {
  # `verify` checks each solution on the emulator and on the GPU where there is one.
  ./exercise-solutions verify
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool: exercises"
    compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 ./exercise-solutions verify
  done
}
startup() {
  local runs="${1:-5}"
  for i in $(seq "$runs"); do CUDA_CACHE_DISABLE=1 ./bankwise startup; done
  for i in $(seq "$runs"); do CUDA_CACHE_DISABLE=1 ./bankwise startup --split; done
  for i in $(seq "$runs"); do ./bankwise startup; done
}
tensors() {
  # Each peer beside bankwise's table of the same cases, in one call of a lent GPU; the
  # Markdown tables go to DIR for the docs.
  local out="${1:-.}"
  mkdir -p "$out"
  ./bankwise bench permute --permute-cases "$out/cases.txt" --markdown "$out/permute.md"
  python3 peers/permute_torch.py "$out/cases.txt" | tee "$out/permute-torch.txt"
  ./bankwise bench transpose copy reduce axes --markdown "$out/others.md" \
    --shape 4096x4096 --shape 8192x8192 --shape 16384x16384 --shape 8191x8193 --shape 4095x4097
  python3 peers/axes_torch.py | tee "$out/axes-torch.txt"
}
case "$mode" in
  test) ./gpu-tests "$@" ;;
  toolkit) toolkit ;;
  sanitize) sanitize "$@" ;;
  sanitize-toolkit) sanitize_toolkit ;;
  exercises) exercises ;;
  startup) startup "$@" ;;
  bench) ./bankwise bench "$@" ;;
  criterion) ./criterion-benches --bench "$@" ;;
  probe) ./bankwise probe "$@" ;;
  tensors) tensors "$@" ;;
  all) ./gpu-tests; toolkit; sanitize --skip past_2; sanitize_toolkit; exercises; startup; ./bankwise bench ;;
  *) echo "usage: ./run.sh [test|toolkit|sanitize|sanitize-toolkit|exercises|startup|bench|criterion|probe|tensors|all] [ARGS]" >&2; exit 2 ;;
esac
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_carries_the_peer_scripts_its_run_sh_calls() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
        let dir = std::env::temp_dir().join(format!("bankwise-bundle-peers-{}", std::process::id()));
        copy_peers(root, &dir).expect("the peer scripts exist");
        for script in PEERS {
            assert!(dir.join("peers").join(script).is_file(), "{script} copied");
            assert!(RUN_SH.contains(&format!("peers/{script}")), "run.sh calls {script}");
        }
        std::fs::remove_dir_all(&dir).expect("a temporary folder");
    }
}
