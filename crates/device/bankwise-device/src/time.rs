//! Clocks: the SM's cycle counter and the GPU's nanosecond timer.

use core::arch::asm;

/// `clock64()` (PTX `%clock64`, SASS `CS2R .. SR_CLOCKLO`): the SM's cycle counter, counting at
/// the SM's current clock. Monotonic on one SM; counters of different SMs are unrelated.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    unsafe { asm!("mov.u64 {t}, %clock64;", t = out(reg64) t) }
    t
}

/// `%globaltimer` (CUDA C++ reads it with inline PTX too): nanoseconds of the GPU's global timer,
/// the same on every SM (unlike [`clock64`]). It advances in steps of up to a microsecond on
/// some GPUs, so time long intervals with it.
#[inline(always)]
pub fn global_timer() -> u64 {
    let t: u64;
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) }
    t
}
