//! Criterion benchmarks of the kernels, timed on the GPU with CUDA events (`iter_custom`): the
//! copies and transposes with throughput in bytes moved (read + written), beside the driver's
//! copy and cuBLAS's `geam` transpose of the same shapes; the tuned matrix multiply with
//! throughput in floating-point operations (criterion's "elements", `2·m·n·k`), beside cuBLAS's
//! `gemm`. Without a GPU they print why and do nothing.
//!
//! `cargo bench -p bankwise-benches` (or `./run.sh criterion` from a bundle).

use std::time::Duration;

use bankwise::matmul::{Float, MatmulKernel, MatmulShape};
use bankwise::timing::{Timer, rotation, spin_wait};
use bankwise::{DeviceBuffer, Element, Gpu, Shape, TransposeKernel};
use bankwise_benches::cublas::{self, Geam, Gemm};
use criterion::{BenchmarkId, Criterion, Throughput};
use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

fn main() {
    let gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("criterion benchmarks skipped: {e}");
            return;
        }
    };
    let mut c = Criterion::default().configure_from_args().sample_size(20).warm_up_time(Duration::from_millis(500));
    let blas = cublas::open(&gpu);
    // The shapes of `bankwise bench transpose`: squares and an odd one next to 8192².
    let shapes = [(1024, 1024), (4096, 4096), (8192, 8192), (16384, 16384), (8191, 8193)];
    for (rows, cols) in shapes {
        let shape = Shape::new(rows, cols);
        bench::<f32>(&mut c, &gpu, "copy_bytes", shape, |g, s, d| Ok(g.copy(s, d)?));
        bench::<f32>(&mut c, &gpu, "cuMemcpyDtoD", shape, |g, s, d| Ok(g.copy_driver(s, d)?));
        for kernel in TransposeKernel::ALL {
            bench::<f32>(&mut c, &gpu, kernel.name(), shape, move |g, s, d| Ok(g.transpose_with(kernel, s, d, shape)?));
            bench::<f64>(&mut c, &gpu, kernel.name(), shape, move |g, s, d| Ok(g.transpose_with(kernel, s, d, shape)?));
        }
        if let Some(blas) = &blas {
            bench::<f32>(&mut c, &gpu, "cublas_geam", shape, |g, s, d| f32::geam(blas, g, s, d, shape));
            bench::<f64>(&mut c, &gpu, "cublas_geam", shape, |g, s, d| f64::geam(blas, g, s, d, shape));
        }
    }
    for n in [1024, 2048, 4096] {
        let shape = MatmulShape::new(n, n, n);
        bench_matmul::<f32>(&mut c, &gpu, "matmul_tuned", shape, &|g, a, b, c| {
            Ok(g.matmul_with(MatmulKernel::Tuned, 1.0, a, b, 0.0, c, shape)?)
        });
        bench_matmul::<f64>(&mut c, &gpu, "matmul_tuned", shape, &|g, a, b, c| {
            Ok(g.matmul_with(MatmulKernel::Tuned, 1.0, a, b, 0.0, c, shape)?)
        });
        if let Some(blas) = &blas {
            bench_matmul::<f32>(&mut c, &gpu, "cublas_gemm", shape, &|_, a, b, c| {
                f32::gemm(blas, 1.0, a, b, 0.0, c, shape)
            });
            bench_matmul::<f64>(&mut c, &gpu, "cublas_gemm", shape, &|_, a, b, c| {
                f64::gemm(blas, 1.0, a, b, 0.0, c, shape)
            });
        }
    }
    c.final_summary();
}

/// Launches queued back to back between two CUDA events, after a 1 ms hold so that the first
/// launch's latency stays out of the timing.
fn timed(gpu: &Gpu, timer: &Timer, iters: u64, mut op: impl FnMut(usize) -> anyhow::Result<()>) -> Duration {
    spin_wait(gpu, Duration::from_millis(1)).expect("spin_wait");
    let ms = timer
        .time(|| -> anyhow::Result<()> {
            for i in 0..iters as usize {
                op(i)?;
            }
            Ok(())
        })
        .expect("timed launches");
    Duration::from_secs_f64(ms * 1e-3)
}

/// A matrix multiply of `C` from `A` and `B`, as timed.
type MatmulOp<'a, T> =
    dyn Fn(&Gpu, &DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> anyhow::Result<()> + 'a;

/// `C = A·B` of packed `shape` by `op`, random operands in [−1, 1), rotated through enough
/// sets to exceed the L2 cache.
fn bench_matmul<T: Float>(c: &mut Criterion, gpu: &Gpu, name: &str, shape: MatmulShape, op: &MatmulOp<'_, T>) {
    let (m, n, k) = (shape.m, shape.n, shape.k);
    let buffers = || {
        let sets = rotation(gpu.info().l2_bytes, (m * k + k * n + m * n) * size_of::<T>());
        let mut rng = SmallRng::seed_from_u64(2);
        let mut random = |len: usize| {
            let host: Vec<T> = (0..len).map(|_| T::from_f64(rng.random_range(-1.0..1.0))).collect();
            gpu.upload(&host).expect("upload")
        };
        (0..sets)
            .map(|_| (random(m * k), random(k * n), gpu.alloc_zeros::<T>(m * n).expect("alloc")))
            .collect::<Vec<_>>()
    };
    let mut state = None;
    let timer = Timer::new(gpu).expect("events");
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(2 * (m * n * k) as u64));
    group.bench_function(BenchmarkId::new(std::any::type_name::<T>(), shape), |b| {
        let sets = state.get_or_insert_with(buffers);
        let count = sets.len();
        b.iter_custom(|iters| {
            timed(gpu, &timer, iters, |i| {
                let (a, b, c) = &mut sets[i % count];
                op(gpu, a, b, c)
            })
        })
    });
    group.finish();
}

fn bench<T: Element>(
    c: &mut Criterion,
    gpu: &Gpu,
    name: &str,
    shape: Shape,
    op: impl Fn(&Gpu, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> anyhow::Result<()>,
) {
    let n = shape.elements().expect("valid shape");
    let bytes = n * size_of::<T>();
    // Made on first use, so that benchmarks a filter leaves out allocate nothing.
    let buffers = || {
        // SAFETY: Element types are plain integers and floats (`ValidAsZeroBits`): all zeros is
        // a valid value.
        let mut host: Vec<T> = vec![unsafe { std::mem::zeroed() }; n];
        // Safety: Element types are plain integers and floats; any bit pattern is valid.
        let raw = unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr().cast(), bytes) };
        SmallRng::seed_from_u64(1).fill_bytes(raw);
        let sets = rotation(gpu.info().l2_bytes, 2 * bytes);
        let srcs: Vec<_> = (0..sets).map(|_| gpu.upload(&host).expect("upload")).collect();
        let dsts: Vec<_> = (0..sets).map(|_| gpu.alloc_zeros::<T>(n).expect("alloc")).collect();
        (srcs, dsts)
    };
    let mut state = None;
    let timer = Timer::new(gpu).expect("events");
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(2 * bytes as u64));
    group.bench_function(BenchmarkId::new(std::any::type_name::<T>(), shape), |b| {
        let (srcs, dsts) = state.get_or_insert_with(buffers);
        let sets = srcs.len();
        b.iter_custom(|iters| timed(gpu, &timer, iters, |i| op(gpu, &srcs[i % sets], &mut dsts[i % sets])))
    });
    group.finish();
}
