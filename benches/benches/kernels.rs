//! Criterion benchmarks of the kernels, timed on the GPU with CUDA events (`iter_custom`), with
//! throughput in bytes moved (read + written), beside the driver's copy and cuBLAS's `geam`
//! transpose of the same shapes. Without a GPU they print why and do nothing.
//!
//! `cargo bench -p bankwise-benches` (or `./run.sh criterion` from a bundle).

use std::time::Duration;

use bankwise::timing::{Timer, rotation, spin_wait};
use bankwise::{DeviceBuffer, Element, Gpu, Shape, TransposeKernel};
use bankwise_benches::cublas::{self, Geam};
use criterion::{BenchmarkId, Criterion, Throughput};
use rand::{RngCore, SeedableRng, rngs::SmallRng};

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
    c.final_summary();
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
        b.iter_custom(|iters| {
            // Queued behind a hold, the first launch's latency stays out of the timing.
            spin_wait(gpu, Duration::from_millis(1)).expect("spin_wait");
            let ms = timer
                .time(|| -> anyhow::Result<()> {
                    for i in 0..iters as usize {
                        op(gpu, &srcs[i % sets], &mut dsts[i % sets])?;
                    }
                    Ok(())
                })
                .expect("timed launches");
            Duration::from_secs_f64(ms * 1e-3)
        })
    });
    group.finish();
}
