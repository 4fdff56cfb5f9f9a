use bankwise_device::kernel;
use bankwise_kernels::transpose::{
    transpose_naive, transpose_padded, transpose_scalar, transpose_small, transpose_swizzled, transpose_tiled,
    transpose_unaligned, transpose_vectorized,
};

/// Instantiates a generic transpose for each element width, as `<kernel>_u8` … `<kernel>_u64`.
macro_rules! per_width {
    ($generic:ident: $($name:ident => $t:ty),+ $(,)?) => {$(
        /// # Safety
        /// `src` and `dst` must be valid, non-overlapping buffers of `batch * rows * cols`
        /// elements, and the launch must use the grid and block of
        /// `bankwise_layout::transpose`.
        #[kernel]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            unsafe { $generic::<$t>(dst, src, rows, cols, batch) }
        }
    )+};
}

per_width!(transpose_naive:
    transpose_naive_u8 => u8, transpose_naive_u16 => u16,
    transpose_naive_u32 => u32, transpose_naive_u64 => u64);

per_width!(transpose_tiled:
    transpose_tiled_u8 => u8, transpose_tiled_u16 => u16,
    transpose_tiled_u32 => u32, transpose_tiled_u64 => u64);

per_width!(transpose_padded:
    transpose_padded_u8 => u8, transpose_padded_u16 => u16,
    transpose_padded_u32 => u32, transpose_padded_u64 => u64);

per_width!(transpose_swizzled:
    transpose_swizzled_u8 => u8, transpose_swizzled_u16 => u16,
    transpose_swizzled_u32 => u32, transpose_swizzled_u64 => u64);

/// Instantiates the vectorized tuned kernel `transpose_<t>` for a 1-, 2- or 4-byte element
/// type, with its vector size and vectors per thread.
macro_rules! tuned {
    ($($t:ty: $name:ident($v:literal, $n:literal)),+ $(,)?) => {$(
        /// # Safety
        /// As for the other transposes, and every row of `src` and `dst` 16-byte aligned.
        #[kernel]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            unsafe { transpose_vectorized::<$t, $v, $n>(dst, src, rows, cols, batch) }
        }
    )+};
}

tuned!(u8: transpose_u8(16, 4), u16: transpose_u16(8, 8), u32: transpose_u32(4, 4));

/// # Safety
/// As for the other transposes.
#[kernel]
pub unsafe fn transpose_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_scalar::<u64>(dst, src, rows, cols, batch) }
}

/// # Safety
/// As for the other transposes; the launch takes one block of 32 × `32 / PER_THREAD` threads
/// per 32 × 32 tile (`bankwise_layout::transpose::tuned::small`).
#[kernel]
pub unsafe fn transpose_small_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_small::<u64, false>(dst, src, rows, cols, batch) }
}

/// `transpose_small_u64` with every global load and store hinted cache-streaming
/// (`ld/st.global.cs`, SASS `LDG.E.EF`/`STG.E.EF`), for matrices up to
/// `tuned::small::STREAMING_UP_TO` elements.
///
/// # Safety
/// As for `transpose_small_u64`.
#[kernel]
pub unsafe fn transpose_small_streaming_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    unsafe { transpose_small::<u64, true>(dst, src, rows, cols, batch) }
}

/// Instantiates `transpose_unaligned_<t>`. Only for 4-byte elements: measured on an H100 at
/// 8191 × 8193, the 8-byte version (2219 GB/s) lost to scalar 8-byte accesses (now
/// `transpose_u64`), which already fill half a sector each; and for 1- and 2-byte elements
/// the per-element staging of 16 or 8 elements per vector costs more than it saves.
macro_rules! unaligned {
    ($($t:ty: $name:ident($v:literal, $l:literal, $s:literal)),+ $(,)?) => {$(
        /// # Safety
        /// As for the other transposes; `src` and `dst` start 16-byte aligned.
        #[kernel]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            unsafe { transpose_unaligned::<$t, $v, $l, $s>(dst, src, rows, cols, batch) }
        }
    )+};
}

unaligned!(u32: transpose_unaligned_u32(4, 5, 5));
