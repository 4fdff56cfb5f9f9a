//! `cargo xtask new-kernel PATH [--name NAME] [--git URL]`: a new project of one's own, a host
//! crate at PATH and its kernel crate in PATH/kernels, wired to this repository.
//!
//! The files are the templates in `xtask/templates/new-kernel/` (a 1-D convolution through a
//! shared-memory tile, a `main` that verifies it and prints errors with `Display`, a test that
//! runs it on the emulator), with the project's names and where bankwise comes from filled in:
//! path dependencies on this clone, or `--git URL`. The README's "Write your own kernel" shows
//! the same files, rendered for `../conv1d` beside a clone in `../bankwise`; a test checks that
//! they are the same text.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Each generated file: its path in the project, and its template. The manifests' templates are
/// named `Cargo.toml.template`: they are not valid TOML until rendered, and a tool that looks for
/// packages in the repository (cargo reading a git dependency) must not take them for packages.
const TEMPLATES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../templates/new-kernel/Cargo.toml.template")),
    ("build.rs", include_str!("../templates/new-kernel/build.rs")),
    ("src/main.rs", include_str!("../templates/new-kernel/src/main.rs")),
    ("kernels/Cargo.toml", include_str!("../templates/new-kernel/kernels/Cargo.toml.template")),
    ("kernels/rust-toolchain.toml", include_str!("../templates/new-kernel/kernels/rust-toolchain.toml")),
    ("kernels/.cargo/config.toml", include_str!("../templates/new-kernel/kernels/.cargo/config.toml")),
    ("kernels/src/lib.rs", include_str!("../templates/new-kernel/kernels/src/lib.rs")),
];

/// Where the generated crates get bankwise's crates from.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// A clone at this path: absolute, or relative to the host crate's folder.
    Path(PathBuf),
    /// A git repository's URL.
    Git(String),
}

impl Source {
    /// The dependency's inline table for the crate at `dir` of the repository, written in a
    /// manifest `depth` folders below the host crate's (0 for the host crate, 1 for kernels/).
    fn dependency(&self, dir: &str, depth: usize) -> String {
        match self {
            Source::Path(root) => {
                let up = if root.is_absolute() { String::new() } else { "../".repeat(depth) };
                let path = format!("{up}{}/{dir}", root.display());
                format!("{{ path = {} }}", toml_string(&path))
            }
            Source::Git(url) => format!("{{ git = {} }}", toml_string(url)),
        }
    }
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The project's files for host crate `name` on `source`: each one's path and text.
pub(crate) fn render(name: &str, source: &Source) -> Vec<(&'static str, String)> {
    let kernels = format!("{name}-kernels");
    let replacements = [
        ("{{name}}", name.to_string()),
        ("{{kernels}}", kernels.clone()),
        ("{{ident}}", kernels.replace('-', "_")),
        ("{{runtime}}", source.dependency("host/bankwise-runtime", 0)),
        ("{{builder}}", source.dependency("host/bankwise-builder", 0)),
        ("{{device}}", source.dependency("kernels/bankwise-device", 1)),
    ];
    TEMPLATES
        .iter()
        .map(|&(path, template)| {
            let text = replacements.iter().fold(template.to_string(), |text, (from, to)| text.replace(from, to));
            (path, text)
        })
        .collect()
}

/// Refuses a name cargo would refuse for a package (or that makes no Rust identifier).
fn check_name(name: &str) -> Result<()> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        bail!(
            "{name:?} cannot name a crate: use ASCII letters, digits, `-` and `_`, starting with a letter (--name NAME)"
        );
    }
    const RESERVED: &[&str] = &["core", "std", "alloc", "test", "proc_macro", "self", "super", "crate", "build"];
    if RESERVED.contains(&name) {
        bail!("{name:?} is the name of a built-in crate or a keyword; choose another (--name NAME)");
    }
    Ok(())
}

/// Writes the project at `path` (which must not exist, or be an empty folder) and returns the
/// host crate's name: `name`, or the folder's.
pub(crate) fn create(path: &Path, name: Option<&str>, source: &Source) -> Result<String> {
    if path.exists() {
        let empty = path.is_dir() && std::fs::read_dir(path)?.next().is_none();
        if !empty {
            bail!(
                "{} already exists and is not an empty folder: new-kernel writes a whole project, so give it a new path",
                path.display()
            );
        }
    }
    let name = match name {
        Some(name) => name.to_string(),
        None => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("{} has no folder name to call the crate by; pass --name NAME", path.display()))?,
    };
    check_name(&name)?;
    for (file, text) in render(&name, source) {
        let file = path.join(file);
        std::fs::create_dir_all(file.parent().expect("every template lies in a folder"))
            .with_context(|| format!("creating the folder of {}", file.display()))?;
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    }
    Ok(name)
}

/// CI's check of the recipe, as a new user meets it: `new-kernel` into a fresh folder outside
/// this clone, then in it `cargo test` (the kernel built for the GPU, its test on the emulator),
/// `BANKWISE_EMULATOR=1 cargo run -- --report` (the program, and a report with no race),
/// rustfmt's check with its default settings; then the kernel's barrier deleted, and `cargo
/// test` must fail with the race, naming the tile's store and load by line. The project takes
/// this clone's `Cargo.lock`s, so that CI builds the versions this repository was tested with,
/// and builds into `target/new-kernel/`, which keeps the dependencies between runs.
pub(crate) fn check(root: &Path) -> Result<()> {
    let project = std::env::temp_dir().join(format!("bankwise-new-kernel-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&project);
    let result = check_in(root, &project);
    let _ = std::fs::remove_dir_all(&project);
    result
}

fn check_in(root: &Path, project: &Path) -> Result<()> {
    create(project, Some("conv1d"), &Source::Path(root.to_path_buf()))?;
    for lock in ["Cargo.lock", "kernels/Cargo.lock"] {
        std::fs::copy(root.join(lock), project.join(lock)).with_context(|| format!("copying {lock}"))?;
    }
    let cargo = |args: &[&str], emulator: Option<&str>| -> Result<(bool, String)> {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.current_dir(project).args(args).env("CARGO_TARGET_DIR", root.join("target/new-kernel"));
        match emulator {
            Some(value) => cmd.env("BANKWISE_EMULATOR", value),
            None => cmd.env_remove("BANKWISE_EMULATOR"),
        };
        let out = cmd.output().with_context(|| format!("cannot start cargo {}", args.join(" ")))?;
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        Ok((out.status.success(), text))
    };
    let (ok, text) = cargo(&["test"], None)?;
    if !ok {
        bail!("the new project's `cargo test` failed:\n{text}");
    }
    let (ok, text) = cargo(&["run", "--", "--report"], Some("1"))?;
    if !ok || !text.contains("races: none") {
        bail!("the new project's `BANKWISE_EMULATOR=1 cargo run -- --report` failed or saw a race:\n{text}");
    }
    let (ok, text) = cargo(&["fmt", "--check"], None)?;
    let lib = project.join("kernels/src/lib.rs");
    let kernel_fmt = Command::new("rustfmt").args(["--edition", "2024", "--check"]).arg(&lib).output()?;
    if !ok || !kernel_fmt.status.success() {
        bail!(
            "the new project's files are not as rustfmt's default settings write them:\n{text}{}",
            String::from_utf8_lossy(&kernel_fmt.stdout)
        );
    }
    // The README's step 5: without the barrier, the launch fails with the race and both sites.
    let source = std::fs::read_to_string(&lib)?;
    if source.matches("\n    sync_threads();\n").count() != 1 {
        bail!("the template's kernel no longer has the one barrier this check deletes");
    }
    let source = source.replace("\n    sync_threads();\n", "\n");
    let line_of = |needle: &str| source.lines().position(|l| l.contains(needle)).map(|i| i + 1);
    let (Some(store), Some(load)) = (line_of("tile.write("), line_of("tile.read(")) else {
        bail!("the template's kernel no longer writes and reads its tile as this check expects");
    };
    std::fs::write(&lib, &source)?;
    let (ok, text) = cargo(&["test"], None)?;
    let sites = [store, load].map(|line| format!("kernels/src/lib.rs:{line}:"));
    let (store_site, load_site) = (&sites[0], &sites[1]);
    if ok || !text.contains("race") || !text.contains(store_site.as_str()) || !text.contains(load_site.as_str()) {
        bail!(
            "without its barrier, the new project's `cargo test` should fail with a race between {store_site} and \
             {load_site}:\n{text}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().canonicalize().unwrap()
    }

    /// A fresh folder under the system's temporary directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("xtask-new-kernel-{test}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Every `path = "…"` in a manifest.
    fn path_values(manifest: &str) -> Vec<String> {
        manifest.split("path = \"").skip(1).map(|rest| rest.split('"').next().unwrap().to_string()).collect()
    }

    /// The `name = "…"` of a manifest's `[package]`.
    fn package_name(manifest: &str) -> String {
        let rest = manifest.split("[package]\nname = \"").nth(1).unwrap();
        rest.split('"').next().unwrap().to_string()
    }

    #[test]
    fn writes_a_host_and_a_kernel_crate_wired_to_this_clone() {
        let scratch = Scratch::new("path");
        let project = scratch.0.join("my-blur");
        let name = create(&project, None, &Source::Path(root())).unwrap();
        assert_eq!(name, "my-blur");
        let read = |file: &str| std::fs::read_to_string(project.join(file)).unwrap();
        for (file, _) in TEMPLATES {
            let text = read(file);
            assert!(!text.contains("{{"), "{file} keeps a placeholder:\n{text}");
        }
        let host = read("Cargo.toml");
        let kernels = read("kernels/Cargo.toml");
        assert_eq!(package_name(&host), "my-blur");
        assert_eq!(package_name(&kernels), "my-blur-kernels");
        assert!(host.contains("[workspace]\nexclude = [\"kernels\"]"), "{host}");
        assert!(host.contains("my-blur-kernels = { path = \"kernels\" }"), "{host}");
        // Each path dependency is a crate of this repository (or the kernel crate), by name.
        let deps: Vec<(String, String)> = path_values(&host)
            .into_iter()
            .map(|p| (p.clone(), package_name(&std::fs::read_to_string(project.join(&p).join("Cargo.toml")).unwrap())))
            .chain(path_values(&kernels).into_iter().map(|p| {
                (
                    p.clone(),
                    package_name(
                        &std::fs::read_to_string(project.join("kernels").join(&p).join("Cargo.toml")).unwrap(),
                    ),
                )
            }))
            .collect();
        let names: Vec<&str> = deps.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["my-blur-kernels", "bankwise-runtime", "bankwise-builder", "bankwise-device"]);
        for (path, _) in &deps[1..] {
            assert!(Path::new(path).starts_with(root()), "{path} is not in this clone, {}", root().display());
        }
        // The code uses the names it was given.
        assert!(read("src/main.rs").contains("use my_blur_kernels::{BLOCK, RADIUS, TAPS, conv1d};"));
        assert!(read("src/main.rs").contains("\"/my-blur-kernels.ptx\""));
        assert!(read("kernels/src/lib.rs").contains("#[kernel(shared = (TILE * 4) as u32)]"));
        assert!(read("kernels/rust-toolchain.toml").contains(crate::TOOLCHAIN));
    }

    #[test]
    fn the_git_form_and_a_relative_clone() {
        let files = render("k", &Source::Git("https://example.org/bankwise.git".into()));
        let host = &files.iter().find(|(f, _)| *f == "Cargo.toml").unwrap().1;
        assert!(host.contains("bankwise-runtime = { git = \"https://example.org/bankwise.git\" }"), "{host}");
        let files = render("k", &Source::Path("../bankwise".into()));
        let kernels = &files.iter().find(|(f, _)| *f == "kernels/Cargo.toml").unwrap().1;
        // One folder deeper than the host crate, so one more `..`.
        assert!(
            kernels.contains("bankwise-device = { path = \"../../bankwise/kernels/bankwise-device\" }"),
            "{kernels}"
        );
    }

    #[test]
    fn refuses_a_folder_that_is_not_empty_and_a_bad_name() {
        let scratch = Scratch::new("refuse");
        std::fs::write(scratch.0.join("notes.txt"), "mine").unwrap();
        let err = create(&scratch.0, Some("ok"), &Source::Path(root())).unwrap_err().to_string();
        assert!(err.contains("already exists and is not an empty folder"), "{err}");
        assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 1, "nothing was written");
        let empty = scratch.0.join("empty");
        std::fs::create_dir(&empty).unwrap();
        for bad in ["1st", "my kernel", "std", ""] {
            let err = create(&empty, Some(bad), &Source::Path(root())).unwrap_err().to_string();
            assert!(err.contains("--name NAME"), "{bad:?}: {err}");
        }
        create(&empty, Some("fine_name"), &Source::Path(root())).unwrap();
        assert!(empty.join("kernels/src/lib.rs").is_file());
    }

    /// The README's recipe is the template, rendered for `cargo xtask new-kernel ../conv1d` from
    /// a clone in `../bankwise`: every file appears in full as a fenced code block.
    #[test]
    fn the_readme_shows_every_generated_file_in_full() {
        let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
        for (file, text) in render("conv1d", &Source::Path("../bankwise".into())) {
            let lang = if file.ends_with(".rs") { "rust,ignore" } else { "toml" };
            let block = format!("```{lang}\n{text}```\n");
            assert!(
                readme.contains(&block),
                "README.md does not show {file} as xtask/templates/new-kernel renders it:\n{block}"
            );
        }
    }
}
