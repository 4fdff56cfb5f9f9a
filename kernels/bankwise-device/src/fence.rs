//! Memory fences: order this thread's memory accesses as other threads observe them.
//!
//! A fence orders; it does not wait for other threads. The usual use is publishing: write the
//! data, fence, then set a flag (with an atomic); the reader sees the flag, fences, then reads
//! the data. The scope is the set of threads the ordering is guaranteed to: the block, the
//! device, or the whole system (the host and other GPUs, through mapped memory). On the CPU
//! emulator each is a sequentially consistent fence of the host.

use crate::backend;

/// `__threadfence_block()` (PTX `membar.cta`): this thread's accesses before it are observed
/// before those after it by every thread of its block.
#[inline(always)]
pub fn fence_block() {
    backend::membar_cta();
}

/// `__threadfence()` (PTX `membar.gl`, the `fence.sc.gpu` of sm_70 on): this thread's accesses
/// before it are observed before those after it by every thread of the device.
#[inline(always)]
pub fn fence_device() {
    backend::membar_gl();
}

/// `__threadfence_system()` (PTX `membar.sys`): as [`fence_device`], for every observer in the
/// system: the host and peer GPUs too, through mapped or peer memory.
#[inline(always)]
pub fn fence_system() {
    backend::membar_sys();
}
