//! bankwise's GPU kernels, compiled by rustc's own `nvptx64-nvidia-cuda` backend into one PTX
//! module that `host/build.rs` embeds in the `bankwise` library.
//!
//! Each kernel is an `extern "ptx-kernel"` function whose name the host looks up. Generic
//! kernels are written once over the element type and instantiated per element size by a
//! macro (`transpose_naive_u8`, `_u16`, `_u32`, `_u64`): a transpose only moves bits, so the
//! width is all that matters.
#![no_std]
#![feature(
    abi_ptx,
    stdarch_nvptx,
    core_intrinsics,
    gpu_intrinsics,
    gpu_launch_sized_workgroup_mem,
    asm_experimental_arch
)]
#![allow(internal_features)]

pub mod copy;
pub mod device;
pub mod probe;
pub mod reduce;
pub mod timing;
pub mod transpose;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // No unwinding on the GPU: a panic (a failed bounds check, say) aborts the launch, and the
    // host sees CUDA_ERROR_ILLEGAL_INSTRUCTION from the next synchronising call.
    unsafe { core::arch::nvptx::trap() }
}
