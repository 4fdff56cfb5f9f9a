//! The statics `#[kernel]` leaves in a module for the builder to read: two `u32`s named
//! `<prefix><entry>` (launch bounds; declared shared memory and a 0), which LLVM writes as
//! `.visible .global .align 4 .b8 <name>[8] = {0, 1, 0, 0, 2};` (bytes, trailing zeros left out)
//! or as `.u32 <name>[2] = {70000, 0};` (words).

/// The entry and the two words of the static `line` declares, if it is one named with `prefix`;
/// `Err(())` where it is, but cannot be read.
pub(crate) fn read(line: &str, prefix: &str) -> Option<Result<(String, [u32; 2]), ()>> {
    let line = line.trim();
    if !line.starts_with(".visible .global") {
        return None;
    }
    let at = line.find(prefix)?;
    let rest = &line[at + prefix.len()..];
    let entry = rest.split(['[', ' ', ';']).next().unwrap_or_default().to_string();
    let values: Option<Vec<u64>> = rest
        .split_once('{')
        .and_then(|(_, b)| b.split_once('}'))
        .map(|(b, _)| b.split(',').map(|x| x.trim().parse::<u64>().ok()).collect())
        .unwrap_or(Some(Vec::new()));
    let words = values.and_then(|v| {
        if line.contains(".u32 ") {
            let word = |i: usize| v.get(i).copied().unwrap_or(0).try_into().ok();
            (v.len() <= 2).then_some(())?;
            Some([word(0)?, word(1)?])
        } else if v.len() <= 8 && v.iter().all(|&b| b < 256) {
            let mut b: Vec<u8> = v.iter().map(|&b| b as u8).collect();
            b.resize(8, 0);
            let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
            Some([word(0), word(4)])
        } else {
            None
        }
    });
    Some(match words {
        Some(words) if !entry.is_empty() => Ok((entry, words)),
        _ => Err(()),
    })
}

/// The index of the line of `lines` that opens entry `entry` (`.visible .entry <entry>(`).
pub(crate) fn entry_line<S: AsRef<str>>(lines: &[S], entry: &str) -> Option<usize> {
    let head = format!(".entry {entry}(");
    lines.iter().position(|l| {
        let l = l.as_ref();
        l.trim_start().starts_with(".visible .entry ") && l.contains(&head)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_words_are_read_little_endian() {
        let p = "__p_";
        assert_eq!(
            read(".visible .global .align 4 .b8 __p_k[8] = {0, 1, 0, 0, 2};", p),
            Some(Ok(("k".into(), [256, 2])))
        );
        assert_eq!(
            read(".visible .global .align 4 .u32 __p_w[2] = {70000, 0};", p),
            Some(Ok(("w".into(), [70000, 0])))
        );
        assert_eq!(read(".visible .global .align 4 .b8 __p_z[8];", p), Some(Ok(("z".into(), [0, 0]))));
        assert_eq!(read(".visible .global .align 4 .b8 __p_k[8] = {0, x};", p), Some(Err(())));
        assert_eq!(read(".visible .global .align 4 .b8 __p_k[8] = {1, 2, 3, 4, 5, 6, 7, 8, 9};", p), Some(Err(())));
        assert_eq!(read(".visible .global .align 4 .b8 other[8] = {1};", p), None);
        assert_eq!(read("\tld.param.u64 %rd1, [__p_k];", p), None);
    }

    #[test]
    fn entries_are_found_by_their_opening_line() {
        let lines = [".visible .global .b8 x[1];", ".visible .entry kk(", ".visible .entry k()", "\tcall k("];
        assert_eq!(
            (entry_line(&lines, "k"), entry_line(&lines, "kk"), entry_line(&lines, "x")),
            (Some(2), Some(1), None)
        );
    }
}
