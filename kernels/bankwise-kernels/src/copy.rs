//! `copy_bytes`: the bandwidth baseline every other figure is compared with; and
//! `copy_rows_aligned`, which pads rows to 16 bytes.
//!
//! Teaches: what "as fast as memory allows" looks like. Each thread moves 16-byte vectors
//! (`LDG.E.128`/`STG.E.128`), [`UNROLL`] of them with all loads issued before the first store,
//! spaced a block's width apart so every warp access is one contiguous 512-byte run.
//!
//! Measured (H100, 2026-11-26, with the H100 tuning table's grid of up to 64 blocks per SM):
//! 2928 GB/s on 8192×8192 f32, 98.8% of the driver's `cuMemcpyDtoD` in the same run; 97.4%
//! at 16384² (`docs/benchmarks.md`, *Tuning tables*).

use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::thread::{block_dim_x, block_x, grid_dim_x, thread_x};
use bankwise_layout::copy::{UNROLL, VECTOR_BYTES};

type Vector = [u32; 4];

/// Copies `bytes` bytes from `src` to `dst`. Both must be 16-byte aligned (every allocation is).
///
/// # Safety
/// `src` and `dst` must be valid for `bytes` bytes and must not overlap.
#[inline(always)]
pub unsafe fn copy_bytes(dst: *mut u8, src: *const u8, bytes: u64) {
    let vectors = bytes / VECTOR_BYTES;
    let (src_v, dst_v) = (src.cast::<Vector>(), dst.cast::<Vector>());
    let threads = block_dim_x() as u64;
    let per_block = threads * UNROLL as u64;
    let stride = grid_dim_x() as u64 * per_block;
    let mut first = block_x() as u64 * per_block + thread_x() as u64;
    while first < vectors {
        if first + (UNROLL as u64 - 1) * threads < vectors {
            // SAFETY: vectors `first + k · threads` for `k < UNROLL` are below `vectors` (the test
            // above), so inside `src`, which holds `bytes` bytes (the caller's contract) and is
            // 16-byte aligned.
            let v: [Vector; UNROLL as usize] =
                core::array::from_fn(|k| unsafe { load_global_v4(src_v.add((first + k as u64 * threads) as usize)) });
            for (k, &x) in v.iter().enumerate() {
                // SAFETY: as the loads: inside `dst`, which does not overlap `src`.
                unsafe { store_global_v4(dst_v.add((first + k as u64 * threads) as usize), x) };
            }
        } else {
            for k in 0..UNROLL as u64 {
                let i = first + k * threads;
                if i < vectors {
                    // SAFETY: `i < vectors`: inside both buffers, which do not overlap.
                    unsafe { store_global_v4(dst_v.add(i as usize), load_global_v4(src_v.add(i as usize))) };
                }
            }
        }
        first += stride;
    }
    // The last `bytes % 16` bytes: at most 15, one per thread of the first block.
    let tail = vectors * VECTOR_BYTES + thread_x() as u64;
    if block_x() == 0 && tail < bytes {
        // SAFETY: `tail < bytes`: inside both buffers, each byte written by one thread.
        unsafe { global::write(dst.add(tail as usize), global::read(src.add(tail as usize))) };
    }
}

/// `copy_rows_aligned`: copies `rows` rows of `row_words` 4-byte words from `src`, whose rows
/// start `src_ld` words apart on any 4-byte boundary, into `dst`, whose rows start `dst_ld`
/// words apart on 16 bytes, padding each row with zeros to the next 16 bytes. The tuned matrix
/// multiply copies operands whose rows are not aligned this way before reading them as 16-byte
/// vectors (`bankwise::matmul::Realign`).
///
/// One warp per row at a time (rows grid-stride over the warps); each lane writes [`UNROLL`]
/// 16-byte vectors per step, 32 vectors apart, all loads of a step issued before its first
/// store. The source's words are read one by one (a row starting off 16 bytes has no aligned
/// vectors): a warp's four loads of a step's vectors touch the same 512 bytes, which the
/// first of them brings into L1. Every store is a whole vector: `dst_ld` is a multiple of 4
/// words, and a row's last vector takes zeros past `row_words`.
///
/// Measured (H100, 2026-11-24): 2463 GB/s for 4093 rows of 4097 `f32` (94% of the driver's
/// plain copy of the same bytes; the driver's pitched copy, 1559), 2823 GB/s for 16384 rows of
/// 16384 (`docs/benchmarks.md`).
///
/// # Safety
/// `src` valid for `rows` rows of `row_words` words `src_ld` apart; `dst` 16-byte aligned,
/// `dst_ld` a multiple of 4 at least `row_words`, valid for `rows` rows of `row_words` rounded
/// up to 4 words, `dst_ld` apart; the two do not overlap.
#[inline(always)]
pub unsafe fn copy_rows_aligned(dst: *mut u32, dst_ld: u64, src: *const u32, src_ld: u64, rows: u64, row_words: u64) {
    const LANES: u64 = 32;
    let lane = u64::from(thread_x()) % LANES;
    let warps = u64::from(grid_dim_x()) * u64::from(block_dim_x()) / LANES;
    let vectors = row_words.div_ceil(4);
    let mut row = (u64::from(block_x()) * u64::from(block_dim_x()) + u64::from(thread_x())) / LANES;
    while row < rows {
        // Safety: row `row` lies inside both buffers (the caller's contract).
        let (s, d) = unsafe { (src.add((row * src_ld) as usize), dst.add((row * dst_ld) as usize).cast::<Vector>()) };
        let mut first = lane;
        while first < vectors {
            let last = first + (UNROLL as u64 - 1) * LANES;
            if (last + 1) * 4 <= row_words {
                // Every word of the step's vectors inside the row.
                let v: [Vector; UNROLL as usize] = core::array::from_fn(|u| {
                    let w = (first + u as u64 * LANES) * 4;
                    // SAFETY: words below `row_words` of row `row` of `src` (the test above),
                    // inside it (the caller's contract).
                    core::array::from_fn(|q| unsafe { global::read(s.add(w as usize + q)) })
                });
                for (u, &x) in v.iter().enumerate() {
                    // SAFETY: vector `first + u · LANES < vectors` of row `row` of `dst`, inside it
                    // and 16-byte aligned (the caller's contract); one lane writes it.
                    unsafe { store_global_v4(d.add((first + u as u64 * LANES) as usize), x) };
                }
            } else {
                for u in 0..UNROLL as u64 {
                    let i = first + u * LANES;
                    if i < vectors {
                        let x: Vector = core::array::from_fn(|q| {
                            let w = i * 4 + q as u64;
                            // SAFETY: `w < row_words`: inside row `row` of `src`.
                            if w < row_words { unsafe { global::read(s.add(w as usize)) } } else { 0 }
                        });
                        // SAFETY: `i < vectors`: inside row `row` of `dst` and 16-byte aligned (the
                        // caller's contract); one lane writes it.
                        unsafe { store_global_v4(d.add(i as usize), x) };
                    }
                }
            }
            first += UNROLL as u64 * LANES;
        }
        row += warps;
    }
}
