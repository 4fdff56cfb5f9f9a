//! The embedded PTX module and the names of the kernels the host launches.

/// bankwise's kernels as one PTX module for `sm_70` and later, built by `host/build.rs` from
/// the `kernels/` crate with rustc's `nvptx64-nvidia-cuda` backend.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise-builtin.ptx"));

/// `copy_bytes`: the bandwidth baseline.
pub const COPY_BYTES: &str = "copy_bytes";
/// `transpose_naive_*`, indexed by [`crate::Width`] (1, 2, 4, 8 bytes).
pub const TRANSPOSE_NAIVE: [&str; 4] =
    ["transpose_naive_u8", "transpose_naive_u16", "transpose_naive_u32", "transpose_naive_u64"];

/// `transpose_tiled_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_TILED: [&str; 4] =
    ["transpose_tiled_u8", "transpose_tiled_u16", "transpose_tiled_u32", "transpose_tiled_u64"];
/// `transpose_padded_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_PADDED: [&str; 4] =
    ["transpose_padded_u8", "transpose_padded_u16", "transpose_padded_u32", "transpose_padded_u64"];
/// `transpose_swizzled_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_SWIZZLED: [&str; 4] =
    ["transpose_swizzled_u8", "transpose_swizzled_u16", "transpose_swizzled_u32", "transpose_swizzled_u64"];

/// `transpose_*`, the tuned transpose, indexed by [`crate::Width`]: 16-byte vectors for 1-, 2-
/// and 4-byte elements of aligned shapes, scalar accesses through a tall tile for 8-byte ones.
pub const TRANSPOSE_TUNED: [&str; 4] = ["transpose_u8", "transpose_u16", "transpose_u32", "transpose_u64"];

/// `transpose_unaligned_u32`: the tuned transpose of 4-byte elements whose rows are not all
/// 16-byte aligned.
pub const TRANSPOSE_UNALIGNED_U32: &str = "transpose_unaligned_u32";
/// The tuned transpose of small 8-byte matrices whose rows start on a 32-byte sector.
pub const TRANSPOSE_SMALL_U64: &str = "transpose_small_u64";
/// [`TRANSPOSE_SMALL_U64`] with cache-streaming loads and stores, for the smallest of them.
pub const TRANSPOSE_SMALL_STREAMING_U64: &str = "transpose_small_streaming_u64";
/// `spin_wait`: holds the GPU while the host queues timed runs (see [`crate::timing`]).
pub const SPIN_WAIT: &str = "spin_wait";
/// `probe_load_*`, indexed by access width (1, 2, 4, 8, 16 bytes): see [`crate::probe`].
pub const PROBE_LOAD: [&str; 5] =
    ["probe_load_u8", "probe_load_u16", "probe_load_u32", "probe_load_u64", "probe_load_u128"];
/// `probe_store_*`, indexed like [`PROBE_LOAD`].
pub const PROBE_STORE: [&str; 5] =
    ["probe_store_u8", "probe_store_u16", "probe_store_u32", "probe_store_u64", "probe_store_u128"];

/// Every kernel entry the host uses. [`crate::Gpu::new`] loads each one and fails if any is
/// missing; a CPU test checks each is an `.entry` of [`PTX`].
pub const ALL: &[&str] = &[
    COPY_BYTES,
    TRANSPOSE_NAIVE[0],
    TRANSPOSE_NAIVE[1],
    TRANSPOSE_NAIVE[2],
    TRANSPOSE_NAIVE[3],
    TRANSPOSE_TILED[0],
    TRANSPOSE_TILED[1],
    TRANSPOSE_TILED[2],
    TRANSPOSE_TILED[3],
    TRANSPOSE_PADDED[0],
    TRANSPOSE_PADDED[1],
    TRANSPOSE_PADDED[2],
    TRANSPOSE_PADDED[3],
    TRANSPOSE_SWIZZLED[0],
    TRANSPOSE_SWIZZLED[1],
    TRANSPOSE_SWIZZLED[2],
    TRANSPOSE_SWIZZLED[3],
    TRANSPOSE_TUNED[0],
    TRANSPOSE_TUNED[1],
    TRANSPOSE_TUNED[2],
    TRANSPOSE_TUNED[3],
    TRANSPOSE_UNALIGNED_U32,
    TRANSPOSE_SMALL_U64,
    TRANSPOSE_SMALL_STREAMING_U64,
    SPIN_WAIT,
    PROBE_LOAD[0],
    PROBE_LOAD[1],
    PROBE_LOAD[2],
    PROBE_LOAD[3],
    PROBE_LOAD[4],
    PROBE_STORE[0],
    PROBE_STORE[1],
    PROBE_STORE[2],
    PROBE_STORE[3],
    PROBE_STORE[4],
    // The reduction ladder: `reduce_<rung>_<op>_<type>`, the tuned kernel `reduce_<op>_<type>`.
    "reduce_atomic_sum_f32",
    "reduce_atomic_sum_f64",
    "reduce_atomic_sum_i32",
    "reduce_atomic_sum_u32",
    "reduce_atomic_sum_i64",
    "reduce_atomic_sum_u64",
    "reduce_atomic_min_f32",
    "reduce_atomic_min_f64",
    "reduce_atomic_min_i32",
    "reduce_atomic_min_u32",
    "reduce_atomic_min_i64",
    "reduce_atomic_min_u64",
    "reduce_atomic_max_f32",
    "reduce_atomic_max_f64",
    "reduce_atomic_max_i32",
    "reduce_atomic_max_u32",
    "reduce_atomic_max_i64",
    "reduce_atomic_max_u64",
    "reduce_interleaved_divergent_sum_f32",
    "reduce_interleaved_divergent_sum_f64",
    "reduce_interleaved_divergent_sum_i32",
    "reduce_interleaved_divergent_sum_u32",
    "reduce_interleaved_divergent_sum_i64",
    "reduce_interleaved_divergent_sum_u64",
    "reduce_interleaved_divergent_min_f32",
    "reduce_interleaved_divergent_min_f64",
    "reduce_interleaved_divergent_min_i32",
    "reduce_interleaved_divergent_min_u32",
    "reduce_interleaved_divergent_min_i64",
    "reduce_interleaved_divergent_min_u64",
    "reduce_interleaved_divergent_max_f32",
    "reduce_interleaved_divergent_max_f64",
    "reduce_interleaved_divergent_max_i32",
    "reduce_interleaved_divergent_max_u32",
    "reduce_interleaved_divergent_max_i64",
    "reduce_interleaved_divergent_max_u64",
    "reduce_interleaved_strided_sum_f32",
    "reduce_interleaved_strided_sum_f64",
    "reduce_interleaved_strided_sum_i32",
    "reduce_interleaved_strided_sum_u32",
    "reduce_interleaved_strided_sum_i64",
    "reduce_interleaved_strided_sum_u64",
    "reduce_interleaved_strided_min_f32",
    "reduce_interleaved_strided_min_f64",
    "reduce_interleaved_strided_min_i32",
    "reduce_interleaved_strided_min_u32",
    "reduce_interleaved_strided_min_i64",
    "reduce_interleaved_strided_min_u64",
    "reduce_interleaved_strided_max_f32",
    "reduce_interleaved_strided_max_f64",
    "reduce_interleaved_strided_max_i32",
    "reduce_interleaved_strided_max_u32",
    "reduce_interleaved_strided_max_i64",
    "reduce_interleaved_strided_max_u64",
    "reduce_sequential_sum_f32",
    "reduce_sequential_sum_f64",
    "reduce_sequential_sum_i32",
    "reduce_sequential_sum_u32",
    "reduce_sequential_sum_i64",
    "reduce_sequential_sum_u64",
    "reduce_sequential_min_f32",
    "reduce_sequential_min_f64",
    "reduce_sequential_min_i32",
    "reduce_sequential_min_u32",
    "reduce_sequential_min_i64",
    "reduce_sequential_min_u64",
    "reduce_sequential_max_f32",
    "reduce_sequential_max_f64",
    "reduce_sequential_max_i32",
    "reduce_sequential_max_u32",
    "reduce_sequential_max_i64",
    "reduce_sequential_max_u64",
    "reduce_first_add_sum_f32",
    "reduce_first_add_sum_f64",
    "reduce_first_add_sum_i32",
    "reduce_first_add_sum_u32",
    "reduce_first_add_sum_i64",
    "reduce_first_add_sum_u64",
    "reduce_first_add_min_f32",
    "reduce_first_add_min_f64",
    "reduce_first_add_min_i32",
    "reduce_first_add_min_u32",
    "reduce_first_add_min_i64",
    "reduce_first_add_min_u64",
    "reduce_first_add_max_f32",
    "reduce_first_add_max_f64",
    "reduce_first_add_max_i32",
    "reduce_first_add_max_u32",
    "reduce_first_add_max_i64",
    "reduce_first_add_max_u64",
    "reduce_unrolled_warp_sum_f32",
    "reduce_unrolled_warp_sum_f64",
    "reduce_unrolled_warp_sum_i32",
    "reduce_unrolled_warp_sum_u32",
    "reduce_unrolled_warp_sum_i64",
    "reduce_unrolled_warp_sum_u64",
    "reduce_unrolled_warp_min_f32",
    "reduce_unrolled_warp_min_f64",
    "reduce_unrolled_warp_min_i32",
    "reduce_unrolled_warp_min_u32",
    "reduce_unrolled_warp_min_i64",
    "reduce_unrolled_warp_min_u64",
    "reduce_unrolled_warp_max_f32",
    "reduce_unrolled_warp_max_f64",
    "reduce_unrolled_warp_max_i32",
    "reduce_unrolled_warp_max_u32",
    "reduce_unrolled_warp_max_i64",
    "reduce_unrolled_warp_max_u64",
    "reduce_shuffle_sum_f32",
    "reduce_shuffle_sum_f64",
    "reduce_shuffle_sum_i32",
    "reduce_shuffle_sum_u32",
    "reduce_shuffle_sum_i64",
    "reduce_shuffle_sum_u64",
    "reduce_shuffle_min_f32",
    "reduce_shuffle_min_f64",
    "reduce_shuffle_min_i32",
    "reduce_shuffle_min_u32",
    "reduce_shuffle_min_i64",
    "reduce_shuffle_min_u64",
    "reduce_shuffle_max_f32",
    "reduce_shuffle_max_f64",
    "reduce_shuffle_max_i32",
    "reduce_shuffle_max_u32",
    "reduce_shuffle_max_i64",
    "reduce_shuffle_max_u64",
    "reduce_sum_f32",
    "reduce_sum_f64",
    "reduce_sum_i32",
    "reduce_sum_u32",
    "reduce_sum_i64",
    "reduce_sum_u64",
    "reduce_min_f32",
    "reduce_min_f64",
    "reduce_min_i32",
    "reduce_min_u32",
    "reduce_min_i64",
    "reduce_min_u64",
    "reduce_max_f32",
    "reduce_max_f64",
    "reduce_max_i32",
    "reduce_max_u32",
    "reduce_max_i64",
    "reduce_max_u64",
];

/// The `.entry` names defined in `ptx`.
pub fn entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.split(['(', ' ']).next().unwrap_or(""))
        .collect()
}
