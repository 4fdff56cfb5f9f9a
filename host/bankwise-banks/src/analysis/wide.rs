//! Wide accesses (LDS.64 / LDS.128): how a warp's 8- or 16-byte request is cut into pieces of at
//! most one bank row, and when neighbouring pieces of a load merge back (the article's
//! conditions A and B over the whole warp; stores never merge, as measured on an H100); and the
//! matrix instructions, one 8-row matrix per piece.

use crate::{Access, Geometry, MAX_LANES, Op};

/// Rows of one `ldmatrix`/`stmatrix` matrix: the lanes that address it.
const MATRIX_ROWS: u64 = 8;

/// Lanes per transaction for `access` on `g`, and whether neighbouring pieces merged.
///
/// An access no wider than a bank word keeps the geometry's request (`request_lanes`). A wider
/// one is cut into pieces that move at most one bank row (`banks * bank_bytes` bytes): on the
/// modern machine half-warps for 8 bytes, quarter-warps for 16. For a load, two neighbouring
/// pieces merge when every active lane `i` has lane `i ^ 1` (condition A), or every one has
/// lane `i ^ 2` (condition B), inactive or at the same address, over the whole warp; a merge
/// never crosses the request.
pub(super) fn piece_lanes(access: &Access, g: &Geometry) -> (u64, bool) {
    let width = access.width.bytes();
    let row_bytes = u64::from(g.banks) * u64::from(g.bank_bytes);
    let mut piece = u64::from(g.request_lanes);
    let mut merged = false;
    if access.op.is_matrix() {
        // One 8×8 matrix per phase: its eight 16-byte rows, one bank row if they miss each
        // other's banks. Phases never merge.
        return (MATRIX_ROWS.min(piece), false);
    }
    if width > g.bank_bytes {
        piece = (row_bytes / u64::from(width)).clamp(1, u64::from(g.request_lanes));
        if piece < u64::from(g.request_lanes) {
            let addr = |l: usize| access.addresses.get(l).copied().flatten();
            let holds = |xor: usize| {
                (0..MAX_LANES).all(|i| match (addr(i), addr(i ^ xor)) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                })
            };
            // Measured: stores never merge (Nsight Compute counts 2 wavefronts for an 8-byte
            // store where all lanes i, i^1 share addresses; the same load takes 1).
            if access.op == Op::Load && (holds(1) || holds(2)) {
                merged = true;
                piece = (piece * 2).min(u64::from(g.request_lanes));
            }
        }
    }
    (piece, merged)
}

#[cfg(test)]
mod tests {
    use crate::testing::run;
    use crate::{Access, Geometry, Op, Width, analyze, named_patterns};

    #[test]
    fn stores_never_merge_as_measured_on_an_h100() {
        // Nsight Compute on an H100 (docs/banks.md): the LDS.64/LDS.128 article's patterns stored rather than
        // loaded take one transaction per half-warp (8 bytes) or quarter-warp (16 bytes).
        let by_name = |name: &str| named_patterns().into_iter().find(|p| p.name == name).unwrap();
        for (name, load, store) in [
            ("lds64-case2", (1, 1), (2, 2)),
            ("lds128-case2", (1, 1), (2, 2)),
            ("lds128-case3", (2, 2), (4, 4)),
            ("lds128-case5", (2, 4), (4, 8)),
        ] {
            let p = by_name(name);
            let counts = |op| {
                let a = analyze(&p.access.clone().with_op(op), &p.geometry).unwrap();
                (a.transactions(), a.wavefronts())
            };
            assert_eq!(counts(Op::Load), load, "{name} load");
            assert_eq!(counts(Op::Store), store, "{name} store");
        }
        let broadcast = |width, op| analyze(&Access::strided(width, 0, 0).with_op(op), &Geometry::MODERN).unwrap();
        assert_eq!(broadcast(Width::B8, Op::Load).wavefronts(), 1);
        assert_eq!(broadcast(Width::B8, Op::Store).wavefronts(), 2);
        assert_eq!(broadcast(Width::B16, Op::Load).wavefronts(), 2);
        assert_eq!(broadcast(Width::B16, Op::Store).wavefronts(), 4);
    }

    /// LDS.64 of a column of `double tile[32][P]`.
    ///
    /// P = 32: lane i reads words 64i+2c, 64i+2c+1, i.e. banks 2c and 2c+1 for every lane. No
    /// merge (neighbours differ), so two half-warp transactions of 16 distinct words in one bank
    /// pair each: 16 + 16 = 32 wavefronts, 16-way, 30 conflicts.
    ///
    /// P = 33: lane i reads words 66i+2c(+1); 66 ≡ 2 (mod 32), so within a half-warp (i < 16)
    /// lane i owns banks 2(i+c), 2(i+c)+1 and the 16 lanes tile all 32 banks exactly once. Lanes
    /// i and i+16 do share banks, but they are in different transactions, which is not a
    /// conflict: 2 transactions, 2 wavefronts, 0 conflicts. The 2 wavefronts are simply the
    /// 256 bytes requested; the padded f64 column costs the same as a row of doubles.
    #[test]
    fn f64_transpose_columns() {
        for c in 0..32u64 {
            let plain = run(&Access::from_fn(Width::B8, u32::MAX, |i| 8 * (32 * u64::from(i) + c)), &Geometry::MODERN);
            assert_eq!((plain.transactions(), plain.wavefronts(), plain.degree(), plain.conflicts()), (2, 32, 16, 30));
            let padded = run(&Access::from_fn(Width::B8, u32::MAX, |i| 8 * (33 * u64::from(i) + c)), &Geometry::MODERN);
            assert_eq!((padded.transactions(), padded.wavefronts(), padded.conflicts()), (2, 2, 0));
            let row = run(&Access::strided(Width::B8, 0, 1), &Geometry::MODERN);
            assert_eq!(row.wavefronts(), padded.wavefronts());
        }
    }

    /// "Cuda 中的bank conflict 和 向量化访存", LDS.64. Pictures are missing; reconstructed from the text:
    /// case 1: "lane tid reads uint2 tid": no merge, two half-warps, 1 wavefront each.
    /// case 2: "satisfies condition 1, one transaction": lanes 2k, 2k+1 read uint2 k.
    #[test]
    fn lds64_merging() {
        let c1 = run(&Access::from_fn(Width::B8, u32::MAX, |i| 8 * u64::from(i)), &Geometry::MODERN);
        assert_eq!((c1.merged, c1.transactions(), c1.wavefronts(), c1.conflicts()), (false, 2, 2, 0));
        assert_eq!(c1.transactions[0].lanes, (0..16).collect::<Vec<_>>());
        let c2 = run(&Access::from_fn(Width::B8, u32::MAX, |i| 8 * u64::from(i / 2)), &Geometry::MODERN);
        assert_eq!((c2.merged, c2.transactions(), c2.wavefronts(), c2.conflicts()), (true, 1, 1, 0));
        // Condition B alone also merges: lanes i and i^2 share.
        let b =
            run(&Access::from_fn(Width::B8, u32::MAX, |i| 8 * u64::from((i >> 2) << 1 | (i & 1))), &Geometry::MODERN);
        assert_eq!((b.merged, b.transactions(), b.wavefronts()), (true, 1, 1));
    }

    /// "Cuda 中的bank conflict 和 向量化访存", LDS.128. Pictures are missing; each case is rebuilt from its sentence:
    /// 1. "active lanes in 2 half-warps and 2 quarter-warps, 2 transactions, 2 wavefronts":
    ///    quarter-warps 0 and 2 active (lanes 0-7, 16-23) reading consecutive uint4s.
    /// 2. "1 half-warp, 2 quarter-warps, 1 transaction": the even lanes of half-warp 0 read uint4
    ///    0..7; odd lanes are inactive, so condition A holds and the quarter-warps merge.
    /// 3. "2 half-warps, 4 quarter-warps, condition 1 triggered, 2 transactions": lanes 2k, 2k+1
    ///    read uint4 k.
    /// 4. "half-warp 0 satisfies condition 1, half-warp 1 condition 2: 4 transactions":
    ///    [`lds128_case4`](crate::patterns::lds128_case4).
    /// 5. Spelled out in the text: [`lds128_case5`](crate::patterns::lds128_case5); merged, 2-way in each half-warp.
    #[test]
    fn lds128_merging() {
        let expect = |name: &str, merged, txns, waves, conflicts| {
            let p = named_patterns().into_iter().find(|p| p.name == name).expect("pattern exists");
            let a = run(&p.access, &p.geometry);
            assert_eq!(
                (a.merged, a.transactions(), a.wavefronts(), a.conflicts()),
                (merged, txns, waves, conflicts),
                "{name}"
            );
            a
        };
        let c1 = expect("lds128-case1", false, 2, 2, 0);
        assert_eq!(c1.transactions[1].lanes, (16..24).collect::<Vec<_>>());
        let c2 = expect("lds128-case2", true, 1, 1, 0);
        assert_eq!(c2.transactions[0].lanes, (0..16).step_by(2).collect::<Vec<_>>());
        let c3 = expect("lds128-case3", true, 2, 2, 0);
        assert_eq!(c3.transactions[0].lanes, (0..16).collect::<Vec<_>>(), "half-warps never merge");
        let c4 = expect("lds128-case4", false, 4, 4, 0);
        assert_eq!(c4.transactions[3].lanes, (24..32).collect::<Vec<_>>());
        let c5 = expect("lds128-case5", true, 2, 4, 2);
        assert_eq!(c5.degree(), 2);
        // Wavefront 0 serves uint4 0 and 1 (lanes 0-3, 8-11), the replay uint4 8 and 9.
        assert_eq!(c5.waves[0].lanes, vec![0, 1, 2, 3, 8, 9, 10, 11]);
        assert_eq!(c5.waves[1].lanes, vec![4, 5, 6, 7, 12, 13, 14, 15]);
        assert!(c5.waves[1].is_conflict());
        // Each of the 8 busy banks of wave 0 serves one word to 4 lanes: all broadcast.
        assert_eq!(c5.waves[0].broadcast_lanes, c5.waves[0].lanes);
    }

    /// `ldmatrix`/`stmatrix`: each matrix is one phase of its 8 lanes' 16-byte rows, never
    /// merged with another; its wavefronts are the most distinct rows that share a group of
    /// four banks (rows 128 bytes apart collide, equal rows broadcast).
    #[test]
    fn matrices_take_one_phase_each() {
        use crate::BankError;
        let m = Geometry::MODERN;
        // Rows of 16 bytes in a row: 1 wavefront a matrix, however many matrices.
        for count in [1, 2, 4] {
            let a = run(&Access::matrices(count, |k, r| 128 * u64::from(k) + 16 * u64::from(r)).unwrap(), &m);
            assert_eq!((a.transactions(), a.wavefronts(), a.merged), (count, count, false));
            assert_eq!(a.transactions[0].lanes, (0..8).collect::<Vec<_>>());
        }
        // The same rows as LDS.128 with lanes i, i^1 sharing merge into half-warps; as a matrix
        // load they do not.
        let shared = |k: u32, r: u32| 16 * u64::from(8 * k + r / 2);
        let lds = run(&Access::from_fn(Width::B16, u32::MAX, |l| shared(l / 8, l % 8)), &m);
        let ldsm = run(&Access::matrices(4, shared).unwrap(), &m);
        assert_eq!((lds.transactions(), ldsm.transactions(), ldsm.wavefronts()), (2, 4, 4));
        // Every matrix's wavefronts: the busiest 4-bank group's distinct rows, for rows spread
        // over a 1 KiB tile by an arbitrary rule.
        for seed in 0..200u64 {
            let row = |k: u32, r: u32| 16 * ((seed * 7919 + u64::from(k) * 131 + u64::from(r) * (seed % 13 + 1)) % 64);
            let a = run(&Access::matrices(4, row).unwrap(), &m);
            for k in 0..4 {
                let mut groups = std::collections::HashMap::<u64, std::collections::HashSet<u64>>::new();
                for r in 0..8 {
                    groups.entry(row(k, r) / 16 % 8).or_default().insert(row(k, r));
                }
                let busiest = groups.values().map(|g| g.len() as u32).max().unwrap();
                assert_eq!(a.transactions[k as usize].wavefronts, busiest, "seed {seed}, matrix {k}");
            }
        }
        // Refused: the 1.x machine, rows of another width, a count ldmatrix has not.
        let x4 = Access::matrices(4, |k, r| 16 * u64::from(8 * k + r)).unwrap();
        assert!(matches!(analyze(&x4, &Geometry::HALF_WARP_16), Err(BankError::NotModelled(_))));
        let narrow = Access { width: Width::B8, ..x4 };
        assert!(matches!(analyze(&narrow, &m), Err(BankError::BadMatrixAccess(_))));
        assert!(matches!(Access::matrices(3, |_, _| 0), Err(BankError::BadMatrixAccess(_))));
        assert_eq!(Op::StoreMatrix.to_string(), "stmatrix");
        assert!(Op::StoreMatrix.is_store() && Op::StoreMatrix.is_matrix() && !Op::Load.is_matrix());
    }
}
