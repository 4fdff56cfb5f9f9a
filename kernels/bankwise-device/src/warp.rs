//! Warp collectives: `__syncwarp`, shuffles, votes and the active mask.
//!
//! Every collective names the lanes that take part in a `mask` (bit `i` = lane `i`); each lane
//! in it must execute the same collective (with the same mask) before any of them returns, as
//! for CUDA C++'s `*_sync` intrinsics. A lane outside the mask, or one that has exited, must not
//! be read from: a shuffle from it returns an unspecified value.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(not(target_arch = "nvptx64"))]
use bankwise_emu::lane::{self as emu, Shuffle, Vote};

use crate::Plain;

/// The mask of all 32 lanes: CUDA C++'s `0xffffffff` in `__shfl_sync(0xffffffff, ..)`.
pub const FULL_MASK: u32 = u32::MAX;

/// `__syncwarp(mask)` (PTX `bar.warp.sync`): the lanes in `mask` wait for each other, and their
/// memory accesses before it happen before those after it. Since Volta the lanes of a warp are
/// scheduled independently, so warp-synchronous code that exchanges data through shared memory
/// without it is a data race.
#[inline(always)]
#[track_caller]
pub fn sync_warp(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!("bar.warp.sync {m};", m = in(reg32) mask)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    emu::sync_warp(mask);
}

/// `__activemask()` (PTX `activemask.b32`): the lanes of this warp executing this instruction
/// together, e.g. only the lanes that took the branch it is in. It neither waits for nor
/// synchronises them.
///
/// The emulator answers with the lanes of the warp that reach this call (this line of the
/// kernel) once none can run further: the whole warp where it has not diverged, one side of a
/// branch inside one (`bankwise_emu::lane::active_mask`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn active_mask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let m: u32;
        unsafe { asm!("activemask.b32 {m};", m = out(reg32) m, options(nomem, nostack)) };
        m
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::active_mask();
}

/// `__all_sync(mask, predicate)` (PTX `vote.sync.all.pred`): whether `predicate` holds in every
/// lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn all(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        unsafe {
            asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.all.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
                v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
        };
        r != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::vote(Vote::All, mask, predicate) != 0;
}

/// `__any_sync(mask, predicate)` (PTX `vote.sync.any.pred`): whether `predicate` holds in any
/// lane of `mask`.
#[inline(always)]
#[track_caller]
pub fn any(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        unsafe {
            asm!("{{ .reg .pred p, q; setp.ne.u32 p, {v}, 0; vote.sync.any.pred q, p, {m}; selp.u32 {r}, 1, 0, q; }}",
                v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
        };
        r != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::vote(Vote::Any, mask, predicate) != 0;
}

/// `__ballot_sync(mask, predicate)` (PTX `vote.sync.ballot.b32`): bit `i` set for each lane `i`
/// of `mask` whose `predicate` holds.
#[inline(always)]
#[track_caller]
pub fn ballot(mask: u32, predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        unsafe {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {v}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
                v = in(reg32) predicate as u32, m = in(reg32) mask, r = out(reg32) r, options(nomem, nostack))
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return emu::vote(Vote::Ballot, mask, predicate);
}

/// One 32-bit shuffle: `shfl.sync.<mode>.b32 d, a, b, c, mask`.
macro_rules! shfl32 {
    ($(#[$doc:meta])* $name:ident, $mode:literal, $host:ident, $clamp:literal = $c:literal, $b:ident) => {
        $(#[$doc])*
        #[inline(always)]
        #[track_caller]
        pub fn $name(mask: u32, value: u32, $b: u32) -> u32 {
            #[cfg(target_arch = "nvptx64")]
            {
                let out: u32;
                unsafe {
                    asm!(concat!("shfl.sync.", $mode, ".b32 {o}, {v}, {b}, ", $clamp, ", {m};"),
                        o = out(reg32) out, v = in(reg32) value, b = in(reg32) $b, m = in(reg32) mask)
                }
                out
            }
            #[cfg(not(target_arch = "nvptx64"))]
            return emu::shuffle(Shuffle::$host, mask, value, $b, $c);
        }
    };
}

shfl32!(
    /// `__shfl_down_sync(mask, value, delta)` for 32 bits (PTX `shfl.sync.down.b32`, SASS
    /// `SHFL.DOWN`): lane `i` gets `value` of lane `i + delta`, or its own where `i + delta > 31`.
    shfl_down_u32, "down", Down, "0x1f" = 0x1f, delta
);
shfl32!(
    /// `__shfl_up_sync(mask, value, delta)` for 32 bits (PTX `shfl.sync.up.b32`, SASS
    /// `SHFL.UP`): lane `i` gets `value` of lane `i - delta`, or its own where `i < delta`.
    shfl_up_u32, "up", Up, "0x0" = 0x0, delta
);
shfl32!(
    /// `__shfl_xor_sync(mask, value, lane_mask)` for 32 bits (PTX `shfl.sync.bfly.b32`, SASS
    /// `SHFL.BFLY`): lane `i` gets `value` of lane `i ^ lane_mask` (a butterfly).
    shfl_xor_u32, "bfly", Xor, "0x1f" = 0x1f, lane_mask
);
shfl32!(
    /// `__shfl_sync(mask, value, src_lane)` for 32 bits (PTX `shfl.sync.idx.b32`, SASS
    /// `SHFL.IDX`): every lane gets `value` of lane `src_lane % 32`.
    shfl_idx_u32, "idx", Idx, "0x1f" = 0x1f, src_lane
);

/// A 64-bit shuffle as two 32-bit ones (the hardware moves 32 bits per shuffle), as CUDA C++
/// does for `long long` and `double`.
macro_rules! shfl64 {
    ($(#[$doc:meta])* $name:ident, $narrow:ident, $b:ident) => {
        $(#[$doc])*
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
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

/// `value` moved through its 4- or 8-byte bit pattern by `narrow` or `wide`. Other sizes are a
/// compile-time error (at the instantiation).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn through_bits<T: Plain>(value: T, narrow: impl FnOnce(u32) -> u32, wide: impl FnOnce(u64) -> u64) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "warp shuffles move 4- or 8-byte values") };
    // Safety: T is Plain (no padding, every bit pattern valid) and exactly as big as the integer.
    unsafe {
        if size_of::<T>() == 4 {
            core::mem::transmute_copy(&narrow(core::mem::transmute_copy(&value)))
        } else {
            core::mem::transmute_copy(&wide(core::mem::transmute_copy(&value)))
        }
    }
}

/// The host form of the generic shuffles: `value`'s 4- or 8-byte bit pattern through one or
/// two 32-bit shuffles of `mode` with operands `b` and `c` (the low half first, as
/// [`shfl_down_u64`] moves it). Written without [`through_bits`]'s closures, through which
/// `#[track_caller]` cannot pass, so that the emulator names the kernel's line.
#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
fn host_shuffle<T: Plain>(mode: Shuffle, mask: u32, value: T, b: u32, c: u32) -> T {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8, "warp shuffles move 4- or 8-byte values") };
    // Safety: T is Plain (no padding, every bit pattern valid) and exactly as big as the integer.
    unsafe {
        if size_of::<T>() == 4 {
            core::mem::transmute_copy(&emu::shuffle(mode, mask, core::mem::transmute_copy(&value), b, c))
        } else {
            let v: u64 = core::mem::transmute_copy(&value);
            let lo = emu::shuffle(mode, mask, v as u32, b, c) as u64;
            let hi = emu::shuffle(mode, mask, (v >> 32) as u32, b, c) as u64;
            core::mem::transmute_copy(&(hi << 32 | lo))
        }
    }
}

/// [`shfl_down_u32`] / [`shfl_down_u64`] for any [`Plain`] type of 4 or 8 bytes (`f32`, `f64`,
/// `i64`, a `#[repr(C)]` pair of `f32` and `u32`, …): CUDA C++'s `__shfl_down_sync` templates.
/// Any other size fails to compile.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_down<T: Plain>(mask: u32, value: T, delta: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    return through_bits(value, |v| shfl_down_u32(mask, v, delta), |v| shfl_down_u64(mask, v, delta));
    #[cfg(not(target_arch = "nvptx64"))]
    return host_shuffle(Shuffle::Down, mask, value, delta, 0x1f);
}

/// [`shfl_up_u32`] / [`shfl_up_u64`] for any [`Plain`] type of 4 or 8 bytes.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_up<T: Plain>(mask: u32, value: T, delta: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    return through_bits(value, |v| shfl_up_u32(mask, v, delta), |v| shfl_up_u64(mask, v, delta));
    #[cfg(not(target_arch = "nvptx64"))]
    return host_shuffle(Shuffle::Up, mask, value, delta, 0);
}

/// [`shfl_xor_u32`] / [`shfl_xor_u64`] for any [`Plain`] type of 4 or 8 bytes.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_xor<T: Plain>(mask: u32, value: T, lane_mask: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    return through_bits(value, |v| shfl_xor_u32(mask, v, lane_mask), |v| shfl_xor_u64(mask, v, lane_mask));
    #[cfg(not(target_arch = "nvptx64"))]
    return host_shuffle(Shuffle::Xor, mask, value, lane_mask, 0x1f);
}

/// [`shfl_idx_u32`] / [`shfl_idx_u64`] for any [`Plain`] type of 4 or 8 bytes.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_idx<T: Plain>(mask: u32, value: T, src_lane: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    return through_bits(value, |v| shfl_idx_u32(mask, v, src_lane), |v| shfl_idx_u64(mask, v, src_lane));
    #[cfg(not(target_arch = "nvptx64"))]
    return host_shuffle(Shuffle::Idx, mask, value, src_lane, 0x1f);
}
