//! Typed launches: a kernel whose parameter types are known to the compiler, so that a launch
//! with the wrong number, order or types of arguments does not compile.
//!
//! `#[kernel]` gives every entry, in its kernel crate's host form, a constant of the entry's
//! name whose type is [`KernelEntry<P>`] (`P` the tuple of parameter types).
//! [`Module::kernel`](crate::Module::kernel) turns it into a [`TypedKernel<P>`], whose
//! [`launch`](TypedKernel::launch) takes a tuple of arguments `A: LaunchArgs<P>`: each argument
//! must be an [`Arg`] of its parameter's type.
//!
//! | parameter | takes |
//! | --- | --- |
//! | `*mut T` | `&mut DeviceBuffer<T>`, `DeviceSliceMut<T>` (or `&mut` of one) |
//! | `*const T` | `&DeviceBuffer<T>`, `DeviceSlice<T>`, `&DeviceSlice<T>`, `&DeviceSliceMut<T>` |
//! | a [`ByValue`] type `S` (`u64`, `f32`, a `#[repr(C)]` parameter struct, …) | an `S` |
//!
//! ```compile_fail
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<u32>) {
//! // A u32 buffer where the kernel reads f32: does not compile.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (out, x, 8u64)) };
//! # }
//! ```
//! ```compile_fail
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<f32>) {
//! // An immutable buffer where the kernel writes: does not compile.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (x, x, 8u64)) };
//! # }
//! ```
//! ```compile_fail
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<f32>) {
//! // A u32 where the kernel takes a u64: does not compile.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (out, x, 8u32)) };
//! # }
//! ```
//! ```compile_fail
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<f32>) {
//! // An argument missing: does not compile.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (out, x)) };
//! # }
//! ```
//! ```compile_fail
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<f32>) {
//! // Arguments out of order: does not compile.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (x, out, 8u64)) };
//! # }
//! ```
//! ```
//! # use bankwise_runtime::{DeviceBuffer, LaunchConfig, Stream, TypedKernel};
//! # unsafe fn f(k: &TypedKernel<(*mut f32, *const f32, u64)>, s: &Stream, out: &mut DeviceBuffer<f32>, x: &DeviceBuffer<f32>) -> bankwise_runtime::Result<()> {
//! // The right count, order and types: compiles.
//! unsafe { k.launch(s, LaunchConfig::for_elements(8, 256), (out, x, 8))? };
//! # Ok(()) }
//! ```

use std::ffi::c_void;

pub use bankwise_emu::{ByValue, KernelEntry};

use crate::error::Result;
use crate::launch::LaunchConfig;
use crate::memory::{DeviceBuffer, DeviceId, DeviceSlice, DeviceSliceMut};
use crate::module::Kernel;
use crate::stream::Stream;

/// An argument that a kernel parameter of type `P` accepts (see the [module](self)'s table).
///
/// # Safety
/// [`Arg::as_param`] must point at a value of `P`'s size and meaning (a device address for a
/// pointer parameter), valid for as long as `self` is borrowed.
#[diagnostic::on_unimplemented(
    message = "a kernel parameter of type `{P}` does not take `{Self}`",
    label = "this argument does not match the kernel's parameter",
    note = "`*mut T` takes `&mut DeviceBuffer<T>` or `DeviceSliceMut<T>`; `*const T` takes `&DeviceBuffer<T>` or `DeviceSlice<T>`; a scalar or `#[repr(C)]` struct takes a value of exactly its type"
)]
pub unsafe trait Arg<P> {
    /// A pointer to the parameter's value, as `cuLaunchKernel`'s `kernelParams` takes it.
    fn as_param(&self) -> *mut c_void;
    /// The device whose memory a pointer argument is (`None` for a value).
    fn memory_device(&self) -> Option<DeviceId> {
        None
    }
}

// SAFETY: a ByValue argument is its parameter's value.
unsafe impl<T: ByValue> Arg<T> for T {
    fn as_param(&self) -> *mut c_void {
        self as *const T as *mut c_void
    }
}

macro_rules! pointer_args {
    ($param:ty: $($arg:ty),+) => {$(
        // SAFETY: the parameter is the buffer's device address, held in the buffer or view
        // for as long as it is borrowed; the element types are the same `T`.
        unsafe impl<T> Arg<$param> for $arg {
            fn as_param(&self) -> *mut c_void {
                self.ptr_ref() as *const u64 as *mut c_void
            }
            fn memory_device(&self) -> Option<DeviceId> {
                Some(self.device_id())
            }
        }
    )+};
}
pointer_args!(*mut T: &mut DeviceBuffer<T>, DeviceSliceMut<'_, T>, &mut DeviceSliceMut<'_, T>);
pointer_args!(*const T: &DeviceBuffer<T>, DeviceSlice<'_, T>, &DeviceSlice<'_, T>, &DeviceSliceMut<'_, T>);

/// A launch's arguments for a kernel of parameters `P`: a tuple of one [`Arg`] per parameter,
/// in order (up to 16).
#[diagnostic::on_unimplemented(
    message = "these launch arguments do not match the kernel's parameters `{P}`",
    label = "the kernel takes `{P}`",
    note = "pass a tuple with one argument per parameter, in order (a single argument is `(x,)`)"
)]
pub trait LaunchArgs<P> {
    /// Pointers to each argument's value, in order, valid while `self` is borrowed.
    fn params(&self) -> Vec<*mut c_void>;
    /// The first pointer argument (its position and device) whose memory is not `device`'s
    /// ([`Arg::memory_device`]).
    fn foreign_memory(&self, device: DeviceId) -> Option<(usize, DeviceId)>;
}

impl LaunchArgs<()> for () {
    fn params(&self) -> Vec<*mut c_void> {
        Vec::new()
    }
    fn foreign_memory(&self, _: DeviceId) -> Option<(usize, DeviceId)> {
        None
    }
}

macro_rules! launch_args {
    ($($p:ident $a:ident $i:tt),+) => {
        impl<$($p, $a: Arg<$p>),+> LaunchArgs<($($p,)+)> for ($($a,)+) {
            fn params(&self) -> Vec<*mut c_void> {
                vec![$(self.$i.as_param()),+]
            }
            fn foreign_memory(&self, device: DeviceId) -> Option<(usize, DeviceId)> {
                $(if let Some(memory) = self.$i.memory_device() && memory != device {
                    return Some(($i, memory));
                })+
                None
            }
        }
    };
}
launch_args!(P0 A0 0);
launch_args!(P0 A0 0, P1 A1 1);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9);
launch_args!(P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10);
launch_args!(
    P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11
);
launch_args!(
    P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11,
    P12 A12 12
);
launch_args!(
    P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11,
    P12 A12 12, P13 A13 13
);
launch_args!(
    P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11,
    P12 A12 12, P13 A13 13, P14 A14 14
);
launch_args!(
    P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11,
    P12 A12 12, P13 A13 13, P14 A14 14, P15 A15 15
);

/// A kernel of a loaded module whose parameters are `P` ([`Module::kernel`] of a `#[kernel]`
/// entry): its launches take exactly the arguments `P` names, and give each block the shared
/// memory the kernel declares.
///
/// [`Module::kernel`]: crate::Module::kernel
pub struct TypedKernel<P> {
    kernel: Kernel,
    entry: KernelEntry<P>,
}

impl<P> std::fmt::Debug for TypedKernel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TypedKernel({:?})", self.entry)
    }
}

impl<P> TypedKernel<P> {
    pub(crate) fn new(kernel: Kernel, entry: KernelEntry<P>) -> Self {
        TypedKernel { kernel, entry }
    }

    /// The entry's name.
    pub fn name(&self) -> &'static str {
        self.entry.name()
    }

    /// The entry this kernel was looked up by.
    pub fn entry(&self) -> KernelEntry<P> {
        self.entry
    }

    /// Bytes of shared memory the kernel declares, which every launch adds to the dynamic bytes
    /// its configuration asks for.
    pub fn shared_bytes(&self) -> u32 {
        self.entry.shared_bytes()
    }

    /// The untyped kernel underneath (its occupancy, its cudarc function).
    pub fn untyped(&self) -> &Kernel {
        &self.kernel
    }

    /// Queues the kernel on `stream` (CUDA C++: `kernel<<<grid, block, shared, stream>>>(args…)`):
    /// each block gets the shared memory the kernel declares plus `config.shared_bytes` of
    /// dynamic shared memory, which starts at the declared bytes rounded up to 16. The
    /// configuration is checked against the device first (a bad one, or shared memory past the
    /// device's maximum, is an error and nothing runs). See [`Kernel::launch`] for
    /// errors raised by the kernel itself, and for the emulator.
    ///
    /// # Safety
    /// The compiler has checked the arguments' count, order and types; what remains is the
    /// kernel's own contract: it must stay inside the buffers it is given for this grid, and
    /// buffers it reads must not be written by other work meanwhile.
    pub unsafe fn launch<A: LaunchArgs<P>>(&self, stream: &Stream, config: LaunchConfig, args: A) -> Result<()> {
        crate::module::check_devices(self.name(), |d| args.foreign_memory(d), stream)?;
        let mut params = args.params();
        // SAFETY: `params` point into `args`, one per parameter of `P`, each of its type
        // (`LaunchArgs<P>`); the caller vouches for the kernel's bounds.
        unsafe { self.kernel.launch_params(stream, config, &mut params) }
    }

    /// How many blocks of this kernel one SM holds at once with `config`'s block and shared
    /// memory (the declared bytes included). A GPU only.
    pub fn occupancy(&self, config: &LaunchConfig) -> Result<u32> {
        self.kernel.occupancy(config)
    }
}
