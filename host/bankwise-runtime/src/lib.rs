//! # bankwise-runtime
//!
//! A small, checked CUDA driver runtime on [cudarc] (the role `cust` plays for rust-cuda):
//! open a [`Device`], load a [`Module`] from PTX, cubin or fatbin, look up a [`Kernel`] by
//! name, launch it with arguments checked against the module's entries and a
//! [`LaunchConfig`] checked against the device's limits, [`verify`] the output, and time it
//! with the [`bench`](mod@bench) harness beside the driver's own copy.
//!
//! ```no_run
//! use bankwise_runtime::{Device, LaunchConfig, ModuleImage, bench, verify};
//!
//! // y[i] = a · x[i] (CUDA C++: `__global__ void scale(float *y, const float *x, float a, u64 n)`),
//! // in PTX written by hand here (bankwise-builder writes it from Rust). Its `.entry`
//! // declaration tells the runtime which arguments the kernel takes.
//! const PTX: &str = r#"
//! .version 7.0
//! .target sm_70
//! .address_size 64
//!
//! .visible .entry scale(
//!     .param .u64 .ptr .align 4 scale_param_0,
//!     .param .u64 .ptr .align 4 scale_param_1,
//!     .param .f32 scale_param_2,
//!     .param .u64 scale_param_3
//! )
//! {
//!     .reg .pred %p<2>;
//!     .reg .f32 %f<3>;
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<9>;
//!
//!     mov.u32 %r1, %ctaid.x;
//!     mov.u32 %r2, %ntid.x;
//!     mov.u32 %r3, %tid.x;
//!     mul.wide.u32 %rd1, %r1, %r2;
//!     cvt.u64.u32 %rd2, %r3;
//!     add.s64 %rd3, %rd1, %rd2;
//!     ld.param.u64 %rd4, [scale_param_3];
//!     setp.ge.u64 %p1, %rd3, %rd4;
//!     @%p1 bra     $L__done;
//!     ld.param.u64 %rd5, [scale_param_0];
//!     ld.param.u64 %rd6, [scale_param_1];
//!     ld.param.f32 %f1, [scale_param_2];
//!     shl.b64 %rd7, %rd3, 2;
//!     add.s64 %rd8, %rd6, %rd7;
//!     ld.global.f32 %f2, [%rd8];
//!     mul.f32 %f2, %f2, %f1;
//!     add.s64 %rd8, %rd5, %rd7;
//!     st.global.f32 [%rd8], %f2;
//! $L__done:
//!     ret;
//! }"#;
//!
//! fn main() -> bankwise_runtime::Result<()> {
//!     let dev = Device::new(0)?; // Err(Error::NoDriver) on a machine without an NVIDIA driver
//!     let module = dev.load_module(ModuleImage::Ptx(PTX), None)?;
//!     let scale = module.kernel_by_name("scale")?; // Err(MissingKernel) names the closest entries
//!
//!     let n = 1 << 20;
//!     let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
//!     let src = dev.upload(&x)?;
//!     let mut dst = dev.alloc_zeros::<f32>(n)?;
//!     let config = LaunchConfig::for_elements(n as u64, 256);
//!     // Safety: scale(y, x, a, n) reads x[0..n] and writes y[0..n]; both hold n floats.
//!     unsafe { scale.launch(dev.stream(), config, (&mut dst, &src, 2.0f32, n as u64))? };
//!
//!     let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
//!     verify::exact(&dev.download(&dst)?, &want)?.check()?;
//!
//!     // Median of 50 runs behind a hold kernel, beside the driver's copy of the same bytes.
//!     let run = bench::versus_copy(&dev, 10, 50, 4 * n, |_| unsafe {
//!         scale.launch(dev.stream(), config, (&mut dst, &src, 2.0f32, n as u64))
//!     })?;
//!     println!(
//!         "scale: {:.1} µs, {:.0} GB/s, {:.1}% of the copy",
//!         run.kernel.median_ms * 1e3,
//!         run.kernel.gb_per_s(8 * n as u64),
//!         100.0 * run.fraction_of_copy(8 * n as u64)
//!     );
//!     Ok(())
//! }
//! ```
//!
//! Memory other libraries allocated launches as bankwise's does ([`foreign`]): cudarc's slices
//! and views ([`DeviceRead`], [`DeviceWrite`]), ordered by cudarc's own events, and raw device
//! pointers checked with the driver ([`DeviceSlice::from_raw`]); every launch refuses memory of
//! another device than its stream's ([`Error::WrongDevice`]).
//!
//! Layers, as in cudarc: cudarc's raw driver bindings → this crate's checked calls, each
//! returning [`Result`] with a typed [`Error`] that says what was wrong → RAII handles
//! ([`Device`], [`Module`], [`Kernel`], [`DeviceBuffer`], [`Stream`], [`Event`]) that free
//! what they hold. [`Kernel::launch`] is the one `unsafe` call: the checks see a parameter's
//! width and whether it is a pointer, not what the kernel does with it.
//!
//! The driver's failures that a user can act on have variants of their own, with what is needed
//! to act: [`Error::OutOfMemory`] (the bytes asked for and free), [`Error::LaunchOutOfResources`]
//! (the kernel's registers and the threads per block that fit), [`Error::KernelFault`] (the
//! context is lost; the emulator or compute-sanitizer names the access),
//! [`Error::UnsupportedImage`] (a driver too old for the module); the rest is [`Error::Driver`]
//! with the driver's code.
//!
//! Without a driver nothing panics: [`Device::new`] returns [`Error::NoDriver`] (cudarc
//! itself would panic on its first call, so the runtime checks for `libcuda` first).

pub mod bench;
pub mod device;
pub mod emulator;
pub mod error;
pub mod foreign;
pub mod launch;
pub mod memory;
pub mod module;
pub mod stream;
pub mod typed;
pub mod verify;

pub use bankwise_builder::manifest::{Entry, Param};
pub use bankwise_emu;
pub use cudarc;
pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use device::{Device, DeviceInfo, EMULATOR_VAR, device_count, driver_present};
pub use emulator::{EmulatorChecks, LaunchReport};
pub use error::{Error, Result};
pub use foreign::{Access, DeviceRead, DeviceWrite};
pub use launch::{DEFAULT_SHARED_PER_BLOCK, LaunchConfig};
pub use memory::{DeviceBuffer, DeviceId, DeviceSlice, DeviceSliceMut};
pub use module::{ArgKind, Entries, Kernel, KernelArg, KernelArgs, Module, ModuleImage};
pub use stream::{Event, Stream};
pub use typed::{Arg, ByValue, KernelEntry, LaunchArgs, TypedKernel};
