//! # Shared-memory banks
//!
//! Shared memory is split into `banks` independent banks (32 on every GPU since Fermi, 16 on
//! compute capability 1.x). Successive `bank_bytes`-wide words (4 bytes) go to successive banks:
//!
//! ```text
//! bank = (byte_address / 4) % 32
//!
//! word:  0  1  2 ... 31 | 32 33 ... 63 | 64 ...
//! bank:  0  1  2 ... 31 |  0  1 ... 31 |  0 ...
//! ```
//!
//! A bank delivers one word per pass. When the lanes of one request touch *different* words of
//! the same bank, the request is replayed: it needs as many passes (*wavefronts*) as the
//! busiest bank has distinct words. Lanes reading the *same* word are served together
//! (broadcast), and for 1- and 2-byte accesses different bytes of one word are the same word.
//!
//! ```text
//! float x = tile[32 * lane];      // a column of a 32x32 f32 tile
//!
//!            bank 0   bank 1 ... bank 31
//! wave 0     lane 0     ·           ·
//! wave 1     lane 1     ·           ·
//!  ...                                        -> 32 wavefronts: "32-way conflict"
//! wave 31    lane 31    ·           ·
//!
//! float x = tile[33 * lane];      // pitch padded to 33: lane i lands in bank i
//! wave 0     lane 0   lane 1 ... lane 31      -> 1 wavefront: conflict-free
//! ```
//!
//! Rules of thumb that follow: a stride of `s` words costs `gcd(s, banks)` wavefronts, so odd
//! strides are conflict-free; lanes `t` and `t + n` collide iff `banks / gcd(s, banks)` divides
//! `n`; padding a row by one word turns a column walk into an odd stride.
//!
//! Measured on an H100 (`docs/banks.md`, Nsight Compute wavefronts per instruction / timed):
//! the column walk 32.00 / 31.75, the padded one 1.00 / 1.00; strides 2, 4, 8, 16 take 2, 4, 8,
//! 16 wavefronts and every odd stride 1; `data[3]` for all lanes (a broadcast) 1.
//!
//! ## Wide accesses (LDS.64 / LDS.128)
//!
//! A request moves at most one bank row (`banks * bank_bytes` = 128 bytes) per wavefront, so
//! wider accesses are first split: 8-byte accesses into half-warps (16 lanes), 16-byte accesses
//! into quarter-warps (8 lanes), each a separate *transaction*. For a **load**, two neighbouring
//! pieces merge back into one transaction when, over the **whole** warp, every active lane `i`
//! has lane `i ^ 1` inactive or at the same address (condition A), or likewise for `i ^ 2`
//! (condition B). 8-byte pieces can merge into the whole warp; 16-byte pieces only into
//! half-warps. Each transaction then costs as many wavefronts as its busiest bank has distinct
//! words.
//!
//! Measured on an H100: the five LDS.128 cases of the source article take 2, 1, 2, 4 and 4
//! wavefronts (the last with 2 conflicts), exactly as this rule says. A **store** never
//! merges: the same patterns stored take one wavefront per half- or quarter-warp (a 16-byte
//! broadcast: 2 loaded, 4 stored), so [`Access::op`] tells the model which it is. Timing adds
//! one caveat: a 16-byte half-warp that does not merge costs two cycles of the pipe even when
//! only one of its quarter-warps has active lanes.
//!
//! ## Matrix loads and stores (`ldmatrix`, `stmatrix`)
//!
//! `ldmatrix` (sm_75 on) and `stmatrix` (sm_90 on), in their `.m8n8.b16` forms, move 8×8
//! matrices of 2-byte elements, each row 16 bytes at an address one lane gives (lanes
//! `8k … 8k + 7` for matrix `k`; [`Access::matrices`]). The model serves each matrix as one transaction of its eight rows,
//! never merged with another: a matrix whose rows fall in eight different groups of four banks
//! takes 1 wavefront, and rows 128 bytes apart (a column of a row-major tile of 128-byte rows)
//! take 8. Padding rows by 16 bytes or an XOR swizzle (`bankwise_layout::swizzle`: CUTLASS's
//! `Swizzle<B, M, S>`, TMA's 32-, 64- and 128-byte modes) spreads them; the `ldmatrix-*`
//! patterns of [`named_patterns`] show each. This part follows the instructions' addressing
//! (PTX ISA, `ldmatrix`) and the usual reading of it, and has not yet been measured by a probe.
//!
//! ## Compute capability 1.x
//!
//! The old machine has 16 banks and serves each half-warp separately (lanes 0-15 and 16-31 never
//! conflict with each other). Its broadcast is weaker: each cycle picks **one** word, serves
//! every lane reading it, and serves at most one other access per bank. Which word is picked is
//! undefined, so this module reports the best and the worst case. (No GPU of that generation
//! runs CUDA 13: this part of the model follows the articles and is not measured.)
//!
//! The model stays within what the CUDA C Programming Guide says about that machine (its
//! appendix on compute capability 1.x, "Shared Memory"), and refuses the rest with
//! [`BankError::NotModelled`]:
//!
//! * accesses wider than a bank word: the guide says only that they are split into separate
//!   32-bit accesses that typically conflict (an array of `double` read at `shared[tid]`: two
//!   32-bit requests of stride 2, 2-way), not how they are issued; the half- and quarter-warp
//!   split and merge above is the modern machine's. Analyze each 4-byte part as a 4-byte access.
//! * stores in which two lanes of one half-warp touch the same word: the guide describes the
//!   broadcast for reads only, and says of writes to one location only that one lane performs
//!   it.
//!
//! ## Counting
//!
//! * `transactions`: requests after the split and merges (at least 1 wavefront each);
//! * `wavefronts`: total passes;
//! * `conflicts = wavefronts - transactions`: what Nsight Compute reports as
//!   `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` per instruction;
//! * `degree`: the most wavefronts any single transaction needs ("n-way").
//!
//! ## Measuring it: the probes
//!
//! `bankwise::probe` checks this model on the GPU. A probe kernel (`probe_load_u8` …
//! `probe_store_u128`, SASS `LDS.U8` … `STS.128`) has 16 warps issue one access pattern (32 lane
//! offsets and an active mask) thousands of times back to back; the shared-memory pipe is then
//! the bottleneck, so cycles per warp-access ÷ those of a conflict-free 4-byte access (1
//! wavefront) *counts* wavefronts. Lane checksums prove every lane touched its offset.
//!
//! ```text
//! cargo xtask banks --kernel transpose_tiled --elem-bytes 8   # the model's bank map, no GPU
//! cargo xtask probe --markdown probe.md                       # on a GPU: model vs measured
//! # --once: one launch per table row, for Nsight Compute
//! ncu --csv --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,… \
//!     bankwise probe --once > ncu.csv
//! bankwise probe --ncu-csv ncu.csv                            # joins ncu's counts per access
//! ```
//!
//! `docs/banks.md` lists the metrics and holds the measured table.

mod access;
mod analysis;
mod cc1x;
mod error;
mod geometry;
mod patterns;
mod render;
#[cfg(test)]
mod testing;

pub use access::{Access, MAX_LANES, Op, Width};
pub use analysis::{Analysis, BankCell, Transaction, Wavefront, analyze};
pub use error::BankError;
pub use geometry::{Broadcast, Geometry};
pub use patterns::{NamedPattern, ldmatrix_fragment, named_patterns};
pub use render::concepts::{ConceptPicture, concept_pictures};
pub use render::summary;
pub use render::svg::render_svg;
pub use render::text::{legend_text, render_map_text, render_text};
