//! A tile's path through `transpose_tiled` and `transpose_padded` (`f32`): read as a row of the
//! source, written as a row of the shared tile, read down a column of it, written as a row of
//! the destination. The two shared tiles side by side, each cell of the written row and the
//! read column labelled with its bank, the column's cost from [`crate::analyze`].

use bankwise_layout::transpose::{TILE, TileLayout};

use super::{ACCENT, Anchor, CONFLICT, Canvas, EMPTY, HIGHLIGHT, IDLE, SERVED, STROKE, plural};
use crate::{Access, Geometry, Width, analyze};

/// Bytes of an `f32`, the element the picture follows.
const ELEM: u32 = 4;

/// The word offsets warp 0 touches in `layout` when lane `i` takes element `at(i)`, and their
/// cost in wavefronts.
fn cost(layout: TileLayout, at: impl Fn(u32) -> (u32, u32)) -> (Vec<u32>, u32) {
    let offsets: Vec<u32> = (0..TILE).map(|i| layout.offset(at(i).0, at(i).1, ELEM)).collect();
    let access = Access::from_fn(Width::B4, u32::MAX, |lane| u64::from(offsets[lane as usize] * ELEM));
    let analysis = analyze(&access, &Geometry::MODERN).expect("a 4-byte warp access is always modelled");
    (offsets, analysis.wavefronts())
}

/// The picture, following tile row `row` and tile column `col`.
pub(super) fn picture(row: u32, col: u32) -> String {
    let cell = 14.0;
    let tiles =
        [(TileLayout::Plain, "transpose_tiled: tile[32][32]"), (TileLayout::Padded, "transpose_padded: tile[32][33]")];
    let left = 34.0;
    let gap = 46.0;
    let widths: Vec<f64> = tiles.iter().map(|(l, _)| cell * f64::from(l.pitch(ELEM))).collect();
    let width = (left + widths[0] + gap + widths[1] + 20.0) as u32;
    let mut c = Canvas::new(width);
    let mut y = c.title(&format!("The path of a {TILE} × {TILE} f32 tile through the tiled and the padded transpose"));
    // The matrices: the tile is (1, 2) of src and lands as (2, 1) of dst.
    let (m, n) = (18.0, 4);
    let top = y + 8.0;
    for (k, (name, (tr, tc))) in [("src", (1, 2)), ("dst", (2, 1))].into_iter().enumerate() {
        let x0 = 10.0 + k as f64 * (m * f64::from(n) + 80.0);
        for r in 0..n {
            for q in 0..n {
                let fill = if (r, q) == (tr, tc) { HIGHLIGHT } else { EMPTY };
                c.rect("tile", x0 + m * f64::from(q), top + m * f64::from(r), m, m, fill, STROKE);
            }
        }
        c.text(x0, top + m * f64::from(n) + 14.0, &format!("{name}: tile ({tr}, {tc})"), Anchor::Start, 11);
    }
    let mid = top + m * f64::from(n) / 2.0;
    c.arrow((10.0 + m * f64::from(n) + 10.0, mid), (10.0 + m * f64::from(n) + 70.0, mid), "#333");
    c.text(10.0 + m * f64::from(n) + 40.0, mid - 6.0, "shared", Anchor::Middle, 11);
    let steps = [
        format!("1. A warp reads row r of the tile from src: {TILE} consecutive words, coalesced."),
        format!("2. It writes them to row r of the shared tile (below, row {row}): lane i to column i."),
        format!(
            "3. After the barrier, a warp reads column c of the shared tile (below, column {col}): lane i reads row i."
        ),
        "4. It writes those as row c of the tile's place in dst: coalesced again.".to_string(),
        "Numbers in cells: the bank of that word, (word offset) % 32.".to_string(),
    ];
    let text_x = 10.0 + 2.0 * m * f64::from(n) + 130.0;
    let below_steps = c.paragraph(text_x, top + 10.0, &steps);
    y = below_steps.max(top + m * f64::from(n) + 22.0) + 14.0;
    let mut x0 = left;
    let mut verdicts = Vec::new();
    for ((layout, name), w) in tiles.into_iter().zip(&widths) {
        c.text(x0, y, name, Anchor::Start, 11);
        let ty = y + 20.0;
        let pitch = layout.pitch(ELEM);
        for q in (0..TILE).step_by(4).chain((pitch > TILE).then_some(TILE)) {
            c.text(x0 + cell * (f64::from(q) + 0.5), ty - 3.0, &q.to_string(), Anchor::Middle, 9);
        }
        for r in (0..TILE).step_by(4) {
            c.text(x0 - 4.0, ty + cell * f64::from(r) + 10.0, &r.to_string(), Anchor::End, 9);
        }
        let (column, column_waves) = cost(layout, |i| (i, col));
        let (_, row_waves) = cost(layout, |i| (row, i));
        let column_conflicts = column_waves > 1;
        // The tile's ground and grid in a few shapes; only the coloured cells are drawn one by one.
        let (tw, th) = (cell * f64::from(pitch), cell * f64::from(TILE));
        c.rect("tile", x0, ty, tw, th, EMPTY, "#ccc");
        for k in 1..pitch.max(TILE) {
            let d = cell * f64::from(k);
            if k < pitch {
                c.line((x0 + d, ty), (x0 + d, ty + th), "#ddd", 1.0);
            }
            if k < TILE {
                c.line((x0, ty + d), (x0 + tw, ty + d), "#ddd", 1.0);
            }
        }
        for r in 0..TILE {
            for q in 0..pitch {
                let (x, yy) = (x0 + cell * f64::from(q), ty + cell * f64::from(r));
                let fill = if q >= TILE {
                    IDLE
                } else if q == col {
                    if column_conflicts { CONFLICT } else { SERVED }
                } else if r == row {
                    HIGHLIGHT
                } else {
                    continue;
                };
                c.rect("cell", x, yy, cell, cell, fill, "#ccc");
                if q < TILE {
                    let bank = layout.offset(r, q, ELEM) % 32;
                    c.text(x + cell / 2.0, yy + 10.0, &bank.to_string(), Anchor::Middle, 8);
                }
            }
        }
        c.outline(x0 + cell * f64::from(col), ty, cell, cell * f64::from(TILE), ACCENT, 1.5);
        let banks: std::collections::BTreeSet<u32> = column.iter().map(|o| o % 32).collect();
        verdicts.push((x0, row_waves, column_waves, banks.len() as u32, pitch));
        x0 += w + gap;
    }
    y += 20.0 + cell * f64::from(TILE) + 16.0;
    let mut bottom = y;
    for (x0, row_waves, column_waves, banks, pitch) in verdicts {
        let lines = [
            format!("row {row} written: {}", plural(row_waves, "wavefront")),
            format!("column {col} read: lane i at word {pitch}i + {col},"),
            format!(
                "{} → {}{}",
                if banks == 1 { "all in one bank".to_string() } else { format!("{banks} banks, one lane each") },
                plural(column_waves, "wavefront"),
                if column_waves > 1 { format!(" ({column_waves}-way conflict)") } else { " (conflict-free)".into() }
            ),
        ];
        for (i, line) in lines.iter().enumerate() {
            c.text(x0, y + 15.0 * i as f64, line, Anchor::Start, 11);
        }
        bottom = bottom.max(y + 15.0 * lines.len() as f64);
    }
    let y = c.legend(
        bottom + 4.0,
        &[
            (HIGHLIGHT, "row written (step 2)"),
            (CONFLICT, "column read, a replay per lane"),
            (SERVED, "column read, one wavefront"),
            (IDLE, "padding, never read"),
        ],
    );
    c.finish(y)
}

#[cfg(test)]
mod tests {
    use super::super::tests::check_text_fits;
    use super::*;

    #[test]
    fn the_plain_column_conflicts_and_the_padded_one_does_not() {
        assert_eq!(cost(TileLayout::Plain, |i| (i, 3)).1, 32);
        assert_eq!(cost(TileLayout::Padded, |i| (i, 3)).1, 1);
        assert_eq!(cost(TileLayout::Plain, |i| (5, i)).1, 1);
        let svg = picture(5, 3);
        check_text_fits("transpose", &svg);
        // Per tile the column and the rest of the row; the padded one's extra column too.
        assert_eq!(svg.matches(r#"class="cell""#).count(), (32 + 31) * 2 + 32);
        assert!(svg.contains("all in one bank → 32 wavefronts (32-way conflict)"), "{svg}");
        assert!(svg.contains("32 banks, one lane each → 1 wavefront (conflict-free)"), "{svg}");
        assert!(svg.contains("lane i at word 33i + 3,"));
        // Padded column 3: row 31's word 31·33 + 3 = 1026 is in bank 2.
        assert_eq!(TileLayout::Padded.offset(31, 3, 4) % 32, 2);
    }
}
