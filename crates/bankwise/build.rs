//! Builds bankwise's kernel entries (`crates/device/bankwise-builtin`) into one PTX module
//! with `bankwise-builder`, and embeds it in the library.

fn main() {
    bankwise_builder::PtxBuilder::new("../device/bankwise-builtin")
        // The tuned kernels keep a few 16-byte vectors per thread in arrays walked by short
        // loops; LLVM's default unroll threshold leaves some of those loops rolled, and a
        // rolled loop over an array puts the array in local memory (ptxas: stack frame).
        .llvm_arg("-unroll-threshold=1500")
        .build()
        .unwrap_or_else(|e| e.fail());
}
