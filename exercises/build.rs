//! Builds the exercises' kernel crate (`kernels/`) into `$OUT_DIR/bankwise-exercises-kernels.ptx`
//! and its entries manifest, from the reference solutions where the `solutions` feature is on.

fn main() {
    let mut builder = bankwise_builder::PtxBuilder::new("kernels");
    if std::env::var_os("CARGO_FEATURE_SOLUTIONS").is_some() {
        builder = builder.feature("solutions");
    }
    builder.build().unwrap_or_else(|e| e.fail());
}
