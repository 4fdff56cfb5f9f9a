//! Where a thread is: its indices in the block and the grid, its lane and warp, and the block
//! barriers (`__syncthreads` and its counting/voting forms).

#[cfg(not(target_arch = "nvptx64"))]
use bankwise_emu::lane::{self as emu, Barrier};
#[cfg(target_arch = "nvptx64")]
use core::arch::{asm, nvptx};

/// `threadIdx.x` (PTX `%tid.x`).
#[inline(always)]
pub fn thread_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_thread_idx_x() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::thread_idx().x;
}
/// `threadIdx.y` (PTX `%tid.y`).
#[inline(always)]
pub fn thread_y() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_thread_idx_y() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::thread_idx().y;
}
/// `threadIdx.z` (PTX `%tid.z`).
#[inline(always)]
pub fn thread_z() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_thread_idx_z() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::thread_idx().z;
}
/// `blockIdx.x` (PTX `%ctaid.x`).
#[inline(always)]
pub fn block_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_idx_x() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_idx().x;
}
/// `blockIdx.y` (PTX `%ctaid.y`).
#[inline(always)]
pub fn block_y() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_idx_y() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_idx().y;
}
/// `blockIdx.z` (PTX `%ctaid.z`).
#[inline(always)]
pub fn block_z() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_idx_z() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_idx().z;
}
/// `blockDim.x` (PTX `%ntid.x`).
#[inline(always)]
pub fn block_dim_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_dim_x() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_dim().x;
}
/// `blockDim.y` (PTX `%ntid.y`).
#[inline(always)]
pub fn block_dim_y() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_dim_y() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_dim().y;
}
/// `blockDim.z` (PTX `%ntid.z`).
#[inline(always)]
pub fn block_dim_z() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_block_dim_z() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::block_dim().z;
}
/// `gridDim.x` (PTX `%nctaid.x`).
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_grid_dim_x() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::grid_dim().x;
}
/// `gridDim.y` (PTX `%nctaid.y`).
#[inline(always)]
pub fn grid_dim_y() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_grid_dim_y() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::grid_dim().y;
}
/// `gridDim.z` (PTX `%nctaid.z`).
#[inline(always)]
pub fn grid_dim_z() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    return unsafe { nvptx::_grid_dim_z() };
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::grid_dim().z;
}

/// The thread's index within its block, linearised x fastest:
/// `threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)`. Warps are formed from
/// consecutive linear indices.
#[inline(always)]
pub fn thread_linear() -> u32 {
    thread_x() + block_dim_x() * (thread_y() + block_dim_y() * thread_z())
}

/// The thread's lane in its warp, 0..32: CUDA C++ `threadIdx.x % warpSize` for 1-D blocks
/// (`thread_linear() % 32` in general); PTX `%laneid`.
#[inline(always)]
pub fn lane_id() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let lane: u32;
        unsafe { asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(pure, nomem, nostack, preserves_flags)) };
        lane
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::lane_id();
}

/// The warp's index within its block, `thread_linear() / 32` (CUDA C++ `threadIdx.x / warpSize`
/// for 1-D blocks). Not PTX `%warpid`, which names the hardware slot the warp happens to occupy
/// and may change while it runs.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_linear() / 32
}

/// The global index of a 1-D launch, `blockIdx.x * blockDim.x + threadIdx.x`, in 64 bits so
/// that it cannot overflow for any grid.
#[inline(always)]
pub fn index_1d() -> u64 {
    block_x() as u64 * block_dim_x() as u64 + thread_x() as u64
}

/// The global `(x, y)` index of a 2-D launch: `(blockIdx.x * blockDim.x + threadIdx.x,
/// blockIdx.y * blockDim.y + threadIdx.y)`, in 64 bits. `x` is the fastest-varying (the column
/// of a row-major matrix).
#[inline(always)]
pub fn index_2d() -> (u64, u64) {
    (index_1d(), block_y() as u64 * block_dim_y() as u64 + thread_y() as u64)
}

/// `__syncthreads()` (PTX `bar.sync 0`, SASS `BAR.SYNC`): every thread of the block reaches it
/// before any continues, and the block's memory accesses before it happen before those after
/// it. Every thread of the block must reach the same barrier (not one in each arm of a
/// divergent branch), or the block hangs.
#[inline(always)]
#[track_caller]
pub fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvptx::_syncthreads()
    };
    #[cfg(not(target_arch = "nvptx64"))]
    emu::barrier(Barrier::Sync, false);
}

/// `__syncthreads_count(predicate)` (PTX `bar.red.popc.u32`): a [`sync_threads`] that also
/// returns, to every thread, how many threads of the block passed a true `predicate`.
#[inline(always)]
#[track_caller]
pub fn sync_threads_count(predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let count: u32;
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {v}, 0; bar.red.popc.u32 {c}, 0, p; }}",
                v = in(reg32) predicate as u32, c = out(reg32) count, options(nostack))
        };
        count
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::barrier(Barrier::Count, predicate);
}

/// `__syncthreads_and(predicate)` (PTX `bar.red.and.pred`): a [`sync_threads`] that returns
/// whether `predicate` was true in every thread of the block. Unlike a plain barrier it cannot
/// complete before every thread has computed its predicate, so the loads that the predicate
/// depends on are done by then (the bank-conflict probes start their clocks after one).
#[inline(always)]
#[track_caller]
pub fn sync_threads_and(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let all: u32;
        unsafe {
            asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; bar.red.and.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
                v = in(reg32) predicate as u32, r = out(reg32) all, options(nostack))
        };
        all != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::barrier(Barrier::And, predicate) != 0;
}

/// `__syncthreads_or(predicate)` (PTX `bar.red.or.pred`): a [`sync_threads`] that returns
/// whether `predicate` was true in any thread of the block.
#[inline(always)]
#[track_caller]
pub fn sync_threads_or(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let any: u32;
        unsafe {
            asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; bar.red.or.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
                v = in(reg32) predicate as u32, r = out(reg32) any, options(nostack))
        };
        any != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::barrier(Barrier::Or, predicate) != 0;
}
