//! Global-memory accesses the compiler does not choose by itself: 16-byte vectors and cache
//! hints.
//!
//! Every function here takes a *global* address (a pointer into a buffer the host allocated,
//! as a kernel receives it); a shared-memory or local address is undefined behaviour.

use crate::backend;

/// A 16-byte global load, `ld.global.v4.u32` (SASS `LDG.E.128`): CUDA C++ `*(const uint4*)p`.
///
/// # Safety
/// `p` must be a valid, 16-byte-aligned global address, not written by another thread during
/// the load unless ordered with it.
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_v4(p: *const [u32; 4]) -> [u32; 4] {
    // SAFETY: the contract above is the backend's `ld_global_v4`'s (documented as this function's):
    // a valid, 16-byte-aligned global address with no racing write.
    unsafe { backend::ld_global_v4(p) }
}

/// A 16-byte global store, `st.global.v4.u32` (SASS `STG.E.128`): CUDA C++ `*(uint4*)p = v`.
///
/// # Safety
/// `p` must be a valid, 16-byte-aligned global address that no other thread accesses during the
/// store unless ordered with it.
#[inline(always)]
#[track_caller]
pub unsafe fn store_global_v4(p: *mut [u32; 4], v: [u32; 4]) {
    // SAFETY: the contract above is the backend's `st_global_v4`'s (documented as this function's):
    // a valid, 16-byte-aligned global address with no racing access.
    unsafe { backend::st_global_v4(p, v) }
}

/// An 8-byte global load with the cache-streaming hint, `ld.global.cs.u64` (SASS
/// `LDG.E.EF.64`): CUDA C++ `__ldcs`. The line is expected to be read once, and the caches
/// evict it first.
///
/// # Safety
/// As [`load_global_v4`], with `p` 8-byte aligned.
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_streaming(p: *const u64) -> u64 {
    // SAFETY: the contract above is the backend's `ld_global_cs_u64`'s (documented as this
    // function's): a valid, 8-byte-aligned global address with no racing write.
    unsafe { backend::ld_global_cs_u64(p) }
}

/// An 8-byte global store with the cache-streaming hint, `st.global.cs.u64` (SASS
/// `STG.E.EF.64`): CUDA C++ `__stcs`. The line will not be touched again soon, and L2 evicts it
/// first.
///
/// # Safety
/// As [`store_global_v4`], with `p` 8-byte aligned.
#[inline(always)]
#[track_caller]
pub unsafe fn store_global_streaming(p: *mut u64, v: u64) {
    // SAFETY: the contract above is the backend's `st_global_cs_u64`'s (documented as this
    // function's): a valid, 8-byte-aligned global address with no racing access.
    unsafe { backend::st_global_cs_u64(p, v) }
}

/// A 16-byte global load with the cache-streaming hint, `ld.global.cs.v4.u32` (SASS
/// `LDG.E.EF.128`): CUDA C++ `__ldcs` of a `uint4`.
///
/// # Safety
/// As [`load_global_v4`].
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_streaming_v4(p: *const [u32; 4]) -> [u32; 4] {
    // SAFETY: the contract above is the backend's `ld_global_cs_v4`'s (documented as this
    // function's): a valid, 16-byte-aligned global address with no racing write.
    unsafe { backend::ld_global_cs_v4(p) }
}

/// A 16-byte global store with the cache-streaming hint, `st.global.cs.v4.u32` (SASS
/// `STG.E.EF.128`): CUDA C++ `__stcs` of a `uint4`.
///
/// # Safety
/// As [`store_global_v4`].
#[inline(always)]
#[track_caller]
pub unsafe fn store_global_streaming_v4(p: *mut [u32; 4], v: [u32; 4]) {
    // SAFETY: the contract above is the backend's `st_global_cs_v4`'s (documented as this
    // function's): a valid, 16-byte-aligned global address with no racing access.
    unsafe { backend::st_global_cs_v4(p, v) }
}

/// A 16-byte load through the read-only (texture) path, `ld.global.nc.v4.u32` (SASS
/// `LDG.E.128.CONSTANT`): CUDA C++ `__ldg` of a `uint4`.
///
/// # Safety
/// As [`load_global_v4`], and no thread may write the line while the kernel runs (the
/// non-coherent cache would not see it).
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_nc_v4(p: *const [u32; 4]) -> [u32; 4] {
    // SAFETY: the contract above is the backend's `ld_global_nc_v4`'s (documented as this
    // function's): a valid, 16-byte-aligned global address that no thread writes while the kernel
    // runs.
    unsafe { backend::ld_global_nc_v4(p) }
}

/// An 8-byte load through the read-only path, `ld.global.nc.u64` (SASS `LDG.E.64.CONSTANT`):
/// CUDA C++ `__ldg` of a `unsigned long long`.
///
/// # Safety
/// As [`load_global_nc_v4`], with `p` 8-byte aligned.
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_nc_u64(p: *const u64) -> u64 {
    // SAFETY: the contract above is the backend's `ld_global_nc_u64`'s (documented as this
    // function's): a valid, 8-byte-aligned global address that no thread writes while the kernel
    // runs.
    unsafe { backend::ld_global_nc_u64(p) }
}

/// A 4-byte load through the read-only path, `ld.global.nc.u32` (SASS `LDG.E.CONSTANT`): CUDA
/// C++ `__ldg` of an `unsigned int`.
///
/// # Safety
/// As [`load_global_nc_v4`], with `p` 4-byte aligned.
#[inline(always)]
#[track_caller]
pub unsafe fn load_global_nc_u32(p: *const u32) -> u32 {
    // SAFETY: the contract above is the backend's `ld_global_nc_u32`'s (documented as this
    // function's): a valid, 4-byte-aligned global address that no thread writes while the kernel
    // runs.
    unsafe { backend::ld_global_nc_u32(p) }
}
