//! What [`BuildError::fail`](crate::BuildError::fail) prints for a compile error, so that each
//! of the compiler's errors is shown once.
//!
//! A kernel crate that is also an `rlib` and a dependency of the build script's own package is
//! compiled twice in one `cargo build`: for the GPU by the builder, and for the host (its host
//! form, which the emulator runs) by cargo itself, which prints the compiler's errors in full.
//! Printing the GPU build's messages in full as well showed every error twice, one copy inside
//! cargo's "failed to run custom build command" block. So in that case the build script prints
//! only each error's first line and location (enough for an error that only the GPU build
//! meets) and says where the full text is; otherwise it prints the messages in full.

use std::path::Path;

/// Whether the package at `caller_dir` (the build script's, `CARGO_MANIFEST_DIR`) depends on
/// the kernel crate whose manifest is `kernel_manifest`, and that crate builds a Rust library:
/// then cargo compiles the crate's host form in the same build and shows its errors itself.
pub(crate) fn host_form_is_built(kernel_manifest: &Path, caller_dir: &Path) -> bool {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let (Some(kernel), Some(caller)) = (read(kernel_manifest), read(&caller_dir.join("Cargo.toml"))) else {
        return false;
    };
    let Some(name) = crate::package_name(&kernel) else { return false };
    builds_a_rust_library(&kernel) && depends_on(&caller, &name)
}

/// Whether the `[lib]` table's `crate-type` lists `rlib` or `lib`.
fn builds_a_rust_library(manifest: &str) -> bool {
    let mut in_lib = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_lib = line == "[lib]";
        } else if in_lib && (line.starts_with("crate-type") || line.starts_with("crate_type")) {
            return line.contains("\"rlib\"") || line.contains("\"lib\"");
        }
    }
    false
}

/// Whether a dependency table of `manifest` names package `name` (as its key, or through
/// `package = "name"`).
fn depends_on(manifest: &str, name: &str) -> bool {
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.trim_matches(['[', ']']).ends_with("dependencies");
        } else if in_dependencies {
            let key = line.split('=').next().unwrap_or("").trim().trim_matches('"');
            if key == name || line.replace(' ', "").contains(&format!("package=\"{name}\"")) {
                return true;
            }
        }
    }
    false
}

/// Each error's first line and its location (`--> file:line:col`), from rustc's messages;
/// cargo's closing "could not compile" and warnings are left out.
pub(crate) fn headlines(messages: &str) -> String {
    let lines: Vec<&str> = messages.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let is_error = line.starts_with("error[") || line.starts_with("error:");
        if !is_error || line.starts_with("error: could not compile") || line.starts_with("error: aborting") {
            continue;
        }
        out.push(line.to_string());
        if let Some(location) = lines.get(i + 1).map(|l| l.trim_start()).filter(|l| l.starts_with("-->")) {
            out.push(format!("  {location}"));
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rustc's messages for two errors, as cargo's stderr holds them (progress lines removed).
    const MESSAGES: &str = "\
error[E0308]: mismatched types
  --> src/lib.rs:54:28
   |
54 |         let mut sum: u32 = 0.0;
   |                      ---   ^^^ expected `u32`, found floating-point number

warning: unused import: `thread_x`
 --> src/lib.rs:5:50

error: cannot find value `tile` in this scope
  --> src/lib.rs:58:40
   |
58 |             sum += tile.read(t + k);
   |                    ^^^^ not found in this scope

Some errors have detailed explanations: E0308, E0425.
error: could not compile `k-kernels` (lib) due to 2 previous errors";

    #[test]
    fn headlines_keep_each_errors_first_line_and_location_only() {
        assert_eq!(
            headlines(MESSAGES),
            "error[E0308]: mismatched types\n  --> src/lib.rs:54:28\n\
             error: cannot find value `tile` in this scope\n  --> src/lib.rs:58:40"
        );
    }

    #[test]
    fn the_host_form_is_built_where_the_caller_depends_on_a_library_kernel_crate() {
        let dir = std::env::temp_dir().join(format!("bankwise-builder-host-form-{}", std::process::id()));
        let kernels = dir.join("kernels");
        std::fs::create_dir_all(&kernels).unwrap();
        let kernel_manifest = kernels.join("Cargo.toml");
        let write = |path: &Path, text: &str| std::fs::write(path, text).unwrap();
        write(&kernel_manifest, "[package]\nname = \"k-kernels\"\n\n[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n");
        write(
            &dir.join("Cargo.toml"),
            "[package]\nname = \"k\"\n\n[dependencies]\nk-kernels = { path = \"kernels\" }\n",
        );
        assert!(host_form_is_built(&kernel_manifest, &dir));
        // Renamed, under another key.
        write(&dir.join("Cargo.toml"), "[dependencies]\nmine = { package = \"k-kernels\", path = \"kernels\" }\n");
        assert!(host_form_is_built(&kernel_manifest, &dir));
        // Only the build script depends on the builder: the kernel crate is not compiled for the host.
        write(&dir.join("Cargo.toml"), "[package]\nname = \"k\"\n\n[build-dependencies]\nbankwise-builder = \"0.1\"\n");
        assert!(!host_form_is_built(&kernel_manifest, &dir));
        // A dependency on a crate that is only a cdylib compiles no host form either.
        write(&dir.join("Cargo.toml"), "[dependencies]\nk-kernels = { path = \"kernels\" }\n");
        write(&kernel_manifest, "[package]\nname = \"k-kernels\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n");
        assert!(!host_form_is_built(&kernel_manifest, &dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
