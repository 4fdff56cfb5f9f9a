//! The PTX of `kernels/bankwise-primitives`, built by this crate's build script, for the
//! GPU tests in `tests/gpu.rs` (each entry launched and checked against its primitive's
//! definition) and the ptxas/SASS checks in `tests/ptx.rs`.

/// The primitives module: PTX for sm_70, one `.entry` per primitive or group.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise-primitives.ptx"));

/// Its entries manifest (`name(ptr, u32, …)` per line), for checked launches.
pub const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise-primitives.entries"));
