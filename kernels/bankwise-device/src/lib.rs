//! What a kernel calls on the device: bankwise's `cuda_std`.
//!
//! Thin, always-inlined wrappers over `core::arch::nvptx` and inline PTX, by concept:
//! [`thread`] (indices, lane and warp, block barriers), [`warp`] (`__syncwarp`, shuffles,
//! votes), [`fence`] (`__threadfence*`), [`atomic`] (global atomics; shared ones on the
//! [`shared`] handles), [`shared`] (shared memory, with its safety contract), [`global`]
//! (plain global reads and writes), [`memory`] (vector and cache-hinted global accesses),
//! [`pipeline`] (groups of asynchronous global-to-shared copies, `sm_80` on),
//! [`float`] (fused multiply-add) and [`time`] (clocks), plus the [`kernel`] attribute that
//! makes a function an entry. Each item's doc names its CUDA C++ equivalent and the PTX it
//! emits. Kernel crates use no `asm!` and no `core::arch::nvptx` of their own: everything that
//! touches the hardware goes through here, so kernels read like the CUDA C++ they are compared
//! with.
//!
//! A kernel crate is a `no_std` `cdylib` that depends on this crate (under the name
//! `bankwise_device`, which `#[kernel]`'s expansion names) and is built for `nvptx64-nvidia-cuda`
//! with the nightly in `kernels/rust-toolchain.toml` (see `bankwise-builder`). It needs no
//! `#![feature]` of its own. This crate provides the `#[panic_handler]` (it traps) unless its
//! default feature `panic-handler` is turned off.
//!
//! On every other target the crate compiles on stable Rust against the CPU emulator
//! (`bankwise-emu`): each function has a host form that asks the emulated thread running it
//! for its indices, suspends it at barriers and warp collectives until the others arrive, and
//! checks and records every shared and global access it makes (the accessors are
//! `#[track_caller]`, so the emulator names the kernel's own line). `#[kernel]` registers the
//! host form of each entry with the emulator by name.
//!
//! # Layout: one backend per target
//!
//! The public modules write and document each function once, for both targets, in terms of a
//! private `backend` module chosen here once by target: `src/backend/nvptx.rs` (inline PTX,
//! `core::arch::nvptx` and `core::intrinsics`: one instruction per primitive) or
//! `src/backend/emu.rs` (calls into `bankwise_emu::lane`). The two files define the same
//! primitives with the same signatures, named after the PTX they stand for (`tid_x`,
//! `bar_sync`, `shfl_down_b32`, `ld_global_nc_v4`, `cp_async`, …), and implement the hidden
//! methods of [`atomic::AtomicAdd`] and [`atomic::AtomicMinMax`] for their types. Where only the
//! emulator has work to do, the primitive is a no-op on the GPU ([`Shared`](shared::Shared)'s
//! access checks, a global atomic's address check, the end of a handle's view, which is
//! zero-sized there). The public functions and the GPU primitives are `#[inline(always)]`, so
//! each GPU form compiles to its instruction in the kernel's own code; the emulator's waiting
//! and checking primitives are `#[track_caller]`, as are the public functions that call them.
//! What exists on one target only is cfg'd here (the `#![feature]`s, the `#[kernel]`
//! expansion's helpers) and in the GPU backend (the panic handler).
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        stdarch_nvptx,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        asm_experimental_arch,
        allow_internal_unstable
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod atomic;
pub mod fence;
pub mod float;
pub mod global;
pub mod memory;
pub mod pipeline;
pub mod shared;
pub mod thread;
pub mod time;
pub mod warp;

// The target's primitives (see "Layout" above): the same functions in both files.
#[cfg(target_arch = "nvptx64")]
#[path = "backend/nvptx.rs"]
mod backend;
#[cfg(not(target_arch = "nvptx64"))]
#[path = "backend/emu.rs"]
mod backend;

/// `#[kernel]`: makes a function a GPU kernel entry (CUDA C++ `extern "C" __global__`). See
/// [`bankwise_macros::kernel`].
pub use bankwise_macros::kernel;

/// Plain data: a `Copy` type with no padding bytes, for which every bit pattern is a valid
/// value (CUDA C++'s trivially-copyable types, less those with padding or invalid states).
///
/// What moves a value as raw bits needs it: warp shuffles of any type
/// ([`warp::shfl_down`]), bit-wise atomics ([`atomic::compare_and_swap`]), and shared memory,
/// whose handles read bytes some other thread (or an earlier block) left there and can be cast
/// between types.
///
/// # Safety
/// Implement it only for types with no padding and no invalid bit patterns: a `#[repr(C)]`
/// struct of `Plain` fields laid out without gaps (such as `{ value: f32, index: u32 }`) is
/// fine; `bool`, `char`, references, enums, and structs with padding are not.
pub unsafe trait Plain: Copy + 'static {}

macro_rules! plain {
    ($($t:ty),+) => {$(
        // Safety: primitive integers and floats have no padding and no invalid values.
        unsafe impl Plain for $t {}
    )+};
}
plain!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

// Safety: an array has no padding between elements of a Plain type (its size is a multiple of
// its alignment), and every bit pattern of each element is valid.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// `v`'s bits as `U`. Called only where `T` and `U` have one size (in the branch of an `if
/// size_of::<T>() == ..` that matches; the other branch, dead for that `T`, is removed at
/// compile time, and a size check here would be evaluated for both).
#[inline(always)]
pub(crate) fn bits<T: Plain, U: Plain>(v: T) -> U {
    // Safety: both are Plain (no padding, every bit pattern valid); callers pass types of one
    // size, and `transmute_copy` checks that `U` is no larger.
    unsafe { core::mem::transmute_copy(&v) }
}

/// `T` at a 16-byte-aligned address (CUDA C++'s `uint4`/`float4` alignment), so that one
/// access to it can be one 16-byte instruction: `LDS.128`/`STS.128` in shared memory,
/// `LDG.E.128`/`STG.E.128` in global memory. An `[f32; 4]` is only 4-byte aligned, and the
/// compiler moves it as four 4-byte accesses, which is what the emulator then counts too.
///
/// ```ignore
/// // (kernel code) thread t reads floats 4t .. 4t + 4 of shared memory in one LDS.128:
/// let v: [f32; 4] = unsafe { s.cast::<Align16<[f32; 4]>>().read(t) }.0;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub struct Align16<T>(pub T);

macro_rules! plain_align16 {
    ($($t:ty),+) => {$(
        // Safety: a Plain array whose size is a multiple of 16: no padding before or after it.
        unsafe impl Plain for Align16<$t> {}
    )+};
}
plain_align16!([u32; 4], [i32; 4], [f32; 4], [u64; 2], [i64; 2], [f64; 2], [u16; 8], [u8; 16], [f64; 4]);

/// The emulator, for `#[kernel]`'s host expansion (its registration of the entry).
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub use bankwise_emu as __emu;

/// What `#[kernel]` makes of an entry in the kernel crate's host form (every target but
/// `nvptx64`): a constant of the function's name whose type records the parameter types, which
/// a runtime turns into a kernel whose launches the compiler checks
/// (`module.kernel(my_kernels::vector_add)`).
#[cfg(not(target_arch = "nvptx64"))]
pub use bankwise_emu::KernelEntry;

/// A type a kernel takes by value (host forms only): implement it for a `#[repr(C)]` parameter
/// struct so that typed launches accept it.
#[cfg(not(target_arch = "nvptx64"))]
pub use bankwise_emu::ByValue;

/// The expansion of [`kernel`] on `nvptx64`: the function with the `extern "ptx-kernel"` ABI.
/// Spelled here, where `abi_ptx` is allowed, so that kernel crates need no feature gate.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
#[allow_internal_unstable(abi_ptx)]
macro_rules! __kernel_entry {
    ($(#[$($attr:tt)*])* $vis:vis unsafe fn $name:ident($($args:tt)*) $body:block) => {
        $(#[$($attr)*])* $vis unsafe extern "ptx-kernel" fn $name($($args)*) $body
    };
    ($(#[$($attr:tt)*])* $vis:vis fn $name:ident($($args:tt)*) $body:block) => {
        $(#[$($attr)*])* $vis extern "ptx-kernel" fn $name($($args)*) $body
    };
}
