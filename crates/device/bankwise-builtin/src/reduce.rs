use bankwise_kernels::reduce::{Max, Min, Sum};
use bankwise_kernels::reduce_ladder;

reduce_ladder!(sum: Sum; f32, f64, i32, u32, i64, u64);
reduce_ladder!(min: Min; f32, f64, i32, u32, i64, u64);
reduce_ladder!(max: Max; f32, f64, i32, u32, i64, u64);
