//! bankwise's GPU building blocks and kernel ladders, generic over the element type and the
//! operation.
//!
//! Building blocks (the CUB role): [`warp::reduce`] and [`block::reduce`] over any
//! [`reduce::ReduceOp`], the shared tile staging of [`tile`], and the [`reduce_ladder!`] that
//! instantiates a whole reduction ladder for an operation. Kernels built on them: the
//! transpose ladder ([`transpose`]), the reduction ladder ([`reduce`]), the bandwidth baseline
//! ([`copy`]) and the bank-conflict probes ([`probe`]).
//!
//! This crate defines no kernel entry: a kernel crate (a `cdylib`, such as `bankwise-builtin`,
//! which holds the entries the `bankwise` library launches) instantiates what it needs with
//! `#[bankwise_device::kernel]`, so a user's crate pays only for the kernels it names.
#![no_std]

pub mod arg_axes;
pub mod block;
pub mod copy;
pub mod half;
pub mod matmul;
pub mod permute;
pub mod probe;
pub mod reduce;
pub mod reduce_axes;
pub mod tile;
pub mod transpose;
pub mod warp;

/// A 16-byte vector, aligned so that shared-memory accesses to it are `STS.128`/`LDS.128`.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Vector(pub(crate) [u32; 4]);

// Safety: four u32 and no padding (16 bytes, 16-aligned); every bit pattern is valid.
unsafe impl bankwise_device::Plain for Vector {}

/// The device crate, for the expansion of [`reduce_ladder!`].
#[doc(hidden)]
pub use bankwise_device as __device;
/// The index arithmetic, for the expansion of [`reduce_ladder!`].
#[doc(hidden)]
pub use bankwise_layout as __layout;
