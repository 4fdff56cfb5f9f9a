//! The runtime's PTX (the embedded hold kernel and the GPU tests' fixture) assembles with
//! ptxas for sm_70 (CUDA 12's) and sm_90 (CUDA 13's), and the fixtures' binaries are what
//! they claim to be. Without the tools (`cargo xtask test` installs them into `.tools/`) the
//! ptxas checks print why and pass.

use std::path::{Path, PathBuf};
use std::process::Command;

use bankwise_runtime::{Entries, ModuleImage, bench};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptxas(arch: &str) -> Option<PathBuf> {
    let dir = if arch == "sm_70" { ".tools/cuda12/nvidia/cuda_nvcc/bin" } else { ".tools/cuda13/nvidia/cu13/bin" };
    let path = root().join(dir).join("ptxas");
    path.is_file().then_some(path)
}

fn assemble(name: &str, ptx: &str) {
    for arch in ["sm_70", "sm_90"] {
        let Some(ptxas) = ptxas(arch) else {
            eprintln!("skipped: no ptxas for {arch} under .tools/ (cargo xtask test installs it)");
            continue;
        };
        let dir = std::env::temp_dir().join(format!("bankwise-runtime-ptxas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join(format!("{name}.ptx"));
        std::fs::write(&src, ptx).unwrap();
        let out = Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg("-v")
            .arg("-o")
            .arg(dir.join(format!("{name}.{arch}.cubin")))
            .arg(&src)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "ptxas -arch={arch} rejected {name}: {report}");
        assert!(report.contains("0 bytes stack frame, 0 bytes spill stores"), "{name} {arch}: {report}");
    }
}

#[test]
fn the_hold_kernel_assembles() {
    assemble("spin_wait", bench::SPIN_WAIT_PTX);
    let entries = Entries::from_ptx(bench::SPIN_WAIT_PTX);
    assert!(entries.contains(bench::SPIN_WAIT));
}

#[test]
fn the_fixtures_are_what_they_claim() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let ptx = std::fs::read_to_string(dir.join("scale.ptx")).unwrap();
    assemble("scale", &ptx);
    assert_eq!(Entries::from_ptx(&ptx).get("scale").unwrap().to_string(), "scale(ptr, ptr, f32, u64)");
    ModuleImage::Cubin(&std::fs::read(dir.join("scale.sm_90.cubin")).unwrap()).validate().unwrap();
    ModuleImage::Fatbin(&std::fs::read(dir.join("scale.fatbin")).unwrap()).validate().unwrap();
}
