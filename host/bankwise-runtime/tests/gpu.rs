//! GPU tests of the runtime through its public API, as a user would call it: a kernel from PTX
//! text, from a cubin and from a fatbin (`tests/fixtures`, `scale.ptx` assembled with ptxas and
//! packed with fatbinary), checked launches, allocations past the device's memory, streams and
//! events, occupancy, the hold kernel and the benchmark harness. Without a CUDA driver or device
//! every test is reported as ignored, with the reason printed first; on a GPU they run and
//! assert.

use std::time::Duration;

use bankwise_runtime::{Device, Error, LaunchConfig, Module, ModuleImage, bench, verify};
use libtest_mimic::{Arguments, Failed, Trial};

const SCALE_PTX: &str = include_str!("fixtures/scale.ptx");
const SCALE_CUBIN_SM90: &[u8] = include_bytes!("fixtures/scale.sm_90.cubin");
/// sm_90 SASS and the compute_70 PTX: loads on any device from Volta on.
const SCALE_FATBIN: &[u8] = include_bytes!("fixtures/scale.fatbin");
const SCALE_MANIFEST: &str = "scale(ptr, ptr, f32, u64)\n";
const POISON: u8 = 0xA5;

type Check = Result<(), Failed>;
/// A test: its name, its body, and whether it applies to the device found.
type Test = (&'static str, fn(&Device) -> Check, bool);

fn main() {
    let args = Arguments::from_args();
    let device = match Device::new(0) {
        Ok(d) => {
            eprintln!(
                "runtime GPU tests on {} (sm_{}{})",
                d.info().name,
                d.info().compute_capability.0,
                d.info().compute_capability.1
            );
            Some(d)
        }
        Err(e) => {
            eprintln!("runtime GPU tests skipped: {e}");
            None
        }
    };
    let sm90 = device.as_ref().is_some_and(|d| d.info().compute_capability.0 == 9);
    let tests: Vec<Test> = vec![
        ("launch/scale_from_ptx", scale_from_ptx, true),
        ("launch/slices_of_a_buffer", slices_of_a_buffer, true),
        ("launch/into_an_uninitialised_buffer", into_an_uninitialised_buffer, true),
        ("launch/rejected_before_the_gpu", rejected_before_the_gpu, true),
        ("launch/shared_memory_past_48k_from_a_fresh_thread", shared_memory_past_48k_from_a_fresh_thread, true),
        ("launch/on_a_second_stream", on_a_second_stream, true),
        ("load/cubin_sm_90", cubin_sm_90, sm90),
        ("lookup/missing_in_a_bare_cubin", missing_in_a_bare_cubin, sm90),
        ("load/fatbin", fatbin, true),
        ("lookup/missing_kernel", missing_kernel, true),
        ("occupancy/by_block_and_shared_memory", occupancy, true),
        ("device/missing_ordinal", missing_ordinal, true),
        ("memory/allocation_past_the_device", allocation_past_the_device, true),
        ("copy/rows_between_leading_dimensions", rows_between_leading_dimensions, true),
        ("bench/spin_wait_holds_the_stream", spin_wait_holds_the_stream, true),
        ("bench/measure_pair_times_every_run_in_order", measure_pair_times_every_run_in_order, true),
        ("bench/versus_copy", versus_copy, true),
    ];
    let trials = tests
        .into_iter()
        .map(|(name, f, applies)| {
            let device = device.clone();
            let runnable = device.is_some() && applies;
            Trial::test(name, move || match device {
                Some(d) if applies => f(&d),
                Some(_) => Err("needs an sm_90 device".into()),
                None => Err("no GPU: see the reason printed above".into()),
            })
            .with_ignored_flag(!runnable)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn input(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 1000) as f32 * 0.37 - 100.0).collect()
}

/// Launches `scale(y, x, a, n)` of `module` over all of `x` into a poisoned `y` and verifies it.
fn run_scale(dev: &Device, module: &Module, n: usize) -> Check {
    let scale = module.kernel_by_name("scale")?;
    let x = input(n);
    let src = dev.upload(&x)?;
    let mut dst = dev.alloc_zeros::<f32>(n)?;
    dev.fill_bytes(&mut dst, POISON)?;
    let config = LaunchConfig::for_elements(n as u64, 256);
    // Safety: scale reads x[0..n] and writes y[0..n]; both hold n floats.
    unsafe { scale.launch(dev.stream(), config, (&mut dst, &src, 3.0f32, n as u64))? };
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
    verify::exact(&dev.download(&dst)?, &want)?.check()?;
    Ok(())
}

fn scale_from_ptx(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let entry = module.kernel_by_name("scale")?.entry().cloned().ok_or("entries of PTX text are known")?;
    if entry.to_string() != "scale(ptr, ptr, f32, u64)" {
        return Err(format!("entry read as {entry}").into());
    }
    for n in [1, 255, 256, 257, 1_000_003] {
        run_scale(dev, &module, n).map_err(|e| format!("n = {n}: {}", e.message().unwrap_or("failed")))?;
    }
    Ok(())
}

/// A launch over a sub-range writes exactly that range.
fn slices_of_a_buffer(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let x = input(1000);
    let src = dev.upload(&x)?;
    let mut dst = dev.alloc_zeros::<f32>(1000)?;
    dev.fill_bytes(&mut dst, POISON)?;
    let (from, to) = (src.slice(100..400)?, dst.slice_mut(500..800)?);
    // Safety: both ranges hold 300 floats.
    unsafe { scale.launch(dev.stream(), LaunchConfig::for_elements(300, 128), (to, from, -1.0f32, 300u64))? };
    let poison = f32::from_bits(u32::from_ne_bytes([POISON; 4]));
    let want: Vec<f32> = (0..1000).map(|i| if (500..800).contains(&i) { -x[i - 400] } else { poison }).collect();
    verify::exact(&dev.download(&dst)?, &want)?.check()?;
    if !matches!(src.slice(900..1001), Err(Error::RangeOutOfBounds { start: 900, end: 1001, len: 1000 })) {
        return Err("a slice past the end was not rejected".into());
    }
    Ok(())
}

/// A kernel writing every element of a buffer from `alloc_uninit` (no fill): read back, it
/// holds the kernel's values; a 0-element one is empty.
fn into_an_uninitialised_buffer(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let n = 100_003;
    let x = input(n);
    let src = dev.upload(&x)?;
    // Safety: the launch writes all `n` elements before the download reads them.
    let mut dst = unsafe { dev.alloc_uninit::<f32>(n)? };
    // Safety: scale reads x[0..n] and writes y[0..n]; both hold n floats.
    unsafe {
        scale.launch(dev.stream(), LaunchConfig::for_elements(n as u64, 256), (&mut dst, &src, 0.5f32, n as u64))?
    };
    let want: Vec<f32> = x.iter().map(|v| 0.5 * v).collect();
    verify::exact(&dev.download(&dst)?, &want)?.check()?;
    // Safety: an empty buffer holds nothing to read.
    let empty = unsafe { dev.alloc_uninit::<f64>(0)? };
    if !empty.is_empty() || !dev.download(&empty)?.is_empty() {
        return Err("a 0-element buffer is not empty".into());
    }
    Ok(())
}

/// Each bad launch gets its own error, and nothing runs: the output keeps its poison.
fn rejected_before_the_gpu(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let src = dev.upload(&input(256))?;
    let mut dst = dev.alloc_zeros::<f32>(256)?;
    dev.fill_bytes(&mut dst, POISON)?;
    let good = LaunchConfig::for_elements(256, 256);
    let info = dev.info().clone();
    let expect = |what: &str, r: bankwise_runtime::Result<()>, ok: fn(&Error) -> bool| -> Check {
        match r {
            Err(e) if ok(&e) => Ok(()),
            other => Err(format!("{what}: got {other:?}").into()),
        }
    };
    // SAFETY: every launch below has an argument list or a configuration that `launch` must reject
    // before it queues anything (what this test checks); its pointers are `dst` and `src`, 256
    // `f32`s each, as the grid of `good` covers.
    unsafe {
        let r = scale.launch(dev.stream(), good, (&mut dst, &src, 2.0f32));
        expect("three arguments", r, |e| matches!(e, Error::ArgumentCount { expected: 4, got: 3, .. }))?;
        let r = scale.launch(dev.stream(), good, (&mut dst, &src, 2.0f64, 256u64));
        expect("f64 for f32", r, |e| matches!(e, Error::ArgumentMismatch { index: 2, .. }))?;
        let r = scale.launch(dev.stream(), good, (&mut dst, 5u32, 2.0f32, 256u64));
        expect("u32 for a pointer", r, |e| matches!(e, Error::ArgumentMismatch { index: 1, .. }))?;
        let big = LaunchConfig { block: (info.max_threads_per_block * 2, 1, 1), ..good };
        let r = scale.launch(dev.stream(), big, (&mut dst, &src, 2.0f32, 256u64));
        expect("block too large", r, |e| matches!(e, Error::BlockDimTooLarge { axis: 'x', .. }))?;
        let square = LaunchConfig { block: (64, 32, 1), ..good };
        let r = scale.launch(dev.stream(), square, (&mut dst, &src, 2.0f32, 256u64));
        expect("2048 threads", r, |e| matches!(e, Error::BlockTooLarge { threads: 2048, .. }))?;
        let tall = LaunchConfig { grid: (1, info.max_grid_dim.1 + 1, 1), ..good };
        let r = scale.launch(dev.stream(), tall, (&mut dst, &src, 2.0f32, 256u64));
        expect("grid.y too large", r, |e| matches!(e, Error::GridDimTooLarge { axis: 'y', .. }))?;
        let none = LaunchConfig { grid: (0, 1, 1), ..good };
        let r = scale.launch(dev.stream(), none, (&mut dst, &src, 2.0f32, 256u64));
        expect("empty grid", r, |e| matches!(e, Error::ZeroLaunchDimension { what: "grid.x" }))?;
        let greedy = good.with_shared_bytes(info.shared_per_block_max + 1);
        let r = scale.launch(dev.stream(), greedy, (&mut dst, &src, 2.0f32, 256u64));
        expect("shared memory", r, |e| matches!(e, Error::SharedMemoryTooLarge { .. }))?;
    }
    let got = dev.download(&dst)?;
    if got.iter().any(|v| v.to_bits() != u32::from_ne_bytes([POISON; 4])) {
        return Err("a rejected launch wrote the output".into());
    }
    run_scale(dev, &module, 256)
}

/// Past 48 KiB of dynamic shared memory the kernel's limit is raised first, which needs the
/// context current: done here from a thread that has made no other call.
fn shared_memory_past_48k_from_a_fresh_thread(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let bytes = dev.info().shared_per_block_max.min(100 * 1024);
    if bytes <= dev.info().shared_per_block {
        return Err(format!("device opts in to only {bytes} bytes per block").into());
    }
    let x = input(4096);
    let src = dev.upload(&x)?;
    let mut dst = dev.alloc_zeros::<f32>(4096)?;
    dev.synchronize()?;
    let config = LaunchConfig::for_elements(4096, 256).with_shared_bytes(bytes);
    std::thread::scope(|s| {
        s.spawn(|| -> bankwise_runtime::Result<()> {
            // Safety: scale reads x[0..4096] and writes y[0..4096]; the shared memory is unused.
            unsafe { scale.launch(dev.stream(), config, (&mut dst, &src, 0.5f32, 4096u64)) }
        })
        .join()
        .map_err(|_| "the launching thread panicked")
    })??;
    let want: Vec<f32> = x.iter().map(|v| 0.5 * v).collect();
    verify::exact(&dev.download(&dst)?, &want)?.check()?;
    Ok(())
}

/// Work on a second stream, ordered before the default stream's download by an event.
fn on_a_second_stream(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let stream = dev.new_stream()?;
    let n = 1 << 22;
    let x = input(n);
    let src = stream.upload(&x)?;
    let mut dst = stream.alloc_zeros::<f32>(n)?;
    let done = dev.new_event()?;
    // SAFETY: `scale(dst, src, a, n)` as the fixture declares it, `dst` and `src` of `n` `f32`s,
    // queued on the stream they were made on.
    unsafe { scale.launch(&stream, LaunchConfig::for_elements(n as u64, 256), (&mut dst, &src, 4.0f32, n as u64))? };
    done.record(&stream)?;
    dev.stream().wait(&done)?;
    let want: Vec<f32> = x.iter().map(|v| 4.0 * v).collect();
    verify::exact(&dev.download(&dst)?, &want)?.check()?;
    Ok(())
}

fn cubin_sm_90(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Cubin(SCALE_CUBIN_SM90), Some(SCALE_MANIFEST))?;
    run_scale(dev, &module, 100_003)?;
    let scale = module.kernel_by_name("scale")?;
    // SAFETY: one argument for four: the manifest's arity check rejects it before anything is
    // queued (what this test checks).
    let r = unsafe { scale.launch(dev.stream(), LaunchConfig::linear(1, 1), (1u64,)) };
    if !matches!(r, Err(Error::ArgumentCount { expected: 4, got: 1, .. })) {
        return Err(format!("the manifest's arity was not enforced: {r:?}").into());
    }
    // Without a manifest the entries are unknown: lookups go to the driver, arguments are
    // not checked.
    let bare = dev.load_module(ModuleImage::Cubin(SCALE_CUBIN_SM90), None)?;
    if bare.entries().is_some() || bare.kernel_by_name("scale")?.entry().is_some() {
        return Err("a cubin without a manifest reported entries".into());
    }
    run_scale(dev, &bare, 1000)
}

/// A cubin loaded without a manifest: a missing name is found missing by the driver (a failing
/// `cuModuleGetFunction`, which compute-sanitizer reports as an API error, so the sanitizer
/// runs skip this trial) and reported as `MissingKernel` with no entries known.
fn missing_in_a_bare_cubin(dev: &Device) -> Check {
    let bare = dev.load_module(ModuleImage::Cubin(SCALE_CUBIN_SM90), None)?;
    match bare.kernel_by_name("scal") {
        Err(Error::MissingKernel { known: None, .. }) => Ok(()),
        other => Err(format!("missing kernel of a bare cubin: {other:?}").into()),
    }
}

fn fatbin(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Fatbin(SCALE_FATBIN), Some(SCALE_MANIFEST))?;
    run_scale(dev, &module, 65_537)
}

fn missing_kernel(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    match module.kernel_by_name("scael") {
        Err(Error::MissingKernel { ref near, known: Some(1), .. }) if near == &["scale"] => Ok(()),
        other => Err(format!("expected MissingKernel near `scale`, got {other:?}").into()),
    }
}

/// The occupancy calculator: a small kernel fills an SM with 256-thread blocks up to the
/// thread limit; given all the shared memory a block may opt in to, one block fits.
fn occupancy(dev: &Device) -> Check {
    use bankwise_runtime::cudarc::driver::sys::CUdevice_attribute as Attr;
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let ctx = dev.context().ok_or("a GPU device has a CUDA context")?;
    let threads_per_sm = ctx.attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32;
    let free = scale.occupancy(&LaunchConfig::linear(1, 256))?;
    if free != threads_per_sm / 256 {
        return Err(format!("{free} blocks of 256 threads per SM, the SM holds {threads_per_sm} threads").into());
    }
    let all = LaunchConfig::linear(1, 256).with_shared_bytes(dev.info().shared_per_block_max);
    let held = scale.occupancy(&all)?;
    if held != 1 {
        return Err(format!("{held} blocks per SM with {} bytes of shared memory each", all.shared_bytes).into());
    }
    Ok(())
}

fn missing_ordinal(_: &Device) -> Check {
    match Device::new(4096) {
        Err(Error::NoDevice { ordinal: 4096, count }) if count >= 1 => Ok(()),
        other => Err(format!("expected NoDevice, got {other:?}").into()),
    }
}

/// An allocation of more than the device holds is `OutOfMemory` with the bytes asked for and
/// the device's memory, for each way of allocating, and the device stays usable after it.
fn allocation_past_the_device(dev: &Device) -> Check {
    let (_, total) = dev.memory()?;
    let requested = total + (1 << 30);
    let expect = |how: &str, r: bankwise_runtime::Result<bankwise_runtime::DeviceBuffer<u8>>| -> Check {
        match r {
            Err(Error::OutOfMemory { requested: r, free, total: t }) if r == requested && t == total && free <= t => {
                let text = Error::OutOfMemory { requested: r, free, total: t }.to_string();
                if !text.contains(&format!("asked for {requested} bytes")) || !text.contains(&format!("{free} of")) {
                    return Err(format!("{how}: the message does not name the bytes asked for and free: {text}").into());
                }
                Ok(())
            }
            other => Err(format!("{how} of {requested} bytes ({total} on the device): got {other:?}").into()),
        }
    };
    expect("alloc_zeros", dev.alloc_zeros::<u8>(requested))?;
    // Safety: the allocation fails; were it to succeed, the buffer is dropped unread.
    expect("alloc_uninit", unsafe { dev.alloc_uninit::<u8>(requested) })?;
    // Elements whose bytes pass the address space are refused before the driver.
    match dev.alloc_zeros::<u64>(usize::MAX / 4) {
        Err(Error::OutOfMemory { requested: usize::MAX, total: t, .. }) if t == total => {}
        other => return Err(format!("an overflowing size: got {other:?}").into()),
    }
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    run_scale(dev, &module, 1000)
}

/// `copy_rows` moves each row to its new pitch, leaves the gaps between rows alone, and
/// refuses rows that do not fit.
fn rows_between_leading_dimensions(dev: &Device) -> Check {
    for (rows, cols, src_ld, dst_ld) in [(1, 1, 1, 4), (3, 5, 7, 8), (4093, 4095, 4095, 4096), (17, 33, 40, 33)] {
        let src: Vec<u32> = (0..rows * src_ld).map(|i| i as u32).collect();
        let from = dev.upload(&src)?;
        let mut to = dev.upload(&vec![u32::MAX; rows * dst_ld])?;
        dev.copy_rows(&from, src_ld, &mut to, dst_ld, (rows, cols))?;
        let got = dev.download(&to)?;
        for r in 0..rows {
            for c in 0..dst_ld {
                let want = if c < cols { src[r * src_ld + c] } else { u32::MAX };
                if got[r * dst_ld + c] != want {
                    return Err(format!(
                        "{rows}×{cols} from {src_ld} to {dst_ld}: ({r}, {c}) is {}",
                        got[r * dst_ld + c]
                    )
                    .into());
                }
            }
        }
    }
    let (from, mut to) = (dev.upload(&[0u32; 12])?, dev.upload(&[0u32; 12])?);
    for (src_ld, dst_ld, shape) in [(3, 4, (3, 4)), (4, 4, (4, 4)), (4, 5, (3, 4))] {
        match dev.copy_rows(&from, src_ld, &mut to, dst_ld, shape) {
            Err(Error::BadRowCopy { .. }) => {}
            other => {
                return Err(format!("{shape:?} from {src_ld} to {dst_ld}: expected BadRowCopy, got {other:?}").into());
            }
        }
    }
    dev.copy_rows(&from, 4, &mut to, 4, (0, 4))?;
    Ok(())
}

fn spin_wait_holds_the_stream(dev: &Device) -> Check {
    let timer = bench::Timer::new(dev)?;
    // The first hold loads the hold kernel's module (the driver compiles its PTX: 21 ms on an
    // H100), which is not part of any hold: load it before timing.
    dev.spin_wait(Duration::ZERO)?;
    dev.synchronize()?;
    for ms in [0.0, 0.5, 2.0, 10.0] {
        let took = timer.time(|| dev.spin_wait(Duration::from_secs_f64(ms * 1e-3)))?;
        // The global timer ticks at least every microsecond; the launch adds microseconds.
        if !(took >= ms - 0.002 && took < ms + 5.0) {
            return Err(format!("spin_wait of {ms} ms took {took} ms").into());
        }
    }
    Ok(())
}

/// 37 runs, more than two batches and not a multiple of one: every run is timed, f and g
/// alternate with the same index, and every time is a real, positive figure.
fn measure_pair_times_every_run_in_order(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let n = 1 << 20;
    let src = dev.upload(&input(n))?;
    let dst = std::cell::RefCell::new(dev.alloc_zeros::<f32>(n)?);
    let calls = std::cell::RefCell::new(Vec::new());
    let config = LaunchConfig::for_elements(n as u64, 256);
    let (f, g) = bench::measure_pair(
        dev,
        3,
        37,
        |i| {
            calls.borrow_mut().push(('f', i));
            // SAFETY: `scale(dst, src, a, n)` as the fixture declares it, `dst` and `src` of `n`
            // `f32`s.
            unsafe { scale.launch(dev.stream(), config, (&mut *dst.borrow_mut(), &src, 1.0f32, n as u64)) }
        },
        Some(|i| {
            calls.borrow_mut().push(('g', i));
            dev.copy_dtod(&src, &mut dst.borrow_mut())
        }),
    )?;
    let g = g.ok_or("no statistics for g")?;
    if f.runs != 37 || g.runs != 37 {
        return Err(format!("timed {} and {} runs, asked for 37", f.runs, g.runs).into());
    }
    for s in [f, g] {
        if !(s.min_ms > 0.0 && s.min_ms <= s.median_ms && s.median_ms <= s.max_ms && s.max_ms < 1000.0) {
            return Err(format!("implausible statistics {s:?}").into());
        }
    }
    let calls = calls.into_inner();
    let expected: Vec<_> = (0..calls.len() / 2).flat_map(|i| [('f', i), ('g', i)]).collect();
    if calls != expected || calls.len() < 2 * (37 + 3) {
        return Err(format!("calls out of order or missing: {calls:?}").into());
    }
    Ok(())
}

/// A streaming kernel that reads and writes each byte once runs near the driver's copy of the
/// same bytes, measured in the same run.
fn versus_copy(dev: &Device) -> Check {
    let module = dev.load_module(ModuleImage::Ptx(SCALE_PTX), None)?;
    let scale = module.kernel_by_name("scale")?;
    let n = 1 << 24;
    let sets = bench::rotation(dev.info().l2_bytes, 8 * n);
    let srcs = (0..sets).map(|_| dev.upload(&input(n))).collect::<bankwise_runtime::Result<Vec<_>>>()?;
    let mut dsts = (0..sets).map(|_| dev.alloc_zeros::<f32>(n)).collect::<bankwise_runtime::Result<Vec<_>>>()?;
    let config = LaunchConfig::for_elements(n as u64, 256);
    // SAFETY: `scale(dst, src, a, n)` as the fixture declares it, every `dst` and `src` of `n`
    // `f32`s.
    let run = bench::versus_copy(dev, 5, 30, 4 * n, |i| unsafe {
        scale.launch(dev.stream(), config, (&mut dsts[i % sets], &srcs[i % sets], 1.0f32, n as u64))
    })?;
    let fraction = run.fraction_of_copy(8 * n as u64);
    eprintln!(
        "scale of 2^24 f32: {:.1} µs, copy {:.1} µs ({:.0} GB/s): {:.1}% of the copy",
        run.kernel.median_ms * 1e3,
        run.copy.median_ms * 1e3,
        run.copy_gb_per_s(),
        100.0 * fraction
    );
    if run.kernel.runs != 30 || run.copy.runs != 30 || run.copy_bytes != 4 * n as u64 {
        return Err(format!("{run:?}").into());
    }
    if !(0.4..1.3).contains(&fraction) {
        return Err(format!("a streaming kernel at {:.1}% of the copy", 100.0 * fraction).into());
    }
    Ok(())
}
