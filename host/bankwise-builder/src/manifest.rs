//! The entries of a PTX module: each kernel's name and parameter types, read from the PTX's
//! `.entry` declarations. [`crate::PtxBuilder`] writes them beside the PTX as a manifest, one
//! line per entry (`copy_bytes(ptr, ptr, u64)`, followed by ` shared BYTES` where the kernel
//! declares shared memory: `transpose_tiled_u32(ptr, ptr, u64, u64, u64) shared 4096`), which
//! the host reads instead of a list of kernel names kept by hand.

use std::fmt;

/// A kernel parameter's type, as PTX declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// A pointer (`.u64 .ptr`): a device address, 8 bytes.
    Ptr,
    /// A scalar of this PTX type (`u32`, `u64`, `s32`, `f32`, `f64`, `b8`, …): its bits only.
    Scalar(Scalar),
    /// A value of this many bytes passed by value (`.param .align 8 .b8 p[24]`): a `#[repr(C)]`
    /// parameter struct. Written `[24]`.
    Bytes(usize),
}

/// A PTX scalar type: its kind and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    /// `b`, `u`, `s` or `f`.
    pub kind: char,
    /// Bits: 8, 16, 32 or 64.
    pub bits: u32,
}

impl Param {
    /// Bytes the parameter takes in the launch's parameter buffer.
    pub fn bytes(self) -> usize {
        match self {
            Param::Ptr => 8,
            Param::Scalar(s) => s.bits as usize / 8,
            Param::Bytes(n) => n,
        }
    }

    fn parse(word: &str) -> Option<Param> {
        if word == "ptr" {
            return Some(Param::Ptr);
        }
        if let Some(n) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            return n.parse().ok().filter(|&n| n > 0).map(Param::Bytes);
        }
        let mut chars = word.chars();
        let kind = chars.next().filter(|c| matches!(c, 'b' | 'u' | 's' | 'f'))?;
        let bits: u32 = chars.as_str().parse().ok().filter(|b| matches!(b, 8 | 16 | 32 | 64))?;
        Some(Param::Scalar(Scalar { kind, bits }))
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Ptr => f.write_str("ptr"),
            Param::Scalar(s) => write!(f, "{}{}", s.kind, s.bits),
            Param::Bytes(n) => write!(f, "[{n}]"),
        }
    }
}

/// One kernel entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The entry's (unmangled) name.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// Bytes of shared memory the kernel declares (`#[kernel(shared = BYTES)]`), which every
    /// launch gives each block on top of the dynamic bytes it asks for; 0 where none.
    pub shared_bytes: u32,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            write!(f, "{}{p}", if i == 0 { "" } else { ", " })?;
        }
        f.write_str(")")?;
        if self.shared_bytes > 0 {
            write!(f, " shared {}", self.shared_bytes)?;
        }
        Ok(())
    }
}

/// Every `.visible .entry` of a PTX module, in the order the module defines them (their
/// declared shared memory is not in the PTX: [`crate::shared_bytes::extract`] reads it first).
pub fn entries(ptx: &str) -> Vec<Entry> {
    let mut found = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") else { continue };
        let name = rest.split(['(', ' ']).next().unwrap_or("").to_string();
        let mut params = Vec::new();
        if !rest.trim_end().ends_with("()") {
            // One `.param` per line until the closing parenthesis.
            for line in lines.by_ref() {
                let line = line.trim();
                if let Some(decl) = line.strip_prefix(".param .") {
                    let mut words = decl.split_whitespace();
                    let ty = words.next().unwrap_or("");
                    let next = words.next();
                    let param = if ty == "align" {
                        // `.param .align A .b8 name[N]`: an aggregate of N bytes.
                        let bytes = words.nth(1).and_then(|w| w.trim_end_matches(',').split_once('['));
                        bytes.and_then(|(_, n)| n.trim_end_matches(']').parse().ok()).map_or(Param::Ptr, Param::Bytes)
                    } else if next == Some(".ptr") {
                        Param::Ptr
                    } else {
                        Param::parse(ty).unwrap_or(Param::Ptr)
                    };
                    params.push(param);
                }
                if line.starts_with(')') || line.ends_with(')') {
                    break;
                }
            }
        }
        found.push(Entry { name, params, shared_bytes: 0 });
    }
    found
}

/// The manifest text of `entries`: one entry per line.
pub fn to_text(entries: &[Entry]) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// Reads a manifest written by [`to_text`]; `None` for a line that is not an entry.
pub fn from_text(text: &str) -> Option<Vec<Entry>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (name, rest) = line.trim().split_once('(')?;
            let (params, shared_bytes) = match rest.rsplit_once(") shared ") {
                Some((params, bytes)) => (params, bytes.trim().parse().ok().filter(|&b| b > 0)?),
                None => (rest.strip_suffix(')')?, 0),
            };
            let params = if params.trim().is_empty() {
                Vec::new()
            } else {
                params.split(',').map(|p| Param::parse(p.trim())).collect::<Option<Vec<_>>>()?
            };
            Some(Entry { name: name.to_string(), params, shared_bytes })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.visible .entry copy_bytes(
\t.param .u64 .ptr .align 1 copy_bytes_param_0,
\t.param .u64 .ptr .align 1 copy_bytes_param_1,
\t.param .u64 copy_bytes_param_2
)
{
}
.visible .entry nothing()
{
}
.visible .entry scale(
\t.param .f32 scale_param_0,
\t.param .u32 scale_param_1
)
.visible .entry by_value(
\t.param .align 8 .b8 by_value_param_0[24],
\t.param .u64 .ptr .align 1 by_value_param_1
)
";

    #[test]
    fn entries_are_read_with_their_parameters() {
        let found = entries(PTX);
        let text = to_text(&found);
        assert_eq!(text, "copy_bytes(ptr, ptr, u64)\nnothing()\nscale(f32, u32)\nby_value([24], ptr)\n");
        assert_eq!(from_text(&text).as_deref(), Some(&found[..]));
        assert_eq!(found[2].params.iter().map(|p| p.bytes()).sum::<usize>(), 8);
        assert_eq!(found[3].params, [Param::Bytes(24), Param::Ptr]);
        assert_eq!(from_text("copy_bytes(ptr, q7)"), None);
        assert_eq!(from_text("k([0])"), None);
    }

    #[test]
    fn declared_shared_memory_is_written_after_the_parameters() {
        let mut found = entries(PTX);
        found[0].shared_bytes = 4224;
        let text = to_text(&found[..1]);
        assert_eq!(text, "copy_bytes(ptr, ptr, u64) shared 4224\n");
        assert_eq!(from_text(&text).as_deref(), Some(&found[..1]));
        assert_eq!(from_text("k(ptr) shared 0"), None);
        assert_eq!(from_text("k(ptr) shared lots"), None);
    }
}
