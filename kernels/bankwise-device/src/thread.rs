//! Where a thread is: its indices in the block and the grid, its lane and warp, and the block
//! barriers (`__syncthreads` and its counting/voting forms).

use crate::backend;

/// `threadIdx.x` (PTX `%tid.x`).
#[inline(always)]
pub fn thread_x() -> u32 {
    backend::tid_x()
}
/// `threadIdx.y` (PTX `%tid.y`).
#[inline(always)]
pub fn thread_y() -> u32 {
    backend::tid_y()
}
/// `threadIdx.z` (PTX `%tid.z`).
#[inline(always)]
pub fn thread_z() -> u32 {
    backend::tid_z()
}
/// `blockIdx.x` (PTX `%ctaid.x`).
#[inline(always)]
pub fn block_x() -> u32 {
    backend::ctaid_x()
}
/// `blockIdx.y` (PTX `%ctaid.y`).
#[inline(always)]
pub fn block_y() -> u32 {
    backend::ctaid_y()
}
/// `blockIdx.z` (PTX `%ctaid.z`).
#[inline(always)]
pub fn block_z() -> u32 {
    backend::ctaid_z()
}
/// `blockDim.x` (PTX `%ntid.x`).
#[inline(always)]
pub fn block_dim_x() -> u32 {
    backend::ntid_x()
}
/// `blockDim.y` (PTX `%ntid.y`).
#[inline(always)]
pub fn block_dim_y() -> u32 {
    backend::ntid_y()
}
/// `blockDim.z` (PTX `%ntid.z`).
#[inline(always)]
pub fn block_dim_z() -> u32 {
    backend::ntid_z()
}
/// `gridDim.x` (PTX `%nctaid.x`).
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    backend::nctaid_x()
}
/// `gridDim.y` (PTX `%nctaid.y`).
#[inline(always)]
pub fn grid_dim_y() -> u32 {
    backend::nctaid_y()
}
/// `gridDim.z` (PTX `%nctaid.z`).
#[inline(always)]
pub fn grid_dim_z() -> u32 {
    backend::nctaid_z()
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
    backend::laneid()
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
    backend::bar_sync();
}

/// `__syncthreads_count(predicate)` (PTX `bar.red.popc.u32`): a [`sync_threads`] that also
/// returns, to every thread, how many threads of the block passed a true `predicate`.
#[inline(always)]
#[track_caller]
pub fn sync_threads_count(predicate: bool) -> u32 {
    backend::bar_red_popc(predicate)
}

/// `__syncthreads_and(predicate)` (PTX `bar.red.and.pred`): a [`sync_threads`] that returns
/// whether `predicate` was true in every thread of the block. Unlike a plain barrier it cannot
/// complete before every thread has computed its predicate, so the loads that the predicate
/// depends on are done by then (the bank-conflict probes start their clocks after one).
#[inline(always)]
#[track_caller]
pub fn sync_threads_and(predicate: bool) -> bool {
    backend::bar_red_and(predicate)
}

/// `__syncthreads_or(predicate)` (PTX `bar.red.or.pred`): a [`sync_threads`] that returns
/// whether `predicate` was true in any thread of the block.
#[inline(always)]
#[track_caller]
pub fn sync_threads_or(predicate: bool) -> bool {
    backend::bar_red_or(predicate)
}
