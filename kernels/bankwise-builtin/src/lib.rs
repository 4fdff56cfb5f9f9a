//! The kernel entries the `bankwise` library launches, instantiated from `bankwise-kernels`
//! and compiled by rustc's `nvptx64-nvidia-cuda` backend into one PTX module that
//! `bankwise`'s build script embeds (or ships prebuilt).
//!
//! Every entry is a `#[kernel]` function (`bankwise_device::kernel`), so this crate needs no
//! feature gate of its own. Generic kernels are written once over the element type and
//! instantiated per element size
//! (`transpose_naive_u8`, `_u16`, `_u32`, `_u64`): a transpose only moves bits, so the width is
//! all that matters. Reductions are instantiated per operation and type by
//! `bankwise_kernels::reduce_ladder!`.
#![no_std]

pub mod matmul;
pub mod permute;
pub mod probe;
pub mod reduce;
pub mod reduce_axes;
pub mod transpose;

#[cfg(not(target_arch = "nvptx64"))]
pub use permute::PermuteWord;
#[cfg(not(target_arch = "nvptx64"))]
pub use transpose::{TransposeParams, TransposeWord};

use bankwise_device::kernel;
use bankwise_kernels::copy;

/// See [`bankwise_kernels::copy::copy_bytes`].
///
/// # Safety
/// `src` and `dst` must be valid for `bytes` bytes and must not overlap.
#[kernel]
pub unsafe fn copy_bytes(dst: *mut u8, src: *const u8, bytes: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { copy::copy_bytes(dst, src, bytes) }
}

/// See [`bankwise_kernels::copy::copy_rows_aligned`].
///
/// # Safety
/// As [`bankwise_kernels::copy::copy_rows_aligned`].
#[kernel]
pub unsafe fn copy_rows_aligned(dst: *mut u32, dst_ld: u64, src: *const u32, src_ld: u64, rows: u64, row_words: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { copy::copy_rows_aligned(dst, dst_ld, src, src_ld, rows, row_words) }
}
