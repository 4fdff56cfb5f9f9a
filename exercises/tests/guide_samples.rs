//! The guide's sample outputs of the exercises' checker (`cargo xtask exercise check N`) are
//! what it prints now for the exercises as shipped (`bankwise_guide::samples`).

use std::path::Path;

#[test]
fn the_guides_exercise_samples_are_what_the_checker_prints() {
    if bankwise_exercises::SOLUTIONS {
        eprintln!("skipped: the guide shows the exercises as shipped, and this build checks the solutions");
        return;
    }
    let exe = Path::new(env!("CARGO_BIN_EXE_bankwise-exercises"));
    // From the repository's root, where the checker finds the hints and names the files.
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let checked =
        bankwise_guide::samples::check_program("bankwise-exercises", exe, Some(root)).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "the guide shows the checker's output");
}
