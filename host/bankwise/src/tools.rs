//! CUDA's offline tools, for checking the PTX without a GPU: `ptxas` assembles it for a given
//! architecture and reports each kernel's resources; `nvdisasm` shows the SASS it produced.
//!
//! Found through `BANKWISE_CUDA_BIN` (a folder), then the `PATH`, then the `.tools/` folder
//! that `cargo xtask test` fills from PyPI, then `/usr/local/cuda/bin`. CUDA 13 dropped Volta,
//! so [`ptxas_for`] takes `sm_70`/`sm_72` to a CUDA 12 ptxas (`BANKWISE_CUDA12_BIN`, or
//! `.tools/cuda12`) while CUDA 13's (matching the GPU machines' driver) assembles the rest.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Resources one kernel uses on one architecture, as `ptxas -v` reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// Entry name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory in bytes (dynamic shared memory is sized at launch).
    pub shared_bytes: u32,
    /// Per-thread stack frame in bytes: local memory the kernel asked for.
    pub stack_bytes: u32,
    /// Bytes spilled to local memory by the register allocator.
    pub spill_stores: u32,
    /// Bytes reloaded from spills.
    pub spill_loads: u32,
}

/// Where `cargo xtask test` installs CUDA 13's tools from PyPI (`nvidia-cuda-nvcc`).
pub const CUDA13_DIR: &str = ".tools/cuda13/nvidia/cu13/bin";
/// Where `cargo xtask test` installs CUDA 12's ptxas from PyPI (`nvidia-cuda-nvcc-cu12`).
pub const CUDA12_DIR: &str = ".tools/cuda12/nvidia/cuda_nvcc/bin";

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn search(name: &str, mut dirs: Vec<PathBuf>) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs.push(workspace().join(CUDA13_DIR));
    dirs.push("/usr/local/cuda/bin".into());
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// The path of CUDA tool `name` (`ptxas`, `nvdisasm`), if one is installed.
pub fn find(name: &str) -> Option<PathBuf> {
    search(name, std::env::var_os("BANKWISE_CUDA_BIN").map(PathBuf::from).into_iter().collect())
}

/// A `ptxas` that can assemble for `arch`: CUDA 12's for Volta (`sm_70`, `sm_72`), which
/// CUDA 13 no longer supports, and [`find`]'s otherwise.
pub fn ptxas_for(arch: &str) -> Option<PathBuf> {
    if matches!(arch, "sm_70" | "sm_72") {
        let dirs = std::env::var_os("BANKWISE_CUDA12_BIN")
            .map(PathBuf::from)
            .into_iter()
            .chain([workspace().join(CUDA12_DIR)]);
        dirs.map(|d| d.join("ptxas")).find(|p| p.is_file())
    } else {
        find("ptxas")
    }
}

/// Assembles `ptx` for `arch` (such as `sm_90`) with `ptxas -v`, writing the cubin to
/// `cubin`, and returns each kernel's resources. Errors carry ptxas's own message.
pub fn assemble(ptxas: &Path, ptx: &str, arch: &str, cubin: &Path) -> Result<Vec<KernelResources>, String> {
    let src = cubin.with_extension("ptx");
    std::fs::write(&src, ptx).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let out = Command::new(ptxas)
        .args([&format!("-arch={arch}"), "-v", "-o"])
        .arg(cubin)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("ptxas -arch={arch} rejected the PTX:\n{text}"));
    }
    Ok(parse_ptxas_report(&text))
}

/// Parses the `-v` report of ptxas into one record per kernel.
pub fn parse_ptxas_report(text: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    let num_before = |line: &str, unit: &str| -> Option<u32> {
        let i = line.find(unit)?;
        line[..i].split_whitespace().last()?.parse().ok()
    };
    // ptxas reports the properties of device functions (such as a panic handler) between an
    // entry's and the next: a stack-frame line counts only under its entry's own heading.
    let mut properties_of_entry = false;
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            kernels.push(KernelResources { name, ..Default::default() });
            continue;
        }
        let Some(k) = kernels.last_mut() else { continue };
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            properties_of_entry = rest.trim() == k.name;
        } else if line.contains("bytes stack frame") {
            if !properties_of_entry {
                continue;
            }
            k.stack_bytes = num_before(line, "bytes stack frame").unwrap_or(0);
            k.spill_stores = num_before(line, "bytes spill stores").unwrap_or(0);
            k.spill_loads = num_before(line, "bytes spill loads").unwrap_or(0);
        } else if line.contains("Used") && line.contains("registers") {
            k.registers = num_before(line, "registers").unwrap_or(0);
            k.shared_bytes = num_before(line, "bytes smem").unwrap_or(0);
        }
    }
    kernels
}

/// The SASS of `cubin`, as `nvdisasm -c` prints it.
pub fn disassemble(nvdisasm: &Path, cubin: &Path) -> Result<String, String> {
    let out = Command::new(nvdisasm)
        .arg("-c")
        .arg(cubin)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvdisasm.display()))?;
    if !out.status.success() {
        return Err(format!("nvdisasm failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Splits `nvdisasm -c` output into `(kernel, its SASS)` pairs.
pub fn sass_by_kernel(sass: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in sass.lines() {
        if let Some(rest) = line.trim_start().strip_prefix(".text.") {
            out.push((rest.trim_end_matches(':').to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// One kernel of an [`inspect`]ed module: its resources and its SASS.
#[derive(Clone, Debug)]
pub struct Inspected {
    /// Registers, shared memory, stack and spills, from `ptxas -v`.
    pub resources: KernelResources,
    /// The kernel's SASS, from `nvdisasm -c`.
    pub sass: String,
}

/// Each kernel's resources when `ptx` is assembled for `arch`, from a scratch cubin that is
/// deleted afterwards. Needs `ptxas` ([`ptxas_for`]).
pub fn resources(ptx: &str, arch: &str) -> Result<Vec<KernelResources>, String> {
    Ok(scratch_assembly(ptx, arch, |_| Ok(()))?.0)
}

/// Assembles `ptx` for `arch` and disassembles it: each kernel's resources and SASS, for
/// checking without a GPU what a kernel compiles to (the registers that set its occupancy, the
/// `LDS.128` or `ATOMS` it is meant to use). Needs `ptxas` and `nvdisasm` ([`find`],
/// [`ptxas_for`]); the error says which is missing. CUDA 13's nvdisasm reads `sm_75` and later.
pub fn inspect(ptx: &str, arch: &str) -> Result<Vec<Inspected>, String> {
    let nvdisasm = find("nvdisasm").ok_or_else(|| missing("nvdisasm"))?;
    let (resources, sass) = scratch_assembly(ptx, arch, |cubin| disassemble(&nvdisasm, cubin))?;
    let sass = sass_by_kernel(&sass);
    Ok(resources
        .into_iter()
        .map(|r| {
            let body = sass.iter().find(|(k, _)| *k == r.name).map(|(_, s)| s.clone()).unwrap_or_default();
            Inspected { resources: r, sass: body }
        })
        .collect())
}

fn missing(tool: &str) -> String {
    format!("{tool} not found: run `cargo xtask setup` (installs it into .tools/) or set BANKWISE_CUDA_BIN")
}

/// Assembles `ptx` for `arch` into a scratch cubin of its own (parallel callers never share
/// one), runs `then` on it, and deletes it.
fn scratch_assembly<T>(
    ptx: &str,
    arch: &str,
    then: impl FnOnce(&Path) -> Result<T, String>,
) -> Result<(Vec<KernelResources>, T), String> {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let ptxas = ptxas_for(arch).ok_or_else(|| missing("ptxas"))?;
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let cubin = std::env::temp_dir().join(format!("bankwise-{}-{call}-{arch}.cubin", std::process::id()));
    let result = assemble(&ptxas, ptx, arch, &cubin).and_then(|r| Ok((r, then(&cubin)?)));
    let _ = std::fs::remove_file(&cubin);
    let _ = std::fs::remove_file(cubin.with_extension("ptx"));
    result
}
/// The spill bytes (each way) and stack bytes that ptxas is known to give `kernel` on `arch`,
/// each measured and kept on purpose; any other local memory is a regression (the `ptx` tests and
/// `bankwise ptx` fail on it). None but these:
/// - on `sm_70` (CUDA 12.9's ptxas), the square `f32` tuned tiles capped at 128 registers
///   (two blocks per SM) spill a few words: NN 20 bytes, TN 4, and with the whole-tile path
///   NN 24, NT 32, TN 56, TT 28. Volta is not measured here; the `sm_80` and `sm_90` builds of
///   the same PTX spill nothing but:
/// - on `sm_90`, the square whole-tile NN entry, whose interleaved lanes
///   (`bankwise_layout::matmul::Lanes`) leave ptxas 12 bytes short at 128 registers (a
///   predicate and a pointer, stored before the loop over `k`, read back on its checked path
///   and after it): measured faster than its row-major build without spills (H100,
///   2026-11-24: 44.94–44.96 TFLOP/s at 4096³ against 42.59 and, before the lanes existed,
///   44.43).
/// - the multistage rung's wide `f64` entries (the whole-tile ones too) keep their results
///   array (1024 bytes, sized for the wide `f32` tiles' 2 × 4 sub-tiles, of which `f64` uses
///   2 × 2) in a stack frame for the epilogue only: LLVM does not unroll its 16 rows of two
///   16-byte read-modify-writes, so the rows index the results at run time. The loop over `k`
///   keeps them in registers.
/// - the 2-byte unaligned transposes and permutation tiles (`*_unaligned_*u16`) call the read
///   of the buffer's last, partial vector out of line (`bankwise_partial_vector_u16`, so that
///   their load loops unroll): a 16-byte call frame, used by the one tile that ends the buffer.
/// - `transpose_unaligned_large_u16`, held to two blocks per SM (128 registers) for its
///   128 × 128 tile, spills 264 bytes on sm_90 (404 on sm_70) where its permutation twin
///   (`permute_tiled_unaligned_large_u16`) fits in 123 registers; at one block per SM it takes
///   254 registers. The 64-bit entry runs past 2³² elements only.
pub fn known_local_memory(kernel: &str, arch: &str) -> (u32, u32) {
    match (kernel, arch) {
        ("transpose_unaligned_large_u16", "sm_70") => (404, 200),
        ("transpose_unaligned_large_u16", "sm_90") => (264, 144),
        ("transpose_unaligned_u16" | "permute_tiled_unaligned_u16" | "permute_tiled_unaligned_large_u16", _) => (0, 16),
        ("matmul_tuned_nn_f32" | "matmul_tuned_tn_f32", "sm_70") => (20, 24),
        ("matmul_tuned_whole_nn_f32" | "matmul_tuned_whole_nt_f32" | "matmul_tuned_whole_tt_f32", "sm_70") => (32, 32),
        ("matmul_tuned_whole_nn_f32", "sm_90") => (12, 16),
        ("matmul_tuned_whole_tn_f32", "sm_70") => (56, 56),
        (k, _) if k.starts_with("matmul_multistage_wide_") && k.ends_with("_f64") => (0, 1024),
        _ => (0, 0),
    }
}
