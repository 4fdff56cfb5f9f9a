//! One block at a time: its threads as fibers on this OS thread, run until each waits at a
//! barrier or a warp collective, which complete once every thread they name has arrived.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::lane::{self, Barrier, Collective, Wait};
use crate::report::Report;
use crate::shadow::Recorder;
use crate::{Dim3, Fault, Globals, KernelFn, Site, ThreadId};

/// Stack of each emulated thread's fiber: kernels keep little on the stack, but a debug build
/// of one keeps more.
pub const STACK_BYTES: usize = 256 * 1024;

/// What a thread's fiber is given when resumed: a collective's result.
pub(crate) type Resume = u32;

/// The fiber's yielder, through which device code suspends it.
pub(crate) type ThreadYielder = Yielder<Resume, Wait>;

/// One emulated thread's identity and its way back to the scheduler. The device crate reaches
/// it through [`lane`]'s thread-local pointer, set while its fiber runs.
pub(crate) struct Thread {
    pub tid: Dim3,
    pub linear: u32,
    pub block: *const BlockState,
    pub yielder: Cell<*const ThreadYielder>,
    /// Its asynchronous copies (`cp.async`) not yet waited for.
    pub copies: RefCell<lane::AsyncCopies>,
}

impl Thread {
    pub fn id(&self) -> ThreadId {
        ThreadId { block: self.block().idx, thread: self.tid }
    }
    pub fn block(&self) -> &BlockState {
        // Safety: the block state outlives every fiber of the block (see `Runner::run_block`).
        unsafe { &*self.block }
    }
    pub fn lane(&self) -> u32 {
        self.linear % 32
    }
    pub fn warp(&self) -> u32 {
        self.linear / 32
    }
}

/// What the threads of the block running now share.
pub(crate) struct BlockState {
    pub idx: Dim3,
    pub globals: *const Globals,
    pub shared: *mut u8,
    pub recorder: RefCell<Recorder>,
}

impl BlockState {
    pub fn globals(&self) -> &Globals {
        // Safety: the globals outlive the launch.
        unsafe { &*self.globals }
    }
}

enum State {
    Ready(Resume),
    Waiting(Wait),
    Done,
}

type Fiber = Coroutine<Resume, Wait, (), DefaultStack>;

/// Fiber stacks kept between launches: making one maps memory and a guard page, which cost
/// more than running many small kernels.
static STACKS: std::sync::Mutex<Vec<DefaultStack>> = std::sync::Mutex::new(Vec::new());

/// The most stacks kept: two workers' worth of 1024-thread blocks.
const KEPT_STACKS: usize = 2048;

/// Runs blocks one after another on this OS thread, reusing stacks and shared memory.
pub(crate) struct Runner<'g> {
    globals: &'g Globals,
    stacks: Vec<DefaultStack>,
    shared: Vec<u128>,
    recorder: Option<Recorder>,
}

impl<'g> Runner<'g> {
    pub fn new(globals: &'g Globals) -> Self {
        let words = (globals.shared_bytes as usize).div_ceil(16);
        let want = globals.block.count() as usize;
        let stacks = {
            let mut kept = STACKS.lock().unwrap_or_else(|e| e.into_inner());
            let at = kept.len().saturating_sub(want);
            kept.split_off(at)
        };
        Runner { globals, stacks, shared: vec![0; words], recorder: None }
    }

    /// Runs block `idx` to completion, adding what it saw to `report`.
    ///
    /// # Safety
    /// As for [`crate::launch`].
    pub unsafe fn run_block(
        &mut self,
        run: KernelFn,
        params: &[*mut c_void],
        idx: Dim3,
        report: &mut Report,
    ) -> Result<(), Fault> {
        let g = self.globals;
        let n = g.block.count() as u32;
        self.shared.iter_mut().for_each(|w| *w = u128::MAX);
        let mut recorder = self.recorder.take().unwrap_or_else(|| Recorder::new(g.shared_bytes as usize, n));
        recorder.start_block(idx, g.block);
        let state =
            BlockState { idx, globals: g, shared: self.shared.as_mut_ptr().cast(), recorder: RefCell::new(recorder) };
        let threads: Vec<Thread> = (0..n)
            .map(|i| Thread {
                tid: g.block.unflatten(i as u64),
                linear: i,
                block: &state,
                yielder: Cell::new(std::ptr::null()),
                copies: RefCell::default(),
            })
            .collect();
        let params_addr = params.as_ptr() as usize;
        let params_len = params.len();
        let mut fibers: Vec<Fiber> = (0..n as usize)
            .map(|i| {
                let stack = self.stacks.pop().map_or_else(|| DefaultStack::new(STACK_BYTES), Ok);
                let stack = stack.expect("the system gave no stack for an emulated thread");
                let me = &threads[i] as *const Thread as usize;
                Coroutine::with_stack(stack, move |yielder: &ThreadYielder, _: Resume| {
                    // Safety: the thread outlives its fiber; `params` outlives the launch.
                    let thread = unsafe { &*(me as *const Thread) };
                    thread.yielder.set(yielder);
                    // SAFETY: `params_addr` and `params_len` are the `params` slice of this call,
                    // which outlives the launch and so every fiber of it.
                    let params = unsafe { std::slice::from_raw_parts(params_addr as *const *mut c_void, params_len) };
                    // SAFETY: `run` and `params` are as `crate::launch` asks (this function's
                    // contract).
                    unsafe { run(params) };
                })
            })
            .collect();
        let result = schedule(&threads, &mut fibers, &state);
        // Finished fibers give their stacks back; any still suspended (after a fault) are
        // unwound by their drop.
        for fiber in fibers {
            if fiber.done() {
                self.stacks.push(fiber.into_stack());
            }
        }
        let mut recorder = state.recorder.into_inner();
        recorder.end_block(report);
        self.recorder = Some(recorder);
        result
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        let mut kept = STACKS.lock().unwrap_or_else(|e| e.into_inner());
        let room = KEPT_STACKS.saturating_sub(kept.len());
        kept.extend(self.stacks.drain(..).take(room));
    }
}

/// Runs the fibers until every thread has returned, or a fault.
fn schedule(threads: &[Thread], fibers: &mut [Fiber], block: &BlockState) -> Result<(), Fault> {
    let n = threads.len();
    let mut states: Vec<State> = (0..n).map(|_| State::Ready(0)).collect();
    // The site of the block's latest barrier, for the message about a thread that exited
    // between it and the next.
    let mut last_barrier = None;
    loop {
        for i in 0..n {
            let State::Ready(value) = states[i] else { continue };
            let _current = lane::enter(&threads[i]);
            match catch_unwind(AssertUnwindSafe(|| fibers[i].resume(value))) {
                Ok(CoroutineResult::Yield(wait)) => states[i] = State::Waiting(wait),
                Ok(CoroutineResult::Return(())) => states[i] = State::Done,
                Err(payload) => return Err(lane::fault_of(payload, &threads[i])),
            }
        }
        if resolve_warps(threads, &mut states)? || resolve_convergence(threads, &mut states) {
            continue;
        }
        let live: Vec<usize> = (0..n).filter(|&i| !matches!(states[i], State::Done)).collect();
        if live.is_empty() {
            return Ok(());
        }
        let at_barrier = |i: &usize| matches!(states[*i], State::Waiting(Wait::Barrier { .. }));
        if live.iter().all(at_barrier) {
            last_barrier = Some(release_barrier(threads, &mut states, &live, block, last_barrier)?);
            continue;
        }
        return Err(stuck_warp(threads, &states).unwrap_or_else(|| Fault::Deadlock {
            block: block.idx,
            detail: describe_waits(threads, &states, |_| true, false),
        }));
    }
}

/// Completes the block barrier every live thread waits at, and returns its site; a fault
/// where they wait at different barriers, or where a thread of the block has exited without
/// reaching it (after the barrier at `previous`, the block's last).
fn release_barrier(
    threads: &[Thread],
    states: &mut [State],
    live: &[usize],
    block: &BlockState,
    previous: Option<Site>,
) -> Result<Site, Fault> {
    let site_of = |i: usize| match &states[i] {
        State::Waiting(Wait::Barrier { site, .. }) => *site,
        _ => unreachable!("every live thread waits at a barrier"),
    };
    let (site, first) = (site_of(live[0]), live[0]);
    if let Some(&j) = live.iter().find(|&&j| site_of(j) != site) {
        return Err(Fault::DivergentBarrier {
            block: block.idx,
            first: site,
            first_thread: threads[first].tid,
            second: site_of(j),
            second_thread: threads[j].tid,
        });
    }
    // Every thread that has exited did so without reaching this barrier: threads may exit
    // only after the block's last barrier.
    if live.len() < threads.len() {
        let j = (0..threads.len()).find(|&j| matches!(states[j], State::Done)).unwrap_or_default();
        return Err(Fault::ExitedBeforeBarrier {
            block: block.idx,
            first: site,
            first_thread: threads[first].tid,
            exited_thread: threads[j].tid,
            after: previous,
        });
    }
    let (mut count, mut and, mut or) = (0u32, true, false);
    for &i in live {
        let State::Waiting(Wait::Barrier { predicate, .. }) = &states[i] else { unreachable!() };
        count += *predicate as u32;
        and &= *predicate;
        or |= *predicate;
    }
    block.recorder.borrow_mut().barrier();
    for &i in live {
        let State::Waiting(Wait::Barrier { kind, .. }) = &states[i] else { unreachable!() };
        let value = match kind {
            Barrier::Sync | Barrier::Count => count,
            Barrier::And => and as u32,
            Barrier::Or => or as u32,
        };
        states[i] = State::Ready(value);
    }
    Ok(site)
}

/// Completes every warp collective whose lanes have all arrived. Returns whether any did; a
/// fault where a lane calls one with a mask that leaves itself out, or one names a lane that
/// has exited (which can never arrive).
fn resolve_warps(threads: &[Thread], states: &mut [State]) -> Result<bool, Fault> {
    let n = threads.len();
    let mut progressed = false;
    for warp_start in (0..n).step_by(32) {
        let warp_end = (warp_start + 32).min(n);
        for i in warp_start..warp_end {
            let State::Waiting(Wait::Warp { mask, op, site }) = &states[i] else { continue };
            let (mask, op, site) = (*mask, *op, *site);
            let me = &threads[i];
            if mask >> me.lane() & 1 == 0 {
                return Err(Fault::WarpMismatch {
                    thread: me.id(),
                    site,
                    detail: format!(
                        "lane {} calls it with mask {mask:#010x}, which leaves the lane itself out",
                        me.lane()
                    ),
                });
            }
            // The lanes it names that exist, once each has arrived at a collective of the
            // same operation and mask (at any site: PTX's `shfl.sync`, `vote.sync` and
            // `bar.warp.sync` match lanes by operation and mask since sm_70).
            let mut group = Vec::with_capacity(32);
            let (mut ready, mut exited) = (true, 0u32);
            for j in warp_start..warp_end {
                let lane = threads[j].lane();
                if mask >> lane & 1 == 0 {
                    continue;
                }
                match &states[j] {
                    State::Done => exited |= 1 << lane,
                    State::Waiting(Wait::Warp { mask: m, op: o, .. }) if *m == mask && o.same_kind(&op) => {
                        group.push(j)
                    }
                    _ => ready = false,
                }
            }
            if exited != 0 {
                let detail = format!("{} exited", crate::lane_list(exited));
                return Err(warp_divergence(&threads[group[0]], site, op, mask, exited, detail));
            }
            if !ready {
                continue;
            }
            let results = complete(threads, states, &group);
            if let Collective::SyncWarp = op {
                let block = threads[i].block();
                block.recorder.borrow_mut().sync_warp(threads[i].warp(), group.iter().map(|&j| threads[j].lane()));
            }
            for (&j, r) in group.iter().zip(results) {
                states[j] = State::Ready(r);
            }
            progressed = true;
        }
    }
    Ok(progressed)
}

/// Why a block can go no further where a warp collective waits (no thread is ready, no
/// collective can complete and not every live thread waits at a barrier): the first such
/// collective names a lane that waits at a collective of another operation or mask (a
/// mismatch), or at a block barrier (a lane that never arrives). `None` where no collective
/// waits.
fn stuck_warp(threads: &[Thread], states: &[State]) -> Option<Fault> {
    let (i, mask, op, site) = states.iter().enumerate().find_map(|(i, s)| match s {
        State::Waiting(Wait::Warp { mask, op, site }) => Some((i, *mask, *op, *site)),
        _ => None,
    })?;
    let me = &threads[i];
    let warp = me.warp() as usize * 32..(me.warp() as usize * 32 + 32).min(threads.len());
    let mut missing = 0u32;
    for j in warp.clone() {
        let lane = threads[j].lane();
        if mask >> lane & 1 == 0 {
            continue;
        }
        match &states[j] {
            State::Waiting(Wait::Warp { mask: m, op: o, site: s }) if *m != mask || !o.same_kind(&op) => {
                return Some(Fault::WarpMismatch {
                    thread: me.id(),
                    site,
                    detail: format!(
                        "lane {} is at {op} with mask {mask:#010x}, lane {lane} at {o} with mask {m:#010x} ({s})",
                        me.lane()
                    ),
                });
            }
            State::Waiting(Wait::Warp { .. }) => {}
            _ => missing |= 1 << lane,
        }
    }
    let detail = describe_waits(&threads[warp.clone()], &states[warp], |t| missing >> t.lane() & 1 == 1, true);
    Some(warp_divergence(me, site, op, mask, missing, detail))
}

/// The fault of a warp collective at `site` whose `mask` names lanes (`missing`) that never
/// arrive, found by `thread`, one of the lanes waiting there.
fn warp_divergence(thread: &Thread, site: Site, op: Collective, mask: u32, missing: u32, detail: String) -> Fault {
    Fault::WarpDivergence { thread: thread.id(), site, collective: op.name(), mask, missing, detail }
}

/// Answers every `active_mask()` of a warp that can go no further: each lane waiting at one is
/// given the lanes waiting at the same call. Runs only when no thread is ready and no warp
/// collective can complete. Returns whether any did.
fn resolve_convergence(threads: &[Thread], states: &mut [State]) -> bool {
    let mut progressed = false;
    for (warp, states) in threads.chunks(32).zip(states.chunks_mut(32)) {
        let mut by_site: Vec<(Site, u32)> = Vec::new();
        for (t, state) in warp.iter().zip(states.iter()) {
            if let State::Waiting(Wait::Converge { site }) = state {
                match by_site.iter_mut().find(|(s, _)| s == site) {
                    Some((_, mask)) => *mask |= 1 << t.lane(),
                    None => by_site.push((*site, 1 << t.lane())),
                }
            }
        }
        for state in states.iter_mut() {
            if let State::Waiting(Wait::Converge { site }) = state {
                let mask = by_site.iter().find(|(s, _)| s == site).map_or(0, |(_, m)| *m);
                *state = State::Ready(mask);
                progressed = true;
            }
        }
    }
    progressed
}

/// Each lane's result of the collective the lanes of `group` all wait at.
fn complete(threads: &[Thread], states: &[State], group: &[usize]) -> Vec<u32> {
    let op_of = |j: usize| match &states[j] {
        State::Waiting(Wait::Warp { op, .. }) => *op,
        _ => unreachable!("grouped lanes wait at a collective"),
    };
    let mut value_of_lane = [None::<u32>; 32];
    let mut ballot = 0u32;
    for &j in group {
        let lane = threads[j].lane();
        match op_of(j) {
            Collective::Shuffle { value, .. } => value_of_lane[lane as usize] = Some(value),
            Collective::Vote { predicate, .. } => ballot |= (predicate as u32) << lane,
            Collective::SyncWarp => {}
        }
    }
    let members = group.iter().fold(0u32, |m, &j| m | 1 << threads[j].lane());
    group
        .iter()
        .map(|&j| {
            let lane = threads[j].lane();
            match op_of(j) {
                Collective::SyncWarp => 0,
                Collective::Vote { kind, .. } => kind.result(ballot, members),
                Collective::Shuffle { mode, value, b, c } => match mode.source(lane, b, c) {
                    Some(src) => value_of_lane[src as usize].unwrap_or(value),
                    None => value,
                },
            }
        })
        .collect()
}

/// Where the threads that `pick` selects wait, grouped: `threads 0–15 at the barrier at …`
/// (by index in the block, or `lanes 0–15 …` where `by_lane`).
fn describe_waits(threads: &[Thread], states: &[State], pick: impl Fn(&Thread) -> bool, by_lane: bool) -> String {
    let mut groups: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    for (t, s) in threads.iter().zip(states).filter(|(t, _)| pick(t)) {
        let what = match s {
            State::Waiting(Wait::Barrier { site, .. }) => format!("at the barrier at {site}"),
            State::Waiting(Wait::Warp { op, mask, site }) => format!("at {op} (mask {mask:#010x}) at {site}"),
            State::Waiting(Wait::Converge { site }) => format!("at active_mask() at {site}"),
            State::Done => "exited".to_string(),
            State::Ready(_) => "ready".to_string(),
        };
        groups.entry(what).or_default().push(if by_lane { t.lane() } else { t.linear });
    }
    let noun = if by_lane { "lane" } else { "thread" };
    let plural = |ids: &[u32]| if ids.len() == 1 { noun.to_string() } else { format!("{noun}s") };
    let waits = |what: &str| if what.starts_with("at ") { format!("wait {what}") } else { what.to_string() };
    groups
        .iter()
        .map(|(what, ids)| format!("{} {} {}", plural(ids), crate::ranges(ids), waits(what)))
        .collect::<Vec<_>>()
        .join("; ")
}
