//! The emulator's semantics, through kernels written directly against its `lane` API: the
//! collectives against the PTX ISA's definitions, barriers, the race check, the bounds checks,
//! and the faults a broken kernel gets.

use std::ffi::c_void;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use bankwise_emu::lane::{self, Barrier, Shuffle, Vote};
use bankwise_emu::memory::HostAllocation;
use bankwise_emu::{AccessOp, Dim3, Fault, RaceKind, Report, Space, launch};

/// Runs `run` on `grid` × `block` threads with `shared` bytes and one pointer argument `out`.
fn run(
    run: unsafe fn(&[*mut c_void]),
    out: &HostAllocation,
    grid: u32,
    block: u32,
    shared: u32,
) -> Result<Report, Fault> {
    let mut ptr = out.as_ptr() as u64;
    let params = [&mut ptr as *mut u64 as *mut c_void];
    // SAFETY: `params` holds the one parameter every kernel here takes, a pointer to a `u64`
    // holding the address of `out`, a `HostAllocation` that nothing else touches during the launch.
    unsafe { launch(run, &params, Dim3::new(grid, 1, 1), Dim3::new(block, 1, 1), shared) }
}

fn out_of(params: &[*mut c_void]) -> *mut u32 {
    // SAFETY: `params[0]` points to the `u64` that `run` passes (the address of `out`).
    unsafe { *(params[0] as *const u64) as *mut u32 }
}

fn linear() -> u32 {
    let (t, b, d) = (lane::thread_idx(), lane::block_idx(), lane::block_dim());
    b.x * d.x + t.x
}

fn words(a: &HostAllocation) -> Vec<u32> {
    // SAFETY: the launch has returned: nothing writes the allocation meanwhile.
    unsafe { a.bytes() }.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

unsafe fn shuffles(params: &[*mut c_void]) {
    let out = out_of(params);
    let i = linear();
    let l = lane::lane_id();
    let v = 100 + l;
    let results = [
        lane::shuffle(Shuffle::Down, u32::MAX, v, 3, 0x1f),
        lane::shuffle(Shuffle::Up, u32::MAX, v, 5, 0),
        lane::shuffle(Shuffle::Xor, u32::MAX, v, 9, 0x1f),
        lane::shuffle(Shuffle::Idx, u32::MAX, v, 31 - l, 0x1f),
        lane::vote(Vote::Ballot, u32::MAX, l.is_multiple_of(3)),
        lane::vote(Vote::All, u32::MAX, l < 40),
        lane::vote(Vote::Any, u32::MAX, l == 7),
    ];
    for (k, r) in results.into_iter().enumerate() {
        // SAFETY: `out` holds 64 × 7 words and `i < 64`: the offset stays inside it.
        lane::global_write(unsafe { out.add(i as usize * 7 + k) }, r, 4);
    }
}

#[test]
fn shuffles_and_votes_follow_the_ptx_definitions() {
    let out = HostAllocation::zeroed(64 * 7 * 4).unwrap();
    run(shuffles, &out, 1, 64, 0).unwrap();
    let w = words(&out);
    let ballot = (0..32u32).filter(|l| l.is_multiple_of(3)).fold(0u32, |m, l| m | 1 << l);
    for i in 0..64u32 {
        let l = i % 32;
        let r = &w[i as usize * 7..][..7];
        assert_eq!(r[0], 100 + if l + 3 <= 31 { l + 3 } else { l }, "down, lane {l}");
        assert_eq!(r[1], 100 + if l >= 5 { l - 5 } else { l }, "up, lane {l}");
        assert_eq!(r[2], 100 + (l ^ 9), "xor, lane {l}");
        assert_eq!(r[3], 100 + (31 - l), "idx, lane {l}");
        assert_eq!(r[4], ballot, "ballot");
        assert_eq!(r[5], 1, "all");
        assert_eq!(r[6], 1, "any");
    }
}

unsafe fn counting_barrier(params: &[*mut c_void]) {
    let out = out_of(params);
    let t = lane::thread_idx().x;
    let count = lane::barrier(Barrier::Count, t.is_multiple_of(5));
    let and = lane::barrier(Barrier::And, t < 1000);
    let or = lane::barrier(Barrier::Or, t == 77);
    if t == 0 {
        lane::global_write(out, count, 4);
        // SAFETY: `out` holds 3 words.
        lane::global_write(unsafe { out.add(1) }, and, 4);
        // SAFETY: `out` holds 3 words.
        lane::global_write(unsafe { out.add(2) }, or, 4);
    }
}

#[test]
fn reducing_barriers_count_and_vote_over_the_block() {
    let out = HostAllocation::zeroed(12).unwrap();
    run(counting_barrier, &out, 1, 100, 0).unwrap();
    assert_eq!(words(&out), [20, 1, 1]);
}

/// Lane `t` writes shared word `t`, then (after `SYNC`) reads word `t + 1`.
unsafe fn neighbour<const SYNC: u8>(params: &[*mut c_void]) {
    let out = out_of(params);
    let t = lane::thread_idx().x;
    let base = lane::shared_base();
    // SAFETY: the launch has 4 bytes of shared memory per thread and `i` is a thread index, so the
    // offset stays inside the block's shared memory.
    let at = |i: u32| unsafe { base.add(4 * i as usize) };
    lane::shared_access(at(t), 4, usize::MAX, AccessOp::Store);
    // SAFETY: word `t` of shared memory, inside it (see `at`) and aligned (the base is 16-byte
    // aligned). The emulator runs a block's threads as fibers, one at a time on one OS thread,
    // so lanes that race here (what the test checks for) never access memory at the same time.
    unsafe { at(t).cast::<u32>().write(t) };
    match SYNC {
        1 => lane::sync_warp(u32::MAX),
        2 => {
            lane::barrier(Barrier::Sync, false);
        }
        _ => {}
    }
    let n = (t + 1) % lane::block_dim().x;
    lane::shared_access(at(n), 4, usize::MAX, AccessOp::Load);
    // SAFETY: word `n` of shared memory, inside it (see `at`) and aligned, as for the write.
    let v = unsafe { at(n).cast::<u32>().read() };
    // SAFETY: `out` holds 64 words and `t` is below the block's 32 or 64 threads.
    lane::global_write(unsafe { out.add(t as usize) }, v, 4);
}

#[test]
fn a_race_is_reported_with_both_sites_and_threads_unless_a_barrier_orders_them() {
    let out = HostAllocation::zeroed(64 * 4).unwrap();
    // Unsynchronised: lane t reads word t + 1 before lane t + 1 writes it (write after read),
    // and lane 31 reads word 0 after lane 0 wrote it (read after write); both are races.
    let r = run(neighbour::<0>, &out, 1, 32, 128).unwrap();
    let kinds: Vec<RaceKind> = r.races.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RaceKind::WriteRead, RaceKind::ReadWrite], "{:?}", r.races);
    let (raw, war) = (&r.races[0], &r.races[1]);
    assert!(raw.first.file.ends_with("semantics.rs") && raw.second.line > raw.first.line, "{raw}");
    assert_eq!((raw.first_thread.thread.x, raw.second_thread.thread.x, raw.address), (0, 31, 0));
    assert_eq!((war.first_thread.thread.x, war.second_thread.thread.x, war.address), (0, 1, 4));
    assert_eq!(war.occurrences, 31);
    // Lanes of one warp ordered by sync_warp: no race.
    assert!(run(neighbour::<1>, &out, 1, 32, 128).unwrap().races.is_empty());
    // Across warps sync_warp orders nothing; a block barrier does.
    let r = run(neighbour::<1>, &out, 1, 64, 256).unwrap();
    assert_eq!(r.races.len(), 1, "lanes 31 and 63 read across warps: {:?}", r.races);
    let r = run(neighbour::<2>, &out, 1, 64, 256).unwrap();
    assert!(r.races.is_empty(), "{:?}", r.races);
    assert_eq!(words(&out), (0..64).map(|t| (t + 1) % 64).collect::<Vec<u32>>());
    // The accesses are conflict-free: one wavefront per request, two warps × two sites.
    assert_eq!(r.sites.len(), 2);
    for s in &r.sites {
        assert_eq!((s.requests, s.wavefronts), (2, 2), "{s:?}");
    }
}

/// Every lane reads word `32 · lane`: a 32-way conflict.
unsafe fn column(_: &[*mut c_void]) {
    let l = lane::lane_id();
    // SAFETY: 4096 bytes of shared memory and `l < 32`: at most byte 3968.
    let p = unsafe { lane::shared_base().add(128 * l as usize) };
    lane::shared_access(p, 4, usize::MAX, AccessOp::Load);
}

#[test]
fn a_column_read_takes_32_wavefronts() {
    let out = HostAllocation::zeroed(4).unwrap();
    let r = run(column, &out, 3, 64, 4096).unwrap();
    assert_eq!(r.sites.len(), 1);
    assert_eq!((r.sites[0].requests, r.sites[0].wavefronts), (6, 6 * 32));
    assert_eq!(r.sites[0].worst_wavefronts, 32);
    assert_eq!((r.blocks, r.threads), (3, 192));
    // Drawn: the counts, then the bank map of the request, all 32 lanes in bank 0.
    let drawing = r.draw(false);
    let header = format!("{} load: 6 requests, 192 wavefronts (32.00 per request)\n", r.sites[0].site);
    assert!(drawing.starts_with(&header), "{drawing}");
    let geometry = bankwise_banks::Geometry::MODERN;
    let column = bankwise_banks::Access::strided(bankwise_banks::Width::B4, 0, 32);
    let map = bankwise_banks::render_text(&bankwise_banks::analyze(&column, &geometry).unwrap(), &geometry, false);
    assert!(drawing.contains(&format!("its costliest request, 32 wavefronts:\n{map}")), "{drawing}");
}

/// Thread `i` writes word `i` (coalesced), then word `32 · i` (a column: every lane its own
/// sector), reads 8 bytes at `8 · (i / 2)` (lane pairs share an element), then writes word
/// `i + 1` (a row that starts 4 bytes into a sector).
unsafe fn rows_and_columns(params: &[*mut c_void]) {
    let out = out_of(params);
    let i = linear();
    // SAFETY: `out` holds 32 × 40 words and `i < 40`.
    lane::global_write(unsafe { out.add(i as usize) }, i, 4);
    // SAFETY: `out` holds 32 × 40 words and `i < 40`: at most word 1248.
    lane::global_write(unsafe { out.add(32 * i as usize) }, i, 4);
    // SAFETY: `out` holds 32 × 40 words, `i < 40`: an 8-byte read at an even word, inside it and
    // aligned.
    let _: u64 = unsafe { lane::global_read(out.add(2 * (i / 2) as usize).cast::<u64>(), 8) };
    // SAFETY: `out` holds 32 × 40 words and `i < 40`.
    lane::global_write(unsafe { out.add(i as usize + 1) }, i, 4);
}

#[test]
fn global_requests_count_the_32_byte_sectors_their_lanes_touch() {
    // 40 threads: one full warp and one of 8 lanes.
    let out = HostAllocation::zeroed(32 * 40 * 4).unwrap();
    let r = run(rows_and_columns, &out, 1, 40, 0).unwrap();
    let [row, column, pairs, shifted] = &r.global[..] else { panic!("four global sites: {:?}", r.global) };
    assert_eq!((row.op, column.op, pairs.op), (AccessOp::Store, AccessOp::Store, AccessOp::Load));
    // The full warp's 128 bytes fill 4 sectors; the 8 lanes' 32 bytes, 1.
    assert_eq!((row.requests, row.sectors, row.ideal_sectors), (2, 5, 5));
    assert!(row.is_coalesced());
    // A column: one sector per lane (32 + 8), where 5 would do.
    assert_eq!((column.requests, column.sectors, column.ideal_sectors, column.worst_sectors), (2, 40, 5, 32));
    assert!(!column.is_coalesced());
    // Lane pairs read the same 8 bytes: 16 distinct elements, 128 bytes, 4 sectors (and 1).
    assert_eq!((pairs.requests, pairs.sectors, pairs.ideal_sectors), (2, 5, 5));
    // 4 bytes into a sector, the full warp's 128 bytes span 5 sectors and the 8 lanes' 32
    // bytes 2, and no fewer could hold them from there: coalesced.
    assert_eq!((shifted.requests, shifted.sectors, shifted.ideal_sectors), (2, 7, 7));
    assert!(shifted.is_coalesced());
    // Drawn: the counts, then each sector of the costliest request with its lanes.
    let drawing = column.draw();
    assert!(drawing.contains("2 requests, 40 sectors of 32 bytes (20.00 per request; 2.50 if coalesced)"), "{drawing}");
    assert!(drawing.contains("  +0        0\n  +128      1\n"), "{drawing}");
    assert!(drawing.contains(&format!("  +{:<8} 31\n", 31 * 128)), "{drawing}");
}

unsafe fn past_the_buffer(params: &[*mut c_void]) {
    let out = out_of(params);
    let i = linear();
    // Threads from 40 on address past `out`, on purpose: the emulator must catch the write.
    // `wrapping_add`, because `add` may not compute an address outside its allocation.
    lane::global_write(out.wrapping_add(i as usize), i, 4);
}

#[test]
fn a_global_write_past_the_buffer_is_a_fault_naming_the_site_and_thread() {
    let out = HostAllocation::zeroed(40 * 4).unwrap();
    match run(past_the_buffer, &out, 2, 32, 0) {
        Err(Fault::OutOfBounds { space: Space::Global, write: true, thread, site, bytes: 4, .. }) => {
            assert_eq!(thread.block.x * 32 + thread.thread.x, 40, "the first thread past the end");
            assert!(site.file.ends_with("semantics.rs"), "{site}");
        }
        other => panic!("{other:?}"),
    }
    // Nothing was written past the end; everything before it was.
    assert_eq!(words(&out), (0..40).collect::<Vec<u32>>());
}

unsafe fn shared_past_the_launch(_: &[*mut c_void]) {
    let t = lane::thread_idx().x;
    // Lanes from 16 on address past the launch's 64 bytes, on purpose: the emulator must catch
    // the access. `wrapping_add`, because `add` may not compute an address outside its allocation.
    lane::shared_access(lane::shared_base().wrapping_add(4 * t as usize), 4, usize::MAX, AccessOp::Store);
}

#[test]
fn a_shared_access_past_the_launch_is_a_fault() {
    let out = HostAllocation::zeroed(4).unwrap();
    match run(shared_past_the_launch, &out, 1, 32, 64) {
        Err(fault @ Fault::OutOfBounds { space: Space::Shared, address: 64, thread, .. }) => {
            assert_eq!(thread.thread.x, 16);
            let text = fault.to_string();
            assert!(text.contains("right after the end of the block's 64 bytes of shared memory"), "{text}");
            assert!(text.contains("LaunchConfig::with_shared_bytes"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

unsafe fn global_before_the_buffer(params: &[*mut c_void]) {
    let out = out_of(params);
    // Thread 3 reads the word before `out`, on purpose (an index computed as `i - 1` at 0).
    let i = linear();
    let at = if i == 3 { out.wrapping_sub(1) } else { out.wrapping_add(i as usize) };
    // SAFETY: every `Plain` word is valid for any bits; the emulator checks the address.
    let v: u32 = unsafe { lane::global_read(at, 4) };
    lane::global_write(out.wrapping_add(i as usize), v + 1, 4);
}

#[test]
fn a_read_before_a_buffer_names_its_start_not_the_allocation_below() {
    // Allocations below `out` (this one, and those of tests beside it) must not be named as
    // what the read ran past.
    let _below = HostAllocation::zeroed(28).unwrap();
    let out = HostAllocation::zeroed(32 * 4).unwrap();
    match run(global_before_the_buffer, &out, 1, 32, 0) {
        Err(fault @ Fault::OutOfBounds { space: Space::Global, write: false, thread, address, .. }) => {
            assert_eq!(thread.thread.x, 3);
            assert_eq!(address, out.as_ptr() as u64 - 4);
            let text = fault.to_string();
            let want = format!("4 bytes before the start of the 128-byte allocation at {:#x}", out.as_ptr() as usize);
            assert!(text.contains(&format!(": {want}")), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

unsafe fn shared_before_the_block(_: &[*mut c_void]) {
    // Thread 0 addresses the word before the block's shared memory, on purpose.
    let t = lane::thread_idx().x as usize;
    lane::shared_access(lane::shared_base().wrapping_add(4 * t).wrapping_sub(4), 4, usize::MAX, AccessOp::Load);
}

#[test]
fn a_shared_access_before_the_block_is_a_fault_naming_its_start() {
    let out = HostAllocation::zeroed(4).unwrap();
    match run(shared_before_the_block, &out, 1, 32, 128) {
        Err(fault @ Fault::OutOfBounds { space: Space::Shared, thread, address, .. }) => {
            assert_eq!((thread.thread.x, address as i64), (0, -4));
            let text = fault.to_string();
            assert!(text.contains("of 4 bytes at -0x4 by"), "{text}");
            assert!(text.contains("4 bytes before the start of the block's 128 bytes of shared memory"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[allow(clippy::if_same_then_else)] // two barriers at two lines: the point of the test
unsafe fn divergent_barrier(_: &[*mut c_void]) {
    if lane::thread_idx().x < 16 {
        lane::barrier(Barrier::Sync, false);
    } else {
        lane::barrier(Barrier::Sync, false);
    }
}

unsafe fn half_at_barrier(_: &[*mut c_void]) {
    if lane::thread_idx().x < 16 {
        lane::barrier(Barrier::Sync, false);
    } else {
        lane::sync_warp(u32::MAX);
    }
}

unsafe fn panics(_: &[*mut c_void]) {
    if lane::thread_idx().x == 5 {
        panic!("index out of bounds: the len is 3 but the index is 7");
    }
}

#[test]
fn broken_kernels_get_faults_not_hangs() {
    let out = HostAllocation::zeroed(4).unwrap();
    match run(divergent_barrier, &out, 1, 32, 0) {
        Err(fault @ Fault::DivergentBarrier { first, first_thread, second, second_thread, .. }) => {
            assert_eq!((first_thread.x, second_thread.x), (0, 16));
            assert_eq!(second.line, first.line + 2, "{first} {second}");
            assert!(fault.to_string().contains("must be reached by every thread of the block or by none"), "{fault}");
        }
        other => panic!("{other:?}"),
    }
    // Lanes 16–31 wait at a sync_warp naming lanes 0–15, which wait at a block barrier.
    match run(half_at_barrier, &out, 1, 32, 0) {
        Err(Fault::WarpDivergence { thread, mask: u32::MAX, missing: 0xFFFF, detail, collective, .. }) => {
            assert_eq!((thread.thread.x, collective), (16, "sync_warp"));
            assert!(detail.starts_with("lanes 0–15 wait at the barrier at "), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    match run(panics, &out, 2, 8, 0) {
        Err(Fault::Panic { thread, message, .. }) => {
            assert_eq!((thread.block.x, thread.thread.x), (0, 5));
            assert!(message.contains("index out of bounds"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(run(panics, &out, 0, 8, 0), Err(Fault::InvalidLaunch(_))));
    assert!(matches!(run(panics, &out, 1, 1025, 0), Err(Fault::InvalidLaunch(_))));
}

#[test]
fn shuffle_sources_match_the_ptx_isa() {
    // Segments: c = 0x0f1f? Width 16 clamps within half-warps (c = 0x101f would be width 16
    // for `down`: segmask 0x10, max lane 0x0f within each half).
    let c = (0x10 << 8) | 0x0f;
    assert_eq!(Shuffle::Down.source(14, 1, c), Some(15));
    assert_eq!(Shuffle::Down.source(15, 1, c), None);
    assert_eq!(Shuffle::Down.source(30, 1, c), Some(31));
    assert_eq!(Shuffle::Idx.source(20, 3, c), Some(19));
    assert_eq!(Shuffle::Up.source(3, 4, 0), None);
    assert_eq!(Shuffle::Up.source(4, 4, 0), Some(0));
    assert_eq!(Shuffle::Xor.source(5, 1, 0x1f), Some(4));
    // Only b's low five bits count.
    assert_eq!(Shuffle::Idx.source(0, 33, 0x1f), Some(1));
}

// The two branches' identical calls are two call sites, on purpose.
#[allow(clippy::if_same_then_else)]
unsafe fn active_masks(params: &[*mut c_void]) {
    let out = out_of(params);
    let i = linear() as usize;
    let l = lane::lane_id();
    let converged = lane::active_mask();
    // Lanes below 5 take one branch, lanes 5 to 19 the other, the rest skip both and wait at
    // a sync_warp of the whole warp, which needs the branch lanes to arrive.
    let divergent = if l < 5 {
        lane::active_mask()
    } else if l < 20 {
        lane::active_mask()
    } else {
        0
    };
    lane::sync_warp(lane::active_mask());
    for (k, v) in [converged, divergent].into_iter().enumerate() {
        // SAFETY: `out` holds 2 × 80 words and `i < 80`.
        lane::global_write(unsafe { out.add(2 * i + k) }, v, 4);
    }
}

#[test]
fn active_mask_is_the_lanes_that_reach_the_call_together() {
    // 2 blocks of 40 threads: a full warp and a warp of 8 lanes.
    let out = HostAllocation::zeroed(2 * 80 * 4).unwrap();
    run(active_masks, &out, 2, 40, 0).unwrap();
    let got = words(&out);
    for i in 0..80 {
        let (t, l) = (i % 40, i % 40 % 32);
        let lanes: u32 = if t < 32 { u32::MAX } else { 0xFF };
        let divergent = match l {
            0..5 => 0x1F & lanes,
            5..20 => 0xF_FFE0 & lanes,
            _ => 0,
        };
        assert_eq!([got[2 * i], got[2 * i + 1]], [lanes, divergent], "thread {t} of its block");
    }
}

// ---- barrier and warp-collective divergence ----------------------------------------------------

/// Each kernel below stores the line of its barrier or collective here (the line after the
/// store), for the tests to check that the fault names the kernel's own line.
static BARRIER_LINE: AtomicU32 = AtomicU32::new(0);
/// `exit_between_barriers`' first barrier: a static of its own, since tests running beside
/// this one store `early_return`'s line in `BARRIER_LINE` at any time.
static FIRST_BARRIER_LINE: AtomicU32 = AtomicU32::new(0);
static SECOND_BARRIER_LINE: AtomicU32 = AtomicU32::new(0);
static COLLECTIVE_LINE: AtomicU32 = AtomicU32::new(0);

const BARRIERS: [Barrier; 4] = [Barrier::Sync, Barrier::Count, Barrier::And, Barrier::Or];

/// Threads from `CUT` on (counted over the launch) return at once; the rest wait at a barrier
/// of kind `BARRIERS[KIND]`.
unsafe fn early_return<const CUT: u32, const KIND: usize>(_: &[*mut c_void]) {
    if linear() >= CUT {
        return;
    }
    BARRIER_LINE.store(line!() + 1, Relaxed);
    lane::barrier(BARRIERS[KIND], true);
}

/// Every thread passes a first barrier; threads 16 and up then return, before a second.
unsafe fn exit_between_barriers(_: &[*mut c_void]) {
    FIRST_BARRIER_LINE.store(line!() + 1, Relaxed);
    lane::barrier(Barrier::Sync, false);
    if lane::thread_idx().x >= 16 {
        return;
    }
    SECOND_BARRIER_LINE.store(line!() + 1, Relaxed);
    lane::barrier(Barrier::Sync, false);
}

/// Every thread passes a barrier; threads 16 and up return after it, the others write their
/// index.
unsafe fn exit_after_the_last_barrier(params: &[*mut c_void]) {
    let t = lane::thread_idx().x;
    lane::barrier(Barrier::Sync, false);
    if t >= 16 {
        return;
    }
    // SAFETY: the test that runs this passes 16 words and a block of 32 threads, of which only `t <
    // 16` get here.
    lane::global_write(unsafe { out_of(params).add(t as usize) }, t, 4);
}

#[test]
fn a_barrier_that_some_threads_of_the_block_exit_before_is_divergent() {
    let out = HostAllocation::zeroed(4).unwrap();
    // Half the block returns early; the other half waits at each form of the barrier.
    let results = [
        run(early_return::<16, 0>, &out, 1, 32, 0),
        run(early_return::<16, 1>, &out, 1, 32, 0),
        run(early_return::<16, 2>, &out, 1, 32, 0),
        run(early_return::<16, 3>, &out, 1, 32, 0),
    ];
    for result in results {
        match result {
            Err(fault @ Fault::ExitedBeforeBarrier { block, first, first_thread, exited_thread, after }) => {
                assert_eq!((block.x, first_thread.x, exited_thread.x, after), (0, 0, 16, None), "{fault}");
                assert!(first.file.ends_with("semantics.rs"), "{first}");
                assert_eq!(first.line, BARRIER_LINE.load(Relaxed), "{first}");
                let text = fault.to_string();
                assert!(text.contains("thread (16, 0, 0) exited without reaching it (before any barrier)"), "{text}");
                assert!(text.contains("must be reached by every thread of the block or by none"), "{text}");
            }
            other => panic!("{other:?}"),
        }
    }
    // Two blocks of 32, threads from 40 on return: block 0 is whole, block 1 diverges from
    // its thread 8.
    match run(early_return::<40, 0>, &out, 2, 32, 0) {
        Err(Fault::ExitedBeforeBarrier { block, first_thread, exited_thread, .. }) => {
            assert_eq!((block.x, first_thread.x, exited_thread.x), (1, 0, 8));
        }
        other => panic!("{other:?}"),
    }
    // Exiting between two barriers: the fault names the second and the one the thread passed.
    match run(exit_between_barriers, &out, 1, 32, 0) {
        Err(Fault::ExitedBeforeBarrier { first, after: Some(passed), exited_thread, .. }) => {
            assert_eq!(
                (first.line, passed.line),
                (SECOND_BARRIER_LINE.load(Relaxed), FIRST_BARRIER_LINE.load(Relaxed))
            );
            assert_eq!(exited_thread.x, 16);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_barrier_every_thread_or_none_of_a_block_reaches_is_fine() {
    let out = HostAllocation::zeroed(16 * 4).unwrap();
    // Threads from 32 on return: every thread of block 0 reaches the barrier, none of block 1.
    run(early_return::<32, 1>, &out, 2, 32, 0).unwrap();
    run(early_return::<64, 0>, &out, 2, 32, 0).unwrap();
    // Threads that return after the block's last barrier.
    run(exit_after_the_last_barrier, &out, 1, 32, 0).unwrap();
    assert_eq!(words(&out), (0..16).collect::<Vec<u32>>());
}

/// Lanes 16 and up return; the rest call collective `OP` (0 a shuffle, 1 a vote, 2 a
/// sync_warp) with the full mask, naming the lanes that left.
unsafe fn collective_after_exit<const OP: u8>(_: &[*mut c_void]) {
    let l = lane::lane_id();
    if l >= 16 {
        return;
    }
    COLLECTIVE_LINE.store(line!() + 2, Relaxed);
    match OP {
        0 => _ = lane::shuffle(Shuffle::Down, u32::MAX, l, 1, 0x1f),
        1 => _ = lane::vote(Vote::All, u32::MAX, true),
        _ => lane::sync_warp(u32::MAX),
    }
}

#[test]
fn a_warp_collective_naming_a_lane_that_exited_is_divergent() {
    let out = HostAllocation::zeroed(4).unwrap();
    let results = [
        (run(collective_after_exit::<0>, &out, 1, 32, 0), "a Down shuffle"),
        (run(collective_after_exit::<1>, &out, 1, 32, 0), "a vote (All)"),
        (run(collective_after_exit::<2>, &out, 1, 32, 0), "sync_warp"),
    ];
    for (op, (result, what)) in results.into_iter().enumerate() {
        match result {
            Err(fault @ Fault::WarpDivergence { .. }) => {
                let Fault::WarpDivergence { thread, site, collective, mask, missing, detail } = &fault else {
                    unreachable!()
                };
                assert_eq!((thread.thread.x, *collective, *mask, *missing), (0, what, u32::MAX, 0xFFFF_0000));
                assert_eq!(site.line, COLLECTIVE_LINE.load(Relaxed) + op as u32, "{site}");
                assert_eq!(detail, "lanes 16–31 exited");
                let text = fault.to_string();
                assert!(text.contains("with mask 0xffffffff waits for lanes 16–31 that never arrive"), "{text}");
                assert!(text.contains("Every lane a collective's mask names must call it"), "{text}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

// The two branches' identical calls are two call sites, on purpose.
#[allow(clippy::if_same_then_else)]
unsafe fn partial_masks(params: &[*mut c_void]) {
    let out = out_of(params);
    let (i, l) = (linear() as usize, lane::lane_id());
    if l >= 16 {
        return;
    }
    // Lanes 0–15 take part and the mask names just them (in a warp of 8 lanes, lanes 8–15
    // do not exist: not a lane that fails to arrive).
    let v = 100 + l;
    let xor = lane::shuffle(Shuffle::Xor, 0xFFFF, v, 1, 0x1f);
    let ballot = lane::vote(Vote::Ballot, 0xFFFF, l % 2 == 0);
    // Lanes meet at a collective of the same operation and mask from two sites, as `shfl.sync`
    // lanes do since sm_70.
    let first = if l < 8 {
        lane::shuffle(Shuffle::Idx, 0xFFFF, v, 0, 0x1f)
    } else {
        lane::shuffle(Shuffle::Idx, 0xFFFF, v, 0, 0x1f)
    };
    for (k, w) in [xor, ballot, first].into_iter().enumerate() {
        // SAFETY: `out` holds 40 × 3 words and `i < 40`.
        lane::global_write(unsafe { out.add(3 * i + k) }, w, 4);
    }
}

#[test]
fn a_partial_mask_naming_only_the_lanes_that_arrive_is_fine() {
    // 40 threads: a full warp and one of 8 lanes.
    let out = HostAllocation::zeroed(40 * 3 * 4).unwrap();
    run(partial_masks, &out, 1, 40, 0).unwrap();
    let w = words(&out);
    for i in 0..40u32 {
        let l = i % 32;
        let got = &w[3 * i as usize..][..3];
        if l >= 16 {
            assert_eq!(got, [0, 0, 0], "thread {i} returned");
            continue;
        }
        let lanes: u32 = if i < 32 { 0xFFFF } else { 0xFF };
        assert_eq!(got, [100 + (l ^ 1), 0x5555 & lanes, 100], "thread {i}");
    }
}

/// Lanes 16–31 first meet at a `sync_warp` of their own; then the whole warp meets at one.
unsafe fn staggered_sync_warps(params: &[*mut c_void]) {
    let l = lane::lane_id();
    if l >= 16 {
        lane::sync_warp(0xFFFF_0000);
    }
    lane::sync_warp(u32::MAX);
    // SAFETY: `out` holds 32 words and `l < 32`.
    lane::global_write(unsafe { out_of(params).add(l as usize) }, l, 4);
}

/// Lanes 0–15 shuffle while lanes 16–31 vote, each with the full mask.
unsafe fn shuffle_against_vote(_: &[*mut c_void]) {
    let l = lane::lane_id();
    if l < 16 {
        lane::shuffle(Shuffle::Down, u32::MAX, l, 1, 0x1f);
    } else {
        lane::vote(Vote::Any, u32::MAX, true);
    }
}

#[test]
fn lanes_at_another_collective_are_waited_for_until_nothing_else_can_run() {
    // Lanes 0–15 wait at the full-mask sync_warp while lanes 16–31 are at their own: theirs
    // completes, and then the full one.
    let out = HostAllocation::zeroed(32 * 4).unwrap();
    run(staggered_sync_warps, &out, 1, 32, 0).unwrap();
    assert_eq!(words(&out), (0..32).collect::<Vec<u32>>());
    // A shuffle and a vote can never meet: a mismatch, named once no lane can go on.
    match run(shuffle_against_vote, &out, 1, 32, 0) {
        Err(Fault::WarpMismatch { thread, detail, .. }) => {
            assert_eq!(thread.thread.x, 0);
            assert!(
                detail.contains("lane 0 is at a Down shuffle with mask 0xffffffff, lane 16 at a vote (Any)"),
                "{detail}"
            );
        }
        other => panic!("{other:?}"),
    }
}
