//! `copy_bytes`: the bandwidth baseline every other figure is compared with; and
//! `copy_rows_aligned`, which pads rows to 16 bytes.
//!
//! Teaches: what "as fast as memory allows" looks like. Each thread of `copy_bytes` moves one
//! 16-byte vector (`LDG.E.128`/`STG.E.128`) per step, a warp's 32 one contiguous 512-byte run,
//! over a grid that covers the range (the tuning table's cap on blocks per SM, then a
//! grid-stride loop): no thread waits on a load before a store of its own, and the block
//! scheduler keeps the memory system full, as the driver's own copy does.
//!
//! Measured (H200, 2026-11-28, up to 1024 blocks per SM): 100% of the driver's `cuMemcpyDtoD`
//! in the same run at 64 MiB, 256 MiB and 1 GiB of f32, where four vectors per thread over 64
//! blocks per SM reached 95.6, 95.3 and 92.5% (`docs/decisions.md`, *2026-11-28: one vector per
//! thread*).

use bankwise_device::global;
use bankwise_device::memory::{load_global_v4, store_global_v4};
use bankwise_device::thread::{block_dim_x, block_x, grid_dim_x, thread_x};
use bankwise_layout::copy::{ROW_UNROLL, VECTOR_BYTES};

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
    let stride = grid_dim_x() as u64 * threads;
    let mut i = block_x() as u64 * threads + thread_x() as u64;
    while i < vectors {
        // SAFETY: `i < vectors`: a whole 16-byte vector inside both buffers (the caller's
        // contract: valid for `bytes` bytes, 16-byte aligned, not overlapping).
        unsafe { store_global_v4(dst_v.add(i as usize), load_global_v4(src_v.add(i as usize))) };
        i += stride;
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
/// One warp per row at a time (rows grid-stride over the warps); each lane writes [`ROW_UNROLL`]
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
            let last = first + (ROW_UNROLL as u64 - 1) * LANES;
            if (last + 1) * 4 <= row_words {
                // Every word of the step's vectors inside the row.
                let v: [Vector; ROW_UNROLL as usize] = core::array::from_fn(|u| {
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
                for u in 0..ROW_UNROLL as u64 {
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
            first += ROW_UNROLL as u64 * LANES;
        }
        row += warps;
    }
}
