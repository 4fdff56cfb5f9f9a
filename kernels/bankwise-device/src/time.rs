//! Clocks: the SM's cycle counter and the GPU's nanosecond timer. On the CPU emulator both
//! count nanoseconds since the launch began (monotonic, but not cycles).

use crate::backend;

/// `clock64()` (PTX `%clock64`, SASS `CS2R .. SR_CLOCKLO`): the SM's cycle counter, counting at
/// the SM's current clock. Monotonic on one SM; counters of different SMs are unrelated.
#[inline(always)]
#[track_caller]
pub fn clock64() -> u64 {
    backend::clock64()
}

/// `%globaltimer` (CUDA C++ reads it with inline PTX too): nanoseconds of the GPU's global timer,
/// the same on every SM (unlike [`clock64`]). It advances in steps of up to a microsecond on
/// some GPUs, so time long intervals with it.
#[inline(always)]
#[track_caller]
pub fn global_timer() -> u64 {
    backend::globaltimer()
}
