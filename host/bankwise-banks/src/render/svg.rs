//! The bank map as a standalone SVG, its text wrapped to the picture's width.

use std::fmt::Write as _;

use super::{cell_text, summary};
use crate::{Analysis, Geometry};

/// Splits `text` at spaces into lines of at most `max_chars` characters (a longer word gets a
/// line of its own).
pub(super) fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max_chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Monospace advance width in pixels per character at font size `px` (0.6 em, rounded up).
pub(super) fn advance(px: u32) -> f64 {
    0.61 * f64::from(px)
}

pub(super) fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {} // not allowed in XML 1.0
            c => out.push(c),
        }
    }
    out
}

/// The bank map as a standalone SVG: bank columns × wavefront rows (one `class="cell"` rect
/// each), lane numbers in cells, conflict rows and broadcast cells shaded, a legend, a note on
/// the labels and the [`summary`]. `title` and the notes wrap at the map's width (at least
/// 540 pixels), so none runs past the edge.
pub fn render_svg(analysis: &Analysis, geometry: &Geometry, title: &str) -> String {
    let (cw, ch, left) = (30u32, 22u32, 70u32);
    let rows = analysis.waves.len() as u32;
    // At least wide enough for the colour legend; the title and the notes below the map wrap.
    let width = (left + cw * geometry.banks + 20).max(540);
    let fits = |px: u32| ((f64::from(width - 20) / advance(px)).floor() as usize).max(1);
    let title_lines = wrap(title, fits(14));
    let top = 56 + 18 * (title_lines.len() as u32 - 1);
    let mut notes = wrap(
        "columns: banks; row tT.wW: wavefront W of transaction T (W ≥ 1: a replay); cell: the lane served, \
         n* a word broadcast to lane n and others",
        fits(11),
    );
    notes.extend(wrap(&summary(analysis, geometry), fits(11)));
    let height = top + ch * rows + 52 + 16 * notes.len() as u32;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#);
    for (i, line) in title_lines.iter().enumerate() {
        let y = 20 + 18 * i as u32;
        let _ = writeln!(
            s,
            r#"<text class="title" x="10" y="{y}" font-size="14" font-weight="bold">{}</text>"#,
            escape_xml(line)
        );
    }
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">bank</text>"#, left - 6, top - 8);
    for b in 0..geometry.banks {
        let x = left + b * cw + cw / 2;
        let _ = writeln!(s, r#"<text x="{x}" y="{}" text-anchor="middle">{b}</text>"#, top - 8);
    }
    for (r, w) in analysis.waves.iter().enumerate() {
        let y = top + r as u32 * ch;
        let label = format!("t{}.w{}", w.transaction, w.index);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{label}</text>"#, left - 6, y + 15);
        for b in 0..geometry.banks {
            let x = left + b * cw;
            let cell = w.cell(b);
            let (text, broadcast) = cell_text(cell);
            let fill = match (cell.is_some(), broadcast, w.is_conflict()) {
                (_, true, _) => "#b2ebf2",
                (true, false, true) => "#ffcdd2",
                (true, false, false) => "#e8f5e9",
                (false, _, true) => "#fff0f0",
                (false, _, false) => "#fafafa",
            };
            let _ = writeln!(
                s,
                r##"<rect class="cell" x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" stroke="#999"/>"##
            );
            if cell.is_some() {
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                    x + cw / 2,
                    y + 15,
                    escape_xml(&text)
                );
            }
        }
        if w.is_conflict() {
            let _ = writeln!(
                s,
                r##"<rect class="conflict-row" x="{left}" y="{y}" width="{}" height="{ch}" fill="none" stroke="#d32f2f" stroke-width="2"/>"##,
                cw * geometry.banks
            );
        }
    }
    let ly = top + rows * ch + 16;
    let legend = [("#e8f5e9", "served"), ("#b2ebf2", "broadcast (n*)"), ("#ffcdd2", "conflict (replay)")];
    for (i, (fill, name)) in legend.iter().enumerate() {
        let x = 10 + i as u32 * 150;
        let _ = writeln!(
            s,
            r##"<rect class="legend" x="{x}" y="{ly}" width="14" height="14" fill="{fill}" stroke="#999"/>"##
        );
        let _ = writeln!(s, r#"<text x="{}" y="{}">{name}</text>"#, x + 20, ly + 11);
    }
    for (i, line) in notes.iter().enumerate() {
        let y = ly + 36 + 16 * i as u32;
        let _ = writeln!(s, r#"<text class="note" x="10" y="{y}">{}</text>"#, escape_xml(line));
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::named_patterns;
    use crate::testing::run;

    /// Every line of text of every named pattern's SVG (title included) fits its width, at the
    /// monospace advance of 0.6 em.
    #[test]
    fn svg_text_fits_its_width() {
        let attr = |tag: &str, name: &str| -> u32 {
            let start = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            tag[start..].split('"').next().unwrap().parse().unwrap()
        };
        let mut wrapped = 0;
        for p in named_patterns() {
            let a = run(&p.access, &p.geometry);
            let title = format!("{}: {}", p.name, p.description);
            let svg = render_svg(&a, &p.geometry, &title);
            let width = attr(svg.lines().next().unwrap(), "width");
            let titles: Vec<&str> = svg.lines().filter(|l| l.contains(r#"class="title""#)).collect();
            wrapped += usize::from(titles.len() > 1);
            for line in svg.lines().filter(|l| l.starts_with("<text")) {
                let px = if line.contains(r#"font-size="14""#) { 14 } else { 11 };
                let text = line.split('>').nth(1).unwrap().trim_end_matches("</text");
                let chars = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").chars().count();
                let x = attr(line, "x");
                let end = if line.contains(r#"text-anchor="end""#) || line.contains("middle") {
                    f64::from(x)
                } else {
                    f64::from(x) + chars as f64 * 0.6 * f64::from(px)
                };
                assert!(end <= f64::from(width), "{}: {line:?} ends at {end} > {width}", p.name);
            }
            let joined: Vec<String> =
                titles.iter().map(|l| l.split('>').nth(1).unwrap().trim_end_matches("</text").to_string()).collect();
            assert_eq!(joined.join(" "), escape_xml(&title), "{}: the wrapped title keeps every word", p.name);
        }
        assert!(wrapped > 0, "the long titles (lds128-case5) wrap");
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("toolongword x", 4), vec!["toolongword", "x"]);
        assert_eq!(wrap("", 4), vec![""]);
    }

    #[test]
    fn svg_rendering() {
        let p = named_patterns().into_iter().find(|p| p.name == "lds128-case5").expect("exists");
        let a = run(&p.access, &p.geometry);
        let svg = render_svg(&a, &p.geometry, "case <5> & \"friends\"");
        assert!(svg.starts_with("<svg"));
        assert!(svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="cell""#).count(), 32 * 4);
        assert_eq!(svg.matches(r#"class="conflict-row""#).count(), 2);
        assert!(svg.contains("case &lt;5&gt; &amp; &quot;friends&quot;"));
        assert!(!svg.contains("<5>"));
        assert_eq!(svg.matches('<').count(), svg.matches('>').count());
    }
}
