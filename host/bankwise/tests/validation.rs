//! Argument validation of every launcher, on the CPU: each bad input gets its own error,
//! and good input gets the launch the kernel expects. The launchers call these same `plan`
//! functions before touching the GPU (the GPU tests check the launchers themselves).

use bankwise::tuning::h100::TARGET as H100;
use bankwise::{Error, Gpu, Shape, TransposeKernel, copy, kernels, transpose};
use bankwise_builtin::TransposeParams;

fn plan_t<T: bankwise::Element>(
    shape: Shape,
    src: usize,
    dst: usize,
) -> bankwise::Result<bankwise::gpu::Launch<TransposeParams<T::Word>>> {
    transpose::plan::<T>(TransposeKernel::Naive, src, dst, shape, H100)
}

/// The tuned transpose's launch for `shape`, with buffers of exactly its size.
fn tuned<T: bankwise::Element>(shape: Shape) -> bankwise::gpu::Launch<TransposeParams<T::Word>> {
    let n = shape.elements().unwrap();
    transpose::plan::<T>(TransposeKernel::Tuned, n, n, shape, H100).unwrap()
}

#[test]
fn transpose_rejects_each_zero_dimension_by_name() {
    for (shape, what) in [(Shape::batched(0, 4, 4), "batch"), (Shape::new(0, 4), "rows"), (Shape::new(4, 0), "cols")] {
        match plan_t::<f32>(shape, 16, 16) {
            Err(Error::ZeroDimension { what: w }) => assert_eq!(w, what),
            other => panic!("{shape}: expected ZeroDimension({what}), got {other:?}"),
        }
    }
}

#[test]
fn transpose_rejects_overflowing_shapes() {
    for shape in [Shape::batched(usize::MAX, 2, 2), Shape::new(1 << 40, 1 << 40), Shape::new(usize::MAX / 4, 3)] {
        let err = plan_t::<u8>(shape, 1, 1).unwrap_err();
        assert!(matches!(err, Error::ShapeOverflow { .. }), "{shape}: {err:?}");
        assert!(err.to_string().contains(&shape.to_string()), "message names the shape: {err}");
    }
}

#[test]
fn transpose_rejects_mismatched_src_and_dst_lengths() {
    let shape = Shape::new(31, 33);
    let err = plan_t::<f64>(shape, 31 * 33 - 1, 31 * 33).unwrap_err();
    assert!(matches!(err, Error::LengthMismatch { buffer: "src", expected: 1023, actual: 1022, .. }), "{err:?}");
    let err = plan_t::<f64>(shape, 31 * 33, 31 * 33 + 1).unwrap_err();
    assert!(matches!(err, Error::LengthMismatch { buffer: "dst", expected: 1023, actual: 1024, .. }), "{err:?}");
    assert_eq!(err.to_string(), "dst holds 1024 elements but shape 31×33 needs 1023");
}

#[test]
fn transpose_picks_the_entry_of_the_element_width() {
    let shape = Shape::new(2, 3);
    assert_eq!(plan_t::<u8>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u8");
    assert_eq!(plan_t::<i16>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u16");
    assert_eq!(plan_t::<bankwise::half::f16>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u16");
    assert_eq!(plan_t::<bankwise::half::bf16>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u16");
    assert_eq!(plan_t::<f32>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u32");
    assert_eq!(plan_t::<i32>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u32");
    assert_eq!(plan_t::<f64>(shape, 6, 6).unwrap().kernel.name(), "transpose_naive_u64");
    for kernel in TransposeKernel::ALL {
        for t in [0, 1, 2, 3] {
            let name = match t {
                0 => transpose::plan::<u8>(kernel, 6, 6, shape, H100).map(|l| l.kernel.name()),
                1 => transpose::plan::<u16>(kernel, 6, 6, shape, H100).map(|l| l.kernel.name()),
                2 => transpose::plan::<u32>(kernel, 6, 6, shape, H100).map(|l| l.kernel.name()),
                _ => transpose::plan::<u64>(kernel, 6, 6, shape, H100).map(|l| l.kernel.name()),
            }
            .unwrap();
            assert!(name.starts_with(kernel.name()) && kernels::ALL.contains(&name), "{name}");
        }
    }
}

#[test]
fn transpose_grid_covers_the_tiles_within_hardware_limits() {
    let plan = plan_t::<f32>(Shape::batched(3, 1000, 33), 99_000, 99_000).unwrap();
    // x down the ⌈1000/32⌉ tiles of a column of tiles, y across the ⌈33/32⌉ columns, z over 3 matrices.
    assert_eq!(plan.grid, (32, 2, 3));
    assert_eq!(plan.block, (32, 8, 1));
    // Past the hardware's grid limits the grid is capped; the kernel's loops do the rest.
    let wide = Shape::batched(70_000, 1, 3_000_000);
    let n = wide.elements().unwrap();
    let plan = plan_t::<u8>(wide, n, n).unwrap();
    assert_eq!(plan.grid, (1, 65_535, 65_535));
}

#[test]
fn copy_rejects_mismatched_lengths_and_skips_empty_copies() {
    let err = copy::plan::<f32>(10, 11, H100).unwrap_err();
    assert!(matches!(err, Error::LengthMismatch { buffer: "dst", expected: 10, actual: 11, .. }), "{err:?}");
    assert_eq!(copy::plan::<f32>(0, 0, H100).unwrap(), None);
    assert!(matches!(copy::plan::<u64>(usize::MAX / 2, usize::MAX / 2, H100), Err(Error::ShapeOverflow { .. })));
}

#[test]
fn copy_grid_fills_the_device_and_no_more() {
    let plan = copy::plan::<u8>(17, 17, H100).unwrap().unwrap();
    assert_eq!((plan.kernel.name(), plan.grid, plan.block), ("copy_bytes", (1, 1, 1), (256, 1, 1)));
    // 2^28 floats = 2^26 vectors of 16 bytes = 262,144 blocks of 256 vectors (one per
    // thread), capped at the H100 table's 64 per SM.
    let plan = copy::plan::<f32>(1 << 28, 1 << 28, H100).unwrap().unwrap();
    assert_eq!(plan.grid, (132 * 64, 1, 1));
    let plan = copy::plan::<f32>(1 << 16, 1 << 16, H100).unwrap().unwrap();
    assert_eq!(plan.grid, (64, 1, 1));
    // A vector short of a block's: still one block, and the tail's bytes with it.
    let plan = copy::plan::<u8>(255 * 16 + 15, 255 * 16 + 15, H100).unwrap().unwrap();
    assert_eq!(plan.grid, (1, 1, 1));
}

/// What `copy::plan_rows` returns: the launch of `copy_rows_aligned`, if there is anything to copy.
type RowsPlan = bankwise::Result<Option<bankwise::gpu::Launch<(*mut u32, u64, *const u32, u64, u64, u64)>>>;

#[test]
fn row_copies_check_every_argument_and_give_each_row_a_warp() {
    let what = |r: RowsPlan| match r {
        Err(Error::Runtime(bankwise::runtime::Error::BadRowCopy { what, .. })) => what,
        other => panic!("expected BadRowCopy, got {other:?}"),
    };
    // 3 rows of 5 f32 from rows 7 apart into rows 8 apart: 19 and 24 elements.
    let plan = copy::plan_rows::<f32>((19, 7), (24, 8), (3, 5), H100).unwrap().unwrap();
    assert_eq!((plan.kernel.name(), plan.grid, plan.block), ("copy_rows_aligned", (1, 1, 1), (256, 1, 1)));
    assert_eq!(copy::plan_rows::<f32>((0, 7), (0, 8), (0, 5), H100).unwrap(), None);
    assert_eq!(copy::plan_rows::<f32>((0, 7), (0, 8), (3, 0), H100).unwrap(), None);
    assert!(what(copy::plan_rows::<f32>((18, 7), (24, 8), (3, 5), H100)).contains("source"));
    // The last row's padding (elements 21..24) must fit too.
    assert!(what(copy::plan_rows::<f32>((19, 7), (23, 8), (3, 5), H100)).contains("padded"));
    assert!(what(copy::plan_rows::<f32>((19, 7), (24, 6), (3, 5), H100)).contains("16 bytes"));
    assert!(what(copy::plan_rows::<f64>((19, 7), (24, 7), (3, 5), H100)).contains("16 bytes"));
    assert!(what(copy::plan_rows::<f32>((19, 4), (24, 8), (3, 5), H100)).contains("longer"));
    assert!(what(copy::plan_rows::<u16>((19, 7), (24, 8), (3, 5), H100)).contains("narrower"));
    assert!(what(copy::plan_rows::<f64>((1, usize::MAX), (2, usize::MAX - 1), (1, 1), H100)).contains("overflows"));
    // A warp per row, 8 per block, at most the copy's 64 blocks per SM.
    let plan = copy::plan_rows::<f32>((4095 * 4093, 4093), (4095 * 4096, 4096), (4095, 4093), H100).unwrap().unwrap();
    assert_eq!(plan.grid, (512, 1, 1));
    let plan = copy::plan_rows::<f32>((1 << 20, 1), (4 << 20, 4), (1 << 20, 1), H100).unwrap().unwrap();
    assert_eq!(plan.grid, (132 * 64, 1, 1));
}

#[test]
fn opening_a_gpu_without_a_driver_says_so() {
    if bankwise::gpu::driver_present().is_ok() {
        eprintln!("skipped: a CUDA driver is present here; the GPU tests cover this path");
        return;
    }
    let err = Gpu::new().unwrap_err();
    assert!(matches!(err, Error::NoDriver(_)), "{err:?}");
    assert!(err.to_string().starts_with("no CUDA driver"), "{err}");
}

#[test]
fn ladder_kernels_get_the_shared_memory_of_their_tile() {
    let shape = Shape::new(64, 64);
    let shared = |k, bytes: usize| {
        match bytes {
            1 => transpose::plan::<u8>(k, 4096, 4096, shape, H100).map(|l| l.used_shared_bytes()),
            2 => transpose::plan::<u16>(k, 4096, 4096, shape, H100).map(|l| l.used_shared_bytes()),
            4 => transpose::plan::<f32>(k, 4096, 4096, shape, H100).map(|l| l.used_shared_bytes()),
            _ => transpose::plan::<f64>(k, 4096, 4096, shape, H100).map(|l| l.used_shared_bytes()),
        }
        .unwrap()
    };
    for bytes in [1, 2, 4, 8] {
        assert_eq!(shared(TransposeKernel::Naive, bytes), 0);
        assert_eq!(shared(TransposeKernel::Tiled, bytes), 32 * 32 * bytes as u32);
        assert_eq!(shared(TransposeKernel::Swizzled, bytes), 32 * 32 * bytes as u32);
    }
    // One extra 4-byte word per row for sub-word elements, one element otherwise.
    assert_eq!(shared(TransposeKernel::Padded, 1), 32 * 36);
    assert_eq!(shared(TransposeKernel::Padded, 2), 32 * 34 * 2);
    assert_eq!(shared(TransposeKernel::Padded, 4), 32 * 33 * 4);
    assert_eq!(shared(TransposeKernel::Padded, 8), 32 * 33 * 8);
}

#[test]
fn tuned_transpose_takes_vectors_where_rows_and_columns_allow_and_falls_back_otherwise() {
    let aligned = Shape::new(8192, 8192);
    let n = aligned.elements().unwrap();
    // One block per tile, the grid (tiles down a column, columns of tiles, matrices): 64² tiles
    // for f32, 64 × 32 for f64 (padded to a pitch of 33), 128² for u8.
    let plan = transpose::plan::<f32>(TransposeKernel::Tuned, n, n, aligned, H100).unwrap();
    assert_eq!(
        (plan.kernel.name(), plan.grid, plan.block, plan.used_shared_bytes(), plan.resident),
        ("transpose_u32", (128, 128, 1), (256, 1, 1), 16384, Some(4))
    );
    let plan = transpose::plan::<f64>(TransposeKernel::Tuned, n, n, aligned, H100).unwrap();
    assert_eq!(
        (plan.kernel.name(), plan.grid, plan.used_shared_bytes()),
        ("transpose_u64", (128, 256, 1), 64 * 33 * 8)
    );
    let plan = transpose::plan::<u8>(TransposeKernel::Tuned, n, n, aligned, H100).unwrap();
    assert_eq!((plan.kernel.name(), plan.grid, plan.used_shared_bytes()), ("transpose_u8", (64, 64, 1), 16384));
    // 16 / 4 = 4 elements per vector: rows of 8193 floats do not all start 16-byte aligned.
    for (shape, kernel) in [
        (Shape::new(8191, 8193), "transpose_unaligned_u32"),
        (Shape::new(4100, 8193), "transpose_unaligned_u32"),
        (Shape::new(4100, 8188), "transpose_u32"),
        (Shape::batched(3, 4, 12), "transpose_u32"),
        (Shape::batched(3, 5, 12), "transpose_unaligned_u32"),
    ] {
        assert_eq!(tuned::<i32>(shape).kernel.name(), kernel, "{shape}");
    }
    let odd = Shape::new(8191, 8193);
    let n = odd.elements().unwrap();
    // Tiles of 128 rows × 64 floats: ⌈8191/128⌉ × ⌈8193/64⌉.
    let plan = transpose::plan::<f32>(TransposeKernel::Tuned, n, n, odd, H100).unwrap();
    assert_eq!(
        (plan.kernel.name(), plan.grid, plan.block, plan.used_shared_bytes()),
        ("transpose_unaligned_u32", (64, 129, 1), (256, 1, 1), 128 * 64 * 4)
    );
    // Past 2³² elements, 64-bit indices.
    let huge = Shape::new(65_537, 65_537);
    let h = huge.elements().unwrap();
    let plan = transpose::plan::<f32>(TransposeKernel::Tuned, h, h, huge, H100).unwrap();
    assert_eq!(plan.kernel.name(), "transpose_unaligned_large_u32");
    // 8-byte elements take the same scalar kernel at any shape: ⌈8191/64⌉ × ⌈8193/32⌉ tiles.
    let plan = transpose::plan::<f64>(TransposeKernel::Tuned, n, n, odd, H100).unwrap();
    assert_eq!((plan.kernel.name(), plan.grid), ("transpose_u64", (128, 257, 1)));
    // Up to 2^22 8-byte elements whose rows start on a 32-byte sector (both dimensions
    // multiples of 4), the small kernel: 32 × 32 tiles in blocks of 32 × 4 threads; up to 2^20,
    // its cache-streaming version.
    for (shape, kernel) in [
        (Shape::new(1024, 1024), "transpose_small_streaming_u64"),
        (Shape::new(1024, 1028), "transpose_small_u64"),
        (Shape::batched(4, 512, 512), "transpose_small_streaming_u64"),
        (Shape::new(2048, 2048), "transpose_small_u64"),
        (Shape::new(2048, 2049), "transpose_u64"),
        (Shape::new(2046, 2048), "transpose_u64"),
        (Shape::new(1023, 1025), "transpose_u64"),
        (Shape::batched(2, 2048, 1024), "transpose_small_u64"),
        (Shape::batched(3, 2048, 1024), "transpose_u64"),
    ] {
        assert_eq!(tuned::<u64>(shape).kernel.name(), kernel, "{shape}");
    }
    let small = Shape::new(1000, 4);
    let plan = transpose::plan::<f64>(TransposeKernel::Tuned, 4000, 4000, small, H100).unwrap();
    assert_eq!(
        (plan.kernel.name(), plan.grid, plan.block, plan.used_shared_bytes(), plan.resident),
        ("transpose_small_streaming_u64", (32, 1, 1), (32, 4, 1), 32 * 33 * 8, None)
    );
    // 2-byte elements of unaligned shapes take their unaligned kernel, in tiles of 128 × 128;
    // 1-byte ones the swizzled ladder kernel.
    let plan = transpose::plan::<u16>(TransposeKernel::Tuned, n, n, odd, H100).unwrap();
    assert_eq!(
        (plan.kernel.name(), plan.grid, plan.used_shared_bytes()),
        ("transpose_unaligned_u16", (64, 65, 1), 128 * 128 * 2)
    );
    let plan = transpose::plan::<u16>(TransposeKernel::Tuned, h, h, huge, H100).unwrap();
    assert_eq!(plan.kernel.name(), "transpose_unaligned_large_u16");
    assert_eq!(
        transpose::plan::<u8>(TransposeKernel::Tuned, n, n, odd, H100).unwrap().kernel.name(),
        "transpose_swizzled_u8"
    );
    assert_eq!(TransposeKernel::default(), TransposeKernel::Tuned);
}

#[test]
fn tuned_transpose_takes_one_tile_per_block_within_the_grid_and_falls_back_past_it() {
    // Batches past the grid's z limit: launches of 65 520 matrices (a multiple of 16, so each
    // launch's first matrix stays 16-byte aligned), one after another.
    assert_eq!(tuned::<f32>(Shape::batched(70_001, 16, 16)).grid, (1, 1, 65_520));
    assert_eq!(tuned::<f32>(Shape::batched(70_001, 2, 3)).kernel.name(), "transpose_unaligned_u32");
    assert_eq!(tuned::<f64>(Shape::batched(70_001, 2, 3)).grid, (1, 1, 65_520));
    // More columns of tiles than the grid's y limit (65 535): the swizzled ladder kernel,
    // which loops over tiles.
    for (shape, kernel) in
        [(Shape::new(16, 8_388_736), "transpose_swizzled_u8"), (Shape::new(16, 8_388_480), "transpose_u8")]
    {
        assert_eq!(tuned::<u8>(shape).kernel.name(), kernel, "{shape}");
    }
    assert_eq!(tuned::<f32>(Shape::new(16, 4_194_240)).kernel.name(), "transpose_u32");
    assert_eq!(tuned::<f32>(Shape::new(16, 4_194_304)).kernel.name(), "transpose_swizzled_u32");
    assert_eq!(tuned::<f32>(Shape::new(3, 4_194_305)).kernel.name(), "transpose_swizzled_u32");
    assert_eq!(tuned::<f64>(Shape::new(4, 2_097_184)).kernel.name(), "transpose_swizzled_u64");
    // The residency cap: 4-byte aligned transposes from 2^26 elements on, nothing else.
    assert_eq!(tuned::<f32>(Shape::new(8192, 8192)).resident, Some(4));
    assert_eq!(tuned::<i32>(Shape::batched(4, 4096, 4096)).resident, Some(4));
    assert_eq!(tuned::<f32>(Shape::new(8192, 8188)).resident, None);
    assert_eq!(tuned::<u16>(Shape::new(8192, 8192)).resident, None);
    assert_eq!(tuned::<f64>(Shape::new(8192, 8192)).resident, None);
}

#[test]
fn a_residency_cap_becomes_enough_shared_memory_that_no_more_blocks_fit() {
    let device = |per_sm, reserved, max| bankwise::gpu::DeviceInfo {
        shared_per_sm: per_sm,
        shared_reserved_per_block: reserved,
        shared_per_block_max: max,
        ..bankwise::DeviceInfo::example_sm90()
    };
    let h100 = device(233_472, 1024, 232_448);
    let plan = tuned::<f32>(Shape::new(8192, 8192));
    // The kernel declares its 16 KiB tile; the launch asks for the rest dynamically.
    assert_eq!(plan.kernel.shared_bytes(), 16_384);
    let shared = plan.block_shared_bytes_on(&h100);
    assert_eq!((shared, plan.shared_bytes_on(&h100)), (57_344, 57_344 - 16_384));
    assert_eq!(h100.shared_per_sm / (shared + 1024), 4);
    // A device with less shared memory per SM and no reservation (sm_70): 96 KiB / 4.
    assert_eq!(plan.block_shared_bytes_on(&device(98_304, 0, 98_304)), 24_576);
    // Never less than the tile itself, never more than a block may have.
    assert_eq!(plan.block_shared_bytes_on(&device(32_768, 1024, 32_768)), 16_384);
    let capped = bankwise::gpu::Launch { resident: Some(1), ..plan };
    assert_eq!(capped.block_shared_bytes_on(&h100), 232_448);
    // Uncapped launches keep what the kernel declares.
    let plan = tuned::<f32>(Shape::new(4096, 4096));
    assert_eq!((plan.resident, plan.shared_bytes_on(&h100), plan.block_shared_bytes_on(&h100)), (None, 0, 16_384));
}

/// Every entry's host form (which typed launches check their arguments against, at compile
/// time) takes what the module's entry takes: the same count of parameters, each a pointer or a
/// scalar or struct of the manifest's width, and the same declared shared memory. A host form
/// built from other kernel sources than the PTX would fail here (and `Module::kernel` would
/// refuse it as `StaleModule`).
#[test]
fn every_host_form_takes_what_its_entry_takes() {
    use bankwise::runtime::ArgKind;
    use bankwise::runtime::module::check_args;
    let entries = bankwise::gpu::module_entries();
    for &name in kernels::ALL {
        let host = bankwise::runtime::bankwise_emu::registry::find(name).unwrap_or_else(|e| panic!("{e}"));
        let kinds: Vec<ArgKind> = host
            .params
            .iter()
            .map(|p| if p.pointer { ArgKind::Ptr } else { ArgKind::Scalar { bytes: p.bytes } })
            .collect();
        let entry = entries.get(name).unwrap();
        check_args(entry, &kinds).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entry.shared_bytes, host.shared_bytes, "{name}'s declared shared memory");
    }
}

#[test]
fn a_missing_kernel_is_named_with_its_neighbours() {
    let err = bankwise::Error::from(bankwise::gpu::module_entries().get("transpose_u33").unwrap_err());
    match &err {
        bankwise::Error::Runtime(bankwise::runtime::Error::MissingKernel { near, .. }) => {
            assert!(near.iter().any(|n| n == "transpose_u32"), "{near:?}")
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().starts_with("the module has no kernel `transpose_u33`; similar entries"), "{err}");
}

/// The launch choices of a GPU's tuning table reach the plans: the copy's and the tuned
/// reduction's grids, the tuned transpose's residency caps, aligned and not.
#[test]
fn a_tables_launch_choices_reach_the_plans() {
    use bankwise::reduce::{ReduceKernel, Sum};
    use bankwise::tuning::{PlanTarget, h100};
    let mut table = h100::H100.clone();
    table.memory.copy_blocks_per_sm = 2;
    table.memory.reduce_blocks_per_sm = 3;
    table.memory.transpose_residency = Some(5);
    table.memory.unaligned_residency = Some(2);
    let target = PlanTarget::new(132, (9, 0), &table);
    let copy = copy::plan::<f32>(1 << 28, 1 << 28, target).unwrap().unwrap();
    assert_eq!(copy.grid.0, 2 * 132);
    let reduce = bankwise::reduce::plan::<f32, Sum>(ReduceKernel::Tuned, 1 << 28, .., 1, target).unwrap();
    assert_eq!(reduce.passes[0].launch.grid().0, 3 * 132);
    assert_eq!(reduce.scratch.0, 3 * 132);
    let (square, odd) = (Shape::new(8192, 8192), Shape::new(8191, 8193));
    let n = 8192 * 8192;
    assert_eq!(transpose::plan::<f32>(TransposeKernel::Tuned, n, n, square, target).unwrap().resident, Some(5));
    let m = 8191 * 8193;
    assert_eq!(transpose::plan::<f32>(TransposeKernel::Tuned, m, m, odd, target).unwrap().resident, Some(2));
    // The H100's own: capped at 4 from 2^26 elements, the odd shape uncapped.
    assert_eq!(transpose::plan::<f32>(TransposeKernel::Tuned, n, n, square, H100).unwrap().resident, Some(4));
    assert_eq!(transpose::plan::<f32>(TransposeKernel::Tuned, m, m, odd, H100).unwrap().resident, None);
}
