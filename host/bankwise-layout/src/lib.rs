//! Index arithmetic shared by the device kernels (`bankwise-kernels`, compiled for
//! `nvptx64-nvidia-cuda`) and the host library (`bankwise`).
//!
//! Everything here is a plain `const fn` over integers, so the host can compute the exact
//! shared-memory and global addresses a kernel touches: the bank-conflict model and the tests
//! reason about the very functions the GPU executes, not about a copy of them.
#![cfg_attr(not(test), no_std)]

pub mod copy;
pub mod matmul;
pub mod probe;
pub mod reduce;
pub mod swizzle;
pub mod transpose;

#[cfg(test)]
mod tests {
    use crate::transpose::{TileLayout, tuned};

    #[test]
    fn tile_grid_runs_down_each_column_then_across_then_over_the_batch() {
        let tiles = tuned::Tiles::new(64, 100, 130, 2); // 2 row bands × 3 column tiles × 2
        assert_eq!(tiles.grid(), (2, 3, 2));
        assert_eq!(tiles.origin(0, 1, 0), (0, 64, 0));
        assert_eq!(tiles.origin(1, 1, 2), (1, 64, 128));
        let tall = tuned::Tiles::rect(64, 32, 65, 33, 1); // 2 × 2 tiles of 64 × 32
        assert_eq!((tall.grid(), tall.origin(0, 1, 1)), ((2, 2, 1), (0, 64, 32)));
        // Past the hardware's limits the grid is capped: one block per tile no longer fits
        // (the host then takes the swizzled ladder kernel, which loops), and batches are
        // launched 65 520 matrices at a time, a multiple of 16.
        let huge = tuned::Tiles::new(64, 64, 64 * 70_000, 70_000);
        assert_eq!((huge.grid(), huge.fits()), ((1, 65_535, 65_520), false));
        let edge = tuned::Tiles::new(64, 64, 64 * 65_535, 70_000);
        assert_eq!((edge.grid(), edge.fits()), ((1, 65_535, 65_520), true));
    }

    #[test]
    fn scalar_roles_cover_the_tile_once_and_the_column_walk_is_conflict_free() {
        use tuned::scalar::{COLS, PER_THREAD, PITCH, ROWS, load_role, store_role, tile_bytes};
        let (mut loads, mut stores) = (std::collections::HashSet::new(), std::collections::HashSet::new());
        for idx in 0..PER_THREAD * tuned::THREADS {
            let (r, c) = load_role(idx);
            assert!(r < ROWS && c < COLS && loads.insert((r, c)));
            let (j, u) = store_role(idx);
            assert!(j < COLS && u < ROWS && stores.insert((j, u)));
        }
        // A half-warp's column walk: 16 lanes, 8 bytes each, PITCH elements apart: 32 banks.
        let banks: std::collections::HashSet<u32> =
            (0..16).flat_map(|u| [2 * u * PITCH % 32, (2 * u * PITCH + 1) % 32]).collect();
        assert_eq!(banks.len(), 32);
        assert!(tile_bytes(8) <= 48 * 1024);
    }

    #[test]
    fn tile_layouts_are_permutations_inside_their_footprint() {
        for elem in [1, 2, 4, 8] {
            for layout in [TileLayout::Plain, TileLayout::Padded, TileLayout::Swizzled] {
                let mut seen = std::collections::HashSet::new();
                for r in 0..32 {
                    for c in 0..32 {
                        let o = layout.offset(r, c, elem);
                        assert!(o * elem < layout.tile_bytes(elem), "{layout:?} {elem}: ({r},{c}) outside the tile");
                        assert!(seen.insert(o), "{layout:?} {elem}: ({r},{c}) collides");
                    }
                }
            }
        }
    }

    #[test]
    fn tuned_tile_is_a_permutation_and_roles_cover_the_tile_once() {
        for elem in [1, 2, 4] {
            let side = tuned::side(elem);
            let mut seen = std::collections::HashSet::new();
            for r in 0..side {
                for c in 0..side {
                    let o = tuned::offset(r, c, elem);
                    assert!(o < side * side && seen.insert(o), "elem {elem}: ({r},{c})");
                }
            }
            let mut roles = std::collections::HashSet::new();
            for idx in 0..tuned::vectors_per_thread(elem) * tuned::THREADS {
                let (j, u) = tuned::store_role(idx, elem);
                assert!(j < side && u < tuned::vectors_per_row(elem), "elem {elem}: role ({j},{u})");
                assert!(roles.insert((j, u)));
            }
            assert_eq!(tuned::tile_bytes(elem) % 16, 0);
            assert!(tuned::tile_bytes(elem) <= 48 * 1024, "fits the default shared-memory limit");
        }
    }

    #[test]
    fn unaligned_tile_is_a_permutation_and_roles_cover_it_once() {
        use tuned::unaligned;
        for elem in [1, 2, 4] {
            let (tall, wide, v) = (unaligned::tall(elem), unaligned::wide(elem), tuned::vector(elem));
            let mut seen = std::collections::HashSet::new();
            for r in 0..tall {
                for c in 0..wide {
                    let o = unaligned::offset(r, c, elem);
                    assert!(o < tall * wide && seen.insert(o), "elem {elem}: ({r},{c})");
                    // Whole vectors stay whole: a row's vector is one 16-byte slot.
                    assert_eq!(o % v, c % v);
                }
            }
            let threads = tuned::THREADS;
            // Loads: every round covers `rows_per_round` tile rows of `vectors_per_row` lanes.
            assert_eq!(unaligned::rounds(elem) * threads, tall * unaligned::vectors_per_row(elem));
            // Stores: every (output row, chunk) once in the same number of rounds.
            let mut roles = std::collections::HashSet::new();
            for idx in 0..unaligned::rounds(elem) * threads {
                let (j, q) = unaligned::store_role(idx, elem);
                assert!(j < wide && q < unaligned::chunks_per_row(elem), "elem {elem}: role ({j},{q})");
                assert!(roles.insert((j, q)));
            }
            assert_eq!(roles.len() as u32, wide * unaligned::chunks_per_row(elem));
            // End chunks: one element per thread, every output row's V.
            assert!(unaligned::edge_rounds(elem) * threads >= wide * v);
            assert!(unaligned::tile_bytes(elem) <= 48 * 1024, "fits the default shared-memory limit");
        }
    }
}
