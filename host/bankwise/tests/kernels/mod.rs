//! Every kernel against the CPU reference, bit for bit (floats within a derived bound), on
//! random data, with the output poisoned before each launch: the trials that `gpu.rs` runs on a
//! GPU and `emulator.rs` on the CPU emulator (smaller sizes, and nothing that times).

mod arg_axes;
mod axes;
pub mod foreign;
mod matmul;
mod permute;

use std::sync::Arc;

use bankwise::half::{bf16, f16};
use bankwise::reduce::{Max, Min, Operation, Reducible, Sum};
use bankwise::tuning::PlanTarget;
use bankwise::{DeviceBuffer, Element, Error, Gpu, ReduceKernel, Shape, TransposeKernel, cpu};
use libtest_mimic::{Failed, Trial};
use rand::{RngCore, SeedableRng, rngs::SmallRng};

/// The byte every output is filled with before a launch. Inputs never contain an element made
/// of it (see [`random`]), so an element the kernel failed to write always shows.
const POISON: u8 = 0xA5;

pub type Check = Result<(), Failed>;

/// Where the trials run: sizes and timing trials differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // each test binary names one
pub enum Target {
    /// A GPU: every size up to past 2^31 elements, timings, occupancy.
    Gpu,
    /// The CPU emulator: sizes up to about 2^17 elements, no timing.
    Emulator,
}

/// Whether a size of `elements` runs on `target`.
fn fits(target: Target, elements: usize) -> bool {
    target == Target::Gpu || elements <= 1 << 17
}

/// Every trial for `target`, on `gpu` (ignored, with the reason, where it is `None`).
pub fn trials(gpu: Option<Arc<Gpu>>, target: Target) -> Vec<Trial> {
    let on_gpu = target == Target::Gpu;
    let mut trials = Vec::new();
    let mut add = |name: String, f: Box<dyn FnOnce(&Gpu) -> Check + Send>| {
        let handle = gpu.clone();
        let trial = Trial::test(name, move || match handle {
            Some(gpu) => f(&gpu),
            None => Err("no GPU: see the reason printed above".into()),
        });
        trials.push(trial.with_ignored_flag(gpu.is_none()));
    };

    for len in COPY_LENGTHS.into_iter().filter(|&n| fits(target, n)) {
        add(format!("copy/u8/{len}"), Box::new(move |g| check_copy::<u8>(g, len)));
        add(format!("copy/u16/{len}"), Box::new(move |g| check_copy::<u16>(g, len)));
        add(format!("copy/f32/{len}"), Box::new(move |g| check_copy::<f32>(g, len)));
        add(format!("copy/f64/{len}"), Box::new(move |g| check_copy::<f64>(g, len)));
        add(format!("copy/bf16/{len}"), Box::new(move |g| check_copy::<bf16>(g, len)));
    }
    for &(rows, cols, src_pad, dst_gap) in ROW_COPIES.iter().filter(|s| fits(target, s.0 * s.1)) {
        let name = format!("{rows}×{cols}+{src_pad}+{dst_gap}");
        let each = (rows, cols, src_pad, dst_gap);
        add(format!("copy_rows_aligned/f32/{name}"), Box::new(move |g| check_row_copy::<f32>(g, each)));
        add(format!("copy_rows_aligned/f64/{name}"), Box::new(move |g| check_row_copy::<f64>(g, each)));
    }
    for kernel in TransposeKernel::ALL {
        for (i, &(batch, rows, cols)) in
            TRANSPOSE_SHAPES.iter().enumerate().filter(|(_, s)| fits(target, s.0 * s.1 * s.2))
        {
            let shape = Shape::batched(batch, rows, cols);
            let k = kernel.name();
            add(format!("{k}/u8/{shape}"), Box::new(move |g| check_transpose::<u8>(g, kernel, shape)));
            add(format!("{k}/u16/{shape}"), Box::new(move |g| check_transpose::<u16>(g, kernel, shape)));
            add(format!("{k}/f32/{shape}"), Box::new(move |g| check_transpose::<f32>(g, kernel, shape)));
            add(format!("{k}/f64/{shape}"), Box::new(move |g| check_transpose::<f64>(g, kernel, shape)));
            // Half precision takes the 2-byte kernels: every third shape checks that it does.
            if i % 3 == 0 {
                add(format!("{k}/f16/{shape}"), Box::new(move |g| check_transpose::<f16>(g, kernel, shape)));
                add(format!("{k}/bf16/{shape}"), Box::new(move |g| check_transpose::<bf16>(g, kernel, shape)));
            }
        }
        if !on_gpu {
            continue;
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
        // 8-byte elements past 2^31 bytes, with neither dimension a multiple of a tile.
        let wide = Shape::new(23_173, 11_587);
        add(format!("{k}/f64/{wide}/past_2^31_bytes"), Box::new(move |g| check_transpose::<f64>(g, kernel, wide)));
        // 2-byte elements past 2^31 bytes on rows that do not start aligned (the tuned kernel's
        // 4-byte words).
        let odd = Shape::new(46_349, 23_175);
        add(format!("{k}/bf16/{odd}/past_2^31_bytes"), Box::new(move |g| check_transpose::<bf16>(g, kernel, odd)));
        if kernel == TransposeKernel::Tuned {
            // Past 2^32 elements on rows that do not start aligned, both sides past the skinny
            // transposes' 63: the unaligned kernels' 64-bit indices (`transpose_unaligned_large_*`).
            let batched = Shape::batched(4097, 1023, 1025);
            add(
                format!("{k}/bf16/{batched}/past_2^32_elements"),
                Box::new(move |g| check_transpose::<bf16>(g, kernel, batched)),
            );
            add(
                format!("{k}/f32/{batched}/past_2^32_elements"),
                Box::new(move |g| check_transpose::<f32>(g, kernel, batched)),
            );
            // A narrow side: the skinny transposes' 64-bit row offsets.
            let huge = Shape::new(5, 858_993_461);
            add(
                format!("{k}/bf16/{huge}/past_2^32_elements"),
                Box::new(move |g| check_transpose::<bf16>(g, kernel, huge)),
            );
            let huge = Shape::new(3, 1_431_655_769);
            add(
                format!("{k}/f32/{huge}/past_2^32_elements"),
                Box::new(move |g| check_transpose::<f32>(g, kernel, huge)),
            );
        }
    }
    if on_gpu {
        add("emulator/agrees_with_the_gpu_bit_for_bit".into(), Box::new(emulator_agrees));
        add("reduce_unrolled_warp_unsynced/sum/u32/the_h100_hides_its_race".into(), Box::new(unsynced_on_the_gpu));
        add("copy/f32/past_2^31_bytes".into(), Box::new(|g| check_copy::<f32>(g, (1 << 29) + 3)));
        add("transpose/residency_is_as_measured".into(), Box::new(transpose_residency_is_as_measured));
        add("transpose/capped_on_a_fresh_thread".into(), Box::new(transpose_capped_on_a_fresh_thread));
        add("missing_device_is_reported".into(), Box::new(missing_device_is_reported));
    }
    add("launchers_reject_bad_arguments".into(), Box::new(launchers_reject_bad_arguments));
    add("runtime/a_bankwise_kernel_launched_through_the_runtime".into(), Box::new(runtime_launch_of_copy_bytes));
    probe_trials(&mut add, target);
    matmul::trials(&mut add, target);
    permute::trials(&mut add, target);
    axes::trials(&mut add, target);
    arg_axes::trials(&mut add, target);
    foreign::trials(&mut add, target);
    // Properties over random shapes and ranges (seeded, so a failure reproduces).
    for kernel in TransposeKernel::ALL {
        add(format!("{}/random_shapes", kernel.name()), Box::new(move |g| transpose_random_shapes(g, kernel, target)));
    }
    for kernel in ReduceKernel::ALL {
        add(format!("{}/random_ranges", kernel.name()), Box::new(move |g| reduce_random_ranges(g, kernel, target)));
    }
    for kernel in ReduceKernel::ALL {
        reduce_trials(kernel, &mut add, target);
    }
    add("reduce/launchers_reject_bad_arguments".into(), Box::new(reduce_rejects_bad_arguments));
    trials
}

/// Lengths around every boundary of the copy kernel: the 16-byte vector, the 1024-vector block
/// step, and the grid-stride loop (132 SMs × 32 blocks × 1024 vectors ≈ 69 MB).
const COPY_LENGTHS: [usize; 32] = [
    1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 65, 127, 255, 256, 257, 1023, 1024, 1025, 4097, 16_383, 65_537,
    262_147, 1_000_003, 4_194_301, 4_194_304, 16_777_259, 25_000_000, 33_554_467, 70_000_001,
];

/// `(rows, cols, src_pad, dst_gap)` of `copy_rows_aligned`: one element, rows shorter than a
/// vector, of every length modulo 4, shorter and longer than a warp's step (128 vectors), more
/// rows than the grid's warps (132 SMs × 32 blocks × 8), and the tuned matrix multiply's odd
/// operands (4095 rows of 4093 elements). The source's rows are `cols + src_pad` apart, the
/// destination's `dst_gap` 16-byte vectors past each padded row.
const ROW_COPIES: [(usize, usize, usize, usize); 12] = [
    (1, 1, 0, 0),
    (3, 2, 1, 1),
    (5, 7, 0, 0),
    (2, 513, 3, 2),
    (17, 130, 2, 0),
    (64, 1021, 1, 1),
    (9, 4096, 0, 0),
    (40_000, 3, 0, 0),
    (100, 1, 6, 3),
    (7, 5, 0, 1),
    (4095, 4093, 0, 0),
    (4093, 4097, 0, 0),
];

/// (batch, rows, cols): degenerate, prime, odd, tile multiples and non-multiples, tall shapes,
/// wide ones past the grid's y limit (columns of tiles), batches past its z limit, and large
/// squares.
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
    // Between 2^20 and 2^22 elements, both dimensions multiples of 4: the tuned f64 kernel's
    // small tile without the streaming hint (smaller shapes of that kind take it with one).
    (1, 1536, 1536),
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
    // More columns of tiles than the grid's y limit for every tile width: 64-wide f32 tiles of
    // the unaligned kernel, then the vector path's 128-wide u8 and u16 tiles.
    (1, 3, 4_194_305),
    (1, 16, 8_388_736),
];

/// `n` random elements, none of whose bytes are all [`POISON`].
fn random<T: Element>(n: usize, seed: u64) -> Vec<T> {
    // SAFETY: Element types are plain integers and floats (`ValidAsZeroBits`): all zeros is a valid
    // value.
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

/// Tests that need over 1 GiB of device memory run one at a time: the harness runs tests in
/// parallel, and several multi-gigabyte ones at once could exhaust even an 80 GB device
/// between the free-memory check and the allocation.
static BIG: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether the device has room for `bytes`; holds [`BIG`] (through `guard`) for large ones.
fn enough_memory_locked(
    gpu: &Gpu,
    bytes: usize,
    guard: &mut Option<std::sync::MutexGuard<'static, ()>>,
) -> Result<bool, Failed> {
    if bytes > 1 << 30 {
        *guard = Some(BIG.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    }
    enough_memory(gpu, bytes)
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
    let mut big = None;
    if !enough_memory_locked(gpu, 2 * len * size_of::<T>(), &mut big)? {
        return Ok(());
    }
    let host: Vec<T> = random(len, seed_of("copy", len));
    let src = gpu.upload(&host)?;
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(len)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.copy(&src, &mut dst)?;
    compare(&format!("copy of {len} × {}", std::any::type_name::<T>()), &gpu.download(&dst)?, &host)
}

/// `copy_rows_aligned` of `rows × cols` from rows `cols + src_pad` apart (the padding poison)
/// into rows padded to 16 bytes and `dst_gap` vectors apart, with 5 spare elements after the
/// last: each row copied, its padding zero, the gaps and spare elements untouched.
fn check_row_copy<T: Element>(gpu: &Gpu, (rows, cols, src_pad, dst_gap): (usize, usize, usize, usize)) -> Check {
    let per_vector = 16 / size_of::<T>();
    let (src_ld, padded) = (cols + src_pad, cols.next_multiple_of(per_vector));
    let dst_ld = padded + dst_gap * per_vector;
    let src_len = (rows - 1) * src_ld + cols;
    let host: Vec<T> = random(src_len, seed_of("copy_rows_aligned", src_len));
    let src = gpu.upload(&host)?;
    let dst_len = rows * dst_ld + 5;
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(dst_len)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    let (spare, zero) = (gpu.download(&dst)?[0], gpu.download(&gpu.alloc_zeros::<T>(1)?)?[0]);
    gpu.copy_rows_aligned(&src, src_ld, &mut dst, dst_ld, (rows, cols))?;
    let mut want = vec![spare; dst_len];
    for r in 0..rows {
        want[r * dst_ld..r * dst_ld + cols].copy_from_slice(&host[r * src_ld..r * src_ld + cols]);
        want[r * dst_ld + cols..r * dst_ld + padded].fill(zero);
    }
    compare(
        &format!("copy_rows_aligned of {rows} × {cols} from rows {src_ld} apart into rows {dst_ld} apart"),
        &gpu.download(&dst)?,
        &want,
    )
}

fn check_transpose<T: Element>(gpu: &Gpu, kernel: TransposeKernel, shape: Shape) -> Check {
    let n = shape.elements()?;
    let mut big = None;
    if !enough_memory_locked(gpu, 2 * n * size_of::<T>(), &mut big)? {
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

/// A GPU whose table caps the large `f32` transposes' residency: `gpu`, or `gpu` planning with
/// the H100's table where its own sets no cap (the H200's), so that the capped launch is tried
/// on every GPU.
fn with_transpose_cap(gpu: &Gpu) -> Gpu {
    match gpu.tuning().memory.transpose_residency {
        Some(_) => gpu.clone(),
        None => gpu.with_tuning(&bankwise::tuning::h100::H100),
    }
}

/// The tuned transposes' blocks per SM, by the driver's occupancy calculator: on sm_90 the
/// residencies their figures were measured with (docs/benchmarks.md); anywhere, a residency
/// cap that holds the kernel to fewer blocks than it would otherwise get; no cap where the
/// GPU's table sets none.
fn transpose_residency_is_as_measured(gpu: &Gpu) -> Check {
    use bankwise::transpose::plan;
    let (big, n) = (Shape::new(8192, 8192), 8192 * 8192);
    if gpu.tuning().memory.transpose_residency.is_none() {
        let own = plan::<f32>(TransposeKernel::Tuned, n, n, big, gpu.plan_target())?;
        if own.resident.is_some() {
            return Err(format!("{}'s table sets no cap, the plan has {:?}", gpu.tuning().device, own.resident).into());
        }
    }
    let gpu = &with_transpose_cap(gpu);
    let (tuned, target) = (TransposeKernel::Tuned, gpu.plan_target());
    let (big, mid, small) = (Shape::new(8192, 8192), Shape::new(4096, 4096), Shape::new(1024, 1024));
    let (nb, nm, ns) = (big.elements()?, mid.elements()?, small.elements()?);
    let capped = plan::<f32>(tuned, nb, nb, big, target)?;
    let uncapped = plan::<f32>(tuned, nm, nm, mid, target)?;
    let cap = capped.resident.ok_or("8192² f32 should be capped")?;
    let (held, free) = (gpu.resident_blocks(&capped)?, gpu.resident_blocks(&uncapped)?);
    if held != cap || free <= cap {
        return Err(format!("transpose_u32: {held} blocks per SM capped at {cap}, {free} uncapped").into());
    }
    if gpu.info().compute_capability == (9, 0) {
        // (blocks per SM, entry) of each launch.
        let held = |resident: bankwise::Result<u32>, name: &'static str| resident.map(|r| (r, name));
        let small_f64 = plan::<f64>(tuned, ns, ns, small, target)?;
        let (big_f64, big_u16, big_u8) = (
            plan::<f64>(tuned, nb, nb, big, target)?,
            plan::<u16>(tuned, nb, nb, big, target)?,
            plan::<u8>(tuned, nb, nb, big, target)?,
        );
        let (odd, no) = (Shape::new(8191, 8193), 8191 * 8193);
        let (odd_f32, odd_u16) = (plan::<f32>(tuned, no, no, odd, target)?, plan::<u16>(tuned, no, no, odd, target)?);
        for (got, want) in [
            (held(gpu.resident_blocks(&uncapped), uncapped.kernel.name())?, 8),
            (held(gpu.resident_blocks(&small_f64), small_f64.kernel.name())?, 16),
            (held(gpu.resident_blocks(&big_f64), big_f64.kernel.name())?, 5),
            (held(gpu.resident_blocks(&big_u16), big_u16.kernel.name())?, 4),
            (held(gpu.resident_blocks(&big_u8), big_u8.kernel.name())?, 8),
            (held(gpu.resident_blocks(&odd_f32), odd_f32.kernel.name())?, 3),
            (held(gpu.resident_blocks(&odd_u16), odd_u16.kernel.name())?, 4),
        ] {
            let (got, kernel) = got;
            if got != want {
                return Err(format!("{kernel}: {got} blocks per SM on sm_90, measured with {want}").into());
            }
        }
    }
    Ok(())
}

/// A capped launch raises its kernel's shared-memory limit, which, unlike a launch, needs the
/// context current on the calling thread: a thread whose first call is the transpose (or the
/// occupancy query) must still get it right.
fn transpose_capped_on_a_fresh_thread(gpu: &Gpu) -> Check {
    let gpu = &with_transpose_cap(gpu);
    let shape = Shape::new(8192, 8192);
    let n = shape.elements()?;
    let plan = bankwise::transpose::plan::<f32>(TransposeKernel::Tuned, n, n, shape, gpu.plan_target())?;
    if plan.resident.is_none() {
        return Err("8192² f32 should be capped".into());
    }
    let host: Vec<f32> = random(n, seed_of("capped_on_a_fresh_thread", n));
    let src = gpu.upload(&host)?;
    let mut dst: DeviceBuffer<f32> = gpu.alloc_zeros(n)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    gpu.synchronize()?;
    // Each on a thread of its own, so neither finds the context made current by the other.
    let (blocks, transposed) = std::thread::scope(|s| {
        let blocks = s.spawn(|| gpu.resident_blocks(&plan));
        let transposed = s.spawn(|| gpu.transpose(&src, &mut dst, shape));
        (blocks.join(), transposed.join())
    });
    let panicked = |_| "a fresh thread panicked";
    transposed.map_err(panicked)??;
    let blocks = blocks.map_err(panicked)??;
    if Some(blocks) != plan.resident {
        return Err(format!("{blocks} blocks per SM on a fresh thread, capped at {:?}", plan.resident).into());
    }
    compare("capped transpose from a fresh thread", &gpu.download(&dst)?, &cpu::transpose(&host, shape)?)
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
    let bad_rows = |e: &Error| matches!(e, Error::Runtime(bankwise::runtime::Error::BadRowCopy { .. }));
    // 3 rows of 4 into rows 4 apart need 12 elements; `short` holds 11.
    expect(gpu.copy_rows_aligned(&src, 4, &mut short, 4, (3, 4)), "row copy into short", bad_rows)?;
    // Rows 6 apart do not start on 16 bytes; rows of 5 are longer than 4.
    expect(gpu.copy_rows_aligned(&src, 4, &mut dst, 6, (2, 4)), "unaligned rows", bad_rows)?;
    expect(gpu.copy_rows_aligned(&src, 4, &mut dst, 8, (2, 5)), "rows past src_ld", bad_rows)?;
    // The third row ends at element 11 of `short`, which holds 11; padded, it ends at 12.
    expect(
        gpu.copy_rows_aligned(&src, 3, &mut short, 4, (3, 3)),
        "padding past the end",
        |e| matches!(e, Error::Runtime(bankwise::runtime::Error::BadRowCopy { what, .. }) if what.contains("padded")),
    )?;
    let (bytes, mut bytes_dst) = (gpu.upload(&[1u8; 64])?, gpu.alloc_zeros::<u8>(64)?);
    expect(gpu.copy_rows_aligned(&bytes, 8, &mut bytes_dst, 16, (2, 8)), "1-byte elements", bad_rows)?;
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

/// bankwise's module through the runtime's public API: look a kernel up, launch it with a
/// checked tuple of arguments, verify; a misspelt name and a wrong argument are typed errors.
fn runtime_launch_of_copy_bytes(gpu: &Gpu) -> Check {
    use bankwise::runtime::{LaunchConfig, verify};
    let n = 100_003;
    let host: Vec<u32> = random(n, 11);
    let src = gpu.upload(&host)?;
    let mut dst = gpu.alloc_zeros::<u32>(n)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    let copy = gpu.kernel("copy_bytes")?;
    // copy_bytes moves 16 bytes per thread with a grid-stride loop: any grid covers it.
    let config = LaunchConfig::linear(64, 256);
    let bytes = (n * 4) as u64;
    // SAFETY: `copy_bytes(dst, src, bytes)`: the first launch has a `u32` where the entry takes a
    // `u64` and is rejected before anything is queued (what this test checks); the second passes
    // `dst` and `src` of `bytes` bytes each.
    unsafe {
        let wrong = copy.launch(gpu.stream(), config, (&mut dst, &src, bytes as u32));
        if !matches!(wrong, Err(bankwise::runtime::Error::ArgumentMismatch { index: 2, .. })) {
            return Err(format!("a u32 byte count was not rejected: {wrong:?}").into());
        }
        copy.launch(gpu.stream(), config, (&mut dst, &src, bytes))?;
    }
    verify::exact(&gpu.download(&dst)?, &host)?.check()?;
    match gpu.kernel("copy_byte") {
        Err(Error::Runtime(bankwise::runtime::Error::MissingKernel { near, .. }))
            if near.contains(&"copy_bytes".into()) =>
        {
            Ok(())
        }
        other => Err(format!("expected MissingKernel near copy_bytes, got {other:?}").into()),
    }
}

// ---- bank-conflict probes ----

use bankwise::banks::{Access, Width};
use bankwise::probe::{self, DEFAULT_ITERATIONS, Op};

type AddTrial<'a> = dyn FnMut(String, Box<dyn FnOnce(&Gpu) -> Check + Send>) + 'a;

fn probe_trials(add: &mut AddTrial<'_>, target: Target) {
    // Every pattern, both ops where the table runs both: `Gpu::probe` checks each lane's
    // checksum, so this proves the kernels access exactly the planned offsets.
    add("probe/checksums_of_every_pattern".into(), Box::new(probe_checksums));
    if target == Target::Gpu {
        add("probe/conflict_free_is_faster_than_32_way".into(), Box::new(probe_conflict_free_is_faster));
        for op in Op::ALL {
            add(format!("probe/model_agrees/{op}"), Box::new(move |g| probe_model_agrees(g, op)));
        }
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

/// Lengths for every reduction kernel × operation × type: around the warp, the block (256 and
/// 512 elements), the vector, several passes, the tuned kernel's grid-stride loop; `/big`
/// ones (over 2^20) can be skipped under the sanitizers with `--skip /big`.
const REDUCE_LENGTHS: [usize; 42] = [
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    255,
    256,
    257,
    511,
    512,
    513,
    1023,
    1024,
    1025,
    2047,
    4097,
    65_535,
    65_536,
    65_537,
    131_073,
    262_147,
    1_000_003,
    4_194_301,
    4_194_304,
    16_777_259,
    25_000_000,
    33_554_467,
    70_000_001,
    1 << 20,
];

fn reduce_trials(kernel: ReduceKernel, add: &mut AddTrial<'_>, target: Target) {
    let k = kernel.name();
    for (i, &len) in REDUCE_LENGTHS.iter().enumerate().filter(|(_, n)| fits(target, **n)) {
        // Unaligned starts: offsets 0 … 4 elements into the buffer, in turn.
        let offset = i % 5;
        let big = if len > 1 << 20 { "/big" } else { "" };
        macro_rules! per_type {
            ($($t:ty),+) => {$(
                let t = stringify!($t);
                add(format!("{k}/sum/{t}/{len}+{offset}{big}"), Box::new(move |g| check_reduce::<$t, Sum>(g, kernel, Sum, len, offset)));
                add(format!("{k}/min/{t}/{len}+{offset}{big}"), Box::new(move |g| check_reduce::<$t, Min>(g, kernel, Min, len, offset)));
                add(format!("{k}/max/{t}/{len}+{offset}{big}"), Box::new(move |g| check_reduce::<$t, Max>(g, kernel, Max, len, offset)));
            )+};
        }
        per_type!(f32, f64, i32, u32, i64, u64);
    }
    let nans = [(1, 0), (1000, 999), (1_000_003, 0), (1_000_003, 500_001), (1_000_003, 1_000_002), (70_001, 35_000)];
    for (len, at) in nans.into_iter().filter(|&(n, _)| fits(target, n)) {
        add(format!("{k}/nan/f32/{len}@{at}"), Box::new(move |g| check_nan::<f32>(g, kernel, len, at)));
        add(format!("{k}/nan/f64/{len}@{at}"), Box::new(move |g| check_nan::<f64>(g, kernel, len, at)));
    }
    if target != Target::Gpu {
        return;
    }
    // Past 2^31 elements (32-bit indices overflow): a wrapping u32 sum, exact.
    let n = (1usize << 31) + 17;
    add(
        format!("{k}/sum/u32/{n}+3/past_2^31_elements"),
        Box::new(move |g| check_reduce::<u32, Sum>(g, kernel, Sum, n, 3)),
    );
}

/// Random test data: integers from random bits; floats finite, in [-1, 1) for sums (the
/// error bound is relative to Σ|x|) and from random bits (any finite value, ±0 included) for
/// min/max.
trait TestData: Reducible {
    fn data(n: usize, seed: u64, for_sum: bool) -> Vec<Self>;
    /// `Ok` if `got` is acceptable for the reduction of `data` by `O` with `kernel`.
    fn judge<O: Operation<Self>>(
        got: Self,
        data: &[Self],
        kernel: ReduceKernel,
        start: usize,
        target: PlanTarget<'static>,
    ) -> Result<(), String>;
}

macro_rules! int_data {
    ($($t:ty),+) => {$(
        impl TestData for $t {
            fn data(n: usize, seed: u64, _: bool) -> Vec<Self> {
                random(n, seed)
            }
            fn judge<O: Operation<Self>>(got: Self, data: &[Self], _: ReduceKernel, _: usize, _: PlanTarget<'static>) -> Result<(), String> {
                let want = data.iter().fold(O::identity(), |a, &b| O::combine(a, b));
                if got == want { Ok(()) } else { Err(format!("got {got}, want {want}").into()) }
            }
        }
    )+};
}
int_data!(i32, u32, i64, u64);

macro_rules! float_data {
    ($($t:ty => $u:expr),+) => {$(
        impl TestData for $t {
            fn data(n: usize, seed: u64, for_sum: bool) -> Vec<Self> {
                let mut v: Vec<$t> = random(n, seed);
                for x in &mut v {
                    if for_sum {
                        // The top MANTISSA_DIGITS + 1 bits over 2^(MANTISSA_DIGITS − 1): [0, 4),
                        // then [−1, 1) below, uniform.
                        let shift = 8 * size_of::<$t>() as u32 - (<$t>::MANTISSA_DIGITS + 1);
                        *x = (x.to_bits() >> shift) as $t / (1u64 << (<$t>::MANTISSA_DIGITS - 1)) as $t;
                        *x = (*x % 2.0) - 1.0;
                    } else if !x.is_finite() {
                        *x = <$t>::from_bits(x.to_bits() ^ (1 << (<$t>::MANTISSA_DIGITS + 2)));
                    }
                }
                v
            }
            fn judge<O: Operation<Self>>(got: Self, data: &[Self], kernel: ReduceKernel, start: usize, target: PlanTarget<'static>) -> Result<(), String> {
                if O::NAME != "sum" {
                    // min/max: exact, bit for bit (NaN is the canonical NaN).
                    let want = data.iter().fold(O::identity(), |a, &b| O::combine(a, b));
                    return if got.to_bits() == want.to_bits() { Ok(()) } else { Err(format!("got {got:e}, want {want:e}").into()) };
                }
                let (want, abs) = cpu::sum_reference(data);
                if want.is_nan() {
                    return if got.is_nan() { Ok(()) } else { Err(format!("got {got:e}, want NaN").into()) };
                }
                let depth = kernel.depth::<$t>(start, data.len(), target);
                let tol = cpu::sum_tolerance(depth, $u, data.len(), want, abs);
                let err = (got as f64 - want).abs();
                if err <= tol {
                    Ok(())
                } else {
                    Err(format!("got {got:e}, want {want:e}: error {err:e} > γ_{depth} · Σ|x| = {tol:e}").into())
                }
            }
        }
    )+};
}
float_data!(f32 => 2f64.powi(-24), f64 => 2f64.powi(-53));

fn check_reduce<T: TestData, O: Operation<T>>(
    gpu: &Gpu,
    kernel: ReduceKernel,
    op: O,
    len: usize,
    offset: usize,
) -> Check {
    let total = len + offset + 3;
    let mut big = None;
    if !enough_memory_locked(gpu, total * size_of::<T>() + (total / 128) * size_of::<T>(), &mut big)? {
        return Ok(());
    }
    let host = T::data(total, seed_of(&format!("{}{}", kernel.name(), O::NAME), len), O::NAME == "sum");
    let src = gpu.upload(&host)?;
    let range = offset..offset + len;
    let mut out: DeviceBuffer<T> = gpu.alloc_zeros(1)?;
    gpu.fill_bytes(&mut out, POISON)?;
    let mut scratch = gpu.reduce_scratch::<T>(kernel, len)?;
    gpu.reduce_into(kernel, op, &src, range.clone(), &mut out, &mut scratch)?;
    let got = gpu.download(&out)?[0];
    let what = format!("{} {} of {len} × {} at +{offset}", kernel.name(), O::NAME, std::any::type_name::<T>());
    T::judge::<O>(got, &host[range.clone()], kernel, offset, gpu.plan_target()).map_err(|e| format!("{what}: {e}"))?;
    // The allocating launcher, and a second run on the same scratch (the tuned kernel's
    // counter must have been reset), agree.
    let again = gpu.reduce_with(kernel, op, &src, range.clone())?;
    gpu.reduce_into(kernel, op, &src, range.clone(), &mut out, &mut scratch)?;
    let third = gpu.download(&out)?[0];
    for (run, v) in [("reduce_with", again), ("second reduce_into", third)] {
        T::judge::<O>(v, &host[range.clone()], kernel, offset, gpu.plan_target())
            .map_err(|e| format!("{what}, {run}: {e}"))?;
    }
    Ok(())
}

fn check_nan<T: TestData + num_nan::Nan>(gpu: &Gpu, kernel: ReduceKernel, len: usize, at: usize) -> Check
where
    Sum: Operation<T>,
    Min: Operation<T>,
    Max: Operation<T>,
{
    let mut host = T::data(len, seed_of("nan", len), true);
    host[at] = T::nan();
    let src = gpu.upload(&host)?;
    let what = |op: &str| format!("{} {op} of {len} with NaN at {at}", kernel.name());
    let sum = gpu.reduce_with(kernel, Sum, &src, ..)?;
    if !sum.is_nan_value() {
        return Err(format!("{}: got {sum:?}", what("sum")).into());
    }
    for (op, v) in [("min", gpu.reduce_with(kernel, Min, &src, ..)?), ("max", gpu.reduce_with(kernel, Max, &src, ..)?)]
    {
        if v.bits() != T::nan().bits() {
            return Err(format!("{}: got {v:?}, want the canonical NaN", what(op)).into());
        }
    }
    Ok(())
}

mod num_nan {
    pub trait Nan: Copy {
        fn nan() -> Self;
        fn is_nan_value(self) -> bool;
        fn bits(self) -> u64;
    }
    impl Nan for f32 {
        fn nan() -> Self {
            f32::NAN
        }
        fn is_nan_value(self) -> bool {
            self.is_nan()
        }
        fn bits(self) -> u64 {
            self.to_bits() as u64
        }
    }
    impl Nan for f64 {
        fn nan() -> Self {
            f64::NAN
        }
        fn is_nan_value(self) -> bool {
            self.is_nan()
        }
        fn bits(self) -> u64 {
            self.to_bits()
        }
    }
}

fn reduce_rejects_bad_arguments(gpu: &Gpu) -> Check {
    let src = gpu.upload(&[1u32, 2, 3, 4, 5])?;
    let mut out = gpu.alloc_zeros::<u32>(1)?;
    let mut empty_out = gpu.alloc_zeros::<u32>(0)?;
    for kernel in ReduceKernel::ALL {
        let r = gpu.reduce_with(kernel, Sum, &src, 2..6);
        if !matches!(r, Err(Error::RangeOutOfBounds { start: 2, end: 6, len: 5 })) {
            return Err(format!("{kernel:?} out of bounds: got {r:?}").into());
        }
        let mut scratch = gpu.reduce_scratch::<u32>(kernel, 5)?;
        let r = gpu.reduce_into(kernel, Sum, &src, .., &mut empty_out, &mut scratch);
        if !matches!(r, Err(Error::LengthMismatch { buffer: "out", .. })) {
            return Err(format!("{kernel:?} empty out: got {r:?}").into());
        }
        // Empty ranges give the identity.
        if gpu.reduce_with(kernel, Min, &src, 3..3)? != u32::MAX {
            return Err(format!("{kernel:?}: empty min is not u32::MAX").into());
        }
        gpu.reduce_into(kernel, Max, &src, 5.., &mut out, &mut scratch)?;
        if gpu.download(&out)?[0] != 0 {
            return Err(format!("{kernel:?}: empty max into out is not 0").into());
        }
        if gpu.reduce_with(kernel, Sum, &src, 1..)? != 14 {
            return Err(format!("{kernel:?}: 2+3+4+5 != 14").into());
        }
    }
    // Scratch made for a shorter input.
    let big = gpu.upload(&vec![1u32; 100_000])?;
    let mut small = gpu.reduce_scratch::<u32>(ReduceKernel::Sequential, 10)?;
    let r = gpu.reduce_into(ReduceKernel::Sequential, Sum, &big, .., &mut out, &mut small);
    if !matches!(r, Err(Error::ScratchTooSmall { .. })) {
        return Err(format!("small scratch: got {r:?}").into());
    }
    Ok(())
}

/// 40 random `[batch, rows, cols]` shapes per element width, each checked bit for bit.
fn transpose_random_shapes(gpu: &Gpu, kernel: TransposeKernel, target: Target) -> Check {
    use rand::Rng;
    let mut rng = SmallRng::seed_from_u64(seed_of(kernel.name(), 40));
    for i in 0..40 {
        // Mostly small dimensions, sometimes a few thousand, sometimes a multiple of 16 (the
        // tuned kernel's vector path), sometimes a batch.
        let dim = |rng: &mut SmallRng| match rng.random_range(0..4) {
            0 => rng.random_range(1..40),
            1 => rng.random_range(1..3000),
            2 => 16 * rng.random_range(1..200),
            _ => rng.random_range(1..300),
        };
        let (rows, cols) = (dim(&mut rng), dim(&mut rng));
        let batch = if rng.random_bool(0.25) { rng.random_range(2..5) } else { 1 };
        let shape = Shape::batched(batch, rows, cols);
        if !fits(target, batch * rows * cols) {
            continue;
        }
        let run = match i % 4 {
            0 => check_transpose::<u8>(gpu, kernel, shape),
            1 => check_transpose::<u16>(gpu, kernel, shape),
            2 => check_transpose::<f32>(gpu, kernel, shape),
            _ => check_transpose::<f64>(gpu, kernel, shape),
        };
        run.map_err(|e| format!("random shape {i} ({shape}): {}", e.message().unwrap_or("failed")))?;
    }
    Ok(())
}

/// 30 random ranges (length and unaligned start) per kernel, over the three operations.
fn reduce_random_ranges(gpu: &Gpu, kernel: ReduceKernel, target: Target) -> Check {
    use rand::Rng;
    let mut rng = SmallRng::seed_from_u64(seed_of(kernel.name(), 30));
    let most = if target == Target::Gpu { 3_000_000 } else { 1 << 17 };
    for i in 0..30 {
        let len = if rng.random_bool(0.5) { rng.random_range(0..5000) } else { rng.random_range(0..most) };
        let offset = rng.random_range(0..16);
        let run = match i % 6 {
            0 => check_reduce::<f32, Sum>(gpu, kernel, Sum, len, offset),
            1 => check_reduce::<i32, Min>(gpu, kernel, Min, len, offset),
            2 => check_reduce::<u64, Max>(gpu, kernel, Max, len, offset),
            3 => check_reduce::<f64, Sum>(gpu, kernel, Sum, len, offset),
            4 => check_reduce::<u32, Sum>(gpu, kernel, Sum, len, offset),
            _ => check_reduce::<f32, Max>(gpu, kernel, Max, len, offset),
        };
        run.map_err(|e| format!("random range {i} ({len} at +{offset}): {}", e.message().unwrap_or("failed")))?;
    }
    Ok(())
}

/// The GPU and the CPU emulator give bit-identical results for every transpose and every
/// integer reduction (floats differ where the two sum in different orders: the emulator's
/// grids are sized for its cores).
fn emulator_agrees(gpu: &Gpu) -> Check {
    let emu = Gpu::emulator()?;
    fn both<T: Element>(gpu: &Gpu, emu: &Gpu, kernel: TransposeKernel, shape: Shape) -> Check {
        let n = shape.batch * shape.rows * shape.cols;
        let data: Vec<T> = random(n, seed_of(kernel.name(), n));
        let mut out = Vec::new();
        for g in [gpu, emu] {
            let src = g.upload(&data)?;
            let mut dst = g.alloc_zeros::<T>(n)?;
            g.fill_bytes(&mut dst, POISON)?;
            g.transpose_with(kernel, &src, &mut dst, shape)?;
            out.push(g.download(&dst)?);
        }
        match bankwise::cpu::first_bit_difference(&out[0], &out[1]) {
            None => Ok(()),
            Some(i) => Err(format!("{} {shape}: element {i} differs between GPU and emulator", kernel.name()).into()),
        }
    }
    for kernel in TransposeKernel::ALL {
        for shape in [Shape::new(33, 65), Shape::batched(3, 64, 48), Shape::new(256, 256), Shape::new(1, 4099)] {
            both::<u8>(gpu, &emu, kernel, shape)?;
            both::<u16>(gpu, &emu, kernel, shape)?;
            both::<f32>(gpu, &emu, kernel, shape)?;
            both::<f64>(gpu, &emu, kernel, shape)?;
        }
    }
    fn reduce_both<T: TestData + std::fmt::Debug, O: Operation<T>>(
        gpu: &Gpu,
        emu: &Gpu,
        kernel: ReduceKernel,
        op: O,
    ) -> Check {
        for len in [1, 1000, 70_001] {
            let data = T::data(len, seed_of(kernel.name(), len), O::NAME == "sum");
            let (a, b) = (gpu.upload(&data)?, emu.upload(&data)?);
            let (x, y) = (gpu.reduce_with(kernel, op, &a, ..)?, emu.reduce_with(kernel, op, &b, ..)?);
            if x != y {
                return Err(format!("{} {} of {len}: GPU {x:?}, emulator {y:?}", kernel.name(), O::NAME).into());
            }
        }
        Ok(())
    }
    for kernel in ReduceKernel::ALL {
        reduce_both::<i32, Sum>(gpu, &emu, kernel, Sum)?;
        reduce_both::<u32, Min>(gpu, &emu, kernel, Min)?;
        reduce_both::<i64, Max>(gpu, &emu, kernel, Max)?;
        reduce_both::<u64, Sum>(gpu, &emu, kernel, Sum)?;
    }
    Ok(())
}

/// `reduce_unrolled_warp_unsynced` on the GPU: as measured on the H100 (its docs), the race
/// between the last warp's lanes does not show in the result (racecheck reports it as
/// warnings, the emulator as a race: `tests/emulator.rs`).
fn unsynced_on_the_gpu(gpu: &Gpu) -> Check {
    let n = 1 << 20;
    let data: Vec<u32> = random::<u32>(n, 7).into_iter().map(|x| x >> 12).collect();
    let blocks = n / 512;
    let src = gpu.upload(&data)?;
    let mut partials = gpu.alloc_zeros::<u32>(blocks)?;
    let config = bankwise::runtime::LaunchConfig::linear(blocks as u32, 256).with_shared_bytes(256 * 4);
    let kernel = gpu.kernel("reduce_unrolled_warp_unsynced_sum_u32")?;
    // Safety: each of the n / 512 blocks of 256 threads reads 512 inputs and writes one partial.
    unsafe { kernel.launch(gpu.stream(), config, (&mut partials, &src, n as u64))? };
    let got = gpu.download(&partials)?.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    let want = data.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    if got == want { Ok(()) } else { Err(format!("got {got}, want {want}").into()) }
}
