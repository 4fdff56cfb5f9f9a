//! The planner on the CPU: validation, fusion, and every plan's addresses run by a CPU
//! interpreter of the kernels' parameters against `cpu::permute`.

use proptest::prelude::*;

use super::*;
use crate::cpu;

#[test]
fn bad_permutations_are_typed_errors_that_say_what_is_wrong() {
    let msg = |dims: &[usize], perm: &[usize]| check(dims, perm).unwrap_err().to_string();
    assert_eq!(msg(&[], &[]), "dims [] has 0 axes; permute takes 1 to 8");
    assert_eq!(
        msg(&[1; 9], &[0, 1, 2, 3, 4, 5, 6, 7, 8]),
        "dims [1, 1, 1, 1, 1, 1, 1, 1, 1] has 9 axes; permute takes 1 to 8"
    );
    assert_eq!(
        msg(&[2, 3], &[0]),
        "perm [0] is not a permutation of the axes of dims [2, 3]: it has 1 entries, one per axis needs 2"
    );
    assert_eq!(
        msg(&[2, 3], &[0, 2]),
        "perm [0, 2] is not a permutation of the axes of dims [2, 3]: axis 2 is out of range (axes are 0 to 1)"
    );
    assert_eq!(
        msg(&[2, 3, 4], &[1, 1, 0]),
        "perm [1, 1, 0] is not a permutation of the axes of dims [2, 3, 4]: axis 1 appears twice"
    );
    assert!(matches!(check(&[1 << 40, 1 << 30], &[1, 0]), Err(Error::ShapeOverflow { .. })));
    assert_eq!(check(&[3, 0, 5], &[2, 1, 0]).unwrap(), 0);
    assert_eq!(check(&[7], &[0]).unwrap(), 7);
}

#[test]
fn fusion_drops_unit_axes_and_joins_axes_that_stay_adjacent() {
    let f = |dims: &[usize], perm: &[usize]| {
        let f = fuse(dims, perm);
        (f.sizes, f.perm)
    };
    assert_eq!(f(&[64, 64, 128, 128], &[0, 3, 1, 2]), (vec![64, 8192, 128], vec![0, 2, 1]));
    assert_eq!(f(&[1, 5, 1], &[2, 1, 0]), (vec![5], vec![0]));
    assert_eq!(f(&[2, 3, 4], &[0, 1, 2]), (vec![24], vec![0]));
    assert_eq!(f(&[32, 2048, 32, 32], &[0, 2, 1, 3]), (vec![32, 2048, 32, 32], vec![0, 2, 1, 3]));
    assert_eq!(f(&[2, 3, 4, 5], &[2, 3, 0, 1]), (vec![6, 20], vec![1, 0]));
    assert_eq!(f(&[16; 6], &[5, 4, 3, 2, 1, 0]), (vec![16; 6], vec![5, 4, 3, 2, 1, 0]));
    assert_eq!(f(&[1, 1, 1], &[2, 0, 1]), (vec![], vec![]));
}

#[test]
fn the_issues_cases_get_the_work_the_module_promises() {
    let plan = |dims: &[usize], perm: &[usize], w: Width| PermutePlan::new(dims, perm, w).unwrap().work;
    // Batched 2-D is the tuned transpose.
    assert_eq!(
        plan(&[256, 1024, 128], &[0, 2, 1], Width::B2),
        Work::Transpose { shape: Shape::batched(256, 1024, 128), width: Width::B2 }
    );
    assert_eq!(
        plan(&[64, 64, 128, 128], &[0, 3, 1, 2], Width::B4),
        Work::Transpose { shape: Shape::batched(64, 8192, 128), width: Width::B4 }
    );
    // Reversals are tiled, vectorized, with the tile's sides grown to the vector side.
    let Work::Tiled { params, tile: Tile::Vectorized, width: Some(Width::B4) } =
        plan(&[16; 6], &[5, 4, 3, 2, 1, 0], Width::B4)
    else {
        panic!("not tiled")
    };
    assert_eq!((params.rows.len, params.cols.len, params.rows.dims, params.cols.dims), (256, 256, 2, 2));
    assert_eq!(params.batch.count, 256);
    // A pixel shuffle: 2 output rows, so the columns grow to both 64-element axes and the
    // flat tile is 2 × 2048, full.
    let Work::Tiled { params, tile: Tile::Flat, .. } = plan(&[64, 64, 2, 2, 64, 64], &[0, 1, 4, 2, 5, 3], Width::B4)
    else {
        panic!("not flat")
    };
    assert_eq!((params.rows.len, params.cols.len, params.cols.dims), (2, 4096, 2));
    assert_eq!((1 << params.row_shift, 1 << params.col_shift), (2, 2048));
    // 4 rows × 1468 columns fill two 1024-wide tiles 72%: the columns grow by the next axis
    // (33 more), to 48 tiles 98.6% full.
    for width in [Width::B4, Width::B2] {
        let Work::Tiled { params, tile: Tile::Flat, .. } = plan(&[4, 291, 33, 4, 367], &[1, 3, 2, 4, 0], width) else {
            panic!("not flat")
        };
        assert_eq!((params.rows.len, params.cols.len, params.cols.dims, params.batch.count), (4, 48_444, 3, 291));
        assert_eq!((1 << params.row_shift, 1 << params.col_shift, params.tiles_across), (4, 1024, 48));
    }
    // Columns that fill their tiles well stay as they are (1009 in 16 tiles of 64), and rows
    // never grow: 133 rows (of 8-byte words) in two tiles of 128.
    let Work::Tiled { params, tile: Tile::Flat, .. } = plan(&[5, 1031, 13, 1009], &[3, 1, 2, 0], Width::B4) else {
        panic!("not flat")
    };
    assert_eq!((params.cols.len, params.cols.dims, params.tiles_across), (1009, 1, 16));
    let Work::Tiled { params, tile: Tile::Flat, width: Some(Width::B8) } =
        plan(&[133, 357, 307, 4], &[2, 1, 0, 3], Width::B2)
    else {
        panic!("not flat in 8-byte words")
    };
    assert_eq!((params.rows.len, params.rows.dims, params.tiles_down, params.batch.count), (133, 1, 2, 357));
    // Its `f32` kin keeps a run of 16 bytes: the flat tile of vectors, 32 × 32 (five tiles
    // down, ten across), not a gather of one-vector rows; 8-byte aligned tensors gather 8-byte
    // words.
    let f32_kin = PermutePlan::new(&[133, 357, 307, 4], &[2, 1, 0, 3], Width::B4).unwrap();
    let Work::Tiled { params, tile: Tile::Flat, width: None } = f32_kin.work else {
        panic!("not the flat tile of vectors: {f32_kin}")
    };
    assert_eq!((params.rows.len, params.cols.len, params.batch.count), (133, 307, 357));
    assert_eq!((1 << params.row_shift, 1 << params.col_shift, params.tiles_down, params.tiles_across), (32, 32, 5, 10));
    assert_eq!(params.pitch, 33);
    assert!(f32_kin.to_string().ends_with("133 rows × 307 columns (357 batch indices) of 16-byte words in 17850 tiles of 32 × 32, one element per access"), "{f32_kin}");
    assert!(matches!(
        PermutePlan::for_alignment(&[133, 357, 307, 4], &[2, 1, 0, 3], Width::B4, 8).unwrap().work,
        Work::Rows { width: Some(Width::B8), .. }
    ));
    // Three channels, NCHW to NHWC and back: skinny transposes of 3 × 82944 matrices.
    let Work::Skinny { params, interleave: true, width: Width::B4, word: 16 } =
        plan(&[256, 3, 288, 288], &[0, 2, 3, 1], Width::B4)
    else {
        panic!("not skinny")
    };
    assert_eq!((params.narrow, params.long, params.matrices, 1 << params.row_shift), (3, 82_944, 256, 256));
    let Work::Skinny { params, interleave: false, width: Width::B2, word: 16 } =
        plan(&[256, 288, 288, 3], &[0, 3, 1, 2], Width::B2)
    else {
        panic!("not skinny")
    };
    assert_eq!(
        (params.narrow, params.long, params.tiles_per_matrix),
        (3, 82_944, 82_944usize.div_ceil(256 * 8) as u64)
    );
    // A long side off the vector moves in narrower words; off 2 bytes, it keeps the flat tile.
    assert!(matches!(plan(&[8918 * 175, 43], &[1, 0], Width::B4), Work::Skinny { word: 8, .. }));
    assert!(matches!(plan(&[8918 * 175, 43], &[1, 0], Width::B2), Work::Skinny { word: 4, .. }));
    assert!(matches!(plan(&[8917 * 175, 43], &[1, 0], Width::B2), Work::Skinny { word: 2, .. }));
    assert!(matches!(plan(&[8918 * 175, 43], &[1, 0], Width::B1), Work::Skinny { word: 2, .. }));
    assert!(matches!(plan(&[8917 * 175, 43], &[1, 0], Width::B1), Work::Tiled { tile: Tile::Flat, .. }));
    // A 4-byte run of the innermost axis moves as one u32.
    assert_eq!(
        plan(&[512, 512, 2], &[1, 0, 2], Width::B2),
        Work::Transpose { shape: Shape::new(512, 512), width: Width::B4 }
    );
    // A longer one is a gather of rows, in 16-byte vectors where rows span whole vectors.
    let Work::Rows { params, width: None } = plan(&[32, 2048, 32, 32], &[0, 2, 1, 3], Width::B4) else {
        panic!("not rows")
    };
    assert_eq!((params.row_len, params.outer.count, params.rows_per_block), (8, 32 * 2048 * 32, 128));
}

/// Runs `plan` on the CPU: each word of `src` moved where the plan's parameters put it, with
/// the kernels' own address arithmetic; checks every word of `dst` is written once.
fn interpret(plan: &PermutePlan, src: &[u8]) -> Vec<u8> {
    let mut dst = vec![0u8; src.len()];
    let mut written = vec![0u8; src.len()];
    let mut put = |d: u64, s: u64, w: u64| {
        let (d, s, w) = (d as usize * w as usize, s as usize * w as usize, w as usize);
        dst[d..d + w].copy_from_slice(&src[s..s + w]);
        written[d..d + w].iter_mut().for_each(|x| *x += 1);
    };
    match &plan.work {
        Work::Empty => {}
        Work::Copy => put(0, 0, src.len() as u64),
        Work::Transpose { shape, width } => {
            let (rows, cols, w) = (shape.rows as u64, shape.cols as u64, width.bytes() as u64);
            for b in 0..shape.batch as u64 {
                for r in 0..rows {
                    for c in 0..cols {
                        put(b * rows * cols + c * rows + r, b * rows * cols + r * cols + c, w);
                    }
                }
            }
        }
        Work::Tiled { params, width, tile } => {
            // Tile by tile, as the blocks take them.
            let bytes = width.map_or(16, Width::bytes) as u32;
            let side = tuned::side(bytes) as u64;
            let (tall, wide) = match tile {
                Tile::Vectorized => (side, side),
                Tile::Unaligned => {
                    assert!(params.rows.dims == 1 && params.cols.dims == 1 && matches!(bytes, 2 | 4), "{plan}");
                    (unaligned::tall(bytes) as u64, unaligned::wide(bytes) as u64)
                }
                Tile::Flat => {
                    let (tall, wide) = (1 << params.row_shift, 1 << params.col_shift);
                    assert!(tall * wide <= 256 * flat_per_thread(bytes) as u64, "{plan}");
                    (tall, wide)
                }
            };
            for block in 0..params.tiles() {
                let (bs, bd, r0, c0) = params.tile(block, tall, wide);
                for r in r0..(r0 + tall).min(params.rows.len) {
                    for c in c0..(c0 + wide).min(params.cols.len) {
                        put(bd + params.cols.offset(c) + r, bs + params.rows.offset(r) + c, bytes as u64);
                    }
                }
            }
        }
        Work::Skinny { params, interleave, width, word } => {
            // Tile by tile, as the blocks take them: rows `i` of the narrow side, columns `x` of
            // the long one, in the segments and in the span.
            let (n, long, w) = (params.narrow, params.long, width.bytes() as u64);
            let v = *word as u64 / w;
            let wide = (1u64 << params.row_shift) * v;
            let slots = 256 * bankwise_builtin::permute::skinny_per_thread(*word) as u64;
            let rows_fit = n << params.row_shift <= slots && 1 << params.row_shift >= 128 / *word as u64;
            assert!(rows_fit && long.is_multiple_of(v), "{plan}");
            for tile in 0..params.tiles() {
                let (matrix, along) = (tile / params.tiles_per_matrix, tile % params.tiles_per_matrix);
                let base = matrix * n * long;
                for i in 0..n {
                    for x in along * wide..((along + 1) * wide).min(long) {
                        let (segment, span) = (base + i * long + x, base + x * n + i);
                        if *interleave { put(span, segment, w) } else { put(segment, span, w) }
                    }
                }
            }
        }
        Work::Rows { params, width } => {
            let w = width.map_or(16, |w| w.bytes()) as u64;
            for row in 0..params.outer.count {
                let from = params.outer.offsets(row).0;
                for x in 0..params.row_len {
                    put(row * params.row_len + x, from + x, w);
                }
            }
        }
    }
    assert!(written.iter().all(|&n| n == 1), "{plan}: some bytes written {:?} times", written.iter().max());
    dst
}

fn check_plan(dims: &[usize], perm: &[usize], width: Width) {
    check_plan_aligned(dims, perm, width, 16);
}

/// [`check_plan`] for tensors aligned to `alignment` bytes, whose plan must form no word wider
/// than that, nor 16-byte vectors below 16.
fn check_plan_aligned(dims: &[usize], perm: &[usize], width: Width, alignment: u64) {
    let plan = PermutePlan::for_alignment(dims, perm, width, alignment).unwrap();
    let align = plan.alignment;
    assert!(align.is_power_of_two() && align >= width.bytes() as u64 && align <= 16, "{plan}: alignment {align}");
    let (word, vectors) = match &plan.work {
        Work::Empty | Work::Copy => (width.bytes() as u64, false),
        Work::Transpose { width, .. } => (width.bytes() as u64, true),
        Work::Tiled { width, tile, .. } => {
            (width.map_or(16, Width::bytes) as u64, *tile != Tile::Flat || width.is_none())
        }
        Work::Skinny { word, .. } => (*word as u64, *word == 16),
        Work::Rows { width, .. } => (width.map_or(16, |w| w.bytes()) as u64, width.is_none()),
    };
    assert!(
        word <= align && (!vectors || align == 16),
        "{plan}: {word}-byte words, vectors {vectors}, aligned {align}"
    );
    let n = plan.elements;
    let bytes = width.bytes();
    // Elements as distinct byte strings.
    let src: Vec<u8> =
        (0..n * bytes).map(|i| (i / bytes * 7 + i % bytes * 131) as u8 ^ (i / bytes / 251) as u8).collect();
    let index: Vec<usize> = (0..n).collect();
    let want: Vec<u8> = cpu::permute(&index, dims, perm)
        .unwrap()
        .iter()
        .flat_map(|&i| &src[i * bytes..(i + 1) * bytes])
        .copied()
        .collect();
    assert_eq!(interpret(&plan, &src), want, "{plan}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn every_plan_moves_every_element_where_cpu_permute_does(
        dims in prop::collection::vec(prop_oneof![Just(1usize), 2usize..6, Just(8), 9usize..40], 1..=8)
            .prop_filter("small", |d| d.iter().product::<usize>() <= 1 << 16),
        seed in any::<u64>(),
        width in prop_oneof![Just(Width::B1), Just(Width::B2), Just(Width::B4), Just(Width::B8)],
        alignment in prop_oneof![Just(16u64), Just(16), Just(8), Just(4), Just(2), Just(1)],
    ) {
        let mut perm: Vec<usize> = (0..dims.len()).collect();
        let mut s = seed;
        for i in (1..perm.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (s >> 33) as usize % (i + 1));
        }
        check_plan_aligned(&dims, &perm, width, alignment);
    }
}

#[test]
fn skinny_plans_move_every_element_once() {
    for (dims, perm) in [
        (&[3, 4096][..], &[1, 0][..]),
        (&[4096, 3][..], &[1, 0][..]),
        (&[2, 5, 1000], &[0, 2, 1]),
        (&[2, 1000, 5], &[0, 2, 1]),
        (&[63, 520], &[1, 0]),
        (&[7, 3000], &[1, 0]),
        (&[2, 64, 48], &[0, 2, 1]),
        (&[3, 4098], &[1, 0]),
        (&[2, 1002, 7], &[0, 2, 1]),
        (&[9, 1001], &[1, 0]),
    ] {
        for width in [Width::B1, Width::B2, Width::B4, Width::B8] {
            for alignment in [16, 8, 4, 2] {
                let plan = PermutePlan::for_alignment(dims, perm, width, alignment).unwrap();
                let bytes = width.bytes();
                let long = dims[dims.len() - 2].max(dims[dims.len() - 1]);
                let narrow = dims[dims.len() - 2].min(dims[dims.len() - 1]);
                let word = [16, 8, 4, 2]
                    .into_iter()
                    .find(|&w| w >= bytes && w <= plan.alignment as usize && long * bytes % w == 0);
                let want = word.filter(|w| narrow * (long / (w / bytes)) >= 256);
                let got = match plan.work {
                    Work::Skinny { word, .. } => Some(word as usize),
                    _ => None,
                };
                assert_eq!(got, want, "{plan}");
                check_plan_aligned(dims, perm, width, alignment);
            }
        }
    }
}

/// Odd reversals and their kin, whose groups are one axis each at least the unaligned tile's
/// sides, take its vectors in 2- and 4-byte words (with 16-byte alignment), never in 1- and
/// 8-byte ones, and the flat tile off 16 bytes; both move every element where `cpu::permute` does.
#[test]
fn groups_of_one_odd_axis_take_the_unaligned_tile() {
    let tile = |dims: &[usize], perm: &[usize], width: Width, alignment: u64| match PermutePlan::for_alignment(
        dims, perm, width, alignment,
    )
    .unwrap()
    .work
    {
        Work::Tiled { tile, .. } => Some(tile),
        _ => None,
    };
    // The suite's odd reversals, a reversal with a batch of two axes, and a rank-4 one.
    for (dims, perm) in [
        (&[401, 409, 409][..], &[2, 1, 0][..]),
        (&[128, 316, 4, 353], &[3, 2, 0, 1]),
        (&[353, 256, 2, 371], &[1, 3, 2, 0]),
    ] {
        for width in [Width::B2, Width::B4] {
            assert_eq!(tile(dims, perm, width, 16), Some(Tile::Unaligned), "{dims:?} by {perm:?}, {width:?}");
            assert_eq!(tile(dims, perm, width, 8), Some(Tile::Flat), "{dims:?} by {perm:?}, {width:?}");
        }
        for width in [Width::B1, Width::B8] {
            assert_ne!(tile(dims, perm, width, 16), Some(Tile::Unaligned), "{dims:?} by {perm:?}, {width:?}");
        }
    }
    // Groups shorter than the tile (rows under 128, columns under 64 in 4-byte words and 128 in
    // 2-byte ones), or of two axes, do not.
    let (dims, perm) = (&[342, 481, 6, 64][..], &[3, 2, 1, 0][..]);
    assert_eq!(tile(dims, perm, Width::B4, 16), Some(Tile::Unaligned));
    assert_eq!(tile(dims, perm, Width::B2, 16), Some(Tile::Flat));
    assert_eq!(tile(&[127, 3, 401], &[2, 1, 0], Width::B4, 16), Some(Tile::Flat));
    assert_eq!(tile(&[401, 3, 63], &[2, 1, 0], Width::B4, 16), Some(Tile::Flat));
    assert_eq!(tile(&[130, 5, 7, 9], &[3, 2, 1, 0], Width::B4, 16), Some(Tile::Flat));
    // Whole vectors keep the vectorized tile.
    assert_eq!(tile(&[256, 3, 128], &[2, 1, 0], Width::B4, 16), Some(Tile::Vectorized));
    for (dims, perm) in [
        (&[131, 3, 131][..], &[2, 1, 0][..]),
        (&[129, 2, 5, 129], &[3, 2, 1, 0]),
        (&[130, 3, 2, 129], &[2, 3, 1, 0]),
        (&[257, 2, 3, 131], &[1, 3, 2, 0]),
    ] {
        for width in [Width::B1, Width::B2, Width::B4, Width::B8] {
            check_plan(dims, perm, width);
        }
        assert_eq!(tile(dims, perm, Width::B2, 16), Some(Tile::Unaligned), "{dims:?} by {perm:?}");
    }
}

#[test]
fn rank_eight_with_every_axis_kept_fits_the_kernels_arrays() {
    check_plan(&[2, 3, 2, 3, 2, 3, 2, 3], &[7, 6, 5, 4, 3, 2, 1, 0], Width::B4);
    check_plan(&[2, 3, 2, 3, 2, 3, 2, 5], &[6, 4, 2, 0, 5, 3, 1, 7], Width::B8);
    check_plan(&[3, 2, 3, 2, 3, 2, 3, 5], &[1, 0, 3, 2, 5, 4, 6, 7], Width::B1);
}

#[test]
fn the_parameter_structs_have_no_padding_and_the_sizes_the_docs_give() {
    // Sums of their fields' sizes: no implicit padding, one layout on the host and nvptx64.
    assert_eq!(size_of::<Group>(), 8 + 4 * 8 + 4 * 4 + 4 + 4 + 4 * 8 + 4 * 4);
    assert_eq!(size_of::<Batch>(), 8 + 3 * MAX_BATCH * 8 + 4 + 4 + MAX_BATCH * 8 + MAX_BATCH * 4 + 4);
    assert_eq!(size_of::<Tiled>(), 2 * size_of::<Group>() + size_of::<Batch>() + 3 * 8 + 4 * 4 + 2 * 8 + 2 * 4);
    assert_eq!(size_of::<Tiled>(), 560);
    assert_eq!(size_of::<Rows>(), size_of::<Batch>() + 5 * 8);
    assert_eq!(size_of::<Skinny>(), 6 * 8 + 2 * 4);
    assert_eq!(bankwise_builtin::permute::SKINNY_BYTES_PER_THREAD, 64);
}

proptest! {
    /// A tile's decode by the divisors `with_divisors` sets equals the divisions' (which a
    /// `Tiled` without them takes), for every block of random tile counts and batches.
    #[test]
    fn tiles_decode_alike_with_and_without_divisors(
        down in 1u64..700,
        across in 1u64..700,
        sizes in proptest::collection::vec(1u64..40, 0..=4),
        first in 0u64..1000,
    ) {
        let mut batch = Batch { count: 1, ..Batch::default() };
        for (i, &n) in sizes.iter().enumerate() {
            (batch.sizes[i], batch.src[i], batch.dst[i]) = (n, 1000 + 7 * i as u64, 3 + 11 * i as u64);
            batch.count *= n;
            batch.dims += 1;
        }
        let plain = Tiled { batch, tiles_down: down, tiles_across: across, ..Tiled::default() };
        let fast = plain.with_divisors();
        let tiles = plain.tiles();
        // Set below 2³¹ tiles (the batch's below 2³¹ indices), else left to the divisions.
        prop_assert_eq!(fast.down_magic != 0, tiles < 1 << 31);
        prop_assert_eq!(fast.batch.magic[0] != 0, batch.dims > 0 && batch.count < 1 << 31);
        let blocks = (0..tiles.min(300)).chain((tiles.saturating_sub(300)..tiles).step_by(7));
        for block in blocks.filter(|&b| b + first < tiles) {
            let (p, f) = (Tiled { first_tile: first, ..plain }, Tiled { first_tile: first, ..fast });
            prop_assert_eq!(p.tile(block, 64, 32), f.tile(block, 64, 32), "block {}", block);
        }
    }

    #[test]
    fn fast_division_is_exact_below_2_31(d in 1u32..(1 << 31), x in 0u32..(1 << 31), small in 1u32..300) {
        for d in [d, small, d.next_power_of_two().min(1 << 30)] {
            let f = FastDiv::new(d);
            prop_assert!(f.magic <= 1 << 32);
            for x in [x, (x as u64 % (4 * d as u64)) as u32, (1 << 31) - 1, d - 1, d.min((1 << 31) - 1), 0] {
                prop_assert_eq!(FastDiv::divide(f.magic, f.shift, x), x / d, "{} / {}", x, d);
            }
        }
    }
}
