//! `bankwise tune` on a machine without a GPU: a failing exit with a message that says what is
//! missing, not a panic. (With a driver present it would measure the GPU: the trial says it is
//! skipped.)

use std::process::Command;

#[test]
fn tune_without_a_gpu_says_what_is_missing() {
    if bankwise::runtime::driver_present().is_ok() {
        eprintln!("skipped: a CUDA driver is present, and `bankwise tune` would measure its GPU");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_bankwise")).args(["tune", "--quick"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit status {:?}", out.status);
    assert!(err.contains("bankwise tune measures a GPU") && err.contains("no CUDA driver"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
