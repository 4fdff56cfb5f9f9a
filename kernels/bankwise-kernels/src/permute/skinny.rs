//! The skinny transpose: a batch of `narrow × long` matrices transposed to `long × narrow`, or
//! back, where `narrow` is 2 to 63 (an image's 3 channels, a few heads) and `long` runs to
//! millions (NCHW ↔ NHWC with `C = 3`, `(23, 2917776)` by `(1, 0)`).
//!
//! A tile is `narrow` whole rows of `W = vr · V` elements of the long axis (`vr` a power of
//! two). In the `narrow × long` tensor those are `narrow` **segments** of `W` contiguous
//! elements, one per row; in the `long × narrow` tensor the same elements are one contiguous
//! **span** of `narrow · W`, interleaved. Both global sides move as words of `B` bytes (16, 8,
//! 4 or 2: the widest that divides a row of `long` elements, so that every segment starts on
//! one; the span starts at a multiple of `W` rows). A tile with one side under 64 wastes
//! nothing here, where the square and flat tiles pad the narrow side to a power of two and
//! move it one element per access.
//!
//! Shared memory holds the tile segment by segment: row `i`, word slot `k ^ ((i & 7) · 16 /
//! B)` ([`slot`]), so a warp's word accesses on the segment side take the fewest wavefronts its
//! bytes need (4 for 16-byte words). The span side reads or writes it one element at a time,
//! element `q` of the span being row `q % narrow`, column `q / narrow`; the XOR spreads the
//! rows a warp meets over the banks (the emulator's counts per site:
//! `tests/kernels/permute.rs`).

use bankwise_device::Plain;
use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared::{self, SharedSlice};
use bankwise_device::thread::{block_x, sync_threads, thread_x};
use bankwise_layout::transpose::tuned::THREADS;

use super::FastDiv;
use crate::Vector;

/// The most elements of the narrow axis: 63, below the square tiles' side of 64.
pub const SKINNY_MAX_NARROW: u64 = 63;
/// Bytes each thread of [`permute_skinny`] holds in words of 4 bytes or more: a tile is at
/// most `256 · 64` bytes (16 KiB), `64 / B` words of `B` bytes a thread.
pub const SKINNY_BYTES_PER_THREAD: u32 = 64;

/// Words of `bytes` each thread of [`permute_skinny`] holds: `64 / B`, but 16 of 2 bytes (a
/// tile of 8 KiB; 32 took 83 and 101 registers on sm_90, and a 512-byte stack frame for `u8`).
pub const fn skinny_per_thread(bytes: u32) -> u32 {
    let n = SKINNY_BYTES_PER_THREAD / bytes;
    if n > 16 { 16 } else { n }
}

/// A batch of `narrow × long` matrices, each transposed (see the [module](self)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skinny {
    /// Elements of the narrow axis, 2 to [`SKINNY_MAX_NARROW`].
    pub narrow: u64,
    /// Elements of the long axis, a multiple of the kernel's word (`V` elements).
    pub long: u64,
    /// Tiles along the long axis of each matrix.
    pub tiles_per_matrix: u64,
    /// Matrices.
    pub matrices: u64,
    /// The tile of this launch's block 0 (tiles run along each matrix, then matrix by matrix).
    pub first_tile: u64,
    /// `narrow`'s [`FastDiv`] multiplier.
    pub magic: u64,
    /// `narrow`'s [`FastDiv`] shift.
    pub shift: u32,
    /// `log₂ vr`: a tile row holds `vr` words (`narrow · vr ≤ 256 ·`
    /// [`skinny_per_thread`], `vr ≥ 128 / B`).
    pub row_shift: u32,
}

impl Skinny {
    /// Tiles in all.
    pub const fn tiles(&self) -> u64 {
        self.tiles_per_matrix * self.matrices
    }
}

// SAFETY: a #[repr(C)] struct of u64 and u32 fields without implicit padding: one layout on the
// host and on nvptx64, and no pointers.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl bankwise_device::ByValue for Skinny {}

/// The shared word of row `i`'s `k`-th word of `bytes` (16, 8, 4 or 2): rows of `vr` words (`1 <<
/// row_shift`), each row's slots XORed with its number's low three bits times `16 / bytes`,
/// so that row `i` starts `16 · (i & 7)` bytes round the banks whatever the word, the
/// consecutive slots a warp's word accesses take stay on distinct banks, and the rows a warp's
/// span walk meets start apart.
#[inline(always)]
pub const fn slot(i: u32, k: u32, row_shift: u32, bytes: u32) -> u32 {
    (i << row_shift) + (k ^ ((i & 7) * (16 / bytes)))
}

/// The shared element of row `i`, column `x` (`V` elements a word): inside [`slot`]'s word.
#[inline(always)]
const fn element(i: u32, x: u32, row_shift: u32, v: u32, bytes: u32) -> u32 {
    slot(i, x / v, row_shift, bytes) * v + x % v
}

/// Loads the `B`-byte word at `p` into a held vector's low words.
///
/// # Safety
/// `p` is valid for `B` bytes and aligned to them.
#[inline(always)]
unsafe fn load<const B: usize>(p: *const u8) -> [u32; 4] {
    // SAFETY: the caller's contract, for the one arm `B` selects.
    unsafe {
        match B {
            16 => load_global_v4(p.cast()),
            8 => {
                let w = global::read(p.cast::<u64>());
                [w as u32, (w >> 32) as u32, 0, 0]
            }
            4 => [global::read(p.cast::<u32>()), 0, 0, 0],
            _ => [global::read(p.cast::<u16>()) as u32, 0, 0, 0],
        }
    }
}

/// Stores a held vector's low `B` bytes at `p`.
///
/// # Safety
/// `p` is valid for `B` bytes, aligned to them, and written by no other thread.
#[inline(always)]
unsafe fn store<const B: usize>(p: *mut u8, h: [u32; 4]) {
    // SAFETY: the caller's contract, for the one arm `B` selects.
    unsafe {
        match B {
            16 => store_global_v4(p.cast(), h),
            8 => global::write(p.cast::<u64>(), h[0] as u64 | (h[1] as u64) << 32),
            4 => global::write(p.cast::<u32>(), h[0]),
            _ => global::write(p.cast::<u16>(), h[0] as u16),
        }
    }
}

/// Writes a held vector's low `B` bytes to the tile's word `at`.
///
/// # Safety
/// Word `at` is inside the tile, written by no other thread before the barrier.
#[inline(always)]
unsafe fn write_slot<const B: usize>(tile: SharedSlice<Vector>, at: u32, h: [u32; 4]) {
    // SAFETY: the caller's contract, for the one arm `B` selects.
    unsafe {
        match B {
            16 => tile.write(at as usize, Vector(h)),
            8 => tile.cast::<u64>().write(at as usize, h[0] as u64 | (h[1] as u64) << 32),
            4 => tile.cast::<u32>().write(at as usize, h[0]),
            _ => tile.cast::<u16>().write(at as usize, h[0] as u16),
        }
    }
}

/// Reads the tile's word `at` into a held vector's low `B` bytes.
///
/// # Safety
/// Word `at` is inside the tile and was written before the barrier.
#[inline(always)]
unsafe fn read_slot<const B: usize>(tile: SharedSlice<Vector>, at: u32) -> [u32; 4] {
    // SAFETY: the caller's contract, for the one arm `B` selects.
    unsafe {
        match B {
            16 => tile.read(at as usize).0,
            8 => {
                let w = tile.cast::<u64>().read(at as usize);
                [w as u32, (w >> 32) as u32, 0, 0]
            }
            4 => [tile.cast::<u32>().read(at as usize), 0, 0, 0],
            _ => [tile.cast::<u16>().read(at as usize) as u32, 0, 0, 0],
        }
    }
}

/// A word's `V` elements (`B` bytes) packed into a held vector's low bytes.
#[inline(always)]
fn pack<T: Plain, const B: usize, const V: usize>(e: [T; V]) -> [u32; 4] {
    // SAFETY: `[T; V]` is exactly `B` bytes of plain data (the kernel's contract), and each arm
    // reads `B` bytes of it.
    unsafe {
        match B {
            16 => core::mem::transmute_copy(&e),
            8 => {
                let w: u64 = core::mem::transmute_copy(&e);
                [w as u32, (w >> 32) as u32, 0, 0]
            }
            4 => [core::mem::transmute_copy(&e), 0, 0, 0],
            _ => [core::mem::transmute_copy::<_, u16>(&e) as u32, 0, 0, 0],
        }
    }
}

/// [`pack`]'s inverse.
#[inline(always)]
fn unpack<T: Plain, const B: usize, const V: usize>(h: [u32; 4]) -> [T; V] {
    // SAFETY: as for `pack`: each arm reads `B` bytes, the size of `[T; V]`.
    unsafe {
        match B {
            16 => core::mem::transmute_copy(&h),
            8 => core::mem::transmute_copy(&(h[0] as u64 | (h[1] as u64) << 32)),
            4 => core::mem::transmute_copy(&h[0]),
            _ => core::mem::transmute_copy(&(h[0] as u16)),
        }
    }
}

/// Transposes tile `block_x() + p.first_tile` of `p` (see the [module](self)). `SPAN_OUT`:
/// `src` is `narrow × long` and `dst` `long × narrow` (segments in, the span out); else the
/// reverse. Words of `B` bytes (16, 8, 4 or 2), `V` elements of `T` each, `N` of them a thread
/// ([`skinny_per_thread`]).
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping, `B`-byte aligned buffers of `p.matrices ·
/// p.narrow · p.long` elements; `V · size_of::<T>() = B`; `p.long` is a multiple of `V`;
/// `2 ≤ p.narrow ≤ 63`, `p.narrow << p.row_shift ≤ 256 · N` and `1 << p.row_shift ≥ 128 / B`
/// (rows of 8 groups of `16 / B` words at least); the launch has 256 threads per block, at
/// most `p.tiles() - p.first_tile` blocks, and `B · p.narrow << p.row_shift` bytes of dynamic
/// shared memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn permute_skinny<T: Plain, const B: usize, const V: usize, const N: usize, const SPAN_OUT: bool>(
    dst: *mut T,
    src: *const T,
    p: &Skinny,
) {
    let tile = shared::dynamic::<Vector>();
    let elems = tile.cast::<T>();
    let t = thread_x();
    let id = p.first_tile + block_x() as u64;
    let (matrix, along) = if p.tiles() <= u32::MAX as u64 {
        let (id, per) = (id as u32, p.tiles_per_matrix as u32);
        ((id / per) as u64, (id % per) as u64)
    } else {
        (id / p.tiles_per_matrix, id % p.tiles_per_matrix)
    };
    let (rs, n, v) = (p.row_shift, p.narrow as u32, V as u32);
    let x0 = along << (rs + v.trailing_zeros());
    let base = matrix * p.narrow * p.long;
    // Words of this tile per row: all `vr` but in a matrix's last tile.
    let words = ((p.long - x0) / v as u64).min(1 << rs) as u32;
    let span = base + x0 * p.narrow;
    // Unit `u = k · 256 + t` of a thread: on the segment side row `u >> rs`, word `u & (vr −
    // 1)`; on the span side the span's word `u`.
    let segment = |u: u32| (u >> rs, u & ((1 << rs) - 1));
    let on_segment = |u: u32| {
        let (i, k) = segment(u);
        i < n && k < words
    };
    let on_span = |u: u32| u < n * words;
    // The span's element `u · V`: its row and column in the tile.
    let first = |u: u32| {
        let q = u * v;
        let x = FastDiv::divide(p.magic, p.shift, q);
        (q - x * n, x)
    };
    let mut held = [[0u32; 4]; N];
    if SPAN_OUT {
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                let at = base + i as u64 * p.long + x0 + (kk * v) as u64;
                // SAFETY: row `i < narrow`, columns `x0 + kk·V .. + V ≤ long`: inside `src`, aligned
                // to B as `long` and `x0` are multiples of V.
                *h = unsafe { load::<B>(src.add(at as usize).cast()) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                // SAFETY: `slot < narrow << rs`, inside the launch's shared memory; one writer per
                // slot, ordered before the reads by the barrier.
                unsafe { write_slot::<B>(tile, slot(i, kk, rs, B as u32), *h) };
            }
        }
        sync_threads();
        // Every gather before the first store, so that no store waits on its own shared reads.
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                let (mut i, mut x) = first(u);
                let gathered: [T; V] = core::array::from_fn(|_| {
                    // SAFETY: `(i, x)` is inside the tile (`x < words · V`), written before the
                    // barrier.
                    let e = unsafe { elems.read(element(i, x, rs, v, B as u32) as usize) };
                    i += 1;
                    if i == n {
                        (i, x) = (0, x + 1);
                    }
                    e
                });
                *h = pack::<T, B, V>(gathered);
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                // SAFETY: the span's word `u < narrow · words` is inside `dst`, aligned to B
                // (`span` is a multiple of V); one thread writes it.
                unsafe { store::<B>(dst.add((span + (u * v) as u64) as usize).cast(), *h) };
            }
        }
    } else {
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                // SAFETY: as the store of the other direction, in `src`.
                *h = unsafe { load::<B>(src.add((span + (u * v) as u64) as usize).cast()) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                let scattered = unpack::<T, B, V>(*h);
                let (mut i, mut x) = first(u);
                // Indexed, not `for e in scattered`: the array's by-value iterator keeps a
                // dynamic index, and the array went to a 32-byte stack frame.
                #[allow(clippy::needless_range_loop)]
                for e in 0..V {
                    // SAFETY: `(i, x)` is inside the tile; one writer per element, ordered before
                    // the reads by the barrier.
                    unsafe { elems.write(element(i, x, rs, v, B as u32) as usize, scattered[e]) };
                    i += 1;
                    if i == n {
                        (i, x) = (0, x + 1);
                    }
                }
            }
        }
        sync_threads();
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                // SAFETY: inside the tile, written before the barrier.
                *h = unsafe { read_slot::<B>(tile, slot(i, kk, rs, B as u32)) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                let at = base + i as u64 * p.long + x0 + (kk * v) as u64;
                // SAFETY: as the load of the other direction, in `dst`; one thread writes it.
                unsafe { store::<B>(dst.add(at as usize).cast(), *h) };
            }
        }
    }
}
