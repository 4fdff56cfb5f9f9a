//! The GPU backend (`nvptx64`): every primitive is one PTX instruction (a `core::arch::nvptx`
//! intrinsic, a `core::intrinsics` one, or inline PTX), always inlined into the kernel's own
//! code. The checks the emulator makes ([`check_shared`], [`check_global_atomic`]) are nothing
//! here, and a view's end ([`ViewEnd`]) is not kept.
//!
//! Primitives that touch memory through an operand are `unsafe fn`s with their public caller's
//! contract. The safe ones read special registers, fence, convert an address, or synchronise:
//! barriers and warp collectives have no memory operand, and an access that needs a barrier's
//! ordering is an `unsafe` accessor whose contract asks for it. Their rules (every thread of the
//! block reaches the barrier; `mask` holds this lane and each of its lanes arrives) concern
//! progress and values: PTX calls a collective whose `mask` lacks the executing lane undefined,
//! and these stay safe on the understanding that the hardware then hangs or yields an
//! unspecified register value, as [`crate::warp`] and [`crate::thread::sync_threads`] describe.

use core::arch::{asm, nvptx};

use crate::atomic::{AtomicAdd, AtomicMinMax, Scope};
use crate::{Plain, bits};

// ---- indices -------------------------------------------------------------------------------

/// One `u32` special register per function, read through its `core::arch::nvptx` intrinsic.
macro_rules! special_registers {
    ($($name:ident = $intrinsic:ident $ptx:literal),+ $(,)?) => {$(
        #[doc = concat!("PTX `", $ptx, "`.")]
        #[inline(always)]
        pub fn $name() -> u32 {
            // SAFETY: reading a special register has no preconditions and touches no memory (the
            // intrinsic is an `unsafe fn`, as every `core::arch::nvptx` one is).
            unsafe { nvptx::$intrinsic() }
        }
    )+};
}

special_registers!(
    tid_x = _thread_idx_x "%tid.x", tid_y = _thread_idx_y "%tid.y", tid_z = _thread_idx_z "%tid.z",
    ctaid_x = _block_idx_x "%ctaid.x", ctaid_y = _block_idx_y "%ctaid.y", ctaid_z = _block_idx_z "%ctaid.z",
    ntid_x = _block_dim_x "%ntid.x", ntid_y = _block_dim_y "%ntid.y", ntid_z = _block_dim_z "%ntid.z",
    nctaid_x = _grid_dim_x "%nctaid.x", nctaid_y = _grid_dim_y "%nctaid.y", nctaid_z = _grid_dim_z "%nctaid.z",
);

/// PTX `%laneid`.
#[inline(always)]
pub fn laneid() -> u32 {
    let lane: u32;
    // SAFETY: reading the special register `%laneid` has no preconditions and touches no memory.
    unsafe { asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(pure, nomem, nostack, preserves_flags)) };
    lane
}

// ---- block barriers ------------------------------------------------------------------------

/// PTX `bar.sync 0`.
#[inline(always)]
pub fn bar_sync() {
    // SAFETY: `bar.sync` has no memory operand (the intrinsic counts as touching memory, so no
    // access moves across it); every thread reaching it is a rule of progress (module docs).
    unsafe { nvptx::_syncthreads() };
}

/// PTX `bar.red.popc.u32`: how many threads of the block passed a true `predicate`.
#[inline(always)]
pub fn bar_red_popc(predicate: bool) -> u32 {
    let count: u32;
    // SAFETY: as `bar_sync`'s: the barrier has no memory operand (no `nomem`, so accesses stay on
    // their side of it), and the rest works on registers declared in its own `{ }` scope.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {v}, 0; bar.red.popc.u32 {c}, 0, p; }}",
            v = in(reg32) predicate as u32, c = out(reg32) count, options(nostack))
    };
    count
}

/// PTX `bar.red.and.pred`: whether `predicate` was true in every thread of the block.
#[inline(always)]
pub fn bar_red_and(predicate: bool) -> bool {
    let all: u32;
    // SAFETY: as `bar_red_popc`'s: a barrier with no memory operand, and registers only.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; bar.red.and.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
            v = in(reg32) predicate as u32, r = out(reg32) all, options(nostack))
    };
    all != 0
}

/// PTX `bar.red.or.pred`: whether `predicate` was true in any thread of the block.
#[inline(always)]
pub fn bar_red_or(predicate: bool) -> bool {
    let any: u32;
    // SAFETY: as `bar_red_popc`'s: a barrier with no memory operand, and registers only.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; bar.red.or.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
            v = in(reg32) predicate as u32, r = out(reg32) any, options(nostack))
    };
    any != 0
}

// ---- warp collectives ----------------------------------------------------------------------

/// PTX `bar.warp.sync`.
#[inline(always)]
pub fn bar_warp_sync(mask: u32) {
    // SAFETY: `bar.warp.sync` has no memory operand (and no `nomem`, so the compiler moves no
    // access across it); `mask` holding this lane and every lane of it arriving is the
    // [`crate::warp`] rule, about progress rather than memory (see the module docs).
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask) };
}

/// PTX `activemask.b32`.
#[inline(always)]
pub fn activemask() -> u32 {
    let m: u32;
    // SAFETY: `activemask` reads which lanes of the warp execute it: no preconditions, no memory.
    unsafe { asm!("activemask.b32 {m};", m = out(reg32) m, options(nomem, nostack)) };
    m
}

/// PTX `vote.sync.all.pred`.
#[inline(always)]
pub fn vote_all(mask: u32, predicate: bool) -> bool {
    let r: u32;
    // SAFETY: registers only (`nomem`); `mask` holding this lane is the [`crate::warp`] rule,
    // about progress and values rather than memory (see the module docs).
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.all.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
            v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
    };
    r != 0
}

/// PTX `vote.sync.any.pred`.
#[inline(always)]
pub fn vote_any(mask: u32, predicate: bool) -> bool {
    let r: u32;
    // SAFETY: as `vote_all`'s: registers only, and the mask rule is about progress and values.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.any.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
            v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
    };
    r != 0
}

/// PTX `vote.sync.ballot.b32`.
#[inline(always)]
pub fn vote_ballot(mask: u32, predicate: bool) -> u32 {
    let r: u32;
    // SAFETY: as `vote_all`'s: registers only, and the mask rule is about progress and values.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {v}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
            v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
    };
    r
}

/// One 32-bit shuffle per function: `shfl.sync.<mode>.b32 d, value, b, c, mask`, `c` the
/// clamp/segment operand.
macro_rules! shuffles {
    ($($name:ident = $mode:literal, $clamp:literal);+ $(;)?) => {$(
        #[doc = concat!("PTX `shfl.sync.", $mode, ".b32 d, value, b, ", $clamp, ", mask`.")]
        #[inline(always)]
        pub fn $name(mask: u32, value: u32, b: u32) -> u32 {
            let out: u32;
            // SAFETY: a shuffle reads and writes registers only; `mask` holding this lane is the
            // [`crate::warp`] rule, about progress and values (see the module docs).
            unsafe {
                asm!(concat!("shfl.sync.", $mode, ".b32 {o}, {v}, {b}, ", $clamp, ", {m};"),
                    o = out(reg32) out, v = in(reg32) value, b = in(reg32) b, m = in(reg32) mask)
            }
            out
        }
    )+};
}

shuffles!(
    shfl_down_b32 = "down", "0x1f";
    shfl_up_b32 = "up", "0x0";
    shfl_bfly_b32 = "bfly", "0x1f";
    shfl_idx_b32 = "idx", "0x1f";
);

// ---- fences, arithmetic, clocks ------------------------------------------------------------

/// PTX `membar.cta`.
#[inline(always)]
pub fn membar_cta() {
    // SAFETY: a fence has no preconditions and accesses no memory; it only orders this thread's
    // accesses (no `nomem`, so the compiler moves none across it).
    unsafe { asm!("membar.cta;", options(nostack)) }
}

/// PTX `membar.gl`.
#[inline(always)]
pub fn membar_gl() {
    // SAFETY: as `membar_cta`'s: a fence, with no preconditions.
    unsafe { asm!("membar.gl;", options(nostack)) }
}

/// PTX `membar.sys`.
#[inline(always)]
pub fn membar_sys() {
    // SAFETY: as `membar_cta`'s: a fence, with no preconditions.
    unsafe { asm!("membar.sys;", options(nostack)) }
}

/// PTX `fma.rn.f32`.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

/// PTX `fma.rn.f64`.
#[inline(always)]
pub fn fma_rn_f64(a: f64, b: f64, c: f64) -> f64 {
    core::intrinsics::fmaf64(a, b, c)
}

/// PTX `%clock64`.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    // SAFETY: reading the special register `%clock64` has no preconditions and touches no memory.
    unsafe { asm!("mov.u64 {t}, %clock64;", t = out(reg64) t) }
    t
}

/// PTX `%globaltimer`.
#[inline(always)]
pub fn globaltimer() -> u64 {
    let t: u64;
    // SAFETY: reading the special register `%globaltimer` has no preconditions and touches no
    // memory.
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) }
    t
}

// ---- global memory -------------------------------------------------------------------------

/// `ld.global` of a `T`: the plain pointer read, which LLVM emits as such.
///
/// # Safety
/// As [`crate::global::read`].
#[inline(always)]
pub unsafe fn ld_global<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller's contract ([`crate::global::read`]) is what `read` needs: `p` is valid
    // for reads of a `T`, aligned, holds a valid `T`, and no write races with the read.
    unsafe { p.read() }
}

/// `st.global` of a `T`: the plain pointer write.
///
/// # Safety
/// As [`crate::global::write()`].
#[inline(always)]
pub unsafe fn st_global<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the caller's contract ([`crate::global::write()`]) is what `write` needs: `p` is
    // valid for writes of a `T` and aligned, and no other access races with the write.
    unsafe { p.write(v) }
}

/// `ld.volatile.global` of a `T`: the volatile pointer read.
///
/// # Safety
/// As [`crate::global::read`].
#[inline(always)]
pub unsafe fn ld_volatile_global<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller's contract ([`crate::global::read_volatile`], as [`crate::global::read`])
    // is what `read_volatile` needs: `p` valid for reads of a `T`, aligned, holding a valid `T`.
    unsafe { p.read_volatile() }
}

/// `st.volatile.global` of a `T`: the volatile pointer write.
///
/// # Safety
/// As [`crate::global::write()`].
#[inline(always)]
pub unsafe fn st_volatile_global<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the caller's contract ([`crate::global::write_volatile`], as `write`'s) is what
    // `write_volatile` needs: `p` valid for writes of a `T`, aligned, with no racing access.
    unsafe { p.write_volatile(v) }
}

/// One vector or cache-hinted global load per function: `$ld` of `$t` from `p`.
macro_rules! global_loads {
    ($($name:ident: $t:tt = $ld:literal, [$($opt:ident),*]);+ $(;)?) => {$(
        #[doc = concat!("PTX `", $ld, "`.")]
        ///
        /// # Safety
        /// As the [`crate::memory`] function that calls it.
        #[inline(always)]
        pub unsafe fn $name(p: *const $t) -> $t {
            load!($t, $ld, p, [$($opt),*])
        }
    )+};
}

/// The inline PTX of one global load of a `u32`, `u64` or `[u32; 4]`.
macro_rules! load {
    ([u32; 4], $ld:literal, $p:ident, [$($opt:ident),*]) => {{
        let (a, b, c, d): (u32, u32, u32, u32);
        // SAFETY: the calling [`crate::memory`] function's contract is what the load needs: `p`
        // is a valid, 16-byte-aligned global address with no racing write. The asm only reads
        // (`readonly`); the `.nc` form is also `pure` (LLVM may merge or drop repeats), sound as
        // its contract has no thread write the line while the kernel runs.
        unsafe {
            asm!(concat!($ld, " {{{a}, {b}, {c}, {d}}}, [{p}];"),
                a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
                p = in(reg64) $p, options($($opt,)* readonly, nostack, preserves_flags))
        }
        [a, b, c, d]
    }};
    (u64, $ld:literal, $p:ident, [$($opt:ident),*]) => {{
        let v: u64;
        // SAFETY: as the `[u32; 4]` arm's, for 8 bytes at an 8-byte-aligned `p`.
        unsafe {
            asm!(concat!($ld, " {v}, [{p}];"), v = out(reg64) v, p = in(reg64) $p,
                options($($opt,)* readonly, nostack, preserves_flags))
        }
        v
    }};
    (u32, $ld:literal, $p:ident, [$($opt:ident),*]) => {{
        let v: u32;
        // SAFETY: as the `[u32; 4]` arm's, for 4 bytes at a 4-byte-aligned `p`.
        unsafe {
            asm!(concat!($ld, " {v}, [{p}];"), v = out(reg32) v, p = in(reg64) $p,
                options($($opt,)* readonly, nostack, preserves_flags))
        }
        v
    }};
}

global_loads!(
    ld_global_v4: [u32; 4] = "ld.global.v4.u32", [];
    ld_global_cs_v4: [u32; 4] = "ld.global.cs.v4.u32", [];
    ld_global_cs_u64: u64 = "ld.global.cs.u64", [];
    ld_global_nc_v4: [u32; 4] = "ld.global.nc.v4.u32", [pure];
    ld_global_nc_u64: u64 = "ld.global.nc.u64", [pure];
    ld_global_nc_u32: u32 = "ld.global.nc.u32", [pure];
);

/// PTX `st.global.v4.u32`.
///
/// # Safety
/// As [`crate::memory::store_global_v4`].
#[inline(always)]
pub unsafe fn st_global_v4(p: *mut [u32; 4], v: [u32; 4]) {
    // SAFETY: the caller's contract ([`crate::memory::store_global_v4`]) is what the store needs:
    // `p` is a valid, 16-byte-aligned global address, and no other access races with it.
    unsafe {
        asm!("st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack, preserves_flags))
    }
}

/// PTX `st.global.cs.v4.u32`.
///
/// # Safety
/// As [`crate::memory::store_global_streaming_v4`].
#[inline(always)]
pub unsafe fn st_global_cs_v4(p: *mut [u32; 4], v: [u32; 4]) {
    // SAFETY: as `st_global_v4`'s: the caller's contract gives a valid, 16-byte-aligned global
    // address with no racing access.
    unsafe {
        asm!("st.global.cs.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack, preserves_flags))
    }
}

/// PTX `st.global.cs.u64`.
///
/// # Safety
/// As [`crate::memory::store_global_streaming`].
#[inline(always)]
pub unsafe fn st_global_cs_u64(p: *mut u64, v: u64) {
    // SAFETY: the caller's contract ([`crate::memory::store_global_streaming`]) gives a valid,
    // 8-byte-aligned global address with no racing access, which the store needs.
    unsafe { asm!("st.global.cs.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack, preserves_flags)) }
}

// ---- atomics -------------------------------------------------------------------------------

/// Nothing: the GPU checks no atomic's address (the emulator's check of [`crate::atomic`]).
#[inline(always)]
pub fn check_global_atomic<T>(_: *mut T) {}

/// The same instruction at each scope: `$head` + `.cta`/`.gpu`/`.sys` + the `$tail` pieces.
macro_rules! scoped {
    ($scope:expr, $head:literal, [$($tail:tt)*], $($operands:tt)*) => {
        match $scope {
            Scope::Block => asm!(concat!($head, ".cta", $($tail)*), $($operands)*),
            Scope::Device => asm!(concat!($head, ".gpu", $($tail)*), $($operands)*),
            Scope::System => asm!(concat!($head, ".sys", $($tail)*), $($operands)*),
        }
    };
}

/// `atom`/`red` of `$op` (a PTX `op.type` suffix) on global memory at each scope, returning the
/// old value (`atom`) or nothing (`red`); `atom.shared` of `$op`.
macro_rules! atomic_ops {
    (atom_global $t:ty, $reg:ident, $op:literal, $p:ident, $v:ident, $scope:ident) => {{
        let old: $t;
        // SAFETY: the calling [`crate::atomic`] function's contract is what `atom.global` needs:
        // `p` is a valid global address aligned to the type's size, and every other access to it
        // is an atomic whose scope includes this thread, or ordered with this one.
        unsafe { scoped!($scope, "atom", [".global.", $op, " {o}, [{p}], {v};"],
            o = out($reg) old, p = in(reg64) $p, v = in($reg) $v, options(nostack)) };
        old
    }};
    (red_global $t:ty, $reg:ident, $op:literal, $p:ident, $v:ident, $scope:ident) => {
        // SAFETY: as `atom_global`'s: the [`crate::atomic`] contract gives a valid, aligned global
        // address whose other accesses are atomic or ordered.
        unsafe { scoped!($scope, "red", [".global.", $op, " [{p}], {v};"],
            p = in(reg64) $p, v = in($reg) $v, options(nostack)) }
    };
    (atom_shared $t:ty, $reg:ident, $op:literal, $p:ident, $v:ident) => {{
        let addr = window($p);
        let old: $t;
        // SAFETY: the contract of the [`crate::shared::Shared`] atomic calling this is what
        // `atom.shared` needs: `p` is an element of the block's shared memory (in bounds of its
        // view, so `addr` is its shared-window address), aligned, and other threads' non-atomic
        // accesses to it are ordered with this one.
        unsafe { asm!(concat!("atom.shared.", $op, " {o}, [{a}], {v};"),
            o = out($reg) old, a = in(reg32) addr, v = in($reg) $v, options(nostack)) };
        old
    }};
}

/// The atomic instructions of one type: `$reg` its register class; `$add`, `$min`, `$max` the
/// PTX `op.type` suffixes.
macro_rules! atomic_type {
    ($t:ty, $reg:ident, add $add:literal $(, min $min:literal, max $max:literal)?) => {
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn add_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                atomic_ops!(atom_global $t, $reg, $add, p, v, scope)
            }
            #[inline(always)]
            unsafe fn red_add_global(p: *mut Self, v: Self, scope: Scope) {
                atomic_ops!(red_global $t, $reg, $add, p, v, scope)
            }
            #[inline(always)]
            unsafe fn add_shared(p: *mut Self, v: Self) -> Self {
                atomic_ops!(atom_shared $t, $reg, $add, p, v)
            }
        }
        $(
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn min_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                atomic_ops!(atom_global $t, $reg, $min, p, v, scope)
            }
            #[inline(always)]
            unsafe fn max_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                atomic_ops!(atom_global $t, $reg, $max, p, v, scope)
            }
            #[inline(always)]
            unsafe fn red_min_global(p: *mut Self, v: Self, scope: Scope) {
                atomic_ops!(red_global $t, $reg, $min, p, v, scope)
            }
            #[inline(always)]
            unsafe fn red_max_global(p: *mut Self, v: Self, scope: Scope) {
                atomic_ops!(red_global $t, $reg, $max, p, v, scope)
            }
            #[inline(always)]
            unsafe fn min_shared(p: *mut Self, v: Self) -> Self {
                atomic_ops!(atom_shared $t, $reg, $min, p, v)
            }
            #[inline(always)]
            unsafe fn max_shared(p: *mut Self, v: Self) -> Self {
                atomic_ops!(atom_shared $t, $reg, $max, p, v)
            }
        }
        )?
    };
}

// Integer adds are two's complement, so signed ones use the unsigned instruction (PTX has no
// `atom.add.s64`; `add.u32` for i32 keeps one SASS form for both).
atomic_type!(u32, reg32, add "add.u32", min "min.u32", max "max.u32");
atomic_type!(i32, reg32, add "add.u32", min "min.s32", max "max.s32");
atomic_type!(u64, reg64, add "add.u64", min "min.u64", max "max.u64");
atomic_type!(i64, reg64, add "add.u64", min "min.s64", max "max.s64");
atomic_type!(f32, reg32, add "add.f32");
atomic_type!(f64, reg64, add "add.f64");

/// PTX `atom.<scope>.global.exch.b32`/`.b64` of `v`'s bits (`T` of 4 or 8 bytes).
///
/// # Safety
/// As [`crate::atomic::exchange`].
#[inline(always)]
pub unsafe fn atom_exch_global<T: Plain>(p: *mut T, v: T, scope: Scope) -> T {
    // SAFETY: the caller's contract ([`crate::atomic::exchange`]) is what `atom.global.exch`
    // needs: `p` is a valid global address aligned to `T`'s size, with every other access atomic
    // or ordered. `T` is 4 or 8 bytes (asserted there) and each branch is taken only at its
    // size, so `bits` converts between types of one size.
    unsafe {
        if size_of::<T>() == 4 {
            let old: u32;
            scoped!(scope, "atom", [".global.exch.b32 {o}, [{p}], {v};"],
                o = out(reg32) old, p = in(reg64) p, v = in(reg32) bits::<T, u32>(v), options(nostack));
            bits(old)
        } else {
            let old: u64;
            scoped!(scope, "atom", [".global.exch.b64 {o}, [{p}], {v};"],
                o = out(reg64) old, p = in(reg64) p, v = in(reg64) bits::<T, u64>(v), options(nostack));
            bits(old)
        }
    }
}

/// PTX `atom.<scope>.global.cas.b32`/`.b64` of the bits of `expected` and `new` (`T` of 4 or 8
/// bytes).
///
/// # Safety
/// As [`crate::atomic::compare_and_swap`].
#[inline(always)]
pub unsafe fn atom_cas_global<T: Plain>(p: *mut T, expected: T, new: T, scope: Scope) -> T {
    // SAFETY: as `atom_exch_global`'s: the caller's contract ([`crate::atomic::compare_and_swap`])
    // gives a valid global address aligned to `T`'s size, other accesses atomic or ordered, and
    // each branch runs only at its size.
    unsafe {
        if size_of::<T>() == 4 {
            let old: u32;
            scoped!(scope, "atom", [".global.cas.b32 {o}, [{p}], {e}, {n};"], o = out(reg32) old, p = in(reg64) p,
                e = in(reg32) bits::<T, u32>(expected), n = in(reg32) bits::<T, u32>(new), options(nostack));
            bits(old)
        } else {
            let old: u64;
            scoped!(scope, "atom", [".global.cas.b64 {o}, [{p}], {e}, {n};"], o = out(reg64) old, p = in(reg64) p,
                e = in(reg64) bits::<T, u64>(expected), n = in(reg64) bits::<T, u64>(new), options(nostack));
            bits(old)
        }
    }
}

/// PTX `atom.shared.exch.b32`/`.b64` of `v`'s bits (`T` of 4 or 8 bytes).
///
/// # Safety
/// As [`crate::shared::Shared::atomic_exchange`].
#[inline(always)]
pub unsafe fn atom_exch_shared<T: Plain>(p: *mut T, v: T) -> T {
    // SAFETY: the caller's contract ([`crate::shared::Shared::atomic_exchange`]) is what
    // `atom.shared.exch` needs: `p` is a shared element in bounds of its view (so `window(p)` is
    // its shared address), aligned to `T`'s size, other threads' non-atomic accesses ordered with
    // it. `T` is 4 or 8 bytes (asserted there); each branch runs only at its size, as `bits` needs.
    unsafe {
        let addr = window(p);
        if size_of::<T>() == 4 {
            let old: u32;
            asm!("atom.shared.exch.b32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr,
                v = in(reg32) bits::<T, u32>(v), options(nostack));
            bits(old)
        } else {
            let old: u64;
            asm!("atom.shared.exch.b64 {o}, [{a}], {v};", o = out(reg64) old, a = in(reg32) addr,
                v = in(reg64) bits::<T, u64>(v), options(nostack));
            bits(old)
        }
    }
}

/// PTX `atom.shared.cas.b32`/`.b64` of the bits of `expected` and `new` (`T` of 4 or 8 bytes).
///
/// # Safety
/// As [`crate::shared::Shared::atomic_compare_and_swap`].
#[inline(always)]
pub unsafe fn atom_cas_shared<T: Plain>(p: *mut T, expected: T, new: T) -> T {
    // SAFETY: as `atom_exch_shared`'s, from the caller's contract
    // ([`crate::shared::Shared::atomic_compare_and_swap`]).
    unsafe {
        let addr = window(p);
        if size_of::<T>() == 4 {
            let old: u32;
            asm!("atom.shared.cas.b32 {o}, [{a}], {e}, {n};", o = out(reg32) old, a = in(reg32) addr,
                e = in(reg32) bits::<T, u32>(expected), n = in(reg32) bits::<T, u32>(new), options(nostack));
            bits(old)
        } else {
            let old: u64;
            asm!("atom.shared.cas.b64 {o}, [{a}], {e}, {n};", o = out(reg64) old, a = in(reg32) addr,
                e = in(reg64) bits::<T, u64>(expected), n = in(reg64) bits::<T, u64>(new), options(nostack));
            bits(old)
        }
    }
}

// ---- shared memory -------------------------------------------------------------------------

/// A 16-byte-aligned unit: the type the dynamic allocation is requested as, so that its base
/// is [`crate::shared::ALIGN`]-aligned in every kernel crate.
#[repr(C, align(16))]
struct Aligned([u8; 16]);

/// The base of the block's dynamic shared memory, in the shared state space
/// (`gpu_launch_sized_workgroup_mem`: see [`crate::shared`]'s module docs).
#[inline(always)]
pub fn shared_base() -> *mut u8 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Aligned>().cast()
}

/// PTX `%dynamic_smem_size`.
#[inline(always)]
pub fn dynamic_smem_size() -> u32 {
    let n: u32;
    // SAFETY: reading the special register `%dynamic_smem_size` has no preconditions and touches
    // no memory.
    unsafe {
        asm!("mov.u32 {n}, %dynamic_smem_size;", n = out(reg32) n, options(pure, nomem, nostack, preserves_flags))
    };
    n
}

/// The generic pointer `p` (into shared memory) as a 32-bit shared-window address, the operand
/// of `atom.shared`/`ld.shared` in inline PTX (`cvta.to.shared`; ptxas folds it away).
#[inline(always)]
fn window<T>(p: *mut T) -> u32 {
    let generic = p as u64; // only converted, never dereferenced here
    let s: u64;
    // SAFETY: `cvta.to.shared` only converts an address (`pure, nomem`), touching no memory; every
    // caller passes a pointer into the shared window (derived from `shared_base`), whose
    // shared-space address it then is.
    unsafe {
        asm!("cvta.to.shared.u64 {s}, {g};", s = out(reg64) s, g = in(reg64) generic, options(pure, nomem, nostack))
    };
    s as u32
}

/// What kind of access [`check_shared`] is told of (the emulator records it; here, unused).
#[derive(Clone, Copy)]
pub enum AccessOp {
    /// A read.
    Load,
    /// A write.
    Store,
    /// An atomic read-modify-write.
    Atomic,
}

/// The end of the view a [`crate::shared::Shared`] handle came from, which the emulator checks
/// accesses against: nothing on the GPU (a zero-sized value, so handles stay one pointer).
#[derive(Clone, Copy)]
pub struct ViewEnd;

/// The [`ViewEnd`] of a view of `len` elements from `start` (not kept).
#[inline(always)]
pub fn view_end<T>(_start: *mut T, _len: usize) -> ViewEnd {
    ViewEnd
}

/// Nothing: the GPU checks and records no shared access (the emulator's check of
/// [`crate::shared::Shared`]'s accessors).
#[inline(always)]
pub fn check_shared<T>(_: *mut T, _: ViewEnd, _: AccessOp) {}

/// PTX `cp.async.cg.shared.global` (16 bytes) or `cp.async.ca.shared.global` (4, 8) of
/// `size_of::<T>()` bytes from `src` to `dst`, the first `src_bytes` read and the rest zeros.
///
/// # Safety
/// As [`crate::shared::Shared::load_async`].
#[inline(always)]
pub unsafe fn cp_async<T>(dst: *mut T, _: ViewEnd, src: *const T, src_bytes: u32) {
    // SAFETY: the caller's contract ([`crate::shared::Shared::load_async`]) is what `cp.async`
    // needs: `T` is 4, 8 or 16 bytes (asserted there: the arm taken copies exactly `T`); `dst` is
    // a shared element in bounds of its view, aligned to that size; where `src_bytes > 0`, `src`
    // is a global address valid for `src_bytes ≤ size_of::<T>()` bytes, aligned to the size; and
    // nothing touches `dst` until the wait (and, for other threads, a barrier after it).
    unsafe {
        let dst = window(dst);
        match size_of::<T>() {
            16 => asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};",
                d = in(reg32) dst, s = in(reg64) src, n = in(reg32) src_bytes, options(nostack, preserves_flags)),
            8 => asm!("cp.async.ca.shared.global [{d}], [{s}], 8, {n};",
                d = in(reg32) dst, s = in(reg64) src, n = in(reg32) src_bytes, options(nostack, preserves_flags)),
            _ => asm!("cp.async.ca.shared.global [{d}], [{s}], 4, {n};",
                d = in(reg32) dst, s = in(reg64) src, n = in(reg32) src_bytes, options(nostack, preserves_flags)),
        }
    }
}

/// PTX `cp.async.commit_group`.
#[inline(always)]
pub fn cp_async_commit_group() {
    // SAFETY: closing this thread's copies into a group has no preconditions (an empty group is
    // fine) and touches no memory.
    unsafe { asm!("cp.async.commit_group;", options(nostack, preserves_flags)) };
}

/// PTX `cp.async.wait_group N`.
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    // SAFETY: waiting for this thread's older groups has no preconditions. The copies land in
    // memory when it returns, so it is not `nomem`: the compiler moves no access across it.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack, preserves_flags)) };
}

// ---- the probes' raw shared accesses -------------------------------------------------------

/// The dynamic allocation's base as a 32-bit shared-window address (PTX `cvta.to.shared.u64`).
#[inline(always)]
pub fn probe_base() -> u32 {
    window(shared_base())
}

/// One predicated 1-, 2- or 4-byte load per function (`@p ld.volatile.shared`, `p` = `active
/// != 0`), zero-extended into 32 bits.
macro_rules! probe_loads {
    ($($name:ident = $ld:literal);+ $(;)?) => {$(
        #[doc = concat!("PTX `@p ", $ld, "`, `p` = `active != 0`.")]
        ///
        /// # Safety
        /// As [`crate::shared::probe`]'s accesses.
        #[inline(always)]
        pub unsafe fn $name(addr: u32, active: u32) -> u32 {
            let v: u32;
            // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is what the load needs:
            // where `active != 0` (else it is skipped), `addr` is inside the launch's dynamic
            // shared memory, aligned to the width, and no write races with it.
            unsafe {
                asm!(concat!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ", $ld, " {v}, [{a}]; }}"),
                    v = out(reg32) v, a = in(reg32) addr, act = in(reg32) active, options(nostack))
            };
            v
        }
    )+};
}

/// One predicated 1-, 2- or 4-byte store of the low bits of a 32-bit value per function.
macro_rules! probe_stores {
    ($($name:ident = $st:literal);+ $(;)?) => {$(
        #[doc = concat!("PTX `@p ", $st, "`, `p` = `active != 0`.")]
        ///
        /// # Safety
        /// As [`crate::shared::probe`]'s accesses.
        #[inline(always)]
        pub unsafe fn $name(addr: u32, active: u32, v: u32) {
            // SAFETY: the caller's contract ([`crate::shared::probe`]'s) is what the store needs:
            // where `active != 0` (else it is skipped), `addr` is inside the launch's dynamic
            // shared memory, aligned to the width, and no other access races with it.
            unsafe {
                asm!(concat!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ", $st, " [{a}], {v}; }}"),
                    v = in(reg32) v, a = in(reg32) addr, act = in(reg32) active, options(nostack))
            }
        }
    )+};
}

probe_loads!(
    probe_ld_u8 = "ld.volatile.shared.u8";
    probe_ld_u16 = "ld.volatile.shared.u16";
    probe_ld_u32 = "ld.volatile.shared.u32";
);
probe_stores!(
    probe_st_u8 = "st.volatile.shared.u8";
    probe_st_u16 = "st.volatile.shared.u16";
    probe_st_u32 = "st.volatile.shared.u32";
);

/// PTX `@p ld.volatile.shared.v2.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
pub unsafe fn probe_ld_v2(addr: u32, active: u32) -> [u32; 2] {
    let (x, y): (u32, u32);
    // SAFETY: as the narrow probe loads', with `addr` 8-byte aligned (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p ld.volatile.shared.v2.u32 {{{x}, {y}}}, [{a}]; }}",
            x = out(reg32) x, y = out(reg32) y, a = in(reg32) addr, act = in(reg32) active,
            options(nostack))
    };
    [x, y]
}

/// PTX `@p st.volatile.shared.v2.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
pub unsafe fn probe_st_v2(addr: u32, active: u32, v: [u32; 2]) {
    // SAFETY: as the narrow probe stores', with `addr` 8-byte aligned (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; @p st.volatile.shared.v2.u32 [{a}], {{{x}, {y}}}; }}",
            x = in(reg32) v[0], y = in(reg32) v[1], a = in(reg32) addr, act = in(reg32) active,
            options(nostack))
    }
}

/// PTX `@p ld.volatile.shared.v4.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
pub unsafe fn probe_ld_v4(addr: u32, active: u32) -> [u32; 4] {
    let (x, y, z, w): (u32, u32, u32, u32);
    // SAFETY: as the narrow probe loads', with `addr` 16-byte aligned (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; \
              @p ld.volatile.shared.v4.u32 {{{x}, {y}, {z}, {w}}}, [{a}]; }}",
            x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
            a = in(reg32) addr, act = in(reg32) active, options(nostack))
    };
    [x, y, z, w]
}

/// PTX `@p st.volatile.shared.v4.u32`.
///
/// # Safety
/// As [`crate::shared::probe`]'s accesses.
#[inline(always)]
pub unsafe fn probe_st_v4(addr: u32, active: u32, v: [u32; 4]) {
    // SAFETY: as the narrow probe stores', with `addr` 16-byte aligned (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {act}, 0; \
              @p st.volatile.shared.v4.u32 [{a}], {{{x}, {y}, {z}, {w}}}; }}",
            x = in(reg32) v[0], y = in(reg32) v[1], z = in(reg32) v[2], w = in(reg32) v[3],
            a = in(reg32) addr, act = in(reg32) active, options(nostack))
    }
}

/// The panic handler: no unwinding on the GPU, so a panic (a failed bounds check, say) traps
/// (PTX `trap`), which aborts the launch; the host sees `CUDA_ERROR_ILLEGAL_INSTRUCTION` from the
/// next synchronising call. Behind the default feature `panic-handler`, so that a kernel crate
/// can define its own instead.
#[cfg(feature = "panic-handler")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` has no preconditions: it aborts the launch.
    unsafe { core::arch::nvptx::trap() }
}
