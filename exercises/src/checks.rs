//! Each exercise's check: launches its kernel on shapes that catch the usual mistakes (lengths
//! that are not multiples of the block, one element, partial tiles), compares every element
//! with a CPU reference (exactly: the exercises add and multiply integers, and move floats),
//! and on the emulator checks the property the exercise teaches from the launches' reports.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use anyhow::{Result, anyhow, bail};
use bankwise_exercises_kernels as kernels;
use bankwise_runtime::bankwise_emu::{AccessOp, Fault, GlobalSiteStats, Report};
use bankwise_runtime::verify::{self, Exact};
use bankwise_runtime::{Device, DeviceBuffer, DeviceRepr, KernelEntry, LaunchArgs, LaunchConfig, Module};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Random data, the same on every run.
pub(crate) fn random<T>(n: usize, seed: u64, mut f: impl FnMut(&mut SmallRng) -> T) -> Vec<T> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n).map(|_| f(&mut rng)).collect()
}

/// An output buffer of `n` elements filled with `0xFF` bytes: an element the kernel does not
/// write cannot pass.
pub(crate) fn poisoned<T: DeviceRepr>(dev: &Device, n: usize) -> Result<DeviceBuffer<T>> {
    // Safety: every byte is written by the fill before anything reads the buffer.
    let mut buf = unsafe { dev.alloc_uninit::<T>(n)? };
    dev.fill_bytes(&mut buf, 0xFF)?;
    Ok(buf)
}

/// Launches `entry` (the kernel crate's host-form constant) from `module` on `dev`'s stream:
/// the compiler checks `args` against the kernel's parameters, and each block gets the shared
/// memory the kernel declares plus the dynamic bytes `config` asks for.
pub(crate) fn launch<P, A: LaunchArgs<P>>(
    dev: &Device,
    module: &Module,
    entry: KernelEntry<P>,
    config: LaunchConfig,
    args: A,
) -> Result<()> {
    let kernel = module.kernel(entry)?;
    // Safety: each check passes the arguments its kernel's doc comment names, with buffers of
    // the lengths it states, for the launch it states.
    unsafe { kernel.launch(dev.stream(), config, args) }.map_err(explain_collective)?;
    dev.synchronize()?;
    Ok(())
}

/// `lanes` (bit `i` = lane `i`) as runs: `lanes 8–31`, `lane 5`.
fn lane_list(lanes: u32) -> String {
    let mut runs = Vec::new();
    let mut lane = 0;
    while lane < 32 {
        if lanes >> lane & 1 == 0 {
            lane += 1;
            continue;
        }
        let start = lane;
        while lane < 31 && lanes >> (lane + 1) & 1 == 1 {
            lane += 1;
        }
        runs.push(if start == lane { start.to_string() } else { format!("{start}–{lane}") });
        lane += 1;
    }
    format!("{} {}", if lanes.count_ones() == 1 { "lane" } else { "lanes" }, runs.join(", "))
}

/// A launch's error, with a warp collective (a shuffle, a vote, `sync_warp`) whose mask names
/// lanes that never join it explained for a learner: which lanes, and why each lane the mask
/// names must call it. Other errors as they are (the emulator's faults name their site).
fn explain_collective(err: bankwise_runtime::Error) -> anyhow::Error {
    let bankwise_runtime::Error::Emulated { fault, .. } = &err else { return err.into() };
    match fault {
        Fault::WarpDivergence { thread, site, collective, mask, missing, detail } => anyhow!(
            "{collective} that not every lane it names joins: at {site}, {thread} calls it with mask {mask:#010x} \
             ({}), and {} never call it ({detail}). The lanes a mask names exchange values in the call, so each \
             of them must make it, with the same mask: a lane that skips it leaves the others reading a value \
             never sent (on a GPU, garbage or a hang). Let every lane the mask names reach the call (a lane with \
             no element can take part with a value that changes nothing), or name only the lanes that do",
            lane_list(*mask),
            lane_list(*missing),
        ),
        Fault::WarpMismatch { thread, site, detail } => anyhow!(
            "lanes disagree about a warp collective at {site} ({thread}): {detail}. Each lane a mask names must \
             make the same call with the same mask, and a lane's mask must name the lane itself"
        ),
        _ => err.into(),
    }
}

/// `got` against `want`, element for element, naming the case.
pub(crate) fn compare<T: Exact>(case: &str, got: &[T], want: &[T]) -> Result<()> {
    let report = verify::exact(got, want)?;
    if !report.passed() {
        // Safety: the elements are plain numbers; their bytes are read, not interpreted.
        let bytes = |v: &T| unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
        let unwritten = report.first().iter().any(|m| bytes(&m.got).iter().all(|&b| b == 0xFF));
        let note = if unwritten {
            " (values of all 0xFF bytes, such as NaN or the largest integer, are what the output held before the \
             launch: elements the kernel never wrote)"
        } else {
            ""
        };
        bail!("wrong answer for {case}: {report}{note}");
    }
    Ok(())
}

thread_local! {
    /// The emulator's reports of the check running on this thread, for `check --draw`.
    static SEEN: std::cell::RefCell<Vec<Report>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The reports that [`reports`] has handed out since the last call, on this thread.
pub(crate) fn take_seen() -> Vec<Report> {
    SEEN.with(|seen| seen.take())
}

/// The reports of every launch on `dev` since the check began, or `None` on a GPU.
pub(crate) fn reports(dev: &Device) -> Option<Vec<Report>> {
    let reports: Vec<Report> =
        dev.is_emulator().then(|| dev.take_emulator_reports().into_iter().map(|l| l.report).collect())?;
    SEEN.with(|seen| seen.borrow_mut().extend(reports.iter().cloned()));
    Some(reports)
}

/// No race in any launch.
pub(crate) fn no_race(reports: &[Report]) -> Result<()> {
    if let Some(race) = reports.iter().flat_map(|r| &r.races).next() {
        bail!("a race: {race}");
    }
    Ok(())
}

/// The cost of a site's costliest request beside its average over every request of the check
/// (which partial warps, and steps of different strides, pull below the costliest):
/// `16 wavefronts in its costliest request, 11.17 per request on average`, or `1 wavefront per
/// request` where every request cost the same.
fn worst_and_average(worst: u64, total: u64, requests: u64, unit: &str) -> String {
    let plural = if worst == 1 { "" } else { "s" };
    if worst * requests == total {
        format!("{worst} {unit}{plural} per request")
    } else {
        format!(
            "{worst} {unit}{plural} in its costliest request, {:.2} per request on average",
            total as f64 / requests.max(1) as f64
        )
    }
}

/// Every shared-memory access of `op` (loads, stores, or both where `None`) at no more than
/// `limit` wavefronts per request, in every request.
pub(crate) fn shared_within(reports: &[Report], op: Option<AccessOp>, limit: u32) -> Result<()> {
    // Each site over every launch of the check: (requests, wavefronts, its costliest request's).
    let mut sites: BTreeMap<(String, AccessOp), (u64, u64, u32)> = BTreeMap::new();
    for s in reports.iter().flat_map(|r| &r.sites).filter(|s| op.is_none_or(|op| s.op == op)) {
        let e = sites.entry((s.site.to_string(), s.op)).or_default();
        (e.0, e.1, e.2) = (e.0 + s.requests, e.1 + s.wavefronts, e.2.max(s.worst_wavefronts));
    }
    let failing: Vec<String> = (sites.iter())
        .filter(|((_, op), (_, _, worst))| *op != AccessOp::Atomic && *worst > limit)
        .map(|((site, op), (requests, wavefronts, worst))| {
            format!(
                "the shared {op} at {site} takes {}",
                worst_and_average(u64::from(*worst), *wavefronts, *requests, "wavefront")
            )
        })
        .collect();
    if !failing.is_empty() {
        bail!("bank conflicts (at most {limit} wavefront per request wanted): {}", failing.join("; "));
    }
    Ok(())
}

/// Every global access coalesced: each request touches no more 32-byte sectors than its bytes
/// fill from where they start.
pub(crate) fn coalesced(reports: &[Report]) -> Result<()> {
    // Each site over every launch of the check.
    let mut sites: BTreeMap<(String, AccessOp), GlobalSiteStats> = BTreeMap::new();
    for s in reports.iter().flat_map(|r| &r.global) {
        match sites.entry((s.site.to_string(), s.op)) {
            Entry::Vacant(e) => {
                e.insert(s.clone());
            }
            Entry::Occupied(mut e) => e.get_mut().absorb(s),
        }
    }
    let failing: Vec<String> = (sites.values())
        .filter(|s| !s.is_coalesced())
        .map(|s| {
            format!(
                "the global {} at {} touches {}, where {:.2} per request would hold its bytes",
                s.op,
                s.site,
                worst_and_average(u64::from(s.worst_sectors), s.sectors, s.requests, "sector"),
                s.ideal_sectors as f64 / s.requests.max(1) as f64
            )
        })
        .collect();
    if !failing.is_empty() {
        bail!("uncoalesced (32-byte sectors, counted from where each request's bytes start): {}", failing.join("; "));
    }
    Ok(())
}

/// The global sectors that `reports`' load sites touched, over every request.
fn load_sectors(reports: &[Report]) -> u64 {
    reports.iter().flat_map(|r| &r.global).filter(|s| s.op == AccessOp::Load).map(|s| s.sectors).sum()
}

/// Global memory moved each input sector at most `limit` times over: the sectors the loads
/// touched against the `input` sectors the data fills.
pub(crate) fn loads_within(reports: &[Report], input: u64, limit: f64, why: &str) -> Result<()> {
    let loaded = load_sectors(reports);
    let ratio = loaded as f64 / input.max(1) as f64;
    if ratio > limit {
        bail!(
            "global memory moved each sector of input {ratio:.2} times ({loaded} sectors loaded for {input} sectors of \
             input); at most {limit} wanted: {why}"
        );
    }
    Ok(())
}

/// The 32-byte sectors that `n` 4-byte elements fill.
pub(crate) fn sectors_of(n: usize) -> u64 {
    (n as u64 * 4).div_ceil(32)
}

/// At most `limit` global atomic requests per block in each launch, `what` naming the limit.
pub(crate) fn global_atomics_within(reports: &[Report], limit: u64, what: &str) -> Result<()> {
    let atomics =
        |r: &Report| -> u64 { r.global.iter().filter(|s| s.op == AccessOp::Atomic).map(|s| s.requests).sum() };
    let Some(worst) = reports.iter().max_by(|a, b| {
        let per_block = |r: &Report| atomics(r) as f64 / r.blocks.max(1) as f64;
        per_block(a).total_cmp(&per_block(b))
    }) else {
        return Ok(());
    };
    let (requests, blocks) = (atomics(worst), worst.blocks.max(1));
    if requests > limit * blocks {
        bail!(
            "too many global atomics: a launch of {blocks} blocks made {requests} global atomic requests, {:.1} per \
             block; at most {limit} per block wanted ({what})",
            requests as f64 / blocks as f64
        );
    }
    Ok(())
}

/// Whether `entry`'s PTX has a warp shuffle (`shfl.sync`).
pub(crate) fn shuffles<P>(entry: KernelEntry<P>) -> Result<()> {
    if !ptx_entry(entry).unwrap_or_default().contains("shfl.sync") {
        bail!(
            "no warp shuffle (shfl.sync) in {}'s PTX: the lanes combine their values some other way; the warp's \
             values are to move from lane to lane, register to register, through shuffles",
            entry.name()
        );
    }
    Ok(())
}

/// Whether `entry`'s PTX has an atomic on shared memory (`atom.shared`, `red.shared`).
pub(crate) fn has_shared_atomics<P>(entry: KernelEntry<P>) -> bool {
    let ptx = ptx_entry(entry).unwrap_or_default();
    ptx.contains("atom.shared") || ptx.contains("red.shared")
}

/// The PTX of `entry` in this build's module: from its `.entry` line to the next entry.
fn ptx_entry<P>(entry: KernelEntry<P>) -> Option<&'static str> {
    let start = crate::PTX.find(&format!(".entry {}(", entry.name()))?;
    let rest = &crate::PTX[start..];
    Some(rest[1..].find(".entry ").map_or(rest, |end| &rest[..end + 1]))
}

/// A launch's `blocks` along x of `threads` threads, with no dynamic shared memory: the kernels
/// declare theirs (exercise 8's, whose size follows the block's, is added where it launches).
pub(crate) fn blocks(blocks: u64, threads: u32) -> LaunchConfig {
    LaunchConfig::linear(blocks.max(1) as u32, threads)
}

pub(crate) fn vector_add(dev: &Device, module: &Module) -> Result<()> {
    for n in [1, 1000, 4099] {
        let a = random(n, 1, |r| r.random_range(-1e3f32..1e3));
        let b = random(n, 2, |r| r.random_range(-1e3f32..1e3));
        let mut c = poisoned::<f32>(dev, n)?;
        let config = LaunchConfig::for_elements(n as u64, 256);
        launch(
            dev,
            module,
            kernels::e01_vector_add::vector_add,
            config,
            (&mut c, &dev.upload(&a)?, &dev.upload(&b)?, n as u64),
        )?;
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        compare(&format!("n = {n}"), &dev.download(&c)?, &want)?;
    }
    reports(dev).map_or(Ok(()), |r| coalesced(&r))
}

pub(crate) fn bounds(dev: &Device, module: &Module) -> Result<()> {
    for n in [256, 1000, 1] {
        let x = random(n, 3, |r| r.random_range(-1000i32..1000));
        let y = random(n, 4, |r| r.random_range(-1000i32..1000));
        let mut y_dev = dev.upload(&y)?;
        let config = LaunchConfig::for_elements(n as u64, 256);
        launch(dev, module, kernels::e02_bounds::add_scaled, config, (&mut y_dev, &dev.upload(&x)?, 7i32, n as u64))?;
        let want: Vec<i32> = x.iter().zip(&y).map(|(x, y)| y.wrapping_add(7i32.wrapping_mul(*x))).collect();
        compare(&format!("n = {n} (blocks of 256)"), &dev.download(&y_dev)?, &want)?;
    }
    Ok(())
}

pub(crate) fn grid_stride(dev: &Device, module: &Module) -> Result<()> {
    fill_squares(dev, module, kernels::e03_grid_stride::fill_squares)
}

/// Exercise 3's check of `entry`: every element from a fixed grid, and every store coalesced
/// (a contiguous chunk per thread is right and is not).
fn fill_squares(dev: &Device, module: &Module, entry: KernelEntry<(*mut u64, u64)>) -> Result<()> {
    for n in [100usize, 512, 100_003] {
        let mut out = poisoned::<u64>(dev, n)?;
        launch(dev, module, entry, blocks(4, 128), (&mut out, n as u64))?;
        let want: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(i)).collect();
        compare(&format!("n = {n} from 4 blocks of 128 threads"), &dev.download(&out)?, &want)?;
    }
    reports(dev).map_or(Ok(()), |r| coalesced(&r))
}

pub(crate) fn coalesced_copy(dev: &Device, module: &Module) -> Result<()> {
    for (rows, cols) in [(100usize, 300usize), (64, 64)] {
        let n = rows * cols;
        let src = random(n, 5, |r| r.random::<f32>());
        let mut dst = poisoned::<f32>(dev, n)?;
        let config = LaunchConfig::for_elements(n as u64, 256);
        launch(
            dev,
            module,
            kernels::e04_coalesced_copy::copy_matrix,
            config,
            (&mut dst, &dev.upload(&src)?, rows as u64, cols as u64),
        )?;
        compare(&format!("{rows} × {cols}"), &dev.download(&dst)?, &src)?;
    }
    reports(dev).map_or(Ok(()), |r| coalesced(&r))
}

pub(crate) fn reverse_block(dev: &Device, module: &Module) -> Result<()> {
    const BLOCK: usize = 256;
    let data = random(4 * BLOCK, 6, |r| r.random::<u32>());
    let mut buf = dev.upload(&data)?;
    launch(dev, module, kernels::e05_reverse_block::reverse_blocks, blocks(4, BLOCK as u32), (&mut buf,))?;
    let got = dev.download(&buf)?;
    // Races first: they are why the answer is wrong.
    reports(dev).map_or(Ok(()), |r| no_race(&r))?;
    let want: Vec<u32> = data.chunks(BLOCK).flat_map(|run| run.iter().rev().copied()).collect();
    compare("4 blocks of 256", &got, &want)
}

/// A sum kernel's parameters: `out` (one sum per block, or per warp), `data`, `n`.
type BlockSumParams = (*mut u32, *const u32, u64);

/// Runs a block-sum kernel (256 threads, one element each) over `n` elements and checks each
/// block's sum; returns how many blocks ran.
fn block_sums(dev: &Device, module: &Module, entry: KernelEntry<BlockSumParams>, n: usize) -> Result<u64> {
    let data = random(n, 7, |r| r.random::<u32>());
    let count = n.div_ceil(256);
    let mut out = poisoned::<u32>(dev, count)?;
    launch(dev, module, entry, blocks(count as u64, 256), (&mut out, &dev.upload(&data)?, n as u64))?;
    let want: Vec<u32> = data.chunks(256).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
    compare(&format!("n = {n}"), &dev.download(&out)?, &want)?;
    Ok(count as u64)
}

pub(crate) fn divergent_sum(dev: &Device, module: &Module) -> Result<()> {
    let entry = kernels::e11_divergent_sum::block_sums;
    let launched = block_sums(dev, module, entry, 1024)? + block_sums(dev, module, entry, 1000)?;
    let Some(reports) = reports(dev) else { return Ok(()) };
    no_race(&reports)?;
    let loads: u64 = reports.iter().flat_map(|r| &r.sites).filter(|s| s.op == AccessOp::Load).map(|s| s.requests).sum();
    let per_block = loads as f64 / launched as f64;
    if per_block > 25.0 {
        bail!(
            "divergence: the tree's shared loads took {per_block:.0} warp-wide requests per block; with the \
             working threads packed into the fewest warps they take 25"
        );
    }
    Ok(())
}

pub(crate) fn conflicted_sum(dev: &Device, module: &Module) -> Result<()> {
    let entry = kernels::e12_conflicted_sum::block_sums_sequential;
    block_sums(dev, module, entry, 1024)?;
    block_sums(dev, module, entry, 1000)?;
    let Some(reports) = reports(dev) else { return Ok(()) };
    no_race(&reports)?;
    shared_within(&reports, None, 1)
}

pub(crate) fn warp_sum(dev: &Device, module: &Module) -> Result<()> {
    warp_sums(dev, module, kernels::e13_warp_sum::warp_sums)
}

/// Exercise 13's check of `entry`: every warp's sum, the last warp partly past the end; no
/// shared memory, each input loaded once, and shuffles in the PTX.
fn warp_sums(dev: &Device, module: &Module, entry: KernelEntry<BlockSumParams>) -> Result<()> {
    let mut input = 0;
    for n in [32usize, 1000, 4099] {
        let data = random(n, 8, |r| r.random::<u32>());
        let mut out = poisoned::<u32>(dev, n.div_ceil(32))?;
        let config = LaunchConfig::for_elements(n as u64, 256);
        launch(dev, module, entry, config, (&mut out, &dev.upload(&data)?, n as u64))?;
        let want: Vec<u32> = data.chunks(32).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
        compare(&format!("n = {n}"), &dev.download(&out)?, &want)?;
        input += sectors_of(n);
    }
    if let Some(r) = reports(dev) {
        if r.iter().any(|r| !r.sites.is_empty()) {
            bail!("shared memory used: the warp's lanes can exchange values through shuffles alone");
        }
        let why = "each lane's element comes from global memory once, and the warp's other values are in its \
                   other lanes' registers";
        loads_within(&r, input, 1.25, why)?;
    }
    shuffles(entry)
}

pub(crate) fn row_stride(dev: &Device, module: &Module) -> Result<()> {
    for rows in [32usize, 100, 1] {
        let data = random(rows * 16, 9, |r| r.random::<u32>());
        let mut out = poisoned::<u32>(dev, rows)?;
        let config = blocks(rows.div_ceil(32) as u64, 32);
        launch(dev, module, kernels::e07_row_stride::row_sums, config, (&mut out, &dev.upload(&data)?, rows as u64))?;
        let want: Vec<u32> = data.chunks(16).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
        compare(&format!("{rows} rows"), &dev.download(&out)?, &want)?;
    }
    reports(dev).map_or(Ok(()), |r| shared_within(&r, Some(AccessOp::Load), 1))
}

/// A transpose kernel's parameters: `dst`, `src`, `rows`, `cols`.
type TransposeParams = (*mut f32, *const f32, u64, u64);

/// Runs a 32 × 32-tile transpose kernel over three shapes, then checks that every shared access
/// is conflict-free and every global one coalesced.
fn transpose(dev: &Device, module: &Module, entry: KernelEntry<TransposeParams>) -> Result<()> {
    for (rows, cols) in [(100usize, 300usize), (64, 64), (33, 65)] {
        let src = random(rows * cols, 10, |r| r.random::<f32>());
        let mut dst = poisoned::<f32>(dev, rows * cols)?;
        let config = LaunchConfig {
            grid: (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1),
            block: (32, 8, 1),
            shared_bytes: 0,
        };
        launch(dev, module, entry, config, (&mut dst, &dev.upload(&src)?, rows as u64, cols as u64))?;
        let want: Vec<f32> = (0..rows * cols).map(|i| src[(i % rows) * cols + i / rows]).collect();
        compare(&format!("{rows} × {cols}"), &dev.download(&dst)?, &want)?;
    }
    let Some(reports) = reports(dev) else { return Ok(()) };
    no_race(&reports)?;
    shared_within(&reports, None, 1)?;
    coalesced(&reports)
}

pub(crate) fn transpose_padded(dev: &Device, module: &Module) -> Result<()> {
    transpose(dev, module, kernels::e09_transpose_padded::transpose_tile)
}

pub(crate) fn transpose_swizzled(dev: &Device, module: &Module) -> Result<()> {
    let entry = kernels::e10_transpose_swizzled::transpose_swizzled;
    // The tile's 32 × 32 words and no more: padding would need more, a swizzle does not.
    if entry.shared_bytes() != 32 * 32 * 4 {
        bail!(
            "transpose_swizzled declares {} bytes of shared memory; keep it to the tile's 32 × 32 words (4096 bytes) \
             and move the elements within each row instead",
            entry.shared_bytes()
        );
    }
    transpose(dev, module, entry)
}

pub(crate) fn vector_reads(dev: &Device, module: &Module) -> Result<()> {
    const THREADS: u32 = 64;
    let quad_sums = kernels::e08_vector_reads::quad_sums;
    // The warps that read a group: a block's warps past the end read nothing.
    let mut warps = 0;
    for quads in [32usize, 1000, 4099] {
        let data = random(4 * quads, 11, |r| r.random::<u32>());
        let mut out = poisoned::<u32>(dev, quads)?;
        let count = quads.div_ceil(THREADS as usize) as u64;
        warps += quads.div_ceil(32) as u64;
        // Dynamic shared memory: the kernel copies its block's words, `blockDim.x · 16` bytes.
        let config = blocks(count, THREADS).with_shared_bytes(THREADS * 16);
        launch(dev, module, quad_sums, config, (&mut out, &dev.upload(&data)?, quads as u64))?;
        let want: Vec<u32> = data.chunks(4).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
        compare(&format!("{quads} groups of 4"), &dev.download(&out)?, &want)?;
    }
    if let Some(reports) = reports(dev) {
        // Each load site over the launches: (requests, wavefronts, its costliest request's).
        let mut sites: BTreeMap<String, (u64, u64, u32)> = BTreeMap::new();
        for s in reports.iter().flat_map(|r| &r.sites).filter(|s| s.op == AccessOp::Load) {
            let e = sites.entry(s.site.to_string()).or_default();
            (e.0, e.1, e.2) = (e.0 + s.requests, e.1 + s.wavefronts, e.2.max(s.worst_wavefronts));
        }
        let per_warp = sites.values().map(|s| s.1).sum::<u64>() as f64 / warps as f64;
        // A full warp's: each site's costliest request, as often as a warp makes it.
        let full_warp: u64 = sites.values().map(|s| u64::from(s.2) * s.0.div_ceil(warps)).sum();
        if full_warp > 4 {
            bail!(
                "bank conflicts: the reads of the groups take {full_warp} wavefronts per full warp ({per_warp:.2} per \
                 warp on average: the last warp of a length has fewer lanes); a warp's 512 bytes need only 4 (a \
                 wavefront moves at most 128 bytes, one word per bank)"
            );
        }
    }
    // What the GPU runs: the compiler emits one 16-byte load only for a 16-byte-aligned type.
    if !ptx_entry(quad_sums).unwrap_or_default().contains("ld.shared.v4") {
        bail!(
            "no 16-byte shared load in quad_sums's PTX: the compiler moves a 4-byte-aligned [u32; 4] as four \
             ld.shared.u32 (LDS), whatever the emulator counts; read a 16-byte-aligned type"
        );
    }
    Ok(())
}

pub(crate) fn histogram(dev: &Device, module: &Module) -> Result<()> {
    histogram_of(dev, module, kernels::e06_histogram::histogram)
}

/// Exercise 6's check of `entry`: every bin, no race, and at most one global atomic request per
/// bin and block (a block's counts reach the global bins once).
fn histogram_of(dev: &Device, module: &Module, entry: KernelEntry<(*mut u32, *const u8, u64)>) -> Result<()> {
    use kernels::e06_histogram::BINS;
    let mut seen = Vec::new();
    for n in [1usize, 1000, 70_000] {
        let data = random(n, 12, |r| r.random_range(0..8u8).wrapping_mul(37));
        let mut bins = dev.alloc_zeros::<u32>(BINS)?;
        // 4 blocks at most: a byte per thread would take far more atomic requests than bins.
        let config = blocks(n.div_ceil(256).min(4) as u64, 256);
        launch(dev, module, entry, config, (&mut bins, &dev.upload(&data)?, n as u64))?;
        let mut want = vec![0u32; BINS];
        for &b in &data {
            want[b as usize] += 1;
        }
        let got = dev.download(&bins)?;
        if let Some(r) = reports(dev) {
            no_race(&r)?;
            seen.extend(r);
        }
        compare(&format!("{n} bytes"), &got, &want)?;
    }
    let what = "one per bin: each block counts into its own bins in shared memory, and adds them to the global \
                bins once";
    global_atomics_within(&seen, BINS as u64, what)
}

pub(crate) fn tiled_matmul(dev: &Device, module: &Module) -> Result<()> {
    for n in [1usize, 17, 48] {
        let a = random(n * n, 13, |r| r.random_range(0..100u32));
        let b = random(n * n, 14, |r| r.random_range(0..100u32));
        let mut c = poisoned::<u32>(dev, n * n)?;
        let tiles = n.div_ceil(16) as u32;
        let config = LaunchConfig { grid: (tiles, tiles, 1), block: (16, 16, 1), shared_bytes: 0 };
        launch(
            dev,
            module,
            kernels::e14_tiled_matmul::matmul_tiled,
            config,
            (&mut c, &dev.upload(&a)?, &dev.upload(&b)?, n as u64),
        )?;
        let got = dev.download(&c)?;
        reports(dev).map_or(Ok(()), |r| no_race(&r))?;
        let want: Vec<u32> = (0..n * n)
            .map(|i| (0..n).fold(0u32, |s, k| s.wrapping_add(a[i / n * n + k].wrapping_mul(b[k * n + i % n]))))
            .collect();
        compare(&format!("{n} × {n}"), &got, &want)?;
    }
    Ok(())
}

/// What exercise `name`'s check prints for each of its common mistakes (`kernels/mistakes/`) on
/// the emulator, `passed` for one it lets through: what an exercise's file quotes of a mistake
/// is then testable.
pub(crate) fn mistakes(name: &str) -> Vec<String> {
    use crate::patterns;
    use kernels::mistakes as m;
    let dev = Device::emulator_with(bankwise_runtime::EmulatorChecks::Collect);
    let module = match dev.load_module(bankwise_runtime::ModuleImage::Ptx(crate::PTX), Some(crate::ENTRIES)) {
        Ok(module) => module,
        Err(e) => return vec![format!("the module does not load: {e}")],
    };
    let (dev, module) = (&dev, &module);
    type Check<'a> = Box<dyn Fn() -> Result<()> + 'a>;
    let checks: Vec<Check> = match name {
        "e03_grid_stride" => vec![Box::new(|| fill_squares(dev, module, m::fill_squares_chunked))],
        "e06_histogram" => vec![Box::new(|| histogram_of(dev, module, m::histogram_global_atomics))],
        "e13_warp_sum" => vec![
            Box::new(|| warp_sums(dev, module, m::warp_sums_in_bounds_only)),
            Box::new(|| warp_sums(dev, module, m::warp_sums_lane_loop)),
            Box::new(|| warp_sums(dev, module, m::warp_sums_ballot)),
        ],
        "e15_warp_scan" => vec![
            Box::new(|| patterns::warp_scans(dev, module, m::warp_scans_lane_loop)),
            Box::new(|| patterns::warp_scans(dev, module, m::warp_scans_ballot)),
        ],
        "e16_block_scan" => vec![
            Box::new(|| patterns::block_scans(dev, module, m::block_scans_from_global)),
            Box::new(|| patterns::block_scans(dev, module, m::block_scans_serial)),
        ],
        "e19_private_histogram" => vec![
            Box::new(|| patterns::histogram32(dev, module, m::histogram32_shared_atomics)),
            Box::new(|| patterns::histogram32(dev, module, m::histogram32_global_atomics)),
            Box::new(|| patterns::histogram32(dev, module, m::histogram32_in_registers)),
        ],
        _ => Vec::new(),
    };
    (checks.iter())
        .map(|check| {
            dev.take_emulator_reports();
            check().map_or_else(|e| format!("{e:#}"), |()| "passed".into())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use bankwise_runtime::ModuleImage;

    use super::*;

    /// The emulator and this build's module, for checking a common mistake's kernel.
    fn emulator() -> (Device, Module) {
        let dev = Device::emulator();
        let module = dev.load_module(ModuleImage::Ptx(crate::PTX), Some(crate::ENTRIES)).expect("the module loads");
        (dev, module)
    }

    #[test]
    fn a_contiguous_chunk_per_thread_is_right_and_fails_exercise_3_as_uncoalesced() {
        let (dev, module) = emulator();
        let err = fill_squares(&dev, &module, kernels::mistakes::fill_squares_chunked).unwrap_err().to_string();
        // 196 elements of 8 bytes per thread for n = 100,003: each lane's store its own sector.
        assert!(err.starts_with("uncoalesced"), "{err}");
        assert!(err.contains("mistakes/mod.rs") && err.contains("the global store"), "{err}");
        assert!(err.contains("touches 32 sectors in its costliest request"), "{err}");
    }

    #[test]
    fn shuffles_that_lanes_past_the_end_skip_fail_exercise_13_with_the_lanes_named() {
        let (dev, module) = emulator();
        let err = warp_sums(&dev, &module, kernels::mistakes::warp_sums_in_bounds_only).unwrap_err().to_string();
        // n = 1000: the last warp's lanes 8–31 have no element and skip the shuffles.
        assert!(err.contains("shuffle that not every lane it names joins"), "{err}");
        assert!(err.contains("mask 0xffffffff (lanes 0–31), and lanes 8–31 never call it"), "{err}");
        assert!(err.contains("each of them must make it"), "{err}");
    }

    #[test]
    fn a_lane_reading_its_warps_elements_fails_exercise_13_as_loading_them_again() {
        let (dev, module) = emulator();
        let err = warp_sums(&dev, &module, kernels::mistakes::warp_sums_lane_loop).unwrap_err().to_string();
        // 32 one-lane requests of one sector each where a warp's 4 sectors hold its elements.
        assert!(err.starts_with("global memory moved each sector of input 7.99 times"), "{err}");
        assert!(err.contains("each lane's element comes from global memory once"), "{err}");
    }

    #[test]
    fn a_sum_without_shuffles_fails_exercise_13() {
        let (dev, module) = emulator();
        let err = warp_sums(&dev, &module, kernels::mistakes::warp_sums_ballot).unwrap_err().to_string();
        assert!(err.starts_with("no warp shuffle (shfl.sync) in warp_sums_ballot's PTX"), "{err}");
    }

    #[test]
    fn lanes_reading_their_prefixes_fail_exercise_15_as_loading_them_again() {
        let (dev, module) = emulator();
        let err = crate::patterns::warp_scans(&dev, &module, kernels::mistakes::warp_scans_lane_loop)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("global memory moved each sector of input"), "{err}");
        assert!(err.contains("at most 1.25 wanted"), "{err}");
    }

    #[test]
    fn a_scan_without_shuffles_fails_exercise_15() {
        let (dev, module) = emulator();
        let err =
            crate::patterns::warp_scans(&dev, &module, kernels::mistakes::warp_scans_ballot).unwrap_err().to_string();
        assert!(err.starts_with("no warp shuffle (shfl.sync) in warp_scans_ballot's PTX"), "{err}");
    }

    #[test]
    fn a_block_scan_from_global_memory_fails_exercise_16_as_loading_inputs_again() {
        let (dev, module) = emulator();
        let entry = kernels::mistakes::block_scans_from_global;
        let err = crate::patterns::block_scans(&dev, &module, entry).unwrap_err().to_string();
        assert!(err.starts_with("global memory moved each sector of input"), "{err}");
        assert!(err.contains("what a warp needs of the warps before it is their totals"), "{err}");
    }

    #[test]
    fn a_serial_scan_of_the_totals_fails_exercise_16() {
        let (dev, module) = emulator();
        let err =
            crate::patterns::block_scans(&dev, &module, kernels::mistakes::block_scans_serial).unwrap_err().to_string();
        // Thread 0's 8 one-lane loads and the 7 warps' reads of their prefixes.
        assert!(err.starts_with("the warps' totals are scanned serially"), "{err}");
        assert!(err.contains("15.0 warp-wide requests per block") && err.contains("at most 9"), "{err}");
    }

    #[test]
    fn global_atomics_per_byte_fail_exercise_6() {
        let (dev, module) = emulator();
        let err = histogram_of(&dev, &module, kernels::mistakes::histogram_global_atomics).unwrap_err().to_string();
        // 70,000 bytes over 4 blocks of 256 threads: ⌈70,000 / 32⌉ warp-wide requests.
        assert!(err.starts_with("too many global atomics: a launch of 4 blocks made 2188"), "{err}");
        assert!(err.contains("at most 256 per block wanted (one per bin"), "{err}");
    }

    #[test]
    fn shared_atomics_on_the_bins_fail_exercise_19() {
        let (dev, module) = emulator();
        let entry = kernels::mistakes::histogram32_shared_atomics;
        let err = crate::patterns::histogram32(&dev, &module, entry).unwrap_err().to_string();
        assert!(err.starts_with("shared atomics in histogram32_shared_atomics's PTX (atom.shared)"), "{err}");
    }

    #[test]
    fn global_atomics_per_value_fail_exercise_19() {
        let (dev, module) = emulator();
        let entry = kernels::mistakes::histogram32_global_atomics;
        let err = format!("{:#}", crate::patterns::histogram32(&dev, &module, entry).unwrap_err());
        assert!(err.starts_with("on uniform data: too many global atomics"), "{err}");
        assert!(err.contains("at most 32 per block wanted (one per bin"), "{err}");
    }

    #[test]
    fn counters_outside_shared_memory_fail_exercise_19() {
        let (dev, module) = emulator();
        let entry = kernels::mistakes::histogram32_in_registers;
        let err = format!("{:#}", crate::patterns::histogram32(&dev, &module, entry).unwrap_err());
        assert!(err.starts_with("on uniform data: the counts are not made in shared memory"), "{err}");
    }

    #[test]
    fn every_mistake_fails_its_exercise() {
        for e in crate::EXERCISES {
            for err in mistakes(e.name) {
                assert_ne!(err, "passed", "a mistake of {} passes its check", e.name);
            }
        }
    }

    #[test]
    fn a_costliest_request_is_shown_beside_the_average() {
        assert_eq!(worst_and_average(1, 5, 5, "wavefront"), "1 wavefront per request");
        assert_eq!(worst_and_average(16, 32, 2, "wavefront"), "16 wavefronts per request");
        assert_eq!(
            worst_and_average(16, 17, 2, "wavefront"),
            "16 wavefronts in its costliest request, 8.50 per request on average"
        );
    }

    #[test]
    fn lanes_are_listed_as_runs() {
        assert_eq!(lane_list(u32::MAX), "lanes 0–31");
        assert_eq!(lane_list(0xffff_ff00), "lanes 8–31");
        assert_eq!(lane_list(1 << 5), "lane 5");
        assert_eq!(lane_list(0b1011), "lanes 0–1, 3");
    }
}
