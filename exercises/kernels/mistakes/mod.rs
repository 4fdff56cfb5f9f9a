//! Wrong answers the checks must reject: common mistakes, each a kernel that compiles and
//! launches like an exercise's answer, for the checks' tests (`exercises/src/checks.rs`). Not
//! exercises: the files to edit are in `src/`.

use bankwise_device::atomic::{self, Scope};
use bankwise_device::shared::SharedArray;
use bankwise_device::thread::{block_dim_x, grid_dim_x, index_1d, lane_id, sync_threads, thread_x};
use bankwise_device::{global, kernel, warp};

use crate::e16_block_scan::{WARPS, warp_scan};

/// Exercise 3 with a contiguous chunk of `⌈n / T⌉` elements per thread (`T` threads in the
/// grid): every element right, and a warp's stores `8 · ⌈n / T⌉` bytes apart.
///
/// # Safety
/// `out` holds `n` elements.
#[kernel]
pub unsafe fn fill_squares_chunked(out: *mut u64, n: u64) {
    let per_thread = n.div_ceil(grid_dim_x() as u64 * block_dim_x() as u64);
    let start = index_1d() * per_thread;
    let mut i = start;
    while i < n && i < start + per_thread {
        // SAFETY: `i < n`, and `out` holds `n` elements (this kernel's contract); the chunks do
        // not overlap, so one thread writes each.
        unsafe { global::write(out.add(i as usize), i.wrapping_mul(i)) };
        i += 1;
    }
}

/// Exercise 13 with the shuffles inside `if i < n`: the lanes of the last warp past the end
/// never call the shuffles that the full mask says they join.
///
/// # Safety
/// `data` holds `n` elements and `out` `⌈n / 32⌉`; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_sums_in_bounds_only(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    if i < n {
        // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
        let mut v = unsafe { global::read(data.add(i as usize)) };
        let mut d = 16;
        while d > 0 {
            v = v.wrapping_add(warp::shfl_down(u32::MAX, v, d));
            d /= 2;
        }
        if lane_id() == 0 {
            // SAFETY: `i < n`, so `i / 32 < ⌈n / 32⌉`, inside `out` (this kernel's contract);
            // lane 0 alone writes its warp's word.
            unsafe { global::write(out.add((i / 32) as usize), v) };
        }
    }
}

/// Exercise 13 with lane 0 reading its warp's 32 elements from global memory itself: every sum
/// right, no shared memory, and each input sector loaded 8 times over (32 one-lane requests per
/// warp where one request of 4 sectors holds them).
///
/// # Safety
/// `data` holds `n` elements and `out` `⌈n / 32⌉`; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_sums_lane_loop(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    if lane_id() == 0 && i < n {
        let mut sum = 0u32;
        let mut j = i;
        while j < n && j < i + 32 {
            // SAFETY: `j < n`, and `data` holds `n` elements (this kernel's contract).
            sum = sum.wrapping_add(unsafe { global::read(data.add(j as usize)) });
            j += 1;
        }
        // SAFETY: `i < n`, so `i / 32 < ⌈n / 32⌉`, inside `out` (this kernel's contract); lane 0
        // alone writes its warp's word.
        unsafe { global::write(out.add((i / 32) as usize), sum) };
    }
}

/// Exercise 13 without a shuffle: the warp counts each bit of its values with a ballot and adds
/// the counts, weighted. Every sum right, each input loaded once, no shared memory.
///
/// # Safety
/// As [`warp_sums_lane_loop`].
#[kernel]
pub unsafe fn warp_sums_ballot(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let v = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    let mut sum = 0u32;
    for bit in 0..32 {
        sum = sum.wrapping_add(warp::ballot(u32::MAX, v >> bit & 1 == 1).count_ones() << bit);
    }
    if lane_id() == 0 && i < n {
        // SAFETY: as in [`warp_sums_lane_loop`].
        unsafe { global::write(out.add((i / 32) as usize), sum) };
    }
}

/// Exercise 15 with each lane adding its warp's elements up to its own from global memory:
/// every prefix right, no shared memory, each input sector loaded 8 times over.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of a multiple of 32 threads.
#[kernel]
pub unsafe fn warp_scans_lane_loop(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    if i < n {
        let mut sum = 0u32;
        let mut j = i - lane_id() as u64;
        while j <= i {
            // SAFETY: `j ≤ i < n`, and `data` holds `n` elements (this kernel's contract).
            sum = sum.wrapping_add(unsafe { global::read(data.add(j as usize)) });
            j += 1;
        }
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), sum) };
    }
}

/// Exercise 15 without a shuffle: each bit's ballot, masked to the lanes up to this one and
/// counted. Every prefix right, each input loaded once, no shared memory.
///
/// # Safety
/// As [`warp_scans_lane_loop`].
#[kernel]
pub unsafe fn warp_scans_ballot(out: *mut u32, data: *const u32, n: u64) {
    let i = index_1d();
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let v = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    let up_to_me = u32::MAX >> (31 - lane_id());
    let mut sum = 0u32;
    for bit in 0..32 {
        let lanes = warp::ballot(u32::MAX, v >> bit & 1 == 1) & up_to_me;
        sum = sum.wrapping_add(lanes.count_ones() << bit);
    }
    if i < n {
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), sum) };
    }
}

/// Exercise 16 without shared memory: each warp re-reads the elements of the warps before it
/// from global memory and sums them with shuffles. Every prefix right; a block loads its
/// inputs 4.5 times over.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of 256 threads.
#[kernel]
pub unsafe fn block_scans_from_global(out: *mut u32, data: *const u32, n: u64) {
    let (t, lane) = (thread_x() as u64, lane_id() as u64);
    let i = index_1d();
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let x = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    let mut v = warp_scan(x);
    let start = i - t;
    // The same number of earlier warps for every lane of a warp: every lane makes every shuffle.
    for k in 0..t / 32 {
        let j = start + 32 * k + lane;
        // SAFETY: `j < n`, and `data` holds `n` elements (this kernel's contract).
        let mut s = if j < n { unsafe { global::read(data.add(j as usize)) } } else { 0 };
        let mut d = 16;
        while d > 0 {
            s = s.wrapping_add(warp::shfl_xor(u32::MAX, s, d));
            d /= 2;
        }
        v = v.wrapping_add(s);
    }
    if i < n {
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), v) };
    }
}

/// Exercise 16 with thread 0 scanning the warps' totals one after another: every prefix right,
/// no race, every shared access at 1 wavefront, and 15 warp-wide shared loads per block.
///
/// # Safety
/// `data` and `out` hold `n` elements; blocks of 256 threads (the kernel declares its
/// `WARPS · 4` bytes of shared memory).
#[kernel(shared = (WARPS * 4) as u32)]
pub unsafe fn block_scans_serial(out: *mut u32, data: *const u32, n: u64) {
    // SAFETY: offset 0, and the kernel declares `WARPS` words, which every launch gives the block.
    let totals = unsafe { SharedArray::<u32, WARPS>::new_unchecked(0) };
    let (t, lane) = (thread_x() as usize, lane_id());
    let w = t / 32;
    let i = index_1d();
    // SAFETY: `i < n`, and `data` holds `n` elements (this kernel's contract).
    let x = if i < n { unsafe { global::read(data.add(i as usize)) } } else { 0 };
    let mut v = warp_scan(x);
    if lane == 31 {
        // SAFETY: `w < WARPS`: inside `totals`; lane 31 of warp `w` alone writes it, before the
        // barrier below.
        unsafe { totals.write(w, v) };
    }
    sync_threads();
    if t == 0 {
        let mut sum = 0u32;
        for k in 0..WARPS {
            // SAFETY: `k < WARPS`: inside `totals`, written before the barrier above; thread 0
            // alone touches it until the next.
            sum = sum.wrapping_add(unsafe { totals.read(k) });
            // SAFETY: as for the read.
            unsafe { totals.write(k, sum) };
        }
    }
    sync_threads();
    if w > 0 {
        // SAFETY: `w − 1 < WARPS`: inside `totals`, written before the barrier above.
        v = v.wrapping_add(unsafe { totals.read(w - 1) });
    }
    if i < n {
        // SAFETY: `i < n`: inside `out` (this kernel's contract), this thread's element alone.
        unsafe { global::write(out.add(i as usize), v) };
    }
}

/// Exercise 6 with each byte added straight to the global bins: every bin right, no shared
/// memory, one global atomic per byte.
///
/// # Safety
/// `data` holds `n` bytes and `bins` 256 counters; a 1-D grid.
#[kernel]
pub unsafe fn histogram_global_atomics(bins: *mut u32, data: *const u8, n: u64) {
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` bytes (this kernel's contract).
        let byte = unsafe { global::read(data.add(i as usize)) };
        // SAFETY: `byte < 256`, and `bins` holds 256 counters (this kernel's contract); atomic.
        unsafe { atomic::red_add(bins.add(byte as usize), 1, Scope::Device) };
        i += stride;
    }
}

/// Exercise 19's bins, as many.
const BINS32: usize = 32;

/// Exercise 19 counted like exercise 6: one set of 32 bins per block in shared memory, counted
/// with shared atomics, which serialise where a warp's lanes count one value.
///
/// # Safety
/// `data` holds `n` values below 32 and `bins` 32 counters; a 1-D grid of blocks of at least 32
/// threads (the kernel declares its 128 bytes of shared memory).
#[kernel(shared = (BINS32 * 4) as u32)]
pub unsafe fn histogram32_shared_atomics(bins: *mut u32, data: *const u8, n: u64) {
    // SAFETY: offset 0, and the kernel declares 32 counters, which every launch gives the block.
    let local = unsafe { SharedArray::<u32, BINS32>::new_unchecked(0) };
    let t = thread_x() as usize;
    if t < BINS32 {
        // SAFETY: `t < 32`: inside `local`; one writer, before the barrier below.
        unsafe { local.write(t, 0) };
    }
    sync_threads();
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` values below 32 (this kernel's contract).
        let b = unsafe { global::read(data.add(i as usize)) } as usize;
        // SAFETY: `b < 32`: inside `local`; atomic.
        unsafe { local.at(b).atomic_add(1) };
        i += stride;
    }
    sync_threads();
    if t < BINS32 {
        // SAFETY: `t < 32`: inside `local`, counted before the barrier above.
        let count = unsafe { local.read(t) };
        // SAFETY: `t < 32`, and `bins` holds 32 counters (this kernel's contract); atomic.
        unsafe { atomic::red_add(bins.add(t), count, Scope::Device) };
    }
}

/// Exercise 19 with every value added straight to the global bins: every bin right, no shared
/// memory, one global atomic per value.
///
/// # Safety
/// `data` holds `n` values below 32 and `bins` 32 counters; a 1-D grid.
#[kernel]
pub unsafe fn histogram32_global_atomics(bins: *mut u32, data: *const u8, n: u64) {
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` values below 32 (this kernel's contract).
        let b = unsafe { global::read(data.add(i as usize)) } as usize;
        // SAFETY: `b < 32`, and `bins` holds 32 counters (this kernel's contract); atomic.
        unsafe { atomic::red_add(bins.add(b), 1, Scope::Device) };
        i += stride;
    }
}

/// Exercise 19 with each thread's counters in an array of its own (local memory on a GPU, not
/// shared): each warp adds its lanes' counters with shuffles and the block its warps' sums
/// through shared memory, then one global atomic per bin. Every bin right, no shared atomic,
/// and only 4 shared stores per block whatever the data.
///
/// # Safety
/// `data` holds `n` values below 32 and `bins` 32 counters; a 1-D grid of blocks of 128
/// threads (the kernel declares its `4 · 32 · 4` bytes of shared memory).
#[kernel(shared = (4 * BINS32 * 4) as u32)]
pub unsafe fn histogram32_in_registers(bins: *mut u32, data: *const u8, n: u64) {
    // SAFETY: offset 0, and the kernel declares 4 · 32 words, which every launch gives the block.
    let sums = unsafe { SharedArray::<u32, { 4 * BINS32 }>::new_unchecked(0) };
    let (t, lane) = (thread_x() as usize, lane_id() as usize);
    let mut counts = [0u32; BINS32];
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut i = index_1d();
    while i < n {
        // SAFETY: `i < n`, and `data` holds `n` values below 32 (this kernel's contract).
        let b = unsafe { global::read(data.add(i as usize)) } as usize;
        counts[b] += 1;
        i += stride;
    }
    // Lane `b` ends with the warp's count of bin `b`.
    let mut mine = 0;
    for (b, &count) in counts.iter().enumerate() {
        let mut s = count;
        let mut d = 16;
        while d > 0 {
            s = s.wrapping_add(warp::shfl_xor(u32::MAX, s, d));
            d /= 2;
        }
        if lane == b {
            mine = s;
        }
    }
    // SAFETY: `t < 128 = 4 · 32`: inside `sums`, this thread's word alone, before the barrier.
    unsafe { sums.write(t, mine) };
    sync_threads();
    if t < BINS32 {
        let mut sum = 0u32;
        for w in 0..4 {
            // SAFETY: `w · 32 + t < 128`: inside `sums`, written before the barrier above.
            sum += unsafe { sums.read(w * BINS32 + t) };
        }
        // SAFETY: `t < 32`, and `bins` holds 32 counters (this kernel's contract); atomic.
        unsafe { atomic::red_add(bins.add(t), sum, Scope::Device) };
    }
}
