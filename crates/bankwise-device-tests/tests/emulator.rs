//! The primitive trials of `gpu.rs` on the CPU emulator (no GPU needed): every device-crate
//! primitive, run from its host form, against its definition.

#[path = "gpu.rs"]
mod gpu;

use bankwise_primitives as _; // links the host forms the emulator runs

fn main() {
    // The emulator runs a warp's lanes one at a time and cannot know which of them the
    // hardware would run together, so `active_mask` in divergent code is not modelled
    // (docs/emulator.md).
    let unsupported = [("active_mask_divergent", "the emulator does not model which lanes run together")];
    gpu::run_on(Ok(bankwise_runtime::Device::emulator()), "emulator", &unsupported);
}
