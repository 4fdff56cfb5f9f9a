//! Compute capability 1.x: 16 banks, each half-warp served on its own, and one broadcast word per
//! cycle ([`Broadcast::OneWordPerCycle`](crate::Broadcast::OneWordPerCycle)).
//!
//! Which word a cycle broadcasts is undefined, so a transaction's cost is a range. The best
//! schedule is built greedily around the broadcasts a counting bound says each bank needs, and
//! meets that bound; the worst is an exhaustive search over schedules (with a pessimistic greedy
//! fallback when the search runs out of budget). The refusals of what the CUDA guide does not
//! describe on that machine (wide accesses, stores that share a word) are worded here too.

use std::collections::{BTreeMap, HashMap};

use crate::BankCell;

/// Why a wide access on [`Broadcast::OneWordPerCycle`](crate::Broadcast::OneWordPerCycle) is refused.
pub(crate) const WIDE_ON_1X: &str = "on compute capability 1.x an access wider than a bank word is split into separate \
     32-bit accesses (CUDA C Programming Guide, compute capability 1.x, \"Larger Than 32-Bit Access\": a double \
     read at shared[tid] is two 32-bit requests of stride 2, a 2-way conflict), and the guide says no more about \
     how they are served; analyze each 4-byte part as a 4-byte access (--width 4, twice the stride)";

/// Why a matrix access is refused on the 1.x geometry.
pub(crate) const MATRIX_ON_1X: &str = "ldmatrix exists from compute capability 7.5 and stmatrix from 9.0; the 1.x \
     machine has neither, so a matrix access is analyzed on the modern geometry only";
/// Why a store sharing a word on [`Broadcast::OneWordPerCycle`](crate::Broadcast::OneWordPerCycle) is refused.
pub(crate) const SHARED_STORE_ON_1X: &str = "on compute capability 1.x the broadcast serves reads only (CUDA C \
     Programming Guide, compute capability 1.x, \"32-Bit Broadcast Access\"); of several lanes of a half-warp writing \
     one location it says only that one of them performs the write, not how long that takes, so a store whose \
     lanes share a word is not modelled there";

/// A distinct word of one transaction and the lanes (in order) still waiting for it.
#[derive(Debug, Clone)]
pub(crate) struct PendingWord {
    pub(crate) bank: u32,
    pub(crate) word: u64,
    pub(crate) lanes: Vec<u32>,
}

/// The distinct words of one transaction's `(lane, word)` accesses, in first-touch order, each
/// with its bank and the lanes reading it.
pub(crate) fn pending_words(accesses: &[(u32, u64)], bank: &impl Fn(u64) -> u32) -> Vec<PendingWord> {
    let mut words: Vec<PendingWord> = Vec::new();
    for &(lane, word) in accesses {
        match words.iter_mut().find(|w| w.word == word) {
            Some(w) => w.lanes.push(lane),
            None => words.push(PendingWord { bank: bank(word), word, lanes: vec![lane] }),
        }
    }
    words
}

/// Per bank, the lane counts of its distinct words, largest first.
pub(crate) fn bank_counts(words: &[PendingWord]) -> BTreeMap<u32, Vec<u32>> {
    let mut per_bank: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for w in words.iter().filter(|w| !w.lanes.is_empty()) {
        per_bank.entry(w.bank).or_default().push(w.lanes.len() as u32);
    }
    for counts in per_bank.values_mut() {
        counts.sort_unstable_by(|a, b| b.cmp(a));
    }
    per_bank
}

/// Broadcasts bank `b` must receive to finish within `t` cycles, if possible.
///
/// A bank given k broadcasts best spends them on its k most-read words and serves the rest one
/// access per cycle, finishing after `k + n - top_k` cycles; that is also a lower bound, because
/// a cycle either broadcasts one of its words or serves at most one of its accesses.
fn broadcasts_needed(counts: &[u32], t: u32) -> Option<u32> {
    let n: u32 = counts.iter().sum();
    let mut top = 0;
    for k in 0..=counts.len() {
        if k as u32 + n - top <= t {
            return Some(k as u32);
        }
        top += counts.get(k).copied().unwrap_or(0);
    }
    None
}

/// Fewest cycles under one-word-per-cycle broadcast: the least `t` for which the broadcasts the
/// banks need (one per cycle) fit into `t` cycles. Exact, see [`broadcasts_needed`].
pub(crate) fn best_one_word_cycles(per_bank: &BTreeMap<u32, Vec<u32>>) -> (u32, BTreeMap<u32, u32>) {
    let distinct: u32 = per_bank.values().map(|c| c.len() as u32).sum();
    for t in 1..=distinct {
        let needed: Option<BTreeMap<u32, u32>> =
            per_bank.iter().map(|(&b, c)| broadcasts_needed(c, t).map(|k| (b, k))).collect();
        if let Some(needed) = needed
            && needed.values().sum::<u32>() <= t
        {
            return (t, needed);
        }
    }
    // Broadcasting every distinct word once always works, so the loop returns for distinct >= 1.
    (distinct, per_bank.iter().map(|(&b, c)| (b, c.len() as u32)).collect())
}

/// Builds a best-case 1.x schedule: the broadcasts found by [`best_one_word_cycles`] go first
/// (largest words first); other banks meanwhile serve one access of a word that will not be
/// broadcast. Later cycles broadcast the most-read pending word.
pub(crate) fn serve_one_word_best(words: &[PendingWord]) -> Vec<Vec<BankCell>> {
    let mut words = words.to_vec();
    let per_bank = bank_counts(&words);
    let (_, needed) = best_one_word_cycles(&per_bank);
    let mut jobs: Vec<usize> = Vec::new();
    for (&b, &k) in &needed {
        let mut mine: Vec<usize> = (0..words.len()).filter(|&i| words[i].bank == b).collect();
        mine.sort_by_key(|&i| std::cmp::Reverse(words[i].lanes.len()));
        jobs.extend(mine.into_iter().take(k as usize));
    }
    jobs.sort_by_key(|&i| (std::cmp::Reverse(words[i].lanes.len()), i));
    let mut is_job = vec![false; words.len()];
    for &j in &jobs {
        is_job[j] = true;
    }

    let mut passes = Vec::new();
    while words.iter().any(|w| !w.lanes.is_empty()) {
        let t = passes.len();
        let chosen = jobs.get(t).copied().filter(|&j| !words[j].lanes.is_empty()).or_else(|| {
            (0..words.len())
                .filter(|&i| !words[i].lanes.is_empty())
                .max_by_key(|&i| (words[i].lanes.len(), usize::MAX - i))
        });
        let Some(chosen) = chosen else { break };
        if let Some(&j) = jobs.get(t) {
            is_job[j] = false;
        }
        is_job[chosen] = false;
        let cast = &mut words[chosen];
        let mut cells = vec![BankCell { bank: cast.bank, word: cast.word, lanes: std::mem::take(&mut cast.lanes) }];
        let cast_bank = cells[0].bank;
        let mut busy: Vec<u32> = vec![cast_bank];
        for pass in [false, true] {
            // First pass: words not awaiting a broadcast; second: anything, so no bank idles.
            for i in 0..words.len() {
                let w = &mut words[i];
                if w.lanes.is_empty() || busy.contains(&w.bank) || (!pass && is_job[i]) {
                    continue;
                }
                busy.push(w.bank);
                let lane = w.lanes.remove(0);
                cells.push(BankCell { bank: w.bank, word: w.word, lanes: vec![lane] });
            }
        }
        passes.push(cells);
    }
    passes
}

/// Canonical 1.x state: per busy bank its word counts (descending), banks sorted.
type State = Vec<Vec<u32>>;

fn canonical(mut state: State) -> State {
    state.retain(|b| !b.is_empty());
    for b in &mut state {
        b.retain(|&c| c > 0);
        b.sort_unstable_by(|x, y| y.cmp(x));
    }
    state.retain(|b| !b.is_empty());
    state.sort_unstable();
    state
}

/// Most cycles any choice of broadcast word and per-bank access can take. Exhaustive search
/// over canonical states (lane identities do not matter); if it exceeds its budget, a
/// pessimistic greedy schedule is used and the result is marked inexact.
pub(crate) fn worst_one_word(words: &[PendingWord]) -> (u32, bool) {
    let start: State = canonical(bank_counts(words).into_values().collect());
    let mut memo = HashMap::new();
    let mut budget: u64 = 50_000; // bounds the cost of one call to roughly 100 ms unoptimized
    match worst_search(&start, &mut memo, &mut budget) {
        Some(w) => (w, true),
        None => (worst_greedy(start), false),
    }
}

fn worst_search(state: &State, memo: &mut HashMap<State, u32>, budget: &mut u64) -> Option<u32> {
    if state.is_empty() {
        return Some(0);
    }
    if let Some(&v) = memo.get(state) {
        return Some(v);
    }
    let mut best = 0;
    for i in 0..state.len() {
        if i > 0 && state[i] == state[i - 1] {
            continue;
        }
        let mut values = state[i].clone();
        values.dedup();
        for v in values {
            let mut next = state.clone();
            if let Some(pos) = next[i].iter().position(|&c| c == v) {
                next[i].remove(pos);
            }
            let others: Vec<usize> = (0..state.len()).filter(|&j| j != i).collect();
            best = best.max(worst_over_normal_ops(&mut next, &others, memo, budget)?);
        }
    }
    let value = best + 1;
    memo.insert(state.clone(), value);
    Some(value)
}

/// Tries every choice of one decremented word in each bank of `others`, then recurses.
fn worst_over_normal_ops(
    next: &mut State,
    others: &[usize],
    memo: &mut HashMap<State, u32>,
    budget: &mut u64,
) -> Option<u32> {
    *budget = budget.checked_sub(1)?;
    let Some((&j, rest)) = others.split_first() else {
        return worst_search(&canonical(next.clone()), memo, budget);
    };
    let mut values = next[j].clone();
    values.dedup();
    let mut best = 0;
    for v in values {
        let Some(pos) = next[j].iter().position(|&c| c == v) else {
            continue;
        };
        next[j][pos] -= 1;
        let r = worst_over_normal_ops(next, rest, memo, budget);
        next[j][pos] += 1;
        best = best.max(r?);
    }
    Some(best)
}

/// Fallback worst case: broadcast the smallest word of the least-loaded bank, and elsewhere
/// serve the most-read word, keeping heavy banks busy one access at a time.
fn worst_greedy(mut state: State) -> u32 {
    let mut cycles = 0;
    while !state.is_empty() {
        cycles += 1;
        let lightest = (0..state.len()).min_by_key(|&i| state[i].iter().sum::<u32>()).unwrap_or(0);
        for (i, bank) in state.iter_mut().enumerate() {
            if i == lightest {
                bank.pop();
            } else if let Some(first) = bank.first_mut() {
                *first -= 1;
            }
        }
        state = canonical(state);
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::half_warp_bank5;
    use crate::testing::{XorShift, run};
    use crate::{Access, BankError, Geometry, Op, Width, analyze, named_patterns};

    /// "CUDA Programming Guide之shared memory的Bank Confict" (Figure 5-8 right): conflict-free if the bank-5 word is the broadcast, else 2-way.
    #[test]
    fn one_broadcast_word_best_and_worst() {
        let a = run(&half_warp_bank5(), &Geometry::HALF_WARP_16);
        assert_eq!(a.best_and_worst(), (1, 2));
        assert!(a.worst_exact);
        assert_eq!(a.waves[0].broadcast_lanes, vec![5, 6, 7, 8, 9]);
        assert_eq!(a.waves[0].lanes.len(), 16);
        // The modern machine broadcasts every shared word at once: always 1.
        let m = run(&half_warp_bank5(), &Geometry::MODERN);
        assert_eq!(m.best_and_worst(), (1, 1));
    }

    #[test]
    fn one_word_per_cycle_serializes_shared_words_outside_the_broadcast() {
        // Two words with 3 lanes each in bank 0: best 2 (broadcast each), worst 2 as well since a
        // lone bank is always the broadcast bank. Add a busy second bank and the worst grows.
        let a = Access::from_fn(Width::B4, 0x3F, |i| if i < 3 { 0 } else { 64 });
        let r = run(&a, &Geometry::HALF_WARP_16);
        assert_eq!(r.best_and_worst(), (2, 2));
        let b = Access::from_fn(Width::B4, 0xFF, |i| match i {
            0..=2 => 0,
            3..=5 => 64,
            _ => 4 + 64 * u64::from(i), // bank 1, distinct words
        });
        let r = run(&b, &Geometry::HALF_WARP_16);
        let (best, worst) = r.best_and_worst();
        assert_eq!(best, 2);
        assert!(worst > best, "worst {worst}");
    }

    /// The CUDA C Programming Guide's appendix on compute capability 1.x says that accesses
    /// wider than 32 bits are split into separate 32-bit accesses ("Larger Than 32-Bit Access":
    /// doubles at `shared[tid]`, two requests of stride 2, 2-way), and describes the broadcast
    /// for reads only. The half-/quarter-warp split and merge are the modern machine's, so the
    /// model refuses wide accesses on 1.x, and stores whose lanes share a word, rather than
    /// guess.
    #[test]
    fn half_warp_16_refuses_what_the_old_guide_does_not_say() {
        let h = Geometry::HALF_WARP_16;
        for width in [Width::B8, Width::B16] {
            for op in Op::ALL {
                let e = analyze(&Access::strided(width, 0, 1).with_op(op), &h).unwrap_err();
                assert!(matches!(e, BankError::NotModelled(_)), "{width:?} {op}");
                assert!(e.to_string().contains("Larger Than 32-Bit Access"), "{e}");
                // The modern machine is unaffected.
                assert!(analyze(&Access::strided(width, 0, 1).with_op(op), &Geometry::MODERN).is_ok());
            }
        }
        // The guide's own advice: the double's two 32-bit halves, each at stride 2, 2-way per half-warp.
        let half = run(&Access::strided(Width::B4, 0, 2), &h);
        assert_eq!((half.transactions(), half.degree()), (2, 2));
        // Stores: distinct words are the strided rule; shared words are refused.
        let store = |a: Access| analyze(&a.with_op(Op::Store), &h);
        assert_eq!(store(Access::strided(Width::B4, 0, 1)).unwrap().wavefronts(), 2);
        assert_eq!(store(Access::strided(Width::B4, 0, 16)).unwrap().wavefronts(), 32);
        let e = store(Access::strided(Width::B4, 12, 0)).unwrap_err();
        assert!(matches!(e, BankError::NotModelled(_)) && e.to_string().contains("reads only"), "{e}");
        assert!(matches!(store(Access::strided(Width::B1, 0, 1)), Err(BankError::NotModelled(_))));
        assert!(store(Access::strided(Width::B1, 0, 4)).is_ok(), "bytes in different words");
        // Lanes 0 and 16 share a word but not a half-warp: two separate requests.
        assert!(store(Access::from_fn(Width::B4, u32::MAX, |i| 4 * u64::from(i % 16))).is_ok());
        // Reads keep the guide's broadcast, and every named 1.x pattern still loads.
        assert!(analyze(&Access::strided(Width::B4, 12, 0), &h).is_ok());
        assert!(analyze(&Access::strided(Width::B1, 0, 1), &h).unwrap().wavefronts() > 2, "chars conflict on 1.x");
        for p in named_patterns().into_iter().filter(|p| p.geometry == h) {
            assert!(analyze(&p.access, &h).is_ok(), "{}", p.name);
        }
        // Nothing active: nothing to refuse.
        assert_eq!(analyze(&Access::strided(Width::B8, 0, 1).with_mask(0), &h).unwrap().wavefronts(), 0);
    }

    /// The exhaustive worst case agrees with brute force over real lane-level choices on tiny inputs.
    #[test]
    fn worst_case_search_matches_brute_force() {
        fn brute(words: &[PendingWord]) -> u32 {
            let pending: Vec<usize> = (0..words.len()).filter(|&i| !words[i].lanes.is_empty()).collect();
            if pending.is_empty() {
                return 0;
            }
            let mut best = 0;
            for &cast in &pending {
                let mut next = words.to_vec();
                next[cast].lanes.clear();
                let banks: Vec<u32> = {
                    let mut b: Vec<u32> =
                        pending.iter().map(|&i| words[i].bank).filter(|&b| b != words[cast].bank).collect();
                    b.sort_unstable();
                    b.dedup();
                    b
                };
                best = best.max(brute_ops(&mut next, &banks));
            }
            best + 1
        }
        fn brute_ops(words: &mut Vec<PendingWord>, banks: &[u32]) -> u32 {
            let Some((&b, rest)) = banks.split_first() else {
                return brute(words);
            };
            let mut best = 0;
            for i in 0..words.len() {
                if words[i].bank == b && !words[i].lanes.is_empty() {
                    let lane = words[i].lanes.remove(0);
                    best = best.max(brute_ops(words, rest));
                    words[i].lanes.insert(0, lane);
                }
            }
            best
        }
        let mut rng = XorShift(12345);
        for _ in 0..300 {
            let lanes = 1 + rng.below(7) as u32;
            let addrs: Vec<u64> = (0..lanes).map(|_| 4 * (rng.below(3) + 16 * rng.below(2))).collect();
            let bank = |w: u64| (w % 16) as u32;
            let accesses: Vec<(u32, u64)> = addrs.iter().enumerate().map(|(l, &a)| (l as u32, a / 4)).collect();
            let words = pending_words(&accesses, &bank);
            let (worst, exact) = worst_one_word(&words);
            assert!(exact);
            assert_eq!(worst, brute(&words), "{addrs:?}");
            assert!(worst_greedy(canonical(bank_counts(&words).into_values().collect())) <= worst);
        }
    }
}
