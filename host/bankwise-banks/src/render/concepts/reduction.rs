//! A block's reduction tree with sequential addressing (`reduce_sequential`): at step `s`
//! (half the block, then halving) thread `tid < s` adds `shared[tid + s]` into `shared[tid]`.
//! One row per step, the active threads filled, the idle lanes of a working warp and the warps
//! with no work told apart, each step's threads from `bankwise_layout::reduce::sequential`.

use bankwise_layout::reduce::{WARP, sequential};

use super::{ACCENT, Anchor, Canvas, HIGHLIGHT, IDLE, SERVED, plural};
use crate::{Access, Geometry, Width, analyze};

/// Fill of an idle lane in a warp that still has work (the warp issues the step for it too).
const IDLE_LANE: &str = "#fff8e1";

/// The tree of a block of `threads` threads (a power of two, at least two warps) over as many
/// elements.
pub(super) fn picture(threads: u32) -> String {
    assert!(threads.is_power_of_two() && threads >= 2 * WARP, "{threads} threads");
    let (cell_w, cell_h, row_gap, left, right) = (13.0, 16.0, 24.0, 60.0, 200.0);
    let width = (left + cell_w * f64::from(threads) + right) as u32;
    let warps = threads / WARP;
    let mut c = Canvas::new(width);
    let mut y = c.title(&format!(
        "A reduction tree, sequential addressing: {threads} elements, {threads} threads in {warps} warps"
    ));
    y += 10.0;
    for w in 0..warps {
        let (x0, x1) = (left + cell_w * f64::from(w * WARP), left + cell_w * f64::from((w + 1) * WARP));
        c.line((x0 + 1.0, y + 4.0), (x1 - 1.0, y + 4.0), "#333", 1.5);
        c.text(
            (x0 + x1) / 2.0,
            y,
            &format!("warp {w}: threads {}-{}", w * WARP, (w + 1) * WARP - 1),
            Anchor::Middle,
            11,
        );
    }
    y += 20.0;
    for t in (0..threads).step_by(8) {
        c.text(left + cell_w * (f64::from(t) + 0.5), y, &t.to_string(), Anchor::Middle, 9);
    }
    y += 6.0;
    let x_of = |t: u32| left + cell_w * f64::from(t);
    let label_x = x_of(threads) + 10.0;
    // Row 0: every thread loads one element.
    c.text(left - 6.0, y + 12.0, "load", Anchor::End, 11);
    for t in 0..threads {
        c.rect("cell", x_of(t), y, cell_w, cell_h, HIGHLIGHT, "#bbb");
    }
    c.text(label_x, y + 12.0, &format!("{threads} loads"), Anchor::Start, 11);
    let mut s = threads / 2;
    while s > 0 {
        let above = y + cell_h;
        y += cell_h + row_gap;
        c.text(left - 6.0, y + 12.0, &format!("s = {s}"), Anchor::End, 11);
        let active: Vec<bool> = (0..threads).map(|t| sequential(t, s).is_some()).collect();
        for t in 0..threads {
            let warp_works = (t / WARP * WARP..(t / WARP + 1) * WARP).any(|u| active[u as usize]);
            let fill = match (active[t as usize], warp_works) {
                (true, _) => SERVED,
                (false, true) => IDLE_LANE,
                (false, false) => IDLE,
            };
            c.rect("cell", x_of(t), y, cell_w, cell_h, fill, "#bbb");
            if let Some((into, from)) = sequential(t, s) {
                let centre = |i: u32| x_of(i) + cell_w / 2.0;
                c.line((centre(from), above), (centre(into), y), "#b0bec5", 0.7);
                c.line((centre(into), above), (centre(into), y), "#b0bec5", 0.7);
            }
        }
        let idle = (0..warps).filter(|w| !(w * WARP..(w + 1) * WARP).any(|u| active[u as usize])).count() as u32;
        let count = active.iter().filter(|&&a| a).count() as u32;
        c.text(label_x, y + 12.0, &format!("{count} active, {idle} of {warps} warps idle"), Anchor::Start, 11);
        s /= 2;
    }
    c.outline(x_of(0), y, cell_w, cell_h, ACCENT, 2.0);
    c.text(x_of(0), y + cell_h + 13.0, "shared[0]: the block's sum", Anchor::Start, 11);
    y += cell_h + 34.0;
    // Warp 0's read of shared[tid + s] at the first step, from the model.
    let first = threads / 2;
    let mask = (0..WARP).filter(|&t| sequential(t, first).is_some()).fold(0u32, |m, t| m | 1 << t);
    let read = Access::from_fn(Width::B4, mask, |t| sequential(t, first).map_or(0, |(_, b)| u64::from(b) * 4));
    let waves = analyze(&read, &Geometry::MODERN).expect("a 4-byte access is modelled").wavefronts();
    let notes = [
        "Step s: thread tid < s adds shared[tid + s] into shared[tid], then every thread waits at a barrier."
            .to_string(),
        format!("A full warp reads {WARP} consecutive words (f32): {}.", plural(waves, "wavefront")),
        format!(
            "From s = {} on, the last working warp runs with idle lanes (divergence inside one warp); \
             a warp with no active thread does not add, it only reaches the barriers.",
            WARP / 2
        ),
    ];
    y = c.paragraph(10.0, y, &notes);
    let y = c.legend(
        y + 4.0,
        &[
            (HIGHLIGHT, "element loaded"),
            (SERVED, "active thread: adds"),
            (IDLE_LANE, "idle lane of a working warp"),
            (IDLE, "warp with no work"),
        ],
    );
    c.finish(y)
}

#[cfg(test)]
mod tests {
    use super::super::tests::check_text_fits;
    use super::*;

    #[test]
    fn each_step_halves_the_active_threads() {
        let svg = picture(64);
        check_text_fits("reduction", &svg);
        // The load row and six steps of 64 cells.
        assert_eq!(svg.matches(r#"class="cell""#).count(), 7 * 64);
        assert!(svg.contains("32 active, 1 of 2 warps idle"));
        assert!(svg.contains("16 active, 1 of 2 warps idle"));
        assert!(svg.contains("1 active, 1 of 2 warps idle"));
        assert!(svg.contains(">s = 1<") && !svg.contains(">s = 64<"));
        assert!(svg.contains("consecutive words (f32): 1 wavefront."));
        // Idle lanes of a working warp appear once fewer than 32 threads work: 16 + 24 + 28 + 30 + 31.
        assert_eq!(svg.matches(IDLE_LANE).count(), 16 + 24 + 28 + 30 + 31 + 1);
        let wide = picture(128);
        check_text_fits("reduction 128", &wide);
        assert!(wide.contains("64 active, 2 of 4 warps idle") && wide.contains("32 active, 3 of 4 warps idle"));
    }
}
