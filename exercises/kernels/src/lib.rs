//! bankwise's exercises: one kernel file each, to fix or complete. `cargo xtask exercise`
//! checks them in order, on the CPU emulator (and on a GPU where there is one), and says what
//! is still wrong: the answer, or the property the exercise teaches (coalescing, bank
//! conflicts, races, divergence). The guide (`guide/`) has a chapter for each group.
//!
//! Each file says what to do at its top. Edit `src/eNN_*.rs` only; `solutions/` has a
//! reference answer for each (built instead with the `solutions` feature), for after you have
//! tried.
#![no_std]
// The exercises are unfinished on purpose: unused imports and parameters and `todo!()`s are expected.
#![allow(unused_imports, unused_variables, unused_mut, unreachable_code, clippy::diverging_sub_expression)]

// With the `solutions` feature each module comes from `solutions/` under the same name.
#[cfg_attr(feature = "solutions", path = "../solutions/e01_vector_add.rs")]
pub mod e01_vector_add;
#[cfg_attr(feature = "solutions", path = "../solutions/e02_bounds.rs")]
pub mod e02_bounds;
#[cfg_attr(feature = "solutions", path = "../solutions/e03_grid_stride.rs")]
pub mod e03_grid_stride;
#[cfg_attr(feature = "solutions", path = "../solutions/e04_coalesced_copy.rs")]
pub mod e04_coalesced_copy;
#[cfg_attr(feature = "solutions", path = "../solutions/e05_reverse_block.rs")]
pub mod e05_reverse_block;
#[cfg_attr(feature = "solutions", path = "../solutions/e06_histogram.rs")]
pub mod e06_histogram;
#[cfg_attr(feature = "solutions", path = "../solutions/e07_row_stride.rs")]
pub mod e07_row_stride;
#[cfg_attr(feature = "solutions", path = "../solutions/e08_vector_reads.rs")]
pub mod e08_vector_reads;
#[cfg_attr(feature = "solutions", path = "../solutions/e09_transpose_padded.rs")]
pub mod e09_transpose_padded;
#[cfg_attr(feature = "solutions", path = "../solutions/e10_transpose_swizzled.rs")]
pub mod e10_transpose_swizzled;
#[cfg_attr(feature = "solutions", path = "../solutions/e11_divergent_sum.rs")]
pub mod e11_divergent_sum;
#[cfg_attr(feature = "solutions", path = "../solutions/e12_conflicted_sum.rs")]
pub mod e12_conflicted_sum;
#[cfg_attr(feature = "solutions", path = "../solutions/e13_warp_sum.rs")]
pub mod e13_warp_sum;
#[cfg_attr(feature = "solutions", path = "../solutions/e14_tiled_matmul.rs")]
pub mod e14_tiled_matmul;
#[cfg_attr(feature = "solutions", path = "../solutions/e15_warp_scan.rs")]
pub mod e15_warp_scan;
#[cfg_attr(feature = "solutions", path = "../solutions/e16_block_scan.rs")]
pub mod e16_block_scan;
#[cfg_attr(feature = "solutions", path = "../solutions/e17_convolution.rs")]
pub mod e17_convolution;
#[cfg_attr(feature = "solutions", path = "../solutions/e18_stencil.rs")]
pub mod e18_stencil;
#[cfg_attr(feature = "solutions", path = "../solutions/e19_private_histogram.rs")]
pub mod e19_private_histogram;
#[cfg_attr(feature = "solutions", path = "../solutions/e20_transpose_wide.rs")]
pub mod e20_transpose_wide;

// Common mistakes, for the checks' tests (not an exercise).
#[doc(hidden)]
#[path = "../mistakes/mod.rs"]
pub mod mistakes;
