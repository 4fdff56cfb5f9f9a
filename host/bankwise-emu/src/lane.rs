//! What the device crate's host backend calls: the running thread's indices, barriers and
//! warp collectives (which suspend its fiber until the others arrive), and the check and
//! record of every shared and global access.
//!
//! Every function here must be called from inside an emulated launch (a kernel's body); from
//! anywhere else it panics saying so. Faults (an access out of bounds, a misaligned one) end
//! the thread by unwinding with the [`Fault`] as payload, which the scheduler turns into the
//! launch's error: the access itself never happens.

use std::any::Any;
use std::cell::Cell;
use std::panic::Location;

use crate::block::{Thread, ThreadYielder};
use crate::memory;
use crate::report::AccessOp;
use crate::{Dim3, Fault, Site, Space};

thread_local! {
    /// The emulated thread whose fiber runs on this OS thread now (null outside launches).
    static CURRENT: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

/// Sets [`CURRENT`] while a fiber runs; restores null when dropped.
pub(crate) struct Entered;

pub(crate) fn enter(thread: &Thread) -> Entered {
    CURRENT.with(|c| c.set(thread));
    Entered
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(std::ptr::null()));
    }
}

#[track_caller]
fn current() -> &'static Thread {
    let p = CURRENT.with(|c| c.get());
    assert!(
        !p.is_null(),
        "a bankwise_device function that needs a GPU thread was called outside a kernel launch \
         (run kernels through a runtime: the GPU or the emulator)"
    );
    // Safety: set only while the thread's fiber runs, and the thread outlives its fiber.
    unsafe { &*p }
}

/// Whether the caller runs inside an emulated launch.
pub fn in_launch() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

/// Ends the current thread with `fault` (the scheduler reports it).
fn raise(fault: Fault) -> ! {
    std::panic::resume_unwind(Box::new(fault))
}

/// The launch's [`Fault`] for a panic `payload` from `thread`'s fiber.
pub(crate) fn fault_of(payload: Box<dyn Any + Send>, thread: &Thread) -> Fault {
    match payload.downcast::<Fault>() {
        Ok(fault) => *fault,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic with a non-text payload".into());
            Fault::Panic { thread: thread.id(), site: None, message }
        }
    }
}

/// Why a thread's fiber is suspended.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wait {
    Barrier {
        kind: Barrier,
        predicate: bool,
        site: Site,
    },
    Warp {
        mask: u32,
        op: Collective,
        site: Site,
    },
    /// `__activemask()`: waits until its warp can go no further, then answers with the lanes
    /// that wait at the same site.
    Converge {
        site: Site,
    },
}

/// The block barriers: `__syncthreads` and its reducing forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// `__syncthreads()`: returns the count, which the caller ignores.
    Sync,
    /// `__syncthreads_count(p)`: how many threads passed a true predicate.
    Count,
    /// `__syncthreads_and(p)`: 1 if every thread's predicate held.
    And,
    /// `__syncthreads_or(p)`: 1 if any thread's did.
    Or,
}

/// A warp collective and this lane's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collective {
    SyncWarp,
    Shuffle { mode: Shuffle, value: u32, b: u32, c: u32 },
    Vote { kind: Vote, predicate: bool },
}

impl Collective {
    /// Whether two lanes' collectives are the same operation (their operands may differ).
    pub fn same_kind(&self, other: &Collective) -> bool {
        match (self, other) {
            (Collective::SyncWarp, Collective::SyncWarp) => true,
            (Collective::Shuffle { mode: a, .. }, Collective::Shuffle { mode: b, .. }) => a == b,
            (Collective::Vote { kind: a, .. }, Collective::Vote { kind: b, .. }) => a == b,
            _ => false,
        }
    }
}

impl Collective {
    /// What a message calls it: `sync_warp`, `a Down shuffle`, `a vote (All)`.
    pub fn name(&self) -> &'static str {
        match self {
            Collective::SyncWarp => "sync_warp",
            Collective::Shuffle { mode: Shuffle::Down, .. } => "a Down shuffle",
            Collective::Shuffle { mode: Shuffle::Up, .. } => "an Up shuffle",
            Collective::Shuffle { mode: Shuffle::Xor, .. } => "a Xor shuffle",
            Collective::Shuffle { mode: Shuffle::Idx, .. } => "an Idx shuffle",
            Collective::Vote { kind: Vote::All, .. } => "a vote (All)",
            Collective::Vote { kind: Vote::Any, .. } => "a vote (Any)",
            Collective::Vote { kind: Vote::Ballot, .. } => "a vote (Ballot)",
        }
    }
}

impl std::fmt::Display for Collective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A shuffle's mode (PTX `shfl.sync.{up,down,bfly,idx}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// From lane `i - b`.
    Up,
    /// From lane `i + b`.
    Down,
    /// From lane `i ^ b`.
    Xor,
    /// From lane `b`.
    Idx,
}

impl Shuffle {
    /// The lane that `lane` reads, or `None` where it keeps its own value: PTX ISA's
    /// definition of `shfl.sync` with operands `b` and `c` (clamp and segment mask).
    pub fn source(self, lane: u32, b: u32, c: u32) -> Option<u32> {
        let (bval, cval, segmask) = (b & 0x1f, c & 0x1f, (c >> 8) & 0x1f);
        let max_lane = (lane & segmask) | (cval & !segmask);
        let min_lane = lane & segmask;
        let (j, ok) = match self {
            Shuffle::Up => {
                let j = lane as i32 - bval as i32;
                (j, j >= max_lane as i32)
            }
            Shuffle::Down => {
                let j = (lane + bval) as i32;
                (j, j <= max_lane as i32)
            }
            Shuffle::Xor => {
                let j = (lane ^ bval) as i32;
                (j, j <= max_lane as i32)
            }
            Shuffle::Idx => {
                let j = (min_lane | (bval & !segmask)) as i32;
                (j, j <= max_lane as i32)
            }
        };
        ok.then_some(j as u32)
    }
}

/// A vote (PTX `vote.sync.{all,any,ballot}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    /// 1 if every participating lane's predicate holds.
    All,
    /// 1 if any does.
    Any,
    /// The bits of the lanes whose predicate holds.
    Ballot,
}

impl Vote {
    /// The vote's result given the lanes whose predicate held and the lanes taking part.
    pub(crate) fn result(self, ballot: u32, members: u32) -> u32 {
        match self {
            Vote::All => (ballot == members) as u32,
            Vote::Any => (ballot != 0) as u32,
            Vote::Ballot => ballot,
        }
    }
}

#[track_caller]
fn suspend(wait: Wait) -> u32 {
    let thread = current();
    let yielder = thread.yielder.get();
    // Safety: set by the fiber's entry and valid while the fiber runs.
    let yielder: &ThreadYielder = unsafe { &*yielder };
    // The scheduler points CURRENT at this thread again before it resumes the fiber.
    yielder.suspend(wait)
}

// ---- indices -------------------------------------------------------------------------------

/// `threadIdx`.
#[track_caller]
pub fn thread_idx() -> Dim3 {
    current().tid
}

/// `blockIdx`.
#[track_caller]
pub fn block_idx() -> Dim3 {
    current().block().idx
}

/// `blockDim`.
#[track_caller]
pub fn block_dim() -> Dim3 {
    current().block().globals().block
}

/// `gridDim`.
#[track_caller]
pub fn grid_dim() -> Dim3 {
    current().block().globals().grid
}

/// `%laneid`: the linear thread index modulo 32.
#[track_caller]
pub fn lane_id() -> u32 {
    current().lane()
}

// ---- barriers and collectives --------------------------------------------------------------

/// A block barrier of `kind` with this thread's `predicate`; returns the barrier's result
/// (see [`Barrier`]). Suspends until every thread of the block arrives; a thread of the block
/// waiting at another barrier, or exited, is the launch's [`Fault`].
#[track_caller]
pub fn barrier(kind: Barrier, predicate: bool) -> u32 {
    let site = Site::of(Location::caller());
    suspend(Wait::Barrier { kind, predicate, site })
}

/// `__syncwarp(mask)`: suspends until every lane of `mask` that exists arrives (a lane of it
/// that has exited is the launch's [`Fault`]); orders their shared-memory accesses.
#[track_caller]
pub fn sync_warp(mask: u32) {
    let site = Site::of(Location::caller());
    suspend(Wait::Warp { mask, op: Collective::SyncWarp, site });
}

/// `shfl.sync.<mode>.b32 d, value, b, c, mask`.
#[track_caller]
pub fn shuffle(mode: Shuffle, mask: u32, value: u32, b: u32, c: u32) -> u32 {
    let site = Site::of(Location::caller());
    suspend(Wait::Warp { mask, op: Collective::Shuffle { mode, value, b, c }, site })
}

/// `vote.sync.<kind>`.
#[track_caller]
pub fn vote(kind: Vote, mask: u32, predicate: bool) -> u32 {
    let site = Site::of(Location::caller());
    suspend(Wait::Warp { mask, op: Collective::Vote { kind, predicate }, site })
}

/// `__activemask()`: the lanes of this warp that reach this call together. The emulator runs
/// lanes one at a time, so the lane waits here until no lane of its warp can run further (each
/// has exited or waits at a barrier, a collective or an `active_mask`); the mask is then every
/// lane waiting at this same call: the whole warp where it has not diverged, the lanes of one
/// side of a branch inside it. Every answer holds the lane itself, as the hardware's does;
/// lanes that left a branch early are not waited for at a later call (no reconvergence).
#[track_caller]
pub fn active_mask() -> u32 {
    let site = Site::of(Location::caller());
    suspend(Wait::Converge { site })
}

/// `trap`: ends the launch with a [`Fault::Panic`] naming the site.
#[track_caller]
pub fn trap() -> ! {
    let t = current();
    raise(Fault::Panic { thread: t.id(), site: Some(Site::of(Location::caller())), message: "trap".into() })
}

/// `fma.rn.f32`: `a·b + c` rounded once, as the GPU computes it.
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `fma.rn.f64`: `a·b + c` rounded once, as the GPU computes it.
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// `clock64`: nanoseconds since the launch started (monotonic; not cycles).
#[track_caller]
pub fn clock() -> u64 {
    current().block().globals().start.elapsed().as_nanos() as u64
}

/// `%globaltimer`: nanoseconds since the launch started.
#[track_caller]
pub fn global_timer() -> u64 {
    clock()
}

// ---- shared memory -------------------------------------------------------------------------

/// The base of the block's dynamic shared memory.
#[track_caller]
pub fn shared_base() -> *mut u8 {
    current().block().shared
}

/// `%dynamic_smem_size`.
#[track_caller]
pub fn shared_size() -> u32 {
    current().block().globals().shared_bytes
}

/// Checks and records a shared-memory access of `bytes` bytes at `ptr` by the current thread
/// (a pointer into [`shared_base`]'s allocation), within a view that ends at `view_end` (an
/// address; `usize::MAX` for none): bounds, alignment, races and the bank model's wavefronts.
/// Raises the thread's [`Fault`] instead of returning where the access is out of bounds or
/// misaligned.
#[track_caller]
pub fn shared_access(ptr: *const u8, bytes: usize, view_end: usize, op: AccessOp) {
    shared_access_at(current(), Site::of(Location::caller()), ptr, bytes, bytes, view_end, op);
}

/// [`shared_access`] of a value of alignment `align` (its type's `align_of`): the compiler can
/// move it only in pieces of at most that width (an `[u32; 4]`, 4-aligned, is four `LDS`, not
/// one `LDS.128`; a 16-aligned vector of the same 16 bytes is one), so it is checked for that
/// alignment and recorded as those pieces.
#[track_caller]
pub fn shared_access_aligned(ptr: *const u8, bytes: usize, align: usize, view_end: usize, op: AccessOp) {
    shared_access_at(current(), Site::of(Location::caller()), ptr, bytes, align, view_end, op);
}

/// [`shared_access_aligned`] by thread `t` at `site`.
fn shared_access_at(t: &Thread, site: Site, ptr: *const u8, bytes: usize, align: usize, view_end: usize, op: AccessOp) {
    let block = t.block();
    let base = block.shared as usize;
    let size = block.globals().shared_bytes as usize;
    let addr = ptr as usize;
    let offset = addr.wrapping_sub(base);
    let write = !matches!(op, AccessOp::Load);
    let out = |detail: String| {
        raise(Fault::OutOfBounds {
            space: Space::Shared,
            write,
            address: offset as u64,
            bytes: bytes as u32,
            thread: t.id(),
            site,
            detail,
        })
    };
    if addr < base {
        out(format!("{} bytes before the start of the block's {size} bytes of shared memory", base - addr));
    }
    if offset.saturating_add(bytes) > size {
        let place = match offset.checked_sub(size) {
            None => format!("runs {} bytes past the end", offset + bytes - size),
            Some(0) => "right after the end".to_string(),
            Some(past) => format!("{past} bytes past the end"),
        };
        out(format!(
            "{place} of the block's {size} bytes of shared memory (what the kernel declares with \
             #[kernel(shared = BYTES)] plus the launch's dynamic bytes, LaunchConfig::with_shared_bytes)"
        ));
    }
    if addr.saturating_add(bytes) > view_end {
        let past = addr + bytes - view_end;
        out(format!("{past} bytes past the end of the view it was made from, at offset {:#x}", view_end - base));
    }
    // Power-of-two accesses up to 16 bytes move in one piece of their width; a wider or
    // odd-sized element in pieces of the widest power of two dividing its size; none in pieces
    // wider than its type's alignment. Each piece is aligned to its width.
    let piece = if bytes.is_power_of_two() { bytes.min(16) } else { 1 << bytes.trailing_zeros().min(4) };
    let piece = piece.min(align.next_power_of_two()).max(1);
    if !offset.is_multiple_of(piece) {
        raise(Fault::Misaligned {
            space: Space::Shared,
            address: offset as u64,
            bytes: bytes as u32,
            thread: t.id(),
            site,
        });
    }
    block.recorder.borrow_mut().shared(t, site, offset as u32, bytes as u32, piece as u32, op);
}

// ---- asynchronous copies (`cp.async`) ------------------------------------------------------

/// One asynchronous copy from global to shared memory: the bytes read at issue, written when
/// the thread waits for its group.
struct AsyncCopy {
    dst: *mut u8,
    view_end: usize,
    data: [u8; 16],
    bytes: usize,
    site: Site,
}

/// A thread's asynchronous copies in flight: those issued since its last commit, and its
/// committed groups, oldest first.
#[derive(Default)]
pub(crate) struct AsyncCopies {
    open: Vec<AsyncCopy>,
    committed: std::collections::VecDeque<Vec<AsyncCopy>>,
}

/// `cp.async` of `bytes` bytes (4, 8 or 16) from global `src` to shared `dst` (a pointer into
/// [`shared_base`]'s allocation, in a view ending at `view_end`): the first `src_bytes` are
/// read from `src` now (checked as a global read), the rest are zeros. The shared write
/// happens, checked and recorded at the caller's site, when the thread waits for the copy's
/// group ([`async_wait`]): the latest moment the hardware may make it, so a read of `dst`
/// before that wait sees the old bytes and, from another thread, is reported as a race.
///
/// # Safety
/// `src_bytes ≤ bytes`; `src` is valid for `src_bytes` bytes where it is not zero (checked).
#[track_caller]
pub unsafe fn async_copy(dst: *mut u8, view_end: usize, src: *const u8, bytes: usize, src_bytes: usize) {
    let t = current();
    let site = Site::of(Location::caller());
    assert!(matches!(bytes, 4 | 8 | 16) && src_bytes <= bytes, "cp.async copies 4, 8 or 16 bytes");
    let mut data = [0u8; 16];
    if src_bytes > 0 {
        // The hardware reads the source as one access of the copy's width.
        global_access(src, src_bytes, bytes, AccessOp::Load);
        // Safety: the range is inside a live allocation (checked).
        unsafe { copy_relaxed(src, data.as_mut_ptr(), src_bytes, bytes, true) };
    }
    t.copies.borrow_mut().open.push(AsyncCopy { dst, view_end, data, bytes, site });
}

/// `cp.async.commit_group`: the copies issued since the last commit become one group.
#[track_caller]
pub fn async_commit() {
    let mut copies = current().copies.borrow_mut();
    let group = std::mem::take(&mut copies.open);
    copies.committed.push_back(group);
}

/// `cp.async.wait_group n`: completes every committed group but the `n` newest, writing their
/// bytes to shared memory.
#[track_caller]
pub fn async_wait(n: usize) {
    let t = current();
    loop {
        let group = {
            let mut copies = t.copies.borrow_mut();
            if copies.committed.len() <= n {
                return;
            }
            copies.committed.pop_front().unwrap_or_default()
        };
        for c in group {
            shared_access_at(t, c.site, c.dst, c.bytes, c.bytes, c.view_end, AccessOp::Store);
            // Safety: checked inside the block's allocation above.
            unsafe { std::ptr::copy_nonoverlapping(c.data.as_ptr(), c.dst, c.bytes) };
        }
    }
}

// ---- global memory -------------------------------------------------------------------------

/// Checks a global access of `bytes` bytes at `addr` needing alignment `align`: inside one
/// live allocation and aligned, or the thread's [`Fault`] is raised. Then records it for the
/// launch's count of 32-byte sectors per request ([`crate::report::GlobalSiteStats`]).
#[track_caller]
pub fn global_access(addr: *const u8, bytes: usize, align: usize, op: AccessOp) {
    let t = current();
    let site = Site::of(Location::caller());
    let write = op != AccessOp::Load;
    if let Err(detail) = memory::containing(&t.block().globals().allocations, addr as usize, bytes) {
        raise(Fault::OutOfBounds {
            space: Space::Global,
            write,
            address: addr as u64,
            bytes: bytes as u32,
            thread: t.id(),
            site,
            detail,
        });
    }
    if !(addr as usize).is_multiple_of(align.max(1)) {
        raise(Fault::Misaligned {
            space: Space::Global,
            address: addr as u64,
            bytes: bytes as u32,
            thread: t.id(),
            site,
        });
    }
    t.block().recorder.borrow_mut().global(t, site, addr as u64, bytes as u32, op);
}

/// Reads a `T` at global address `p` after [`global_access`]'s check, as relaxed atomic
/// loads of its aligned pieces: other blocks run on other OS threads, and a kernel with a
/// race on global memory then reads some value, as on the GPU, rather than making the
/// emulator's behaviour undefined. `align` is the alignment the access needs.
///
/// # Safety
/// `T` is valid for any bit pattern the memory holds (`bankwise_device::Plain` types are).
#[track_caller]
pub unsafe fn global_read<T: Copy>(p: *const T, align: usize) -> T {
    let bytes = size_of::<T>();
    global_access(p.cast(), bytes, align, AccessOp::Load);
    let mut out = std::mem::MaybeUninit::<T>::uninit();
    // Safety: the range is inside a live allocation (checked) and `out` has `bytes` bytes.
    unsafe { copy_relaxed(p.cast(), out.as_mut_ptr().cast(), bytes, align, true) };
    // Safety: every byte was written above; the caller vouches for the bit pattern.
    unsafe { out.assume_init() }
}

/// Writes `v` at global address `p` after [`global_access`]'s check, as relaxed atomic stores
/// of its aligned pieces (see [`global_read`]). `align` is the alignment the access needs
/// (16 for a 16-byte vector store, `align_of::<T>()` for a plain one).
#[track_caller]
pub fn global_write<T: Copy>(p: *mut T, v: T, align: usize) {
    let bytes = size_of::<T>();
    global_access(p.cast_const().cast(), bytes, align, AccessOp::Store);
    // Safety: the range is inside a live allocation (checked); `v` has `bytes` bytes.
    unsafe { copy_relaxed((&v as *const T).cast(), p.cast(), bytes, align, false) };
}

/// Copies `bytes` bytes from `src` to `dst` in pieces of the widest width that `align` (the
/// global side's alignment) and the size allow: a relaxed atomic access on the global side,
/// an unaligned plain one on the local side (the caller's own value).
unsafe fn copy_relaxed(src: *const u8, dst: *mut u8, bytes: usize, align: usize, global_is_src: bool) {
    use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
    let piece = [8, 4, 2, 1].into_iter().find(|&w| align.is_multiple_of(w) && bytes.is_multiple_of(w)).unwrap_or(1);
    macro_rules! pieces {
        ($atomic:ty, $int:ty) => {
            for i in (0..bytes).step_by(piece) {
                // Safety: both ranges hold `bytes` bytes; the global side is aligned to `piece`.
                unsafe {
                    let (s, d) = (src.add(i), dst.add(i));
                    if global_is_src {
                        d.cast::<$int>().write_unaligned(<$atomic>::from_ptr(s.cast_mut().cast()).load(Relaxed));
                    } else {
                        <$atomic>::from_ptr(d.cast()).store(s.cast::<$int>().read_unaligned(), Relaxed);
                    }
                }
            }
        };
    }
    match piece {
        8 => pieces!(AtomicU64, u64),
        4 => pieces!(AtomicU32, u32),
        2 => pieces!(AtomicU16, u16),
        _ => pieces!(AtomicU8, u8),
    }
}
