//! The guide's sample output of this example ("Your first kernel") is what it prints on the
//! emulator now (`bankwise_guide::samples`).

use std::path::Path;

#[test]
fn the_guides_sample_is_what_the_example_prints() {
    let exe = Path::new(env!("CARGO_BIN_EXE_vector-add"));
    let checked = bankwise_guide::samples::check_program("vector-add", exe, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "the guide shows this example's output");
}
