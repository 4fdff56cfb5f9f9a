//! Warp collectives: `__syncwarp`, shuffles, votes and the active mask.
//!
//! Every collective names the lanes that take part in a `mask` (bit `i` = lane `i`); each lane
//! in it must execute the same collective (with the same mask) before any of them returns, as
//! for CUDA C++'s `*_sync` intrinsics. A lane outside the mask, or one that has exited, must not
//! be read from: a shuffle from it returns an unspecified value.

use crate::{Plain, backend, bits};

/// The mask of all 32 lanes: CUDA C++'s `0xffffffff` in `__shfl_sync(0xffffffff, ..)`.
pub const FULL_MASK: u32 = u32::MAX;

/// `__syncwarp(mask)` (PTX `bar.warp.sync`): the lanes in `mask` wait for each other, and their
/// memory accesses before it happen before those after it. Since Volta the lanes of a warp are
/// scheduled independently, so warp-synchronous code that exchanges data through shared memory
/// without it is a data race.
#[inline(always)]
#[track_caller]
pub fn sync_warp(mask: u32) {
    backend::bar_warp_sync(mask);
}

/// `__activemask()` (PTX `activemask.b32`): the lanes of this warp executing this instruction
/// together, e.g. only the lanes that took the branch it is in. It neither waits for nor
/// synchronises them.
///
/// The emulator answers with the lanes of the warp that reach this call (this line of the
/// kernel) once none can run further: the whole warp where it has not diverged, one side of a
/// branch inside one (`bankwise_emu::lane::active_mask`).
#[inline(always)]
#[track_caller]
pub fn active_mask() -> u32 {
    backend::activemask()
}

/// `__all_sync(mask, predicate)` (PTX `vote.sync.all.pred`): whether `predicate` holds in every
/// lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn all(mask: u32, predicate: bool) -> bool {
    backend::vote_all(mask, predicate)
}

/// `__any_sync(mask, predicate)` (PTX `vote.sync.any.pred`): whether `predicate` holds in any
/// lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn any(mask: u32, predicate: bool) -> bool {
    backend::vote_any(mask, predicate)
}

/// `__ballot_sync(mask, predicate)` (PTX `vote.sync.ballot.b32`): bit `i` set for each lane `i`
/// of `mask` whose `predicate` holds.
#[inline(always)]
#[track_caller]
pub fn ballot(mask: u32, predicate: bool) -> u32 {
    backend::vote_ballot(mask, predicate)
}

/// One 32-bit shuffle, the backend's `shfl.sync.<mode>.b32`.
macro_rules! shfl32 {
    ($(#[$doc:meta])* $name:ident = $backend:ident, $b:ident) => {
        $(#[$doc])*
        #[inline(always)]
        #[track_caller]
        pub fn $name(mask: u32, value: u32, $b: u32) -> u32 {
            backend::$backend(mask, value, $b)
        }
    };
}

shfl32!(
    /// `__shfl_down_sync(mask, value, delta)` for 32 bits (PTX `shfl.sync.down.b32`, SASS
    /// `SHFL.DOWN`): lane `i` gets `value` of lane `i + delta`, or its own where `i + delta > 31`.
    shfl_down_u32 = shfl_down_b32, delta
);
shfl32!(
    /// `__shfl_up_sync(mask, value, delta)` for 32 bits (PTX `shfl.sync.up.b32`, SASS
    /// `SHFL.UP`): lane `i` gets `value` of lane `i - delta`, or its own where `i < delta`.
    shfl_up_u32 = shfl_up_b32, delta
);
shfl32!(
    /// `__shfl_xor_sync(mask, value, lane_mask)` for 32 bits (PTX `shfl.sync.bfly.b32`, SASS
    /// `SHFL.BFLY`): lane `i` gets `value` of lane `i ^ lane_mask` (a butterfly).
    shfl_xor_u32 = shfl_bfly_b32, lane_mask
);
shfl32!(
    /// `__shfl_sync(mask, value, src_lane)` for 32 bits (PTX `shfl.sync.idx.b32`, SASS
    /// `SHFL.IDX`): every lane gets `value` of lane `src_lane % 32`.
    shfl_idx_u32 = shfl_idx_b32, src_lane
);

/// A 64-bit shuffle as two 32-bit ones (the hardware moves 32 bits per shuffle), as CUDA C++
/// does for `long long` and `double`.
macro_rules! shfl64 {
    ($(#[$doc:meta])* $name:ident, $narrow:ident, $b:ident) => {
        $(#[$doc])*
        #[inline(always)]
        #[track_caller]
        pub fn $name(mask: u32, value: u64, $b: u32) -> u64 {
            let lo = $narrow(mask, value as u32, $b) as u64;
            let hi = $narrow(mask, (value >> 32) as u32, $b) as u64;
            hi << 32 | lo
        }
    };
}

shfl64!(
    /// `__shfl_down_sync` for 64 bits: [`shfl_down_u32`] of each half (two `SHFL.DOWN`).
    shfl_down_u64, shfl_down_u32, delta
);
shfl64!(
    /// `__shfl_up_sync` for 64 bits: [`shfl_up_u32`] of each half (two `SHFL.UP`).
    shfl_up_u64, shfl_up_u32, delta
);
shfl64!(
    /// `__shfl_xor_sync` for 64 bits: [`shfl_xor_u32`] of each half (two `SHFL.BFLY`).
    shfl_xor_u64, shfl_xor_u32, lane_mask
);
shfl64!(
    /// `__shfl_sync` for 64 bits: [`shfl_idx_u32`] of each half (two `SHFL.IDX`).
    shfl_idx_u64, shfl_idx_u32, src_lane
);

/// A shuffle of any [`Plain`] type of 4 or 8 bytes: its bit pattern through the 32- or 64-bit
/// shuffle. Other sizes are a compile-time error (at the instantiation). Written without
/// closures, through which `#[track_caller]` cannot pass, so that the emulator names the
/// kernel's line.
macro_rules! shfl_plain {
    ($(#[$doc:meta])* $name:ident, $narrow:ident, $wide:ident, $b:ident) => {
        $(#[$doc])*
        #[inline(always)]
        #[track_caller]
        pub fn $name<T: Plain>(mask: u32, value: T, $b: u32) -> T {
            const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "warp shuffles move 4- or 8-byte values") };
            if size_of::<T>() == 4 {
                bits($narrow(mask, bits(value), $b))
            } else {
                bits($wide(mask, bits(value), $b))
            }
        }
    };
}

shfl_plain!(
    /// [`shfl_down_u32`] / [`shfl_down_u64`] for any [`Plain`] type of 4 or 8 bytes (`f32`, `f64`,
    /// `i64`, a `#[repr(C)]` pair of `f32` and `u32`, …): CUDA C++'s `__shfl_down_sync` templates.
    /// Any other size fails to compile.
    shfl_down, shfl_down_u32, shfl_down_u64, delta
);
shfl_plain!(
    /// [`shfl_up_u32`] / [`shfl_up_u64`] for any [`Plain`] type of 4 or 8 bytes.
    shfl_up, shfl_up_u32, shfl_up_u64, delta
);
shfl_plain!(
    /// [`shfl_xor_u32`] / [`shfl_xor_u64`] for any [`Plain`] type of 4 or 8 bytes.
    shfl_xor, shfl_xor_u32, shfl_xor_u64, lane_mask
);
shfl_plain!(
    /// [`shfl_idx_u32`] / [`shfl_idx_u64`] for any [`Plain`] type of 4 or 8 bytes.
    shfl_idx, shfl_idx_u32, shfl_idx_u64, src_lane
);
