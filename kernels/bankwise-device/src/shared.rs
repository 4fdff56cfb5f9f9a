//! Shared memory: the block's scratchpad, as `Copy` handles that never make a Rust reference.
//!
//! # The contract, and why it is sound
//!
//! rust-cuda removed its `shared_array!` in 2025 as unsound: it gave every thread of a block a
//! `&mut [T]` to the same memory, and two live `&mut` to one place are undefined behaviour in
//! Rust whatever the threads then do (the compiler may assume a `&mut` is unaliased and, say,
//! keep its contents in registers across a barrier). The handles here — [`SharedSlice`] (a
//! length known at run time) and [`SharedArray`] (a length known at compile time) — hold only
//! a byte offset into the allocation and a length, and [`Shared`] (one element) the element's
//! address. Every access is one raw-pointer read or write made inside [`Shared::read`] /
//! [`Shared::write`] (or their volatile forms, an atomic of [`Shared`], or a [`probe`] access),
//! never a reference, so there is no aliasing claim to break; the handles are `Copy` and may be
//! given to every thread.
//!
//! What remains is CUDA's own rule, which the accessors state as their safety contract:
//! the index is in bounds, and the access does not race. Two accesses by different threads to
//! one element, at least one a write and not both atomic, must be ordered: by a barrier both
//! threads pass between them ([`sync_threads`](crate::thread::sync_threads) and its forms for
//! the block, [`sync_warp`](crate::warp::sync_warp) for lanes of one warp), or by a
//! release/acquire pattern ([`crate::fence`] plus an atomic flag). The compiler treats a
//! barrier as touching all memory, so it moves no access across one.
//!
//! Element types are [`Plain`]: shared memory starts each launch with whatever bytes the last
//! block left there, and a handle can be [`cast`](SharedSlice::cast) to another type, so any
//! bit pattern must be a valid value. Reading an element no thread of this block has written
//! yields an unspecified value, not undefined behaviour (the allocation is external memory
//! that Rust treats as initialised).
//!
//! # Where the memory comes from
//!
//! rustc's `nvptx64` target cannot declare `.shared` variables, so every handle is carved from
//! the block's *dynamic* shared memory, the bytes the host asks for at launch
//! (`shared_mem_bytes`, CUDA C++'s third `<<<>>>` argument, `extern __shared__`). Handles start
//! at byte offsets that are multiples of [`ALIGN`] (16) and hold types aligned to at most that,
//! so a cast is always aligned. The host must launch with at least the bytes the kernel's
//! handles reach: the checked constructors ([`dynamic`], [`SharedSlice::new`],
//! [`SharedArray::new`]) compare against the launch's size, read from PTX's
//! `%dynamic_smem_size`; the `_unchecked` ones make it the caller's promise.
//!
//! Every access uses a pointer derived from `core::intrinsics::gpu::gpu_launch_sized_workgroup_mem`
//! (the GPU backend's `shared_base`, always inlined) in the kernel's own code, so LLVM sees it
//! point into the shared state space and emits `ld.shared`/`st.shared`/`atom.shared` (SASS
//! `LDS`/`STS`/`ATOMS`; `LDS.64`/`LDS.128` for 8- and 16-byte elements) instead of generic
//! accesses, however the handle travelled. A pointer that passes through memory or an enum with
//! integer fields (a checked constructor's `Result`) comes out as an integer whose address space
//! LLVM cannot infer, and accesses through it become `cvta.shared` plus generic `ld`/`st` (SASS
//! `LD.E`/`ST.E`). So the views hold byte offsets, and [`SharedSlice::at`] derives the element's
//! pointer from the base (`base + offset`, then `+ i` elements); [`Shared`] holds that pointer, and
//! each of its accessors takes the base again with the held address (`with_addr`: LLVM folds it
//! away where it sees the pointer's origin and keeps `ld.shared` where it cannot). Measured with
//! ptxas 13.0 for sm_90: bankwise's built-in kernels compile to the same SASS as with handles
//! holding pointers, and `bankwise-primitives`' `shared_views` (checked views) to `LDS`/`STS`.
//!
//! The accessors are `#[track_caller]`: on the CPU emulator (`bankwise-emu`), where the
//! allocation is a per-block host buffer, each access is checked (inside the launch's
//! allocation, inside the view its handle came from, aligned) and recorded under the kernel's
//! own line, for the bank model and the race check. They are the one place shared memory is
//! touched. The end of a handle's view, which those checks need, is computed by the emulator's
//! backend from the view's start and length and is zero-sized on the GPU; computing it here,
//! even as dead code there, changed the register numbering of the tiled matmuls' PTX.

use core::marker::PhantomData;

use crate::Plain;
use crate::atomic::{AtomicAdd, AtomicMinMax};
use crate::backend::{self, AccessOp, ViewEnd};

pub mod probe;

/// The alignment of every handle's start, and the largest element alignment a handle takes.
pub const ALIGN: u32 = 16;

/// Bytes of dynamic shared memory this launch gave the block (PTX `%dynamic_smem_size`; the
/// launch's `shared_mem_bytes`).
#[inline(always)]
pub fn dynamic_size() -> u32 {
    backend::dynamic_smem_size()
}

/// Why a checked constructor refused a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedError {
    /// The byte offset is not a multiple of [`ALIGN`]: start the handle at a multiple of 16.
    Misaligned {
        /// The offset asked for.
        offset: u32,
    },
    /// The handle reaches past the launch's dynamic shared memory: launch with at least
    /// `needed` bytes (`shared_mem_bytes`), or ask for fewer elements.
    TooSmall {
        /// Bytes the handle needs from the start of the allocation (offset + length).
        needed: u64,
        /// Bytes the launch gave ([`dynamic_size`]).
        launched: u32,
    },
}

/// Checks a handle of `bytes` bytes at `offset` against the launch.
#[inline(always)]
fn check(offset: u32, bytes: u64) -> Result<(), SharedError> {
    if !offset.is_multiple_of(ALIGN) {
        return Err(SharedError::Misaligned { offset });
    }
    let (needed, launched) = (offset as u64 + bytes, dynamic_size());
    if needed > launched as u64 { Err(SharedError::TooSmall { needed, launched }) } else { Ok(()) }
}

/// The allocation's byte `offset` as a `*mut T` (in the shared state space).
#[inline(always)]
fn at_offset<T>(offset: u32) -> *mut T {
    backend::shared_base().wrapping_add(offset as usize).cast()
}

/// Compile-time checks of an element type: not zero-sized, aligned to at most [`ALIGN`].
const fn element_ok<T>() {
    assert!(size_of::<T>() > 0, "shared-memory handles hold sized elements");
    assert!(align_of::<T>() <= ALIGN as usize, "shared-memory elements are aligned to at most 16 bytes");
}

/// `len` elements of `T` at byte `offset` of the block's dynamic shared memory: CUDA C++'s
/// `extern __shared__ T s[]` (offset 0) or a typed pointer into it. A `Copy` handle; see the
/// [module docs](self) for the contract of its accessors.
pub struct SharedSlice<T> {
    /// Element 0's byte offset from the allocation's base (a multiple of [`ALIGN`]).
    offset: u32,
    len: usize,
    /// The handle stands for a `*mut T` (so it is, like one, neither `Send` nor `Sync`).
    _elem: PhantomData<*mut T>,
}

impl<T> Clone for SharedSlice<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedSlice<T> {}

/// The whole dynamic allocation as `T`s: `dynamic_size() / size_of::<T>()` of them from offset
/// 0. Always valid (its length comes from the launch); when the length is unused the size is
/// not even read.
#[inline(always)]
pub fn dynamic<T: Plain>() -> SharedSlice<T> {
    const { element_ok::<T>() };
    SharedSlice { offset: 0, len: dynamic_size() as usize / size_of::<T>(), _elem: PhantomData }
}

impl<T: Plain> SharedSlice<T> {
    /// `len` elements at byte `offset`, checked against the launch: `offset` a multiple of
    /// [`ALIGN`] and `offset + len · size_of::<T>()` within [`dynamic_size`].
    #[inline(always)]
    pub fn new(offset: u32, len: usize) -> Result<Self, SharedError> {
        const { element_ok::<T>() };
        check(offset, len as u64 * size_of::<T>() as u64)?;
        Ok(SharedSlice { offset, len, _elem: PhantomData })
    }

    /// [`new`](Self::new) without the checks, for kernels whose host sizes the launch.
    ///
    /// # Safety
    /// `offset` is a multiple of [`ALIGN`], and every launch of the kernel gives at least
    /// `offset + len · size_of::<T>()` bytes of dynamic shared memory.
    #[inline(always)]
    pub unsafe fn new_unchecked(offset: u32, len: usize) -> Self {
        const { element_ok::<T>() };
        SharedSlice { offset, len, _elem: PhantomData }
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The same bytes as elements of `U` (as many whole `U`s as fit). Always aligned: handles
    /// start at multiples of [`ALIGN`].
    #[inline(always)]
    pub fn cast<U: Plain>(self) -> SharedSlice<U> {
        const { element_ok::<U>() };
        SharedSlice { offset: self.offset, len: self.len * size_of::<T>() / size_of::<U>(), _elem: PhantomData }
    }

    /// A handle to element `i` (CUDA C++ `&s[i]`), for the accessors of [`Shared`]. Taking the
    /// handle before computing a value to write (`s.at(i).write(f())`) keeps the address
    /// computation ahead of `f`, as indexing a pointer does in CUDA C++; LLVM then shares it
    /// with later accesses (measured: 2 registers fewer in the reduction's tree rungs than
    /// `s.write(i, f())`).
    ///
    /// # Safety
    /// `i <= self.len()` (the address stays in the view; accessing it needs `i < self.len()`).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn at(self, i: usize) -> Shared<T> {
        let start = at_offset::<T>(self.offset);
        Shared { ptr: start.wrapping_add(i), end: backend::view_end(start, self.len) }
    }

    /// Reads element `i`: `self.at(i).read()`.
    ///
    /// # Safety
    /// `i < self.len()`, and as [`Shared::read`].
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(self, i: usize) -> T {
        // SAFETY: `i < self.len()` (the contract) keeps the handle in bounds of the view, and the
        // rest of the contract is [`Shared::read`]'s.
        unsafe { self.at(i).read() }
    }

    /// Writes element `i`: `self.at(i).write(v)`.
    ///
    /// # Safety
    /// `i < self.len()`, and as [`Shared::write`].
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(self, i: usize, v: T) {
        // SAFETY: `i < self.len()` (the contract) keeps the handle in bounds of the view, and the
        // rest of the contract is [`Shared::write`]'s.
        unsafe { self.at(i).write(v) }
    }
}

/// One element of shared memory (CUDA C++ `T*` into `__shared__` memory): a raw pointer in a
/// `Copy` handle, made by [`SharedSlice::at`] / [`SharedArray::at`]. Its accessors are the one
/// place bankwise's kernels read, write or atomically update shared memory; see the
/// [module docs](self) for their contract.
pub struct Shared<T> {
    /// The element, derived from the allocation's base in [`SharedSlice::at`]; the accessors
    /// use only its address (see [`ptr`](Self::ptr)).
    ptr: *mut T,
    /// The end of the view the handle came from, which the emulator checks accesses against
    /// (zero-sized on the GPU).
    end: ViewEnd,
}

impl<T> Clone for Shared<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

impl<T: Plain> Shared<T> {
    /// The element's address as a pointer derived from the allocation's base here at the
    /// access, so that LLVM sees the shared state space even where the handle passed through
    /// memory (see the [module docs](self)).
    #[inline(always)]
    fn ptr(self) -> *mut T {
        backend::shared_base().cast::<T>().with_addr(self.ptr.addr())
    }

    /// The same address as a handle to a `U` (CUDA C++ `(U*)p`), for a vector access to
    /// consecutive elements: `s.at(i).cast::<[u32; 4]>()` reads 16 bytes from element `i` with
    /// the address computed from `i` in elements, which LLVM folds with constant offsets
    /// (`s.cast::<U>().at(i * size / 16)` divides, and costs three instructions per access).
    ///
    /// The accessors' contract then applies to the `U`, which must be aligned at the address (to
    /// its size, for an atomic or [`load_async`](Self::load_async)).
    #[inline(always)]
    pub fn cast<U: Plain>(self) -> Shared<U> {
        const { element_ok::<U>() };
        Shared { ptr: self.ptr.cast(), end: self.end }
    }

    /// Reads the element (`ld.shared`, SASS `LDS`; `LDS.64`/`LDS.128` for 8/16-byte types):
    /// CUDA C++ `*p`.
    ///
    /// # Safety
    /// The handle is in bounds of its view, and no other thread writes the element unless
    /// ordered with this read (a barrier between them, or a fence and an atomic flag: see the
    /// [module docs](self)).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(self) -> T {
        backend::check_shared(self.ptr, self.end, AccessOp::Load);
        // SAFETY: the contract is what `ptr::read` needs. The handle is in bounds of its view,
        // which lies inside the launch's dynamic shared memory (checked by the constructor, or
        // promised to `new_unchecked`), so `self.ptr()`, derived from the allocation's base, is
        // valid for a `T`. It is aligned: views start at multiples of [`ALIGN`] and `T` is
        // aligned to at most that (a `cast` handle's contract asks for it). No other thread
        // writes the element unordered with this read, and any bits are a valid `T` ([`Plain`]).
        unsafe { self.ptr().read() }
    }

    /// Writes the element (`st.shared`, SASS `STS`; `STS.64`/`STS.128`): CUDA C++ `*p = v`.
    ///
    /// # Safety
    /// The handle is in bounds of its view, and no other thread reads or writes the element
    /// unless ordered with this write (see [`read`](Self::read)).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(self, v: T) {
        backend::check_shared(self.ptr, self.end, AccessOp::Store);
        // SAFETY: as in [`read`](Self::read), `self.ptr()` is valid for a `T` and aligned; the
        // contract has no other thread access the element unordered with this write.
        unsafe { self.ptr().write(v) }
    }

    /// Reads the element as a volatile load (`ld.volatile.shared`): CUDA C++ `*p` through a
    /// `volatile T *`. The compiler emits it where the source has it, never merged with or
    /// forwarded from another access: what pre-Volta warp-synchronous code relied on.
    /// `volatile` orders nothing between threads, so the contract is [`read`](Self::read)'s;
    /// on the emulator the access is checked and recorded as a read is.
    ///
    /// # Safety
    /// As [`read`](Self::read).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read_volatile(self) -> T {
        backend::check_shared(self.ptr, self.end, AccessOp::Load);
        // SAFETY: as in [`read`](Self::read) (the same contract): valid, aligned, no racing write,
        // any bits a valid `T`.
        unsafe { self.ptr().read_volatile() }
    }

    /// Writes the element as a volatile store (`st.volatile.shared`): CUDA C++ `*p = v`
    /// through a `volatile T *`, never merged or dropped. As
    /// [`read_volatile`](Self::read_volatile), it orders nothing between threads.
    ///
    /// # Safety
    /// As [`write`](Self::write).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write_volatile(self, v: T) {
        backend::check_shared(self.ptr, self.end, AccessOp::Store);
        // SAFETY: as in [`write`](Self::write) (the same contract): valid, aligned, no racing
        // access.
        unsafe { self.ptr().write_volatile(v) }
    }

    /// `atomicAdd(p, v)` (PTX `atom.shared.add`, SASS `ATOMS.ADD`): returns the old value.
    ///
    /// # Safety
    /// The handle is in bounds of its view; non-atomic accesses to the element by other threads
    /// are ordered with it (other atomics on it need no ordering).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn atomic_add(self, v: T) -> T
    where
        T: AtomicAdd,
    {
        backend::check_shared(self.ptr, self.end, AccessOp::Atomic);
        // SAFETY: the contract is what `add_shared` needs: `self.ptr()` is an element of the
        // block's shared memory, in bounds of its view and aligned (as in [`read`](Self::read);
        // `T`'s size is its alignment), and other threads' non-atomic accesses to it are ordered
        // with this one.
        unsafe { T::add_shared(self.ptr(), v) }
    }

    /// `atomicMin(p, v)` (PTX `atom.shared.min`): returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`](Self::atomic_add).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn atomic_min(self, v: T) -> T
    where
        T: AtomicMinMax,
    {
        backend::check_shared(self.ptr, self.end, AccessOp::Atomic);
        // SAFETY: as in [`atomic_add`](Self::atomic_add) (the same contract).
        unsafe { T::min_shared(self.ptr(), v) }
    }

    /// `atomicMax(p, v)` (PTX `atom.shared.max`): returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`](Self::atomic_add).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn atomic_max(self, v: T) -> T
    where
        T: AtomicMinMax,
    {
        backend::check_shared(self.ptr, self.end, AccessOp::Atomic);
        // SAFETY: as in [`atomic_add`](Self::atomic_add) (the same contract).
        unsafe { T::max_shared(self.ptr(), v) }
    }

    /// `atomicExch(p, v)` (PTX `atom.shared.exch`) for 4- and 8-byte types: returns the old
    /// value.
    ///
    /// # Safety
    /// As [`atomic_add`](Self::atomic_add).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn atomic_exchange(self, v: T) -> T {
        const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
        backend::check_shared(self.ptr, self.end, AccessOp::Atomic);
        // SAFETY: the contract is the backend's `atom_exch_shared`'s (documented as this
        // function's): an in-bounds element aligned to `T`'s size, other threads' non-atomic
        // accesses ordered; `T` is 4 or 8 bytes (asserted above).
        unsafe { backend::atom_exch_shared(self.ptr(), v) }
    }

    /// `atomicCAS(p, expected, new)` (PTX `atom.shared.cas`) for 4- and 8-byte types: stores
    /// `new` if the element has `expected`'s bits; returns the old value either way.
    ///
    /// # Safety
    /// As [`atomic_add`](Self::atomic_add).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn atomic_compare_and_swap(self, expected: T, new: T) -> T {
        const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "atomics move 4- or 8-byte values") };
        backend::check_shared(self.ptr, self.end, AccessOp::Atomic);
        // SAFETY: the contract is the backend's `atom_cas_shared`'s (documented as this
        // function's), as in [`atomic_exchange`](Self::atomic_exchange); `T` is 4 or 8 bytes.
        unsafe { backend::atom_cas_shared(self.ptr(), expected, new) }
    }

    /// Starts an asynchronous copy of the element from global memory at `src`, of which the
    /// first `src_bytes` bytes are read and the rest zero-filled (PTX `cp.async`, SASS `LDGSTS`;
    /// CUDA C++ `__pipeline_memcpy_async(p, src, sizeof(T), sizeof(T) - src_bytes)`). The
    /// bytes go straight to shared memory, through no register: 16-byte elements as
    /// `cp.async.cg` (cached in L2 only), 4- and 8-byte ones as `cp.async.ca`. The copy joins
    /// this thread's next group ([`crate::pipeline::commit`]) and is complete once
    /// [`crate::pipeline::wait_prior`] has waited for that group. Needs `sm_80` or later (the
    /// PTX module must target it).
    ///
    /// On the emulator the source is read now and the shared write made, checked and recorded
    /// at this call's site, when the thread waits for the group.
    ///
    /// # Safety
    /// `T` is 4, 8 or 16 bytes; the handle is in bounds of its view; `src_bytes ≤
    /// size_of::<T>()`; where `src_bytes > 0`, `src` is a global address valid for them and
    /// aligned to `size_of::<T>()`. No other thread accesses the element between this call and
    /// a barrier after the wait that completes the copy, and this thread accesses it only
    /// after that wait.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn load_async(self, src: *const T, src_bytes: u32) {
        const { assert!(matches!(size_of::<T>(), 4 | 8 | 16), "cp.async copies 4, 8 or 16 bytes") };
        // SAFETY: the contract is the backend's `cp_async`'s (documented as this function's):
        // an in-bounds element, a source valid for `src_bytes ≤ size_of::<T>()` bytes, and no
        // access to the element until the copy completes; `T` is 4, 8 or 16 bytes (asserted
        // above).
        unsafe { backend::cp_async(self.ptr(), self.end, src, src_bytes) }
    }
}

/// `N` elements of `T` at a fixed byte offset of the dynamic allocation: CUDA C++'s
/// `__shared__ T s[N]`, which rustc's `nvptx64` target cannot declare. The host must launch
/// with at least `offset + `[`BYTES`](Self::BYTES) bytes of dynamic shared memory;
/// [`new`](Self::new) checks it. A `Copy` handle with the accessors of [`SharedSlice`].
pub struct SharedArray<T, const N: usize> {
    /// Element 0's byte offset from the allocation's base (a multiple of [`ALIGN`]).
    offset: u32,
    _elem: PhantomData<*mut T>,
}

impl<T, const N: usize> Clone for SharedArray<T, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for SharedArray<T, N> {}

impl<T: Plain, const N: usize> SharedArray<T, N> {
    /// Bytes of shared memory the array occupies.
    pub const BYTES: usize = N * size_of::<T>();

    /// The array at byte `offset`, checked against the launch (`offset` a multiple of
    /// [`ALIGN`], `offset + BYTES` within [`dynamic_size`]).
    #[inline(always)]
    pub fn new(offset: u32) -> Result<Self, SharedError> {
        SharedSlice::<T>::new(offset, N).map(|s| SharedArray { offset: s.offset, _elem: PhantomData })
    }

    /// [`new`](Self::new) without the checks.
    ///
    /// # Safety
    /// As [`SharedSlice::new_unchecked`] with `len = N`.
    #[inline(always)]
    pub unsafe fn new_unchecked(offset: u32) -> Self {
        const { element_ok::<T>() };
        SharedArray { offset, _elem: PhantomData }
    }

    /// The array as a [`SharedSlice`] of `N` elements.
    #[inline(always)]
    pub fn as_slice(self) -> SharedSlice<T> {
        SharedSlice { offset: self.offset, len: N, _elem: PhantomData }
    }

    /// `N`.
    #[inline(always)]
    pub fn len(self) -> usize {
        N
    }

    /// Whether `N` is 0.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        N == 0
    }

    /// [`SharedSlice::at`].
    ///
    /// # Safety
    /// `i <= N`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn at(self, i: usize) -> Shared<T> {
        // SAFETY: `i <= N` (the contract), and `as_slice()` has `N` elements.
        unsafe { self.as_slice().at(i) }
    }

    /// [`SharedSlice::read`].
    ///
    /// # Safety
    /// As [`SharedSlice::read`], with `i < N`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(self, i: usize) -> T {
        // SAFETY: `i < N`, the length of `as_slice()`, and the rest is [`SharedSlice::read`]'s
        // contract, passed on.
        unsafe { self.as_slice().read(i) }
    }

    /// [`SharedSlice::write`].
    ///
    /// # Safety
    /// As [`SharedSlice::write`], with `i < N`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(self, i: usize, v: T) {
        // SAFETY: `i < N`, the length of `as_slice()`, and the rest is [`SharedSlice::write`]'s
        // contract, passed on.
        unsafe { self.as_slice().write(i, v) }
    }
}
