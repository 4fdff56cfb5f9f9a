//! Index arithmetic shared by the device kernels (`bankwise-kernels`, compiled for
//! `nvptx64-nvidia-cuda`) and the host library (`bankwise`).
//!
//! Everything here is a plain `const fn` over integers, so the host can compute the exact
//! shared-memory and global addresses a kernel touches: the bank-conflict model and the tests
//! reason about the very functions the GPU executes, not about a copy of them.
#![no_std]

pub mod copy;
pub mod probe;
pub mod transpose;
