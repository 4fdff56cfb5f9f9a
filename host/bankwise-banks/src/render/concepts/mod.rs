//! The guide's concept pictures, drawn in the bank maps' style (white ground, generic monospace
//! font, the same fills for served, conflicting and broadcast words) so that they need no
//! external font and read alike: a grid of blocks and one block's warps ([`grid`]), a tile's
//! path through the tiled and padded transposes ([`transpose`]) and a reduction tree
//! ([`reduction`]). Their numbers come from `bankwise-layout` (the kernels' own index
//! functions) and from [`crate::analyze`], so a picture shows what the code does.
//!
//! `bankwise banks --concepts DIR` writes them; the test `tests/concept_pictures.rs` fails when
//! the copies in `guide/chapters/img/` differ from what is drawn here.

mod grid;
mod reduction;
mod transpose;

use std::fmt::Write as _;

use super::svg::{advance, escape_xml, wrap};

/// Fill of a word served in the first wavefront (as in the bank maps).
const SERVED: &str = "#e8f5e9";
/// Fill of a word that needs a replay (as in the bank maps).
const CONFLICT: &str = "#ffcdd2";
/// Fill of a cell nothing touches (as in the bank maps).
const EMPTY: &str = "#fafafa";
/// Outline of cells (as in the bank maps).
const STROKE: &str = "#999";
/// Fill of an idle or unused cell.
const IDLE: &str = "#e0e0e0";
/// Fill of a highlighted element (a block, a written row).
const HIGHLIGHT: &str = "#bbdefb";
/// Outline of a highlighted element.
const ACCENT: &str = "#d32f2f";

/// One concept picture of the guide: the file name it has in `guide/chapters/img/` and its SVG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConceptPicture {
    /// File name, e.g. `concept-grid-warps.svg`.
    pub file: &'static str,
    /// The standalone SVG document.
    pub svg: String,
}

/// Every concept picture of the guide, drawn now.
pub fn concept_pictures() -> Vec<ConceptPicture> {
    vec![
        ConceptPicture { file: "concept-grid-warps.svg", svg: grid::picture((3, 2), (64, 2), (1, 1), (5, 1)) },
        ConceptPicture { file: "concept-transpose-tile.svg", svg: transpose::picture(5, 3) },
        ConceptPicture { file: "concept-reduction-tree.svg", svg: reduction::picture(64) },
    ]
}

/// Horizontal anchor of a text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Start,
    Middle,
    End,
}

/// An SVG under construction: shapes and text in drawing order, then [`Canvas::finish`].
struct Canvas {
    width: u32,
    body: String,
}

impl Canvas {
    fn new(width: u32) -> Canvas {
        Canvas { width, body: String::new() }
    }

    /// Characters of font size `px` that fit between `x` and the right margin.
    fn fits(&self, x: f64, px: u32) -> usize {
        ((f64::from(self.width) - 10.0 - x) / advance(px)).floor().max(1.0) as usize
    }

    /// The title, wrapped to the width, from y = 20; returns the y below it.
    fn title(&mut self, title: &str) -> f64 {
        let lines = wrap(title, self.fits(10.0, 14));
        for (i, line) in lines.iter().enumerate() {
            let y = 20 + 18 * i;
            let _ = writeln!(
                self.body,
                r#"<text class="title" x="10" y="{y}" font-size="14" font-weight="bold">{}</text>"#,
                escape_xml(line)
            );
        }
        20.0 + 18.0 * lines.len() as f64
    }

    #[allow(clippy::too_many_arguments)] // a rectangle's geometry and its two colours
    fn rect(&mut self, class: &str, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect class="{class}" x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}"/>"#
        );
    }

    /// A rectangle outline of `px` pixels, drawn over what is there.
    fn outline(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str, px: f64) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="{colour}" stroke-width="{px}"/>"#
        );
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), colour: &str, px: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{px}"/>"#
        );
    }

    /// A line from `from` to `to` with an arrow head at `to`.
    fn arrow(&mut self, from: (f64, f64), to: (f64, f64), colour: &str) {
        self.line(from, to, colour, 1.5);
        let (dx, dy) = (to.0 - from.0, to.1 - from.1);
        let len = dx.hypot(dy).max(1.0);
        let (ux, uy) = (dx / len * 7.0, dy / len * 7.0);
        let (a, b) = ((to.0 - ux - uy * 0.5, to.1 - uy + ux * 0.5), (to.0 - ux + uy * 0.5, to.1 - uy - ux * 0.5));
        let _ = writeln!(
            self.body,
            r#"<polygon points="{},{} {},{} {},{}" fill="{colour}"/>"#,
            to.0,
            to.1,
            round(a.0),
            round(a.1),
            round(b.0),
            round(b.1)
        );
    }

    /// Text at font size `px` (11 unless told), its baseline at `y`.
    fn text(&mut self, x: f64, y: f64, text: &str, anchor: Anchor, px: u32) {
        let anchor = match anchor {
            Anchor::Start => "",
            Anchor::Middle => r#" text-anchor="middle""#,
            Anchor::End => r#" text-anchor="end""#,
        };
        let size = if px == 11 { String::new() } else { format!(r#" font-size="{px}""#) };
        let _ = writeln!(self.body, r#"<text x="{x}" y="{y}"{anchor}{size}>{}</text>"#, escape_xml(text));
    }

    /// Lines of 11-pixel text from `y`, each wrapped to the width; returns the y below them.
    fn paragraph(&mut self, x: f64, y: f64, lines: &[String]) -> f64 {
        let mut y = y;
        for line in lines {
            for part in wrap(line, self.fits(x, 11)) {
                self.text(x, y, &part, Anchor::Start, 11);
                y += 15.0;
            }
        }
        y
    }

    /// Legend entries (fill, meaning) in a row from `y`; returns the y below it.
    fn legend(&mut self, y: f64, entries: &[(&str, &str)]) -> f64 {
        let mut x = 10.0;
        let mut y = y;
        for (fill, name) in entries {
            let w = 20.0 + name.chars().count() as f64 * advance(11) + 24.0;
            if x + w > f64::from(self.width) - 10.0 {
                (x, y) = (10.0, y + 20.0);
            }
            self.rect("legend", x, y, 14.0, 14.0, fill, STROKE);
            self.text(x + 20.0, y + 11.0, name, Anchor::Start, 11);
            x += w;
        }
        y + 22.0
    }

    fn finish(self, height: f64) -> String {
        let (width, height) = (self.width, height.ceil() as u32);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"11\">\n\
             <rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n{}</svg>",
            self.body
        )
    }
}

/// Rounds to a hundredth, so that coordinates print short and the same everywhere.
fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// `n word` or `n words`.
fn plural(n: u32, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks that every `<text>` of `svg` ends inside the picture (at the monospace advance of
    /// 0.6 em), that tags balance, and that no character needs more than a basic monospace font
    /// (nothing past U+2FFF: no CJK).
    pub(crate) fn check_text_fits(name: &str, svg: &str) {
        let attr = |tag: &str, name: &str| -> f64 {
            let start = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            tag[start..].split('"').next().unwrap().parse().unwrap()
        };
        let width = attr(svg.lines().next().unwrap(), "width");
        for line in svg.lines().filter(|l| l.starts_with("<text")) {
            let px = if line.contains("font-size=") { attr(line, "font-size") } else { 11.0 };
            let text = line.split('>').nth(1).unwrap().trim_end_matches("</text");
            let chars = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").chars().count() as f64;
            let x = attr(line, "x");
            let (start, end) = if line.contains(r#"text-anchor="end""#) {
                (x - chars * 0.6 * px, x)
            } else if line.contains(r#"text-anchor="middle""#) {
                (x - chars * 0.3 * px, x + chars * 0.3 * px)
            } else {
                (x, x + chars * 0.6 * px)
            };
            assert!(start >= 0.0 && end <= width, "{name}: {line:?} spans {start}..{end}, outside 0..{width}");
        }
        assert_eq!(svg.matches('<').count(), svg.matches('>').count(), "{name}");
        assert!(svg.chars().all(|c| (c as u32) < 0x3000), "{name}: a character past U+2FFF");
    }

    #[test]
    fn every_picture_is_legible_and_named_once() {
        let pictures = concept_pictures();
        for p in &pictures {
            assert!(p.file.starts_with("concept-") && p.file.ends_with(".svg"), "{}", p.file);
            assert!(p.svg.starts_with("<svg") && p.svg.ends_with("</svg>"), "{}", p.file);
            check_text_fits(p.file, &p.svg);
        }
        let mut files: Vec<_> = pictures.iter().map(|p| p.file).collect();
        files.dedup();
        assert_eq!(files.len(), 3);
        // Drawing is deterministic: the same SVG twice, so the checked-in copies can be compared.
        assert_eq!(pictures, concept_pictures());
    }

    #[test]
    fn the_canvas_escapes_and_wraps() {
        let mut c = Canvas::new(200);
        let below = c.title("a <title> long enough to wrap at two hundred pixels of width");
        c.text(10.0, 40.0, "a & b", Anchor::Start, 11);
        let svg = c.finish(below + 30.0);
        assert!(svg.contains("&lt;title&gt;") && svg.contains("a &amp; b"));
        assert!(svg.matches(r#"class="title""#).count() > 1, "{svg}");
        check_text_fits("canvas", &svg);
    }
}
