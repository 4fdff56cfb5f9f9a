//! The CPU emulator's backend (every target but `nvptx64`, on stable Rust): every primitive
//! asks `bankwise_emu::lane` for the emulated thread running it. Indices come from that
//! thread, barriers and warp collectives suspend it until the others arrive, and global and
//! shared accesses are checked (inside the launch's buffers or allocation, inside the view,
//! aligned) and recorded for the bank model and the race check. The primitives that check or
//! wait are `#[track_caller]`, as are the public functions calling them, so that the emulator
//! names the kernel's own line.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

use bankwise_emu::lane::{self as emu, Barrier, Shuffle, Vote};
pub use bankwise_emu::report::AccessOp;

use crate::atomic::{AtomicAdd, AtomicMinMax, Scope, same_bits};
use crate::{Plain, bits};

// ---- indices -------------------------------------------------------------------------------

/// One index component per function, from the emulated thread.
macro_rules! special_registers {
    ($($name:ident = $dim:ident.$c:ident $ptx:literal),+ $(,)?) => {$(
        #[doc = concat!("PTX `", $ptx, "`: the emulated thread's.")]
        #[inline(always)]
        pub fn $name() -> u32 {
            emu::$dim().$c
        }
    )+};
}

special_registers!(
    tid_x = thread_idx.x "%tid.x", tid_y = thread_idx.y "%tid.y", tid_z = thread_idx.z "%tid.z",
    ctaid_x = block_idx.x "%ctaid.x", ctaid_y = block_idx.y "%ctaid.y", ctaid_z = block_idx.z "%ctaid.z",
    ntid_x = block_dim.x "%ntid.x", ntid_y = block_dim.y "%ntid.y", ntid_z = block_dim.z "%ntid.z",
    nctaid_x = grid_dim.x "%nctaid.x", nctaid_y = grid_dim.y "%nctaid.y", nctaid_z = grid_dim.z "%nctaid.z",
);

/// PTX `%laneid`: the emulated thread's linear index modulo 32.
#[inline(always)]
pub fn laneid() -> u32 {
    emu::lane_id()
}

// ---- block barriers ------------------------------------------------------------------------

/// `bar.sync 0`: waits for every thread of the block.
#[inline(always)]
#[track_caller]
pub fn bar_sync() {
    emu::barrier(Barrier::Sync, false);
}

/// `bar.red.popc.u32`: how many threads of the block passed a true `predicate`.
#[inline(always)]
#[track_caller]
pub fn bar_red_popc(predicate: bool) -> u32 {
    emu::barrier(Barrier::Count, predicate)
}

/// `bar.red.and.pred`: whether `predicate` was true in every thread of the block.
#[inline(always)]
#[track_caller]
pub fn bar_red_and(predicate: bool) -> bool {
    emu::barrier(Barrier::And, predicate) != 0
}

/// `bar.red.or.pred`: whether `predicate` was true in any thread of the block.
#[inline(always)]
#[track_caller]
pub fn bar_red_or(predicate: bool) -> bool {
    emu::barrier(Barrier::Or, predicate) != 0
}

// ---- warp collectives ----------------------------------------------------------------------

/// `bar.warp.sync`: waits for the lanes of `mask`.
#[inline(always)]
#[track_caller]
pub fn bar_warp_sync(mask: u32) {
    emu::sync_warp(mask);
}

/// `activemask.b32`: the lanes of the warp that reach this call (`bankwise_emu::lane::active_mask`).
#[inline(always)]
#[track_caller]
pub fn activemask() -> u32 {
    emu::active_mask()
}

/// `vote.sync.all.pred`.
#[inline(always)]
#[track_caller]
pub fn vote_all(mask: u32, predicate: bool) -> bool {
    emu::vote(Vote::All, mask, predicate) != 0
}

/// `vote.sync.any.pred`.
#[inline(always)]
#[track_caller]
pub fn vote_any(mask: u32, predicate: bool) -> bool {
    emu::vote(Vote::Any, mask, predicate) != 0
}

/// `vote.sync.ballot.b32`.
#[inline(always)]
#[track_caller]
pub fn vote_ballot(mask: u32, predicate: bool) -> u32 {
    emu::vote(Vote::Ballot, mask, predicate)
}

/// One 32-bit shuffle per function: `shfl.sync.<mode>.b32 d, value, b, c, mask` as the PTX ISA
/// defines it, `c` the clamp/segment operand.
macro_rules! shuffles {
    ($($name:ident = $mode:ident, $clamp:literal);+ $(;)?) => {$(
        #[doc = concat!("`shfl.sync` of mode `", stringify!($mode), "`, `c` = ", stringify!($clamp), ".")]
        #[inline(always)]
        #[track_caller]
        pub fn $name(mask: u32, value: u32, b: u32) -> u32 {
            emu::shuffle(Shuffle::$mode, mask, value, b, $clamp)
        }
    )+};
}

shuffles!(
    shfl_down_b32 = Down, 0x1f;
    shfl_up_b32 = Up, 0x0;
    shfl_bfly_b32 = Xor, 0x1f;
    shfl_idx_b32 = Idx, 0x1f;
);

// ---- fences, arithmetic, clocks ------------------------------------------------------------

/// `membar.cta`: a sequentially consistent host fence.
#[inline(always)]
pub fn membar_cta() {
    core::sync::atomic::fence(SeqCst);
}

/// `membar.gl`: a sequentially consistent host fence.
#[inline(always)]
pub fn membar_gl() {
    core::sync::atomic::fence(SeqCst);
}

/// `membar.sys`: a sequentially consistent host fence.
#[inline(always)]
pub fn membar_sys() {
    core::sync::atomic::fence(SeqCst);
}

/// `fma.rn.f32`: rounded once.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    emu::fma_f32(a, b, c)
}

/// `fma.rn.f64`: rounded once.
#[inline(always)]
pub fn fma_rn_f64(a: f64, b: f64, c: f64) -> f64 {
    emu::fma_f64(a, b, c)
}

/// `%clock64`: nanoseconds since the launch began.
#[inline(always)]
#[track_caller]
pub fn clock64() -> u64 {
    emu::clock()
}

/// `%globaltimer`: nanoseconds since the launch began.
#[inline(always)]
#[track_caller]
pub fn globaltimer() -> u64 {
    emu::global_timer()
}

// ---- global memory -------------------------------------------------------------------------

/// `ld.global` of a `T`: checked, then read.
///
/// # Safety
/// As [`crate::global::read`].
#[inline(always)]
#[track_caller]
pub unsafe fn ld_global<T: Copy>(p: *const T) -> T {
    // SAFETY: `global_read` checks the address itself (inside a buffer of the launch and aligned,
    // or the thread faults); what it leaves to its caller, that the bytes there are a valid `T`,
    // is the caller's contract ([`crate::global::read`]).
    unsafe { emu::global_read(p, align_of::<T>()) }
}

/// `st.global` of a `T`: checked, then written.
///
/// # Safety
/// As [`crate::global::write()`].
#[inline(always)]
#[track_caller]
pub unsafe fn st_global<T: Copy>(p: *mut T, v: T) {
    emu::global_write(p, v, align_of::<T>());
}

/// `ld.volatile.global` of a `T`: checked as [`ld_global`] (the emulator keeps no L1).
///
/// # Safety
/// As [`crate::global::read`].
#[inline(always)]
#[track_caller]
pub unsafe fn ld_volatile_global<T: Copy>(p: *const T) -> T {
    // SAFETY: as in [`ld_global`]: `global_read` checks the address, and the caller's contract
    // ([`crate::global::read`]'s) has the bytes there be a valid `T`.
    unsafe { emu::global_read(p, align_of::<T>()) }
}

/// `st.volatile.global` of a `T`: checked as [`st_global`].
///
/// # Safety
/// As [`crate::global::write()`].
#[inline(always)]
#[track_caller]
pub unsafe fn st_volatile_global<T: Copy>(p: *mut T, v: T) {
    emu::global_write(p, v, align_of::<T>());
}

/// One vector or cache-hinted global load per function: checked for the access's alignment,
/// then read (the emulator models no cache).
macro_rules! global_loads {
    ($($name:ident: $t:ty = $ld:literal, align $align:literal);+ $(;)?) => {$(
        #[doc = concat!("`", $ld, "`: checked (", stringify!($align), "-byte aligned), then read.")]
        ///
        /// # Safety
        /// As the [`crate::memory`] function that calls it.
        #[inline(always)]
        #[track_caller]
        pub unsafe fn $name(p: *const $t) -> $t {
            // SAFETY: `global_read` checks the address itself (inside a buffer of the launch and
            // aligned, or the thread faults), and every bit pattern is a valid `u32`, `u64` or
            // `[u32; 4]`, which is all it leaves to its caller.
            unsafe { emu::global_read(p, $align) }
        }
    )+};
}

/// One vector or cache-hinted global store per function: checked, then written.
macro_rules! global_stores {
    ($($name:ident: $t:ty = $st:literal, align $align:literal);+ $(;)?) => {$(
        #[doc = concat!("`", $st, "`: checked (", stringify!($align), "-byte aligned), then written.")]
        ///
        /// # Safety
        /// As the [`crate::memory`] function that calls it.
        #[inline(always)]
        #[track_caller]
        pub unsafe fn $name(p: *mut $t, v: $t) {
            emu::global_write(p, v, $align);
        }
    )+};
}

global_loads!(
    ld_global_v4: [u32; 4] = "ld.global.v4.u32", align 16;
    ld_global_cs_v4: [u32; 4] = "ld.global.cs.v4.u32", align 16;
    ld_global_cs_u64: u64 = "ld.global.cs.u64", align 8;
    ld_global_nc_v4: [u32; 4] = "ld.global.nc.v4.u32", align 16;
    ld_global_nc_u64: u64 = "ld.global.nc.u64", align 8;
    ld_global_nc_u32: u32 = "ld.global.nc.u32", align 4;
);
global_stores!(
    st_global_v4: [u32; 4] = "st.global.v4.u32", align 16;
    st_global_cs_v4: [u32; 4] = "st.global.cs.v4.u32", align 16;
    st_global_cs_u64: u64 = "st.global.cs.u64", align 8;
);

// ---- atomics -------------------------------------------------------------------------------

/// Checks a global atomic's address (inside a buffer of the launch, aligned to its size) and
/// records it.
#[inline(always)]
#[track_caller]
pub fn check_global_atomic<T>(p: *mut T) {
    emu::global_access(p.cast_const().cast(), size_of::<T>(), size_of::<T>(), AccessOp::Atomic);
}

/// Replaces the element at `p` with `f(old)` atomically; returns `old`. One read-modify-write
/// of the element's bits, as a compare-and-swap loop on a host atomic of its width: blocks run
/// on several OS threads, so the GPU's atomics must be atomic on the host too (and every one is
/// sequentially consistent, whatever its scope).
///
/// # Safety
/// `p` is a valid address of a 4- or 8-byte element, aligned to its size.
#[inline(always)]
unsafe fn rmw<T: Plain>(p: *mut T, f: impl Fn(T) -> T) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    // SAFETY: the function's contract is what `from_ptr` needs of an atomic of the element's
    // size: `p` valid for it and aligned to that size. The public contracts have every other
    // access to the element be an atomic or ordered with this one, so atomic and non-atomic
    // accesses do not race. Each branch runs only at its size, so `bits` is between one size.
    unsafe {
        if size_of::<T>() == 4 {
            let a = AtomicU32::from_ptr(p.cast());
            bits(a.fetch_update(SeqCst, SeqCst, |x| Some(bits::<T, u32>(f(bits(x))))).unwrap_or_else(|x| x))
        } else {
            let a = AtomicU64::from_ptr(p.cast());
            bits(a.fetch_update(SeqCst, SeqCst, |x| Some(bits::<T, u64>(f(bits(x))))).unwrap_or_else(|x| x))
        }
    }
}

/// The atomics of one type as [`rmw`]s of `$add` (and `$min`, `$max`).
macro_rules! atomic_type {
    ($t:ty, $add:expr $(, $min:expr, $max:expr)?) => {
        impl AtomicAdd for $t {
            unsafe fn add_global(p: *mut Self, v: Self, _: Scope) -> Self {
                // SAFETY: the calling [`crate::atomic`] function's contract, whose address the
                // emulator checked first (inside a buffer, aligned to the size), is `rmw`'s: a
                // valid address of this 4- or 8-byte type, aligned to its size.
                unsafe { rmw(p, |x| $add(x, v)) }
            }
            unsafe fn red_add_global(p: *mut Self, v: Self, _: Scope) {
                // SAFETY: as in `add_global`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $add(x, v)) };
            }
            unsafe fn add_shared(p: *mut Self, v: Self) -> Self {
                // SAFETY: as in `add_global`: the caller's contract ([`crate::shared::Shared`]'s,
                // whose address the emulator checked first) is `rmw`'s.
                unsafe { rmw(p, |x| $add(x, v)) }
            }
        }
        $(
        impl AtomicMinMax for $t {
            unsafe fn min_global(p: *mut Self, v: Self, _: Scope) -> Self {
                // SAFETY: as in `add_global`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $min(x, v)) }
            }
            unsafe fn max_global(p: *mut Self, v: Self, _: Scope) -> Self {
                // SAFETY: as in `add_global`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $max(x, v)) }
            }
            unsafe fn red_min_global(p: *mut Self, v: Self, _: Scope) {
                // SAFETY: as in `add_global`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $min(x, v)) };
            }
            unsafe fn red_max_global(p: *mut Self, v: Self, _: Scope) {
                // SAFETY: as in `add_global`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $max(x, v)) };
            }
            unsafe fn min_shared(p: *mut Self, v: Self) -> Self {
                // SAFETY: as in `add_shared`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $min(x, v)) }
            }
            unsafe fn max_shared(p: *mut Self, v: Self) -> Self {
                // SAFETY: as in `add_shared`: the caller's contract is `rmw`'s.
                unsafe { rmw(p, |x| $max(x, v)) }
            }
        }
        )?
    };
}

atomic_type!(u32, u32::wrapping_add, Ord::min, Ord::max);
atomic_type!(i32, i32::wrapping_add, Ord::min, Ord::max);
atomic_type!(u64, u64::wrapping_add, Ord::min, Ord::max);
atomic_type!(i64, i64::wrapping_add, Ord::min, Ord::max);
atomic_type!(f32, |a: f32, b: f32| a + b);
atomic_type!(f64, |a: f64, b: f64| a + b);

/// `atom.global.exch`: an [`rmw`] storing `v`.
///
/// # Safety
/// As [`crate::atomic::exchange`].
#[inline(always)]
pub unsafe fn atom_exch_global<T: Plain>(p: *mut T, v: T, _: Scope) -> T {
    // SAFETY: the caller's contract ([`crate::atomic::exchange`]: a valid global address aligned
    // to `T`'s size, which the emulator checked first; `T` of 4 or 8 bytes) is `rmw`'s.
    unsafe { rmw(p, |_| v) }
}

/// `atom.global.cas`: an [`rmw`] storing `new` where the element has `expected`'s bits.
///
/// # Safety
/// As [`crate::atomic::compare_and_swap`].
#[inline(always)]
pub unsafe fn atom_cas_global<T: Plain>(p: *mut T, expected: T, new: T, _: Scope) -> T {
    // SAFETY: as in [`atom_exch_global`]: the caller's contract
    // ([`crate::atomic::compare_and_swap`]) is `rmw`'s.
    unsafe { rmw(p, |x| if same_bits(x, expected) { new } else { x }) }
}

/// `atom.shared.exch`: an [`rmw`] storing `v`.
///
/// # Safety
/// As [`crate::shared::Shared::atomic_exchange`].
#[inline(always)]
pub unsafe fn atom_exch_shared<T: Plain>(p: *mut T, v: T) -> T {
    // SAFETY: the caller's contract ([`crate::shared::Shared::atomic_exchange`]: an element in
    // bounds of its view, aligned to `T`'s size; `T` of 4 or 8 bytes) is `rmw`'s.
    unsafe { rmw(p, |_| v) }
}

/// `atom.shared.cas`: an [`rmw`] storing `new` where the element has `expected`'s bits.
///
/// # Safety
/// As [`crate::shared::Shared::atomic_compare_and_swap`].
#[inline(always)]
pub unsafe fn atom_cas_shared<T: Plain>(p: *mut T, expected: T, new: T) -> T {
    // SAFETY: as in [`atom_exch_shared`]: the caller's contract
    // ([`crate::shared::Shared::atomic_compare_and_swap`]) is `rmw`'s.
    unsafe { rmw(p, |x| if same_bits(x, expected) { new } else { x }) }
}

// ---- shared memory -------------------------------------------------------------------------

/// The base of the block's dynamic shared memory: the block's host buffer.
#[inline(always)]
pub fn shared_base() -> *mut u8 {
    emu::shared_base()
}

/// `%dynamic_smem_size`: the launch's `shared_mem_bytes`.
#[inline(always)]
pub fn dynamic_smem_size() -> u32 {
    emu::shared_size()
}

/// The end of the view a [`crate::shared::Shared`] handle came from (an address), which
/// [`check_shared`] checks accesses against.
#[derive(Clone, Copy)]
pub struct ViewEnd(usize);

/// The [`ViewEnd`] of a view of `len` elements from `start`.
#[inline(always)]
pub fn view_end<T>(start: *mut T, len: usize) -> ViewEnd {
    ViewEnd(start.wrapping_add(len).addr())
}

/// Checks (inside the launch's allocation and the view, aligned) and records an access of
/// `op` to the `T` at `p`, before the accessor makes it.
#[inline(always)]
#[track_caller]
pub fn check_shared<T>(p: *mut T, end: ViewEnd, op: AccessOp) {
    emu::shared_access_aligned(p.cast_const().cast(), size_of::<T>(), align_of::<T>(), end.0, op);
}

/// `cp.async`: reads the source now; the shared write is made, checked and recorded at this
/// call's site when the thread waits for the copy's group.
///
/// # Safety
/// As [`crate::shared::Shared::load_async`].
#[inline(always)]
#[track_caller]
pub unsafe fn cp_async<T>(dst: *mut T, end: ViewEnd, src: *const T, src_bytes: u32) {
    // SAFETY: `async_copy` checks the source (as a global read) and, at the wait, the
    // destination itself; what it leaves to its caller, `src_bytes ≤ size_of::<T>()`, is the
    // caller's contract ([`crate::shared::Shared::load_async`]).
    unsafe { emu::async_copy(dst.cast(), end.0, src.cast(), size_of::<T>(), src_bytes as usize) };
}

/// `cp.async.commit_group`.
#[inline(always)]
#[track_caller]
pub fn cp_async_commit_group() {
    emu::async_commit();
}

/// `cp.async.wait_group N`: completes the older groups' copies.
#[inline(always)]
#[track_caller]
pub fn cp_async_wait_group<const N: u32>() {
    emu::async_wait(N as usize);
}

// ---- the probes' raw shared accesses -------------------------------------------------------

/// 0: the probes' addresses are byte offsets into the block's allocation.
#[inline(always)]
pub fn probe_base() -> u32 {
    0
}

/// A predicated access of a `T` at byte offset `addr`: checked and recorded, then made (a load
/// returns `T`; an inactive lane's access is nothing, and its load `None`).
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
#[track_caller]
unsafe fn probe<T: Plain>(addr: u32, active: u32, store: Option<T>) -> Option<T> {
    if active == 0 {
        return None;
    }
    let p = shared_base().wrapping_add(addr as usize).cast::<T>();
    let op = if store.is_some() { AccessOp::Store } else { AccessOp::Load };
    emu::shared_access(p.cast_const().cast(), size_of::<T>(), usize::MAX, op);
    // SAFETY: `shared_access` checked `p` to be inside the allocation and aligned to the access's
    // width (at least `T`'s alignment), faulting the thread otherwise. The block's threads are
    // fibers of one OS thread, so no other access to the allocation runs during this one.
    unsafe {
        match store {
            Some(v) => {
                p.write_volatile(v);
                None
            }
            None => Some(p.read_volatile()),
        }
    }
}

/// One predicated narrow load (zero-extended into 32 bits; 0 where inactive) per function.
macro_rules! probe_loads {
    ($($name:ident: $t:ty = $ld:literal);+ $(;)?) => {$(
        #[doc = concat!("`@p ", $ld, "`.")]
        ///
        /// # Safety
        /// As [`crate::shared::probe`]'s accesses.
        #[inline(always)]
        #[track_caller]
        pub unsafe fn $name(addr: u32, active: u32) -> u32 {
            // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
            unsafe { probe::<$t>(addr, active, None) }.map_or(0, |v| v as u32)
        }
    )+};
}

/// One predicated narrow store of a 32-bit value's low bits per function.
macro_rules! probe_stores {
    ($($name:ident: $t:ty = $st:literal);+ $(;)?) => {$(
        #[doc = concat!("`@p ", $st, "`.")]
        ///
        /// # Safety
        /// As [`crate::shared::probe`]'s accesses.
        #[inline(always)]
        #[track_caller]
        pub unsafe fn $name(addr: u32, active: u32, v: u32) {
            // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
            unsafe { probe::<$t>(addr, active, Some(v as $t)) };
        }
    )+};
}

probe_loads!(
    probe_ld_u8: u8 = "ld.volatile.shared.u8";
    probe_ld_u16: u16 = "ld.volatile.shared.u16";
    probe_ld_u32: u32 = "ld.volatile.shared.u32";
);
probe_stores!(
    probe_st_u8: u8 = "st.volatile.shared.u8";
    probe_st_u16: u16 = "st.volatile.shared.u16";
    probe_st_u32: u32 = "st.volatile.shared.u32";
);

/// `@p ld.volatile.shared.v2.u32` (zeros where inactive).
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
#[track_caller]
pub unsafe fn probe_ld_v2(addr: u32, active: u32) -> [u32; 2] {
    // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
    unsafe { probe::<[u32; 2]>(addr, active, None) }.unwrap_or_default()
}

/// `@p st.volatile.shared.v2.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
#[track_caller]
pub unsafe fn probe_st_v2(addr: u32, active: u32, v: [u32; 2]) {
    // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
    unsafe { probe::<[u32; 2]>(addr, active, Some(v)) };
}

/// `@p ld.volatile.shared.v4.u32` (zeros where inactive).
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
#[track_caller]
pub unsafe fn probe_ld_v4(addr: u32, active: u32) -> [u32; 4] {
    // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
    unsafe { probe::<[u32; 4]>(addr, active, None) }.unwrap_or_default()
}

/// `@p st.volatile.shared.v4.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
#[track_caller]
pub unsafe fn probe_st_v4(addr: u32, active: u32, v: [u32; 4]) {
    // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is `probe`'s.
    unsafe { probe::<[u32; 4]>(addr, active, Some(v)) };
}
