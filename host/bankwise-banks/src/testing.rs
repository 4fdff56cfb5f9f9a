//! Helpers shared by the unit tests: analyzing an access that must be valid, and a small
//! deterministic random number generator.

use crate::{Access, Analysis, Geometry, analyze};

/// The analysis of an access the test knows to be valid.
pub(crate) fn run(access: &Access, g: &Geometry) -> Analysis {
    analyze(access, g).expect("valid access")
}

/// xorshift64: reproducible pseudo-random numbers without a dependency.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
