//! What a kernel calls on the device: bankwise's `cuda_std`.
//!
//! Thin, always-inlined wrappers over `core::arch::nvptx` and PTX inline assembly. Everything a
//! kernel needs from the hardware goes through here, so the kernels themselves read like the
//! CUDA C++ they are compared with.
#![no_std]
#![feature(stdarch_nvptx, core_intrinsics, gpu_intrinsics, gpu_launch_sized_workgroup_mem, asm_experimental_arch)]
#![allow(internal_features)]

use core::arch::asm;
use core::arch::nvptx;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_x() -> u32 {
    unsafe { nvptx::_thread_idx_x() }
}
/// `threadIdx.y`.
#[inline(always)]
pub fn thread_y() -> u32 {
    unsafe { nvptx::_thread_idx_y() }
}
/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    unsafe { nvptx::_block_idx_x() }
}
/// `blockIdx.y`.
#[inline(always)]
pub fn block_y() -> u32 {
    unsafe { nvptx::_block_idx_y() }
}
/// `blockIdx.z`.
#[inline(always)]
pub fn block_z() -> u32 {
    unsafe { nvptx::_block_idx_z() }
}
/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    unsafe { nvptx::_block_dim_x() }
}
/// `gridDim.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    unsafe { nvptx::_grid_dim_x() }
}
/// `gridDim.y`.
#[inline(always)]
pub fn grid_dim_y() -> u32 {
    unsafe { nvptx::_grid_dim_y() }
}
/// `gridDim.z`.
#[inline(always)]
pub fn grid_dim_z() -> u32 {
    unsafe { nvptx::_grid_dim_z() }
}

/// `__syncthreads()`: every thread of the block reaches it before any continues, and shared
/// memory written before it is visible after it. Must be reached by all threads of the block.
#[inline(always)]
pub fn sync_threads() {
    unsafe { nvptx::_syncthreads() }
}

/// `__syncwarp(mask)`: the lanes in `mask` reconverge and their shared-memory accesses are
/// ordered. Since Volta, lanes of a warp are scheduled independently, so warp-synchronous code
/// without it is a data race.
#[inline(always)]
pub fn sync_warp(mask: u32) {
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask) }
}

/// `__shfl_down_sync(mask, value, delta)` for 32-bit values.
#[inline(always)]
pub fn shfl_down(mask: u32, value: u32, delta: u32) -> u32 {
    let out: u32;
    unsafe {
        asm!("shfl.sync.down.b32 {o}, {v}, {d}, 0x1f, {m};",
            o = out(reg32) out, v = in(reg32) value, d = in(reg32) delta, m = in(reg32) mask)
    }
    out
}

/// `__shfl_xor_sync(mask, value, lane_mask)` for 32-bit values.
#[inline(always)]
pub fn shfl_xor(mask: u32, value: u32, lane_mask: u32) -> u32 {
    let out: u32;
    unsafe {
        asm!("shfl.sync.bfly.b32 {o}, {v}, {l}, 0x1f, {m};",
            o = out(reg32) out, v = in(reg32) value, l = in(reg32) lane_mask, m = in(reg32) mask)
    }
    out
}

/// `clock64()`: the SM's cycle counter.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    unsafe { asm!("mov.u64 {t}, %clock64;", t = out(reg64) t) }
    t
}

/// `%globaltimer`: nanoseconds of the GPU's global timer, the same on every SM (unlike
/// [`clock64`], which counts one SM's cycles at whatever clock it runs).
#[inline(always)]
pub fn global_timer() -> u64 {
    let t: u64;
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) }
    t
}

/// The block's dynamic shared memory (sized by the launch's `shared_mem_bytes`) as a typed
/// pointer in the shared address space, so accesses compile to `ld.shared`/`st.shared`
/// (SASS `LDS`/`STS`) rather than generic loads.
#[inline(always)]
pub fn dynamic_shared<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}

/// A 16-byte global load, `ld.global.v4.u32` (SASS `LDG.E.128`).
///
/// # Safety
/// `p` must be a valid, 16-byte-aligned global address.
#[inline(always)]
pub unsafe fn load_global_v4(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    unsafe {
        asm!("ld.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg64) p, options(readonly, nostack, preserves_flags))
    }
    [a, b, c, d]
}

/// A 16-byte global store, `st.global.v4.u32` (SASS `STG.E.128`).
///
/// # Safety
/// `p` must be a valid, 16-byte-aligned global address.
#[inline(always)]
pub unsafe fn store_global_v4(p: *mut [u32; 4], v: [u32; 4]) {
    unsafe {
        asm!("st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack, preserves_flags))
    }
}

/// An 8-byte global load with the cache-streaming hint, `ld.global.cs.u64`: the line is
/// expected to be read once, and the caches evict it first.
///
/// # Safety
/// `p` must be a valid, 8-byte-aligned global address.
#[inline(always)]
pub unsafe fn load_global_streaming(p: *const u64) -> u64 {
    let v: u64;
    unsafe {
        asm!("ld.global.cs.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(readonly, nostack, preserves_flags))
    }
    v
}

/// An 8-byte global store with the cache-streaming hint, `st.global.cs.u64`: the line will
/// not be touched again soon, and L2 evicts it first.
///
/// # Safety
/// `p` must be a valid, 8-byte-aligned global address.
#[inline(always)]
pub unsafe fn store_global_streaming(p: *mut u64, v: u64) {
    unsafe { asm!("st.global.cs.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack, preserves_flags)) }
}

/// The panic handler: no unwinding on the GPU, so a panic (a failed bounds check, say) traps,
/// which aborts the launch; the host sees `CUDA_ERROR_ILLEGAL_INSTRUCTION` from the next
/// synchronising call. Behind the default feature `panic-handler`, so that a kernel crate can
/// define its own instead.
#[cfg(all(feature = "panic-handler", target_arch = "nvptx64"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { nvptx::trap() }
}
