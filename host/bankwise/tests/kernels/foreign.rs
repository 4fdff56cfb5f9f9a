//! Memory bankwise did not allocate, and streams it did not make: views that start off 16
//! bytes (every launcher plans for their alignment), raw device pointers, memory of another
//! device refused with a typed error, launches on another stream; on a GPU, cudarc's own slices
//! and streams, the ordering of work across streams, launchers that wait for nothing, and every
//! GPU of the host at once.

use std::sync::Arc;

use bankwise::reduce::Sum;
use bankwise::runtime::Error as RuntimeError;
use bankwise::runtime::cudarc::driver::{CudaContext, CudaSlice};
use bankwise::{
    DeviceBuffer, DeviceSlice, DeviceSliceMut, Element, Error, Float, Gpu, MatmulKernel, MatmulShape, Op, ReduceKernel,
    Shape, Stream, TransposeKernel, cpu,
};
use libtest_mimic::Trial;

use super::{AddTrial, Check, POISON, Target, compare, random};

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    add("foreign/views_off_16_bytes/permute".into(), Box::new(views_off_16_bytes_permute));
    add("foreign/views_off_16_bytes/transpose_copy_reduce".into(), Box::new(views_off_16_bytes_others));
    add("foreign/views_off_16_bytes/matmul".into(), Box::new(views_off_16_bytes_matmul));
    add("foreign/raw_pointers".into(), Box::new(raw_pointers));
    add("foreign/memory_of_another_device_is_refused".into(), Box::new(another_device_is_refused));
    add("foreign/launches_on_another_stream".into(), Box::new(launches_on_another_stream));
    if target == Target::Gpu {
        add("foreign/cudarc_slices_on_the_callers_stream".into(), Box::new(cudarc_on_the_callers_stream));
        add("foreign/cudarc_slices_of_another_stream_are_ordered".into(), Box::new(cudarc_of_another_stream));
        add("foreign/launchers_wait_for_nothing".into(), Box::new(launchers_wait_for_nothing));
    }
}

/// Whether a result is `Runtime(WrongDevice)` naming `what`.
fn wrong_device<T: std::fmt::Debug>(r: bankwise::Result<T>, what: &str) -> Check {
    match r {
        Err(Error::Runtime(RuntimeError::WrongDevice { what: w, memory, device })) if w.contains(what) => {
            if memory == device {
                return Err(format!("{what}: WrongDevice names one device twice ({memory})").into());
            }
            Ok(())
        }
        other => Err(format!("{what}: want WrongDevice, got {other:?}").into()),
    }
}

/// `n` elements of a `len`-element buffer poisoned everywhere, as views starting `offset`
/// elements in; after the work, the bytes outside the view must still be poison.
fn untouched<T: Element>(gpu: &Gpu, buf: &DeviceBuffer<T>, view: std::ops::Range<usize>, what: &str) -> Check {
    let all = gpu.download(buf)?;
    let size = size_of::<T>();
    // SAFETY: Element types are plain numbers: their bytes are initialised.
    let bytes = unsafe { std::slice::from_raw_parts(all.as_ptr().cast::<u8>(), all.len() * size) };
    for (i, x) in bytes.chunks_exact(size).enumerate().filter(|(i, _)| !view.contains(i)) {
        if x.iter().any(|&b| b != POISON) {
            return Err(format!("{what}: element {i} outside the view {view:?} was written").into());
        }
    }
    Ok(())
}

/// An element whose bytes are all [`POISON`].
fn poison<T: Element>() -> T {
    // SAFETY: Element types are plain numbers: any bit pattern is one.
    unsafe { std::mem::transmute_copy(&[POISON; 16]) }
}

/// Permutations whose plans form wider words, vectors and tiles for aligned tensors, run on
/// views 1 to 3 elements past 16 bytes (source and destination apart): each is planned again
/// for its alignment and matches the CPU bit for bit, and nothing outside the view changes.
fn views_off_16_bytes_permute(gpu: &Gpu) -> Check {
    fn one<T: Element>(gpu: &Gpu, dims: &[usize], perm: &[usize], offsets: (usize, usize)) -> Check {
        let n: usize = dims.iter().product();
        let host: Vec<T> = random(n, n as u64 ^ 0x0ff5);
        let want = cpu::permute(&host, dims, perm)?;
        let (a, b) = offsets;
        let mut padded = vec![poison::<T>(); n + 4];
        padded[a..a + n].copy_from_slice(&host);
        let src = gpu.upload(&padded)?;
        let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(n + 4)?;
        gpu.fill_bytes(&mut dst, POISON)?;
        {
            let from = src.slice(a..a + n)?;
            let mut to = dst.slice_mut(b..b + n)?;
            gpu.permute(&from, &mut to, dims, perm)?;
        }
        let what = format!("{dims:?} by {perm:?} of {}, views at +{a}, +{b}", std::any::type_name::<T>());
        compare(&what, &gpu.download(&dst)?[b..b + n], &want)?;
        untouched(gpu, &dst, b..b + n, &what)
    }
    // A tuned transpose, vectorized tiles, runs of 2, 4 and 8 bytes that widen, rows gathered
    // by 16-byte vectors, flat tiles, a copy.
    const CASES: &[(&[usize], &[usize])] = &[
        (&[96, 80], &[1, 0]),
        (&[64, 3, 64], &[2, 1, 0]),
        (&[8, 33, 2], &[1, 0, 2]),
        (&[5, 7, 4], &[1, 0, 2]),
        (&[4, 6, 16], &[1, 0, 2]),
        (&[9, 11, 3], &[2, 0, 1]),
        (&[300], &[0]),
    ];
    for &(dims, perm) in CASES {
        for offsets in [(1, 0), (0, 3), (2, 1), (3, 2)] {
            one::<f32>(gpu, dims, perm, offsets)?;
            one::<u8>(gpu, dims, perm, offsets)?;
            one::<bankwise::half::f16>(gpu, dims, perm, offsets)?;
            one::<f64>(gpu, dims, perm, offsets)?;
        }
    }
    Ok(())
}

/// The tuned transpose, the copy, the whole-range reduction and the reduction along axes, on
/// views off 16 bytes: exact (integers) and nothing outside the view written.
fn views_off_16_bytes_others(gpu: &Gpu) -> Check {
    let (rows, cols) = (67, 96);
    let n = rows * cols;
    let host: Vec<u32> = random(n, 0x000f_f5e7);
    let src = gpu.upload(&[vec![0u32; 3], host.clone()].concat())?;
    let from = src.slice(3..3 + n)?;
    let mut dst = gpu.alloc_zeros::<u32>(n + 1)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.transpose_with(TransposeKernel::Tuned, &from, &mut dst.slice_mut(1..1 + n)?, Shape::new(rows, cols))?;
    compare("transpose at +3, +1", &gpu.download(&dst)?[1..], &cpu::transpose(&host, Shape::new(rows, cols))?)?;
    untouched(gpu, &dst, 1..1 + n, "transpose")?;

    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.copy(&from, &mut dst.slice_mut(1..1 + n)?)?;
    compare("copy at +3, +1", &gpu.download(&dst)?[1..], &host)?;
    untouched(gpu, &dst, 1..1 + n, "copy")?;

    for start in 0..4 {
        let view = src.slice(3 + start..3 + n)?;
        let got = gpu.reduce(Sum, &view)?;
        let want = host[start..].iter().fold(0u32, |a, &x| a.wrapping_add(x));
        if got != want {
            return Err(format!("reduce of a view at +{}: got {got}, want {want}", 3 + start).into());
        }
    }

    let mut sums = gpu.alloc_zeros::<u32>(cols + 1)?;
    gpu.fill_bytes(&mut sums, POISON)?;
    gpu.reduce_axes(Sum, &from, &[rows, cols], &[0], &mut sums.slice_mut(1..)?)?;
    let want: Vec<u32> = (0..cols).map(|c| (0..rows).fold(0u32, |a, r| a.wrapping_add(host[r * cols + c]))).collect();
    compare("column sums of a view at +3", &gpu.download(&sums)?[1..], &want)?;
    untouched(gpu, &sums, 1..cols + 1, "column sums")
}

/// Every rung of the matrix multiply, and the tuned rung's copies to aligned rows, on operands
/// that start 1 to 3 elements past 16 bytes (where the kernels would read and write 16-byte
/// vectors, they go element by element): within the float64 reference's bound, and nothing
/// outside `C`'s view written.
fn views_off_16_bytes_matmul(gpu: &Gpu) -> Check {
    fn one<T: Float + Element>(gpu: &Gpu, kernel: Option<MatmulKernel>, shape: MatmulShape) -> Check {
        let a_rows = if shape.op_a == Op::N { shape.m } else { shape.k };
        let b_rows = if shape.op_b == Op::N { shape.k } else { shape.n };
        let [a_len, b_len, c_len] = [a_rows * shape.lda(), b_rows * shape.ldb(), shape.m * shape.ldc()];
        // Small integers: every product and sum is exact in either type.
        let ints = |n: usize, seed: u64| -> Vec<T> {
            random::<u32>(n, seed).iter().map(|&r| T::from_f64(f64::from(r % 7) - 3.0)).collect()
        };
        let (a, b, c) = (ints(a_len, 1), ints(b_len, 2), ints(c_len, 3));
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(1.0));
        let (want, bound) = cpu::matmul(alpha, &a, &b, beta, &c, shape)?;
        let pad = |v: &[T], at: usize| [vec![T::from_f64(0.0); at], v.to_vec(), vec![T::from_f64(0.0); 4]].concat();
        let (a_dev, b_dev) = (gpu.upload(&pad(&a, 1))?, gpu.upload(&pad(&b, 2))?);
        let mut c_dev = gpu.upload(&pad(&c, 3))?;
        {
            let (a_view, b_view) = (a_dev.slice(1..1 + a_len)?, b_dev.slice(2..2 + b_len)?);
            let mut c_view = c_dev.slice_mut(3..3 + c_len)?;
            match kernel {
                Some(kernel) => match gpu.matmul_with(kernel, alpha, &a_view, &b_view, beta, &mut c_view, shape) {
                    // The multistage rung on a GPU before compute capability 8.0.
                    Err(Error::NeedsNewerGpu { .. }) => return Ok(()),
                    other => other?,
                },
                None => gpu.matmul(alpha, &a_view, &b_view, beta, &mut c_view, shape)?,
            }
        }
        let got = gpu.download(&c_dev)?;
        let what = format!("{kernel:?} {shape} of {}, views at +1, +2, +3", std::any::type_name::<T>());
        for i in 0..shape.m {
            for j in 0..shape.n {
                let (g, r) = (got[3 + i * shape.ldc() + j].into(), want[i * shape.n + j]);
                if (g - r).abs() > bound[i * shape.n + j] {
                    return Err(format!("{what}: C[{i}][{j}] = {g}, want {r}").into());
                }
            }
        }
        let outside = got[..3].iter().chain(&got[3 + c_len..]);
        if outside.into_iter().any(|&x| x != T::from_f64(0.0)) {
            return Err(format!("{what}: an element outside C's view was written").into());
        }
        Ok(())
    }
    let plain = MatmulShape::new(37, 72, 40);
    for kernel in MatmulKernel::ALL {
        one::<f32>(gpu, Some(kernel), plain)?;
        one::<f64>(gpu, Some(kernel), plain)?;
    }
    // Transposed operands and the planner's own choice.
    let transposed = MatmulShape::new(33, 64, 20).with_ops(Op::T, Op::T);
    one::<f32>(gpu, None, transposed)?;
    one::<f64>(gpu, None, transposed)?;
    // The tuned rung's copies of operands whose rows are unaligned, read from the views: a
    // table that realigns from the first use.
    let mut eager = gpu.tuning().clone();
    eager.matmul.realign_min_uses = 1;
    let eager = gpu.with_tuning(Box::leak(Box::new(eager)));
    let odd = MatmulShape::new(30, 50, 23);
    if bankwise::matmul::Realign::for_shape::<f32>(MatmulKernel::Tuned, odd, eager.plan_target()) == Default::default()
    {
        return Err("the eager table realigns neither operand: the copies are untested".into());
    }
    one::<f32>(&eager, Some(MatmulKernel::Tuned), odd)
}

/// Views of raw device addresses work as the buffers they point into; a misaligned address or
/// an overflowing length is refused, and on a GPU so are addresses the driver does not know,
/// views past the end of their allocation, and host memory.
fn raw_pointers(gpu: &Gpu) -> Check {
    let host: Vec<f32> = random(24, 0x4a4);
    let src = gpu.upload(&host)?;
    let dst = gpu.alloc_zeros::<f32>(24)?;
    {
        // SAFETY: the buffers' own addresses and lengths, alive and unaliased while the views are.
        let (from, mut to) = unsafe {
            (
                DeviceSlice::<f32>::from_raw(gpu, src.device_ptr(), 24)?,
                DeviceSliceMut::<f32>::from_raw(gpu, dst.device_ptr(), 24)?,
            )
        };
        gpu.permute(&from, &mut to, &[2, 3, 4], &[2, 0, 1])?;
    }
    compare("permute of raw views", &gpu.download(&dst)?, &cpu::permute(&host, &[2, 3, 4], &[2, 0, 1])?)?;

    let bad = |r: bankwise::runtime::Result<DeviceSlice<'_, f32>>, what: &str| -> Check {
        match r {
            Err(RuntimeError::BadRawPointer { .. }) => Ok(()),
            other => Err(format!("{what}: want BadRawPointer, got {other:?}").into()),
        }
    };
    // SAFETY: each is refused before a view exists.
    unsafe {
        bad(DeviceSlice::from_raw(gpu, src.device_ptr() + 2, 4), "an address off f32's alignment")?;
        bad(DeviceSlice::from_raw(gpu, src.device_ptr(), usize::MAX / 2), "a length past the address space")?;
        if !gpu.is_emulator() {
            bad(DeviceSlice::from_raw(gpu, src.device_ptr() + 64, 24), "a view past its allocation")?;
            let on_host = host.as_ptr() as u64;
            bad(DeviceSlice::from_raw(gpu, on_host, 24), "host memory")?;
        }
        // A length of 0 takes any address, and the launchers do nothing with it.
        let empty = DeviceSlice::<f32>::from_raw(gpu, 0, 0)?;
        gpu.copy(&empty, &mut DeviceSliceMut::<f32>::from_raw(gpu, 0, 0)?)?;
    }
    Ok(())
}

/// Buffers of another device (an emulated one: on a GPU target the emulator, on the emulator
/// target a second emulated device) are refused by every launcher with `WrongDevice` naming
/// the argument, as are its streams; nothing is launched.
fn another_device_is_refused(gpu: &Gpu) -> Check {
    let other = Gpu::emulator()?;
    let theirs = other.upload(&[1u32; 24])?;
    let ours = gpu.upload(&[1u32; 24])?;
    let mut out = gpu.alloc_zeros::<u32>(24)?;
    let mut their_out = other.alloc_zeros::<u32>(24)?;
    wrong_device(gpu.permute(&theirs, &mut out, &[4, 6], &[1, 0]), "src")?;
    wrong_device(gpu.permute(&ours, &mut their_out, &[4, 6], &[1, 0]), "dst")?;
    wrong_device(gpu.transpose(&theirs, &mut out, Shape::new(4, 6)), "src")?;
    wrong_device(gpu.copy(&ours, &mut their_out), "dst")?;
    wrong_device(gpu.reduce(Sum, &theirs), "src")?;
    wrong_device(gpu.reduce_axes(Sum, &theirs, &[4, 6], &[0], &mut out.slice_mut(0..6)?), "src")?;
    // Scratch of the other device: caught where the kernel is launched, by argument.
    let mut scratch = other.reduce_scratch::<u32>(ReduceKernel::Tuned, 24)?;
    let r = gpu.reduce_into(ReduceKernel::Tuned, Sum, &ours, .., &mut out, &mut scratch);
    wrong_device(r, "argument 1 of `reduce_")?;
    match gpu.with_stream(other.stream()) {
        Err(Error::Runtime(RuntimeError::WrongDevice { .. })) => {}
        other => return Err(format!("a stream of another device: want WrongDevice, got {other:?}").into()),
    }
    if gpu.download(&out)? != [0; 24] {
        return Err("a refused launch wrote its output".into());
    }
    Ok(())
}

/// A handle on a second stream of the device runs every launcher there, sharing the modules.
fn launches_on_another_stream(gpu: &Gpu) -> Check {
    let side = gpu.with_stream(&gpu.new_stream()?)?;
    let host: Vec<u32> = random(2 * 3 * 40, 0x51de);
    let src = side.upload(&host)?;
    let mut dst = side.alloc_zeros::<u32>(host.len())?;
    side.permute(&src, &mut dst, &[2, 3, 40], &[2, 0, 1])?;
    compare("permute on a side stream", &side.download(&dst)?, &cpu::permute(&host, &[2, 3, 40], &[2, 0, 1])?)?;
    let mut sums = side.alloc_zeros::<u32>(80)?;
    side.reduce_axes(Sum, &src, &[2, 3, 40], &[1], &mut sums)?;
    let want: Vec<u32> =
        (0..80).map(|o| (0..3).fold(0u32, |s, b| s.wrapping_add(host[((o / 40) * 3 + b) * 40 + o % 40]))).collect();
    compare("sums on a side stream", &side.download(&sums)?, &want)
}

/// cudarc alone allocates, on a stream of its own context (event tracking on, cudarc's
/// default); bankwise runs on that stream, on the slices, a view of them at an odd offset
/// included; cudarc reads the results back.
fn cudarc_on_the_callers_stream(gpu: &Gpu) -> Check {
    let ctx = CudaContext::new(0).map_err(|e| format!("{e:?}"))?;
    let stream = ctx.new_stream().map_err(|e| format!("{e:?}"))?;
    let gpu = gpu.with_stream(&Stream::from_cuda(stream.clone()))?;
    let (dims, perm) = ([16usize, 9, 33], [2usize, 0, 1]);
    let n: usize = dims.iter().product();
    // Uniform in [-1, 1): sums far from f32's range.
    let host: Vec<f32> =
        random::<u32>(n + 1, 0xc0da).iter().map(|&r| (r >> 8) as f32 / (1 << 23) as f32 - 1.0).collect();
    let x: CudaSlice<f32> = stream.clone_htod(&host).map_err(|e| format!("{e:?}"))?;
    let mut y: CudaSlice<f32> = stream.alloc_zeros(n).map_err(|e| format!("{e:?}"))?;
    gpu.permute(&x.slice(1..), &mut y, &dims, &perm)?;
    let mut sums: CudaSlice<f32> = stream.alloc_zeros(16 * 9).map_err(|e| format!("{e:?}"))?;
    gpu.reduce_axes(Sum, &y, &[33, 16, 9], &[0], &mut sums)?;
    let got = stream.clone_dtoh(&y).map_err(|e| format!("{e:?}"))?;
    let want = cpu::permute(&host[1..], &dims, &perm)?;
    compare("permute of cudarc slices", &got, &want)?;
    let got = stream.clone_dtoh(&sums).map_err(|e| format!("{e:?}"))?;
    for (o, &g) in got.iter().enumerate() {
        let want: f64 = (0..33).map(|k| want[k * 144 + o] as f64).sum();
        if (g as f64 - want).abs() > 1e-4 * (1.0 + want.abs()) {
            return Err(format!("sums of cudarc slices: output {o}: got {g}, want {want}").into());
        }
    }
    Ok(())
}

/// Slices allocated and written on the caller's stream, which is held busy first: bankwise's
/// launch on its own stream waits for the write (cudarc's event), and the caller's stream,
/// reading the output back, waits for bankwise's launch (the join on the access's drop).
fn cudarc_of_another_stream(gpu: &Gpu) -> Check {
    let ctx = CudaContext::new(0).map_err(|e| format!("{e:?}"))?;
    let theirs = ctx.new_stream().map_err(|e| format!("{e:?}"))?;
    let held = gpu.with_stream(&Stream::from_cuda(theirs.clone()))?;
    let n = 1 << 20;
    let host: Vec<u32> = random(n, 0xa5a5);
    let mut x: CudaSlice<u32> = theirs.alloc_zeros(n).map_err(|e| format!("{e:?}"))?;
    let mut y: CudaSlice<u32> = theirs.alloc_zeros(n).map_err(|e| format!("{e:?}"))?;
    held.synchronize()?;
    // Their stream: 200 ms of nothing, then the input's upload.
    held.spin_wait(std::time::Duration::from_millis(200))?;
    theirs.memcpy_htod(&host, &mut x).map_err(|e| format!("{e:?}"))?;
    // Ours: the transpose, which must wait for the upload, not run on zeros.
    gpu.transpose(&x, &mut y, Shape::new(1024, 1024))?;
    let got = theirs.clone_dtoh(&y).map_err(|e| format!("{e:?}"))?;
    compare("a transpose across streams", &got, &cpu::transpose(&host, Shape::new(1024, 1024))?)
}

/// Behind a second of a busy stream, the launchers (permute, reduce along axes, transpose,
/// copy, `reduce_into`) return with their work still queued: nothing in them waits. (A second,
/// not less: trials running beside this one share the host's cores and the driver.)
fn launchers_wait_for_nothing(gpu: &Gpu) -> Check {
    let side = gpu.with_stream(&gpu.new_stream()?)?;
    let src = side.upload(&random::<f32>(1 << 16, 3))?;
    let mut dst = side.alloc_zeros::<f32>(1 << 16)?;
    let mut out = side.alloc_zeros::<f32>(1)?;
    let mut scratch = side.reduce_scratch::<f32>(ReduceKernel::Tuned, 1 << 16)?;
    side.synchronize()?;
    let done = side.new_event()?;
    side.spin_wait(std::time::Duration::from_secs(1))?;
    let queued = std::time::Instant::now();
    side.permute(&src, &mut dst, &[256, 256], &[1, 0])?;
    side.reduce_axes(Sum, &src, &[256, 256], &[1], &mut dst.slice_mut(0..256)?)?;
    side.transpose(&src, &mut dst, Shape::new(128, 512))?;
    side.copy(&src, &mut dst)?;
    side.reduce_into(ReduceKernel::Tuned, Sum, &src, .., &mut out, &mut scratch)?;
    done.record(side.stream())?;
    let (complete, took) = (done.is_complete()?, queued.elapsed());
    side.synchronize()?;
    if complete || took.as_millis() >= 1000 {
        return Err(format!("the launchers waited: {took:?} to queue, work done: {complete}").into());
    }
    Ok(())
}

/// Trials of every GPU of the host at once, ignored (with the reason) with fewer than two.
#[allow(dead_code)] // the GPU binary runs them
pub fn multi_gpu_trials() -> Vec<Trial> {
    let count = bankwise::runtime::device_count().unwrap_or(0);
    let ignored = count < 2;
    if ignored {
        eprintln!("multi-GPU trials skipped: {count} GPU(s) on this host, they need 2");
    }
    let trial = |name: &str, f: fn(&[Arc<Gpu>]) -> Check| {
        Trial::test(format!("multi_gpu/{name}"), move || {
            let gpus = (0..count).map(|i| Gpu::with_ordinal(i).map(Arc::new)).collect::<Result<Vec<_>, _>>()?;
            f(&gpus)
        })
        .with_ignored_flag(ignored)
    };
    vec![
        trial("each_gpu_right_while_the_others_work", each_gpu_right_while_the_others_work),
        trial("buffers_of_one_refused_by_another", buffers_of_one_refused_by_another),
    ]
}

/// One thread per GPU, each permuting and reducing its own tensors 20 times at once with the
/// others: every result exact.
fn each_gpu_right_while_the_others_work(gpus: &[Arc<Gpu>]) -> Check {
    let workers: Vec<_> = gpus
        .iter()
        .enumerate()
        .map(|(i, gpu)| {
            let gpu = gpu.clone();
            std::thread::spawn(move || -> Result<(), String> {
                let dims = [64usize, 96, 130];
                let n: usize = dims.iter().product();
                for round in 0..20u64 {
                    let host: Vec<u32> = random(n, round * 31 + i as u64);
                    let src = gpu.upload(&host).map_err(|e| e.to_string())?;
                    let mut dst = gpu.alloc_zeros::<u32>(n).map_err(|e| e.to_string())?;
                    gpu.permute(&src, &mut dst, &dims, &[2, 0, 1]).map_err(|e| e.to_string())?;
                    let mut sums = gpu.alloc_zeros::<u32>(64 * 130).map_err(|e| e.to_string())?;
                    gpu.reduce_axes(Sum, &src, &dims, &[1], &mut sums).map_err(|e| e.to_string())?;
                    let want = cpu::permute(&host, &dims, &[2, 0, 1]).map_err(|e| e.to_string())?;
                    if gpu.download(&dst).map_err(|e| e.to_string())? != want {
                        return Err(format!("GPU {i}, round {round}: the permutation differs"));
                    }
                    let got = gpu.download(&sums).map_err(|e| e.to_string())?;
                    for (o, &g) in got.iter().enumerate() {
                        let (a, c) = (o / 130, o % 130);
                        let w = (0..96).fold(0u32, |s, b| s.wrapping_add(host[(a * 96 + b) * 130 + c]));
                        if g != w {
                            return Err(format!("GPU {i}, round {round}: sum {o} is {g}, want {w}"));
                        }
                    }
                }
                Ok(())
            })
        })
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        w.join().map_err(|_| format!("GPU {i}'s thread panicked"))??;
    }
    Ok(())
}

/// A buffer, a raw view and a stream of GPU 1 given to GPU 0: `WrongDevice` each, nothing run.
fn buffers_of_one_refused_by_another(gpus: &[Arc<Gpu>]) -> Check {
    let (zero, one) = (&gpus[0], &gpus[1]);
    let theirs = one.upload(&[7u32; 24])?;
    let mut ours = zero.alloc_zeros::<u32>(24)?;
    wrong_device(zero.permute(&theirs, &mut ours, &[4, 6], &[1, 0]), "src")?;
    wrong_device(zero.reduce_axes(Sum, &theirs, &[4, 6], &[1], &mut ours.slice_mut(0..4)?), "src")?;
    // SAFETY: refused before a view exists.
    match unsafe { DeviceSlice::<u32>::from_raw(zero, theirs.device_ptr(), 24) } {
        Err(RuntimeError::WrongDevice { .. }) => {}
        other => return Err(format!("a raw pointer of GPU 1 on GPU 0: want WrongDevice, got {other:?}").into()),
    }
    match zero.with_stream(one.stream()) {
        Err(Error::Runtime(RuntimeError::WrongDevice { .. })) => {}
        other => return Err(format!("GPU 1's stream on GPU 0: want WrongDevice, got {other:?}").into()),
    }
    if zero.download(&ours)? != [0; 24] {
        return Err("a refused launch wrote its output".into());
    }
    Ok(())
}
