//! `Gpu::from_env`: `BANKWISE_EMULATOR=1` gives bankwise's kernels on the CPU emulator. One
//! test, in a process of its own: it sets the variable.

use bankwise::{Gpu, LoadedImage};

#[test]
fn bankwise_emulator_gives_the_emulated_kernels() {
    // Safety: the only test of this process, so no other thread reads the environment.
    unsafe { std::env::set_var(bankwise::runtime::EMULATOR_VAR, "1") };
    let gpu = Gpu::from_env().unwrap();
    assert_eq!(gpu.loaded_image(), LoadedImage::Emulator);
    let src = gpu.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(gpu.reduce(bankwise::Sum, &src).unwrap(), 6);
}
