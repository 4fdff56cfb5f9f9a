//! Clocks: the SM's cycle counter and the GPU's nanosecond timer. On the CPU emulator both
//! count nanoseconds since the launch began (monotonic, but not cycles).

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// `clock64()` (PTX `%clock64`, SASS `CS2R .. SR_CLOCKLO`): the SM's cycle counter, counting at
/// the SM's current clock. Monotonic on one SM; counters of different SMs are unrelated.
#[inline(always)]
#[track_caller]
pub fn clock64() -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let t: u64;
        unsafe { asm!("mov.u64 {t}, %clock64;", t = out(reg64) t) }
        t
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return bankwise_emu::lane::clock();
}

/// `%globaltimer` (CUDA C++ reads it with inline PTX too): nanoseconds of the GPU's global timer,
/// the same on every SM (unlike [`clock64`]). It advances in steps of up to a microsecond on
/// some GPUs, so time long intervals with it.
#[inline(always)]
#[track_caller]
pub fn global_timer() -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let t: u64;
        unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) }
        t
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return bankwise_emu::lane::global_timer();
}
