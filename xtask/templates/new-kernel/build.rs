//! Builds the kernel crate in `kernels/` into `$OUT_DIR/{{kernels}}.ptx` and its entries
//! manifest, with the nightly pinned in `kernels/rust-toolchain.toml`. A failure (a missing
//! nightly or `rust-src`, a compile error) stops the build with one sentence that names the fix.

fn main() {
    bankwise_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|e| e.fail());
}
