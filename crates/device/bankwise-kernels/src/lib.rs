//! bankwise's GPU building blocks and kernel ladders, generic over the element type and the
//! operation: the transpose ladder ([`transpose`]), the reduction ladder ([`reduce`]), the
//! bandwidth baseline ([`copy`]), the bank-conflict probes ([`probe`]) and the benchmarks'
//! hold kernel ([`timing`]).
//!
//! This crate defines no kernel entry: a kernel crate (a `cdylib`, such as `bankwise-builtin`,
//! which holds the entries the `bankwise` library launches) instantiates what it needs, so a
//! user's crate pays only for the kernels it names.
#![no_std]
#![feature(asm_experimental_arch)]

pub mod copy;
pub mod probe;
pub mod reduce;
pub mod timing;
pub mod transpose;
