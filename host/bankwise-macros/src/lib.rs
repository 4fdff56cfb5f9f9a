//! bankwise's procedural macros. Use them through `bankwise_device` (`bankwise_device::kernel`),
//! whose helper macros their output names.

use proc_macro::TokenStream;

mod kernel;

/// Makes a function a GPU kernel entry: CUDA C++'s `extern "C" __global__`.
///
/// ```ignore
/// use bankwise_device::kernel;
///
/// /// Adds `x` to every element of `p[0..n]`.
/// #[kernel]
/// pub unsafe fn add(p: *mut f32, x: f32, n: u64) {
///     let i = bankwise_device::thread::index_1d();
///     if i < n {
///         unsafe { *p.add(i as usize) += x };
///     }
/// }
/// ```
///
/// For `nvptx64` it becomes `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn add(..)`,
/// a PTX `.entry add` that the host launches by name. A function that carries its own
/// `#[unsafe(export_name = "..")]` keeps that name instead (macro-generated entries use it). The
/// kernel crate needs no `#![feature(abi_ptx)]`: the ABI is spelled inside
/// `bankwise_device::__kernel_entry!`, which is allowed to use it, so `bankwise_device` must be a
/// dependency of the crate (under that name). On any other target the function is emitted as
/// it was written (a plain Rust function), so a kernel crate type-checks and can run on the host.
///
/// `#[kernel(launch_bounds(MAX_THREADS, MIN_BLOCKS))]` is CUDA C++'s
/// `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)`: launches use at most `MAX_THREADS` threads per
/// block, and ptxas limits the entry's registers so that `MIN_BLOCKS` such blocks fit on one
/// multiprocessor (`.maxntid` and `.minnctapersm` in the PTX; `bankwise_builder` writes them
/// from a static this expansion adds). Both are constant `u32` expressions.
///
/// Rejected, each with an error at the offending tokens: generic parameters or a `where`
/// clause (an entry has one instantiation: write a generic function and call it from a
/// `#[kernel]` per type), a return type (an entry returns nothing: write results through a
/// pointer), a `self` parameter, `async`, `const`, an explicit `extern` ABI, C variadics, and
/// any other argument to the attribute.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into()).unwrap_or_else(syn::Error::into_compile_error).into()
}
