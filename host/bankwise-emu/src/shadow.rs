//! The block's instrumentation: shared-memory requests grouped per warp for the bank model,
//! a shadow of every shared byte for the race check, and global requests grouped the same
//! way for their 32-byte sectors.

use std::collections::HashMap;

use bankwise_banks::{Access, Geometry, Op, Width, analyze};

use crate::block::Thread;
use crate::report::{AccessOp, Race, RaceKind, Report};
use crate::{Dim3, Site, ThreadId};

/// One access in a shared byte's shadow.
#[derive(Clone, Copy, Debug)]
struct Touch {
    /// Linear thread index in the block.
    thread: u32,
    /// The thread's own warp clock at the access (see [`Recorder::clocks`]).
    clock: u32,
    site: Site,
    atomic: bool,
}

/// A shared byte's accesses since the last block barrier: the last write, and the latest
/// read of each thread that read it since.
#[derive(Clone, Debug, Default)]
struct Shadow {
    write: Option<Touch>,
    reads: Vec<Touch>,
}

/// The lanes of one warp executing one site for the `n`-th time since the last barrier: one
/// request.
#[derive(Clone, Debug)]
struct Request {
    op: AccessOp,
    width: Width,
    addresses: [Option<u64>; 32],
}

/// The lanes of one warp executing one global access site for the `n`-th time since the last
/// barrier: one request, whose lanes' bytes fall in some number of 32-byte sectors.
#[derive(Clone, Debug)]
struct GlobalRequest {
    op: AccessOp,
    bytes: u32,
    addresses: [Option<u64>; 32],
}

/// Records one block's shared-memory accesses (reused from block to block).
pub(crate) struct Recorder {
    shadow: Vec<Shadow>,
    touched: Vec<u32>,
    /// Per warp, per lane, the vector clock of `sync_warp`s: `clocks[w][a][b]` is what lane
    /// `a` knows of lane `b`'s progress. An access by lane `b` at its own clock `k` is ordered
    /// before a later access by lane `a` iff `clocks[w][a][b] > k`.
    clocks: Vec<[[u32; 32]; 32]>,
    /// How many times each thread has executed each site since the last barrier.
    executions: HashMap<(Site, u32), u32>,
    /// Requests since the last barrier: (warp, site, execution, piece).
    requests: HashMap<(u32, Site, u32, u32), Request>,
    /// How many times each thread has executed each global access site since the last barrier.
    global_executions: HashMap<(Site, u32), u32>,
    /// Global requests since the last barrier: (warp, site, execution).
    global_requests: HashMap<(u32, Site, u32), GlobalRequest>,
    /// Requests analysed and races found in this block, before they go to the report.
    part: Report,
    block: Dim3,
    block_dim: Dim3,
}

impl Recorder {
    pub fn new(shared_bytes: usize, threads: u32) -> Self {
        Recorder {
            shadow: vec![Shadow::default(); shared_bytes],
            touched: Vec::new(),
            clocks: vec![[[0; 32]; 32]; threads.div_ceil(32) as usize],
            executions: HashMap::new(),
            requests: HashMap::new(),
            global_executions: HashMap::new(),
            global_requests: HashMap::new(),
            part: Report::default(),
            block: Dim3::default(),
            block_dim: Dim3::default(),
        }
    }

    fn id(&self, linear: u32) -> ThreadId {
        ThreadId { block: self.block, thread: self.block_dim.unflatten(linear as u64) }
    }

    /// Whether `earlier` (by another thread) happens before an access by lane `lane` of warp
    /// `warp` now: only through a `sync_warp` both took part in (block barriers clear the
    /// shadow, so everything in it is from this barrier interval).
    fn ordered(&self, earlier: &Touch, thread: u32) -> bool {
        if earlier.thread == thread {
            return true;
        }
        let (w, a, b) = (thread / 32, thread % 32, earlier.thread % 32);
        earlier.thread / 32 == w && self.clocks[w as usize][a as usize][b as usize] > earlier.clock
    }

    /// Records an access of `bytes` bytes at shared `offset` by `t` (already bounds-checked),
    /// moved in pieces of `piece` bytes.
    pub fn shared(&mut self, t: &Thread, site: Site, offset: u32, bytes: u32, piece: u32, op: AccessOp) {
        let (thread, warp, lane) = (t.linear, t.warp(), t.lane());
        let clock = self.clocks[warp as usize][lane as usize][lane as usize];
        let me = Touch { thread, clock, site, atomic: op == AccessOp::Atomic };
        let write = op != AccessOp::Load;
        // One race per access at most: the first byte where it meets another thread's.
        let mut raced = false;
        for byte in offset..offset + bytes {
            raced |= self.touch(byte, me, write, !raced);
        }
        if op == AccessOp::Atomic {
            return;
        }
        let n = self.executions.entry((site, thread)).or_insert(0);
        let execution = *n;
        *n += 1;
        let width = Width::from_bytes(piece).expect("a power of two up to 16");
        for (k, at) in (offset..offset + bytes).step_by(piece as usize).enumerate() {
            let r = self.requests.entry((warp, site, execution, k as u32)).or_insert_with(|| Request {
                op,
                width,
                addresses: [None; 32],
            });
            r.addresses[lane as usize] = Some(u64::from(at));
        }
    }

    /// Records a global access of `bytes` bytes at `address` by `t` (already checked).
    pub fn global(&mut self, t: &Thread, site: Site, address: u64, bytes: u32, op: AccessOp) {
        let n = self.global_executions.entry((site, t.linear)).or_insert(0);
        let execution = *n;
        *n += 1;
        let r = self.global_requests.entry((t.warp(), site, execution)).or_insert_with(|| GlobalRequest {
            op,
            bytes,
            addresses: [None; 32],
        });
        r.addresses[t.lane() as usize] = Some(address);
    }

    /// Updates byte `byte`'s shadow with `me`; where `report`, records a race it finds.
    /// Returns whether it found one.
    fn touch(&mut self, byte: u32, me: Touch, write: bool, report: bool) -> bool {
        let cell = &self.shadow[byte as usize];
        if cell.write.is_none() && cell.reads.is_empty() {
            self.touched.push(byte);
        }
        let mut found = None;
        let both_atomic = |r: &Touch| r.atomic && me.atomic;
        if let Some(w) = cell.write
            && !both_atomic(&w)
            && !self.ordered(&w, me.thread)
        {
            found = Some((w, if write { RaceKind::WriteWrite } else { RaceKind::WriteRead }));
        } else if write {
            let unordered = cell.reads.iter().find(|r| !both_atomic(r) && !self.ordered(r, me.thread));
            found = unordered.map(|r| (*r, RaceKind::ReadWrite));
        }
        let raced = found.is_some();
        if let Some((earlier, kind)) = found.filter(|_| report) {
            let race = Race {
                first: earlier.site,
                second: me.site,
                kind,
                first_thread: self.id(earlier.thread),
                second_thread: self.id(me.thread),
                address: byte,
                occurrences: 1,
            };
            self.part.add_race(race);
        }
        let cell = &mut self.shadow[byte as usize];
        if write {
            cell.write = Some(me);
            cell.reads.clear();
        } else if let Some(r) = cell.reads.iter_mut().find(|r| r.thread == me.thread) {
            *r = me;
        } else {
            cell.reads.push(me);
        }
        raced
    }

    /// Starts block `block` of a launch with blocks of `block_dim` threads (race reports name
    /// its threads).
    pub fn start_block(&mut self, block: Dim3, block_dim: Dim3) {
        self.block = block;
        self.block_dim = block_dim;
    }

    /// A `sync_warp` of `lanes` of warp `warp`: each advances its own clock, then all take the
    /// elementwise maximum of their clocks.
    pub fn sync_warp(&mut self, warp: u32, lanes: impl Iterator<Item = u32>) {
        let clocks = &mut self.clocks[warp as usize];
        let lanes: Vec<u32> = lanes.collect();
        let mut joined = [0u32; 32];
        for &l in &lanes {
            clocks[l as usize][l as usize] += 1;
            for (j, c) in joined.iter_mut().zip(clocks[l as usize]) {
                *j = (*j).max(c);
            }
        }
        for &l in &lanes {
            clocks[l as usize] = joined;
        }
    }

    /// A block barrier: every access before it is ordered before every access after it, and
    /// the requests of the interval are complete.
    pub fn barrier(&mut self) {
        for ((_, site, _, _), r) in self.requests.drain() {
            let op = if r.op == AccessOp::Store { Op::Store } else { Op::Load };
            let access = Access { width: r.width, addresses: r.addresses, op };
            // Accesses are aligned (checked at the access) and lanes are below 32, so the
            // model accepts every request.
            let wavefronts = analyze(&access, &Geometry::MODERN).map_or(0, |a| a.wavefronts());
            self.part.add_request(site, r.op, access, wavefronts);
        }
        for ((_, site, _), r) in self.global_requests.drain() {
            self.part.add_global_request(site, r.op, r.bytes, r.addresses);
        }
        self.global_executions.clear();
        for &byte in &self.touched {
            let cell = &mut self.shadow[byte as usize];
            cell.write = None;
            cell.reads.clear();
        }
        self.touched.clear();
        self.executions.clear();
    }

    /// Moves the block's requests (analysed by the bank model) and races into `report`, and
    /// resets for the next block.
    pub fn end_block(&mut self, report: &mut Report) {
        self.barrier();
        report.merge(std::mem::take(&mut self.part));
        for c in &mut self.clocks {
            *c = [[0; 32]; 32];
        }
    }
}
