//! Each exercise's three hints, from `exercises/hints/<name>.md`: tier 1 says where to look
//! (the concept and the guide's section), tier 2 the mechanism, tier 3 nearly the answer.
//! `cargo xtask exercise hint N` prints tier 1 and says how to ask for the next
//! (`cargo xtask exercise hint N 2`): no state is kept, so a hint can be read again.
//!
//! The files are read when asked for, from this crate's folder, so that a hint can be mended
//! without a rebuild. Each is `# Hints: <name>`, then the sections `## 1`, `## 2` and `## 3`,
//! in order, each with some text; `exercises/tests/exercises.rs` holds every exercise to that.

use std::path::PathBuf;

use anyhow::{Context, Result, bail, ensure};

use crate::{EXERCISES, Exercise};

/// How many hints each exercise has.
pub const TIERS: usize = 3;

impl Exercise {
    /// Its number, from 1, in [`EXERCISES`] (`e07_row_stride`: 7).
    pub fn number(&self) -> usize {
        EXERCISES.iter().position(|e| e.name == self.name).map_or(0, |i| i + 1)
    }

    /// Its hints file: `exercises/hints/<name>.md`.
    pub fn hints_file(&self) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("hints").join(format!("{}.md", self.name))
    }

    /// Its [`TIERS`] hints, the first the gentlest.
    pub fn hints(&self) -> Result<[String; TIERS]> {
        let file = self.hints_file();
        let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
        parse(self.name, &text).with_context(|| format!("in {}", file.display()))
    }
}

/// The hints in `text`, the hints file of exercise `name`: a first line `# Hints: NAME`, then
/// `## 1`, `## 2`, `## 3` in order, each followed by some text (trimmed here); nothing else
/// but blank lines outside them.
pub fn parse(name: &str, text: &str) -> Result<[String; TIERS]> {
    let mut lines = text.lines();
    let title = format!("# Hints: {name}");
    ensure!(lines.next().map(str::trim_end) == Some(title.as_str()), "the first line must be `{title}`");
    let mut tiers: Vec<String> = Vec::new();
    for line in lines {
        if let Some(heading) = line.strip_prefix("## ") {
            let want = tiers.len() + 1;
            ensure!(heading.trim() == want.to_string(), "`## {}` where `## {want}` was due", heading.trim());
            tiers.push(String::new());
        } else if let Some(tier) = tiers.last_mut() {
            tier.push_str(line);
            tier.push('\n');
        } else if !line.trim().is_empty() {
            bail!("text before `## 1`: {line}");
        }
    }
    let tiers: Vec<String> = tiers.iter().map(|t| t.trim().to_string()).collect();
    if let Some(empty) = tiers.iter().position(String::is_empty) {
        bail!("hint {} is empty", empty + 1);
    }
    let count = tiers.len();
    tiers.try_into().map_err(|_| anyhow::anyhow!("{count} hints where {TIERS} are due"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hints_file_is_a_title_and_three_numbered_non_empty_sections() {
        let good = "# Hints: e01_x\n\n## 1\nLook.\n\n## 2\nThe mechanism,\nover two lines.\n## 3\nNearly.\n";
        assert_eq!(parse("e01_x", good).unwrap(), ["Look.", "The mechanism,\nover two lines.", "Nearly."]);
        let errors = [
            ("# Hints: e02_y\n## 1\na\n## 2\nb\n## 3\nc\n", "the first line must be `# Hints: e01_x`"),
            ("# Hints: e01_x\n## 1\na\n## 2\nb\n", "2 hints where 3 are due"),
            ("# Hints: e01_x\n## 1\na\n## 2\nb\n## 3\nc\n## 4\nd\n", "4 hints where 3 are due"),
            ("# Hints: e01_x\n## 1\na\n## 3\nc\n", "`## 3` where `## 2` was due"),
            ("# Hints: e01_x\n## 1\na\n## 2\n  \n## 3\nc\n", "hint 2 is empty"),
            ("# Hints: e01_x\nstray\n## 1\na\n## 2\nb\n## 3\nc\n", "text before `## 1`: stray"),
        ];
        for (text, error) in errors {
            assert_eq!(parse("e01_x", text).unwrap_err().to_string(), error, "{text}");
        }
    }

    #[test]
    fn exercises_are_numbered_from_one_in_order() {
        assert_eq!(EXERCISES[0].number(), 1);
        assert_eq!(EXERCISES[6].number(), 7);
        assert!(EXERCISES[6].hints_file().ends_with("exercises/hints/e07_row_stride.md"));
    }
}
