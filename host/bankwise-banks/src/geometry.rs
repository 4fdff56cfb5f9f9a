//! The machine: how many banks and how wide, how a warp is cut into requests, and how lanes
//! reading one word share it ([`Geometry`], [`Broadcast`]), with the two machines of the sources
//! ([`Geometry::MODERN`], [`Geometry::HALF_WARP_16`]).

use crate::{BankError, MAX_LANES};

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

    /// Checks the invariants [`analyze`](crate::analyze) relies on.
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
