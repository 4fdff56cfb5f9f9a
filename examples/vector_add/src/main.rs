//! `vector_add`: the smallest complete bankwise program. The kernel (`kernels/src/lib.rs`) is
//! Rust compiled to PTX by `build.rs`; this program loads the PTX, launches the kernel, and
//! checks every element against the CPU.
//!
//! `cargo run -p vector-add [N]` (default: a few sizes, up to 2^24 + 3 elements), or
//! `BANKWISE_EMULATOR=1 cargo run -p vector-add [N]` on the CPU emulator, which runs the
//! kernel's host form (default: up to 10^5 + 3).

use std::process::ExitCode;

use vector_add_kernels as _; // the kernel's host form, registered for the emulator

use bankwise_runtime::{Device, LaunchConfig, ModuleImage, verify};
use rand::{Rng, SeedableRng};

/// The PTX `build.rs` made from `kernels/`, and the list of its entries.
const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/vector-add-kernels.ptx"));
const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/vector-add-kernels.entries"));

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vector_add: {e}");
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
        None if dev.is_emulator() => vec![1, 31, 1000, 100_003],
        None => vec![1, 31, 1000, (1 << 24) + 3],
    };
    add_and_check(&dev, &sizes)
}

/// Adds random vectors of each size on `dev` and checks every element against the CPU.
fn add_and_check(dev: &Device, sizes: &[usize]) -> Result<(), Box<dyn std::error::Error>> {
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES))?;
    let vector_add = module.kernel(vector_add_kernels::vector_add)?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    for &n in sizes {
        let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let (a_dev, b_dev) = (dev.upload(&a)?, dev.upload(&b)?);
        let mut c_dev = dev.alloc_zeros::<f32>(n)?;
        dev.fill_bytes(&mut c_dev, 0xFF)?; // NaN everywhere: an element not written cannot pass
        // One thread per element, in blocks of 256.
        let config = LaunchConfig::for_elements(n as u64, 256);
        // Safety: vector_add(c, a, b, n) reads a[..n] and b[..n] and writes c[..n]; each holds n floats.
        unsafe { vector_add.launch(dev.stream(), config, (&mut c_dev, &a_dev, &b_dev, n as u64))? };
        // One IEEE addition per element on both sides: the results are equal bit for bit.
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        verify::exact(&dev.download(&c_dev)?, &want)?.check()?;
        println!("vector_add: {n} elements, every one equal to the CPU's");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Device, ENTRIES, PTX, add_and_check};

    #[test]
    fn adds_correctly_on_the_emulator() {
        add_and_check(&Device::emulator(), &[0, 1, 31, 257, 4099]).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn the_kernel_is_one_entry_that_adds_loaded_floats() {
        assert_eq!(ENTRIES, "vector_add(ptr, ptr, ptr, u64)\n");
        let kernels = bankwise::tools::inspect(PTX, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        let k = &kernels[0];
        assert_eq!(
            (k.resources.name.as_str(), k.resources.stack_bytes, k.resources.spill_stores),
            ("vector_add", 0, 0)
        );
        for instruction in ["LDG.E", "FADD", "STG.E"] {
            assert!(k.sass.contains(instruction), "vector_add has no {instruction}:\n{}", k.sass);
        }
    }
}
