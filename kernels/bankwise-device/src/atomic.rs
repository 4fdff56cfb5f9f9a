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

use crate::{Plain, backend, bits};

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

/// Types with a native atomic add: `u32 i32 u64 i64 f32 f64` (`f64` needs sm_60, below
/// bankwise's sm_70 baseline). Sealed: the hardware defines the set. Each backend implements
/// the hidden methods (inline PTX on the GPU, a host compare-and-swap loop on the emulator).
pub trait AtomicAdd: Plain + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn add_global(p: *mut Self, v: Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_add_global(p: *mut Self, v: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn add_shared(p: *mut Self, v: Self) -> Self;
}

/// Integer types with native atomic minimum and maximum: `u32 i32 u64 i64`. Sealed; each
/// backend implements the hidden methods.
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

impl sealed::Sealed for u32 {}
impl sealed::Sealed for i32 {}
impl sealed::Sealed for u64 {}
impl sealed::Sealed for i64 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}

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
    backend::check_global_atomic(p);
    // SAFETY: the contract above is what the backend's `add_global` needs: a valid global address
    // aligned to `T`'s size, every other access to it atomic within a scope that includes this
    // thread, or ordered with this one.
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
    backend::check_global_atomic(p);
    // SAFETY: the contract, [`add`]'s, is what `red_add_global` needs, as `add_global` does.
    unsafe { T::red_add_global(p, v, scope) }
}

/// `atomicMin(p, v)` (PTX `atom.<scope>.global.min`): `*p = min(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    backend::check_global_atomic(p);
    // SAFETY: the contract, [`add`]'s, is what `min_global` needs, as `add_global` does.
    unsafe { T::min_global(p, v, scope) }
}

/// `atomicMax(p, v)` (PTX `atom.<scope>.global.max`): `*p = max(*p, v)`, returning the old value.
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) -> T {
    backend::check_global_atomic(p);
    // SAFETY: the contract, [`add`]'s, is what `max_global` needs, as `add_global` does.
    unsafe { T::max_global(p, v, scope) }
}

/// [`min`] without the old value (PTX `red.<scope>.global.min`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn red_min<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    backend::check_global_atomic(p);
    // SAFETY: the contract, [`add`]'s, is what `red_min_global` needs, as `add_global` does.
    unsafe { T::red_min_global(p, v, scope) }
}

/// [`max`] without the old value (PTX `red.<scope>.global.max`).
///
/// # Safety
/// As [`add`].
#[inline(always)]
#[track_caller]
pub unsafe fn red_max<T: AtomicMinMax>(p: *mut T, v: T, scope: Scope) {
    backend::check_global_atomic(p);
    // SAFETY: the contract, [`add`]'s, is what `red_max_global` needs, as `add_global` does.
    unsafe { T::red_max_global(p, v, scope) }
}

/// `atomicExch(p, v)` (PTX `atom.<scope>.global.exch.b32`/`.b64`): stores `v`, returning the
/// old value, for any [`Plain`] type of 4 or 8 bytes (other sizes fail to compile).
///
/// # Safety
/// As [`add`], with `p` aligned to `size_of::<T>()` (an 8-byte `T` may itself be only 4-byte
/// aligned).
#[inline(always)]
#[track_caller]
pub unsafe fn exchange<T: Plain>(p: *mut T, v: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    backend::check_global_atomic(p);
    // SAFETY: the contract is the backend's `atom_exch_global`'s (documented as this
    // function's): a valid global address aligned to `T`'s size, other accesses atomic or
    // ordered; `T` is 4 or 8 bytes (asserted above).
    unsafe { backend::atom_exch_global(p, v, scope) }
}

/// `atomicCAS(p, expected, new)` (PTX `atom.<scope>.global.cas.b32`/`.b64`): if `*p` has the
/// bits of `expected`, stores `new`; returns the old value either way (it succeeded when the
/// old value has `expected`'s bits). For any [`Plain`] type of 4 or 8 bytes: it compares bits,
/// so `-0.0` and `0.0` differ and a NaN can match itself.
///
/// # Safety
/// As [`exchange`].
#[inline(always)]
#[track_caller]
pub unsafe fn compare_and_swap<T: Plain>(p: *mut T, expected: T, new: T, scope: Scope) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    backend::check_global_atomic(p);
    // SAFETY: the contract is the backend's `atom_cas_global`'s (documented as this
    // function's), as in [`exchange`]; `T` is 4 or 8 bytes (asserted above).
    unsafe { backend::atom_cas_global(p, expected, new, scope) }
}

/// Whether `a` and `b` have the same bits: how a compare-and-swap loop tells that its swap
/// succeeded (for any [`Plain`] type of 4 or 8 bytes).
#[inline(always)]
pub fn same_bits<T: Plain>(a: T, b: T) -> bool {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
    if size_of::<T>() == 4 { bits::<T, u32>(a) == bits::<T, u32>(b) } else { bits::<T, u64>(a) == bits::<T, u64>(b) }
}
