//! `histogram`: counts the bytes of a buffer into 256 bins with shared-memory atomics
//! (`kernels/src/lib.rs`) and checks every bin against the CPU.
//!
//! `cargo run -p histogram [N]` (default: sizes from 1 to 2^26 + 5 bytes, random and skewed),
//! or with `BANKWISE_EMULATOR=1` on the CPU emulator (default: up to 10^5 + 3).

use std::process::ExitCode;

use histogram_kernels as _; // the kernel's host form, registered for the emulator

use bankwise_runtime::{Device, LaunchConfig, ModuleImage, verify};
use rand::{Rng, SeedableRng};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/histogram-kernels.ptx"));
const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/histogram-kernels.entries"));

/// `kernels::BINS`.
const BINS: usize = 256;
/// Threads per block, and blocks per SM (a grid-stride loop takes the rest).
const THREADS: u32 = 256;
const BLOCKS_PER_SM: u32 = 8;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("histogram: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // BANKWISE_EMULATOR=1 runs it on the CPU emulator; on a GPU, Device::new(0), whose error
    // says what is missing on a machine without one.
    let dev = Device::from_env(0)?;
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().map_err(|_| format!("N must be a whole number, got {n:?}"))?],
        None if dev.is_emulator() => vec![1, 255, 4097, 100_003],
        None => vec![1, 255, 4097, 1_000_003, (1 << 26) + 5],
    };
    count_and_check(&dev, &sizes)
}

/// Counts random and skewed bytes of each size on `dev` and checks every bin against the CPU.
fn count_and_check(dev: &Device, sizes: &[usize]) -> Result<(), Box<dyn std::error::Error>> {
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES))?;
    let histogram = module.kernel(histogram_kernels::histogram)?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    for &n in sizes {
        // Uniform bytes, and bytes crowded into a few bins (the worst case for contention).
        let uniform: Vec<u8> = (0..n).map(|_| rng.random()).collect();
        let skewed: Vec<u8> = (0..n).map(|_| if rng.random_bool(0.9) { 7 } else { rng.random_range(0..4) }).collect();
        for (case, data) in [("uniform", uniform), ("skewed", skewed)] {
            let src = dev.upload(&data)?;
            let mut bins = dev.alloc_zeros::<u32>(BINS)?;
            // At least one block, so that an empty input still gets its 256 zero bins.
            let blocks =
                (n as u64).div_ceil(THREADS as u64).clamp(1, (BLOCKS_PER_SM * dev.info().multiprocessors) as u64);
            // The kernel declares its BINS · 4 bytes of shared memory: the launch gives them.
            let config = LaunchConfig::linear(blocks as u32, THREADS);
            // Safety: histogram(bins, data, n) reads data[..n] and adds into bins[..256]; 1 KiB
            // of shared memory per block for its own bins.
            unsafe { histogram.launch(dev.stream(), config, (&mut bins, &src, n as u64))? };
            let mut want = vec![0u32; BINS];
            for &b in &data {
                want[b as usize] += 1;
            }
            verify::exact(&dev.download(&bins)?, &want)?.check()?;
            println!("histogram: {n} {case} bytes, all 256 bins equal to the CPU's");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Device, ENTRIES, PTX, count_and_check};

    #[test]
    fn counts_correctly_on_the_emulator() {
        count_and_check(&Device::emulator(), &[0, 1, 255, 4097, 70_001]).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn counts_go_to_shared_atomics_and_bins_to_global_reductions() {
        // The 256 counters of shared memory it declares are in the manifest.
        assert_eq!(ENTRIES, "histogram(ptr, ptr, u64) shared 1024\n");
        let kernels = bankwise::tools::inspect(PTX, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        let k = &kernels[0];
        assert_eq!((k.resources.stack_bytes, k.resources.spill_stores), (0, 0), "{:?}", k.resources);
        // ptxas turns the shared `atom.add 1` into a warp-aggregated `ATOMS.POPC.INC`.
        for instruction in ["ATOMS.", "REDG.E.ADD", "BAR.SYNC"] {
            assert!(k.sass.contains(instruction), "histogram has no {instruction}:\n{}", k.sass);
        }
    }
}
