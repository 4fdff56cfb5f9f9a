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
//!
//! What a doctest, or a test of a crate with no program to run, prints is marked the same way
//! by name, `<!-- output: NAME -->` before the `text` block, and checked by the code that makes
//! it with [`check_output`]: the same comparison, `…` lines and `BANKWISE_BLESS=1` included.

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

/// The comment that introduces a named output ([`check_output`]).
const OUTPUT_MARK: &str = "<!-- output:";

/// The named outputs of one chapter's text: each name, the 1-based line of its comment, and
/// the block's text, every line with its newline.
///
/// # Panics
/// Where an output comment is not followed by a `text` block, naming the file and line.
pub fn outputs(chapter: &Path, text: &str) -> Vec<(String, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix(OUTPUT_MARK) else { continue };
        let name = rest.strip_suffix("-->").unwrap_or_else(|| panic!("{}:{}: no `-->`", chapter.display(), i + 1));
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```text"),
            "{}:{}: an output comment is followed by a text block",
            chapter.display(),
            i + 1
        );
        let end = (i + 2..lines.len())
            .find(|&j| lines[j].trim() == "```")
            .unwrap_or_else(|| panic!("{}:{}: the text block never closes", chapter.display(), i + 1));
        // A block indented in a list item: its lines without the fence's indentation.
        let indent = lines[i + 1].len() - lines[i + 1].trim_start().len();
        let body: String =
            lines[i + 2..end].iter().map(|l| format!("{}\n", l.get(indent..).unwrap_or(l.trim_start()))).collect();
        out.push((name.trim().to_string(), i + 1, body));
    }
    out
}

/// Checks `output` against the block that `chapter` (a file name in `guide/chapters/`) marks
/// `<!-- output: NAME -->`, as [`Sample::matches`] does; where it differs and `BANKWISE_BLESS`
/// is `1`, writes `output` there instead (not over an excerpt with `…` lines). For doctests and
/// tests that print what the chapter shows.
pub fn check_output(chapter: &str, name: &str, output: &str) -> Result<(), String> {
    let path = chapters_dir().join(chapter);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let found = outputs(&path, &text).into_iter().find(|(n, ..)| n == name);
    let (_, line, shown) = found.ok_or_else(|| format!("guide/chapters/{chapter} has no `<!-- output: {name} -->`"))?;
    let want: Vec<&str> = shown.lines().map(str::trim_end).collect();
    let got: Vec<&str> = output.lines().map(str::trim_end).collect();
    if fits(&want, &got) {
        return Ok(());
    }
    if std::env::var("BANKWISE_BLESS").as_deref() == Ok("1") && !want.iter().any(|l| l.trim() == "…") {
        let lines: Vec<&str> = text.lines().collect();
        let indent = &lines[line][..lines[line].len() - lines[line].trim_start().len()];
        let body = line + 1; // 0-based index of the block's first line
        let mut out: Vec<String> = lines[..body].iter().map(|l| l.to_string()).collect();
        out.extend(got.iter().map(|l| if l.is_empty() { String::new() } else { format!("{indent}{l}") }));
        out.extend(lines[body + want.len()..].iter().map(|l| l.to_string()));
        return std::fs::write(&path, out.join("\n") + "\n").map_err(|e| e.to_string());
    }
    Err(format!(
        "guide/chapters/{chapter}:{line} (output {name}): the chapter's block is not what the code prints.\n\
         --- the chapter shows:\n{shown}--- the code prints:\n{output}--- (BANKWISE_BLESS=1 writes the output into the \
         chapter, where the block has no `…` lines)"
    ))
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
    fn a_named_output_is_found_and_compared_as_a_sample_is() {
        let text = "Prints:\n\n- a list item:\n\n  <!-- output: demo -->\n  ```text\n  first\n  …\n  last\n  ```\n";
        let found = outputs(Path::new("x.md"), text);
        assert_eq!(found, [("demo".to_string(), 5, "first\n…\nlast\n".to_string())]);
    }

    #[test]
    fn every_named_output_in_the_guide_is_a_text_block_with_a_name_of_its_own() {
        let mut found = 0;
        for entry in std::fs::read_dir(chapters_dir()).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut names: Vec<String> = Vec::new();
            for (name, line, _) in outputs(&path, &text) {
                let well_named = !name.is_empty() && !name.contains(char::is_whitespace) && !names.contains(&name);
                assert!(well_named, "{}:{line}: an output's name is one word, once per chapter", path.display());
                names.push(name);
                found += 1;
            }
        }
        assert!(found > 0, "the guide marks the outputs its doctests and tests check");
    }

    /// The figures with two decimals (`8.50`, as the checks and the emulator print ratios) in
    /// `text` outside its fenced blocks.
    fn two_decimal_figures(text: &str) -> Vec<String> {
        let mut fenced = false;
        let mut out = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            let chars: Vec<char> = line.chars().collect();
            let mut i = 0;
            while i < chars.len() {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let token: String = chars[start..i].iter().collect::<String>().trim_end_matches('.').to_string();
                let figure = token.split_once('.').is_some_and(|(whole, frac)| {
                    !whole.is_empty() && frac.len() == 2 && frac.chars().all(|c| c.is_ascii_digit())
                });
                if figure {
                    out.push(token);
                }
                i = i.max(start + 1);
            }
        }
        out
    }

    #[test]
    fn two_decimal_figures_are_found_in_prose_only() {
        let text = "loads 8.50 sectors (and 3.54.)\n```text\n4.00\n```\nat most 1.5, 12.345 or v0.50.4\n";
        assert_eq!(two_decimal_figures(text), ["8.50", "3.54"]);
    }

    /// The chapter "After reductions" quotes what the exercises' checks measure: each figure in
    /// its prose is in one of its checked samples, so that a changed check cannot leave the
    /// prose behind (`bankwise-exercises`' guide-sample test keeps the samples true).
    #[test]
    fn every_figure_in_the_patterns_chapter_is_in_one_of_its_samples() {
        let chapter = chapters_dir().join("patterns.md");
        let text = std::fs::read_to_string(&chapter).unwrap();
        let samples = parse(&chapter, &text);
        let figures = two_decimal_figures(&text);
        assert!(!figures.is_empty(), "the chapter quotes its checks' figures");
        for figure in figures {
            assert!(
                samples.iter().any(|s| s.text.contains(&figure)),
                "guide/chapters/patterns.md quotes {figure}, which none of its samples shows: quote a checked sample"
            );
        }
    }

    #[test]
    fn every_sample_in_the_guide_parses_and_names_a_known_program() {
        let known = ["bankwise", "bankwise-exercises", "vector-add"];
        for s in samples() {
            assert!(known.contains(&s.program.as_str()), "{s}: no test runs `{}`", s.program);
        }
    }
}
