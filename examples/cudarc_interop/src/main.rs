//! `cudarc-interop`: bankwise on memory and a stream that cudarc alone made, as a program
//! built on candle or burn holds them. cudarc allocates a `(B, N, D)` tensor on a stream of its
//! own; bankwise permutes it to `(B, D, N)` and sums it over `N` on that stream, reading and
//! writing cudarc's slices in place, and sums all of it through a raw device pointer; cudarc
//! reads the results back. Nothing is copied into bankwise's buffers, and bankwise waits for
//! nothing: the host waits once, where cudarc reads back.
//!
//! `cargo run --release -p cudarc-interop [B N D | N]` (default (8, 4096, 96); `N` alone is
//! (2, N, 3)). A GPU only: cudarc has no CPU emulator.

use std::process::ExitCode;
use std::sync::Arc;

use bankwise::reduce::Sum;
use bankwise::{DeviceSlice, Gpu, Stream};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use rand::{Rng, SeedableRng};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cudarc-interop: {e}");
            ExitCode::FAILURE
        }
    }
}

type Failure = Box<dyn std::error::Error>;

fn run() -> Result<(), Failure> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().map_err(|_| format!("B, N and D must be whole numbers, got {a:?}")))
        .collect::<Result<_, _>>()?;
    let [b, n, d] = match args[..] {
        [] => [8, 4096, 96],
        [n] => [2, n, 3],
        [b, n, d] => [b, n, d],
        _ => return Err("give B N D, N alone for (2, N, 3), or nothing for (8, 4096, 96)".into()),
    };
    // cudarc panics on its first call without a driver: ask first, for a clear message.
    bankwise::runtime::driver_present()?;

    // The caller's side: cudarc alone, a context and a stream of its own.
    let ctx = CudaContext::new(0)?;
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(32);
    let host: Vec<f32> = (0..b * n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let x: CudaSlice<f32> = stream.clone_htod(&host)?;
    let mut xt: CudaSlice<f32> = stream.alloc_zeros(host.len())?;
    let mut sums: CudaSlice<f32> = stream.alloc_zeros(b * d)?;
    let mut total: CudaSlice<f32> = stream.alloc_zeros(1)?;

    // bankwise's side: its kernels, queued on the caller's stream.
    let gpu = Gpu::with_ordinal(ctx.ordinal())?.with_stream(&Stream::from_cuda(stream.clone()))?;
    gpu.permute(&x, &mut xt, &[b, n, d], &[0, 2, 1])?; // (B, N, D) → (B, D, N)
    gpu.reduce_axes(Sum, &xt, &[b, d, n], &[2], &mut sums)?; // over N: (B, D)
    // Any library's device pointer: a checked view (the driver vouches for the address).
    let (ptr, _record) = x.device_ptr(&stream);
    // SAFETY: `x` holds b·n·d floats, stays allocated until after the stream's work (it is
    // dropped at the end of `run`, after the read-back below), and nothing writes it meanwhile.
    let raw = unsafe { DeviceSlice::<f32>::from_raw(&gpu, ptr, host.len())? };
    let mut scratch = gpu.reduce_scratch::<f32>(bankwise::ReduceKernel::Tuned, host.len())?;
    gpu.reduce_into(bankwise::ReduceKernel::Tuned, Sum, &raw, .., &mut total, &mut scratch)?;

    // Back on the caller's side: cudarc reads the results (the one wait).
    let transposed = stream.clone_dtoh(&xt)?;
    let sums = stream.clone_dtoh(&sums)?;
    let total = stream.clone_dtoh(&total)?[0];

    // Checks: the permutation exactly; the sums within n·ε·Σ|x| of float64 sums (a sum of n
    // floats in any order rounds at most n − 1 times, each by at most ε/2 of a partial sum).
    for (i, (&got, want)) in transposed.iter().zip(permuted(&host, b, n, d)).enumerate() {
        if got.to_bits() != want.to_bits() {
            return Err(format!("the permutation differs at element {i}: {got} ≠ {want}").into());
        }
    }
    for (o, &got) in sums.iter().enumerate() {
        let (batch, col) = (o / d, o % d);
        let column = (0..n).map(|r| f64::from(host[(batch * n + r) * d + col]));
        let (want, bound) = column.fold((0.0, 0.0), |(s, a), v| (s + v, a + v.abs()));
        check(&format!("sum {o}"), got, want, n as f64 * f64::from(f32::EPSILON) * bound)?;
    }
    let (want, bound) = host.iter().map(|&v| f64::from(v)).fold((0.0, 0.0), |(s, a), v| (s + v, a + v.abs()));
    check("the total", total, want, host.len() as f64 * f64::from(f32::EPSILON) * bound)?;
    println!(
        "({b}, {n}, {d}) f32 on {}: permuted to (B, D, N), summed over N and in all ({total:.3}), on cudarc's \
         memory and stream: every value right",
        gpu.info().name
    );
    Ok(())
}

/// `host`, a `(b, n, d)` tensor, as `(b, d, n)`.
fn permuted(host: &[f32], b: usize, n: usize, d: usize) -> impl Iterator<Item = f32> + '_ {
    (0..b).flat_map(move |i| (0..d).flat_map(move |k| (0..n).map(move |j| host[(i * n + j) * d + k])))
}

fn check(what: &str, got: f32, want: f64, bound: f64) -> Result<(), Failure> {
    if (f64::from(got) - want).abs() <= bound {
        Ok(())
    } else {
        Err(format!("{what} is {got}, want {want} within {bound:.3e}").into())
    }
}
