//! The guide's sample output of this example ("Your first kernel") is what it prints on the
//! emulator now (`bankwise_guide::samples`).

use std::process::Command;

#[test]
fn the_guides_sample_is_what_the_example_prints() {
    let samples = bankwise_guide::samples::samples_of("vector-add");
    assert!(!samples.is_empty(), "the guide shows this example's output");
    for s in &samples {
        let out = Command::new(env!("CARGO_BIN_EXE_vector-add"))
            .args(&s.args)
            .envs(s.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap_or_else(|e| panic!("{s}: cannot run: {e}"));
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        s.check(&text).unwrap_or_else(|e| panic!("{e}"));
    }
}
