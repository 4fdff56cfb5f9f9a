//! The N-d permutation's entries per element width, and their typed lookup ([`PermuteWord`]).

use bankwise_device::kernel;
/// The parameters and limits of the entries below, for their launchers.
pub use bankwise_kernels::permute::{
    Batch, FastDiv, Group, MAX_BATCH, MAX_GROUP, MAX_RANK, ROWS_THREADS, Rows, SKINNY_BYTES_PER_THREAD,
    SKINNY_MAX_NARROW, Skinny, Tiled, flat_pitch, flat_shared_bytes, skinny_per_thread,
};
use bankwise_kernels::permute::{
    permute_rows, permute_rows_vectors, permute_skinny, permute_tiled_flat, permute_tiled_flat_vectors,
    permute_tiled_unaligned, permute_tiled_vectorized,
};
use bankwise_layout::transpose::tuned as layout;

/// Bytes of `T`, as the layout functions take them.
const fn bytes<T>() -> u32 {
    core::mem::size_of::<T>() as u32
}

/// Instantiates the permutation kernels for each element width: `permute_tiled_<t>` (16-byte
/// vectors, `V` elements each, `N` per thread), `permute_tiled_flat_<t>` (`K` elements per
/// thread, tiles of `256 · K` elements, with the shared memory the launch gives) and
/// `permute_rows_<t>`.
macro_rules! per_width {
    ($($t:ty: $tiled:ident($v:literal, $n:literal), $scalar:ident($k:literal), $large:ident, $rows:ident;)+) => {$(
        /// # Safety
        /// As `bankwise_kernels::permute::permute_tiled_vectorized`.
        #[kernel(shared = layout::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $tiled(dst: *mut $t, src: *const $t, p: Tiled) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_tiled_vectorized::<$t, $v, $n>(dst, src, &p) }
        }

        /// # Safety
        /// As `bankwise_kernels::permute::permute_tiled_flat`, for tensors of fewer than 2³²
        /// elements.
        // Held to 64 registers (4 blocks an SM): the column table's store loop took 70 or 71
        // otherwise, 3 blocks.
        #[kernel(launch_bounds(layout::THREADS, 4))]
        pub unsafe fn $scalar(dst: *mut $t, src: *const $t, p: Tiled) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_tiled_flat::<$t, $k, true>(dst, src, &p) }
        }

        /// # Safety
        /// As `bankwise_kernels::permute::permute_tiled_flat`.
        #[kernel]
        pub unsafe fn $large(dst: *mut $t, src: *const $t, p: Tiled) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_tiled_flat::<$t, $k, false>(dst, src, &p) }
        }

        /// # Safety
        /// As `bankwise_kernels::permute::permute_rows`.
        #[kernel(shared = 8 * ROWS_THREADS)]
        pub unsafe fn $rows(dst: *mut $t, src: *const $t, p: Rows) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_rows::<$t>(dst, src, &p) }
        }
    )+};
}

per_width! {
    u8: permute_tiled_u8(16, 4), permute_tiled_flat_u8(16), permute_tiled_flat_large_u8, permute_rows_u8;
    u16: permute_tiled_u16(8, 8), permute_tiled_flat_u16(16), permute_tiled_flat_large_u16, permute_rows_u16;
    u32: permute_tiled_u32(4, 4), permute_tiled_flat_u32(16), permute_tiled_flat_large_u32, permute_rows_u32;
    u64: permute_tiled_u64(2, 8), permute_tiled_flat_u64(16), permute_tiled_flat_large_u64, permute_rows_u64;
}

/// Instantiates `permute_tiled_unaligned_<t>` (32-bit indices: tensors of fewer than 2³²
/// elements) and `permute_tiled_unaligned_large_<t>` (64-bit), for 2- and 4-byte elements:
/// the unaligned transposes' tile (`transpose_unaligned_*`), with the same `($v, $n, $e)` and
/// launch bounds.
macro_rules! tiled_unaligned {
    ($($t:ty: $small:ident($blocks:literal), $large:ident($large_blocks:literal)($v:literal, $n:literal, $e:literal)),+ $(,)?) => {$(
        const _: () = assert!(
            $v == layout::vector(bytes::<$t>())
                && $n == layout::unaligned::rounds(bytes::<$t>())
                && $e == layout::unaligned::edge_rounds(bytes::<$t>())
        );
        /// # Safety
        /// As `bankwise_kernels::permute::permute_tiled_unaligned` with 32-bit indices.
        #[kernel(launch_bounds(layout::THREADS, $blocks), shared = layout::unaligned::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $small(dst: *mut $t, src: *const $t, p: Tiled) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_tiled_unaligned::<$t, u32, $v, $n, $e>(dst, src, &p) }
        }

        /// # Safety
        /// As `bankwise_kernels::permute::permute_tiled_unaligned` with 64-bit indices.
        #[kernel(launch_bounds(layout::THREADS, $large_blocks), shared = layout::unaligned::tile_bytes(bytes::<$t>()))]
        pub unsafe fn $large(dst: *mut $t, src: *const $t, p: Tiled) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe { permute_tiled_unaligned::<$t, u64, $v, $n, $e>(dst, src, &p) }
        }
    )+};
}

tiled_unaligned!(
    u16: permute_tiled_unaligned_u16(2), permute_tiled_unaligned_large_u16(2)(8, 8, 4),
    u32: permute_tiled_unaligned_u32(3), permute_tiled_unaligned_large_u32(2)(4, 8, 1),
);

/// Instantiates the skinny transposes for an element type and a word of `B` bytes:
/// `interleave` (`narrow × long` to `long × narrow`) and `deinterleave` (back), with the
/// shared memory the launch gives.
macro_rules! skinny {
    ($($t:ty, $b:literal: $interleave:ident, $deinterleave:ident;)+) => {$(
        /// # Safety
        /// As `bankwise_kernels::permute::permute_skinny` with `SPAN_OUT`.
        #[kernel]
        pub unsafe fn $interleave(dst: *mut $t, src: *const $t, p: Skinny) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe {
                permute_skinny::<$t, $b, { $b / bytes::<$t>() as usize }, { skinny_per_thread($b) as usize }, true>(
                    dst, src, &p,
                )
            }
        }

        /// # Safety
        /// As `bankwise_kernels::permute::permute_skinny` without `SPAN_OUT`.
        #[kernel]
        pub unsafe fn $deinterleave(dst: *mut $t, src: *const $t, p: Skinny) {
            // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
            unsafe {
                permute_skinny::<$t, $b, { $b / bytes::<$t>() as usize }, { skinny_per_thread($b) as usize }, false>(
                    dst, src, &p,
                )
            }
        }
    )+};
}

skinny! {
    u8, 16: permute_interleave_u8, permute_deinterleave_u8;
    u8, 8: permute_interleave_8b_u8, permute_deinterleave_8b_u8;
    u8, 4: permute_interleave_4b_u8, permute_deinterleave_4b_u8;
    u8, 2: permute_interleave_2b_u8, permute_deinterleave_2b_u8;
    u16, 16: permute_interleave_u16, permute_deinterleave_u16;
    u16, 8: permute_interleave_8b_u16, permute_deinterleave_8b_u16;
    u16, 4: permute_interleave_4b_u16, permute_deinterleave_4b_u16;
    u16, 2: permute_interleave_2b_u16, permute_deinterleave_2b_u16;
    u32, 16: permute_interleave_u32, permute_deinterleave_u32;
    u32, 8: permute_interleave_8b_u32, permute_deinterleave_8b_u32;
    u32, 4: permute_interleave_4b_u32, permute_deinterleave_4b_u32;
    u64, 16: permute_interleave_u64, permute_deinterleave_u64;
    u64, 8: permute_interleave_8b_u64, permute_deinterleave_8b_u64;
}

/// Elements each thread of `permute_tiled_flat_*` moves, by element bytes (1, 2, 4, 8, and 16
/// for `permute_tiled_flat_v4`): the `K` each is instantiated with, for the host's choice of
/// tile. Sixteen of every width up to 8 bytes take 48 to 64 registers on sm_90 (four blocks of
/// 256 per SM, 16 KiB of `f32` loads in flight per block), with the interior tiles' offsets
/// stepped (one multiply-add a slot); computed slot by slot, sixteen 4-byte elements took 89
/// registers (two blocks). Four vectors hold the same 16 KiB a block.
pub const fn flat_per_thread(bytes: u32) -> u32 {
    if bytes >= 16 { 4 } else { 16 }
}

/// # Safety
/// As `bankwise_kernels::permute::permute_tiled_flat_vectors`, for tensors of fewer than 2³²
/// vectors.
#[kernel(launch_bounds(layout::THREADS, 4))]
pub unsafe fn permute_tiled_flat_v4(dst: *mut u32, src: *const u32, p: Tiled) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { permute_tiled_flat_vectors::<{ flat_per_thread(16) as usize }, true>(dst, src, &p) }
}

/// # Safety
/// As `bankwise_kernels::permute::permute_tiled_flat_vectors`.
#[kernel]
pub unsafe fn permute_tiled_flat_large_v4(dst: *mut u32, src: *const u32, p: Tiled) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { permute_tiled_flat_vectors::<{ flat_per_thread(16) as usize }, false>(dst, src, &p) }
}

/// # Safety
/// As `bankwise_kernels::permute::permute_rows_vectors`.
#[kernel(shared = 8 * ROWS_THREADS)]
pub unsafe fn permute_rows_v4(dst: *mut u32, src: *const u32, p: Rows) {
    // SAFETY: this entry's contract (its `# Safety`, which the launch keeps) is the callee's.
    unsafe { permute_rows_vectors(dst, src, &p) }
}

/// The parameters of the tiled entries.
#[cfg(not(target_arch = "nvptx64"))]
pub type TiledParams<T> = (*mut T, *const T, Tiled);
/// The parameters of the skinny transposes.
#[cfg(not(target_arch = "nvptx64"))]
pub type SkinnyParams<T> = (*mut T, *const T, Skinny);
/// The words, in bytes, of the skinny transposes' entries, widest first: the order of
/// [`PermuteWord::INTERLEAVE`] and [`PermuteWord::DEINTERLEAVE`], and the planner's preference.
#[cfg(not(target_arch = "nvptx64"))]
pub const SKINNY_WORDS: [u32; 4] = [16, 8, 4, 2];
/// The parameters of the row entries.
#[cfg(not(target_arch = "nvptx64"))]
pub type RowsParams<T> = (*mut T, *const T, Rows);

/// The element words the permutation is instantiated for (one per width), with each entry:
/// the typed lookup the host's launcher uses.
#[cfg(not(target_arch = "nvptx64"))]
pub trait PermuteWord: Copy + 'static {
    /// `permute_tiled_*`: 16-byte vectors.
    const TILED: bankwise_device::KernelEntry<TiledParams<Self>>;
    /// `permute_tiled_flat_*`: tensors of fewer than 2³² elements.
    const TILED_FLAT: bankwise_device::KernelEntry<TiledParams<Self>>;
    /// `permute_tiled_flat_large_*`: any tensor.
    const TILED_FLAT_LARGE: bankwise_device::KernelEntry<TiledParams<Self>>;
    /// `permute_rows_*`.
    const ROWS: bankwise_device::KernelEntry<RowsParams<Self>>;
    /// `permute_tiled_unaligned_*` (2- and 4-byte words), for tensors of fewer than 2³²
    /// elements and, second, for any.
    const TILED_UNALIGNED: Option<[bankwise_device::KernelEntry<TiledParams<Self>>; 2]> = None;
    /// `permute_interleave_*` (`narrow × long` matrices to `long × narrow`) in words of 16, 8,
    /// 4 and 2 bytes (`_8b_`, `_4b_`, `_2b_`); `None` for a word narrower than the element.
    const INTERLEAVE: [Option<bankwise_device::KernelEntry<SkinnyParams<Self>>>; 4];
    /// `permute_deinterleave_*` (`long × narrow` to `narrow × long`), as [`PermuteWord::INTERLEAVE`].
    const DEINTERLEAVE: [Option<bankwise_device::KernelEntry<SkinnyParams<Self>>>; 4];
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! permute_words {
    ($($t:ty: $tiled:ident, $scalar:ident, $large:ident, $rows:ident,
       [$($interleave:expr),+], [$($deinterleave:expr),+] $(, $unaligned:expr)?;)+) => {$(
        impl PermuteWord for $t {
            const TILED: bankwise_device::KernelEntry<TiledParams<Self>> = $tiled;
            const TILED_FLAT: bankwise_device::KernelEntry<TiledParams<Self>> = $scalar;
            const TILED_FLAT_LARGE: bankwise_device::KernelEntry<TiledParams<Self>> = $large;
            const ROWS: bankwise_device::KernelEntry<RowsParams<Self>> = $rows;
            const INTERLEAVE: [Option<bankwise_device::KernelEntry<SkinnyParams<Self>>>; 4] = [$($interleave),+];
            const DEINTERLEAVE: [Option<bankwise_device::KernelEntry<SkinnyParams<Self>>>; 4] = [$($deinterleave),+];
            $(const TILED_UNALIGNED: Option<[bankwise_device::KernelEntry<TiledParams<Self>>; 2]> = Some($unaligned);)?
        }
    )+};
}

#[cfg(not(target_arch = "nvptx64"))]
permute_words! {
    u8: permute_tiled_u8, permute_tiled_flat_u8, permute_tiled_flat_large_u8, permute_rows_u8,
        [Some(permute_interleave_u8), Some(permute_interleave_8b_u8), Some(permute_interleave_4b_u8),
         Some(permute_interleave_2b_u8)],
        [Some(permute_deinterleave_u8), Some(permute_deinterleave_8b_u8), Some(permute_deinterleave_4b_u8),
         Some(permute_deinterleave_2b_u8)];
    u16: permute_tiled_u16, permute_tiled_flat_u16, permute_tiled_flat_large_u16, permute_rows_u16,
        [Some(permute_interleave_u16), Some(permute_interleave_8b_u16), Some(permute_interleave_4b_u16),
         Some(permute_interleave_2b_u16)],
        [Some(permute_deinterleave_u16), Some(permute_deinterleave_8b_u16), Some(permute_deinterleave_4b_u16),
         Some(permute_deinterleave_2b_u16)],
        [permute_tiled_unaligned_u16, permute_tiled_unaligned_large_u16];
    u32: permute_tiled_u32, permute_tiled_flat_u32, permute_tiled_flat_large_u32, permute_rows_u32,
        [Some(permute_interleave_u32), Some(permute_interleave_8b_u32), Some(permute_interleave_4b_u32), None],
        [Some(permute_deinterleave_u32), Some(permute_deinterleave_8b_u32), Some(permute_deinterleave_4b_u32), None],
        [permute_tiled_unaligned_u32, permute_tiled_unaligned_large_u32];
    u64: permute_tiled_u64, permute_tiled_flat_u64, permute_tiled_flat_large_u64, permute_rows_u64,
        [Some(permute_interleave_u64), Some(permute_interleave_8b_u64), None, None],
        [Some(permute_deinterleave_u64), Some(permute_deinterleave_8b_u64), None, None];
}
