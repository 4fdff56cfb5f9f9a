//! The model proper. [`analyze`] cuts a warp's [`Access`] into transactions (requests, or the
//! half- and quarter-warp pieces of a wide access) and schedules each transaction's wavefronts
//! on a [`Geometry`]; the [`Analysis`] it returns counts transactions, wavefronts and conflicts
//! and records which bank serves which lanes in each pass.
//!
//! The modern broadcast (any number of shared words per wavefront) is scheduled here; the
//! LDS.64/LDS.128 split and merge rule is in [`wide`], and the compute capability 1.x
//! one-word-per-cycle broadcast in [`crate::cc1x`].

mod wide;

use std::collections::BTreeMap;

use crate::cc1x::{self, MATRIX_ON_1X, SHARED_STORE_ON_1X, WIDE_ON_1X};
use crate::{Access, BankError, Broadcast, Geometry, MAX_LANES, Width};

/// One bank's work in one wavefront: the word it delivers and the lanes that receive it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankCell {
    /// Bank number.
    pub bank: u32,
    /// Word index (`byte_address / bank_bytes`) delivered.
    pub word: u64,
    /// Lanes served by this word in this wavefront (more than one = broadcast).
    pub lanes: Vec<u32>,
}

/// One pass through the banks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wavefront {
    /// Index into [`Analysis::transactions`].
    pub transaction: usize,
    /// Position within its transaction; anything but 0 is a replay caused by a conflict.
    pub index: u32,
    /// Lanes that receive at least one word in this wavefront, ascending.
    pub lanes: Vec<u32>,
    /// Lanes that share a word with another lane in this wavefront, ascending.
    pub broadcast_lanes: Vec<u32>,
    /// Busy banks, ascending by bank.
    pub cells: Vec<BankCell>,
}

impl Wavefront {
    /// Whether this wavefront is a replay, i.e. one of the transaction's conflicts.
    pub fn is_conflict(&self) -> bool {
        self.index > 0
    }

    /// What `bank` does in this wavefront, if anything.
    pub fn cell(&self, bank: u32) -> Option<&BankCell> {
        self.cells.iter().find(|c| c.bank == bank)
    }
}

/// One request after the split into half/quarter-warps and the merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Active lanes in this request, ascending.
    pub lanes: Vec<u32>,
    /// Wavefronts it needs (best case under [`Broadcast::OneWordPerCycle`]).
    pub wavefronts: u32,
    /// Wavefronts in the worst case; equals `wavefronts` under [`Broadcast::AnyWords`].
    pub worst_wavefronts: u32,
}

/// The cost of one [`Access`] on one [`Geometry`], and how it is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Access width.
    pub width: Width,
    /// Number of active lanes.
    pub active_lanes: u32,
    /// Whether the LDS.64/LDS.128 merge condition held (false for narrow accesses).
    pub merged: bool,
    /// Requests in issue order.
    pub transactions: Vec<Transaction>,
    /// Every wavefront of every transaction, in order (the best-case schedule for 1.x).
    pub waves: Vec<Wavefront>,
    /// Banks each lane touches (empty for inactive lanes); 2 or 4 banks for wide accesses.
    pub lane_banks: Vec<Vec<u32>>,
    /// Whether `worst_wavefronts` is exact; false only when the exhaustive search for the
    /// 1.x worst case ran out of budget and a pessimistic greedy schedule was used instead.
    pub worst_exact: bool,
}

impl Analysis {
    /// Total wavefronts (best case under [`Broadcast::OneWordPerCycle`]).
    pub fn wavefronts(&self) -> u32 {
        self.transactions.iter().map(|t| t.wavefronts).sum()
    }

    /// Number of requests after splitting and merging.
    pub fn transactions(&self) -> u32 {
        self.transactions.len() as u32
    }

    /// Extra wavefronts caused by bank conflicts: `wavefronts - transactions`.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts() - self.transactions()
    }

    /// "n-way": the most wavefronts any one transaction needs (0 if nothing is active).
    pub fn degree(&self) -> u32 {
        self.transactions.iter().map(|t| t.wavefronts).max().unwrap_or(0)
    }

    /// Total wavefronts in the best and worst case; equal unless broadcast is one word per cycle.
    pub fn best_and_worst(&self) -> (u32, u32) {
        (self.wavefronts(), self.transactions.iter().map(|t| t.worst_wavefronts).sum())
    }

    /// True when no transaction needs more than one wavefront.
    pub fn is_conflict_free(&self) -> bool {
        self.degree() <= 1
    }

    /// Wavefront indices (into `waves`) in which `lane` receives data.
    pub fn waves_of_lane(&self, lane: u32) -> Vec<usize> {
        (self.waves.iter().enumerate()).filter(|(_, w)| w.lanes.binary_search(&lane).is_ok()).map(|(i, _)| i).collect()
    }
}

/// Computes how `access` is served by `geometry`.
pub fn analyze(access: &Access, geometry: &Geometry) -> Result<Analysis, BankError> {
    geometry.validate()?;
    let g = geometry;
    let width = access.width.bytes();
    let one_word = g.broadcast == Broadcast::OneWordPerCycle;
    if access.op.is_matrix() {
        if one_word {
            return Err(BankError::NotModelled(MATRIX_ON_1X));
        }
        if access.width != Width::B16 {
            return Err(BankError::BadMatrixAccess("ldmatrix and stmatrix rows are 16 bytes"));
        }
    }
    if one_word && width > g.bank_bytes && access.active_lanes() > 0 {
        return Err(BankError::NotModelled(WIDE_ON_1X));
    }
    let bank_bytes = u64::from(g.bank_bytes);
    let words_per_lane = (width / g.bank_bytes).max(1) as u64;

    let mut lane_words: Vec<Option<(u64, Vec<u64>)>> = vec![None; MAX_LANES];
    for (i, addr) in access.addresses.iter().enumerate() {
        let (lane, Some(addr)) = (i as u32, *addr) else {
            continue;
        };
        if lane >= g.warp_lanes {
            return Err(BankError::LaneOutOfRange { lane, warp_lanes: g.warp_lanes });
        }
        if !addr.is_multiple_of(u64::from(width)) {
            return Err(BankError::Misaligned { lane, address: addr, width });
        }
        // Aligned accesses and power-of-two words nest, so an access is a whole run of words
        // (or lies inside one word). The run cannot pass u64::MAX since addr + width cannot.
        let first = addr / bank_bytes;
        let words = (0..words_per_lane).map(|k| first.saturating_add(k)).collect();
        lane_words[i] = Some((addr, words));
    }
    if one_word && access.op.is_store() {
        // Two lanes of one request on one word: the 1.x guide does not say how that is written.
        for chunk in lane_words.chunks(g.request_lanes as usize) {
            let mut words: Vec<u64> = chunk.iter().flatten().flat_map(|(_, ws)| ws.iter().copied()).collect();
            let n = words.len();
            words.sort_unstable();
            words.dedup();
            if words.len() < n {
                return Err(BankError::NotModelled(SHARED_STORE_ON_1X));
            }
        }
    }
    let bank = |word: u64| (word % u64::from(g.banks)) as u32;
    let lane_banks = (lane_words.iter())
        .map(|lw| lw.as_ref().map_or_else(Vec::new, |(_, ws)| ws.iter().map(|&w| bank(w)).collect()))
        .collect();

    // Split into pieces of at most one bank row, then let neighbouring pieces merge.
    let (piece, merged) = wide::piece_lanes(access, g);

    let mut analysis = Analysis {
        width: access.width,
        active_lanes: access.active_lanes(),
        merged,
        transactions: Vec::new(),
        waves: Vec::new(),
        lane_banks,
        worst_exact: true,
    };
    for chunk_start in (0..g.warp_lanes as usize).step_by(piece as usize) {
        let chunk_end = (chunk_start + piece as usize).min(g.warp_lanes as usize);
        let mut lanes = Vec::new();
        let mut accesses = Vec::new();
        for (lane, lw) in lane_words.iter().enumerate().take(chunk_end).skip(chunk_start) {
            if let Some((_, words)) = lw {
                lanes.push(lane as u32);
                accesses.extend(words.iter().map(|&w| (lane as u32, w)));
            }
        }
        if lanes.is_empty() {
            continue;
        }
        let txn = analysis.transactions.len();
        let (passes, worst) = match g.broadcast {
            Broadcast::AnyWords => {
                let passes = serve_any_words(&accesses, &bank);
                let n = passes.len() as u32;
                (passes, n)
            }
            Broadcast::OneWordPerCycle => {
                let words = cc1x::pending_words(&accesses, &bank);
                let passes = cc1x::serve_one_word_best(&words);
                let (worst, exact) = cc1x::worst_one_word(&words);
                analysis.worst_exact &= exact;
                let best = passes.len() as u32;
                (passes, worst.max(best))
            }
        };
        analysis.transactions.push(Transaction { lanes, wavefronts: passes.len() as u32, worst_wavefronts: worst });
        for (index, mut cells) in passes.into_iter().enumerate() {
            cells.sort_by_key(|c| c.bank);
            let mut lanes: Vec<u32> = cells.iter().flat_map(|c| c.lanes.iter().copied()).collect();
            lanes.sort_unstable();
            lanes.dedup();
            let mut broadcast_lanes: Vec<u32> =
                cells.iter().filter(|c| c.lanes.len() > 1).flat_map(|c| c.lanes.iter().copied()).collect();
            broadcast_lanes.sort_unstable();
            broadcast_lanes.dedup();
            analysis.waves.push(Wavefront { transaction: txn, index: index as u32, lanes, broadcast_lanes, cells });
        }
    }
    Ok(analysis)
}

/// Modern rule: in each bank, the k-th distinct word (in lane order) goes to wavefront k, and
/// every lane reading a word gets it in that word's wavefront.
fn serve_any_words(accesses: &[(u32, u64)], bank: &impl Fn(u64) -> u32) -> Vec<Vec<BankCell>> {
    let mut rank_in_bank: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let mut passes: Vec<Vec<BankCell>> = Vec::new();
    for &(lane, word) in accesses {
        let b = bank(word);
        let words = rank_in_bank.entry(b).or_default();
        let rank = match words.iter().position(|&w| w == word) {
            Some(r) => r,
            None => {
                words.push(word);
                words.len() - 1
            }
        };
        if passes.len() <= rank {
            passes.resize_with(rank + 1, Vec::new);
        }
        match passes[rank].iter_mut().find(|c| c.bank == b) {
            Some(cell) => cell.lanes.push(lane),
            None => passes[rank].push(BankCell { bank: b, word, lanes: vec![lane] }),
        }
    }
    passes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc1x::{PendingWord, bank_counts, best_one_word_cycles};
    use crate::testing::{XorShift, run};
    use crate::{render_svg, render_text, summary};

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    #[test]
    fn stride_costs_gcd_on_both_machines() {
        for s in 1..=64u64 {
            let access = Access::strided(Width::B4, 0, s);
            let modern = run(&access, &Geometry::MODERN);
            assert_eq!(modern.wavefronts() as u64, gcd(s, 32), "stride {s} on 32 banks");
            assert_eq!(modern.degree() as u64, gcd(s, 32));
            let old = run(&access, &Geometry::HALF_WARP_16);
            assert_eq!(old.transactions(), 2);
            assert_eq!(old.degree() as u64, gcd(s, 16), "stride {s} on 16 banks, per half-warp");
            assert_eq!(old.wavefronts() as u64, 2 * gcd(s, 16));
            assert_eq!(old.best_and_worst().0, old.best_and_worst().1, "no shared words, no choice");
            assert_eq!(s % 2 == 1, modern.is_conflict_free(), "stride {s}");
            assert_eq!(s % 2 == 1, old.is_conflict_free(), "stride {s}");
        }
    }

    /// "CUDA Programming Guide之shared memory的Bank Confict": threads tid and tid+n of one request conflict iff m / gcd(s, m) divides n.
    #[test]
    fn gcd_rule_matches_lane_grouping() {
        for (g, m) in [(Geometry::HALF_WARP_16, 16u32), (Geometry::MODERN, 32)] {
            for s in 1..=64u64 {
                let a = run(&Access::strided(Width::B4, 4 * 7, s), &g);
                let q = m as u64 / gcd(s, m as u64);
                for tid in 0..32u32 {
                    for other in tid + 1..32 {
                        if tid / g.request_lanes != other / g.request_lanes {
                            continue; // different half-warps never conflict on 1.x
                        }
                        let n = (other - tid) as u64;
                        let same_bank = a.lane_banks[tid as usize] == a.lane_banks[other as usize];
                        let apart = a.waves_of_lane(tid) != a.waves_of_lane(other);
                        assert_eq!(n.is_multiple_of(q), same_bank, "m={m} s={s} tid={tid} n={n}");
                        assert!(!same_bank || apart, "distinct words in one bank are serialized");
                    }
                }
            }
        }
    }

    #[test]
    fn data3_broadcasts() {
        let access = Access::strided(Width::B4, 4 * 3, 0);
        for g in [Geometry::MODERN, Geometry::HALF_WARP_16] {
            let a = run(&access, &g);
            assert!(a.is_conflict_free());
            assert_eq!(a.wavefronts(), g.warp_lanes / g.request_lanes);
            for w in &a.waves {
                assert_eq!(w.broadcast_lanes, w.lanes);
                assert_eq!(w.cells.len(), 1);
                assert_eq!(w.cells[0].bank, 3);
            }
            assert_eq!(a.best_and_worst(), (a.wavefronts(), a.wavefronts()));
        }
    }

    #[test]
    fn column_vs_row() {
        assert_eq!(run(&Access::strided(Width::B4, 0, 32), &Geometry::MODERN).wavefronts(), 32);
        assert_eq!(run(&Access::strided(Width::B4, 0, 1), &Geometry::MODERN).wavefronts(), 1);
    }

    #[test]
    fn four_way_and_padding() {
        let four = Access::strided(Width::B4, 4 * 9, 4);
        assert_eq!(run(&four, &Geometry::HALF_WARP_16).degree(), 4);
        assert_eq!(run(&four, &Geometry::MODERN).degree(), 4);
        let col16 = run(&Access::strided(Width::B4, 0, 16), &Geometry::HALF_WARP_16);
        assert_eq!(col16.degree(), 16);
        let col17 = run(&Access::strided(Width::B4, 0, 17), &Geometry::HALF_WARP_16);
        assert_eq!(col17.degree(), 1);
    }

    #[test]
    fn transpose_tile_columns() {
        for c in 0..32u64 {
            let plain = Access::from_fn(Width::B4, u32::MAX, |i| 4 * (32 * u64::from(i) + c));
            let padded = Access::from_fn(Width::B4, u32::MAX, |i| 4 * (33 * u64::from(i) + c));
            assert_eq!(run(&plain, &Geometry::MODERN).degree(), 32);
            assert_eq!(run(&padded, &Geometry::MODERN).wavefronts(), 1);
        }
    }

    #[test]
    fn narrow_accesses_share_words() {
        let four = run(&Access::from_fn(Width::B1, 0xF, u64::from), &Geometry::MODERN);
        assert_eq!(four.wavefronts(), 1);
        assert_eq!(four.waves[0].cells.len(), 1);
        assert_eq!(four.waves[0].cells[0].lanes, vec![0, 1, 2, 3]);
        assert_eq!(four.waves[0].broadcast_lanes, vec![0, 1, 2, 3]);
        let halves = run(&Access::strided(Width::B2, 0, 1), &Geometry::MODERN);
        assert_eq!((halves.wavefronts(), halves.waves[0].cells.len()), (1, 16));
        let spread = run(&Access::strided(Width::B1, 0, 4), &Geometry::MODERN);
        assert_eq!((spread.wavefronts(), spread.waves[0].broadcast_lanes.len()), (1, 0));
        let column = run(&Access::strided(Width::B1, 0, 128), &Geometry::MODERN);
        assert_eq!(column.wavefronts(), 32);
        let column2 = run(&Access::strided(Width::B2, 2, 64), &Geometry::MODERN);
        assert_eq!(column2.wavefronts(), 32);
    }

    #[test]
    fn inactive_and_masked() {
        let none = run(&Access::strided(Width::B4, 0, 32).with_mask(0), &Geometry::MODERN);
        assert_eq!((none.transactions(), none.wavefronts(), none.degree(), none.conflicts()), (0, 0, 0, 0));
        assert!(summary(&none, &Geometry::MODERN).contains("nothing"));
        let half = Access::strided(Width::B4, 0, 32).with_mask(0xFF);
        assert_eq!(half.active_lanes(), 8);
        assert_eq!(run(&half, &Geometry::MODERN).wavefronts(), 8);
        let upper = run(&Access::strided(Width::B4, 0, 1).with_mask(0xFFFF_0000), &Geometry::HALF_WARP_16);
        assert_eq!(upper.transactions(), 1);
    }

    #[test]
    fn errors() {
        let mis8 = Access::from_fn(Width::B8, 1, |_| 4);
        assert_eq!(analyze(&mis8, &Geometry::MODERN), Err(BankError::Misaligned { lane: 0, address: 4, width: 8 }));
        let mis16 = Access::from_fn(Width::B16, 0b100, |_| 24);
        assert!(matches!(analyze(&mis16, &Geometry::MODERN), Err(BankError::Misaligned { lane: 2, .. })));
        let ok = Access::strided(Width::B4, 0, 1);
        for bad in [
            Geometry { banks: 0, ..Geometry::MODERN },
            Geometry { bank_bytes: 3, ..Geometry::MODERN },
            Geometry { bank_bytes: 0, ..Geometry::MODERN },
            Geometry { warp_lanes: 0, ..Geometry::MODERN },
            Geometry { warp_lanes: 64, ..Geometry::MODERN },
            Geometry { request_lanes: 0, ..Geometry::MODERN },
            Geometry { request_lanes: 12, ..Geometry::MODERN },
        ] {
            let e = analyze(&ok, &bad).unwrap_err();
            assert!(matches!(e, BankError::InvalidGeometry(_)), "{bad:?}");
            assert!(e.to_string().starts_with("invalid geometry"));
        }
        let small = Geometry { warp_lanes: 16, request_lanes: 16, ..Geometry::MODERN };
        assert_eq!(analyze(&ok, &small), Err(BankError::LaneOutOfRange { lane: 16, warp_lanes: 16 }));
        assert_eq!(Geometry { banks: 0, ..Geometry::MODERN }.bank_of(8), None);
        assert_eq!(Geometry::MODERN.bank_of(4 * 33), Some(1));
    }

    /// Many random requests: never panics, and the counts stay internally consistent.
    #[test]
    fn random_requests_are_consistent() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let widths = [Width::B1, Width::B2, Width::B4, Width::B8, Width::B16];
        for iter in 0..3000 {
            let g = match rng.below(4) {
                0 => Geometry::MODERN,
                1 => Geometry::HALF_WARP_16,
                2 => Geometry { broadcast: Broadcast::OneWordPerCycle, ..Geometry::MODERN },
                _ => Geometry {
                    banks: 1 + rng.below(40) as u32,
                    bank_bytes: 1 << rng.below(6),
                    warp_lanes: rng.below(40) as u32,
                    request_lanes: rng.below(40) as u32,
                    broadcast: Broadcast::AnyWords,
                },
            };
            let width = widths[rng.below(5) as usize];
            let w = u64::from(width.bytes());
            let mask = match rng.below(3) {
                0 => u32::MAX,
                _ => rng.next() as u32,
            };
            // Small address ranges make shared words and same-bank words likely.
            let span = [4u64, 64, 1024, u64::MAX / 32][rng.below(4) as usize];
            let misalign = rng.below(8) == 0;
            let addrs: Vec<u64> = (0..32)
                .map(|_| {
                    let a = rng.below(span) * w;
                    if misalign { a + rng.below(2) } else { a }
                })
                .collect();
            let access = Access::from_fn(width, mask, |i| addrs[i as usize]);
            let Ok(a) = analyze(&access, &g) else {
                continue;
            };
            let active = access.active_lanes();
            let (best, worst) = a.best_and_worst();
            assert!(a.transactions() <= a.wavefronts(), "iter {iter}");
            assert!(best <= worst);
            assert_eq!(a.waves.len() as u32, a.wavefronts());
            assert_eq!(a.conflicts(), a.wavefronts() - a.transactions());
            assert_eq!(active == 0, a.wavefronts() == 0);
            if g.banks * g.bank_bytes >= 16 {
                // Each lane then touches distinct banks, so a lane is never its own conflict.
                assert!(a.wavefronts() <= active, "iter {iter}: {} > {active}", a.wavefronts());
            }
            // Every (lane, word) is delivered exactly once, and no bank does two things at once.
            let words_per_lane = (width.bytes() / g.bank_bytes).max(1) as usize;
            let served: usize = a.waves.iter().flat_map(|w| &w.cells).map(|c| c.lanes.len()).sum();
            assert_eq!(served, active as usize * words_per_lane, "iter {iter}");
            for wave in &a.waves {
                let mut banks: Vec<u32> = wave.cells.iter().map(|c| c.bank).collect();
                banks.dedup();
                assert_eq!(banks.len(), wave.cells.len());
                if g.broadcast == Broadcast::OneWordPerCycle {
                    assert!(wave.cells.iter().filter(|c| c.lanes.len() > 1).count() <= 1);
                }
            }
            let lanes: u32 = a.transactions.iter().map(|t| t.lanes.len() as u32).sum();
            assert_eq!(lanes, active);
            if g.broadcast == Broadcast::OneWordPerCycle {
                for (t, txn) in a.transactions.iter().enumerate() {
                    let words: Vec<PendingWord> = {
                        let mut ws: Vec<PendingWord> = Vec::new();
                        for c in a.waves.iter().filter(|w| w.transaction == t).flat_map(|w| &w.cells) {
                            match ws.iter_mut().find(|w| w.word == c.word) {
                                Some(w) => w.lanes.extend(&c.lanes),
                                None => ws.push(PendingWord { bank: c.bank, word: c.word, lanes: c.lanes.clone() }),
                            }
                        }
                        ws
                    };
                    let (formula, _) = best_one_word_cycles(&bank_counts(&words));
                    assert_eq!(txn.wavefronts, formula, "iter {iter}: schedule meets the lower bound");
                }
            }
            let _ = render_text(&a, &g, true);
            let _ = render_svg(&a, &g, "random");
        }
    }
}
