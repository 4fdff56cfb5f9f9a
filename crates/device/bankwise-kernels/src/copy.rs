//! `copy_bytes`: the bandwidth baseline every other figure is compared with.
//!
//! Teaches: what "as fast as memory allows" looks like. Each thread moves 16-byte vectors
//! (`LDG.E.128`/`STG.E.128`), [`UNROLL`] of them with all loads issued before the first store,
//! spaced a block's width apart so every warp access is one contiguous 512-byte run.
//!
//! Measured (H100, 2026-11-22): 2900 GB/s on 8192×8192 f32, 97.8% of the driver's
//! `cuMemcpyDtoD` in the same run; ≥ 95% of it from 4096² up (`docs/benchmarks.md`).

use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::thread::{block_dim_x, block_x, grid_dim_x, thread_x};
use bankwise_layout::copy::{UNROLL, VECTOR_BYTES};

type Vector = [u32; 4];

/// Copies `bytes` bytes from `src` to `dst`. Both must be 16-byte aligned (every allocation is).
///
/// # Safety
/// `src` and `dst` must be valid for `bytes` bytes and must not overlap.
#[inline(always)]
pub unsafe fn copy_bytes(dst: *mut u8, src: *const u8, bytes: u64) {
    let vectors = bytes / VECTOR_BYTES;
    let (src_v, dst_v) = (src.cast::<Vector>(), dst.cast::<Vector>());
    let threads = block_dim_x() as u64;
    let per_block = threads * UNROLL as u64;
    let stride = grid_dim_x() as u64 * per_block;
    let mut first = block_x() as u64 * per_block + thread_x() as u64;
    while first < vectors {
        if first + (UNROLL as u64 - 1) * threads < vectors {
            let v: [Vector; UNROLL as usize] =
                core::array::from_fn(|k| unsafe { load_global_v4(src_v.add((first + k as u64 * threads) as usize)) });
            for (k, &x) in v.iter().enumerate() {
                unsafe { store_global_v4(dst_v.add((first + k as u64 * threads) as usize), x) };
            }
        } else {
            for k in 0..UNROLL as u64 {
                let i = first + k * threads;
                if i < vectors {
                    unsafe { store_global_v4(dst_v.add(i as usize), load_global_v4(src_v.add(i as usize))) };
                }
            }
        }
        first += stride;
    }
    // The last `bytes % 16` bytes: at most 15, one per thread of the first block.
    let tail = vectors * VECTOR_BYTES + thread_x() as u64;
    if block_x() == 0 && tail < bytes {
        unsafe { global::write(dst.add(tail as usize), global::read(src.add(tail as usize))) };
    }
}
