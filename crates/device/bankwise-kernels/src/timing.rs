//! `spin_wait`: holds the GPU busy while the host queues the runs it wants timed.
//!
//! Not a lesson in itself, but what makes the others' figures honest: a CUDA event recorded on
//! an idle stream fires at once, before the host has even submitted the launch that follows,
//! so an event pair around one launch also times the launch latency (about 4.4 µs on the H100,
//! 2.4% of a 180 µs copy and half of a 1024² one). Queued behind this kernel, a batch of runs
//! starts back to back, and each event pair times only the GPU's work.

use bankwise_device::time::global_timer;

/// Busy-waits until `ns` nanoseconds of the GPU's global timer have passed. Launch it with one
/// thread: the others would only spin beside it.
///
/// # Safety
/// Safe for any argument: it reads no memory. (`unsafe` only because every kernel entry is.)
#[inline(always)]
pub unsafe fn spin_wait(ns: u64) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < ns {}
}
