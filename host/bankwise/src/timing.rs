//! Timing GPU work honestly: the runtime's harness ([`bankwise_runtime::bench`]), re-exported.
//! Every function takes a [`bankwise_runtime::Device`]; a [`crate::Gpu`] is one (it
//! dereferences to it), so `timing::measure(&gpu, …)` works as it is.

pub use bankwise_runtime::bench::{
    MIN_WARMUP, Stats, Timer, VersusCopy, measure, measure_pair, rotation, spin_wait, versus_copy,
};
