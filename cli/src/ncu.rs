//! Reading Nsight Compute's `--csv` output: per-launch metric values.
//!
//! Two shapes are accepted. The default (details) page has one row per kernel launch × metric,
//! with `"ID"`, `"Kernel Name"`, `"Metric Name"` and `"Metric Value"` columns; `--page raw` has
//! one row per launch and one column per metric, possibly followed by a row of units. Lines
//! before the header (the program's own output, `==PROF==` notes) are skipped, as are rows whose
//! ID is not a number; values may carry thousands separators (`"1,024"`).

use std::collections::BTreeMap;

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// ncu's launch ID (launch order).
    pub id: u64,
    /// The kernel's name.
    pub kernel: String,
    /// Metric name → value.
    pub metrics: BTreeMap<String, f64>,
}

/// Splits one CSV line into fields (RFC 4180 quoting, `""` for a quote inside quotes).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut chars) = (false, line.trim_end_matches('\r').chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
    out
}

fn number(s: &str) -> Option<f64> {
    let clean: String = s.chars().filter(|c| !matches!(c, ',' | ' ' | '\u{a0}')).collect();
    clean.parse().ok()
}

/// Parses ncu's CSV into launches, sorted by ID. Errors if no header row is found.
pub fn parse(text: &str) -> Result<Vec<Launch>, String> {
    let mut lines = text.lines();
    let header = lines
        .by_ref()
        .map(fields)
        .find(|f| f.iter().any(|x| x == "ID") && f.iter().any(|x| x == "Kernel Name"))
        .ok_or("no ncu CSV header (a row with \"ID\" and \"Kernel Name\") found; was ncu run with --csv?")?;
    let col = |name: &str| header.iter().position(|h| h == name);
    let (id_col, kernel_col) = (col("ID").unwrap_or(0), col("Kernel Name").unwrap_or(0));
    let long = col("Metric Name").zip(col("Metric Value"));
    let mut launches: BTreeMap<u64, Launch> = BTreeMap::new();
    for row in lines.map(fields) {
        let Some(id) = row.get(id_col).and_then(|s| s.trim().parse::<u64>().ok()) else { continue };
        let kernel = row.get(kernel_col).cloned().unwrap_or_default();
        let launch = launches.entry(id).or_insert_with(|| Launch { id, kernel, metrics: BTreeMap::new() });
        match long {
            Some((name_col, value_col)) => {
                if let (Some(name), Some(value)) = (row.get(name_col), row.get(value_col).and_then(|v| number(v))) {
                    launch.metrics.insert(name.clone(), value);
                }
            }
            None => {
                for (name, value) in header.iter().zip(&row) {
                    if name.contains("__")
                        && let Some(v) = number(value)
                    {
                        launch.metrics.insert(name.clone(), v);
                    }
                }
            }
        }
    }
    Ok(launches.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = r#"# launch 0: stride-1 load
==PROF== Connected to process 4242 (/tmp/bankwise)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","bankwise","127.0.0.1","probe_load_u32","1","7","(512, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","0"
"0","4242","bankwise","127.0.0.1","probe_load_u32","1","7","(512, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_ld.sum","inst","256"
"1","4242","bankwise","127.0.0.1","probe_store_u32","1","7","(512, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum","","8,192"
"1","4242","bankwise","127.0.0.1","probe_store_u32","1","7","(512, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","n/a"
"#;

    #[test]
    fn long_format() {
        let l = parse(LONG).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].id, l[0].kernel.as_str()), (0, "probe_load_u32"));
        assert_eq!(l[0].metrics["smsp__sass_inst_executed_op_shared_ld.sum"], 256.0);
        assert_eq!(l[0].metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 0.0);
        assert_eq!(l[1].metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"], 8192.0);
        assert!(!l[1].metrics.contains_key("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    }

    #[test]
    fn raw_format_with_unit_row() {
        let raw = "\"ID\",\"Kernel Name\",\"a__x.sum\",\"b__y.sum\"\n\"\",\"\",\"inst\",\"\"\n\
                   \"3\",\"probe_load_u8\",\"1,024\",\"2.5\"\n\"2\",\"k, with \"\"comma\"\"\",\"1\",\"\"\n";
        let l = parse(raw).unwrap();
        assert_eq!(l.iter().map(|l| l.id).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(l[0].kernel, "k, with \"comma\"");
        assert_eq!(l[1].metrics["a__x.sum"], 1024.0);
        assert_eq!(l[1].metrics["b__y.sum"], 2.5);
        assert!(!l[0].metrics.contains_key("b__y.sum"));
    }

    #[test]
    fn missing_header_is_an_error() {
        assert!(parse("hello\nworld\n").is_err());
        assert_eq!(fields(r#"a,"b,c","""d""""#), ["a", "b,c", "\"d\""]);
    }
}
