//! What bankwise's kernels are measured against: [`cublas`], cuBLAS's `geam` transpose, used
//! by the criterion benchmarks (`benches/kernels.rs`) and by `bankwise bench`.

pub mod cublas;
