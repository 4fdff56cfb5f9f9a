//! Builds `kernels/bankwise-primitives` (one `#[kernel]` entry per device primitive) into
//! PTX for sm_70 with warnings denied, so that every host build compiles the whole device API
//! for the GPU.

fn main() {
    bankwise_builder::PtxBuilder::new("../../kernels/bankwise-primitives")
        .deny_warnings()
        .build()
        .unwrap_or_else(|e| e.fail());
}
