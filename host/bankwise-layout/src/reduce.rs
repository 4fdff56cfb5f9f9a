//! Index arithmetic of the reduction ladder (`kernels/src/reduce.rs`), shared with the host:
//! the shared-memory indices each tree step touches (so `bankwise::banks` can analyse the very
//! access patterns the kernels execute), the grids, the split of a range into an unaligned
//! head, 16-byte vectors and a tail, and the depth of each kernel's summation tree (from which
//! the tests derive their floating-point error bounds).

/// Threads per block of the tree rungs (`reduce_interleaved_divergent` … `reduce_shuffle`) and
/// of `reduce_atomic`. A power of two, at least 64 (the unrolled rungs finish the last 64
/// elements in one warp).
pub const THREADS: u32 = 256;
/// `log2(THREADS)`: the levels of one block's tree.
pub const LEVELS: u32 = THREADS.trailing_zeros();
/// Lanes of a warp.
pub const WARP: u32 = 32;
/// Bytes of one vector load, `ld.global.v4.u32` (SASS `LDG.E.128`).
pub const VECTOR_BYTES: u64 = 16;

/// Elements one block of a tree rung reduces to one partial: `THREADS`, or `2 · THREADS` for
/// the rungs that add two elements while loading (`reduce_first_add` and later).
pub const fn elements_per_block(first_add: bool) -> u64 {
    if first_add { 2 * THREADS as u64 } else { THREADS as u64 }
}

/// Step `s` (1, 2, 4, …) of `reduce_interleaved_divergent`: thread `tid` is active iff
/// `tid % (2s) == 0`, and then combines `shared[tid + s]` into `shared[tid]`. Returns the two
/// indices `(into, from)` for an active thread. Active threads are spread over every warp, so
/// warps diverge.
#[allow(clippy::manual_is_multiple_of)] // written as in Harris's slides (kernel 1)
pub const fn interleaved_divergent(tid: u32, s: u32) -> Option<(u32, u32)> {
    if tid % (2 * s) == 0 { Some((tid, tid + s)) } else { None }
}

/// Step `s` of `reduce_interleaved_strided`: thread `tid` works on `index = 2·s·tid` while that
/// is inside the block, so the active threads are the first ones (no divergence within full
/// warps) but a warp's indices are `2s` words apart: a `2s`-way bank conflict (up to 32).
pub const fn interleaved_strided(tid: u32, s: u32, threads: u32) -> Option<(u32, u32)> {
    let index = 2 * s * tid;
    if index < threads { Some((index, index + s)) } else { None }
}

/// Step `s` (`THREADS/2`, …, 1) of the sequential-addressing rungs: thread `tid < s` combines
/// `shared[tid + s]` into `shared[tid]`. A warp reads 32 consecutive words: conflict-free.
pub const fn sequential(tid: u32, s: u32) -> Option<(u32, u32)> {
    if tid < s { Some((tid, tid + s)) } else { None }
}

/// Blocks of a tree rung for `n` elements (`n ≥ 1`).
pub const fn tree_blocks(n: u64, first_add: bool) -> u64 {
    n.div_ceil(elements_per_block(first_add))
}

/// Launches a tree rung needs to reduce `n ≥ 1` elements to one: each launch turns `m` values
/// into `ceil(m / elements_per_block)` partials, and the next launch reduces those.
pub const fn tree_passes(n: u64, first_add: bool) -> u32 {
    let mut m = n;
    let mut passes = 1;
    while tree_blocks(m, first_add) > 1 {
        m = tree_blocks(m, first_add);
        passes += 1;
    }
    passes
}

/// A range of `n` elements of `elem` bytes starting at byte address `addr` (a multiple of
/// `elem`), split into an unaligned head, 16-byte vectors, and a tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Elements before the first 16-byte boundary (fewer than a vector's worth).
    pub head: u64,
    /// Whole 16-byte vectors after the head.
    pub vectors: u64,
    /// Elements after the last whole vector (fewer than a vector's worth).
    pub tail: u64,
}

/// Splits `n` elements of `elem` bytes at byte address `addr` into head, vectors and tail.
pub const fn split(addr: u64, n: u64, elem: u64) -> Split {
    let misalign = addr % VECTOR_BYTES;
    let mut head = if misalign == 0 { 0 } else { (VECTOR_BYTES - misalign) / elem };
    if head > n {
        head = n;
    }
    let per_vector = VECTOR_BYTES / elem;
    let vectors = (n - head) / per_vector;
    Split { head, vectors, tail: n - head - vectors * per_vector }
}

/// The largest number of additions on the path from any input element to the result: with
/// it, a floating-point sum's error is at most `γ_k · Σ|x_i|`, `γ_k = k·u / (1 − k·u)`
/// (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2: every element is
/// multiplied by at most `k` factors `(1 + δ)`, `|δ| ≤ u`).
///
/// `reduce_atomic` adds in an arbitrary order: `n − 1`. A tree rung's block combines its
/// values in a binary tree of [`LEVELS`] levels, after one addition in the load for the rungs
/// with a first add: `LEVELS` (+1) per launch, times [`tree_passes`].
pub const fn tree_depth(n: u64, first_add: bool) -> u64 {
    let per_pass = LEVELS as u64 + if first_add { 1 } else { 0 };
    per_pass * tree_passes(n, first_add) as u64
}

/// The tuned kernel `reduce`: one launch of `grid` blocks of [`tuned::THREADS`] threads, each
/// looping over the range with a grid stride, `UNROLL` 16-byte vectors per step.
pub mod tuned {
    use super::{Split, WARP, split};

    /// Threads per block.
    pub const THREADS: u32 = 256;
    /// Vectors each thread loads per step of its loop, all issued before the first is used.
    pub const UNROLL: u32 = 4;
    /// Blocks per multiprocessor: 8 × 256 threads fill an SM (2048 threads) on sm_70 … sm_90
    /// when the kernel uses at most 32 registers (checked by the ptxas test).
    pub const BLOCKS_PER_SM: u32 = 8;
    /// Dynamic shared memory: one 8-byte slot per warp, then the "last block" flag.
    pub const SHARED_BYTES: u32 = 8 * (THREADS / WARP) + 16;
    /// Byte offset of the "last block" flag in shared memory.
    pub const FLAG_OFFSET: u32 = 8 * (THREADS / WARP);

    /// Blocks for `vectors` 16-byte vectors on a device with `multiprocessors` SMs: one per
    /// `THREADS · UNROLL` vectors, at most `BLOCKS_PER_SM` per SM, at least one.
    pub const fn grid(vectors: u64, multiprocessors: u32) -> u32 {
        grid_per_sm(vectors, multiprocessors, BLOCKS_PER_SM)
    }

    /// [`grid`] with at most `per_sm` blocks per SM (a GPU's tuning table's choice).
    pub const fn grid_per_sm(vectors: u64, multiprocessors: u32, per_sm: u32) -> u32 {
        let per_sm = if per_sm == 0 { 1 } else { per_sm };
        let max = (if multiprocessors == 0 { 1 } else { multiprocessors }) as u64 * per_sm as u64;
        let wanted = vectors.div_ceil(THREADS as u64 * UNROLL as u64);
        if wanted == 0 {
            1
        } else if wanted > max {
            max as u32
        } else {
            wanted as u32
        }
    }

    /// The depth (see [`super::tree_depth`]) of `reduce` over `n` elements of `elem` bytes at
    /// byte address `addr`, launched with `grid` blocks. Each thread keeps one accumulator per
    /// element of a vector (`16 / elem` of them) and adds into each, in order, one element of
    /// each vector it loads (at most `UNROLL · ceil(vectors / (grid · THREADS · UNROLL))`),
    /// plus one head element before and one tail element after, into accumulator 0. Then:
    /// the accumulators pairwise (`log2(16 / elem)` levels), the warp by shuffles (5 levels),
    /// the warps' results by shuffles (5 levels), the block's partial to memory; the last block
    /// to finish adds the partials, each thread `ceil(grid / THREADS)` of them in order, and
    /// reduces the block again (10 levels).
    pub const fn depth(addr: u64, n: u64, elem: u64, grid: u32) -> u64 {
        let Split { vectors, .. } = split(addr, n, elem);
        let step = grid as u64 * THREADS as u64 * UNROLL as u64;
        let per_thread = UNROLL as u64 * vectors.div_ceil(step);
        let lanes = (16 / elem).trailing_zeros() as u64;
        let partials = (grid as u64).div_ceil(THREADS as u64);
        (per_thread + 2) + lanes + 10 + partials + 10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_the_range() {
        for elem in [4u64, 8] {
            for addr in (0..64).step_by(elem as usize) {
                for n in 0..100 {
                    let s = split(addr, n, elem);
                    assert_eq!(s.head + s.vectors * (16 / elem) + s.tail, n);
                    assert!(s.tail < 16 / elem);
                    if s.vectors > 0 {
                        assert_eq!((addr + s.head * elem) % 16, 0, "addr {addr} n {n} elem {elem}");
                    }
                }
            }
        }
    }

    #[test]
    fn each_tree_step_reads_only_live_values() {
        // Simulate each rung's index functions on the values' "coverage" sets: the block's
        // result must cover every element exactly once.
        type Step = fn(u32, u32) -> Option<(u32, u32)>;
        let strided: Step = |t, s| interleaved_strided(t, s, THREADS);
        let rungs: [(Step, bool); 3] = [(interleaved_divergent, true), (strided, true), (sequential, false)];
        for (step, upward) in rungs {
            let mut cover: Vec<u64> = (0..THREADS).map(|i| 1u64 << (i % 64)).collect();
            let mut count: Vec<u32> = vec![1; THREADS as usize];
            let mut s = if upward { 1 } else { THREADS / 2 };
            while s > 0 && s < THREADS {
                for t in 0..THREADS {
                    if let Some((a, b)) = step(t, s) {
                        count[a as usize] += count[b as usize];
                        cover[a as usize] |= cover[b as usize];
                    }
                }
                s = if upward { s * 2 } else { s / 2 };
            }
            assert_eq!(count[0], THREADS);
            assert_eq!(cover[0], u64::MAX);
        }
    }

    #[test]
    fn passes_and_depth() {
        assert_eq!(tree_passes(1, false), 1);
        assert_eq!(tree_passes(256, false), 1);
        assert_eq!(tree_passes(257, false), 2);
        assert_eq!(tree_passes(1 << 24, false), 3);
        assert_eq!(tree_passes(1 << 24, true), 3);
        assert_eq!(tree_depth(1 << 24, true), 27);
        assert_eq!(tuned::grid(0, 132), 1);
        assert_eq!(tuned::grid(1 << 30, 132), 132 * tuned::BLOCKS_PER_SM);
    }
}
