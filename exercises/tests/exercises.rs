//! The exercises' structure on every build; with the `solutions` feature, every reference
//! solution passes its check (`cargo xtask ci` also runs `verify` both ways: each exercise
//! fails as shipped, each solution passes).

use std::path::Path;

use bankwise_exercises::{EXERCISES, find};

#[test]
fn exercises_are_numbered_in_order_each_with_its_file_and_solution() {
    assert!(EXERCISES.len() >= 20, "the issue asks for at least 20");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    for (i, e) in EXERCISES.iter().enumerate() {
        assert!(e.name.starts_with(&format!("e{:02}_", i + 1)), "{} is exercise {}", e.name, i + 1);
        for folder in ["src", "solutions"] {
            let file = root.join(folder).join(format!("{}.rs", e.name));
            let text = std::fs::read_to_string(&file).unwrap_or_else(|err| panic!("{}: {err}", file.display()));
            assert!(
                text.starts_with(&format!("//! Exercise {},", i + 1)),
                "{} does not say which exercise it is",
                file.display()
            );
            assert!(
                text.contains(&format!("(guide: \"{}\"", e.chapter)),
                "{} does not name its chapter",
                file.display()
            );
        }
        assert_eq!(find(e.name).map(|f| f.name), Some(e.name));
        assert_eq!(find(&(i + 1).to_string()).map(|f| f.name), Some(e.name));
        assert_eq!(find(&format!("e{:02}", i + 1)).map(|f| f.name), Some(e.name));
    }
    assert!(find("0").is_none() && find(&(EXERCISES.len() + 1).to_string()).is_none() && find("e99_x").is_none());
}

#[test]
fn every_exercise_has_three_hints() {
    for e in EXERCISES {
        let hints = e.hints().unwrap_or_else(|err| panic!("{}: {err:#}", e.name));
        assert!(hints.iter().all(|h| !h.trim().is_empty()), "{}", e.name);
    }
}

#[cfg(feature = "solutions")]
#[test]
fn every_reference_solution_passes_on_the_emulator() {
    for e in EXERCISES {
        e.check(None).unwrap_or_else(|err| panic!("{}: {err:#}", e.name));
    }
}

/// An exercise file's header as one line: its `//!` lines joined by spaces.
#[cfg(not(feature = "solutions"))]
fn header(text: &str) -> String {
    let lines = text.lines().map_while(|l| l.strip_prefix("//!")).map(str::trim);
    lines.filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// What an exercise's header quotes of its check's output (after `the check prints`, in any
/// case) is what the check prints, as shipped or for one of the exercise's common mistakes
/// (`kernels/mistakes/`).
#[cfg(not(feature = "solutions"))]
#[test]
fn what_the_files_say_the_checks_print_is_what_they_print() {
    const LEAD: &str = "the check prints `";
    let mut quoted = 0;
    for e in EXERCISES {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/src").join(format!("{}.rs", e.name));
        let header = header(&std::fs::read_to_string(&file).unwrap());
        let text = header.as_str();
        // ASCII lowercase keeps every byte offset.
        let lower = text.to_ascii_lowercase();
        let quotes: Vec<&str> = (lower.match_indices(LEAD))
            .map(|(at, _)| &text[at + LEAD.len()..])
            .map(|rest| &rest[..rest.find('`').expect("a closing backquote")])
            .collect();
        if quotes.is_empty() {
            continue;
        }
        let shipped = format!("{:#}", e.check(None).expect_err("every exercise fails as shipped"));
        let mistakes = bankwise_exercises::mistake_outputs(e.name);
        for quote in quotes {
            assert!(
                shipped.contains(quote) || mistakes.iter().any(|m| m.contains(quote)),
                "{} quotes `{quote}`; its check prints: {shipped}; for its mistakes: {mistakes:?}",
                e.name
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 8, "exercises 3, 4 and 7 to 12 quote their checks: {quoted} quotes");
}
