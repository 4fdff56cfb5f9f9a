//! The primitive trials of `gpu.rs` on the CPU emulator (no GPU needed): every device-crate
//! primitive, run from its host form, against its definition.

#[path = "gpu.rs"]
mod gpu;

use bankwise_primitives as _; // links the host forms the emulator runs

fn main() {
    gpu::run_on(Ok(bankwise_runtime::Device::emulator()), "emulator", &[]);
}
