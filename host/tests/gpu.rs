//! GPU tests: every kernel against the CPU reference, bit for bit, on random data, with the
//! output poisoned before each launch. On a machine without a CUDA driver or device every test
//! is reported as ignored, with the reason printed first; on a GPU they run and assert.
//!
//! A custom harness (libtest-mimic) so that "no GPU" is a skip the runner counts, not a pass.

use std::sync::Arc;

use bankwise::{DeviceBuffer, Element, Error, Gpu, Shape, TransposeKernel, cpu};
use libtest_mimic::{Arguments, Failed, Trial};
use rand::{RngCore, SeedableRng, rngs::SmallRng};

/// The byte every output is filled with before a launch. Inputs never contain an element made
/// of it (see [`random`]), so an element the kernel failed to write always shows.
const POISON: u8 = 0xA5;

type Check = Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    let gpu = match Gpu::new() {
        Ok(gpu) => {
            eprintln!(
                "GPU tests on {} (sm_{}{})",
                gpu.info().name,
                gpu.info().compute_capability.0,
                gpu.info().compute_capability.1
            );
            Some(Arc::new(gpu))
        }
        Err(e) => {
            eprintln!("GPU tests skipped: {e}");
            None
        }
    };
    let mut trials = Vec::new();
    let mut add = |name: String, f: Box<dyn FnOnce(&Gpu) -> Check + Send>| {
        let handle = gpu.clone();
        let trial = Trial::test(name, move || match handle {
            Some(gpu) => f(&gpu),
            None => Err("no GPU: see the reason printed above".into()),
        });
        trials.push(trial.with_ignored_flag(gpu.is_none()));
    };

    for len in COPY_LENGTHS {
        add(format!("copy/u8/{len}"), Box::new(move |g| check_copy::<u8>(g, len)));
        add(format!("copy/u16/{len}"), Box::new(move |g| check_copy::<u16>(g, len)));
        add(format!("copy/f32/{len}"), Box::new(move |g| check_copy::<f32>(g, len)));
        add(format!("copy/f64/{len}"), Box::new(move |g| check_copy::<f64>(g, len)));
    }
    for kernel in TransposeKernel::ALL {
        for &(batch, rows, cols) in TRANSPOSE_SHAPES {
            let shape = Shape::batched(batch, rows, cols);
            let k = kernel.name();
            add(format!("{k}/u8/{shape}"), Box::new(move |g| check_transpose::<u8>(g, kernel, shape)));
            add(format!("{k}/u16/{shape}"), Box::new(move |g| check_transpose::<u16>(g, kernel, shape)));
            add(format!("{k}/f32/{shape}"), Box::new(move |g| check_transpose::<f32>(g, kernel, shape)));
            add(format!("{k}/f64/{shape}"), Box::new(move |g| check_transpose::<f64>(g, kernel, shape)));
        }
        // Past 2^31 bytes (32-bit byte offsets overflow) and past 2^31 elements (32-bit
        // element indices overflow).
        let k = kernel.name();
        let big = Shape::new(46_349, 11_587);
        add(format!("{k}/f32/{big}/past_2^31_bytes"), Box::new(move |g| check_transpose::<f32>(g, kernel, big)));
        let long = Shape::new(3, 715_827_883);
        add(format!("{k}/u8/{long}/past_2^31_elements"), Box::new(move |g| check_transpose::<u8>(g, kernel, long)));
        // The same limits with dimensions the tuned kernel's vectors can take.
        let big = Shape::new(46_352, 11_584);
        add(format!("{k}/f32/{big}/past_2^31_bytes"), Box::new(move |g| check_transpose::<f32>(g, kernel, big)));
        let long = Shape::new(16, 134_217_744);
        add(format!("{k}/u8/{long}/past_2^31_elements"), Box::new(move |g| check_transpose::<u8>(g, kernel, long)));
    }
    add("copy/f32/past_2^31_bytes".into(), Box::new(|g| check_copy::<f32>(g, (1 << 29) + 3)));
    add("launchers_reject_bad_arguments".into(), Box::new(launchers_reject_bad_arguments));
    add("missing_device_is_reported".into(), Box::new(missing_device_is_reported));
    probe_trials(&mut add);
    libtest_mimic::run(&args, trials).exit();
}

/// Lengths around every boundary of the copy kernel: the 16-byte vector, the 1024-vector block
/// step, and the grid-stride loop (132 SMs × 32 blocks × 1024 vectors ≈ 69 MB).
const COPY_LENGTHS: [usize; 32] = [
    1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 65, 127, 255, 256, 257, 1023, 1024, 1025, 4097, 16_383, 65_537,
    262_147, 1_000_003, 4_194_301, 4_194_304, 16_777_259, 25_000_000, 33_554_467, 70_000_001,
];

/// (batch, rows, cols): degenerate, prime, odd, tile multiples and non-multiples, tall and wide
/// past the grid's y limit, batches past the grid's z limit, and large squares.
const TRANSPOSE_SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 1, 2),
    (1, 2, 1),
    (1, 1, 1000),
    (1, 1000, 1),
    (1, 1, 65_536),
    (1, 65_536, 1),
    (1, 2, 2),
    (1, 3, 5),
    (1, 7, 13),
    (1, 17, 1),
    (1, 1, 17),
    (1, 31, 31),
    (1, 31, 33),
    (1, 33, 31),
    (1, 32, 32),
    (1, 64, 64),
    (1, 97, 101),
    (1, 127, 129),
    (1, 255, 257),
    (1, 512, 513),
    (1, 1000, 3),
    (1, 3, 1000),
    (1, 2048, 77),
    (1, 1023, 1025),
    (1, 1024, 1024),
    (1, 4097, 3),
    (1, 3, 4097),
    (1, 4096, 4096),
    (1, 8191, 8193),
    (1, 3_000_017, 1),
    (1, 2, 3_000_017),
    (3, 1, 7),
    (5, 31, 33),
    (7, 64, 1),
    (100, 10, 10),
    (2, 1000, 3),
    (70_001, 2, 3),
    (3, 129, 257),
    // Multiples of 16, so the tuned kernel takes its vector path for every width, with full
    // and partial tiles, batches, and grids past the y and z limits.
    (1, 16, 16),
    (1, 48, 32),
    (1, 144, 272),
    (1, 4112, 2064),
    (3, 64, 48),
    (2, 128, 4096),
    (1, 16, 65_536),
    (1, 65_536, 16),
    (1, 2_100_000, 16),
    (70_001, 16, 16),
];

/// `n` random elements, none of whose bytes are all [`POISON`].
fn random<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut v: Vec<T> = vec![unsafe { std::mem::zeroed() }; n];
    let size = std::mem::size_of::<T>();
    // Safety: Element types are plain integers and floats; any bit pattern is valid.
    let bytes = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), n * size) };
    SmallRng::seed_from_u64(seed).fill_bytes(bytes);
    for e in bytes.chunks_exact_mut(size) {
        if e.iter().all(|&b| b == POISON) {
            e[0] ^= 1;
        }
    }
    v
}

fn seed_of(name: &str, n: usize) -> u64 {
    name.bytes().fold(n as u64 ^ 0x9e37_79b9_7f4a_7c15, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn enough_memory(gpu: &Gpu, bytes: usize) -> Result<bool, Failed> {
    let (free, _) = gpu.memory().map_err(|e| e.to_string())?;
    if free < bytes + (256 << 20) {
        eprintln!("skipped: needs {} MiB of device memory, {} MiB free", bytes >> 20, free >> 20);
        return Ok(false);
    }
    Ok(true)
}

fn compare<T: Element>(what: &str, got: &[T], want: &[T]) -> Check {
    match cpu::first_bit_difference(got, want) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: first difference at element {i} of {}: got {:?}, want {:?}",
            want.len(),
            got.get(i),
            want.get(i)
        )
        .into()),
    }
}

fn check_copy<T: Element>(gpu: &Gpu, len: usize) -> Check {
    if !enough_memory(gpu, 2 * len * size_of::<T>())? {
        return Ok(());
    }
    let host: Vec<T> = random(len, seed_of("copy", len));
    let src = gpu.upload(&host)?;
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(len)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.copy(&src, &mut dst)?;
    compare(&format!("copy of {len} × {}", std::any::type_name::<T>()), &gpu.download(&dst)?, &host)
}

fn check_transpose<T: Element>(gpu: &Gpu, kernel: TransposeKernel, shape: Shape) -> Check {
    let n = shape.elements()?;
    if !enough_memory(gpu, 2 * n * size_of::<T>())? {
        return Ok(());
    }
    let host: Vec<T> = random(n, seed_of(kernel.name(), n));
    let want = cpu::transpose(&host, shape)?;
    let src = gpu.upload(&host)?;
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(n)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.transpose_with(kernel, &src, &mut dst, shape)?;
    compare(&format!("{} of {shape} × {}", kernel.name(), std::any::type_name::<T>()), &gpu.download(&dst)?, &want)
}

fn launchers_reject_bad_arguments(gpu: &Gpu) -> Check {
    let src = gpu.upload(&[1.0f32; 12])?;
    let mut dst = gpu.alloc_zeros::<f32>(12)?;
    let mut short = gpu.alloc_zeros::<f32>(11)?;
    let expect = |r: bankwise::Result<()>, what: &str, ok: fn(&Error) -> bool| -> Check {
        match r {
            Err(e) if ok(&e) => Ok(()),
            other => Err(format!("{what}: got {other:?}").into()),
        }
    };
    for kernel in TransposeKernel::ALL {
        let r = gpu.transpose_with(kernel, &src, &mut short, Shape::new(3, 4));
        expect(r, "short dst", |e| matches!(e, Error::LengthMismatch { buffer: "dst", .. }))?;
        let r = gpu.transpose_with(kernel, &src, &mut dst, Shape::new(0, 4));
        expect(r, "zero rows", |e| matches!(e, Error::ZeroDimension { what: "rows" }))?;
        let r = gpu.transpose_with(kernel, &src, &mut dst, Shape::new(4, 4));
        expect(r, "wrong shape", |e| matches!(e, Error::LengthMismatch { buffer: "src", .. }))?;
        let r = gpu.transpose_with(kernel, &src, &mut dst, Shape::new(usize::MAX, 4));
        expect(r, "overflow", |e| matches!(e, Error::ShapeOverflow { .. }))?;
    }
    expect(gpu.copy(&src, &mut short), "copy into short", |e| matches!(e, Error::LengthMismatch { .. }))?;
    // The handle stays usable after rejected calls.
    gpu.transpose(&src, &mut dst, Shape::new(3, 4))?;
    compare("transpose after rejected calls", &gpu.download(&dst)?, &cpu::transpose(&[1.0f32; 12], Shape::new(3, 4))?)
}

fn missing_device_is_reported(_: &Gpu) -> Check {
    match Gpu::with_ordinal(4096) {
        Err(Error::NoDevice { ordinal: 4096, count }) if count >= 1 => Ok(()),
        other => Err(format!("expected NoDevice, got {other:?}").into()),
    }
}

// ---- bank-conflict probes ----

use bankwise::banks::{Access, Width};
use bankwise::probe::{self, DEFAULT_ITERATIONS, Op};

type AddTrial<'a> = dyn FnMut(String, Box<dyn FnOnce(&Gpu) -> Check + Send>) + 'a;

fn probe_trials(add: &mut AddTrial<'_>) {
    // Every pattern, both ops where the table runs both: `Gpu::probe` checks each lane's
    // checksum, so this proves the kernels access exactly the planned offsets.
    add("probe/checksums_of_every_pattern".into(), Box::new(probe_checksums));
    add("probe/conflict_free_is_faster_than_32_way".into(), Box::new(probe_conflict_free_is_faster));
    for op in Op::ALL {
        add(format!("probe/model_agrees/{op}"), Box::new(move |g| probe_model_agrees(g, op)));
    }
    add("probe/rejects_bad_arguments".into(), Box::new(probe_rejects_bad_arguments));
}

fn probe_checksums(gpu: &Gpu) -> Check {
    for p in probe::patterns() {
        for &op in p.ops {
            gpu.probe(&p.access, op, 2).map_err(|e| format!("{} {op}: {e}", p.name))?;
        }
    }
    Ok(())
}

fn cycles(gpu: &Gpu, access: &Access, op: Op) -> Result<f64, Failed> {
    Ok(gpu.probe(access, op, DEFAULT_ITERATIONS)?.cycles_per_access)
}

fn probe_conflict_free_is_faster(gpu: &Gpu) -> Check {
    for op in Op::ALL {
        let free = cycles(gpu, &Access::strided(Width::B4, 0, 1), op)?;
        let column = cycles(gpu, &Access::strided(Width::B4, 0, 32), op)?;
        if free * 8.0 > column {
            return Err(
                format!("{op}: stride-1 {free:.2} cycles/access, stride-32 {column:.2}: expected ≥ 8× apart").into()
            );
        }
    }
    Ok(())
}

/// Clear cases: normalised wavefronts within `probe::agrees` (20% or half a wavefront).
fn probe_model_agrees(gpu: &Gpu, op: Op) -> Check {
    let one = cycles(gpu, &Access::strided(Width::B4, 0, 1), op)?;
    let cases = [
        ("stride-2", Access::strided(Width::B4, 0, 2)),
        ("stride-3", Access::strided(Width::B4, 0, 3)),
        ("stride-8", Access::strided(Width::B4, 0, 8)),
        ("stride-32", Access::strided(Width::B4, 0, 32)),
        ("broadcast", Access::strided(Width::B4, 0, 0)),
        ("b8-stride-1", Access::strided(Width::B8, 0, 1)),
        ("b16-stride-1", Access::strided(Width::B16, 0, 1)),
    ];
    let mut report = Vec::new();
    for (name, access) in cases {
        let model = probe::predict(&access, op).map_err(|e| e.to_string())?.wavefronts();
        let measured = probe::normalised(cycles(gpu, &access, op)?, one);
        eprintln!("probe {op} {name}: model {model} wavefronts, measured {measured:.2}");
        if !probe::agrees(model, measured) {
            report.push(format!("{name}: model {model}, measured {measured:.2}"));
        }
    }
    if report.is_empty() { Ok(()) } else { Err(format!("{op}: {}", report.join("; ")).into()) }
}

/// What a rejected probe is: a name, the access, its iterations, and the expected error.
type BadProbe = (&'static str, Access, u32, fn(&Error) -> bool);

fn probe_rejects_bad_arguments(gpu: &Gpu) -> Check {
    let cases: [BadProbe; 4] = [
        ("no lanes", Access::strided(Width::B4, 0, 1).with_mask(0), 1, |e| matches!(e, Error::ProbeNoActiveLane)),
        ("misaligned", Access::strided(Width::B8, 4, 1), 1, |e| matches!(e, Error::ProbeMisaligned { lane: 0, .. })),
        ("out of bounds", Access::strided(Width::B4, 0, 1 << 20), 1, |e| {
            matches!(e, Error::ProbeOutOfBounds { lane: 1, .. })
        }),
        ("zero iterations", Access::strided(Width::B4, 0, 1), 0, |e| matches!(e, Error::ProbeIterations { .. })),
    ];
    for (what, access, iterations, ok) in cases {
        match gpu.probe(&access, Op::Load, iterations) {
            Err(e) if ok(&e) => {}
            other => return Err(format!("{what}: got {other:?}").into()),
        }
    }
    // The handle stays usable.
    gpu.probe(&Access::strided(Width::B4, 0, 1), Op::Store, 1)?;
    Ok(())
}
