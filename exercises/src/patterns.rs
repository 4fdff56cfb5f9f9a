//! The checks of exercises 15–20, the patterns that come after reductions: scans, a 1-D
//! convolution and a 2-D stencil through shared tiles with halos, a privatised histogram and a
//! transposing copy of a non-square tile. Each runs its kernel on integer data (so that every
//! sum is exact) on shapes that catch the usual mistakes (1 element, 31, 32 and 33, a prime,
//! partial blocks, several blocks), compares every element, and on the emulator judges the
//! property the exercise teaches from the launches' reports: no race (checked after each
//! launch, before its answer: a race is why an answer comes out wrong), wavefronts per request
//! of the shared sites, sectors per request of the global ones, the global sectors loaded per
//! sector of input, and requests per block (shared loads, global atomics); from the kernel's
//! PTX, its shuffles and shared atomics.

use anyhow::{Context, Result, bail};
use bankwise_exercises_kernels as kernels;
use bankwise_runtime::bankwise_emu::{AccessOp, Report};
use bankwise_runtime::{Device, KernelEntry, LaunchConfig, Module};
use rand::{Rng, rngs::SmallRng};

use crate::checks::{
    blocks, coalesced, compare, global_atomics_within, has_shared_atomics, launch, loads_within, no_race, poisoned,
    random, reports, sectors_of, shared_within, shuffles,
};

/// The reports of the launches since the last call (none on a GPU), checked for races and kept
/// in `seen` for the checks that judge every launch together.
fn race_free(dev: &Device, seen: &mut Vec<Report>) -> Result<()> {
    if let Some(reports) = reports(dev) {
        no_race(&reports)?;
        seen.extend(reports);
    }
    Ok(())
}

/// The inclusive (wrapping) scan of each run of `run` elements of `data`.
fn segmented_scan(data: &[u32], run: usize) -> Vec<u32> {
    data.chunks(run)
        .flat_map(|c| {
            c.iter().scan(0u32, |sum, x| {
                *sum = sum.wrapping_add(*x);
                Some(*sum)
            })
        })
        .collect()
}

/// A scan kernel's parameters: `out`, `data`, `n`.
type ScanParams = (*mut u32, *const u32, u64);

pub(crate) fn warp_scan(dev: &Device, module: &Module) -> Result<()> {
    warp_scans(dev, module, kernels::e15_warp_scan::warp_scans)
}

/// Exercise 15's check of `entry`: every prefix; no shared memory, each input loaded once, and
/// shuffles in the PTX.
pub(crate) fn warp_scans(dev: &Device, module: &Module, entry: KernelEntry<ScanParams>) -> Result<()> {
    let mut input = 0;
    for n in [1usize, 31, 32, 33, 997, 4099] {
        let data = random(n, 15, |r| r.random::<u32>());
        let mut out = poisoned::<u32>(dev, n)?;
        let config = LaunchConfig::for_elements(n as u64, 256);
        launch(dev, module, entry, config, (&mut out, &dev.upload(&data)?, n as u64))?;
        compare(&format!("n = {n}"), &dev.download(&out)?, &segmented_scan(&data, 32))?;
        input += sectors_of(n);
    }
    if let Some(r) = reports(dev) {
        if r.iter().any(|r| !r.sites.is_empty()) {
            bail!("shared memory used: a warp's lanes can pass their partial sums through shuffles alone");
        }
        let why = "each lane's element comes from global memory once, and the lower lanes' values are in their \
                   registers";
        loads_within(&r, input, 1.25, why)?;
    }
    shuffles(entry)
}

pub(crate) fn block_scan(dev: &Device, module: &Module) -> Result<()> {
    block_scans(dev, module, kernels::e16_block_scan::block_scans)
}

/// Exercise 16's check of `entry`: every prefix, no race, every shared access at 1 wavefront,
/// each input loaded once, and the second level's shared loads: at most one request for the
/// warp that scans the totals and one for each warp's prefix.
pub(crate) fn block_scans(dev: &Device, module: &Module, entry: KernelEntry<ScanParams>) -> Result<()> {
    use kernels::e16_block_scan::{BLOCK, WARPS};
    let (mut seen, mut input) = (Vec::new(), 0);
    for n in [1usize, 31, 32, 33, 256, 257, 1009, 4099] {
        let data = random(n, 16, |r| r.random::<u32>());
        let mut out = poisoned::<u32>(dev, n)?;
        let config = blocks(n.div_ceil(BLOCK) as u64, BLOCK as u32);
        launch(dev, module, entry, config, (&mut out, &dev.upload(&data)?, n as u64))?;
        let got = dev.download(&out)?;
        race_free(dev, &mut seen).with_context(|| format!("n = {n}"))?;
        compare(&format!("n = {n} (blocks of {BLOCK})"), &got, &segmented_scan(&data, BLOCK))?;
        input += sectors_of(n);
    }
    if !dev.is_emulator() {
        return Ok(());
    }
    shared_within(&seen, None, 1)?;
    let why = "each thread's element comes from global memory once; what a warp needs of the warps before it is \
               their totals, which reach it through shared memory";
    loads_within(&seen, input, 1.25, why)?;
    let loads: u64 = seen.iter().flat_map(|r| &r.sites).filter(|s| s.op == AccessOp::Load).map(|s| s.requests).sum();
    let launched: u64 = seen.iter().map(|r| r.blocks).sum();
    let per_block = loads as f64 / launched.max(1) as f64;
    let most = WARPS as f64 + 1.0;
    if per_block > most {
        bail!(
            "the warps' totals are scanned serially: the block's shared loads took {per_block:.1} warp-wide requests \
             per block; with one warp scanning the {WARPS} totals in its lanes at once, and each warp reading what it \
             needs once, they take at most {most}"
        );
    }
    Ok(())
}

/// Every global store coalesced. The loads of a tile with a halo are judged by
/// [`loads_within`] instead: a halo column costs a sector per element however its loads are
/// grouped into requests, and the per-request rule would fail a warp that fetches a column in
/// one request while passing one lane per request, for the same sectors.
fn stores_coalesced(reports: &[Report]) -> Result<()> {
    let stores: Vec<Report> = (reports.iter().cloned())
        .map(|mut r| {
            r.global.retain(|s| s.op == AccessOp::Store);
            r
        })
        .collect();
    coalesced(&stores)
}

pub(crate) fn convolution(dev: &Device, module: &Module) -> Result<()> {
    use kernels::e17_convolution::{BLOCK, R, WEIGHTS, convolve};
    let (mut seen, mut input) = (Vec::new(), 0);
    for n in [1usize, 31, 32, 33, 256, 257, 1009, 100_003] {
        let data = random(n, 17, |r| r.random_range(-1000i32..1000));
        let mut out = poisoned::<i32>(dev, n)?;
        let config = blocks(n.div_ceil(BLOCK) as u64, BLOCK as u32);
        launch(dev, module, convolve, config, (&mut out, &dev.upload(&data)?, n as u64))?;
        let got = dev.download(&out)?;
        race_free(dev, &mut seen).with_context(|| format!("n = {n}"))?;
        let at = |j: isize| if (0..n as isize).contains(&j) { data[j as usize] } else { 0 };
        let want: Vec<i32> = (0..n as isize)
            .map(|i| {
                (WEIGHTS.iter().enumerate())
                    .fold(0i32, |s, (k, w)| s.wrapping_add(w.wrapping_mul(at(i + k as isize - R as isize))))
            })
            .collect();
        compare(&format!("n = {n}"), &got, &want)?;
        input += sectors_of(n);
    }
    if !dev.is_emulator() {
        return Ok(());
    }
    stores_coalesced(&seen)?;
    loads_within(&seen, input, 1.5, "each block loads its inputs and its halo once, and reads them from shared memory")
}

pub(crate) fn stencil(dev: &Device, module: &Module) -> Result<()> {
    use kernels::e18_stencil::{BLOCK_X, BLOCK_Y, laplacian};
    let (mut seen, mut input) = (Vec::new(), 0);
    for (rows, cols) in [(1usize, 1usize), (31, 33), (33, 65), (64, 64), (257, 301)] {
        let x = random(rows * cols, 18, |r| r.random_range(-1000i32..1000));
        let mut out = poisoned::<i32>(dev, rows * cols)?;
        let config = LaunchConfig {
            grid: (cols.div_ceil(BLOCK_X) as u32, rows.div_ceil(BLOCK_Y) as u32, 1),
            block: (BLOCK_X as u32, BLOCK_Y as u32, 1),
            shared_bytes: 0,
        };
        launch(dev, module, laplacian, config, (&mut out, &dev.upload(&x)?, rows as u64, cols as u64))?;
        let got = dev.download(&out)?;
        race_free(dev, &mut seen).with_context(|| format!("{rows} × {cols}"))?;
        let at = |r: isize, c: isize| {
            let inside = (0..rows as isize).contains(&r) && (0..cols as isize).contains(&c);
            if inside { x[r as usize * cols + c as usize] } else { 0 }
        };
        let want: Vec<i32> = (0..rows as isize)
            .flat_map(|r| (0..cols as isize).map(move |c| (r, c)))
            .map(|(r, c)| {
                let sides = [at(r - 1, c), at(r + 1, c), at(r, c - 1), at(r, c + 1)];
                sides.iter().fold(at(r, c).wrapping_mul(4), |v, s| v.wrapping_sub(*s))
            })
            .collect();
        compare(&format!("{rows} × {cols}"), &got, &want)?;
        input += sectors_of(rows * cols);
    }
    if !dev.is_emulator() {
        return Ok(());
    }
    stores_coalesced(&seen)?;
    loads_within(
        &seen,
        input,
        2.5,
        "each block loads its tile and its halo once (a halo column costs a sector per row)",
    )
}

/// A data set of exercise 19: its name, and how it draws each value.
type Values = (&'static str, fn(&mut SmallRng) -> u8);

pub(crate) fn private_histogram(dev: &Device, module: &Module) -> Result<()> {
    histogram32(dev, module, kernels::e19_private_histogram::histogram32)
}

/// Exercise 19's check of `entry`: every bin on three data sets; no shared atomic; each block's
/// counts merged into the global bins with at most one atomic request per bin; a plain shared
/// store for every warp-wide read of the data (the counts are made in shared memory); no race;
/// every shared access at 1 wavefront.
pub(crate) fn histogram32(dev: &Device, module: &Module, entry: KernelEntry<(*mut u32, *const u8, u64)>) -> Result<()> {
    use kernels::e19_private_histogram::{BINS, BLOCK};
    if has_shared_atomics(entry) {
        bail!(
            "shared atomics in {}'s PTX (atom.shared): they serialise where a warp's lanes count the same value, as \
             skewed data makes them do; the counts are to be plain reads and writes of counters that no other thread \
             touches",
            entry.name()
        );
    }
    let datasets: [Values; 3] = [
        ("uniform data", |r| r.random_range(0..BINS as u8)),
        ("data of one value", |_| 7),
        (
            "data nine in ten of one value",
            |r| if r.random_range(0..10) == 0 { r.random_range(0..BINS as u8) } else { 3 },
        ),
    ];
    for (kind, value) in datasets {
        let mut seen = Vec::new();
        for n in [1usize, 31, 32, 33, 1009, 70_000] {
            let data = random(n, 19, value);
            let mut bins = dev.alloc_zeros::<u32>(BINS)?;
            let config = blocks(n.div_ceil(BLOCK).min(8) as u64, BLOCK as u32);
            launch(dev, module, entry, config, (&mut bins, &dev.upload(&data)?, n as u64))?;
            let got = dev.download(&bins)?;
            race_free(dev, &mut seen).with_context(|| format!("{n} values of {kind}"))?;
            let mut want = vec![0u32; BINS];
            for &b in &data {
                want[b as usize] += 1;
            }
            compare(&format!("{n} values of {kind}"), &got, &want)?;
        }
        if !dev.is_emulator() {
            continue;
        }
        let what = "one per bin: the block's threads count into their own counters in shared memory, and the block \
                    adds each bin's counters to the global bin once";
        global_atomics_within(&seen, BINS as u64, what).with_context(|| format!("on {kind}"))?;
        counted_in_shared(&seen).with_context(|| format!("on {kind}"))?;
        shared_within(&seen, None, 1).with_context(|| format!("on {kind}"))?;
    }
    Ok(())
}

/// At least one plain shared store request for every warp-wide global load (the data's reads):
/// each value read is counted in shared memory.
fn counted_in_shared(reports: &[Report]) -> Result<()> {
    let stores: u64 =
        reports.iter().flat_map(|r| &r.sites).filter(|s| s.op == AccessOp::Store).map(|s| s.requests).sum();
    let reads: u64 =
        reports.iter().flat_map(|r| &r.global).filter(|s| s.op == AccessOp::Load).map(|s| s.requests).sum();
    if stores < reads {
        bail!(
            "the counts are not made in shared memory: {stores} shared store requests for {reads} warp-wide reads of \
             the data; each value read is to be counted in its thread's own counters in shared memory"
        );
    }
    Ok(())
}

pub(crate) fn transpose_wide(dev: &Device, module: &Module) -> Result<()> {
    use kernels::e20_transpose_wide::{BLOCK_X, BLOCK_Y, TILE_COLS, TILE_ROWS, transpose_wide};
    let mut seen = Vec::new();
    for (rows, cols) in [(1usize, 1usize), (31, 33), (33, 65), (64, 64), (100, 300), (257, 31)] {
        let src = random(rows * cols, 20, |r| r.random::<u32>());
        let mut dst = poisoned::<u32>(dev, rows * cols)?;
        let config = LaunchConfig {
            grid: (cols.div_ceil(TILE_COLS) as u32, rows.div_ceil(TILE_ROWS) as u32, 1),
            block: (BLOCK_X as u32, BLOCK_Y as u32, 1),
            shared_bytes: 0,
        };
        launch(dev, module, transpose_wide, config, (&mut dst, &dev.upload(&src)?, rows as u64, cols as u64))?;
        let got = dev.download(&dst)?;
        race_free(dev, &mut seen).with_context(|| format!("{rows} × {cols}"))?;
        let want: Vec<u32> = (0..rows * cols).map(|i| src[(i % rows) * cols + i / rows]).collect();
        compare(&format!("{rows} × {cols}"), &got, &want)?;
    }
    shared_within(&seen, None, 1)?;
    coalesced(&seen)
}
