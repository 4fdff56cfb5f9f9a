//! Launch bounds in the PTX: `#[kernel(launch_bounds(MAX_THREADS, MIN_BLOCKS))]` leaves a
//! static `__bankwise_launch_bounds_<entry>` of two `u32`s in the module (rustc has no way to
//! put a directive on an entry); [`apply`] removes each such static and gives its entry the
//! `.maxntid MAX_THREADS, 1, 1` and `.minnctapersm MIN_BLOCKS` directives that CUDA C++'s
//! `__launch_bounds__` produces, which ptxas reads to cap the entry's registers.

/// The prefix of the statics `#[kernel(launch_bounds(..))]` emits; the entry's name follows.
pub const PREFIX: &str = "__bankwise_launch_bounds_";

/// One entry's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    /// Threads per block, at most.
    pub max_threads: u32,
    /// Blocks per multiprocessor to leave room for.
    pub min_blocks: u32,
}

/// `ptx` with every launch-bounds static removed and its entry given the directives. Errors
/// (as text) where a static cannot be read or names no entry of the module, or where the
/// bounds are zero.
pub fn apply(ptx: &str) -> Result<String, String> {
    let mut bounds: Vec<(String, LaunchBounds)> = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    for line in ptx.lines() {
        match parse_static(line) {
            Some(parsed) => bounds.push(parsed?),
            None => kept.push(line),
        }
    }
    let mut out: Vec<String> = kept.iter().map(|l| l.to_string()).collect();
    for (entry, b) in &bounds {
        if b.max_threads == 0 || b.min_blocks == 0 {
            return Err(format!(
                "the launch bounds of {entry} are zero ({} threads, {} blocks)",
                b.max_threads, b.min_blocks
            ));
        }
        let start = crate::statics::entry_line(&out, entry)
            .ok_or_else(|| format!("launch bounds are given for {entry}, which is not an entry of the module"))?;
        // The parameter list ends on the first line that ends with `)`: `.entry k()` itself,
        // or the `)` after the last parameter.
        let end = (start..out.len())
            .find(|&i| out[i].trim_end().ends_with(')'))
            .ok_or_else(|| format!("the parameter list of {entry} does not end"))?;
        out.insert(end + 1, format!(".maxntid {}, 1, 1\n.minnctapersm {}", b.max_threads, b.min_blocks));
    }
    let mut text = out.join("\n");
    if ptx.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// A launch-bounds static's entry and bounds, if `line` declares one:
/// `.visible .global .align 4 .b8 __bankwise_launch_bounds_k[8] = {0, 1, 0, 0, 2};` (LLVM
/// leaves out trailing zero bytes).
fn parse_static(line: &str) -> Option<Result<(String, LaunchBounds), String>> {
    Some(match crate::statics::read(line, PREFIX)? {
        Ok((entry, [max_threads, min_blocks])) => Ok((entry, LaunchBounds { max_threads, min_blocks })),
        Err(()) => Err(format!("the launch-bounds static `{}` cannot be read", line.trim())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 8.7
.target sm_70
.address_size 64

.visible .global .align 4 .b8 __bankwise_launch_bounds_tuned[8] = {0, 1, 0, 0, 2};
.visible .global .align 4 .b8 __bankwise_launch_bounds_nothing[8] = {32, 0, 0, 0, 1};

.visible .entry tuned(
\t.param .u64 .ptr .align 1 tuned_param_0
)
{
\tret;
}
.visible .entry nothing()
{
\tret;
}
";

    #[test]
    fn statics_become_the_entries_directives() {
        let out = apply(PTX).unwrap();
        assert!(!out.contains(PREFIX), "{out}");
        assert!(out.contains("tuned_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm 2\n{"), "{out}");
        assert!(out.contains(".entry nothing()\n.maxntid 32, 1, 1\n.minnctapersm 1\n{"), "{out}");
        // A module without bounds is left as it was.
        let plain = PTX.lines().filter(|l| !l.contains(PREFIX)).collect::<Vec<_>>().join("\n") + "\n";
        assert_eq!(apply(&plain).unwrap(), plain);
    }

    #[test]
    fn bounds_that_name_no_entry_or_cannot_be_read_are_errors() {
        let stray = format!(".visible .global .align 4 .b8 {PREFIX}gone[8] = {{0, 1, 0, 0, 2}};\n");
        assert!(apply(&stray).unwrap_err().contains("gone, which is not an entry"));
        let bad = format!(".visible .global .align 4 .b8 {PREFIX}k[8] = {{0, x}};\n");
        assert!(apply(&bad).unwrap_err().contains("cannot be read"));
        let zero = PTX.replace("{32, 0, 0, 0, 1}", "{0, 0, 0, 0, 1}");
        assert!(apply(&zero).unwrap_err().contains("are zero"));
    }
}
