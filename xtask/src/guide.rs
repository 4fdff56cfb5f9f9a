//! `cargo xtask guide`: builds the mdBook in `guide/` into `target/guide/` with a pinned
//! mdBook, installed into `.tools/mdbook/` on first use (`cargo install --locked`, without the
//! `serve`/`watch` features, which a build does not need). The guide's Rust code blocks are
//! doctests of the `bankwise-guide` crate, run by `cargo xtask test`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::{progress, run};

/// The mdBook that builds the guide.
pub(crate) const MDBOOK: &str = "0.5.4";

/// The pinned mdBook, installed if missing or of another version.
fn mdbook(root: &Path) -> Result<PathBuf> {
    let tools = root.join(".tools/mdbook");
    let bin = tools.join("bin/mdbook");
    let version = Command::new(&bin).arg("--version").output().ok().filter(|o| o.status.success());
    let installed = version.is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == format!("mdbook v{MDBOOK}"));
    if !installed {
        eprintln!("xtask: the guide builds with mdBook {MDBOOK}, which is not in {} yet", tools.display());
        // Its bin folder on PATH, so that cargo install does not advise adding it: xtask runs
        // mdbook from there by its full path.
        let path = std::env::join_paths(
            std::iter::once(tools.join("bin"))
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )?;
        progress::MDBOOK.run(|| {
            run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .env("PATH", path)
                .args(["install", "--locked", "--no-default-features", "--force", "--root"])
                .arg(&tools)
                .arg(format!("mdbook@{MDBOOK}")))
        })?;
    }
    Ok(bin)
}

/// Builds the guide; mdBook fails on a chapter that SUMMARY.md names and that is missing.
pub(crate) fn build(root: &Path) -> Result<()> {
    let mdbook = mdbook(root)?;
    progress::GUIDE.run(|| run(Command::new(mdbook).arg("build").arg(root.join("guide"))))?;
    eprintln!("xtask: the guide is in {}", root.join("target/guide/index.html").display());
    Ok(())
}
