//! `Gpu::permute` against `cpu::permute`, bit for bit: fixed cases of every rank and kind of
//! plan, seeded random ones (printed, so a failure reproduces), tensors past 2^31 elements on
//! a GPU, and on the emulator the tiles' bank conflicts.

use bankwise::half::bf16;
use bankwise::permute::{Tile, Work};
use bankwise::{DeviceBuffer, Element, Error, Gpu, PermutePlan, cpu};
use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::{AddTrial, Check, POISON, Target, compare, enough_memory_locked, fits, random, seed_of};

/// `(dims, perm)`: every rank from 1 to 8; size-1 and size-0 axes; primes; runs of the
/// innermost axis that widen (2, 4, 8 bytes) and that gather rows (aligned to 16 bytes or
/// not); groups of several axes on either side of a tile; the cases, smaller.
const CASES: &[(&[usize], &[usize])] = &[
    (&[1], &[0]),
    (&[1000], &[0]),
    (&[0, 3], &[1, 0]),
    (&[3, 1], &[1, 0]),
    (&[7, 13], &[1, 0]),
    (&[2, 3, 4], &[2, 0, 1]),
    (&[2, 3, 4], &[1, 2, 0]),
    (&[5, 7, 3], &[1, 0, 2]),
    (&[5, 7, 2], &[1, 0, 2]),
    (&[33, 17, 8], &[1, 0, 2]),
    (&[9, 11, 12], &[1, 0, 2]),
    (&[4, 1, 6], &[2, 1, 0]),
    (&[31, 33, 35], &[2, 1, 0]),
    (&[64, 32, 48], &[2, 1, 0]),
    (&[64, 32, 48], &[1, 2, 0]),
    (&[16, 17, 64], &[2, 0, 1]),
    (&[8, 16, 8, 16], &[3, 2, 1, 0]),
    (&[8, 16, 8, 16], &[0, 3, 1, 2]),
    (&[6, 5, 4, 3], &[3, 1, 2, 0]),
    (&[4, 4, 4, 4, 4, 16], &[5, 4, 3, 2, 1, 0]),
    (&[4, 64, 4, 8], &[0, 2, 1, 3]),
    (&[3, 2, 5, 2, 7], &[4, 2, 0, 3, 1]),
    (&[2, 3, 2, 3, 2, 3], &[1, 3, 5, 0, 2, 4]),
    (&[2, 2, 3, 2, 2, 3, 2], &[6, 0, 5, 1, 4, 2, 3]),
    (&[2, 3, 2, 3, 2, 3, 2, 3], &[7, 6, 5, 4, 3, 2, 1, 0]),
    (&[3, 2, 3, 2, 3, 2, 3, 5], &[1, 0, 3, 2, 5, 4, 6, 7]),
    (&[1, 1, 1, 1, 1, 1, 1, 1], &[3, 1, 4, 0, 2, 7, 6, 5]),
    (&[2, 1, 3, 1, 5], &[4, 3, 2, 1, 0]),
    (&[128, 3, 128], &[2, 1, 0]),
    (&[130, 2, 66], &[0, 2, 1]),
    // Flat tiles' interior fast paths: 512 rows of 8 columns, 4 rows of 1024, batched.
    (&[1024, 8], &[1, 0]),
    (&[4, 1024], &[1, 0]),
    (&[3, 8, 600], &[0, 2, 1]),
    (&[2, 1024, 16], &[0, 2, 1]),
    // Skinny transposes: 3 rows interleaved and back, 7 of 1000 columns in a batch of 2 (a
    // short last tile; `u8` rows of 1000 move in 8-byte words), rows of 4098 and 1002 (8- and
    // 4-byte words; `u8` rows of 1002 in 2-byte ones), rows of 1001 (2-byte words for `bf16`;
    // `u8` rows of 1001 span no word and take the flat tile).
    (&[3, 4096], &[1, 0]),
    (&[4096, 3], &[1, 0]),
    (&[2, 7, 1000], &[0, 2, 1]),
    (&[2, 1000, 7], &[0, 2, 1]),
    (&[3, 4098], &[1, 0]),
    (&[4098, 3], &[1, 0]),
    (&[2, 7, 1002], &[0, 2, 1]),
    (&[2, 1002, 7], &[0, 2, 1]),
    (&[3, 1001], &[1, 0]),
    (&[2, 1001, 7], &[0, 2, 1]),
    // Unaligned tiles: groups of one odd axis, batches of one and two axes, a short last tile
    // both ways (`[130, 3, 2, 129]` fuses its last two axes into one of 258). Columns of 65 to
    // 127 take them in 4-byte words only (2-byte tiles are 128 wide: the flat tile).
    (&[131, 3, 67], &[2, 1, 0]),
    (&[131, 3, 131], &[2, 1, 0]),
    (&[129, 2, 5, 65], &[3, 2, 1, 0]),
    (&[129, 2, 5, 129], &[3, 2, 1, 0]),
    (&[130, 3, 2, 129], &[2, 3, 1, 0]),
    (&[257, 2, 3, 131], &[1, 3, 2, 0]),
    // Runs of 16 bytes that stay innermost: the flat tile of vectors in `f32` (runs of 4),
    // `bf16` (8), `u8` (16) and `f64` (2): square tiles with short edges, rows of several axes,
    // tiles of 4 rows (under the 8 a quarter warp reads) and of 4 columns.
    (&[37, 5, 41, 4], &[2, 1, 0, 3]),
    (&[33, 3, 37, 8], &[2, 1, 0, 3]),
    (&[3, 5, 7, 11, 4], &[3, 2, 1, 0, 4]),
    (&[9, 70, 16], &[1, 0, 2]),
    (&[3, 300, 2], &[1, 0, 2]),
    (&[300, 3, 4], &[1, 0, 2]),
];

/// Larger cases for a GPU: the suite shapes (2^26 elements), primes and 2^31.
const GPU_CASES: &[(&[usize], &[usize])] = &[
    (&[512, 512, 256], &[2, 1, 0]),
    (&[512, 512, 256], &[0, 2, 1]),
    (&[64, 64, 128, 128], &[3, 2, 1, 0]),
    (&[64, 64, 128, 128], &[0, 3, 1, 2]),
    (&[16, 16, 16, 16, 16, 64], &[5, 4, 3, 2, 1, 0]),
    (&[32, 2048, 32, 32], &[0, 2, 1, 3]),
    (&[256, 1024, 128], &[0, 2, 1]),
    (&[509, 521, 257], &[2, 0, 1]),
    (&[1021, 3, 1031, 5], &[2, 3, 1, 0]),
    (&[70_001, 3, 7], &[2, 1, 0]),
    // Skinny: three-channel images both ways, 23 and 63 rows of a million; the suite's
    // `7x162x59178 by 1,2,0` and `8918x175x43 by 2,0,1` (8- and 4-byte words).
    (&[64, 3, 224, 224], &[0, 2, 3, 1]),
    (&[64, 224, 224, 3], &[0, 3, 1, 2]),
    (&[23, 1_000_000], &[1, 0]),
    (&[1_000_000, 63], &[1, 0]),
    (&[7, 162, 59_178], &[1, 2, 0]),
    (&[8918, 175, 43], &[2, 0, 1]),
    // Rows of an odd number of 2-byte elements: 2-byte words.
    (&[7, 9_586_981], &[1, 0]),
    (&[9_586_981, 7], &[1, 0]),
    // Unaligned tiles: the suite's odd reversals, one of rank 4 with a batch of two axes.
    (&[401, 409, 409], &[2, 1, 0]),
    (&[128, 316, 4, 353], &[3, 2, 0, 1]),
    (&[353, 256, 2, 371], &[1, 3, 2, 0]),
    (&[342, 481, 6, 64], &[3, 2, 1, 0]),
    // Flat tiles whose columns span several axes (their `dst` offsets in a table per tile): the
    // suite's `557x255x15x31 by 0,3,2,1`, `4x291x33x4x367 by 1,3,2,4,0` (tiles of 4 × 1024, a
    // batch of two axes) and `177x23696x8x2 by 3,2,1,0` (columns of three axes); rows of two
    // axes (`src` offsets in a table): `5x1031x13x1009 by 3,1,2,0`.
    (&[557, 255, 15, 31], &[0, 3, 2, 1]),
    (&[4, 291, 33, 4, 367], &[1, 3, 2, 4, 0]),
    (&[177, 23696, 8, 2], &[3, 2, 1, 0]),
    (&[5, 1031, 13, 1009], &[3, 1, 2, 0]),
    // The flat tile of vectors: the suite's `133x357x307x4 by 2,1,0,3` (`f32`), and its `bf16`
    // kin with runs of 8.
    (&[133, 357, 307, 4], &[2, 1, 0, 3]),
    (&[133, 357, 307, 8], &[2, 1, 0, 3]),
];

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    let cases = CASES.iter().chain(if target == Target::Gpu { GPU_CASES } else { &[] });
    for &(dims, perm) in cases.filter(|(d, _)| fits(target, d.iter().product())) {
        let name = format!("{dims:?}by{perm:?}").replace(' ', "");
        add(format!("permute/u8/{name}"), Box::new(move |g| check::<u8>(g, dims, perm)));
        add(format!("permute/bf16/{name}"), Box::new(move |g| check::<bf16>(g, dims, perm)));
        add(format!("permute/f32/{name}"), Box::new(move |g| check::<f32>(g, dims, perm)));
        add(format!("permute/f64/{name}"), Box::new(move |g| check::<f64>(g, dims, perm)));
    }
    add("permute/random_shapes".into(), Box::new(move |g| random_shapes(g, target)));
    add("permute/rejects_bad_arguments".into(), Box::new(rejects_bad_arguments));
    if target == Target::Gpu {
        // Past 2^31 elements (32-bit element indices overflow) and 2^31 bytes.
        const LONG: (&[usize], &[usize]) = (&[1031, 1031, 2021], &[2, 0, 1]);
        add("permute/u8/past_2^31_elements".into(), Box::new(|g| check::<u8>(g, LONG.0, LONG.1)));
        const WIDE: (&[usize], &[usize]) = (&[3, 1031, 5, 37_003], &[3, 1, 0, 2]);
        add("permute/f32/past_2^31_bytes".into(), Box::new(|g| check::<f32>(g, WIDE.0, WIDE.1)));
        // A skinny transpose past 2^32 elements (64-bit offsets of its rows).
        const SKINNY: (&[usize], &[usize]) = (&[2, (1 << 31) + 16], &[1, 0]);
        add("permute/u8/skinny_past_2^32_elements".into(), Box::new(|g| check::<u8>(g, SKINNY.0, SKINNY.1)));
        // Unaligned tiles past 2^32 elements (`permute_tiled_unaligned_large_u16`).
        const UNALIGNED: (&[usize], &[usize]) = (&[2063, 1031, 2029], &[2, 1, 0]);
        add(
            "permute/bf16/unaligned_past_2^32_elements".into(),
            Box::new(|g| check::<bf16>(g, UNALIGNED.0, UNALIGNED.1)),
        );
    } else {
        add("permute/tiles_are_conflict_free".into(), Box::new(|_| tiles_are_conflict_free()));
        add(
            "permute/skinny_tiles_measure_their_wavefronts".into(),
            Box::new(|_| skinny_tiles_measure_their_wavefronts()),
        );
    }
}

fn check<T: Element>(gpu: &Gpu, dims: &[usize], perm: &[usize]) -> Check {
    let n: usize = dims.iter().product();
    let mut big = None;
    if !enough_memory_locked(gpu, 2 * n * size_of::<T>(), &mut big)? {
        return Ok(());
    }
    let host: Vec<T> = random(n, seed_of("permute", n ^ perm.len()));
    let want = cpu::permute(&host, dims, perm)?;
    let src = gpu.upload(&host)?;
    let mut dst: DeviceBuffer<T> = gpu.alloc_zeros(n)?;
    gpu.fill_bytes(&mut dst, POISON)?;
    let plan = PermutePlan::new(dims, perm, T::WIDTH)?;
    gpu.permute_with_plan(&plan, &src, &mut dst)?;
    compare(&format!("{plan} of {}", std::any::type_name::<T>()), &gpu.download(&dst)?, &want)
}

/// Seeded random tensors: ranks 2 to 6, sizes mostly small with some primes and powers of
/// two, every element type's width.
fn random_shapes(gpu: &Gpu, target: Target) -> Check {
    let (count, max) = if target == Target::Gpu { (200, 1 << 24) } else { (40, 1 << 14) };
    let mut rng = SmallRng::seed_from_u64(0x5eed_0032);
    let mut done = 0;
    while done < count {
        let rank = rng.random_range(2..=6);
        let dims: Vec<usize> = (0..rank)
            .map(|_| match rng.random_range(0..4) {
                0 => rng.random_range(1..5),
                1 => [2, 4, 8, 16, 32, 64, 128][rng.random_range(0..7)],
                2 => [3, 5, 7, 11, 13, 31, 67, 127, 257][rng.random_range(0..9)],
                _ => rng.random_range(1..200),
            })
            .collect();
        if dims.iter().product::<usize>() > max {
            continue;
        }
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        let r = match done % 4 {
            0 => check::<u8>(gpu, &dims, &perm),
            1 => check::<bf16>(gpu, &dims, &perm),
            2 => check::<f32>(gpu, &dims, &perm),
            _ => check::<f64>(gpu, &dims, &perm),
        };
        r.map_err(|e| format!("case {done} (dims {dims:?}, perm {perm:?}): {}", e.message().unwrap_or("failed")))?;
        done += 1;
    }
    Ok(())
}

fn rejects_bad_arguments(gpu: &Gpu) -> Check {
    let src = gpu.upload(&[1.0f32; 24])?;
    let mut dst = gpu.alloc_zeros::<f32>(24)?;
    let mut short = gpu.alloc_zeros::<f32>(23)?;
    type Expect = fn(&Error) -> bool;
    let cases: [(bankwise::Result<()>, Expect); 6] = [
        (gpu.permute(&src, &mut dst, &[2, 3, 4], &[0, 1]), |e| matches!(e, Error::NotAPermutation { .. })),
        (gpu.permute(&src, &mut dst, &[2, 3, 4], &[0, 1, 1]), |e| matches!(e, Error::NotAPermutation { .. })),
        (gpu.permute(&src, &mut dst, &[], &[]), |e| matches!(e, Error::RankOutOfRange { .. })),
        (gpu.permute(&src, &mut short, &[2, 3, 4], &[2, 1, 0]), |e| {
            matches!(e, Error::LengthMismatch { buffer: "dst", .. })
        }),
        (gpu.permute(&src, &mut dst, &[2, 3, 5], &[2, 1, 0]), |e| {
            matches!(e, Error::LengthMismatch { buffer: "src", .. })
        }),
        (gpu.permute(&src, &mut dst, &[usize::MAX, 3], &[1, 0]), |e| matches!(e, Error::ShapeOverflow { .. })),
    ];
    for (i, (r, ok)) in cases.into_iter().enumerate() {
        match r {
            Err(ref e) if ok(e) => {}
            other => return Err(format!("case {i}: got {other:?}").into()),
        }
    }
    let plan = PermutePlan::new(&[2, 3, 4], &[2, 1, 0], u8::WIDTH)?;
    match gpu.permute_with_plan(&plan, &src, &mut dst) {
        Err(Error::PlanWidthMismatch { planned: 1, given: 4 }) => Ok(()),
        other => Err(format!("a u8 plan on f32 buffers: {other:?}").into()),
    }
}

/// Each tiled kernel, on a fresh emulator, measures the ideal wavefronts at every shared
/// site: one per request for accesses of up to 4 bytes a lane, `bytes / 4` for wider ones (a
/// warp's 256 or 512 bytes take 2 or 4 wavefronts however they are laid out); flat tiles
/// narrower than 32 columns twice that at most (`flat_pitch`: no pitch serves both walks).
fn tiles_are_conflict_free() -> Check {
    fn one<T: Element>(dims: &[usize], perm: &[usize], tile: Tile, slack: u32) -> Check {
        let gpu = Gpu::emulator()?;
        let plan = PermutePlan::new(dims, perm, T::WIDTH)?;
        match plan.work {
            Work::Tiled { tile: t, .. } if t == tile => {}
            _ => return Err(format!("{plan}: not the tiled kernel asked for ({tile:?})").into()),
        }
        let n = plan.elements;
        let src = gpu.upload(&random::<T>(n, 7))?;
        let mut dst = gpu.alloc_zeros::<T>(n)?;
        gpu.permute_with_plan(&plan, &src, &mut dst)?;
        // The unaligned tile's end chunks: per output row, the `V` elements of its two partial
        // chunks, one a lane, read down a column of the tile (rows `V` apart at most spread
        // over the swizzle's groups): up to `V` wavefronts, at one site, for a `2V / 128` share
        // of the tile.
        let mut end_chunks = 0;
        for launch in gpu.take_emulator_reports() {
            for site in &launch.report.sites {
                let ideal = (site.bytes / 4).max(1) * slack;
                let v = 16 / size_of::<T>() as u32;
                if tile == Tile::Unaligned && site.worst_wavefronts > ideal && site.worst_wavefronts <= v {
                    end_chunks += 1;
                    if end_chunks == 1 {
                        continue;
                    }
                }
                if site.worst_wavefronts > ideal {
                    return Err(format!(
                        "{plan}: {} bytes at {:?} take {} wavefronts (at most {ideal} promised): {:?}",
                        site.bytes, site.site, site.worst_wavefronts, site.worst
                    )
                    .into());
                }
            }
        }
        Ok(())
    }
    macro_rules! every_width {
        ($dims:expr, $perm:expr, $tile:expr, $slack:expr) => {
            one::<u8>($dims, $perm, $tile, $slack)?;
            one::<bf16>($dims, $perm, $tile, $slack)?;
            one::<f32>($dims, $perm, $tile, $slack)?;
            one::<f64>($dims, $perm, $tile, $slack)?;
        };
    }
    // Vectorized: both groups span whole vectors and the tile's side.
    every_width!(&[128, 3, 128], &[2, 1, 0], Tile::Vectorized, 1);
    // Flat: tiles of a few rows, tiles of a few columns.
    every_width!(&[5, 7, 300], &[2, 1, 0], Tile::Flat, 1);
    every_width!(&[4, 3, 301, 5], &[1, 3, 0, 2], Tile::Flat, 2);
    every_width!(&[300, 7, 3], &[2, 1, 0], Tile::Flat, 2);
    // Square tiles of odd groups: flat in 1- and 8-byte elements, unaligned (the unaligned
    // transpose's `STS.128` rows and column gathers) in 2- and 4-byte ones.
    one::<u8>(&[129, 3, 131], &[2, 1, 0], Tile::Flat, 1)?;
    one::<f64>(&[129, 3, 131], &[2, 1, 0], Tile::Flat, 1)?;
    one::<bf16>(&[129, 3, 131], &[2, 1, 0], Tile::Unaligned, 1)?;
    one::<f32>(&[129, 3, 131], &[2, 1, 0], Tile::Unaligned, 1)?;
    one::<f32>(&[257, 2, 3, 131], &[1, 3, 2, 0], Tile::Unaligned, 1)?;
    // The flat tile of 16-byte vectors (runs of 16 bytes that stay innermost): 32 × 32 tiles,
    // tiles of 8 rows and of 4 (the pitch puts the 8 lanes of a wavefront on distinct 16-byte
    // bank groups), and tiles of 4 columns (two rows a wavefront in the load phase).
    fn vectors<T: Element>(dims: &[usize], perm: &[usize], slack: u32) -> Check {
        let plan = PermutePlan::new(dims, perm, T::WIDTH)?;
        if !matches!(plan.work, Work::Tiled { width: None, .. }) {
            return Err(format!("{plan}: not the tile of vectors").into());
        }
        one::<T>(dims, perm, Tile::Flat, slack)
    }
    vectors::<f32>(&[129, 3, 131, 4], &[2, 1, 0, 3], 1)?;
    vectors::<bf16>(&[5, 7, 300, 8], &[2, 1, 0, 3], 1)?;
    vectors::<f64>(&[3, 300, 2], &[1, 0, 2], 1)?;
    vectors::<u8>(&[9, 70, 16], &[1, 0, 2], 1)?;
    vectors::<f32>(&[300, 3, 4], &[1, 0, 2], 2)?;
    Ok(())
}

/// Each skinny transpose, on a fresh emulator: its segment side's word accesses at the fewest
/// wavefronts a warp's bytes need (4 for 16-byte words, 2 for 8, 1 for 4 and 2); its span side's
/// accesses of one element a lane at most twice their ideal (1 wavefront, 2 for 8-byte
/// elements) where the narrow side is 8 or less and the words are 16 bytes, three times it in
/// narrower words (a request's elements span fewer columns of more rows), and eight times it
/// past 8 rows (the element walk meets up to 32 rows a request, which the XOR spreads over 8
/// starts). Where the word is the element, the two sides' sites are told apart by the span's
/// bound.
fn skinny_tiles_measure_their_wavefronts() -> Check {
    fn one<T: Element>(dims: &[usize], perm: &[usize]) -> Check {
        let gpu = Gpu::emulator()?;
        let plan = PermutePlan::new(dims, perm, T::WIDTH)?;
        let Work::Skinny { params, word, .. } = plan.work else {
            return Err(format!("{plan}: not a skinny transpose").into());
        };
        let n = plan.elements;
        let src = gpu.upload(&random::<T>(n, 7))?;
        let mut dst = gpu.alloc_zeros::<T>(n)?;
        gpu.permute_with_plan(&plan, &src, &mut dst)?;
        let ideal = |bytes: u32| (bytes / 4).max(1);
        let few = match (params.narrow <= 8, word) {
            (true, 16) => 2,
            (true, _) => 3,
            (false, _) => 8,
        };
        let span_bound = ideal(size_of::<T>() as u32) * few;
        let mut sites = 0;
        for launch in gpu.take_emulator_reports() {
            for site in &launch.report.sites {
                let words = site.bytes == word && word > size_of::<T>() as u32;
                let bound = if words { ideal(word) } else { span_bound };
                if site.worst_wavefronts > bound {
                    return Err(format!(
                        "{plan}: {} bytes at {:?} take {} wavefronts (at most {bound} promised): {:?}",
                        site.bytes, site.site, site.worst_wavefronts, site.worst
                    )
                    .into());
                }
                sites += 1;
            }
        }
        if sites != 2 {
            return Err(format!("{plan}: {sites} shared sites, where the kernel has 2 a direction").into());
        }
        Ok(())
    }
    let cases: [(&[usize], &[usize]); 10] = [
        (&[3, 4100], &[1, 0]),
        (&[4100, 5], &[1, 0]),
        (&[3, 4096], &[1, 0]),
        (&[4096, 3], &[1, 0]),
        (&[2, 7, 1024], &[0, 2, 1]),
        (&[6, 2048], &[1, 0]),
        (&[23, 1024], &[1, 0]),
        (&[32, 1024], &[1, 0]),
        (&[1024, 43], &[1, 0]),
        (&[63, 1024], &[1, 0]),
    ];
    for (dims, perm) in cases {
        one::<u8>(dims, perm)?;
        one::<bf16>(dims, perm)?;
        one::<f32>(dims, perm)?;
        one::<f64>(dims, perm)?;
    }
    // Narrower words: `f32` in 8 and 4 bytes, `f64` in 8, `bf16` in 4 and 2, `u8` in 2.
    one::<f32>(&[3, 4098], &[1, 0])?;
    one::<f32>(&[4097, 3], &[1, 0])?;
    one::<f64>(&[3, 4097], &[1, 0])?;
    one::<bf16>(&[4098, 3], &[1, 0])?;
    one::<bf16>(&[3, 4097], &[1, 0])?;
    one::<bf16>(&[4097, 5], &[1, 0])?;
    one::<u8>(&[4098, 3], &[1, 0])?;
    Ok(())
}
