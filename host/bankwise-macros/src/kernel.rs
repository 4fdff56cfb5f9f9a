//! `#[kernel]`: the token-level expansion, kept apart from the `proc_macro` entry point so that
//! unit tests can run it on `proc_macro2` tokens.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Attribute, Error, Expr, FnArg, ItemFn, Meta, ReturnType, Type};

/// The expansion of `#[kernel]` with attribute arguments `attr` on the item `item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> Result<TokenStream, Error> {
    let args = Args::parse(attr)?;
    let f: ItemFn = syn::parse2(item)?;
    check(&f)?;
    let ItemFn { attrs, vis, sig, block } = &f;
    let (unsafety, name, inputs) = (&sig.unsafety, &sig.ident, &sig.inputs);
    let named = attrs.iter().any(names_symbol);
    let no_mangle = (!named).then(|| quote!(#[unsafe(no_mangle)]));
    let host = host_entry(&f, args.shared.as_ref())?;
    let symbol = symbol(&f);
    let bounds = args.launch_bounds.map(|(threads, blocks)| {
        quote! {
            // Read by the builder, which turns it into the entry's `.maxntid` and
            // `.minnctapersm` directives and removes it from the module.
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[unsafe(export_name = ::core::concat!("__bankwise_launch_bounds_", #symbol))]
                #[used]
                static __BANKWISE_LAUNCH_BOUNDS: [u32; 2] = [#threads, #blocks];
            };
        }
    });
    let shared = args.shared.as_ref().map(|bytes| {
        quote! {
            // Read by the builder, which records it in the entries manifest and removes it
            // from the module.
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[unsafe(export_name = ::core::concat!("__bankwise_shared_bytes_", #symbol))]
                #[used]
                static __BANKWISE_SHARED_BYTES: [u32; 2] = [#bytes, 0];
            };
        }
    });
    Ok(quote! {
        #bounds
        #shared
        #[cfg(target_arch = "nvptx64")]
        ::bankwise_device::__kernel_entry! {
            #(#attrs)*
            #no_mangle
            #vis #unsafety fn #name(#inputs) #block
        }
        #host
    })
}

/// The attribute's arguments.
struct Args {
    /// `launch_bounds(THREADS, BLOCKS)`.
    launch_bounds: Option<(Expr, Expr)>,
    /// `shared = BYTES`.
    shared: Option<Expr>,
}

impl Args {
    /// Nothing, or a comma-separated list of `launch_bounds(MAX_THREADS, MIN_BLOCKS_PER_SM)`
    /// (CUDA C++'s `__launch_bounds__`, two constant `u32` expressions) and `shared = BYTES`
    /// (the shared memory the kernel declares, a constant `u32` expression), each at most once.
    fn parse(attr: TokenStream) -> Result<Args, Error> {
        let mut args = Args { launch_bounds: None, shared: None };
        if attr.is_empty() {
            return Ok(args);
        }
        let usage = "#[kernel] takes nothing, `launch_bounds(MAX_THREADS, MIN_BLOCKS_PER_SM)`, `shared = BYTES`, or both separated by a comma";
        let parser = syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated;
        let metas = syn::parse::Parser::parse2(parser, attr.clone()).map_err(|_| Error::new(attr.span(), usage))?;
        for meta in metas {
            match &meta {
                Meta::List(list) if list.path.is_ident("launch_bounds") && args.launch_bounds.is_none() => {
                    let bounds =
                        list.parse_args_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)?;
                    if bounds.len() != 2 {
                        return Err(Error::new(list.span(), usage));
                    }
                    args.launch_bounds = Some((bounds[0].clone(), bounds[1].clone()));
                }
                Meta::NameValue(nv) if nv.path.is_ident("shared") && args.shared.is_none() => {
                    args.shared = Some(nv.value.clone());
                }
                _ => return Err(Error::new(meta.span(), usage)),
            }
        }
        Ok(args)
    }
}

/// The entry's symbol: its `export_name`, or the function's name.
fn symbol(f: &ItemFn) -> TokenStream {
    let name_text = f.sig.ident.to_string();
    match f.attrs.iter().find_map(export_name) {
        Some(expr) => quote!(#expr),
        None => quote!(#name_text),
    }
}

/// The host form of the entry: a constant of the function's name, a
/// [`KernelEntry`](../bankwise_emu/registry/struct.KernelEntry.html) whose type carries the
/// parameter types (what typed launches check against), holding the function's body and a
/// reader that takes each argument from a `cuLaunchKernel`-style parameter pointer; and the
/// same entry submitted to the emulator's registry under its symbol (its `export_name`, or the
/// function's name). The body keeps the function's attributes but its docs (which go on the
/// constant) and its symbol names (which belong to the PTX entry alone).
fn host_entry(f: &ItemFn, shared: Option<&Expr>) -> Result<TokenStream, Error> {
    let ItemFn { attrs, vis, sig, block } = f;
    let (name, unsafety, inputs) = (&sig.ident, &sig.unsafety, &sig.inputs);
    let symbol = symbol(f);
    let types: Vec<&Type> = sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) => Ok(&*t.ty),
            FnArg::Receiver(r) => Err(Error::new(r.span(), "a #[kernel] cannot take `self`")),
        })
        .collect::<Result<_, _>>()?;
    let index = 0..types.len();
    let count = types.len();
    let type_names = types
        .iter()
        .map(|t| quote!(#t).to_string().replace(" ", "").replace("*mut", "*mut ").replace("*const", "*const "));
    let pointers = types.iter().map(|t| matches!(t, Type::Ptr(_)));
    let docs = attrs.iter().filter(|a| a.path().is_ident("doc"));
    let kept = attrs.iter().filter(|a| !a.path().is_ident("doc") && !names_symbol(a));
    let shared = match shared {
        Some(bytes) => quote!(#bytes),
        None => quote!(0),
    };
    Ok(quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #(#docs)*
        #[allow(non_upper_case_globals)]
        #vis const #name: ::bankwise_device::__emu::KernelEntry<(#(#types,)*)> = {
            #(#kept)*
            #unsafety fn #name(#inputs) #block
            /// Reads the arguments and runs the kernel's body as one emulated thread.
            ///
            /// # Safety
            /// `params` holds one pointer per parameter, each to a value of its type.
            unsafe fn __bankwise_host_entry(params: &[*mut ::core::ffi::c_void]) {
                ::core::assert_eq!(params.len(), #count, "the launch passed the wrong number of arguments");
                #[allow(unused_unsafe)]
                // SAFETY: the caller passes one pointer to a value of each parameter's type.
                unsafe { #name(#( params[#index].cast::<#types>().read_unaligned() ),*) }
            }
            const __BANKWISE_HOST: ::bankwise_device::__emu::HostKernel = ::bankwise_device::__emu::HostKernel {
                name: #symbol,
                crate_name: ::core::env!("CARGO_CRATE_NAME"),
                params: &[#(::bankwise_device::__emu::HostParam {
                    rust_type: #type_names,
                    bytes: ::core::mem::size_of::<#types>(),
                    pointer: #pointers,
                }),*],
                shared_bytes: #shared,
                run: __bankwise_host_entry,
            };
            ::bankwise_device::__emu::KernelEntry::new(&__BANKWISE_HOST)
        };
        #[cfg(not(target_arch = "nvptx64"))]
        ::bankwise_device::__emu::inventory::submit! { *#name.host() }
    })
}

/// The symbol an `export_name` attribute (bare or inside `unsafe(..)`) gives, if `attr` is
/// one: its value as written, a string literal or a constant expression such as the
/// `concat!(..)` of macro-generated entries.
fn export_name(attr: &Attribute) -> Option<Expr> {
    let value = |meta: &Meta| match meta {
        Meta::NameValue(nv) if nv.path.is_ident("export_name") => Some(nv.value.clone()),
        _ => None,
    };
    match &attr.meta {
        Meta::List(list) if list.path.is_ident("unsafe") => list.parse_args::<Meta>().ok().as_ref().and_then(value),
        meta => value(meta),
    }
}

/// Everything an entry cannot be, as errors at the offending tokens.
fn check(f: &ItemFn) -> Result<(), Error> {
    let sig = &f.sig;
    if let Some(t) = &sig.asyncness {
        return Err(Error::new(t.span(), "a #[kernel] cannot be `async`: the GPU runs an entry to completion"));
    }
    if let Some(t) = &sig.constness {
        return Err(Error::new(t.span(), "a #[kernel] cannot be `const`: it runs on the GPU, not at compile time"));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new(
            abi.span(),
            "a #[kernel] takes no explicit ABI: the attribute gives it `extern \"ptx-kernel\"` on the GPU; remove the `extern`",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(Error::new(
            sig.generics.span(),
            "a #[kernel] cannot be generic: an entry is one instantiation; write a generic function and a #[kernel] per type that calls it",
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(Error::new(
            ty.span(),
            "a #[kernel] returns nothing: remove the return type and write results through a pointer parameter",
        ));
    }
    if let Some(r) = sig.inputs.iter().find(|a| matches!(a, FnArg::Receiver(_))) {
        return Err(Error::new(r.span(), "a #[kernel] cannot take `self`: an entry is a free function"));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new(v.span(), "a #[kernel] cannot be variadic: give it a fixed parameter list"));
    }
    Ok(())
}

/// Whether `attr` already names the entry's symbol (`export_name` or `no_mangle`, bare or
/// inside `unsafe(..)`), in which case `#[kernel]` adds no `#[unsafe(no_mangle)]` of its own.
fn names_symbol(attr: &Attribute) -> bool {
    let is_name = |p: &syn::Path| p.is_ident("export_name") || p.is_ident("no_mangle");
    match &attr.meta {
        Meta::List(list) if list.path.is_ident("unsafe") => {
            let first = list.tokens.clone().into_iter().next();
            matches!(first, Some(proc_macro2::TokenTree::Ident(i)) if i == "export_name" || i == "no_mangle")
        }
        meta => is_name(meta.path()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// The tokens of `t` as a string with normalised spacing.
    fn text(t: impl ToTokens) -> String {
        t.to_token_stream().to_string()
    }

    fn expand_ok(item: TokenStream) -> String {
        text(expand(TokenStream::new(), item).expect("expands"))
    }

    fn error_of(attr: TokenStream, item: TokenStream) -> String {
        expand(attr, item).expect_err("must be rejected").to_string()
    }

    #[test]
    fn expands_to_a_ptx_entry_on_nvptx_and_a_typed_entry_elsewhere() {
        let item = quote! {
            /// Doc.
            pub unsafe fn scale(a: *mut f32, n: u64) { let _ = (a, n); }
        };
        let out = expand_ok(item.clone());
        let want = text(quote! {
            #[cfg(target_arch = "nvptx64")]
            ::bankwise_device::__kernel_entry! {
                /// Doc.
                #[unsafe(no_mangle)]
                pub unsafe fn scale(a: *mut f32, n: u64) { let _ = (a, n); }
            }
        });
        assert!(out.starts_with(&want), "{out}");
        let host = text(host_entry(&syn::parse2(item).unwrap(), None).unwrap());
        assert_eq!(&out[want.len()..].trim(), &host.trim());
        // The host form: a constant of the function's name, typed by its parameters, with the
        // docs, holding the body as a function of the same name.
        let typed = text(quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            /// Doc.
            #[allow(non_upper_case_globals)]
            pub const scale: ::bankwise_device::__emu::KernelEntry<(*mut f32, u64,)> = {
                unsafe fn scale(a: *mut f32, n: u64) { let _ = (a, n); }
            }
        });
        let typed = typed.trim_end_matches('}').trim_end();
        assert!(host.starts_with(typed), "{host}");
        assert!(host.ends_with("inventory :: submit ! { * scale . host () }"), "{host}");
    }

    #[test]
    fn registers_a_host_entry_with_the_emulator() {
        let f: ItemFn = syn::parse2(quote! { pub unsafe fn scale(a: *mut f32, b: *const u8, n: u64) {} }).unwrap();
        let host = text(host_entry(&f, None).unwrap());
        assert!(host.contains("name : \"scale\""), "{host}");
        assert!(host.contains("shared_bytes : 0 ,"), "{host}");
        for (ty, pointer) in [("\"*mut f32\"", true), ("\"*const u8\"", true), ("\"u64\"", false)] {
            assert!(
                host.contains(&format!("rust_type : {ty} , bytes : :: core :: mem :: size_of :: < ")),
                "{ty}: {host}"
            );
            assert!(host.contains(&format!("pointer : {pointer}")), "{host}");
        }
        // Each argument is read from its parameter pointer, in order.
        assert!(
            host.contains("scale (params [0usize] . cast :: < * mut f32 > () . read_unaligned () , params [1usize]"),
            "{host}"
        );
        assert!(host.contains("inventory :: submit !"), "{host}");
        // An export_name (bare or unsafe, a literal or a macro) names the registered entry too,
        // and stays off the host form's body.
        for attr in [quote!(#[unsafe(export_name = "reduce_sum_f32")]), quote!(#[export_name = "reduce_sum_f32"])] {
            let f: ItemFn = syn::parse2(quote! { #attr pub unsafe fn entry(p: *mut f32) {} }).unwrap();
            let host = text(host_entry(&f, None).unwrap());
            assert!(host.contains("name : \"reduce_sum_f32\""));
            assert!(!host.contains("export_name"), "{host}");
        }
        let f: ItemFn = syn::parse2(quote! {
            #[unsafe(export_name = concat!("reduce_", stringify!(sum)))] pub unsafe fn entry(p: *mut f32) {}
        })
        .unwrap();
        let host = text(host_entry(&f, None).unwrap());
        assert!(host.contains("name : concat ! (\"reduce_\" , stringify ! (sum))"), "{host}");
    }

    #[test]
    fn declared_shared_memory_is_in_the_module_and_the_typed_entry() {
        let out = text(expand(quote!(shared = TILE_BYTES * 2), quote! { pub unsafe fn k(p: *mut f32) {} }).unwrap());
        assert!(out.contains(r#"concat ! ("__bankwise_shared_bytes_" , "k")"#), "{out}");
        assert!(out.contains("static __BANKWISE_SHARED_BYTES : [u32 ; 2] = [TILE_BYTES * 2 , 0]"), "{out}");
        assert!(out.contains("shared_bytes : TILE_BYTES * 2 ,"), "{out}");
        let both = quote!(launch_bounds(256, 2), shared = 4096);
        let out = text(expand(both, quote! { pub unsafe fn k(p: *mut f32) {} }).unwrap());
        assert!(
            out.contains("__BANKWISE_LAUNCH_BOUNDS : [u32 ; 2] = [256 , 2]") && out.contains("[4096 , 0]"),
            "{out}"
        );
        assert!(!expand_ok(quote! { pub fn k() {} }).contains("SHARED_BYTES"));
    }

    #[test]
    fn a_safe_function_stays_safe() {
        let out = expand_ok(quote! { pub fn noop(n: u32) { let _ = n; } });
        assert!(out.contains("pub fn noop (n : u32)") && out.contains("{ fn noop (n : u32)"), "{out}");
        assert!(!out.contains("unsafe fn noop"), "{out}");
    }

    #[test]
    fn an_export_name_replaces_the_no_mangle() {
        for attr in [quote!(#[unsafe(export_name = "reduce_sum_f32")]), quote!(#[export_name = "reduce_sum_f32"])] {
            let out = expand_ok(quote! { #attr pub unsafe fn entry(p: *mut f32) { let _ = p; } });
            assert!(!out.contains("no_mangle"), "{out}");
            assert_eq!(out.matches("export_name").count(), 1, "on the PTX entry alone: {out}");
        }
        let out = expand_ok(quote! { #[unsafe(no_mangle)] pub unsafe fn k() {} });
        assert_eq!(out.matches("no_mangle").count(), 1, "not doubled: {out}");
    }

    #[test]
    fn rejects_generic_functions() {
        for item in [
            quote! { pub unsafe fn k<T: Copy>(p: *mut T) {} },
            quote! { pub unsafe fn k<const N: usize>(p: *mut u32) {} },
            quote! { pub unsafe fn k<'a>(p: &'a u32) {} },
            quote! { pub unsafe fn k(p: *mut u32) where u32: Copy {} },
        ] {
            let e = error_of(TokenStream::new(), item);
            assert!(e.contains("cannot be generic"), "{e}");
        }
    }

    #[test]
    fn rejects_a_return_type() {
        for item in [quote! { pub unsafe fn k(p: *mut u32) -> u32 { 0 } }, quote! { pub fn k() -> () {} }] {
            let e = error_of(TokenStream::new(), item);
            assert!(e.contains("returns nothing"), "{e}");
        }
    }

    #[test]
    fn rejects_self() {
        for item in [quote! { pub fn k(self) {} }, quote! { pub fn k(&self, n: u32) {} }] {
            let e = error_of(TokenStream::new(), item);
            assert!(e.contains("cannot take `self`"), "{e}");
        }
    }

    #[test]
    fn rejects_async_const_an_abi_and_variadics() {
        let cases = [
            (quote! { pub async fn k() {} }, "cannot be `async`"),
            (quote! { pub const fn k() {} }, "cannot be `const`"),
            (quote! { pub extern "C" fn k() {} }, "no explicit ABI"),
            (quote! { pub unsafe extern "ptx-kernel" fn k() {} }, "no explicit ABI"),
            (quote! { pub unsafe extern "C" fn k(a: u32, ...) {} }, "no explicit ABI"),
        ];
        for (item, want) in cases {
            let e = error_of(TokenStream::new(), item);
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn launch_bounds_become_a_static_the_builder_reads() {
        let out = text(expand(quote!(launch_bounds(THREADS, 2)), quote! { pub unsafe fn k(p: *mut f32) {} }).unwrap());
        assert!(out.contains(r#"concat ! ("__bankwise_launch_bounds_" , "k")"#), "{out}");
        assert!(out.contains("static __BANKWISE_LAUNCH_BOUNDS : [u32 ; 2] = [THREADS , 2]"), "{out}");
        let named = quote! { #[unsafe(export_name = "tuned_f32")] pub unsafe fn k(p: *mut f32) {} };
        let out = text(expand(quote!(launch_bounds(256, 1)), named).unwrap());
        assert!(out.contains(r#"concat ! ("__bankwise_launch_bounds_" , "tuned_f32")"#), "{out}");
        assert!(!expand_ok(quote! { pub fn k() {} }).contains("LAUNCH_BOUNDS"));
    }

    #[test]
    fn rejects_attribute_arguments_and_non_functions() {
        for attr in [
            quote!(name = "x"),
            quote!(launch_bounds(256)),
            quote!(launch_bounds(1, 2, 3)),
            quote!(bounds(1, 2)),
            quote!(shared(64)),
            quote!(shared = 64, shared = 128),
        ] {
            let e = error_of(attr, quote! { pub fn k() {} });
            assert!(
                e.contains("takes nothing, `launch_bounds(MAX_THREADS, MIN_BLOCKS_PER_SM)`, `shared = BYTES`"),
                "{e}"
            );
        }
        let e = error_of(TokenStream::new(), quote! { pub struct S; });
        assert!(e.contains("expected `fn`"), "{e}");
    }
}
