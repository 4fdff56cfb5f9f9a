//! The guide's sample outputs, kept true by tests. A `text` block that shows what a command
//! prints is preceded by a comment naming the exact invocation (invisible in the rendered
//! book):
//!
//! ````markdown
//! <!-- sample: BANKWISE_EMULATOR=1 bankwise emulate transpose_tiled -->
//! ```text
//! transpose_tiled on the emulator (f32 256×256): correct
//! …
//! ```
//! ````
//!
//! The crate that owns the program runs it in a test ([`check_program`]: `cli/tests/guide_samples.rs`
//! for `bankwise`, `exercises/tests/guide_samples.rs` for `bankwise-exercises`, each example's
//! tests for its own binary) and compares its output with the block by [`Sample::matches`]:
//! line by line, trailing spaces ignored, where a line holding only `…` stands for any run of
//! lines. With `BANKWISE_BLESS=1` such a test writes the program's output into the chapter
//! instead ([`Sample::bless`]), for a maintainer who changed an output on purpose.

use std::path::{Path, PathBuf};

/// The folder of the guide's chapters.
pub fn chapters_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("chapters")
}

/// The comment that introduces a checked sample.
const MARK: &str = "<!-- sample:";

/// One checked sample output: where it is, the command that prints it, and the text shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The chapter's file.
    pub chapter: PathBuf,
    /// The 1-based line of the `<!-- sample: … -->` comment.
    pub line: usize,
    /// Which of the chapter's samples this is (0 for the first).
    pub index: usize,
    /// Environment variables set for the command (`NAME=value` words before the program).
    pub env: Vec<(String, String)>,
    /// The program: `bankwise`, `bankwise-exercises` or an example's binary.
    pub program: String,
    /// Its arguments, split on spaces.
    pub args: Vec<String>,
    /// The block's text, every line with its newline.
    pub text: String,
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.chapter.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        write!(f, "guide/chapters/{name}:{} (", self.line)?;
        for (k, v) in &self.env {
            write!(f, "{k}={v} ")?;
        }
        write!(f, "{}", self.program)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        f.write_str(")")
    }
}

/// Every checked sample of every chapter, in file and line order.
///
/// # Panics
/// Where a chapter cannot be read, or a sample comment is not followed by a `text` block: a
/// test calls this, and the message names the file and line.
pub fn samples() -> Vec<Sample> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(chapters_dir())
        .expect("guide/chapters is readable")
        .map(|e| e.expect("guide/chapters lists").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.iter().flat_map(|f| parse(f, &std::fs::read_to_string(f).expect("a chapter is readable"))).collect()
}

/// The samples of every chapter whose program is `program`.
pub fn samples_of(program: &str) -> Vec<Sample> {
    samples().into_iter().filter(|s| s.program == program).collect()
}

/// Runs every sample of `program` with the executable `exe` (in `dir`, where given; `NO_COLOR`
/// set) and checks what it prints, its output then any error lines as a terminal shows them,
/// against the block ([`Sample::check`]). `Ok` with how many were checked; `Err` with every
/// sample that differs. The crate that builds `program` calls this from a test, with
/// `env!("CARGO_BIN_EXE_…")`.
pub fn check_program(program: &str, exe: &Path, dir: Option<&Path>) -> Result<usize, String> {
    let samples = samples_of(program);
    let mut failures = Vec::new();
    for s in &samples {
        let mut command = std::process::Command::new(exe);
        command.args(&s.args).envs(s.env.iter().map(|(k, v)| (k, v))).env("NO_COLOR", "1");
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let out = command.output().map_err(|e| format!("{s}: cannot run {}: {e}", exe.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        if let Err(e) = s.check(&text) {
            failures.push(e);
        }
    }
    if failures.is_empty() { Ok(samples.len()) } else { Err(failures.join("\n\n")) }
}

/// The samples in one chapter's text.
pub fn parse(chapter: &Path, text: &str) -> Vec<Sample> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix(MARK) else { continue };
        let command = rest.strip_suffix("-->").unwrap_or_else(|| panic!("{}:{}: no `-->`", chapter.display(), i + 1));
        let mut words = command.split_whitespace().map(str::to_string).peekable();
        let mut env = Vec::new();
        while let Some((k, v)) = words.peek().and_then(|w| w.split_once('=')).map(|(k, v)| (k.into(), v.into())) {
            env.push((k, v));
            words.next();
        }
        let program = words.next().unwrap_or_else(|| panic!("{}:{}: no program", chapter.display(), i + 1));
        let fence = lines.get(i + 1).map(|l| l.trim());
        assert_eq!(
            fence,
            Some("```text"),
            "{}:{}: a sample comment is followed by a text block",
            chapter.display(),
            i + 1
        );
        let end = (i + 2..lines.len())
            .find(|&j| lines[j].trim() == "```")
            .unwrap_or_else(|| panic!("{}:{}: the text block never closes", chapter.display(), i + 1));
        let text = lines[i + 2..end].iter().map(|l| format!("{l}\n")).collect();
        let (line, index) = (i + 1, out.len());
        out.push(Sample { chapter: chapter.to_path_buf(), line, index, env, program, args: words.collect(), text });
    }
    out
}

impl Sample {
    /// Whether `output` is what the block shows: line for line, trailing spaces ignored, a line
    /// of only `…` matching any run of lines (none included). `Err` says where they part.
    pub fn matches(&self, output: &str) -> Result<(), String> {
        let want: Vec<&str> = self.text.lines().map(str::trim_end).collect();
        let got: Vec<&str> = output.lines().map(str::trim_end).collect();
        if fits(&want, &got) {
            return Ok(());
        }
        let first =
            want.iter().zip(&got).position(|(w, g)| w != g && w.trim() != "…").unwrap_or(want.len().min(got.len()));
        Err(format!(
            "{self}: the chapter's sample is not what the program prints (first difference near sample line {}).\n\
             --- the chapter shows:\n{}--- the program prints:\n{output}--- (BANKWISE_BLESS=1 writes the program's output into the chapter)",
            first + 1,
            self.text
        ))
    }

    /// Writes `output` into the chapter in place of the block's text. Refuses a block with `…`
    /// lines (an excerpt is chosen by hand).
    pub fn bless(&self, output: &str) -> Result<(), String> {
        if self.text.lines().any(|l| l.trim() == "…") {
            return Err(format!("{self}: an excerpt (with `…` lines) is edited by hand"));
        }
        let text = std::fs::read_to_string(&self.chapter).map_err(|e| e.to_string())?;
        // Found again in the file as it is now: blessing an earlier sample moves the lines.
        let now = parse(&self.chapter, &text).into_iter().nth(self.index);
        let now = now.filter(|s| (&s.program, &s.args) == (&self.program, &self.args));
        let now = now.ok_or_else(|| format!("{self}: the chapter changed while being blessed"))?;
        let lines: Vec<&str> = text.lines().collect();
        let body = now.line + 1; // 0-based index of the block's first line
        let end = body + now.text.lines().count();
        let mut out: Vec<String> = lines[..body].iter().map(|l| l.to_string()).collect();
        out.extend(output.lines().map(|l| l.trim_end().to_string()));
        out.extend(lines[end..].iter().map(|l| l.to_string()));
        std::fs::write(&self.chapter, out.join("\n") + "\n").map_err(|e| e.to_string())
    }

    /// Compares `output` with the block, or, where it differs and `BANKWISE_BLESS` is `1`,
    /// writes it there.
    pub fn check(&self, output: &str) -> Result<(), String> {
        match self.matches(output) {
            Err(_) if std::env::var("BANKWISE_BLESS").as_deref() == Ok("1") => self.bless(output),
            result => result,
        }
    }
}

/// Whether `got` matches the pattern `want`, whose `…` lines match any run of lines.
fn fits(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w.trim() == "…" => (0..=got.len()).any(|skip| fits(rest, &got[skip..])),
        Some((w, rest)) => got.split_first().is_some_and(|(g, tail)| g == w && fits(rest, tail)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTER: &str = "Run it:\n\n<!-- sample: BANKWISE_EMULATOR=1 bankwise emulate transpose_tiled --draw -->\n\
        ```text\nfirst\n  …\nlast\n```\n";

    #[test]
    fn a_sample_names_its_command_and_block() {
        let s = &parse(Path::new("x.md"), CHAPTER)[0];
        assert_eq!((s.line, s.program.as_str()), (3, "bankwise"));
        assert_eq!(s.env, [("BANKWISE_EMULATOR".to_string(), "1".to_string())]);
        assert_eq!(s.args, ["emulate", "transpose_tiled", "--draw"]);
        assert_eq!(s.text, "first\n  …\nlast\n");
    }

    #[test]
    fn an_ellipsis_matches_any_run_of_lines_and_nothing_else_differs() {
        let s = &parse(Path::new("x.md"), CHAPTER)[0];
        assert!(s.matches("first\nlast\n").is_ok());
        assert!(s.matches("first\na\nb\nlast   \n").is_ok());
        assert!(s.matches("first\na\nlast\nmore\n").is_err());
        let err = s.matches("First\nlast\n").unwrap_err();
        assert!(err.contains("x.md:3") && err.contains("line 1"), "{err}");
    }

    #[test]
    fn every_sample_in_the_guide_parses_and_names_a_known_program() {
        let known = ["bankwise", "bankwise-exercises", "vector-add"];
        for s in samples() {
            assert!(known.contains(&s.program.as_str()), "{s}: no test runs `{}`", s.program);
        }
    }
}
