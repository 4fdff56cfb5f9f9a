//! The guide's sample outputs of the `bankwise` command (`bankwise banks …`, `bankwise emulate
//! …`) are what the command prints now: each is run and compared (`bankwise_guide::samples`).

use std::process::Command;

#[test]
fn the_guides_bankwise_samples_are_what_the_command_prints() {
    let samples = bankwise_guide::samples::samples_of("bankwise");
    assert!(!samples.is_empty(), "the guide has bankwise samples");
    let mut failures = Vec::new();
    for s in &samples {
        let out = Command::new(env!("CARGO_BIN_EXE_bankwise"))
            .args(&s.args)
            .envs(s.env.iter().map(|(k, v)| (k, v)))
            .env("NO_COLOR", "1")
            .output()
            .unwrap_or_else(|e| panic!("{s}: cannot run: {e}"));
        // What a reader sees in a terminal: the output, then any error line.
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        if let Err(e) = s.check(&text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
