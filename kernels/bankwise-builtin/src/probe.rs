//! The bank-conflict probes' entries, per access width and direction (`bankwise probe`).

use bankwise_device::kernel;
use bankwise_kernels::probe::{B1, B2, B4, B8, B16, probe};

/// Instantiates the probe per width and direction as `probe_load_u8` … `probe_store_u128`.
macro_rules! probes {
    ($($name:ident => $w:ty, $store:literal);+ $(;)?) => {$(
        /// # Safety
        /// `offsets` holds 32 offsets, each aligned to the width and inside the launch's
        /// `shared_bytes` of dynamic shared memory; `cycles` holds one `u64` per warp and `sums`
        /// one `u32` per thread (`bankwise::probe::plan` checks all of it).
        #[kernel]
        pub unsafe fn $name(
            cycles: *mut u64, sums: *mut u32, offsets: *const u32,
            mask: u32, iterations: u32, shared_bytes: u32, flags: u32,
        ) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { probe::<$w, $store>(cycles, sums, offsets, mask, iterations, shared_bytes, flags) }
        }
    )+};
}

probes!(
    probe_load_u8 => B1, false; probe_load_u16 => B2, false; probe_load_u32 => B4, false;
    probe_load_u64 => B8, false; probe_load_u128 => B16, false;
    probe_store_u8 => B1, true; probe_store_u16 => B2, true; probe_store_u32 => B4, true;
    probe_store_u64 => B8, true; probe_store_u128 => B16, true;
);
