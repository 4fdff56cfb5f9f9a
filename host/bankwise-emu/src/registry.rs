//! The host forms of `#[kernel]` entries, registered by name when their crate is linked.
//!
//! `#[kernel]` expands, on every target but `nvptx64`, to the function as written plus an
//! [`inventory::submit!`] of a [`HostKernel`] whose [`run`](HostKernel::run) reads the
//! arguments from `cuLaunchKernel`-style parameter pointers and calls it. A runtime looks the
//! entry up here by the name its PTX entry has.

use std::ffi::c_void;

/// A kernel's host form: reads one argument of the entry's type from each of the pointers
/// and calls the kernel function with them.
pub type KernelFn = unsafe fn(params: &[*mut c_void]);

/// One parameter of a registered entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostParam {
    /// The Rust type as written (`*mut f32`, `u64`).
    pub rust_type: &'static str,
    /// Its size in bytes.
    pub bytes: usize,
    /// Whether it is a raw pointer (a device address).
    pub pointer: bool,
}

/// A `#[kernel]` entry compiled for the host.
#[derive(Debug)]
pub struct HostKernel {
    /// The entry's symbol (its PTX `.entry` name).
    pub name: &'static str,
    /// The crate that defines it (`CARGO_CRATE_NAME`).
    pub crate_name: &'static str,
    /// Its parameters, in order.
    pub params: &'static [HostParam],
    /// Runs one thread's body (see [`KernelFn`]).
    pub run: KernelFn,
}

inventory::collect!(HostKernel);

/// Every entry linked into this program.
pub fn kernels() -> impl Iterator<Item = &'static HostKernel> {
    inventory::iter::<HostKernel>.into_iter()
}

/// Why an entry could not be found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// No linked crate defines it.
    #[error(
        "no kernel `{name}` is linked into this program for the emulator ({linked} entries are): \
         make the kernel crate a dependency of the host crate and name it (`use my_kernels as _;`)"
    )]
    Missing {
        /// The name looked for.
        name: String,
        /// Entries linked.
        linked: usize,
    },
    /// Two linked crates define it.
    #[error("kernel `{name}` is defined by more than one linked crate: {}", .crates.join(", "))]
    Ambiguous {
        /// The name looked for.
        name: String,
        /// The crates defining it.
        crates: Vec<&'static str>,
    },
}

/// The entry `name` (its PTX `.entry` name).
pub fn find(name: &str) -> Result<&'static HostKernel, LookupError> {
    let found: Vec<_> = kernels().filter(|k| k.name == name).collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(LookupError::Missing { name: name.into(), linked: kernels().count() }),
        many => {
            let mut crates: Vec<_> = many.iter().map(|k| k.crate_name).collect();
            crates.sort_unstable();
            crates.dedup();
            if crates.len() == 1 {
                // The same crate linked twice (two versions): either is the kernel.
                return Ok(many[0]);
            }
            Err(LookupError::Ambiguous { name: name.into(), crates })
        }
    }
}
