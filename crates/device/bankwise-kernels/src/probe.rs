//! Bank-conflict probes: one warp-wide shared-memory access, repeated and timed.
//!
//! Teaches: what a bank conflict costs. Every warp of a block issues the same access pattern
//! (32 per-lane byte offsets from the host, plus an active-lane mask) `iterations × UNROLL`
//! times back to back. The accesses are independent, so with [`WARPS`] warps in flight the
//! shared-memory pipe is the bottleneck and the block's time is proportional to the wavefronts
//! one access needs; the host divides by a 1-wavefront pattern's time to count them.
//!
//! Each access is inline PTX (`ld/st.volatile.shared`, predicated on the lane's mask bit) on a
//! 32-bit `.shared` address: volatile, so ptxas neither merges nor drops the repeats, and not
//! `pure`, so LLVM keeps every one. Loads add what they read into a per-lane checksum (so they
//! are live, and the host can check the addresses); stores are read back once after timing.

use core::arch::asm;

use bankwise_device::{block_dim_x, clock64, dynamic_shared, sync_threads, thread_x};
use bankwise_layout::probe::{UNROLL, VERIFY, fill_word, store_value, store_word};

/// One access width: a predicated shared load (its value folded to 32 bits) and store.
pub trait Access {
    const BYTES: u32;
    /// Loads at `addr` if `active != 0`; returns the sum of the 32-bit parts read
    /// (meaningless for an inactive lane, whose registers are left as they were).
    unsafe fn load(addr: u32, active: u32) -> u32;
    /// Stores the first `BYTES` of `v` at `addr` if `active != 0`.
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]);
}

/// Narrow widths: `ld.u8`/`ld.u16` zero-extend into a 32-bit register; `st` truncates.
macro_rules! narrow {
    ($name:ident, $bytes:literal, $ld:literal, $st:literal) => {
        pub struct $name;
        impl Access for $name {
            const BYTES: u32 = $bytes;
            #[inline(always)]
            unsafe fn load(addr: u32, active: u32) -> u32 {
                let v: u32;
                unsafe {
                    asm!(concat!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ", $ld, " {v}, [{a}]; }}"),
                        v = out(reg32) v, a = in(reg32) addr, act = in(reg32) active, options(nostack))
                };
                v
            }
            #[inline(always)]
            unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
                unsafe {
                    asm!(concat!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ", $st, " [{a}], {v}; }}"),
                        v = in(reg32) v[0], a = in(reg32) addr, act = in(reg32) active, options(nostack))
                }
            }
        }
    };
}

narrow!(B1, 1, "ld.volatile.shared.u8", "st.volatile.shared.u8");
narrow!(B2, 2, "ld.volatile.shared.u16", "st.volatile.shared.u16");
narrow!(B4, 4, "ld.volatile.shared.u32", "st.volatile.shared.u32");

pub struct B8;
impl Access for B8 {
    const BYTES: u32 = 8;
    #[inline(always)]
    unsafe fn load(addr: u32, active: u32) -> u32 {
        let (x, y): (u32, u32);
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ld.volatile.shared.v2.u32 {{{x}, {y}}}, [{a}]; }}",
                x = out(reg32) x, y = out(reg32) y, a = in(reg32) addr, act = in(reg32) active,
                options(nostack))
        };
        x.wrapping_add(y)
    }
    #[inline(always)]
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p st.volatile.shared.v2.u32 [{a}], {{{x}, {y}}}; }}",
                x = in(reg32) v[0], y = in(reg32) v[1], a = in(reg32) addr, act = in(reg32) active,
                options(nostack))
        }
    }
}

pub struct B16;
impl Access for B16 {
    const BYTES: u32 = 16;
    #[inline(always)]
    unsafe fn load(addr: u32, active: u32) -> u32 {
        let (x, y, z, w): (u32, u32, u32, u32);
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; \
                  @p ld.volatile.shared.v4.u32 {{{x}, {y}, {z}, {w}}}, [{a}]; }}",
                x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
                a = in(reg32) addr, act = in(reg32) active, options(nostack))
        };
        x.wrapping_add(y).wrapping_add(z).wrapping_add(w)
    }
    #[inline(always)]
    unsafe fn store(addr: u32, active: u32, v: [u32; 4]) {
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; \
                  @p st.volatile.shared.v4.u32 [{a}], {{{x}, {y}, {z}, {w}}}; }}",
                x = in(reg32) v[0], y = in(reg32) v[1], z = in(reg32) v[2], w = in(reg32) v[3],
                a = in(reg32) addr, act = in(reg32) active, options(nostack))
        }
    }
}

/// The dynamic shared allocation's base as a 32-bit `.shared` address, for `[reg]` operands.
#[inline(always)]
fn shared_base() -> u32 {
    let generic = dynamic_shared::<u8>() as u64; // only converted, never dereferenced here
    let shared: u64;
    unsafe {
        asm!("cvta.to.shared.u64 {s}, {g};", s = out(reg64) shared, g = in(reg64) generic, options(pure, nomem, nostack))
    };
    shared as u32
}

/// `__syncthreads_and(p)`, result unused: unlike a plain barrier it cannot complete before
/// every thread has computed `p`, so global loads that `p` depends on are done by then.
#[inline(always)]
fn sync_threads_and(p: bool) {
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; bar.red.and.pred q, 0, p; }}", v = in(reg32) p as u32,
            options(nostack))
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
    let base = shared_base();
    if flags & VERIFY != 0 {
        let mut k = tid;
        while k < shared_bytes / 4 {
            unsafe { B4::store(base + 4 * k, 1, [fill_word(k); 4]) };
            k += block_dim_x();
        }
    }
    let offset = unsafe { offsets.add(lane as usize).read() };
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
            unrolled(|| unsafe { W::store(addr, active, value) });
        } else {
            unrolled(|| sum = sum.wrapping_add(unsafe { W::load(addr, active) }));
        }
    }
    sync_threads();
    let end = clock64();
    if STORE && flags & VERIFY != 0 {
        sum = unsafe { W::load(addr, active) };
    }
    unsafe { sums.add(tid as usize).write(sum) };
    if lane == 0 {
        unsafe { cycles.add((tid / 32) as usize).write(end - start) };
    }
}
