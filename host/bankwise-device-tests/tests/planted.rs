//! The emulator catches a planted off-by-one (`planted_off_by_one` in bankwise-primitives:
//! a copy whose bound is `i <= n`) as an out-of-bounds global read naming the kernel's line
//! and the first thread past the end, before the access happens. Never launched on a GPU.

use bankwise_device_tests::{ENTRIES, PTX};
use bankwise_runtime::bankwise_emu::{Fault, Space};
use bankwise_runtime::{Device, Error, LaunchConfig, ModuleImage};

#[test]
fn a_planted_off_by_one_is_caught_with_its_site_and_thread() {
    let dev = Device::emulator();
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES)).unwrap();
    let kernel = module.kernel(bankwise_primitives::planted_off_by_one).unwrap();
    let n = 1000usize;
    let src = dev.upload(&(0..n as u32).collect::<Vec<_>>()).unwrap();
    let mut dst = dev.alloc_zeros::<u32>(n).unwrap();
    let config = LaunchConfig::for_elements(n as u64 + 24, 256);
    // SAFETY: the arguments have the entry's types (`*mut u32, *const u32, u64`); the kernel reads
    // one element past `src`, but on the emulator, which checks every access and faults before
    // it happens: that fault is what this test expects.
    let err = unsafe { kernel.launch(dev.stream(), config, (&mut dst, &src, n as u64)) }.unwrap_err();
    match err {
        Error::Emulated {
            kernel,
            fault: Fault::OutOfBounds { space: Space::Global, write: false, thread, site, address, .. },
        } => {
            assert_eq!(kernel, "planted_off_by_one");
            assert_eq!(thread.block.x * 256 + thread.thread.x, n as u32, "the thread with i == n");
            assert_eq!(address, src.device_ptr() + 4 * n as u64, "one element past the end");
            assert!(site.file.ends_with("bankwise-primitives/src/lib.rs"), "{site}");
        }
        other => panic!("{other}"),
    }
}
