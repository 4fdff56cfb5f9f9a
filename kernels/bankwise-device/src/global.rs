//! Plain global-memory reads and writes through a kernel's pointer arguments: CUDA C++'s `*p`
//! and `*p = v` (`ld.global`/`st.global`, SASS `LDG`/`STG`), and their volatile forms
//! ([`read_volatile`], [`write_volatile`]: `ld.volatile.global`/`st.volatile.global`).
//!
//! On the GPU each is the raw pointer access and compiles to the same code. On the CPU
//! emulator each is checked first: an address outside every buffer of the launch, or one not
//! aligned for `T`, ends the launch with an error naming this call's line and the thread,
//! instead of touching memory. Kernels read and write global memory through these (and the
//! vector and cache-hinted forms of [`crate::memory`]), so that the emulator sees every access.

use crate::backend;

/// Reads the `T` at global address `p`: CUDA C++ `*p`.
///
/// # Safety
/// `p` is a valid, aligned global address (inside a buffer of the launch) holding a valid `T`
/// (any bits are one for a [`Plain`](crate::Plain) type), not written by another thread during
/// the read unless ordered with it.
#[inline(always)]
#[track_caller]
pub unsafe fn read<T: Copy>(p: *const T) -> T {
    // SAFETY: the contract above is the backend's `ld_global`'s (documented as this function's):
    // a valid, aligned global address holding a valid `T`, with no racing write.
    unsafe { backend::ld_global(p) }
}

/// Writes `v` to global address `p`: CUDA C++ `*p = v`.
///
/// # Safety
/// `p` is a valid, aligned global address that no other thread reads or writes during the
/// write unless ordered with it.
#[inline(always)]
#[track_caller]
pub unsafe fn write<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the contract above is the backend's `st_global`'s (documented as this function's):
    // a valid, aligned global address with no racing access.
    unsafe { backend::st_global(p, v) }
}

/// Reads the `T` at global address `p` as a volatile load: CUDA C++ `*(volatile T *)p`
/// (`ld.volatile.global`). It is never merged, cached in a register or dropped, and reads
/// past a stale L1 line: for data another block wrote and a fence or atomic ordered.
///
/// On the CPU emulator it is checked as [`read`] is (the emulator keeps no L1).
///
/// # Safety
/// As [`read`].
#[inline(always)]
#[track_caller]
pub unsafe fn read_volatile<T: Copy>(p: *const T) -> T {
    // SAFETY: the contract, [`read`]'s, is the backend's `ld_volatile_global`'s (documented as
    // this function's).
    unsafe { backend::ld_volatile_global(p) }
}

/// Writes `v` to global address `p` as a volatile store: CUDA C++ `*(volatile T *)p = v`
/// (`st.volatile.global`), never merged or dropped.
///
/// On the CPU emulator it is checked as [`write()`] is.
///
/// # Safety
/// As [`write()`].
#[inline(always)]
#[track_caller]
pub unsafe fn write_volatile<T: Copy>(p: *mut T, v: T) {
    // SAFETY: the contract, [`write()`]'s, is the backend's `st_volatile_global`'s (documented as
    // this function's).
    unsafe { backend::st_volatile_global(p, v) }
}
