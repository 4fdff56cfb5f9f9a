//! How bankwise's builtin kernels are built and shipped: one place for the kernel modules, the
//! builder's options, the file names in `prebuilt/` and the ptxas command, shared (through
//! `#[path]`) by `build.rs`, `cargo xtask kernels` and the tests of the shipped kernels, so
//! that the three cannot disagree on what "the kernels" are.
//!
//! Needs only `std` and `bankwise_builder`.

#![allow(dead_code)] // each includer uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// One PTX module of builtin kernels: the kernel crate it is built from (relative to the
/// `bankwise` crate's folder: present in this repository, absent from the published package,
/// which ships [`PREBUILT_DIR`] instead), its file stem (the crate's name: `<stem>.ptx`,
/// `<stem>.entries`, `<stem>.sm_XX.cubin`, both in `OUT_DIR` and in [`PREBUILT_DIR`]) and the
/// architecture its PTX targets.
pub struct KernelModule {
    /// The kernel crate's folder, relative to the `bankwise` crate's.
    pub crate_dir: &'static str,
    /// The file stem.
    pub stem: &'static str,
    /// The PTX's `.target`: the oldest GPU that runs it.
    pub arch: &'static str,
}

/// bankwise's modules: every kernel that runs from Volta on in `sm_70` PTX, and those that need
/// Ampere's instructions (`cp.async`) in `sm_80` PTX.
pub const MODULES: [KernelModule; 2] = [
    KernelModule { crate_dir: "../../kernels/bankwise-builtin", stem: "bankwise-builtin", arch: "sm_70" },
    KernelModule { crate_dir: "../../kernels/bankwise-builtin-sm80", stem: "bankwise-builtin-sm80", arch: "sm_80" },
];

impl KernelModule {
    /// The builder for the module, with the options every build of it uses. `bankwise` is the
    /// `bankwise` crate's folder (absolute).
    pub fn builder(&self, bankwise: &Path) -> bankwise_builder::PtxBuilder {
        bankwise_builder::PtxBuilder::new(bankwise.join(self.crate_dir))
            .arch(self.arch)
            // The tuned kernels keep a few 16-byte vectors per thread in arrays walked by short
            // loops; LLVM's default unroll threshold leaves some of those loops rolled, and a
            // rolled loop over an array puts the array in local memory (ptxas: stack frame).
            .llvm_arg("-unroll-threshold=1500")
    }

    /// `<stem>.ptx`.
    pub fn ptx_file(&self) -> String {
        format!("{}.ptx", self.stem)
    }

    /// `<stem>.entries`.
    pub fn entries_file(&self) -> String {
        format!("{}.entries", self.stem)
    }

    /// `<stem>.<arch>.cubin`.
    pub fn cubin_file(&self, arch: &str) -> String {
        format!("{}.{arch}.cubin", self.stem)
    }
}

/// The file `build.rs` writes for `src/kernels.rs` to include: the entry names and the
/// kernels' origin.
pub const GENERATED: &str = "bankwise-builtin.rs";

/// The folder of the `bankwise` crate that ships the kernels, built: each module's PTX, its
/// entries manifest and SASS for [`CUBIN_ARCHES`].
pub const PREBUILT_DIR: &str = "prebuilt";

/// The architectures shipped as SASS (cubins): Ampere's `sm_80` (loaded on any 8.x GPU) and
/// Hopper's `sm_90`. Other GPUs JIT-compile the PTX.
pub const CUBIN_ARCHES: [&str; 2] = ["sm_80", "sm_90"];

/// The environment variable that selects the kernels' origin: `1` uses [`PREBUILT_DIR`] even
/// where the kernel sources are present (stable Rust only, no rustup call), `0` rebuilds them
/// (an error where the sources are absent). Unset: rebuild where the sources are present.
pub const PREBUILT_ENV: &str = "BANKWISE_PREBUILT";

/// The ptxas release the cubins are assembled with (CUDA 13.0, the GPU machines' toolkit):
/// `ptxas --version` must name it, because another release makes other bytes.
pub const PTXAS_RELEASE: &str = "release 13.0, V13.0.88";

/// The shipped kernels' folder of the `bankwise` crate at `bankwise`.
pub fn prebuilt_dir(bankwise: &Path) -> PathBuf {
    bankwise.join(PREBUILT_DIR)
}

/// `ptxas -arch=<arch> -o <cubin> <ptx>`: the command that makes a shipped cubin from the
/// shipped PTX. Its output is deterministic (the same bytes on every run, whatever the input
/// file is called), which `cargo xtask kernels` checks each time it writes them.
pub fn ptxas_command(ptxas: &Path, arch: &str, ptx: &Path, cubin: &Path) -> Command {
    let mut cmd = Command::new(ptxas);
    cmd.arg(format!("-arch={arch}")).arg("-o").arg(cubin).arg(ptx);
    cmd
}
