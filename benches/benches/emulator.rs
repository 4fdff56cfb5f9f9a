//! Criterion benchmarks of the CPU emulator (no GPU needed): wall time of one whole emulated
//! launch sequence, data on the host, for the speed goals (a 256 × 256 f32
//! `transpose_tiled` and a 2^16-element `reduce`, each under 2 s on a 2-core machine) and a
//! few more of the ladders' rungs.
//!
//! `cargo bench -p bankwise-benches --bench emulator`.

use std::time::Duration;

use bankwise::{Gpu, ReduceKernel, Shape, Sum, TransposeKernel};
use criterion::{BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng, rngs::SmallRng};

fn main() {
    let gpu = Gpu::emulator().expect("the emulator needs no GPU");
    // Each sample is one launch of 0.1–1 s: few samples, no long warm-up.
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    let mut rng = SmallRng::seed_from_u64(5);

    let shape = Shape::new(256, 256);
    let data: Vec<f32> = (0..shape.rows * shape.cols).map(|_| rng.random()).collect();
    let src = gpu.upload(&data).expect("host memory");
    let mut dst = gpu.alloc_zeros::<f32>(data.len()).expect("host memory");
    let mut group = c.benchmark_group("emulator/transpose_f32");
    group.throughput(Throughput::Elements(data.len() as u64));
    for kernel in [TransposeKernel::Naive, TransposeKernel::Tiled, TransposeKernel::Padded, TransposeKernel::Tuned] {
        group.bench_function(BenchmarkId::new(kernel.name(), shape), |b| {
            b.iter(|| gpu.transpose_with(kernel, &src, &mut dst, shape).expect("emulated transpose"));
            gpu.take_emulator_reports();
        });
    }
    group.finish();

    let n = 1 << 16;
    let data: Vec<f32> = (0..n).map(|_| rng.random()).collect();
    let src = gpu.upload(&data).expect("host memory");
    let mut group = c.benchmark_group("emulator/reduce_sum_f32");
    group.throughput(Throughput::Elements(n as u64));
    for kernel in
        [ReduceKernel::InterleavedDivergent, ReduceKernel::Sequential, ReduceKernel::Shuffle, ReduceKernel::Tuned]
    {
        group.bench_function(BenchmarkId::new(kernel.name(), n), |b| {
            b.iter(|| gpu.reduce_with(kernel, Sum, &src, ..).expect("emulated reduction"));
            gpu.take_emulator_reports();
        });
    }
    group.finish();
    c.final_summary();
}
