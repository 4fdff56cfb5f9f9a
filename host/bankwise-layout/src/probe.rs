//! The bank-conflict probes: launch shape and the values they write and check.
//!
//! A probe block has [`WARPS`] warps; each performs one shared-memory access pattern
//! `iterations ×` [`UNROLL`] times. Shared memory is filled with [`fill_word`] first (when
//! verifying) and stores write [`store_word`], so the host can predict every checksum.

/// Warps per probe block: enough independent accesses in flight that the shared-memory pipe,
/// not latency, sets the pace.
pub const WARPS: u32 = 16;
/// Accesses per loop iteration, unrolled in the kernel.
pub const UNROLL: u32 = 16;
/// Largest dynamic shared allocation a probe may use (the default limit, no opt-in needed).
pub const MAX_SHARED_BYTES: u32 = 48 * 1024;
/// Flag: fill shared memory first and report checkable values (off for profiler runs, so
/// that only the probed instruction touches shared memory).
pub const VERIFY: u32 = 1;

/// The 32-bit word at word index `word` of shared memory after the fill.
pub const fn fill_word(word: u32) -> u32 {
    word.wrapping_mul(0x9E37_79B1) ^ 0x5A5A_5A5A
}

/// The 32-bit word the store probes write at word index `word` (partially, for 1- and 2-byte
/// stores): different from [`fill_word`], so a read-back proves the store landed.
pub const fn store_word(word: u32) -> u32 {
    !fill_word(word)
}

/// The `bytes`-wide value (1, 2 or 4 bytes) at byte address `addr` after the fill.
pub const fn fill_value(addr: u32, bytes: u32) -> u32 {
    part(fill_word(addr / 4), addr, bytes)
}

/// The `bytes`-wide value (1, 2 or 4 bytes) a store probe writes at byte address `addr`.
pub const fn store_value(addr: u32, bytes: u32) -> u32 {
    part(store_word(addr / 4), addr, bytes)
}

/// Bytes `addr % 4 ..` of a little-endian word, `bytes` of them.
const fn part(word: u32, addr: u32, bytes: u32) -> u32 {
    let mask = if bytes >= 4 { u32::MAX } else { (1 << (8 * bytes)) - 1 };
    (word >> (8 * (addr % 4))) & mask
}
