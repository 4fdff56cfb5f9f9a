//! `Device::from_env`: `BANKWISE_EMULATOR` picks the emulator (`1`, where a race fails the
//! launch; `collect`, collecting races in the reports) or the GPU, and a value it does not
//! understand is an error. One test, in a process of its own: it sets the variable.

mod racy;

use bankwise_runtime::{Device, EMULATOR_VAR, EmulatorChecks, Error};

#[test]
fn bankwise_emulator_picks_the_device() {
    // Safety: the only test of this process, so no other thread reads the environment.
    unsafe { std::env::set_var(EMULATOR_VAR, "1") };
    let dev = Device::from_env(0).unwrap();
    assert_eq!(dev.emulator_checks(), Some(EmulatorChecks::Strict));
    // A program on BANKWISE_EMULATOR=1 fails loudly on a race.
    let err = racy::launch(&dev, "neighbour_racy").unwrap_err();
    assert!(matches!(err, Error::Race { .. }), "{err}");
    assert!(err.to_string().contains("racy/mod.rs:"), "{err}");
    // SAFETY: as above.
    unsafe { std::env::set_var(EMULATOR_VAR, "collect") };
    let dev = Device::from_env(0).unwrap();
    assert_eq!(dev.emulator_checks(), Some(EmulatorChecks::Collect));
    racy::launch(&dev, "neighbour_racy").unwrap();
    assert_eq!(dev.take_emulator_reports()[0].report.races.len(), 2);
    for checks in [EmulatorChecks::Strict, EmulatorChecks::Collect] {
        // SAFETY: as above.
        unsafe { std::env::set_var(EMULATOR_VAR, checks.env_value()) };
        assert_eq!(Device::from_env(0).unwrap().emulator_checks(), Some(checks));
    }
    // SAFETY: as above.
    unsafe { std::env::set_var(EMULATOR_VAR, "yes") };
    match Device::from_env(0) {
        Err(e @ Error::BadEnvironment { .. }) => {
            assert_eq!(
                e.to_string(),
                "BANKWISE_EMULATOR=\"yes\": expected 1 (the CPU emulator; a race is an error), collect (the CPU \
                 emulator, collecting races in its reports) or 0 (the GPU)"
            )
        }
        other => panic!("expected BadEnvironment, got {:?}", other.map(|d| d.is_emulator())),
    }
    // 0 or unset: the GPU, as Device::new(0) gives it (or its error, without one).
    for value in [Some("0"), None] {
        match value {
            // SAFETY: as above.
            Some(v) => unsafe { std::env::set_var(EMULATOR_VAR, v) },
            // SAFETY: as above.
            None => unsafe { std::env::remove_var(EMULATOR_VAR) },
        }
        match (Device::from_env(0), Device::new(0)) {
            (Ok(d), Ok(_)) => assert!(!d.is_emulator()),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("from_env gave {:?}, new {:?}", a.map(|d| d.is_emulator()), b.map(|d| d.is_emulator())),
        }
    }
}
