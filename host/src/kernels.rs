//! The embedded PTX module and the names of the kernels the host launches.

/// bankwise's kernels as one PTX module for `sm_70` and later, built by `host/build.rs` from
/// the `kernels/` crate with rustc's `nvptx64-nvidia-cuda` backend.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise_kernels.ptx"));

/// `copy_bytes`: the bandwidth baseline.
pub const COPY_BYTES: &str = "copy_bytes";
/// `transpose_naive_*`, indexed by [`crate::Width`] (1, 2, 4, 8 bytes).
pub const TRANSPOSE_NAIVE: [&str; 4] =
    ["transpose_naive_u8", "transpose_naive_u16", "transpose_naive_u32", "transpose_naive_u64"];

/// Every kernel entry the host uses. [`crate::Gpu::new`] loads each one and fails if any is
/// missing; a CPU test checks each is an `.entry` of [`PTX`].
pub const ALL: &[&str] = &[COPY_BYTES, TRANSPOSE_NAIVE[0], TRANSPOSE_NAIVE[1], TRANSPOSE_NAIVE[2], TRANSPOSE_NAIVE[3]];

/// The `.entry` names defined in `ptx`.
pub fn entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.split(['(', ' ']).next().unwrap_or(""))
        .collect()
}
