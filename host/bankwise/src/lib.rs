//! # bankwise
//!
//! Fast, explained shared-memory GPU kernels written in Rust, compiled to PTX by rustc's
//! `nvptx64-nvidia-cuda` backend, and launched, verified and benchmarked from this library.
//!
//! ```no_run
//! # fn main() -> bankwise::Result<()> {
//! use bankwise::{Gpu, Shape};
//! let gpu = Gpu::new()?; // Err(Error::NoDriver) on a machine without an NVIDIA driver
//! let (rows, cols) = (3, 1000);
//! let host: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
//! let src = gpu.upload(&host)?;
//! let mut dst = gpu.alloc_zeros::<f32>(host.len())?;
//! gpu.transpose(&src, &mut dst, Shape::new(rows, cols))?;
//! assert_eq!(gpu.download(&dst)?, bankwise::cpu::transpose(&host, Shape::new(rows, cols))?);
//! # Ok(()) }
//! ```
//!
//! Layers:
//! - [`kernels`]: the raw PTX module and its entry names, built from Rust by
//!   `bankwise-builder` at build time.
//! - [`runtime`] (the `bankwise-runtime` crate): the generic CUDA layer on cudarc — a
//!   [`runtime::Device`], modules from PTX/cubin/fatbin, kernels looked up by name with their
//!   arguments checked against the module's manifest, launch configurations checked against the
//!   device's limits, [`DeviceBuffer`]s, streams, events, [`runtime::verify`] and the benchmark
//!   harness ([`timing`] re-exports it). Use it directly to launch your own kernels.
//! - [`Gpu`]: a runtime device with bankwise's module loaded (it dereferences to the
//!   [`runtime::Device`]), and bankwise's launchers — [`Gpu::transpose`], [`Gpu::permute`], [`Gpu::reduce`],
//!   [`Gpu::copy`], [`Gpu::probe`] — each validating its arguments with a pure `plan` function
//!   (testable without a GPU) before launching through the runtime. They take bankwise's
//!   buffers and other libraries' memory alike ([`DeviceRead`], [`DeviceWrite`]: cudarc's
//!   slices, raw device pointers), queue on the handle's stream ([`Gpu::with_stream`]), and plan
//!   with the GPU's measured [`tuning`] table.
//! - [`tuning`]: the figures measured per GPU that the planners weigh their choices by (the
//!   [`matmul`] tuned rungs' tile rates, …), apart from the planners themselves.
//! - [`cpu`]: the references every kernel is tested against; [`tools`]: offline checks of the
//!   PTX (ptxas, nvdisasm).
//!
//! Without a GPU, [`Gpu::emulator`] runs the same kernels (compiled for the host from the same
//! Rust) on the CPU emulator, `bankwise-emu`, which also reports each shared-memory access
//! site's bank conflicts, and fails a launch with a race between threads as it fails one with
//! an out-of-bounds access ([`Gpu::emulator_with`] collects races in the reports instead):
//!
//! ```
//! # fn main() -> bankwise::Result<()> {
//! use bankwise::{Gpu, Shape, TransposeKernel};
//! let gpu = Gpu::emulator()?;
//! let host: Vec<f32> = (0..64 * 64).map(|i| i as f32).collect();
//! let src = gpu.upload(&host)?;
//! let mut dst = gpu.alloc_zeros::<f32>(host.len())?;
//! gpu.transpose_with(TransposeKernel::Tiled, &src, &mut dst, Shape::new(64, 64))?;
//! assert_eq!(gpu.download(&dst)?, bankwise::cpu::transpose(&host, Shape::new(64, 64))?);
//! // The tiled kernel reads its shared tile down a column: 32 wavefronts per request.
//! let report = &gpu.take_emulator_reports()[0].report;
//! let worst = report.sites.iter().map(|s| s.wavefronts_per_request()).fold(0.0, f64::max);
//! assert_eq!(worst, 32.0);
//! # Ok(()) }
//! ```

pub mod copy;
pub mod cpu;
pub mod element;
pub mod error;
pub mod gpu;
pub mod kernels;
pub mod matmul;
pub mod permute;
pub mod probe;
pub mod reduce;
pub mod reduce_axes;
pub mod timing;
pub mod tools;
pub mod transpose;
pub mod tuning;

/// bankwise's kernel entries as typed constants (the host form of `kernels/bankwise-builtin`):
/// `builtin::copy_bytes`, `builtin::transpose::transpose_tiled_u32`, the typed lookups
/// `builtin::TransposeWord` and `builtin::reduce::SumLadder`; linking it registers them with
/// the emulator.
pub use bankwise_builtin as builtin;
/// The entries of the `sm_80` module (`cp.async`), as typed constants.
pub use bankwise_builtin_sm80 as builtin_sm80;

pub use bankwise_banks as banks;
pub use bankwise_runtime as runtime;
pub use element::{Element, Width};
pub use error::{Error, Result};
pub use gpu::{
    DeviceBuffer, DeviceId, DeviceInfo, DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, EmulatorChecks, Gpu,
    LoadedImage, Stream,
};
/// Half precision: [`half::f16`] and [`half::bf16`] are [`Element`]s (copies and transposes
/// move them as 2-byte words), the `half` crate's types that candle and burn hold.
pub use half;
pub use matmul::{Float, MatmulKernel, MatmulShape, Op};
pub use permute::PermutePlan;
pub use reduce::{Max, Min, ReduceKernel, Sum};
pub use transpose::{Shape, TransposeKernel};

/// The README's examples, compiled as doc-tests so that they cannot drift from the API.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
