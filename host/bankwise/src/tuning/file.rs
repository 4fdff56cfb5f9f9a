//! Tuning tables as files: `bankwise tune` sweeps the launch choices on one GPU and writes its
//! table as JSON ([`Tuning::to_json`]); a program opts in by naming such files in
//! `BANKWISE_TUNING` ([`TUNING_VAR`], paths separated by `:`), and each [`Gpu`](crate::Gpu)
//! then plans with the first whose key matches its GPU ([`resolve`]). Nothing is downloaded
//! and nothing is read unless the variable names it; a table for another GPU is passed over.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::{GpuKey, Tuning};
use crate::error::{Error, Result};
use crate::gpu::DeviceInfo;

/// The environment variable naming tuning table files, separated by `:`.
pub const TUNING_VAR: &str = "BANKWISE_TUNING";

impl Tuning {
    /// The table as pretty-printed JSON, the form [`Tuning::from_json`] reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a table is plain data")
    }

    /// A table from JSON, checked ([`Tuning::check`]); the error says what is wrong.
    pub fn from_json(text: &str) -> std::result::Result<Tuning, String> {
        let table: Tuning = serde_json::from_str(text).map_err(|e| e.to_string())?;
        table.check()?;
        Ok(table)
    }

    /// The table in the file at `path`: [`Error::BadTuning`] where it cannot be read or is not
    /// a valid table.
    pub fn load(path: &Path) -> Result<Tuning> {
        let bad = |what: String| Error::BadTuning { path: path.display().to_string(), what };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        Tuning::from_json(&text).map_err(bad)
    }

    /// Whether every figure can be planned with: launch choices of at least one block, rates
    /// finite and positive.
    pub fn check(&self) -> std::result::Result<(), String> {
        let m = &self.memory;
        let counts = [
            ("copy_blocks_per_sm", Some(m.copy_blocks_per_sm)),
            ("reduce_blocks_per_sm", Some(m.reduce_blocks_per_sm)),
            ("transpose_residency", m.transpose_residency),
            ("unaligned_residency", m.unaligned_residency),
            ("axes_row_blocks_per_sm", Some(m.axes_row_blocks_per_sm)),
            ("axes_column_blocks_per_sm", Some(m.axes_column_blocks_per_sm)),
        ];
        if let Some((name, _)) = counts.iter().find(|(_, n)| *n == Some(0) || n.is_some_and(|n| n > 1024)) {
            return Err(format!("memory.{name} must be 1 to 1024"));
        }
        if m.axes_block_row_min == 0 {
            return Err("memory.axes_block_row_min must be at least 1".into());
        }
        let t = &self.matmul;
        let rungs = [t.tuned_f32, t.tuned_f64, t.multistage_f32, t.multistage_f64];
        let rates = rungs.iter().flat_map(|r| [r.square, r.wide]).flatten().flat_map(|r| {
            let whole = r.whole.into_iter().flatten();
            r.checked.into_iter().chain(whole)
        });
        if rates.chain([t.strip_seconds]).any(|r| !(r.is_finite() && r > 0.0)) {
            return Err("matmul rates and strip_seconds must be finite and positive".into());
        }
        if t.realign_min_uses == 0 || t.split_min_depth == 0 {
            return Err("matmul.realign_min_uses and split_min_depth must be at least 1".into());
        }
        Ok(())
    }
}

/// The table `info`'s GPU plans with: the first table in the files `BANKWISE_TUNING` names
/// whose key matches the GPU ([`GpuKey::matches`]), else the shipped one
/// ([`Tuning::for_device`]). Each file is read once per process.
///
/// Errors: [`Error::BadTuning`] for a named file that cannot be read or is not a valid table.
pub fn resolve(info: &DeviceInfo) -> Result<&'static Tuning> {
    resolve_in(std::env::var_os(TUNING_VAR).as_deref(), info)
}

/// [`resolve`] with the variable's value given.
fn resolve_in(paths: Option<&std::ffi::OsStr>, info: &DeviceInfo) -> Result<&'static Tuning> {
    let key = GpuKey::of(info);
    if let Some(paths) = paths {
        for path in std::env::split_paths(paths).filter(|p| !p.as_os_str().is_empty()) {
            let table = loaded(&path)?;
            if table.key.matches(key) {
                return Ok(table);
            }
        }
    }
    Ok(Tuning::for_device(info))
}

/// The table in `path`, read and kept for the process's life on first use.
fn loaded(path: &Path) -> Result<&'static Tuning> {
    static TABLES: OnceLock<Mutex<HashMap<PathBuf, &'static Tuning>>> = OnceLock::new();
    let mut tables = TABLES.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&table) = tables.get(path) {
        return Ok(table);
    }
    // One allocation per file named, for the process's life: plans hold `&'static` tables.
    let table: &'static Tuning = Box::leak(Box::new(Tuning::load(path)?));
    tables.insert(path.to_path_buf(), table);
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::h100::H100;

    #[test]
    fn a_table_survives_its_file_and_a_bad_one_says_what_is_wrong() {
        let text = H100.to_json();
        assert_eq!(Tuning::from_json(&text).unwrap(), H100);
        let mut zero = H100.clone();
        zero.memory.copy_blocks_per_sm = 0;
        assert_eq!(Tuning::from_json(&zero.to_json()).unwrap_err(), "memory.copy_blocks_per_sm must be 1 to 1024");
        let mut negative = H100.clone();
        negative.matmul.strip_seconds = -1.0;
        assert!(Tuning::from_json(&negative.to_json()).unwrap_err().contains("strip_seconds"));
        assert!(Tuning::from_json("{\"device\": 3}").is_err());
        match Tuning::load(Path::new("/nonexistent/bankwise-tuning.json")) {
            Err(Error::BadTuning { path, .. }) => assert!(path.contains("nonexistent")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_gpu_plans_with_the_first_named_table_of_its_own_else_the_shipped_one() {
        let dir = std::env::temp_dir().join(format!("bankwise-resolve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let h100 = DeviceInfo::example_sm90();
        let h200 = DeviceInfo { memory_bytes: 150_000_000_000, ..h100.clone() };
        let mut tuned = H100.clone();
        tuned.memory.reduce_blocks_per_sm = 12;
        let mut other = H100.clone();
        other.key = GpuKey::of(&h200);
        let (mine, theirs) = (dir.join("h100.json"), dir.join("h200.json"));
        std::fs::write(&mine, tuned.to_json()).unwrap();
        std::fs::write(&theirs, other.to_json()).unwrap();
        let paths = std::env::join_paths([&theirs, &mine]).unwrap();
        assert_eq!(resolve_in(Some(&paths), &h100).unwrap().memory.reduce_blocks_per_sm, 12);
        assert_eq!(resolve_in(Some(&paths), &h200).unwrap().key, other.key);
        // A GPU no file names: its shipped table.
        assert!(std::ptr::eq(resolve_in(None, &h100).unwrap(), &H100));
        assert!(std::ptr::eq(resolve_in(None, &h200).unwrap(), &crate::tuning::h200::H200));
        let only_theirs = theirs.as_os_str();
        assert!(std::ptr::eq(resolve_in(Some(only_theirs), &h100).unwrap(), &H100));
        // A file that is not a table is an error, not passed over.
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{}").unwrap();
        assert!(matches!(resolve_in(Some(bad.as_os_str()), &h100), Err(Error::BadTuning { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_is_read_once_and_its_table_kept() {
        let dir = std::env::temp_dir().join(format!("bankwise-tuning-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h100.json");
        let mut mine = H100.clone();
        mine.memory.copy_blocks_per_sm = 7;
        std::fs::write(&path, mine.to_json()).unwrap();
        let first = loaded(&path).unwrap();
        assert_eq!(first.memory.copy_blocks_per_sm, 7);
        std::fs::write(&path, "not json").unwrap();
        assert!(std::ptr::eq(loaded(&path).unwrap(), first), "read again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
