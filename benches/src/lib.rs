//! Criterion benchmarks live in `benches/kernels.rs`.
