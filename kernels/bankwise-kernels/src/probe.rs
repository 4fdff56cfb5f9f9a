//! Bank-conflict probes: one warp-wide shared-memory access, repeated and timed.
//!
//! Teaches: what a bank conflict costs. Every warp of a block issues the same access pattern
//! (32 per-lane byte offsets from the host, plus an active-lane mask) `iterations × UNROLL`
//! times back to back. The accesses are independent, so with [`WARPS`](bankwise_layout::probe::WARPS) warps in flight the
//! shared-memory pipe is the bottleneck and the block's time is proportional to the wavefronts
//! one access needs; the host divides by a 1-wavefront pattern's time to count them.
//!
//! Each access is one of the device crate's raw shared accesses
//! ([`bankwise_device::shared::probe`]: inline `ld/st.volatile.shared`, predicated on the lane's
//! mask bit, on a 32-bit `.shared` address): volatile, so ptxas neither merges nor drops the
//! repeats, and not `pure`, so LLVM keeps every one. Loads add what they read into a per-lane checksum (so they
//! are live, and the host can check the addresses); stores are read back once after timing.

use bankwise_device::global;
use bankwise_device::shared::probe as raw;
use bankwise_device::thread::{block_dim_x, sync_threads, sync_threads_and, thread_x};
use bankwise_device::time::clock64;
use bankwise_layout::probe::{UNROLL, VERIFY, fill_word, store_value, store_word};

/// One access width: a predicated shared load (its value folded to 32 bits) and store, on the
/// device crate's volatile raw-address accesses ([`bankwise_device::shared::probe`]).
pub trait Access {
    /// Bytes per access.
    const BYTES: u32;
    /// Loads at shared-window address `addr` if `active != 0`; returns the sum of the 32-bit parts
    /// read (meaningless for an inactive lane).
    ///
    /// # Safety
    /// As [`bankwise_device::shared::probe`]'s accesses.
    unsafe fn load(addr: u32, active: u32) -> u32;
    /// Stores the first `BYTES` of `v` at `addr` if `active != 0`.
    ///
    /// # Safety
    /// As [`bankwise_device::shared::probe`]'s accesses.
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]);
}

/// Narrow widths: loads zero-extend into 32 bits; stores keep the low bits.
macro_rules! narrow {
    ($(#[$doc:meta])* $name:ident, $bytes:literal, $load:ident, $store:ident) => {
        $(#[$doc])*
        pub struct $name;
        impl Access for $name {
            const BYTES: u32 = $bytes;
            #[inline(always)]
            unsafe fn load(addr: u32, active: u32) -> u32 {
                // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this
                // method's).
                unsafe { raw::$load(addr, active) }
            }
            #[inline(always)]
            unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
                // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this
                // method's).
                unsafe { raw::$store(addr, active, v[0]) }
            }
        }
    };
}

narrow!(
    /// 1-byte accesses (`LDS.U8`/`STS.U8`).
    B1, 1, load_u8, store_u8
);
narrow!(
    /// 2-byte accesses (`LDS.U16`/`STS.U16`).
    B2, 2, load_u16, store_u16
);
narrow!(
    /// 4-byte accesses (`LDS`/`STS`).
    B4, 4, load_u32, store_u32
);

/// 8-byte accesses (`LDS.64`/`STS.64`).
pub struct B8;
impl Access for B8 {
    const BYTES: u32 = 8;
    #[inline(always)]
    unsafe fn load(addr: u32, active: u32) -> u32 {
        // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this method's).
        let [x, y] = unsafe { raw::load_v2(addr, active) };
        x.wrapping_add(y)
    }
    #[inline(always)]
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
        // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this method's).
        unsafe { raw::store_v2(addr, active, [v[0], v[1]]) }
    }
}

/// 16-byte accesses (`LDS.128`/`STS.128`).
pub struct B16;
impl Access for B16 {
    const BYTES: u32 = 16;
    #[inline(always)]
    unsafe fn load(addr: u32, active: u32) -> u32 {
        // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this method's).
        let [x, y, z, w] = unsafe { raw::load_v4(addr, active) };
        x.wrapping_add(y).wrapping_add(z).wrapping_add(w)
    }
    #[inline(always)]
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
        // SAFETY: the caller keeps the contract of `shared::probe`'s accesses (this method's).
        unsafe { raw::store_v4(addr, active, v) }
    }
}

/// Calls `f` [`UNROLL`] times in straight-line code, so the accesses are independent
/// instructions with no loop overhead between them.
#[inline(always)]
fn unrolled(mut f: impl FnMut()) {
    const _: () = assert!(UNROLL == 16);
    let mut x4 = || {
        f();
        f();
        f();
        f();
    };
    x4();
    x4();
    x4();
    x4();
}

/// The probe. `cycles[warp]`: the warp's clock64 cycles for all its accesses; `sums[thread]`:
/// the sum of what a load probe read, or what a store probe reads back afterwards.
///
/// # Safety
/// `offsets` holds 32 offsets, each aligned to the width and inside the launch's `shared_bytes`
/// of dynamic shared memory (a multiple of 4); `cycles` holds one `u64` per warp and `sums` one
/// `u32` per thread (`bankwise::probe::plan` checks all of it).
#[inline(always)]
pub unsafe fn probe<W: Access, const STORE: bool>(
    cycles: *mut u64,
    sums: *mut u32,
    offsets: *const u32,
    mask: u32,
    iterations: u32,
    shared_bytes: u32,
    flags: u32,
) {
    let tid = thread_x();
    let lane = tid % 32;
    let base = raw::base_address();
    if flags & VERIFY != 0 {
        let mut k = tid;
        while k < shared_bytes / 4 {
            // SAFETY: `k < shared_bytes / 4`: an aligned word inside the launch's `shared_bytes` of
            // dynamic shared memory (the caller's contract), written by this thread alone; the
            // barrier below orders the fill before every probe access.
            unsafe { B4::store(base + 4 * k, 1, [fill_word(k); 4]) };
            k += block_dim_x();
        }
    }
    // SAFETY: `lane < 32`, and `offsets` holds 32 offsets (the caller's contract).
    let offset = unsafe { global::read(offsets.add(lane as usize)) };
    let (addr, active) = (base + offset, mask >> lane & 1);
    let value = if W::BYTES < 4 {
        [store_value(offset, W::BYTES); 4]
    } else {
        core::array::from_fn(|k| store_word(offset / 4 + k as u32))
    };
    let mut sum = 0u32;
    // Every warp starts together, with its address loaded (the barrier's predicate needs it),
    // and the clock stops only when all have finished: the block's accesses share one pipe, so
    // each warp's time covers all of them.
    sync_threads_and(offset != u32::MAX);
    let start = clock64();
    for _ in 0..iterations {
        if STORE {
            // SAFETY: `addr` is `offsets[lane]` past the base, aligned and inside the launch's
            // shared memory (the caller's contract). Lanes that share an address store the same
            // value (`store_value`/`store_word` of the offset), so the word holds it whichever
            // store lands last; no load runs until after the barrier below.
            unrolled(|| unsafe { W::store(addr, active, value) });
        } else {
            // SAFETY: `addr` is aligned and inside the launch's shared memory (the caller's
            // contract); a load probe only reads, after the barrier above ordered the fill before
            // it.
            unrolled(|| sum = sum.wrapping_add(unsafe { W::load(addr, active) }));
        }
    }
    sync_threads();
    let end = clock64();
    if STORE && flags & VERIFY != 0 {
        // SAFETY: as the stores, read back after the barrier above ordered every store before it.
        sum = unsafe { W::load(addr, active) };
    }
    // SAFETY: `sums` holds one `u32` per thread (the caller's contract); one thread writes each.
    unsafe { global::write(sums.add(tid as usize), sum) };
    if lane == 0 {
        // SAFETY: `cycles` holds one `u64` per warp (the caller's contract); the warp's lane 0
        // alone writes it.
        unsafe { global::write(cycles.add((tid / 32) as usize), end - start) };
    }
}
