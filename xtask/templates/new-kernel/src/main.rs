//! {{name}}: launches the kernel of `kernels/` (built into PTX by `build.rs`) and checks every
//! element against the CPU.
//!
//! `cargo run --release [N]` on a GPU; `BANKWISE_EMULATOR=1 cargo run [N] [--report]` on
//! bankwise's CPU emulator, where `--report` prints what the emulator saw of each launch.
//! `cargo test` runs it on the emulator.

use std::process::ExitCode;

// The kernel crate's host form: `conv1d` is the typed constant `#[kernel]` made of the kernel.
use {{ident}}::{BLOCK, RADIUS, TAPS, conv1d};

// The runtime: a device (GPU or emulator), modules, launch shapes, and comparisons.
use bankwise_runtime::{Device, LaunchConfig, LaunchReport, ModuleImage, verify};

/// The PTX that `build.rs` made from `kernels/`, and its entries manifest (each entry's name,
/// parameter types and declared shared memory).
const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/{{kernels}}.ptx"));
const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/{{kernels}}.entries"));

/// The filter: a small blur.
const WEIGHTS: [f32; TAPS] = [0.1, 0.2, 0.4, 0.2, 0.1];

/// Errors are printed with `Display` (`{e}`), the sentence that says what went wrong: a
/// `main` that returns `Result` would print their `Debug` form instead.
fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{{name}}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // BANKWISE_EMULATOR=1 runs it on the CPU emulator; on a GPU, Device::new(0), whose error
    // says what is missing on a machine without one.
    let dev = Device::from_env(0)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let report = args.iter().any(|a| a == "--report");
    let n = match args.iter().find(|a| *a != "--report") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("N must be a whole number, got {n:?}"))?,
        None if dev.is_emulator() => 100_003,
        None => (1 << 24) + 3,
    };
    let reports = convolve_and_check(&dev, n)?;
    println!("{{name}}: conv1d of {n} elements, every one within rounding of the CPU's");
    if report {
        // Each access site in a line (wavefronts or sectors per request), then the costliest
        // shared request's bank map; `launch.report.draw(false)` draws every site in full.
        print!("{}", LaunchReport::draw_compact(&reports, false));
    }
    Ok(())
}

/// Convolves `n` elements with [`WEIGHTS`] on `dev`, checks every one against [`reference`],
/// and returns the emulator's report of the launch (none on a GPU).
fn convolve_and_check(
    dev: &Device,
    n: usize,
) -> Result<Vec<LaunchReport>, Box<dyn std::error::Error>> {
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES))?;
    // Typed: the compiler checks the launch's arguments against the kernel's parameters.
    let kernel = module.kernel(conv1d)?;
    let x: Vec<f32> = (0..n)
        .map(|i| (i * 7919 % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let (x_dev, w_dev) = (dev.upload(&x)?, dev.upload(&WEIGHTS)?);
    let mut y_dev = dev.alloc_zeros::<f32>(n)?;
    dev.fill_bytes(&mut y_dev, 0xFF)?; // NaN everywhere: an element not written cannot pass
    // One thread per element, in blocks of the BLOCK threads the kernel's tile is sized for. Its
    // declared shared memory comes with every launch; `.with_shared_bytes(b)` would add `b`
    // dynamic bytes per block for a kernel that sizes a tile at run time.
    let config = LaunchConfig::for_elements(n as u64, BLOCK);
    // Safety: conv1d(y, x, w, n) reads x[..n] and w[..TAPS] and writes y[..n], in blocks of BLOCK.
    unsafe { kernel.launch(dev.stream(), config, (&mut y_dev, &x_dev, &w_dev, n as u64))? };
    // On the emulator a race fails the launch above (`Error::Race`, naming both sites and
    // threads), even where the answer comes out right by chance. What the launch did: each
    // shared and global access site with its wavefronts or sectors per request.
    let reports = dev.take_emulator_reports();
    let (want, bound) = reference(&x);
    verify::within(&dev.download(&y_dev)?, &want, |i| bound[i])?.check()?;
    Ok(reports)
}

/// The CPU's convolution, summed in the kernel's order, and for each element a bound on how far
/// a GPU's result may differ (one rounding per multiply and add, or a fused multiply-add).
fn reference(x: &[f32]) -> (Vec<f32>, Vec<f64>) {
    let at = |j: usize| x.get(j.wrapping_sub(RADIUS)).copied().unwrap_or(0.0);
    (0..x.len())
        .map(|i| {
            let (mut sum, mut magnitude) = (0.0f32, 0.0f64);
            for (k, w) in WEIGHTS.iter().enumerate() {
                sum += w * at(i + k);
                magnitude += f64::from((w * at(i + k)).abs());
            }
            (sum, 2.0 * TAPS as f64 * f64::from(f32::EPSILON) * magnitude)
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::{Device, ENTRIES, convolve_and_check};

    #[test]
    fn convolves_correctly_without_a_race_on_the_emulator() {
        let dev = Device::emulator();
        // One block, a partial block, whole blocks and a partial last block: each edge of the
        // halo, at both ends of `x` and between blocks.
        for n in [1, 3, 255, 256, 257, 1000] {
            let reports = convolve_and_check(&dev, n).unwrap_or_else(|e| panic!("n = {n}: {e}"));
            assert_eq!(reports.len(), 1, "the emulator reports each launch");
        }
    }

    #[test]
    fn the_kernel_declares_its_tile() {
        // 260 floats: 256 elements and a halo of 2 on each side.
        assert_eq!(ENTRIES, "conv1d(ptr, ptr, ptr, u64) shared 1040\n");
    }
}
