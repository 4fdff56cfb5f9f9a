//! Bank maps for people: the one-line [`summary`] of an [`Analysis`], and a map of which bank
//! serves which lane in each wavefront, for terminals ([`text`]) or as an SVG ([`svg`]); and the
//! guide's concept pictures ([`concepts`]) in the same style.

pub(crate) mod concepts;
pub(crate) mod svg;
pub(crate) mod text;

use std::fmt::Write as _;

use crate::{Analysis, BankCell, Broadcast, Geometry};

/// One line: how many lanes, transactions and wavefronts, and the verdict.
pub fn summary(analysis: &Analysis, geometry: &Geometry) -> String {
    let plural = |n: u32, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let a = analysis;
    let mut s = format!("{}, {}-byte accesses: ", plural(a.active_lanes, "lane"), a.width.bytes());
    if a.active_lanes == 0 {
        s.push_str("nothing to do");
        return s;
    }
    let _ = write!(s, "{}, {} → ", plural(a.transactions(), "transaction"), plural(a.wavefronts(), "wavefront"));
    if a.is_conflict_free() {
        s.push_str("conflict-free");
    } else {
        let extra = plural(a.conflicts(), "wavefront").replacen(' ', " extra ", 1);
        let _ = write!(s, "{}-way conflict ({extra})", a.degree());
    }
    let (best, worst) = a.best_and_worst();
    if geometry.broadcast == Broadcast::OneWordPerCycle {
        let bound = if a.worst_exact { "" } else { "at least " };
        let _ = write!(s, "; best case shown, worst case {bound}{}", plural(worst, "wavefront"));
        debug_assert!(best <= worst);
    }
    s
}

fn cell_text(cell: Option<&BankCell>) -> (String, bool) {
    match cell {
        None => ("·".to_string(), false),
        Some(c) => {
            let first = c.lanes.first().copied().unwrap_or(0);
            if c.lanes.len() > 1 { (format!("{first}*"), true) } else { (first.to_string(), false) }
        }
    }
}
