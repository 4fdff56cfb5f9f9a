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

#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
    unsafe fn add_shared(p: *mut Self, v: Self) -> Self;
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
    unsafe fn min_shared(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn max_shared(p: *mut Self, v: Self) -> Self;
}

/// The atomic instructions of one type: `$reg` its register class; `$add`, `$min`, `$max` the
/// PTX `op.type` suffixes.
#[cfg(target_arch = "nvptx64")]
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
            unsafe fn add_shared(p: *mut Self, v: Self) -> Self {
                let addr = crate::shared::window(p);
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
            unsafe fn min_shared(p: *mut Self, v: Self) -> Self {
                let addr = crate::shared::window(p);
                let old: $t;
                unsafe { asm!(concat!("atom.shared.", $min, " {o}, [{a}], {v};"),
                    o = out($reg) old, a = in(reg32) addr, v = in($reg) v, options(nostack)) };
                old
            }
            #[inline(always)]
            unsafe fn max_shared(p: *mut Self, v: Self) -> Self {
                let addr = crate::shared::window(p);
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
#[cfg(target_arch = "nvptx64")]
atomic_type!(u32, reg32, add "add.u32", min "min.u32", max "max.u32");
#[cfg(target_arch = "nvptx64")]
atomic_type!(i32, reg32, add "add.u32", min "min.s32", max "max.s32");
#[cfg(target_arch = "nvptx64")]
atomic_type!(u64, reg64, add "add.u64", min "min.u64", max "max.u64");
#[cfg(target_arch = "nvptx64")]
atomic_type!(i64, reg64, add "add.u64", min "min.s64", max "max.s64");
#[cfg(target_arch = "nvptx64")]
atomic_type!(f32, reg32, add "add.f32");
#[cfg(target_arch = "nvptx64")]
atomic_type!(f64, reg64, add "add.f64");

/// The host forms (the CPU emulator's): one read-modify-write of the element's bits, as a
/// compare-and-swap loop on a host atomic of its width. Blocks run on several OS threads, so
/// global atomics must be atomic on the host too.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

    use super::{AtomicAdd, AtomicMinMax, Scope, bits, sealed};
    use crate::Plain;

    /// Replaces the element at `p` with `f(old)` atomically; returns `old`.
    ///
    /// # Safety
    /// `p` is a valid address of a 4- or 8-byte element, aligned to its size.
    #[inline(always)]
    pub(super) unsafe fn rmw<T: Plain>(p: *mut T, f: impl Fn(T) -> T) -> T {
        const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
        // Safety: as the function's.
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

    macro_rules! host_type {
        ($t:ty, $add:expr $(, $min:expr, $max:expr)?) => {
            impl sealed::Sealed for $t {}
            impl AtomicAdd for $t {
                unsafe fn add_global(p: *mut Self, v: Self, _: Scope) -> Self {
                    unsafe { rmw(p, |x| $add(x, v)) }
                }
                unsafe fn red_add_global(p: *mut Self, v: Self, _: Scope) {
                    unsafe { rmw(p, |x| $add(x, v)) };
                }
                unsafe fn add_shared(p: *mut Self, v: Self) -> Self {
                    unsafe { rmw(p, |x| $add(x, v)) }
                }
            }
            $(
            impl AtomicMinMax for $t {
                unsafe fn min_global(p: *mut Self, v: Self, _: Scope) -> Self {
                    unsafe { rmw(p, |x| $min(x, v)) }
                }
                unsafe fn max_global(p: *mut Self, v: Self, _: Scope) -> Self {
                    unsafe { rmw(p, |x| $max(x, v)) }
                }
                unsafe fn red_min_global(p: *mut Self, v: Self, _: Scope) {
                    unsafe { rmw(p, |x| $min(x, v)) };
                }
                unsafe fn red_max_global(p: *mut Self, v: Self, _: Scope) {
                    unsafe { rmw(p, |x| $max(x, v)) };
                }
                unsafe fn min_shared(p: *mut Self, v: Self) -> Self {
                    unsafe { rmw(p, |x| $min(x, v)) }
                }
                unsafe fn max_shared(p: *mut Self, v: Self) -> Self {
                    unsafe { rmw(p, |x| $max(x, v)) }
                }
            }
            )?
        };
    }

    host_type!(u32, u32::wrapping_add, Ord::min, Ord::max);
    host_type!(i32, i32::wrapping_add, Ord::min, Ord::max);
    host_type!(u64, u64::wrapping_add, Ord::min, Ord::max);
    host_type!(i64, i64::wrapping_add, Ord::min, Ord::max);
    host_type!(f32, |a: f32, b: f32| a + b);
    host_type!(f64, |a: f64, b: f64| a + b);
}

/// Checks a global atomic's address on the emulator (inside a buffer, aligned to its size).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
fn check_global<T>(p: *mut T) {
    bankwise_emu::lane::global_access(
        p.cast_const().cast(),
        size_of::<T>(),
        size_of::<T>(),
        bankwise_emu::AccessOp::Atomic,
    );
}

/// `atomicAdd(p, v)` (PTX `atom.<scope>.global.add`, SASS `ATOMG.E.ADD`): `*p += v`, returning
/// the old value. Integers wrap; floats round to nearest, and `f32` adds flush subnormal inputs
/// and results to zero (PTX `atom.add.f32`, SASS `.FTZ.RN`, as CUDA C++'s `atomicAdd`).
///
/// # Safety
/// `p` must be a valid, aligned global address; every other access to `*p` while kernels may
/// run this must be atomic (of a scope that includes this thread) or ordered with it.
#[inline(always)]
#[track_caller]
pub unsafe fn add<T: AtomicAdd>(p: *mut T, v: T, scope: Scope) -> T {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
    unsafe { T::add_global(p, v, scope) }
}

/// [`add`] without the old value (PTX `red.<scope>.global.add`, SASS `RED.E.ADD`): the thread
/// does not wait for it.
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn red_add<T: AtomicAdd>(p: *mut T, v: T, scope: Scope) {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
    unsafe { T::red_add_global(p, v, scope) }
}

/// `atomicMin(p, v)` (PTX `atom.<scope>.global.min`): `*p = min(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
    unsafe { T::min_global(p, v, scope) }
}

/// `atomicMax(p, v)` (PTX `atom.<scope>.global.max`): `*p = max(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
    unsafe { T::max_global(p, v, scope) }
}

/// [`min`] without the old value (PTX `red.<scope>.global.min`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn red_min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
    unsafe { T::red_min_global(p, v, scope) }
}

/// [`max`] without the old value (PTX `red.<scope>.global.max`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn red_max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    #[cfg(not(target_arch = "nvptx64"))]
    check_global(p);
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
#[track_caller]
pub unsafe fn exchange<T: Plain>(p: *mut T, v: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    #[cfg(target_arch = "nvptx64")]
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
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = scope; // every host atomic is sequentially consistent
        check_global(p);
        unsafe { host::rmw(p, |_| v) }
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
#[track_caller]
pub unsafe fn compare_and_swap<T: Plain>(p: *mut T, expected: T, new: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    #[cfg(target_arch = "nvptx64")]
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
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = scope; // every host atomic is sequentially consistent
        check_global(p);
        unsafe { host::rmw(p, |x| if same_bits(x, expected) { new } else { x }) }
    }
}

/// Whether `a` and `b` have the same bits: how a compare-and-swap loop tells that its swap
/// succeeded (for any [`Plain`] type of 4 or 8 bytes).
#[inline(always)]
pub fn same_bits<T: Plain>(a: T, b: T) -> bool {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    if size_of::<T>() == 4 { bits::<T, u32>(a) == bits::<T, u32>(b) } else { bits::<T, u64>(a) == bits::<T, u64>(b) }
}

/// `atomicExch` on a shared-memory element (PTX `atom.shared.exch`); reached through the
/// handles of [`crate::shared`].
#[inline(always)]
pub(crate) unsafe fn exchange_shared<T: Plain>(p: *mut T, v: T) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let addr = crate::shared::window(p);
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
    #[cfg(not(target_arch = "nvptx64"))]
    return unsafe { host::rmw(p, |_| v) };
}

/// `atomicCAS` on a shared-memory element (PTX `atom.shared.cas`); reached through the handles
/// of [`crate::shared`].
#[inline(always)]
pub(crate) unsafe fn compare_and_swap_shared<T: Plain>(p: *mut T, expected: T, new: T) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let addr = crate::shared::window(p);
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
    #[cfg(not(target_arch = "nvptx64"))]
    return unsafe { host::rmw(p, |x| if same_bits(x, expected) { new } else { x }) };
}
