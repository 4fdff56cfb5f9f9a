//! The transpose ladder's entries per element width, and their typed lookup ([`TransposeWord`]).

use bankwise_device::kernel;
use bankwise_kernels::transpose::{
    transpose_naive, transpose_padded, transpose_scalar, transpose_small, transpose_swizzled, transpose_tiled,
    transpose_unaligned, transpose_vectorized,
};
use bankwise_layout::transpose::{TileLayout, tuned as layout};

/// Bytes of `T`, as the layout functions take them.
const fn bytes<T>() -> u32 {
    core::mem::size_of::<T>() as u32
}

/// Instantiates a generic transpose for each element width, as `<kernel>_u8` … `<kernel>_u64`,
/// declaring the shared memory `$shared` (a constant of the element's bytes `$b`).
macro_rules! per_width {
    ($generic:ident, |$b:ident| $shared:expr; $($name:ident => $t:ty),+ $(,)?) => {$(
        /// # Safety
        /// `src` and `dst` must be valid, non-overlapping buffers of `batch * rows * cols`
        /// elements, and the launch must use the grid and block of
        /// `bankwise_layout::transpose`.
        #[kernel(shared = { let $b = bytes::<$t>(); $shared })]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { $generic::<$t>(dst, src, rows, cols, batch) }
        }
    )+};
}

per_width!(transpose_naive, |_b| 0;
    transpose_naive_u8 => u8, transpose_naive_u16 => u16,
    transpose_naive_u32 => u32, transpose_naive_u64 => u64);

per_width!(transpose_tiled, |b| TileLayout::Plain.tile_bytes(b);
    transpose_tiled_u8 => u8, transpose_tiled_u16 => u16,
    transpose_tiled_u32 => u32, transpose_tiled_u64 => u64);

per_width!(transpose_padded, |b| TileLayout::Padded.tile_bytes(b);
    transpose_padded_u8 => u8, transpose_padded_u16 => u16,
    transpose_padded_u32 => u32, transpose_padded_u64 => u64);

per_width!(transpose_swizzled, |b| TileLayout::Swizzled.tile_bytes(b);
    transpose_swizzled_u8 => u8, transpose_swizzled_u16 => u16,
    transpose_swizzled_u32 => u32, transpose_swizzled_u64 => u64);

/// Instantiates the vectorized tuned kernel `transpose_<t>` for a 1-, 2- or 4-byte element
/// type, with its vector size and vectors per thread.
macro_rules! tuned {
    ($($t:ty: $name:ident($v:literal, $n:literal)),+ $(,)?) => {$(
        /// # Safety
        /// As for the other transposes, and every row of `src` and `dst` 16-byte aligned.
        #[kernel(shared = layout::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $name(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { transpose_vectorized::<$t, $v, $n>(dst, src, rows, cols, batch) }
        }
    )+};
}

tuned!(u8: transpose_u8(16, 4), u16: transpose_u16(8, 8), u32: transpose_u32(4, 4));

/// # Safety
/// As for the other transposes.
#[kernel(shared = layout::scalar::tile_bytes(8))]
pub unsafe fn transpose_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { transpose_scalar::<u64>(dst, src, rows, cols, batch) }
}

/// # Safety
/// As for the other transposes; the launch takes one block of 32 × `32 / PER_THREAD` threads
/// per 32 × 32 tile (`bankwise_layout::transpose::tuned::small`).
#[kernel(shared = TileLayout::Padded.tile_bytes(8))]
pub unsafe fn transpose_small_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { transpose_small::<u64, false>(dst, src, rows, cols, batch) }
}

/// `transpose_small_u64` with every global load and store hinted cache-streaming
/// (`ld/st.global.cs`, SASS `LDG.E.EF`/`STG.E.EF`), for matrices up to
/// `tuned::small::STREAMING_UP_TO` elements.
///
/// # Safety
/// As for `transpose_small_u64`.
#[kernel(shared = TileLayout::Padded.tile_bytes(8))]
pub unsafe fn transpose_small_streaming_u64(dst: *mut u64, src: *const u64, rows: u64, cols: u64, batch: u64) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { transpose_small::<u64, true>(dst, src, rows, cols, batch) }
}

/// Instantiates `transpose_unaligned_<t>` (32-bit indices: launches of fewer than 2³²
/// elements) and `transpose_unaligned_large_<t>` (64-bit), for 2- and 4-byte elements. 1-byte
/// elements keep the swizzled ladder kernel: built this way, their eight rounds of held vectors
/// went to local memory (256 bytes of stack). 8-byte ones take `transpose_u64` at any shape
/// (measured on an H100 at 8191 × 8193: a 16-byte-vector version, 2219 GB/s, lost to its
/// scalar 8-byte accesses, which fill half a sector each).
/// `($v, $n, $e)`: elements per vector, rounds of loads and whole chunks, rounds of end elements
/// (`layout::unaligned`); beside each entry, the blocks per SM its launch bounds keep room for
/// (the 64-bit `u16` form takes 87 registers without bounds, 125 under its bounds of two
/// blocks: held to three or four, it spilled).
macro_rules! unaligned {
    ($($t:ty: $small:ident($blocks:literal), $large:ident($large_blocks:literal)($v:literal, $n:literal, $e:literal)),+ $(,)?) => {$(
        const _: () = assert!(
            $v == layout::vector(bytes::<$t>())
                && $n == layout::unaligned::rounds(bytes::<$t>())
                && $e == layout::unaligned::edge_rounds(bytes::<$t>())
        );
        /// # Safety
        /// As for the other transposes; `src` and `dst` start 16-byte aligned and hold fewer
        /// than 2³² elements.
        #[kernel(launch_bounds(layout::THREADS, $blocks), shared = layout::unaligned::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $small(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's, with 32-bit indices.
            unsafe { transpose_unaligned::<$t, u32, $v, $n, $e>(dst, src, rows, cols, batch) }
        }

        /// # Safety
        /// As for the other transposes; `src` and `dst` start 16-byte aligned.
        #[kernel(launch_bounds(layout::THREADS, $large_blocks), shared = layout::unaligned::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $large(dst: *mut $t, src: *const $t, rows: u64, cols: u64, batch: u64) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the
            // callee's.
            unsafe { transpose_unaligned::<$t, u64, $v, $n, $e>(dst, src, rows, cols, batch) }
        }
    )+};
}

unaligned!(
    u16: transpose_unaligned_u16(2), transpose_unaligned_large_u16(2)(8, 8, 4),
    u32: transpose_unaligned_u32(3), transpose_unaligned_large_u32(2)(4, 8, 1),
);

/// The parameters every transpose entry takes: `dst`, `src`, `rows`, `cols`, `batch`.
#[cfg(not(target_arch = "nvptx64"))]
pub type TransposeParams<T> = (*mut T, *const T, u64, u64, u64);

/// The element types the transposes are instantiated for (one per width), with each rung's
/// entry: the typed lookup the host's launchers use instead of names.
#[cfg(not(target_arch = "nvptx64"))]
pub trait TransposeWord: Copy + 'static {
    /// `transpose_naive_*`.
    const NAIVE: bankwise_device::KernelEntry<TransposeParams<Self>>;
    /// `transpose_tiled_*`.
    const TILED: bankwise_device::KernelEntry<TransposeParams<Self>>;
    /// `transpose_padded_*`.
    const PADDED: bankwise_device::KernelEntry<TransposeParams<Self>>;
    /// `transpose_swizzled_*`.
    const SWIZZLED: bankwise_device::KernelEntry<TransposeParams<Self>>;
    /// `transpose_*`, the tuned kernel.
    const TUNED: bankwise_device::KernelEntry<TransposeParams<Self>>;
    /// The tuned transpose of small matrices (`transpose_small_u64`; 8-byte elements only).
    const SMALL: Option<bankwise_device::KernelEntry<TransposeParams<Self>>> = None;
    /// [`Self::SMALL`] with cache-streaming accesses (`transpose_small_streaming_u64`).
    const SMALL_STREAMING: Option<bankwise_device::KernelEntry<TransposeParams<Self>>> = None;
    /// The tuned transpose of rows not all 16-byte aligned, for launches of fewer than 2³²
    /// elements (`transpose_unaligned_*`; 2- and 4-byte elements).
    const UNALIGNED: Option<bankwise_device::KernelEntry<TransposeParams<Self>>> = None;
    /// [`Self::UNALIGNED`] for any launch (`transpose_unaligned_large_*`).
    const UNALIGNED_LARGE: Option<bankwise_device::KernelEntry<TransposeParams<Self>>> = None;
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! transpose_words {
    ($($t:ty: $naive:ident, $tiled:ident, $padded:ident, $swizzled:ident, $tuned:ident $(, $extra:ident = $e:expr)*;)+) => {$(
        impl TransposeWord for $t {
            const NAIVE: bankwise_device::KernelEntry<TransposeParams<Self>> = $naive;
            const TILED: bankwise_device::KernelEntry<TransposeParams<Self>> = $tiled;
            const PADDED: bankwise_device::KernelEntry<TransposeParams<Self>> = $padded;
            const SWIZZLED: bankwise_device::KernelEntry<TransposeParams<Self>> = $swizzled;
            const TUNED: bankwise_device::KernelEntry<TransposeParams<Self>> = $tuned;
            $(const $extra: Option<bankwise_device::KernelEntry<TransposeParams<Self>>> = Some($e);)*
        }
    )+};
}

#[cfg(not(target_arch = "nvptx64"))]
transpose_words! {
    u8: transpose_naive_u8, transpose_tiled_u8, transpose_padded_u8, transpose_swizzled_u8, transpose_u8;
    u16: transpose_naive_u16, transpose_tiled_u16, transpose_padded_u16, transpose_swizzled_u16, transpose_u16,
        UNALIGNED = transpose_unaligned_u16, UNALIGNED_LARGE = transpose_unaligned_large_u16;
    u32: transpose_naive_u32, transpose_tiled_u32, transpose_padded_u32, transpose_swizzled_u32, transpose_u32,
        UNALIGNED = transpose_unaligned_u32, UNALIGNED_LARGE = transpose_unaligned_large_u32;
    u64: transpose_naive_u64, transpose_tiled_u64, transpose_padded_u64, transpose_swizzled_u64, transpose_u64,
        SMALL = transpose_small_u64, SMALL_STREAMING = transpose_small_streaming_u64;
}
