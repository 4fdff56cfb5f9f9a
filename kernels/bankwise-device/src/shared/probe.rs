//! Volatile, predicated accesses at raw shared-window addresses, for measuring the hardware
//! itself (bankwise's bank-conflict probes), where the compiler must neither merge, reorder nor
//! drop an access.
//!
//! Each is one inline PTX instruction, `@p ld.volatile.shared` / `@p st.volatile.shared`
//! predicated on `active != 0` (an inactive lane issues nothing; a load then returns an
//! unspecified value), on a 32-bit `.shared` address. `active` is a word rather than a `bool` so
//! that a lane's mask bit (`mask >> lane & 1`) goes straight into the `setp`: as a `bool`, LLVM
//! rewrote the test and the probes' timed loop unrolled 3 times instead of 5. Narrow loads
//! zero-extend into 32 bits and narrow stores keep the low bits, so the widths cost no
//! conversion instructions.
//!
//! On the emulator each access is checked (inside the allocation, aligned) and recorded at the
//! caller's line, then made; an inactive lane's load returns 0.
//!
//! # Safety (every access)
//! If `active`, `addr` lies, aligned to the access's width, inside the launch's dynamic shared
//! memory (from [`base_address`]), and the access does not race (see the [module docs](super)).

use crate::backend;

/// The dynamic allocation's base as a 32-bit shared-window address (PTX
/// `cvta.to.shared.u64`): add byte offsets to it. On the emulator, 0: addresses there are
/// byte offsets into the block's allocation.
#[inline(always)]
pub fn base_address() -> u32 {
    backend::probe_base()
}

/// `ld.volatile.shared.u8` (SASS `LDS.U8`), zero-extended.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn load_u8(addr: u32, active: u32) -> u32 {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_ld_u8(addr, active) }
}

/// `ld.volatile.shared.u16` (SASS `LDS.U16`), zero-extended.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn load_u16(addr: u32, active: u32) -> u32 {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_ld_u16(addr, active) }
}

/// `ld.volatile.shared.u32` (SASS `LDS`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn load_u32(addr: u32, active: u32) -> u32 {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_ld_u32(addr, active) }
}

/// `st.volatile.shared.u8` (SASS `STS.U8`) of `v`'s low byte.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn store_u8(addr: u32, active: u32, v: u32) {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_st_u8(addr, active, v) }
}

/// `st.volatile.shared.u16` (SASS `STS.U16`) of `v`'s low half.
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn store_u16(addr: u32, active: u32, v: u32) {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_st_u16(addr, active, v) }
}

/// `st.volatile.shared.u32` (SASS `STS`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn store_u32(addr: u32, active: u32, v: u32) {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_st_u32(addr, active, v) }
}

/// `ld.volatile.shared.v2.u32` (SASS `LDS.64`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn load_v2(addr: u32, active: u32) -> [u32; 2] {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_ld_v2(addr, active) }
}

/// `st.volatile.shared.v2.u32` (SASS `STS.64`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn store_v2(addr: u32, active: u32, v: [u32; 2]) {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_st_v2(addr, active, v) }
}

/// `ld.volatile.shared.v4.u32` (SASS `LDS.128`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn load_v4(addr: u32, active: u32) -> [u32; 4] {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_ld_v4(addr, active) }
}

/// `st.volatile.shared.v4.u32` (SASS `STS.128`).
///
/// # Safety
/// See the [module docs](self).
#[inline(always)]
#[track_caller]
pub unsafe fn store_v4(addr: u32, active: u32, v: [u32; 4]) {
    // SAFETY: this function's contract (the module docs' "Safety (every access)": where
    // `active`, an aligned address inside the allocation, accessed without a race) is the
    // backend's, which documents it as this one's.
    unsafe { backend::probe_st_v4(addr, active, v) }
}
