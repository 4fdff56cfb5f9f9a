//! Small kernels for the emulator's race checks, written against its `lane` API and
//! registered by hand as `#[kernel]` registers a kernel crate's host forms: each thread stores
//! its word of shared memory, then reads its neighbour's, with or without a barrier between.

use std::ffi::c_void;

use bankwise_runtime::bankwise_emu::lane::{self, Barrier};
use bankwise_runtime::bankwise_emu::{AccessOp, HostKernel, HostParam, inventory};
use bankwise_runtime::{Device, LaunchConfig, ModuleImage, Result};

/// A module image for them: the emulator reads only its header, and runs the host forms.
const PTX: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Their entries, as `bankwise-builder` writes a manifest.
pub const MANIFEST: &str = "neighbour_racy(ptr)\nneighbour_synced(ptr)\nneighbour_racy_many(ptr)\n";

/// Threads per block of every launch here; each block gets one word of shared memory each.
pub const THREADS: u32 = 64;

/// Thread `t`'s shared word.
fn word(t: u32) -> *mut u8 {
    lane::shared_base().wrapping_add(4 * (t % THREADS) as usize)
}

/// Stores word `t`, reads word `t + 1` with nothing between: thread `t + 1` stores it before or
/// after, whichever runs first (a race each way round the block).
unsafe fn neighbour_racy(_: &[*mut c_void]) {
    let t = lane::thread_idx().x;
    lane::shared_access(word(t), 4, usize::MAX, AccessOp::Store);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
}

/// [`neighbour_racy`] with a block barrier between the store and the load: no race.
unsafe fn neighbour_synced(_: &[*mut c_void]) {
    let t = lane::thread_idx().x;
    lane::shared_access(word(t), 4, usize::MAX, AccessOp::Store);
    lane::barrier(Barrier::Sync, false);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
}

/// [`neighbour_racy`] reading at five sites: six racing pairs of sites (the store with each
/// read, thread 63 reading what thread 0 stored; and the last read with the store, thread
/// `t + 1` storing where thread `t` read: a thread's shadow keeps its latest read).
unsafe fn neighbour_racy_many(_: &[*mut c_void]) {
    let t = lane::thread_idx().x;
    lane::shared_access(word(t), 4, usize::MAX, AccessOp::Store);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
    lane::shared_access(word(t + 1), 4, usize::MAX, AccessOp::Load);
}

const PARAMS: &[HostParam] = &[HostParam { rust_type: "*mut u32", bytes: 8, pointer: true }];

macro_rules! register {
    ($($name:ident),+) => {$(
        inventory::submit! {
            HostKernel { name: stringify!($name), crate_name: "racy", params: PARAMS, shared_bytes: 0, run: $name }
        }
    )+};
}
register!(neighbour_racy, neighbour_synced, neighbour_racy_many);

/// Launches kernel `name` of [`MANIFEST`] on `dev`: 2 blocks of [`THREADS`].
pub fn launch(dev: &Device, name: &str) -> Result<()> {
    let module = dev.load_module(ModuleImage::Ptx(PTX), Some(MANIFEST))?;
    let kernel = module.kernel_by_name(name)?;
    let mut out = dev.alloc_zeros::<u32>(1)?;
    let config = LaunchConfig::linear(2, THREADS).with_shared_bytes(4 * THREADS);
    // SAFETY: the kernels take one pointer, which they never dereference.
    unsafe { kernel.launch(dev.stream(), config, (&mut out,)) }
}
