//! Atomic read-modify-writes on global memory (here) and on shared memory (through the
//! handles of [`crate::shared`], e.g. [`Shared::atomic_add`](crate::shared::Shared::atomic_add)).
//!
//! Every operation is *relaxed* (it orders nothing else: pair it with a [`crate::fence`] to
//! publish data) and atomic with respect to the other atomics of its [`Scope`]. The forms:
//! `atom` returns the value before the operation (CUDA C++'s `atomicAdd` etc.); `red` returns
//! nothing, so the thread does not wait for it (ptxas also turns an `atom` whose result is
//! unused into a `RED`). Types: `add` for `u32 i32 u64 i64 f32 f64` ([`AtomicAdd`]), `min`/`max`
//! for the integers ([`AtomicMinMax`]), `exchange` and `compare_and_swap` for any [`Plain`] type
//! of 4 or 8 bytes (they move bit patterns).
//!
//! A global address here is a pointer into memory the host allocated; passing a pointer to
//! shared or local memory is undefined behaviour.

use core::arch::asm;

use crate::Plain;

/// Which threads an atomic is atomic with respect to (PTX `.cta`, `.gpu`, `.sys`; CUDA C++'s
/// `atomicAdd_block`, `atomicAdd`, `atomicAdd_system`). A narrower scope can be cheaper, but two
/// atomics on one address race unless each one's scope includes the other thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The threads of this block (`.cta`).
    Block,
    /// Every thread of the device (`.gpu`): CUDA C++'s default.
    Device,
    /// Every thread of the system (`.sys`): the host and peer GPUs too, through mapped memory.
    System,
}

mod sealed {
    pub trait Sealed {}
}

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

/// Types with a native atomic add: `u32 i32 u64 i64 f32 f64` (`f64` needs sm_60, below
/// bankwise's sm_70 baseline). Sealed: the hardware defines the set.
pub trait AtomicAdd: Plain + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn add_global(p: *mut Self, v: Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_add_global(p: *mut Self, v: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn add_shared(addr: u32, v: Self) -> Self;
}

/// Integer types with native atomic minimum and maximum: `u32 i32 u64 i64`. Sealed.
pub trait AtomicMinMax: Plain + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn min_global(p: *mut Self, v: Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn max_global(p: *mut Self, v: Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_min_global(p: *mut Self, v: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn red_max_global(p: *mut Self, v: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn min_shared(addr: u32, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn max_shared(addr: u32, v: Self) -> Self;
}

/// The atomic instructions of one type: `$reg` its register class; `$add`, `$min`, `$max` the
/// PTX `op.type` suffixes.
macro_rules! atomic_type {
    ($t:ty, $reg:ident, add $add:literal $(, min $min:literal, max $max:literal)?) => {
        impl sealed::Sealed for $t {}
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn add_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                let old: $t;
                unsafe { scoped!(scope, "atom", [".global.", $add, " {o}, [{p}], {v};"],
                    o = out($reg) old, p = in(reg64) p, v = in($reg) v, options(nostack)) };
                old
            }
            #[inline(always)]
            unsafe fn red_add_global(p: *mut Self, v: Self, scope: Scope) {
                unsafe { scoped!(scope, "red", [".global.", $add, " [{p}], {v};"],
                    p = in(reg64) p, v = in($reg) v, options(nostack)) }
            }
            #[inline(always)]
            unsafe fn add_shared(addr: u32, v: Self) -> Self {
                let old: $t;
                unsafe { asm!(concat!("atom.shared.", $add, " {o}, [{a}], {v};"),
                    o = out($reg) old, a = in(reg32) addr, v = in($reg) v, options(nostack)) };
                old
            }
        }
        $(
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn min_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                let old: $t;
                unsafe { scoped!(scope, "atom", [".global.", $min, " {o}, [{p}], {v};"],
                    o = out($reg) old, p = in(reg64) p, v = in($reg) v, options(nostack)) };
                old
            }
            #[inline(always)]
            unsafe fn max_global(p: *mut Self, v: Self, scope: Scope) -> Self {
                let old: $t;
                unsafe { scoped!(scope, "atom", [".global.", $max, " {o}, [{p}], {v};"],
                    o = out($reg) old, p = in(reg64) p, v = in($reg) v, options(nostack)) };
                old
            }
            #[inline(always)]
            unsafe fn red_min_global(p: *mut Self, v: Self, scope: Scope) {
                unsafe { scoped!(scope, "red", [".global.", $min, " [{p}], {v};"],
                    p = in(reg64) p, v = in($reg) v, options(nostack)) }
            }
            #[inline(always)]
            unsafe fn red_max_global(p: *mut Self, v: Self, scope: Scope) {
                unsafe { scoped!(scope, "red", [".global.", $max, " [{p}], {v};"],
                    p = in(reg64) p, v = in($reg) v, options(nostack)) }
            }
            #[inline(always)]
            unsafe fn min_shared(addr: u32, v: Self) -> Self {
                let old: $t;
                unsafe { asm!(concat!("atom.shared.", $min, " {o}, [{a}], {v};"),
                    o = out($reg) old, a = in(reg32) addr, v = in($reg) v, options(nostack)) };
                old
            }
            #[inline(always)]
            unsafe fn max_shared(addr: u32, v: Self) -> Self {
                let old: $t;
                unsafe { asm!(concat!("atom.shared.", $max, " {o}, [{a}], {v};"),
                    o = out($reg) old, a = in(reg32) addr, v = in($reg) v, options(nostack)) };
                old
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

/// `atomicAdd(p, v)` (PTX `atom.<scope>.global.add`, SASS `ATOMG.E.ADD`): `*p += v`, returning
/// the old value. Integers wrap; floats round to nearest, and `f32` adds flush subnormal inputs
/// and results to zero (PTX `atom.add.f32`, SASS `.FTZ.RN`, as CUDA C++'s `atomicAdd`).
///
/// # Safety
/// `p` must be a valid, aligned global address; every other access to `*p` while kernels may
/// run this must be atomic (of a scope that includes this thread) or ordered with it.
#[inline(always)]
pub unsafe fn add<T: AtomicAdd>(p: *mut T, v: T, scope: Scope) -> T {
    unsafe { T::add_global(p, v, scope) }
}

/// [`add`] without the old value (PTX `red.<scope>.global.add`, SASS `RED.E.ADD`): the thread
/// does not wait for it.
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn red_add<T: AtomicAdd>(p: *mut T, v: T, scope: Scope) {
    unsafe { T::red_add_global(p, v, scope) }
}

/// `atomicMin(p, v)` (PTX `atom.<scope>.global.min`): `*p = min(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    unsafe { T::min_global(p, v, scope) }
}

/// `atomicMax(p, v)` (PTX `atom.<scope>.global.max`): `*p = max(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    unsafe { T::max_global(p, v, scope) }
}

/// [`min`] without the old value (PTX `red.<scope>.global.min`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn red_min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    unsafe { T::red_min_global(p, v, scope) }
}

/// [`max`] without the old value (PTX `red.<scope>.global.max`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn red_max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    unsafe { T::red_max_global(p, v, scope) }
}

/// `v`'s bits as `U`. Called only in the branch where `T` and `U` have one size (the other
/// branch, dead for that `T`, is removed at compile time; a size check here would be evaluated
/// for both).
#[inline(always)]
fn bits<T: Plain, U: Plain>(v: T) -> U {
    // Safety: both are Plain (no padding, every bit pattern valid); callers pass types of one
    // size, and `transmute_copy` checks that `U` is no larger.
    unsafe { core::mem::transmute_copy(&v) }
}

/// `atomicExch(p, v)` (PTX `atom.<scope>.global.exch.b32`/`.b64`): stores `v`, returning the
/// old value, for any [`Plain`] type of 4 or 8 bytes (other sizes fail to compile).
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn exchange<T: Plain>(p: *mut T, v: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
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

/// `atomicCAS(p, expected, new)` (PTX `atom.<scope>.global.cas.b32`/`.b64`): if `*p` has the
/// bits of `expected`, stores `new`; returns the old value either way (it succeeded when the
/// old value has `expected`'s bits). For any [`Plain`] type of 4 or 8 bytes: it compares bits,
/// so `-0.0` and `0.0` differ and a NaN can match itself.
///
/// # Safety
/// As [`add`].
#[inline(always)]
pub unsafe fn compare_and_swap<T: Plain>(p: *mut T, expected: T, new: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
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

/// Whether `a` and `b` have the same bits: how a compare-and-swap loop tells that its swap
/// succeeded (for any [`Plain`] type of 4 or 8 bytes).
#[inline(always)]
pub fn same_bits<T: Plain>(a: T, b: T) -> bool {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    if size_of::<T>() == 4 { bits::<T, u32>(a) == bits::<T, u32>(b) } else { bits::<T, u64>(a) == bits::<T, u64>(b) }
}

/// `atomicExch` on a shared-window address (PTX `atom.shared.exch`); reached through the
/// handles of [`crate::shared`].
#[inline(always)]
pub(crate) unsafe fn exchange_shared<T: Plain>(addr: u32, v: T) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    unsafe {
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

/// `atomicCAS` on a shared-window address (PTX `atom.shared.cas`); reached through the handles
/// of [`crate::shared`].
#[inline(always)]
pub(crate) unsafe fn compare_and_swap_shared<T: Plain>(addr: u32, expected: T, new: T) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    unsafe {
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
