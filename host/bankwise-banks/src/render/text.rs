//! The bank map for terminals: one column per bank, one row per wavefront, optionally coloured.

use std::fmt::Write as _;

use super::{cell_text, summary};
use crate::{Analysis, Geometry};

const RED: &str = "\x1b[31m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// What the rows, columns, cells and colours of a bank map mean, in a few lines (indented by
/// two spaces after the first). The colour line only with `color`, its colour names coloured.
pub fn legend_text(color: bool) -> String {
    let mut s = String::from(
        "legend: columns are banks; row tT.wW is wavefront W of transaction T (the request, or its half- or\n  \
         quarter-warp piece; W ≥ 1 is a replay: a conflict); a cell is the lane that bank serves, n* a word\n  \
         broadcast to lane n and others (n the lowest), · an idle bank\n",
    );
    if color {
        let _ =
            writeln!(s, "  colours: {RED}red row{RESET} = a replay (conflict), {CYAN}cyan cell{RESET} = a broadcast");
    }
    s
}

/// A bank map for terminals: one column per bank, one row per wavefront, each cell the lowest
/// lane served (`*` = broadcast to several lanes, `·` = idle bank), then [`legend_text`] and
/// [`summary`]. With `color`, replays (conflict rows) are red and broadcast cells cyan.
pub fn render_text(analysis: &Analysis, geometry: &Geometry, color: bool) -> String {
    let mut out = map_rows(analysis, geometry, color);
    out.push_str(&legend_text(color));
    out.push_str(&summary(analysis, geometry));
    out.push('\n');
    out
}

/// [`render_text`] without the legend: the map, then [`summary`], for a page that draws several
/// things and prints [`legend_text`] once.
pub fn render_map_text(analysis: &Analysis, geometry: &Geometry, color: bool) -> String {
    let mut out = map_rows(analysis, geometry, color);
    out.push_str(&summary(analysis, geometry));
    out.push('\n');
    out
}

/// The map's header, rule and one row per wavefront.
fn map_rows(analysis: &Analysis, geometry: &Geometry, color: bool) -> String {
    let col = 4;
    let mut out = String::new();
    let _ = write!(out, "{:>8} │", "wave");
    for b in 0..geometry.banks {
        let _ = write!(out, "{b:>col$}");
    }
    out.push('\n');
    let _ = writeln!(out, "{}┼{}", "─".repeat(9), "─".repeat(col * geometry.banks as usize));
    for w in &analysis.waves {
        let label = format!("t{}.w{}", w.transaction, w.index);
        let conflict = color && w.is_conflict();
        if conflict {
            out.push_str(RED);
        }
        let _ = write!(out, "{label:>8} │");
        for b in 0..geometry.banks {
            let (text, broadcast) = cell_text(w.cell(b));
            let pad = col.saturating_sub(text.chars().count());
            out.push_str(&" ".repeat(pad));
            if color && broadcast {
                let _ = write!(out, "{CYAN}{text}{RESET}");
                if conflict {
                    out.push_str(RED);
                }
            } else {
                out.push_str(&text);
            }
        }
        if conflict {
            out.push_str(RESET);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::run;
    use crate::{Access, Width};

    #[test]
    fn text_rendering() {
        let a = run(&Access::strided(Width::B4, 0, 32), &Geometry::MODERN);
        let plain = render_text(&a, &Geometry::MODERN, false);
        // Header and rule, 32 wavefronts, the 3-line legend, the summary.
        assert_eq!(plain.lines().count(), 2 + 32 + 3 + 1);
        assert!(plain.ends_with(
            "32 lanes, 4-byte accesses: 1 transaction, 32 wavefronts → 32-way conflict (31 extra wavefronts)\n"
        ));
        assert!(plain.contains(&legend_text(false)));
        assert!(!plain.contains('\x1b'));
        let colored = render_text(&a, &Geometry::MODERN, true);
        assert_eq!(colored.matches(RED).count(), 31 + 1, "every replay row is red, and the legend says so");
        assert!(colored.contains(&legend_text(true)));
        let b = run(&Access::strided(Width::B4, 12, 0), &Geometry::HALF_WARP_16);
        let text = render_text(&b, &Geometry::HALF_WARP_16, true);
        assert!(text.contains(&format!("{CYAN}0*{RESET}")));
        assert!(text.contains("conflict-free; best case shown, worst case 2 wavefronts"));
    }

    #[test]
    fn the_map_alone_is_the_full_rendering_less_its_legend() {
        let a = run(&Access::strided(Width::B4, 0, 32), &Geometry::MODERN);
        for color in [false, true] {
            let map = render_map_text(&a, &Geometry::MODERN, color);
            assert_eq!(map.lines().count(), 2 + 32 + 1, "header, rule, 32 wavefronts, the summary");
            assert!(!map.contains("legend"));
            assert_eq!(map, render_text(&a, &Geometry::MODERN, color).replace(&legend_text(color), ""));
        }
    }

    #[test]
    fn the_text_legend_explains_labels_cells_and_colours() {
        let plain = legend_text(false);
        assert_eq!(plain.lines().count(), 3);
        for needle in ["columns are banks", "tT.wW", "wavefront W of transaction T", "replay", "n*", "· an idle bank"]
        {
            assert!(plain.contains(needle), "{needle}: {plain}");
        }
        assert!(!plain.contains("colours"), "no colour line without colours");
        let colored = legend_text(true);
        assert!(colored.starts_with(&plain));
        assert!(colored.contains(&format!("{RED}red row{RESET} = a replay")));
        assert!(colored.contains(&format!("{CYAN}cyan cell{RESET} = a broadcast")));
        assert!(plain.lines().all(|l| l.chars().count() <= 9 + 4 * 32), "no wider than a 32-bank map");
    }
}
