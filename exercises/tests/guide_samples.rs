//! The guide's sample outputs of the exercises' checker (`cargo xtask exercise check N`) are
//! what it prints now for the exercises as shipped (`bankwise_guide::samples`).

use std::process::Command;

#[test]
fn the_guides_exercise_samples_are_what_the_checker_prints() {
    if bankwise_exercises::SOLUTIONS {
        eprintln!("skipped: the guide shows the exercises as shipped, and this build checks the solutions");
        return;
    }
    let samples = bankwise_guide::samples::samples_of("bankwise-exercises");
    assert!(!samples.is_empty(), "the guide shows the checker's output");
    let mut failures = Vec::new();
    for s in &samples {
        let out = Command::new(env!("CARGO_BIN_EXE_bankwise-exercises"))
            .args(&s.args)
            .envs(s.env.iter().map(|(k, v)| (k, v)))
            .env("NO_COLOR", "1")
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .output()
            .unwrap_or_else(|e| panic!("{s}: cannot run: {e}"));
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        if let Err(e) = s.check(&text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
