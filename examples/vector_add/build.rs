//! Builds the kernel crate in `kernels/` into `$OUT_DIR/vector-add-kernels.ptx` (and its
//! entries manifest), with the nightly pinned in `kernels/rust-toolchain.toml`.

fn main() {
    bankwise_builder::PtxBuilder::new("kernels").build().unwrap_or_else(|e| e.fail());
}
