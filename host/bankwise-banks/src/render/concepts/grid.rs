//! A grid of blocks, and one block cut into its warps: the hardware numbers a block's threads
//! `threadIdx.x + blockDim.x * threadIdx.y` and gives each run of 32 of those one warp, so a
//! warp is a run of a row when `blockDim.x` is a multiple of 32 and spills into the next row
//! when it is not.

use bankwise_layout::reduce::WARP;

use super::{ACCENT, Anchor, Canvas, HIGHLIGHT, STROKE};

/// Fills of successive warps.
const WARP_FILLS: [&str; 4] = ["#e8f5e9", "#fff3e0", "#e3f2fd", "#f3e5f5"];

/// The grid of `grid` = (x, y) blocks of `block` = (x, y) threads, block `pick` drawn thread
/// by thread with its warps, and thread `thread` of it followed to its warp, lane and global
/// coordinates.
pub(super) fn picture(grid: (u32, u32), block: (u32, u32), pick: (u32, u32), thread: (u32, u32)) -> String {
    let (cell_w, cell_h, left) = (13.0, 26.0, 60.0);
    let width = (left + cell_w * f64::from(block.0) + 20.0).max(620.0) as u32;
    let mut c = Canvas::new(width);
    let threads = block.0 * block.1;
    let warps = threads.div_ceil(WARP);
    let mut y = c.title(&format!(
        "A grid of {} × {} blocks of {} × {} threads, and one block's {} warps",
        grid.0, grid.1, block.0, block.1, warps
    ));
    c.text(10.0, y + 6.0, &format!("the grid: gridDim = ({}, {})", grid.0, grid.1), Anchor::Start, 11);
    let (bw, bh, top) = (128.0, 40.0, y + 16.0);
    for by in 0..grid.1 {
        for bx in 0..grid.0 {
            let (x0, y0) = (10.0 + f64::from(bx) * (bw + 8.0), top + f64::from(by) * (bh + 8.0));
            let fill = if (bx, by) == pick { HIGHLIGHT } else { "#fafafa" };
            c.rect("block", x0, y0, bw, bh, fill, STROKE);
            c.text(x0 + bw / 2.0, y0 + 17.0, &format!("blockIdx ({bx}, {by})"), Anchor::Middle, 11);
            c.text(x0 + bw / 2.0, y0 + 32.0, &format!("{} threads", threads), Anchor::Middle, 11);
        }
    }
    let grid_right = 10.0 + f64::from(grid.0) * (bw + 8.0);
    let (tx, ty) = thread;
    let linear = tx + block.0 * ty;
    let notes = [
        format!("blockDim = ({}, {}): {threads} threads per block,", block.0, block.1),
        format!("numbered t = threadIdx.x + {} * threadIdx.y;", block.0),
        format!("warp = t / {WARP}, lane = t % {WARP}."),
        "Global coordinates of a thread:".to_string(),
        format!("x = blockIdx.x * {} + threadIdx.x", block.0),
        format!("y = blockIdx.y * {} + threadIdx.y", block.1),
    ];
    let grid_bottom = top + f64::from(grid.1) * (bh + 8.0);
    let notes_bottom = c.paragraph(grid_right + 14.0, top + 11.0, &notes);
    y = grid_bottom.max(notes_bottom) + 14.0;
    c.text(
        10.0,
        y,
        &format!("block ({}, {}) thread by thread: threadIdx.x across, threadIdx.y down", pick.0, pick.1),
        Anchor::Start,
        11,
    );
    y += 22.0;
    // Column numbers at every warp boundary and the last column.
    let mut ticks: Vec<u32> = (0..block.0).step_by(8).collect();
    ticks.push(block.0 - 1);
    for x in ticks {
        c.text(left + cell_w * (f64::from(x) + 0.5), y - 4.0, &x.to_string(), Anchor::Middle, 9);
    }
    c.text(left - 6.0, y - 4.0, "x", Anchor::End, 9);
    for row in 0..block.1 {
        let y0 = y + f64::from(row) * (cell_h + 6.0);
        c.text(left - 6.0, y0 + 17.0, &format!("y = {row}"), Anchor::End, 11);
        for x in 0..block.0 {
            let warp = (x + block.0 * row) / WARP;
            let fill = WARP_FILLS[warp as usize % WARP_FILLS.len()];
            c.rect("thread", left + cell_w * f64::from(x), y0, cell_w, cell_h, fill, "#bbb");
        }
        // Each warp's run of this row: a dark edge where it starts and its name over it.
        let mut x = 0;
        while x < block.0 {
            let warp = (x + block.0 * row) / WARP;
            let end = ((warp + 1) * WARP - block.0 * row).min(block.0);
            let (x0, x1) = (left + cell_w * f64::from(x), left + cell_w * f64::from(end));
            c.line((x0, y0 - 2.0), (x0, y0 + cell_h + 2.0), "#333", 2.5);
            let first = warp * WARP;
            let label = format!("warp {warp}: t {first}-{}", ((warp + 1) * WARP).min(threads) - 1);
            let label = if label.chars().count() as f64 * 6.7 < x1 - x0 { label } else { format!("w{warp}") };
            c.text((x0 + x1) / 2.0, y0 + 17.0, &label, Anchor::Middle, 11);
            x = end;
        }
        c.line(
            (left + cell_w * f64::from(block.0), y0 - 2.0),
            (left + cell_w * f64::from(block.0), y0 + cell_h + 2.0),
            "#333",
            2.5,
        );
    }
    let y0 = y + f64::from(ty) * (cell_h + 6.0);
    c.outline(left + cell_w * f64::from(tx), y0, cell_w, cell_h, ACCENT, 2.0);
    y += f64::from(block.1) * (cell_h + 6.0) + 10.0;
    let example = format!(
        "The outlined thread: threadIdx ({tx}, {ty}) of blockIdx ({}, {}): t = {linear}, warp {}, lane {}; \
         global (x, y) = ({}, {}).",
        pick.0,
        pick.1,
        linear / WARP,
        linear % WARP,
        pick.0 * block.0 + tx,
        pick.1 * block.1 + ty
    );
    let rule = format!(
        "A warp is {WARP} consecutive t: with blockDim.x a multiple of {WARP} each warp is part of one row, \
         otherwise a warp spans two rows."
    );
    y = c.paragraph(10.0, y + 4.0, &[example, rule]);
    c.finish(y)
}

#[cfg(test)]
mod tests {
    use super::super::tests::check_text_fits;
    use super::*;

    #[test]
    fn warps_follow_the_linear_thread_number() {
        let svg = picture((3, 2), (64, 2), (1, 1), (5, 1));
        check_text_fits("grid", &svg);
        assert_eq!(svg.matches(r#"class="block""#).count(), 6);
        assert_eq!(svg.matches(r#"class="thread""#).count(), 128);
        for w in 0..4 {
            assert!(svg.contains(&format!("warp {w}: t {}-{}", 32 * w, 32 * w + 31)), "warp {w}");
        }
        assert!(svg.contains("t = 69, warp 2, lane 5; global (x, y) = (69, 3)"), "{svg}");
        // 48 threads per row: warp 1 takes the last 16 of row 0 and the first 16 of row 1.
        let odd = picture((2, 1), (48, 2), (0, 0), (0, 1));
        check_text_fits("odd", &odd);
        assert_eq!(odd.matches("warp 1: t 32-63").count(), 2, "{odd}");
        assert!(odd.contains("t = 48, warp 1, lane 16"));
    }
}
