//! The axis reductions' entries (`reduce_rows_warp_*`, `reduce_rows_block_*`,
//! `reduce_columns_*`) for sum, min and max of every reducible type, and of `bf16` and `f16`
//! accumulating in `f32`; argmin and argmax of all eight (`reduce_rows_warp_argmax_f32`, …),
//! and the second pass of their split plans (`reduce_columns_arg_partials`, …).

use bankwise_kernels::arg_axes::{ArgMax, ArgMin};
use bankwise_kernels::half::{Bf16, F16};
use bankwise_kernels::reduce::{Max, Min, Sum};
use bankwise_kernels::{arg_axes_combine_entries, arg_axes_entries, reduce_axes_entries, reduce_axes_half_entries};

reduce_axes_entries!(SumAxes = sum: Sum; f32, f64, i32, u32, i64, u64);
reduce_axes_entries!(MinAxes = min: Min; f32, f64, i32, u32, i64, u64);
reduce_axes_entries!(MaxAxes = max: Max; f32, f64, i32, u32, i64, u64);
reduce_axes_half_entries!(SumAxes = sum: Sum; bf16: Bf16, f16: F16);
reduce_axes_half_entries!(MinAxes = min: Min; bf16: Bf16, f16: F16);
reduce_axes_half_entries!(MaxAxes = max: Max; bf16: Bf16, f16: F16);
arg_axes_entries!(ArgMinAxes = argmin: ArgMin; f32: f32, f64: f64, i32: i32, u32: u32, i64: i64, u64: u64, bf16: Bf16, f16: F16);
arg_axes_entries!(ArgMaxAxes = argmax: ArgMax; f32: f32, f64: f64, i32: i32, u32: u32, i64: i64, u64: u64, bf16: Bf16, f16: F16);
arg_axes_combine_entries!();

#[cfg(not(target_arch = "nvptx64"))]
pub use bankwise_kernels::arg_axes::{ARG_COLUMN_BLOCKS_PER_SM, ArgLadder, ArgParams};
pub use bankwise_kernels::half::{Bf16 as DeviceBf16, F16 as DeviceF16, Stored};
#[cfg(not(target_arch = "nvptx64"))]
pub use bankwise_kernels::reduce_axes::{
    AxesLadder, AxesLayout, AxesParams, COLUMN_LANES, COLUMN_ROWS, MAX_GROUPS, THREADS, column_blocks_per_sm,
};
