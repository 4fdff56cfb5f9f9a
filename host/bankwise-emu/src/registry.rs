//! The host forms of `#[kernel]` entries: registered by name when their crate is linked, and
//! named by a typed [`KernelEntry`] constant.
//!
//! `#[kernel]` expands, on every target but `nvptx64`, to the function's body plus an
//! [`inventory::submit!`] of a [`HostKernel`] whose [`run`](HostKernel::run) reads the
//! arguments from `cuLaunchKernel`-style parameter pointers and calls it, and a constant of the
//! function's name whose type, [`KernelEntry<P>`], carries the parameter types `P`. A runtime
//! looks an entry up by that constant (typed launches) or by the name its PTX entry has.

use std::ffi::c_void;
use std::marker::PhantomData;

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
#[derive(Clone, Copy, Debug)]
pub struct HostKernel {
    /// The entry's symbol (its PTX `.entry` name).
    pub name: &'static str,
    /// The crate that defines it (`CARGO_CRATE_NAME`).
    pub crate_name: &'static str,
    /// Its parameters, in order.
    pub params: &'static [HostParam],
    /// Bytes of shared memory the kernel declares (`#[kernel(shared = BYTES)]`; 0 where it
    /// declares none): every launch gives each block at least this much.
    pub shared_bytes: u32,
    /// Runs one thread's body (see [`KernelFn`]).
    pub run: KernelFn,
}

/// A type a kernel takes by value: the bytes of the host's value are the kernel's parameter
/// (typed launches take an argument of exactly the parameter's type for it). A kernel crate
/// implements it for its `#[repr(C)]` parameter structs in its host form
/// (`#[cfg(not(target_arch = "nvptx64"))] unsafe impl bankwise_device::ByValue for Params {}`).
///
/// # Safety
/// The type must have the same size, alignment and field layout on the host and in the kernel
/// crate built for `nvptx64` (primitive scalars; a `#[repr(C)]` struct of them), and no field
/// may be a host reference or pointer the kernel would dereference.
pub unsafe trait ByValue: Copy + 'static {}

macro_rules! by_value {
    ($($t:ty),+) => {$(
        // SAFETY: a primitive scalar has one size and alignment on every target bankwise
        // builds for (x86-64, aarch64, nvptx64: all LP64).
        unsafe impl ByValue for $t {}
    )+};
}
by_value!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, usize, isize, bool);

/// A `#[kernel]` entry as its kernel crate's host form names it: the constant `#[kernel]`
/// emits under the function's name (`my_kernels::vector_add`), whose type records the
/// parameter types `P` (a tuple, such as `(*mut f32, *const f32, u64)`). A runtime turns it
/// into a kernel whose launches the compiler checks against `P`, and reads the entry's symbol
/// and declared shared memory from it; the emulator runs [`HostKernel::run`].
pub struct KernelEntry<P> {
    host: &'static HostKernel,
    params: PhantomData<fn(P)>,
}

impl<P> KernelEntry<P> {
    /// The entry of `host`, whose parameters are `P`. `#[kernel]` writes the call; the caller
    /// of a hand-written one vouches that `host.run` reads parameters of exactly the types `P`.
    #[doc(hidden)]
    pub const fn new(host: &'static HostKernel) -> Self {
        KernelEntry { host, params: PhantomData }
    }

    /// The entry's symbol: its PTX `.entry` name.
    pub const fn name(&self) -> &'static str {
        self.host.name
    }

    /// Bytes of shared memory the kernel declares (0 where none).
    pub const fn shared_bytes(&self) -> u32 {
        self.host.shared_bytes
    }

    /// The host form the emulator runs.
    pub const fn host(&self) -> &'static HostKernel {
        self.host
    }
}

impl<P> Clone for KernelEntry<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for KernelEntry<P> {}

impl<P> PartialEq for KernelEntry<P> {
    fn eq(&self, other: &Self) -> bool {
        self.host.name == other.host.name && self.host.crate_name == other.host.crate_name
    }
}

impl<P> Eq for KernelEntry<P> {}

impl<P> std::fmt::Debug for KernelEntry<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KernelEntry({}", self.host.name)?;
        for (i, p) in self.host.params.iter().enumerate() {
            write!(f, "{}{}", if i == 0 { ": " } else { ", " }, p.rust_type)?;
        }
        if self.host.shared_bytes > 0 {
            write!(f, "; {} shared bytes", self.host.shared_bytes)?;
        }
        f.write_str(")")
    }
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
