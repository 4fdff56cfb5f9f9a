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
//! Layers, as in cudarc: [`kernels`] (the raw PTX and entry names) → [`Gpu`] launchers that
//! validate every argument and return [`Result`] → CPU references in [`cpu`] that every kernel
//! is tested against. [`timing`] holds the event-based measurement the benchmarks use, and
//! [`tools`] the offline checks of the PTX (ptxas, nvdisasm).

pub mod copy;
pub mod cpu;
pub mod element;
pub mod error;
pub mod gpu;
pub mod kernels;
pub mod probe;
pub mod reduce;
pub mod timing;
pub mod tools;
pub mod transpose;

pub use bankwise_banks as banks;
pub use element::{Element, Width};
pub use error::{Error, Result};
pub use gpu::{DeviceBuffer, DeviceInfo, Gpu};
pub use reduce::{Max, Min, ReduceKernel, Sum};
pub use transpose::{Shape, TransposeKernel};

/// The README's examples, compiled as doc-tests so that they cannot drift from the API.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
