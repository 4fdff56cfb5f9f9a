//! `bankwise`: the command-line face of the library.
//!
//! - `bankwise bench [SUITE…]` times the kernels on the GPU and prints a table (the main job;
//!   `cargo xtask bench` runs it).
//! - `bankwise ptx` assembles the embedded PTX with ptxas and prints each kernel's registers,
//!   shared memory, stack and spills (`cargo xtask ptx`).
//! - `bankwise banks` draws the bank map of one shared-memory access from the model (no GPU).
//! - `bankwise probe` measures the probe patterns on the GPU beside the model's predictions.
//! - `bankwise startup` times `Gpu::new()`: the cold start before the first kernel.

mod banks;
mod bench;
mod emulate;
mod ncu;
mod probe;
mod ptx;
mod startup;
mod tune;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "bankwise", version, about = "Fast, explained shared-memory GPU kernels in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Time the kernels on the GPU: median of many runs with CUDA events, bandwidth, and the
    /// fraction of the device-to-device copy bandwidth measured in the same run.
    Bench(bench::Args),
    /// Assemble the PTX with ptxas (sm_70 and sm_90) and print each kernel's resources.
    Ptx(ptx::Args),
    /// Draw which bank each lane of one warp-wide shared-memory access hits, and the cost.
    Banks(banks::Args),
    /// Measure every bank-conflict probe pattern on the GPU beside the model's prediction.
    Probe(probe::Args),
    /// Time `Gpu::new()` in this process (run with CUDA_CACHE_DISABLE=1 for a cold start).
    Startup(startup::Args),
    /// Run one kernel on the CPU emulator (no GPU needed): check it, and print each
    /// shared-memory access site's requests, wavefronts per request, and any race.
    Emulate(emulate::Args),
    /// Sweep the copy's, transpose's and reductions' launch choices on this GPU and write its
    /// tuning table (JSON), which BANKWISE_TUNING=FILE makes the library plan with.
    Tune(tune::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Bench(args) => bench::run(&args),
        Command::Ptx(args) => ptx::run(&args),
        Command::Banks(args) => banks::run(&args),
        Command::Probe(args) => probe::run(&args),
        Command::Startup(args) => startup::run(&args),
        Command::Emulate(args) => emulate::run(&args),
        Command::Tune(args) => tune::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
