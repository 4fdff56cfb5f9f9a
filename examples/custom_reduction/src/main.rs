//! `custom_reduction`: argmax (the largest element and its index) as a reduction of your own.
//! The operation is defined in `kernels/src/lib.rs` and reduced with bankwise's
//! `block::reduce`; this program launches it in two passes (one partial per block, then the
//! partials in one block) and checks the answer against the CPU.
//!
//! `cargo run -p custom-reduction [N]` (default: sizes from 1 to 2^24 + 7, with ties and NaN),
//! or with `BANKWISE_EMULATOR=1` on the CPU emulator (default: up to 10^5 + 3).

use std::process::ExitCode;

use custom_reduction_kernels as kernels; // the kernels' host form: their typed entries

use bankwise_runtime::{Device, DeviceBuffer, DeviceSliceMut, LaunchConfig, ModuleImage};
use bankwise_runtime::{DeviceRepr, ValidAsZeroBits};
use rand::{Rng, SeedableRng};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/custom-reduction-kernels.ptx"));
const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/custom-reduction-kernels.entries"));

/// Threads per block: `kernels::THREADS`.
const THREADS: u32 = kernels::THREADS;
/// Blocks per SM of the first pass: enough loads in flight to fill the memory system.
const BLOCKS_PER_SM: u32 = 8;

/// The kernels' `Candidate`, as the host allocates and reads it: the same `#[repr(C)]` layout.
/// A separate type because the driver's buffers need `DeviceRepr`, a trait the kernel crate
/// cannot implement; the typed launch catches the difference (a buffer of this type does not
/// fit a `*mut kernels::Candidate` parameter), and [`kernel_view`] states the two are one
/// layout.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Candidate {
    value: f32,
    index: u32,
}
// SAFETY: plain `#[repr(C)]` data (an `f32` and a `u32`, no padding) of the layout the kernels
// read and write, so the driver may copy its bytes.
unsafe impl DeviceRepr for Candidate {}
// SAFETY: all zeros is a valid `f32` and a valid `u32`.
unsafe impl ValidAsZeroBits for Candidate {}

/// `buf` seen as the kernels' `Candidate`s, for a launch.
fn kernel_view(buf: &mut DeviceBuffer<Candidate>) -> DeviceSliceMut<'_, kernels::Candidate> {
    const { assert!(size_of::<Candidate>() == size_of::<kernels::Candidate>()) };
    // SAFETY: both types are `#[repr(C)] { f32, u32 }`: same size, alignment and fields, and
    // every bit pattern is valid for each.
    unsafe { buf.as_slice_mut().cast() }.expect("one size and alignment")
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("custom_reduction: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The CPU reference: the first index of the largest value, NaN above every number.
fn argmax(x: &[f32]) -> Option<Candidate> {
    let mut best: Option<(usize, f32)> = None;
    for (i, &v) in x.iter().enumerate() {
        let better = match best {
            None => true,
            Some((_, b)) => !b.is_nan() && (v.is_nan() || v > b),
        };
        if better {
            best = Some((i, v));
        }
    }
    best.map(|(i, v)| Candidate { value: v, index: i as u32 })
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // BANKWISE_EMULATOR=1 runs it on the CPU emulator; on a GPU, Device::new(0), whose error
    // says what is missing on a machine without one.
    let dev = Device::from_env(0)?;
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().map_err(|_| format!("N must be a whole number, got {n:?}"))?],
        None if dev.is_emulator() => vec![1, 2, 31, 257, 1000, 100_003],
        None => vec![1, 2, 31, 257, 1000, 65_537, (1 << 24) + 7],
    };
    argmax_and_check(&dev, &sizes)
}

/// Finds the argmax of random data of each size on `dev`, in two passes, and checks it
/// against the CPU's, bit for bit.
fn argmax_and_check(dev: &Device, sizes: &[usize]) -> Result<(), Box<dyn std::error::Error>> {
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES))?;
    let (blocks_pass, partials_pass) =
        (module.kernel(kernels::argmax_blocks)?, module.kernel(kernels::argmax_partials)?);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    for &n in sizes {
        if n == 0 || n > u32::MAX as usize {
            return Err(format!("N must be between 1 and 2^32 (the index is 32 bits), got {n}").into());
        }
        // Small integers, so that the largest value is often tied: the first index must win.
        let mut x: Vec<f32> = (0..n).map(|_| rng.random_range(-1000..1000) as f32).collect();
        for (case, data) in [
            ("", x.clone()),
            (" with a NaN", {
                x[n / 2] = f32::NAN;
                x.clone()
            }),
        ] {
            let src = dev.upload(&data)?;
            let blocks =
                (n as u64).div_ceil(THREADS as u64).min((BLOCKS_PER_SM * dev.info().multiprocessors) as u64) as u32;
            let mut partials = dev.alloc_zeros::<Candidate>(blocks as usize)?;
            let mut result = dev.alloc_zeros::<Candidate>(1)?;
            dev.fill_bytes(&mut partials, 0xFF)?;
            dev.fill_bytes(&mut result, 0xFF)?;
            // Each kernel declares its slot per warp of shared memory: the launches give it.
            let (first, second) = (LaunchConfig::linear(blocks, THREADS), LaunchConfig::linear(1, THREADS));
            // Safety: argmax_blocks(partials, src, n) reads src[..n] and writes one partial per
            // block; argmax_partials(result, partials, count) reads `blocks` partials and
            // writes one. Blocks of THREADS threads with a slot per warp of shared memory.
            unsafe {
                blocks_pass.launch(dev.stream(), first, (kernel_view(&mut partials), &src, n as u64))?;
                let partials = kernel_view(&mut partials);
                partials_pass.launch(dev.stream(), second, (kernel_view(&mut result), &partials, blocks))?;
            }
            let got = dev.download(&result)?[0];
            let want = argmax(&data).expect("n ≥ 1");
            // Compare bit for bit (NaN included): the GPU must pick the very element the CPU did.
            if got.index != want.index || got.value.to_bits() != want.value.to_bits() {
                return Err(format!("n = {n}{case}: the GPU found {got:?}, the CPU {want:?}").into());
            }
            println!("custom_reduction: argmax of {n} elements{case}: {} at {}, as on the CPU", got.value, got.index);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Device, ENTRIES, PTX, argmax_and_check};

    #[test]
    fn finds_the_first_largest_on_the_emulator() {
        argmax_and_check(&Device::emulator(), &[1, 2, 31, 257, 1000, 9001]).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn both_passes_reduce_warps_by_shuffles_and_the_block_through_shared_memory() {
        // Each records the 64 bytes of shared memory it declares (a candidate per warp).
        assert_eq!(ENTRIES, "argmax_blocks(ptr, ptr, u64) shared 64\nargmax_partials(ptr, ptr, u32) shared 64\n");
        let kernels = bankwise::tools::inspect(PTX, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kernels.len(), 2);
        for k in &kernels {
            assert_eq!((k.resources.stack_bytes, k.resources.spill_stores), (0, 0), "{:?}", k.resources);
            // The candidate is 8 bytes: two 32-bit shuffles per step, five steps per warp reduce.
            assert!(k.sass.matches("SHFL.DOWN").count() >= 10, "{} shuffles:\n{}", k.resources.name, k.sass);
            for instruction in ["STS.64", "LDS.64", "BAR.SYNC"] {
                assert!(k.sass.contains(instruction), "{} has no {instruction}:\n{}", k.resources.name, k.sass);
            }
        }
    }
}
