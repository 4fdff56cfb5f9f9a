//! The guide's sample outputs of the `bankwise` command (`bankwise banks …`, `bankwise emulate
//! …`) are what the command prints now: each is run and compared (`bankwise_guide::samples`).

use std::path::Path;

#[test]
fn the_guides_bankwise_samples_are_what_the_command_prints() {
    let exe = Path::new(env!("CARGO_BIN_EXE_bankwise"));
    let checked = bankwise_guide::samples::check_program("bankwise", exe, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "the guide has bankwise samples");
}
