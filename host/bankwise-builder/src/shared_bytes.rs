//! Declared shared memory in the PTX: `#[kernel(shared = BYTES)]` leaves a static
//! `__bankwise_shared_bytes_<entry>` of two `u32`s (the bytes, then 0) in the module, since
//! rustc's `nvptx64` target has no way to declare a `.shared` variable; [`extract`] removes each
//! such static and returns the bytes per entry, which the builder records in the entries
//! manifest ([`crate::manifest::Entry::shared_bytes`]) for the host to give every launch.

/// The prefix of the statics `#[kernel(shared = ..)]` emits; the entry's name follows.
pub const PREFIX: &str = "__bankwise_shared_bytes_";

/// `ptx` without its declared-shared-memory statics, and each entry's declared bytes. Errors
/// (as text) where a static cannot be read or names no entry of the module.
pub fn extract(ptx: &str) -> Result<(String, Vec<(String, u32)>), String> {
    let mut declared = Vec::new();
    let mut kept = Vec::new();
    for line in ptx.lines() {
        match parse_static(line) {
            Some(parsed) => declared.push(parsed?),
            None => kept.push(line),
        }
    }
    for (entry, _) in &declared {
        if crate::statics::entry_line(&kept, entry).is_none() {
            return Err(format!("shared memory is declared for {entry}, which is not an entry of the module"));
        }
    }
    let mut text = kept.join("\n");
    if ptx.ends_with('\n') {
        text.push('\n');
    }
    Ok((text, declared))
}

/// A declared-shared-memory static's entry and bytes, if `line` declares one (see
/// [`crate::statics`]).
fn parse_static(line: &str) -> Option<Result<(String, u32), String>> {
    Some(match crate::statics::read(line, PREFIX)? {
        Ok((entry, [bytes, _])) => Ok((entry, bytes)),
        Err(()) => Err(format!("the declared-shared-memory static `{}` cannot be read", line.trim())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 8.7
.target sm_70
.address_size 64

.visible .global .align 4 .b8 __bankwise_shared_bytes_tiled[8] = {128, 16};
.visible .global .align 4 .u32 __bankwise_shared_bytes_words[2] = {70000, 0};

.visible .entry tiled(
\t.param .u64 .ptr .align 1 tiled_param_0
)
{
\tret;
}
.visible .entry words()
{
\tret;
}
";

    #[test]
    fn statics_become_declared_bytes_and_leave_the_module() {
        let (out, declared) = extract(PTX).unwrap();
        assert!(!out.contains(PREFIX), "{out}");
        assert_eq!(declared, [("tiled".to_string(), 4224), ("words".to_string(), 70000)]);
        // A module without declarations is left as it was.
        let (again, none) = extract(&out).unwrap();
        assert_eq!((again, none), (out, Vec::new()));
    }

    #[test]
    fn statics_that_name_no_entry_or_cannot_be_read_are_errors() {
        let stray = format!(".visible .global .align 4 .b8 {PREFIX}gone[8] = {{0, 1}};\n");
        assert!(extract(&stray).unwrap_err().contains("gone, which is not an entry"));
        let bad = format!(".visible .global .align 4 .b8 {PREFIX}k[8] = {{0, x}};\n");
        assert!(extract(&bad).unwrap_err().contains("cannot be read"));
    }
}
