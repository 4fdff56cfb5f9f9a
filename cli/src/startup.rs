//! `bankwise startup`: how long `Gpu::new()` takes in this process, the cold start a program
//! pays before its first kernel.
//!
//! Run it in a fresh process each time (the driver is initialised once per process), with
//! `CUDA_CACHE_DISABLE=1` for a truly cold start: the driver's JIT cache would otherwise hand
//! back PTX compiled by an earlier run.

use std::time::Instant;

use anyhow::Result;
use bankwise::runtime::Device;
use bankwise::{Gpu, LoadedImage};

/// Arguments of `bankwise startup`.
#[derive(clap::Args)]
pub struct Args {
    /// Open the context first and time the module load apart from it.
    #[arg(long)]
    split: bool,
}

/// Times `Gpu::new()` (or, with `--split`, the driver and context, then the module) and prints
/// one line.
pub fn run(args: &Args) -> Result<()> {
    let cache = match std::env::var("CUDA_CACHE_DISABLE").as_deref() {
        Ok("1") => "JIT cache disabled",
        _ => "JIT cache enabled",
    };
    let started = Instant::now();
    // With --split the context is made (and kept) first, so `Gpu::new` only loads the module.
    let context = if args.split { Some(Device::new(0)?) } else { None };
    let context_ms = started.elapsed().as_secs_f64() * 1e3;
    let gpu = Gpu::new()?;
    let total_ms = started.elapsed().as_secs_f64() * 1e3;
    let loaded = match gpu.loaded_image() {
        LoadedImage::Sass(arch) => format!("{arch} SASS"),
        LoadedImage::Ptx => "PTX, JIT-compiled".into(),
        LoadedImage::Emulator => "the emulator's host forms".into(),
    };
    let name = &gpu.info().name;
    if context.is_some() {
        println!(
            "startup: driver + context {context_ms:.0} ms, then module ({loaded}) {:.0} ms; {name}, {cache}",
            total_ms - context_ms
        );
    } else {
        println!("startup: Gpu::new() {total_ms:.0} ms ({loaded}); {name}, {cache}");
    }
    Ok(())
}
