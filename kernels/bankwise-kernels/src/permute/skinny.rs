//! The skinny transpose: a batch of `narrow × long` matrices transposed to `long × narrow`, or
//! back, where `narrow` is 2 to 63 (an image's 3 channels, a few heads) and `long` runs to
//! millions (NCHW ↔ NHWC with `C = 3`, `(23, 2917776)` by `(1, 0)`).
//!
//! A tile is `narrow` whole rows of `W = vr · V` elements of the long axis (`vr` a power of
//! two). In the `narrow × long` tensor those are `narrow` **segments** of `W` contiguous
//! elements, one per row; in the `long × narrow` tensor the same elements are one contiguous
//! **span** of `narrow · W`, interleaved. Both global sides move as 16-byte vectors, the
//! segments because the host plans this kernel only where `long` is a multiple of the vector
//! (every segment starts 16-byte aligned), the span because it starts at a multiple of `W`
//! rows. A tile with one side under 64 wastes nothing here, where the square and flat tiles
//! pad the narrow side to a power of two and move it one element per access.
//!
//! Shared memory holds the tile segment by segment: row `i`, vector slot `k ^ (i & 7)`
//! ([`slot`]), so a warp's `STS.128`/`LDS.128` on the segment side is 4 wavefronts (its 512
//! bytes' minimum). The span side reads or writes it one element at a time, element `q` of the
//! span being row `q % narrow`, column `q / narrow`; the XOR spreads the rows a warp meets over
//! the banks (the emulator's counts per site: `tests/kernels/permute.rs`).

use bankwise_device::Plain;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::shared;
use bankwise_device::thread::{block_x, sync_threads, thread_x};
use bankwise_layout::transpose::tuned::THREADS;

use super::FastDiv;
use crate::Vector;

/// The most elements of the narrow axis: 63, below the square tiles' side of 64.
pub const SKINNY_MAX_NARROW: u64 = 63;
/// 16-byte vectors each thread of [`permute_skinny`] holds: a tile is at most `256 · 4`
/// vectors (16 KiB).
pub const SKINNY_PER_THREAD: u32 = 4;

/// A batch of `narrow × long` matrices, each transposed (see the [module](self)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skinny {
    /// Elements of the narrow axis, 2 to [`SKINNY_MAX_NARROW`].
    pub narrow: u64,
    /// Elements of the long axis, a multiple of the kernel's vector.
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
    /// `log₂ vr`: a tile row holds `vr` vectors (`narrow · vr ≤ 256 ·` [`SKINNY_PER_THREAD`],
    /// `vr ≥ 8`).
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

/// The shared vector of row `i`'s `k`-th vector: rows of `vr` vectors (`1 << row_shift`),
/// each row's slots XORed with its number's low three bits, so that eight consecutive slots of
/// a row stay on eight distinct bank quads and rows a warp's span walk meets start apart.
#[inline(always)]
pub const fn slot(i: u32, k: u32, row_shift: u32) -> u32 {
    (i << row_shift) + (k ^ (i & 7))
}

/// The shared element of row `i`, column `x` (`V` elements a vector): inside [`slot`]'s vector.
#[inline(always)]
const fn element(i: u32, x: u32, row_shift: u32, v: u32) -> u32 {
    slot(i, x / v, row_shift) * v + x % v
}

/// Transposes tile `block_x() + p.first_tile` of `p` (see the [module](self)). `SPAN_OUT`:
/// `src` is `narrow × long` and `dst` `long × narrow` (segments in, the span out); else the
/// reverse. `V` elements of `T` make 16 bytes.
///
/// # Safety
/// `src` and `dst` are valid, non-overlapping, 16-byte aligned buffers of `p.matrices ·
/// p.narrow · p.long` elements; `p.long` is a multiple of `V`; `2 ≤ p.narrow ≤ 63`,
/// `p.narrow << p.row_shift ≤ 256 · SKINNY_PER_THREAD` and `p.row_shift ≥ 3`; the launch has
/// 256 threads per block, at most `p.tiles() - p.first_tile` blocks, and `16 · p.narrow <<
/// p.row_shift` bytes of dynamic shared memory.
#[inline(always)]
pub unsafe fn permute_skinny<T: Plain, const V: usize, const SPAN_OUT: bool>(dst: *mut T, src: *const T, p: &Skinny) {
    const N: usize = SKINNY_PER_THREAD as usize;
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
    // Vectors of this tile per row: all `vr` but in a matrix's last tile.
    let vectors = ((p.long - x0) / v as u64).min(1 << rs) as u32;
    let span = base + x0 * p.narrow;
    // Unit `u = k · 256 + t` of a thread: on the segment side row `u >> rs`, vector `u & (vr −
    // 1)`; on the span side the span's vector `u`.
    let segment = |u: u32| (u >> rs, u & ((1 << rs) - 1));
    let on_segment = |u: u32| {
        let (i, k) = segment(u);
        i < n && k < vectors
    };
    let on_span = |u: u32| u < n * vectors;
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
                // SAFETY: row `i < narrow`, columns `x0 + kk·V .. + V ≤ long`: inside `src`, 16-byte
                // aligned as `long` and `x0` are multiples of V.
                *h = unsafe { load_global_v4(src.add(at as usize).cast()) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                // SAFETY: `slot < narrow << rs`, inside the launch's shared memory; one writer per
                // slot, ordered before the reads by the barrier.
                unsafe { tile.write(slot(i, kk, rs) as usize, Vector(*h)) };
            }
        }
        sync_threads();
        // Every gather before the first store, so that no store waits on its own shared reads.
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                let (mut i, mut x) = first(u);
                let gathered: [T; V] = core::array::from_fn(|_| {
                    // SAFETY: `(i, x)` is inside the tile (`x < vectors · V`), written before the
                    // barrier.
                    let e = unsafe { elems.read(element(i, x, rs, v) as usize) };
                    i += 1;
                    if i == n {
                        (i, x) = (0, x + 1);
                    }
                    e
                });
                // SAFETY: [T; V] is exactly 16 bytes of plain data.
                *h = unsafe { core::mem::transmute_copy(&gathered) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                // SAFETY: the span's vector `u < narrow · vectors` is inside `dst`, 16-byte
                // aligned (`span` is a multiple of V); one thread writes it.
                unsafe { store_global_v4(dst.add((span + (u * v) as u64) as usize).cast(), *h) };
            }
        }
    } else {
        for (k, h) in held.iter_mut().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                // SAFETY: as the store of the other direction, in `src`.
                *h = unsafe { load_global_v4(src.add((span + (u * v) as u64) as usize).cast()) };
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_span(u) {
                // SAFETY: [u32; 4] is exactly 16 bytes, V elements of plain data.
                let scattered: [T; V] = unsafe { core::mem::transmute_copy(h) };
                let (mut i, mut x) = first(u);
                // Indexed, not `for e in scattered`: the array's by-value iterator keeps a
                // dynamic index, and the array went to a 32-byte stack frame.
                #[allow(clippy::needless_range_loop)]
                for e in 0..V {
                    // SAFETY: `(i, x)` is inside the tile; one writer per element, ordered before
                    // the reads by the barrier.
                    unsafe { elems.write(element(i, x, rs, v) as usize, scattered[e]) };
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
                *h = unsafe { tile.read(slot(i, kk, rs) as usize) }.0;
            }
        }
        for (k, h) in held.iter().enumerate() {
            let u = k as u32 * THREADS + t;
            if on_segment(u) {
                let (i, kk) = segment(u);
                let at = base + i as u64 * p.long + x0 + (kk * v) as u64;
                // SAFETY: as the load of the other direction, in `dst`; one thread writes it.
                unsafe { store_global_v4(dst.add(at as usize).cast(), *h) };
            }
        }
    }
}
