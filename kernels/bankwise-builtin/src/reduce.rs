//! The reduction ladder's entries for sum, min and max of every element type.

use bankwise_device::kernel;
use bankwise_kernels::reduce::{Max, Min, Sum, reduce_unrolled_warp_unsynced};
use bankwise_kernels::reduce_ladder;

reduce_ladder!(SumLadder = sum: Sum; f32, f64, i32, u32, i64, u64);
reduce_ladder!(MinLadder = min: Min; f32, f64, i32, u32, i64, u64);
reduce_ladder!(MaxLadder = max: Max; f32, f64, i32, u32, i64, u64);

/// The racy warp-synchronous sum of the parallel-sum article and Harris's slides (not a rung
/// of the ladder): see [`reduce_unrolled_warp_unsynced`].
///
/// # Safety
/// As the ladder's `reduce_unrolled_warp_sum_f32`.
#[kernel(shared = bankwise_kernels::reduce::tree_shared_bytes::<f32>())]
pub unsafe fn reduce_unrolled_warp_unsynced_sum_f32(dst: *mut f32, src: *const f32, n: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { reduce_unrolled_warp_unsynced::<f32, Sum>(dst, src, n) }
}

/// As [`reduce_unrolled_warp_unsynced_sum_f32`], for `u32`.
///
/// # Safety
/// As the ladder's `reduce_unrolled_warp_sum_u32`.
#[kernel(shared = bankwise_kernels::reduce::tree_shared_bytes::<u32>())]
pub unsafe fn reduce_unrolled_warp_unsynced_sum_u32(dst: *mut u32, src: *const u32, n: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { reduce_unrolled_warp_unsynced::<u32, Sum>(dst, src, n) }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use bankwise_kernels::reduce::{Ladder, TreeParams, TunedParams};
