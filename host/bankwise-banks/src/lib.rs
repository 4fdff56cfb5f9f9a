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

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Number of lanes an [`Access`] can describe: one warp.
pub const MAX_LANES: usize = 32;

/// Size of each lane's access, as in `LDS.U8` / `LDS.U16` / `LDS` / `LDS.64` / `LDS.128`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// 1 byte (`char`).
    B1,
    /// 2 bytes (`short`, `half`).
    B2,
    /// 4 bytes (`float`, `int`).
    B4,
    /// 8 bytes (`double`, `float2`), LDS.64.
    B8,
    /// 16 bytes (`float4`, `uint4`), LDS.128.
    B16,
}

impl Width {
    /// Size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Width::B1 => 1,
            Width::B2 => 2,
            Width::B4 => 4,
            Width::B8 => 8,
            Width::B16 => 16,
        }
    }

    /// The width of `bytes` bytes, if it is one of 1, 2, 4, 8, 16.
    pub const fn from_bytes(bytes: u32) -> Option<Width> {
        match bytes {
            1 => Some(Width::B1),
            2 => Some(Width::B2),
            4 => Some(Width::B4),
            8 => Some(Width::B8),
            16 => Some(Width::B16),
            _ => None,
        }
    }
}

/// How lanes that read the same word share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Broadcast {
    /// Any number of distinct words can be multicast in one wavefront (Fermi and later).
    AnyWords,
    /// Compute capability 1.x: one word per cycle is broadcast; every other bank serves at most
    /// one access, even if several lanes read the same word of it.
    OneWordPerCycle,
}

/// A shared-memory bank layout and the way a warp's request is cut and served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Number of banks.
    pub banks: u32,
    /// Width of one bank word in bytes (a power of two).
    pub bank_bytes: u32,
    /// Lanes in a warp (at most [`MAX_LANES`]).
    pub warp_lanes: u32,
    /// Lanes served by one request for accesses of at most `bank_bytes`; must divide `warp_lanes`.
    pub request_lanes: u32,
    /// Broadcast capability.
    pub broadcast: Broadcast,
}

impl Geometry {
    /// Every NVIDIA GPU since Fermi: 32 banks of 4 bytes, the whole warp in one request.
    pub const MODERN: Geometry =
        Geometry { banks: 32, bank_bytes: 4, warp_lanes: 32, request_lanes: 32, broadcast: Broadcast::AnyWords };

    /// Compute capability 1.x: 16 banks of 4 bytes, one request per half-warp, one broadcast
    /// word per cycle.
    pub const HALF_WARP_16: Geometry =
        Geometry { banks: 16, bank_bytes: 4, warp_lanes: 32, request_lanes: 16, broadcast: Broadcast::OneWordPerCycle };

    /// Checks the invariants [`analyze`] relies on.
    pub fn validate(&self) -> Result<(), BankError> {
        let bad = |why: &'static str| Err(BankError::InvalidGeometry(why));
        if self.banks == 0 {
            return bad("banks must be at least 1");
        }
        if self.banks > 1024 {
            return bad("banks must be at most 1024");
        }
        if !self.bank_bytes.is_power_of_two() || self.bank_bytes > 16 {
            // Words must nest inside aligned accesses (or vice versa) for "same word" to be exact.
            return bad("bank_bytes must be a power of two between 1 and 16");
        }
        if self.warp_lanes == 0 || self.warp_lanes as usize > MAX_LANES {
            return bad("warp_lanes must be between 1 and 32");
        }
        if self.request_lanes == 0 || self.request_lanes > self.warp_lanes {
            return bad("request_lanes must be between 1 and warp_lanes");
        }
        if !self.warp_lanes.is_multiple_of(self.request_lanes) {
            return bad("request_lanes must divide warp_lanes");
        }
        Ok(())
    }

    /// Bank holding `byte_address`, or `None` if `banks` or `bank_bytes` is zero.
    pub fn bank_of(&self, byte_address: u64) -> Option<u32> {
        let word = byte_address.checked_div(u64::from(self.bank_bytes))?;
        word.checked_rem(u64::from(self.banks)).map(|b| b as u32)
    }
}

/// Why a request cannot be analyzed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BankError {
    /// The hardware faults on unaligned shared-memory accesses.
    #[error("lane {lane}: address {address:#x} is not aligned to the {width}-byte access width")]
    Misaligned {
        /// Offending lane.
        lane: u32,
        /// Its byte address.
        address: u64,
        /// Access width in bytes.
        width: u32,
    },
    /// The geometry breaks an invariant (see [`Geometry::validate`]).
    #[error("invalid geometry: {0}")]
    InvalidGeometry(&'static str),
    /// An active lane does not exist in the geometry's warp.
    #[error("lane {lane} is active but the warp has only {warp_lanes} lanes")]
    LaneOutOfRange {
        /// Offending lane.
        lane: u32,
        /// Lanes in the geometry's warp.
        warp_lanes: u32,
    },
    /// The sources say nothing about how this access is served on this geometry, so the model
    /// does not guess (compute capability 1.x: wide accesses, and stores that share a word).
    #[error("not modelled: {0}")]
    NotModelled(&'static str),
}

/// Why a wide access on [`Broadcast::OneWordPerCycle`] is refused.
const WIDE_ON_1X: &str = "on compute capability 1.x an access wider than a bank word is split into separate \
     32-bit accesses (CUDA C Programming Guide, compute capability 1.x, \"Larger Than 32-Bit Access\": a double \
     read at shared[tid] is two 32-bit requests of stride 2, a 2-way conflict), and the guide says no more about \
     how they are served; analyze each 4-byte part as a 4-byte access (--width 4, twice the stride)";

/// Why a store sharing a word on [`Broadcast::OneWordPerCycle`] is refused.
const SHARED_STORE_ON_1X: &str = "on compute capability 1.x the broadcast serves reads only (CUDA C Programming \
     Guide, compute capability 1.x, \"32-Bit Broadcast Access\"); of several lanes of a half-warp writing one \
     location it says only that one of them performs the write, not how long that takes, so a store whose \
     lanes share a word is not modelled there";

/// Whether a warp reads or writes shared memory. It matters only for 8- and 16-byte accesses:
/// the half- or quarter-warps of a *load* merge under the conditions of the article
/// "Cuda 中的bank conflict 和 向量化访存", those of a store
/// never do (measured on an H100 with Nsight Compute: `docs/banks.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Op {
    /// `LDS*`.
    #[default]
    Load,
    /// `STS*`.
    Store,
}

impl Op {
    /// Both, in table order.
    pub const ALL: [Op; 2] = [Op::Load, Op::Store];
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Load => "load",
            Op::Store => "store",
        })
    }
}

/// One warp-wide shared-memory access: which byte address each lane touches (`None` =
/// inactive), how wide, and whether it loads or stores.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Access {
    /// Bytes per lane.
    pub width: Width,
    /// Byte address per lane; `None` for inactive lanes.
    pub addresses: [Option<u64>; MAX_LANES],
    /// Load or store.
    pub op: Op,
}

impl Access {
    /// Lanes set in `active_mask` read address `f(lane)`.
    pub fn from_fn(width: Width, active_mask: u32, f: impl Fn(u32) -> u64) -> Access {
        let addresses = std::array::from_fn(|i| {
            let lane = i as u32;
            (active_mask >> lane & 1 == 1).then(|| f(lane))
        });
        Access { width, addresses, op: Op::Load }
    }

    /// The same addresses, loaded or stored.
    pub fn with_op(mut self, op: Op) -> Access {
        self.op = op;
        self
    }

    /// All 32 lanes active; lane `i` reads element `i * stride_elems` of an array of `width`-sized
    /// elements starting at `base_bytes` (address arithmetic wraps rather than panicking).
    pub fn strided(width: Width, base_bytes: u64, stride_elems: u64) -> Access {
        let elem = u64::from(width.bytes());
        Access::from_fn(width, u32::MAX, |i| {
            base_bytes.wrapping_add(u64::from(i).wrapping_mul(stride_elems).wrapping_mul(elem))
        })
    }

    /// Deactivates the lanes not set in `mask` (lanes already inactive stay inactive).
    pub fn with_mask(mut self, mask: u32) -> Access {
        for (lane, a) in self.addresses.iter_mut().enumerate() {
            if mask >> lane & 1 == 0 {
                *a = None;
            }
        }
        self
    }

    /// Bit `i` set iff lane `i` is active.
    pub fn active_mask(&self) -> u32 {
        self.addresses.iter().enumerate().filter(|(_, a)| a.is_some()).fold(0, |m, (i, _)| m | 1 << i)
    }

    /// Number of active lanes.
    pub fn active_lanes(&self) -> u32 {
        self.active_mask().count_ones()
    }
}

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
    if one_word && access.op == Op::Store {
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
    let row_bytes = u64::from(g.banks) * bank_bytes;
    let mut piece = u64::from(g.request_lanes);
    let mut merged = false;
    if width > g.bank_bytes {
        piece = (row_bytes / u64::from(width)).clamp(1, u64::from(g.request_lanes));
        if piece < u64::from(g.request_lanes) {
            let addr = |l: usize| lane_words.get(l).and_then(|lw| lw.as_ref().map(|(a, _)| *a));
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
                let words = pending_words(&accesses, &bank);
                let passes = serve_one_word_best(&words);
                let (worst, exact) = worst_one_word(&words);
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

/// A distinct word of one transaction and the lanes (in order) still waiting for it.
#[derive(Debug, Clone)]
struct PendingWord {
    bank: u32,
    word: u64,
    lanes: Vec<u32>,
}

fn pending_words(accesses: &[(u32, u64)], bank: &impl Fn(u64) -> u32) -> Vec<PendingWord> {
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
fn bank_counts(words: &[PendingWord]) -> BTreeMap<u32, Vec<u32>> {
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
fn best_one_word_cycles(per_bank: &BTreeMap<u32, Vec<u32>>) -> (u32, BTreeMap<u32, u32>) {
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
fn serve_one_word_best(words: &[PendingWord]) -> Vec<Vec<BankCell>> {
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
fn worst_one_word(words: &[PendingWord]) -> (u32, bool) {
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

/// A documented access pattern with its expected cost, used by tests and examples.
#[derive(Debug, Clone)]
pub struct NamedPattern {
    /// Short identifier, e.g. `"column"`.
    pub name: &'static str,
    /// What the kernel does and why it costs what it costs.
    pub description: &'static str,
    /// The access.
    pub access: Access,
    /// The machine.
    pub geometry: Geometry,
    /// Wavefronts (best case on 1.x).
    pub expected_wavefronts: u32,
    /// Transactions after splitting and merging.
    pub expected_transactions: u32,
}

/// The worked examples of the source material, each with its expected cost.
pub fn named_patterns() -> Vec<NamedPattern> {
    let m = Geometry::MODERN;
    let h = Geometry::HALF_WARP_16;
    let p = |name, description, access, geometry, expected_wavefronts, expected_transactions| NamedPattern {
        name,
        description,
        access,
        geometry,
        expected_wavefronts,
        expected_transactions,
    };
    let all = u32::MAX;
    vec![
        p("stride-1", "float x = s[tid]: one word per bank", Access::strided(Width::B4, 0, 1), m, 1, 1),
        p("stride-2", "float x = s[2*tid]: two lanes per bank, 2-way", Access::strided(Width::B4, 0, 2), m, 2, 1),
        p("row", "mem[tid]: consecutive words, conflict-free", Access::strided(Width::B4, 0, 1), m, 1, 1),
        p("column", "mem[32*tid]: every lane in bank 0, 32-way", Access::strided(Width::B4, 0, 32), m, 32, 1),
        p(
            "half-warp-base-tid",
            "16 banks: data[base+tid], one wavefront per half-warp",
            Access::strided(Width::B4, 4 * 5, 1),
            h,
            2,
            2,
        ),
        p(
            "half-warp-stride-4",
            "16 banks: data[base+4*tid], 4 lanes per bank per half-warp, 4-way",
            Access::strided(Width::B4, 4 * 5, 4),
            h,
            8,
            2,
        ),
        p(
            "half-warp-broadcast",
            "16 banks: data[3] in every lane, one broadcast per half-warp",
            Access::strided(Width::B4, 4 * 3, 0),
            h,
            2,
            2,
        ),
        p(
            "half-warp-stride-16",
            "16 banks: data[16*tid], every lane of a half-warp in bank 0, 16-way",
            Access::strided(Width::B4, 0, 16),
            h,
            32,
            2,
        ),
        p(
            "half-warp-padded-17",
            "16 banks: data[17*tid] after padding rows to 17, conflict-free",
            Access::strided(Width::B4, 0, 17),
            h,
            2,
            2,
        ),
        p(
            "half-warp-bank5-broadcast",
            "16 banks, one half-warp: lanes 5-9 read one word of bank 5, the others distinct banks; \
             1 cycle if that word is the broadcast, 2 otherwise",
            half_warp_bank5(),
            h,
            1,
            1,
        ),
        p(
            "lds64-case1",
            "LDS.64: lane i reads uint2 i; no merge, one transaction per half-warp",
            Access::from_fn(Width::B8, all, |i| 8 * u64::from(i)),
            m,
            2,
            2,
        ),
        p(
            "lds64-case2",
            "LDS.64: lanes 2k and 2k+1 read uint2 k; condition A merges the warp into one transaction",
            Access::from_fn(Width::B8, all, |i| 8 * u64::from(i / 2)),
            m,
            1,
            1,
        ),
        p(
            "lds128-case1",
            "LDS.128: only quarter-warps 0 and 2 active, consecutive uint4s; one transaction per half-warp",
            Access::from_fn(Width::B16, 0x00FF_00FF, |i| 16 * u64::from(if i < 16 { i } else { i - 8 })),
            m,
            2,
            2,
        ),
        p(
            "lds128-case2",
            "LDS.128: even lanes of half-warp 0 read uint4 0..7; odd lanes inactive, so condition A \
             merges both quarter-warps",
            Access::from_fn(Width::B16, 0x5555, |i| 16 * u64::from(i / 2)),
            m,
            1,
            1,
        ),
        p(
            "lds128-case3",
            "LDS.128: lanes 2k and 2k+1 read uint4 k; condition A merges quarter-warps within each half-warp",
            Access::from_fn(Width::B16, all, |i| 16 * u64::from(i / 2)),
            m,
            2,
            2,
        ),
        p(
            "lds128-case4",
            "LDS.128: half-warp 0 pairs lanes i, i^1; half-warp 1 pairs i, i^2; neither condition holds \
             over the whole warp, so four quarter-warp transactions",
            Access::from_fn(Width::B16, all, lds128_case4),
            m,
            4,
            4,
        ),
        p(
            "lds128-case5",
            "LDS.128: lanes 0-3 read uint4 0, 4-7 uint4 8, 8-11 uint4 1, 12-15 uint4 9 (and 2, 10, 3, 11 in \
             half-warp 1); merged, but uint4 n and n+8 share banks: 2-way per half-warp",
            Access::from_fn(Width::B16, all, lds128_case5),
            m,
            4,
            2,
        ),
        p(
            "transpose-tile-column",
            "float tile[32][32]; tile[tid][c]: a column, all lanes in one bank, 32-way",
            Access::from_fn(Width::B4, all, |i| 4 * (32 * u64::from(i) + 3)),
            m,
            32,
            1,
        ),
        p(
            "transpose-padded-column",
            "float tile[32][33]; tile[tid][c]: pitch 33 puts lane i in bank i + c, conflict-free",
            Access::from_fn(Width::B4, all, |i| 4 * (33 * u64::from(i) + 3)),
            m,
            1,
            1,
        ),
        p(
            "transpose-f64-column",
            "double tile[32][32]; tile[tid][c]: each half-warp hits banks 2c, 2c+1 only, 16-way",
            Access::from_fn(Width::B8, all, |i| 8 * (32 * u64::from(i) + 3)),
            m,
            32,
            2,
        ),
        p(
            "transpose-f64-padded-column",
            "double tile[32][33]; tile[tid][c]: within a half-warp lane i uses banks 2(i+c), 2(i+c)+1, \
             all distinct; two transactions because 256 bytes are read, but no conflict",
            Access::from_fn(Width::B8, all, |i| 8 * (33 * u64::from(i) + 3)),
            m,
            2,
            2,
        ),
        p(
            "bytes-one-word",
            "char c = s[tid]: four lanes per word, 8 words, one wavefront",
            Access::strided(Width::B1, 0, 1),
            m,
            1,
            1,
        ),
    ]
}

/// The article "CUDA Programming Guide之shared memory的Bank Confict" (from the CUDA 2.0 guide's
/// Figure 5-8, right): lanes 5-9 read the same word of bank 5; lanes
/// 0-4 and 10-15 read one word each in their own bank; the other half-warp is inactive.
fn half_warp_bank5() -> Access {
    Access::from_fn(Width::B4, 0xFFFF, |i| match i {
        5..=9 => 4 * (16 + 5),
        0..=4 => 4 * u64::from(i),
        _ => 4 * (32 + u64::from(i)),
    })
}

/// Half-warp 0: lanes i and i^1 share uint4 i/2 (condition A holds there). Half-warp 1: lanes
/// i and i^2 share a uint4 (condition B holds there), numbered 8..15.
fn lds128_case4(i: u32) -> u64 {
    let index = if i < 16 {
        i / 2
    } else {
        let j = i - 16;
        8 + ((j >> 2) << 1 | (j & 1))
    };
    16 * u64::from(index)
}

/// Case 5 of "Cuda 中的bank conflict 和 向量化访存": quarter-warp q, its first four lanes read uint4 q, its last four uint4 q+8
/// (one 128-byte row further down, hence the same banks).
fn lds128_case5(i: u32) -> u64 {
    let quarter = i / 8;
    let second_row = (i % 8) / 4;
    16 * u64::from(quarter + 8 * second_row)
}

const RED: &str = "\x1b[31m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// One line: how many lanes, transactions and wavefronts, and the verdict.
pub fn summary(analysis: &Analysis, geometry: &Geometry) -> String {
    let plural = |n: u32, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let a = analysis;
    let mut s = format!("{}, {}-byte accesses: ", plural(a.active_lanes, "lane"), a.width.bytes());
    if a.active_lanes == 0 {
        s.push_str("nothing to do");
        return s;
    }
    let _ = write!(s, "{}, {} → ", plural(a.transactions(), "transaction"), plural(a.wavefronts(), "wavefront"));
    if a.is_conflict_free() {
        s.push_str("conflict-free");
    } else {
        let extra = plural(a.conflicts(), "wavefront").replacen(' ', " extra ", 1);
        let _ = write!(s, "{}-way conflict ({extra})", a.degree());
    }
    let (best, worst) = a.best_and_worst();
    if geometry.broadcast == Broadcast::OneWordPerCycle {
        let bound = if a.worst_exact { "" } else { "at least " };
        let _ = write!(s, "; best case shown, worst case {bound}{}", plural(worst, "wavefront"));
        debug_assert!(best <= worst);
    }
    s
}

fn cell_text(cell: Option<&BankCell>) -> (String, bool) {
    match cell {
        None => ("·".to_string(), false),
        Some(c) => {
            let first = c.lanes.first().copied().unwrap_or(0);
            if c.lanes.len() > 1 { (format!("{first}*"), true) } else { (first.to_string(), false) }
        }
    }
}

/// What the rows, columns, cells and colours of a bank map mean, in a few lines (indented by
/// two spaces after the first). The colour line only with `color`, its colour names coloured.
pub fn legend_text(color: bool) -> String {
    let mut s = String::from(
        "legend: columns are banks; row tT.wW is wavefront W of transaction T (the request, or its half- or\n  \
         quarter-warp piece; W ≥ 1 is a replay: a conflict); a cell is the lane that bank serves, n* a word\n  \
         broadcast to lane n and others (n the lowest), · an idle bank\n",
    );
    if color {
        let _ =
            writeln!(s, "  colours: {RED}red row{RESET} = a replay (conflict), {CYAN}cyan cell{RESET} = a broadcast");
    }
    s
}

/// A bank map for terminals: one column per bank, one row per wavefront, each cell the lowest
/// lane served (`*` = broadcast to several lanes, `·` = idle bank), then [`legend_text`] and
/// [`summary`]. With `color`, replays (conflict rows) are red and broadcast cells cyan.
pub fn render_text(analysis: &Analysis, geometry: &Geometry, color: bool) -> String {
    let col = 4;
    let mut out = String::new();
    let _ = write!(out, "{:>8} │", "wave");
    for b in 0..geometry.banks {
        let _ = write!(out, "{b:>col$}");
    }
    out.push('\n');
    let _ = writeln!(out, "{}┼{}", "─".repeat(9), "─".repeat(col * geometry.banks as usize));
    for w in &analysis.waves {
        let label = format!("t{}.w{}", w.transaction, w.index);
        let conflict = color && w.is_conflict();
        if conflict {
            out.push_str(RED);
        }
        let _ = write!(out, "{label:>8} │");
        for b in 0..geometry.banks {
            let (text, broadcast) = cell_text(w.cell(b));
            let pad = col.saturating_sub(text.chars().count());
            out.push_str(&" ".repeat(pad));
            if color && broadcast {
                let _ = write!(out, "{CYAN}{text}{RESET}");
                if conflict {
                    out.push_str(RED);
                }
            } else {
                out.push_str(&text);
            }
        }
        if conflict {
            out.push_str(RESET);
        }
        out.push('\n');
    }
    out.push_str(&legend_text(color));
    out.push_str(&summary(analysis, geometry));
    out.push('\n');
    out
}

/// Splits `text` at spaces into lines of at most `max_chars` characters (a longer word gets a
/// line of its own).
fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max_chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Monospace advance width in pixels per character at font size `px` (0.6 em, rounded up).
fn advance(px: u32) -> f64 {
    0.61 * f64::from(px)
}

fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {} // not allowed in XML 1.0
            c => out.push(c),
        }
    }
    out
}

/// The bank map as a standalone SVG: bank columns × wavefront rows (one `class="cell"` rect
/// each), lane numbers in cells, conflict rows and broadcast cells shaded, a legend, a note on
/// the labels and the [`summary`]. `title` and the notes wrap at the map's width (at least
/// 540 pixels), so none runs past the edge.
pub fn render_svg(analysis: &Analysis, geometry: &Geometry, title: &str) -> String {
    let (cw, ch, left) = (30u32, 22u32, 70u32);
    let rows = analysis.waves.len() as u32;
    // At least wide enough for the colour legend; the title and the notes below the map wrap.
    let width = (left + cw * geometry.banks + 20).max(540);
    let fits = |px: u32| ((f64::from(width - 20) / advance(px)).floor() as usize).max(1);
    let title_lines = wrap(title, fits(14));
    let top = 56 + 18 * (title_lines.len() as u32 - 1);
    let mut notes = wrap(
        "columns: banks; row tT.wW: wavefront W of transaction T (W ≥ 1: a replay); cell: the lane served, \
         n* a word broadcast to lane n and others",
        fits(11),
    );
    notes.extend(wrap(&summary(analysis, geometry), fits(11)));
    let height = top + ch * rows + 52 + 16 * notes.len() as u32;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#);
    for (i, line) in title_lines.iter().enumerate() {
        let y = 20 + 18 * i as u32;
        let _ = writeln!(
            s,
            r#"<text class="title" x="10" y="{y}" font-size="14" font-weight="bold">{}</text>"#,
            escape_xml(line)
        );
    }
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">bank</text>"#, left - 6, top - 8);
    for b in 0..geometry.banks {
        let x = left + b * cw + cw / 2;
        let _ = writeln!(s, r#"<text x="{x}" y="{}" text-anchor="middle">{b}</text>"#, top - 8);
    }
    for (r, w) in analysis.waves.iter().enumerate() {
        let y = top + r as u32 * ch;
        let label = format!("t{}.w{}", w.transaction, w.index);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{label}</text>"#, left - 6, y + 15);
        for b in 0..geometry.banks {
            let x = left + b * cw;
            let cell = w.cell(b);
            let (text, broadcast) = cell_text(cell);
            let fill = match (cell.is_some(), broadcast, w.is_conflict()) {
                (_, true, _) => "#b2ebf2",
                (true, false, true) => "#ffcdd2",
                (true, false, false) => "#e8f5e9",
                (false, _, true) => "#fff0f0",
                (false, _, false) => "#fafafa",
            };
            let _ = writeln!(
                s,
                r##"<rect class="cell" x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" stroke="#999"/>"##
            );
            if cell.is_some() {
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                    x + cw / 2,
                    y + 15,
                    escape_xml(&text)
                );
            }
        }
        if w.is_conflict() {
            let _ = writeln!(
                s,
                r##"<rect class="conflict-row" x="{left}" y="{y}" width="{}" height="{ch}" fill="none" stroke="#d32f2f" stroke-width="2"/>"##,
                cw * geometry.banks
            );
        }
    }
    let ly = top + rows * ch + 16;
    let legend = [("#e8f5e9", "served"), ("#b2ebf2", "broadcast (n*)"), ("#ffcdd2", "conflict (replay)")];
    for (i, (fill, name)) in legend.iter().enumerate() {
        let x = 10 + i as u32 * 150;
        let _ = writeln!(
            s,
            r##"<rect class="legend" x="{x}" y="{ly}" width="14" height="14" fill="{fill}" stroke="#999"/>"##
        );
        let _ = writeln!(s, r#"<text x="{}" y="{}">{name}</text>"#, x + 20, ly + 11);
    }
    for (i, line) in notes.iter().enumerate() {
        let y = ly + 36 + 16 * i as u32;
        let _ = writeln!(s, r#"<text class="note" x="10" y="{y}">{}</text>"#, escape_xml(line));
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    fn run(access: &Access, g: &Geometry) -> Analysis {
        analyze(access, g).expect("valid access")
    }

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

    #[test]
    fn named_patterns_match_expectations() {
        let patterns = named_patterns();
        for p in &patterns {
            let a = run(&p.access, &p.geometry);
            assert_eq!(
                a.wavefronts(),
                p.expected_wavefronts,
                "{}: wavefronts\n{}",
                p.name,
                render_text(&a, &p.geometry, false)
            );
            assert_eq!(a.transactions(), p.expected_transactions, "{}: transactions", p.name);
        }
        let mut names: Vec<_> = patterns.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), patterns.len(), "names are unique");
        for required in [
            "half-warp-bank5-broadcast",
            "column",
            "half-warp-broadcast",
            "half-warp-stride-4",
            "half-warp-padded-17",
            "lds64-case1",
            "lds64-case2",
            "lds128-case1",
            "lds128-case5",
            "transpose-tile-column",
            "transpose-padded-column",
        ] {
            assert!(names.contains(&required), "{required} missing");
        }
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
    ///    [`lds128_case4`].
    /// 5. Spelled out in the text: [`lds128_case5`]; merged, 2-way in each half-warp.
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

    #[test]
    fn text_rendering() {
        let a = run(&Access::strided(Width::B4, 0, 32), &Geometry::MODERN);
        let plain = render_text(&a, &Geometry::MODERN, false);
        // Header and rule, 32 wavefronts, the 3-line legend, the summary.
        assert_eq!(plain.lines().count(), 2 + 32 + 3 + 1);
        assert!(plain.ends_with(
            "32 lanes, 4-byte accesses: 1 transaction, 32 wavefronts → 32-way conflict (31 extra wavefronts)\n"
        ));
        assert!(plain.contains(&legend_text(false)));
        assert!(!plain.contains('\x1b'));
        let colored = render_text(&a, &Geometry::MODERN, true);
        assert_eq!(colored.matches(RED).count(), 31 + 1, "every replay row is red, and the legend says so");
        assert!(colored.contains(&legend_text(true)));
        let b = run(&Access::strided(Width::B4, 12, 0), &Geometry::HALF_WARP_16);
        let text = render_text(&b, &Geometry::HALF_WARP_16, true);
        assert!(text.contains(&format!("{CYAN}0*{RESET}")));
        assert!(text.contains("conflict-free; best case shown, worst case 2 wavefronts"));
    }

    #[test]
    fn the_text_legend_explains_labels_cells_and_colours() {
        let plain = legend_text(false);
        assert_eq!(plain.lines().count(), 3);
        for needle in ["columns are banks", "tT.wW", "wavefront W of transaction T", "replay", "n*", "· an idle bank"]
        {
            assert!(plain.contains(needle), "{needle}: {plain}");
        }
        assert!(!plain.contains("colours"), "no colour line without colours");
        let colored = legend_text(true);
        assert!(colored.starts_with(&plain));
        assert!(colored.contains(&format!("{RED}red row{RESET} = a replay")));
        assert!(colored.contains(&format!("{CYAN}cyan cell{RESET} = a broadcast")));
        assert!(plain.lines().all(|l| l.chars().count() <= 9 + 4 * 32), "no wider than a 32-bank map");
    }

    /// Every line of text of every named pattern's SVG (title included) fits its width, at the
    /// monospace advance of 0.6 em.
    #[test]
    fn svg_text_fits_its_width() {
        let attr = |tag: &str, name: &str| -> u32 {
            let start = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            tag[start..].split('"').next().unwrap().parse().unwrap()
        };
        let mut wrapped = 0;
        for p in named_patterns() {
            let a = run(&p.access, &p.geometry);
            let title = format!("{}: {}", p.name, p.description);
            let svg = render_svg(&a, &p.geometry, &title);
            let width = attr(svg.lines().next().unwrap(), "width");
            let titles: Vec<&str> = svg.lines().filter(|l| l.contains(r#"class="title""#)).collect();
            wrapped += usize::from(titles.len() > 1);
            for line in svg.lines().filter(|l| l.starts_with("<text")) {
                let px = if line.contains(r#"font-size="14""#) { 14 } else { 11 };
                let text = line.split('>').nth(1).unwrap().trim_end_matches("</text");
                let chars = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").chars().count();
                let x = attr(line, "x");
                let end = if line.contains(r#"text-anchor="end""#) || line.contains("middle") {
                    f64::from(x)
                } else {
                    f64::from(x) + chars as f64 * 0.6 * f64::from(px)
                };
                assert!(end <= f64::from(width), "{}: {line:?} ends at {end} > {width}", p.name);
            }
            let joined: Vec<String> =
                titles.iter().map(|l| l.split('>').nth(1).unwrap().trim_end_matches("</text").to_string()).collect();
            assert_eq!(joined.join(" "), escape_xml(&title), "{}: the wrapped title keeps every word", p.name);
        }
        assert!(wrapped > 0, "the long titles (lds128-case5) wrap");
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("toolongword x", 4), vec!["toolongword", "x"]);
        assert_eq!(wrap("", 4), vec![""]);
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

    #[test]
    fn svg_rendering() {
        let p = named_patterns().into_iter().find(|p| p.name == "lds128-case5").expect("exists");
        let a = run(&p.access, &p.geometry);
        let svg = render_svg(&a, &p.geometry, "case <5> & \"friends\"");
        assert!(svg.starts_with("<svg"));
        assert!(svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="cell""#).count(), 32 * 4);
        assert_eq!(svg.matches(r#"class="conflict-row""#).count(), 2);
        assert!(svg.contains("case &lt;5&gt; &amp; &quot;friends&quot;"));
        assert!(!svg.contains("<5>"));
        assert_eq!(svg.matches('<').count(), svg.matches('>').count());
    }

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
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
