//! Tidy checks, run as xtask's unit tests by `cargo xtask test`: the pins that are written in
//! more than one place (a kernel crate needs its own `rust-toolchain.toml`, and xtask must know
//! the nightly before anything is built) stay in step, the README says what they are, every
//! chapter of the guide is both in the book and compiled as doctests, every Rust source file
//! opens with a `//!` comment saying what it is, and the durations the docs give for xtask's
//! steps are those of the table that xtask announces them from (`progress.rs`).

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::TOOLCHAIN;
    use crate::progress::{self, Step};

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
    }

    /// Every `rust-toolchain.toml` in the repository, outside build output.
    fn toolchain_files(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if name != "target"
                    && name != ".git"
                    && name != ".tools"
                    && !name.to_string_lossy().starts_with("bundle")
                {
                    toolchain_files(&path, found);
                }
            } else if name == "rust-toolchain.toml" {
                found.push(path);
            }
        }
    }

    /// Every `.rs` file of the repository's crates, outside build output and the builder's test
    /// fixtures (minimal kernel crates that its tests build as they are).
    fn rust_sources(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                let skipped = ["target", ".git", ".tools", "fixtures"].iter().any(|s| name == *s)
                    || name.to_string_lossy().starts_with("bundle");
                if !skipped {
                    rust_sources(&path, found);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }

    #[test]
    fn every_rust_source_opens_with_a_module_doc_comment() {
        let mut files = Vec::new();
        rust_sources(&root(), &mut files);
        // The host and device crates, the examples, the exercises, xtask: well over a hundred.
        assert!(files.len() >= 150, "found only {} files", files.len());
        let undocumented: Vec<String> = files
            .iter()
            .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
            .map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string())
            .collect();
        assert!(
            undocumented.is_empty(),
            "these files do not open with a `//!` comment saying what they are: {undocumented:?}"
        );
    }

    #[test]
    fn every_kernel_crate_pins_the_nightly_xtask_installs() {
        let mut files = Vec::new();
        toolchain_files(&root(), &mut files);
        // The device workspace, the three examples and the builder's test fixture.
        assert!(files.len() >= 5, "found only {files:?}");
        for file in files {
            // The builder's test of a toolchain that is not installed pins one on purpose.
            if file.ends_with("fixtures/missing-toolchain/rust-toolchain.toml") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let channel = format!("channel = \"{TOOLCHAIN}\"");
            assert!(text.contains(&channel), "{} does not pin {TOOLCHAIN} (xtask's TOOLCHAIN)", file.display());
        }
    }

    #[test]
    fn every_guide_chapter_is_in_the_book_and_its_code_is_tested() {
        let guide = root().join("guide");
        let summary = std::fs::read_to_string(guide.join("chapters/SUMMARY.md")).unwrap();
        let lib = std::fs::read_to_string(guide.join("lib.rs")).unwrap();
        let mut chapters = 0;
        for entry in std::fs::read_dir(guide.join("chapters")).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".md") || name == "SUMMARY.md" {
                continue;
            }
            chapters += 1;
            assert!(summary.contains(&format!("]({name})")), "guide/chapters/SUMMARY.md does not list {name}");
            assert!(
                lib.contains(&format!("\"{name}\"")),
                "guide/lib.rs does not include {name}, so its code is untested"
            );
        }
        assert!(chapters >= 10, "only {chapters} chapters");
    }

    #[test]
    fn the_readme_names_the_pinned_nightly_mdbook_and_the_cuda_tools() {
        let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
        assert!(readme.contains(TOOLCHAIN), "README.md does not name {TOOLCHAIN}");
        let mdbook = format!("mdBook {}", crate::guide::MDBOOK);
        assert!(readme.contains(&mdbook), "README.md does not name {mdbook}, which xtask installs");
        for package in crate::CUDA13_PACKAGES.iter().chain(crate::CUDA12_PACKAGES) {
            let version = package.split("==").nth(1).unwrap();
            let minor = version.rsplit_once('.').map_or(version, |(m, _)| m);
            let major_minor = minor.rsplit_once('.').map_or(minor, |(m, _)| m);
            assert!(
                readme.contains(&format!("CUDA {major_minor}")),
                "README.md does not name CUDA {major_minor} ({package})"
            );
        }
    }

    /// Where the docs say how long xtask's steps take: each file and the steps it quotes. Other
    /// chapters' durations are of GPU tools (racecheck, a profiler), not of xtask's steps.
    const QUOTATIONS: &[(&str, &[&Step])] = &[
        ("README.md", &[&progress::NIGHTLY, &progress::CHECKER, &progress::NEW_KERNEL]),
        (
            "guide/chapters/setup.md",
            &[
                &progress::TEST,
                &progress::NIGHTLY,
                &progress::XTASK,
                &progress::CUDA_TOOLS,
                &progress::VECTOR_ADD,
                &progress::MDBOOK,
                &progress::GUIDE,
            ],
        ),
        ("guide/chapters/exercises.md", &[&progress::CHECKER]),
    ];

    #[test]
    fn the_docs_quote_the_durations_xtask_announces() {
        for (file, steps) in QUOTATIONS {
            // Markdown wraps sentences anywhere: compare with every run of whitespace as one space.
            let text = std::fs::read_to_string(root().join(file)).unwrap();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            // Each step's quotation is struck out once found, so that two steps of the same
            // figure need a quotation each, and what is left must give no duration.
            let mut rest = text.clone();
            for step in *steps {
                let quote = step.estimate();
                assert!(
                    rest.contains(&quote),
                    "{file} does not say \"{quote}\" for {}, as progress.rs does",
                    step.doing
                );
                rest = rest.replacen(&quote, "", 1);
            }
            // Whole words only: "milliseconds" is no xtask step's duration.
            for unit in ["minute", "seconds"] {
                let word = rest
                    .match_indices(unit)
                    .find(|(at, _)| !rest[..*at].chars().next_back().is_some_and(char::is_alphabetic));
                if let Some((at, _)) = word {
                    let from = rest[..at].char_indices().rev().nth(80).map_or(0, |(i, _)| i);
                    panic!(
                        "{file} gives a duration that is not a quotation of progress.rs's table: \"…{}…\"",
                        &rest[from..(at + unit.len())]
                    );
                }
            }
        }
    }
}
