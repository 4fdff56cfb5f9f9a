//! A ladder as an SVG bar chart: one group of bars per rung (one bar per series, e.g. element
//! type), each bar a percentage of the baseline measured in the same run (the driver's copy,
//! or cuBLAS). Drawn by hand: a few rectangles and labels need no plotting crate.

/// One chart: its title lines, the series (name and colour) and the rungs' percentages.
pub struct Chart {
    /// What is drawn, e.g. "transpose ladder, 8192²: % of the driver's copy in the same run".
    pub title: String,
    /// The device and date.
    pub subtitle: String,
    /// Each series' name and colour, in bar order.
    pub series: Vec<(&'static str, &'static str)>,
    /// Each rung's label and its percentage in each series (`None`: not measured).
    pub rungs: Vec<(String, Vec<Option<f64>>)>,
}

/// Colours of the first and second series.
pub const BLUE: &str = "#1f77b4";
pub const ORANGE: &str = "#ff7f0e";

const FONT_PX: f64 = 11.0;
/// Width of one monospace character at [`FONT_PX`], generously.
const CHAR_PX: f64 = 7.0;

impl Chart {
    /// The SVG; `None` where no rung has a value.
    pub fn svg(&self) -> Option<String> {
        let values: Vec<f64> = self.rungs.iter().flat_map(|(_, v)| v.iter().flatten().copied()).collect();
        if values.is_empty() {
            return None;
        }
        // The axis runs to 100% or, where a rung beats the baseline, the next 25% above it.
        let max = values.iter().fold(100.0f64, |m, &v| m.max(v));
        let axis_max = (max / 25.0).ceil() * 25.0;
        let label_w = 16.0 + CHAR_PX * self.rungs.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0) as f64;
        let (bar_w, bar_h, top) = (400.0, 12.0, 48.0);
        let group_h = self.series.len() as f64 * bar_h + 8.0;
        let height = top + self.rungs.len() as f64 * group_h + 30.0;
        let title_w = 16.0 + CHAR_PX * self.title.chars().count().max(self.subtitle.chars().count()) as f64;
        let width = (label_w + bar_w + 60.0).max(title_w);
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"monospace\" font-size=\"{FONT_PX}\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"8\" y=\"16\">{}</text>\n<text x=\"8\" y=\"30\">{}</text>\n",
            escape(&self.title),
            escape(&self.subtitle)
        );
        let mut x = 8.0;
        for (name, colour) in &self.series {
            svg += &format!("<text x=\"{x}\" y=\"43\" fill=\"{colour}\">■ {}</text>", escape(name));
            x += CHAR_PX * (name.chars().count() + 4) as f64;
        }
        svg += "\n";
        for (i, (label, percents)) in self.rungs.iter().enumerate() {
            let y = top + i as f64 * group_h;
            svg += &format!("<text x=\"8\" y=\"{:.1}\">{}</text>\n", y + bar_h + 3.0, escape(label));
            for (j, (p, (_, colour))) in percents.iter().zip(&self.series).enumerate() {
                let Some(p) = *p else { continue };
                let (by, w) = (y + j as f64 * bar_h, bar_w * p.clamp(0.0, axis_max) / axis_max);
                svg += &format!(
                    "<rect x=\"{label_w:.1}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>\
                     <text x=\"{:.1}\" y=\"{:.1}\">{p:.1}%</text>\n",
                    bar_h - 1.0,
                    label_w + w + 4.0,
                    by + bar_h - 2.0
                );
            }
        }
        let axis_y = top + self.rungs.len() as f64 * group_h + 4.0;
        let mut p = 0.0;
        while p <= axis_max {
            let x = label_w + bar_w * p / axis_max;
            svg += &format!(
                "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{axis_y}\" stroke=\"#ccc\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{p}%</text>\n",
                axis_y + 14.0
            );
            p += 25.0;
        }
        svg += "</svg>\n";
        Some(svg)
    }
}

/// `s` with XML's special characters escaped.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(rungs: Vec<(String, Vec<Option<f64>>)>) -> Chart {
        Chart {
            title: "a ladder: % of <copy>".into(),
            subtitle: "H100, 2026-11-23".into(),
            series: vec![("f32", BLUE), ("f64", ORANGE)],
            rungs,
        }
    }

    #[test]
    fn bars_are_percentages_of_an_axis_that_reaches_past_the_fastest() {
        let svg =
            chart(vec![("naive".into(), vec![Some(20.0), None]), ("tuned".into(), vec![Some(97.0), Some(110.0)])])
                .svg()
                .unwrap();
        // The axis runs to 125%: 20% is 64 of the 400 pixels, 110% is 352.
        assert!(svg.contains("width=\"64.0\"") && svg.contains(">20.0%<"), "{svg}");
        assert!(svg.contains("width=\"352.0\"") && svg.contains(">110.0%<"), "{svg}");
        assert!(svg.contains(">125%<") && !svg.contains(">150%<"), "{svg}");
        assert_eq!(svg.matches("<rect x=").count(), 3, "a missing value draws no bar");
        assert!(svg.contains("a ladder: % of &lt;copy&gt;"));
        assert!(chart(vec![("x".into(), vec![None, None])]).svg().is_none());
    }

    #[test]
    fn the_picture_is_as_wide_as_its_longest_title() {
        let mut c = chart(vec![("x".into(), vec![Some(50.0), None])]);
        c.title = "t".repeat(120);
        let svg = c.svg().unwrap();
        let width: f64 = svg.split("width=\"").nth(1).and_then(|s| s.split('"').next()).unwrap().parse().unwrap();
        assert!(width >= 120.0 * CHAR_PX, "{width}");
    }
}
