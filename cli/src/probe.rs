//! `bankwise probe`: every probe pattern on the GPU beside the bank model's prediction.
//!
//! - default: times each pattern (load and store) and prints model wavefronts, measured
//!   cycles per warp-access and measured wavefronts (cycles over those of `stride-1`);
//! - `--once`: launches each row's probe exactly once, in table order, for a profiler;
//! - `--ncu-csv FILE`: joins the counters of such a profiled run to the table (per
//!   warp-instruction); works without a GPU.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bankwise::Gpu;
use bankwise::banks::{Access, Width};
use bankwise::probe::{self, DEFAULT_ITERATIONS, Op, UNROLL, WARPS};

use crate::ncu;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Loop iterations per probe; each warp performs 16 accesses per iteration.
    #[arg(long, default_value_t = DEFAULT_ITERATIONS, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Also write the table as Markdown to this file.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Only patterns whose name contains this.
    #[arg(long)]
    filter: Option<String>,
    /// Launch each row's probe once (one iteration, no fill), in table order, for
    /// `ncu --csv --metrics … bankwise probe --once > FILE`.
    #[arg(long, conflicts_with = "ncu_csv")]
    once: bool,
    /// Join the counters of an `ncu --csv` run of `--once` (same --filter) to the table.
    #[arg(long)]
    ncu_csv: Option<PathBuf>,
}

/// The Nsight Compute metrics `--ncu-csv` reads (pass them to `ncu --metrics`).
pub const NCU_METRICS: [&str; 6] = [
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
];

/// One line of the table: a pattern with one op.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub op: Op,
    pub access: Access,
    pub model_wavefronts: u32,
    pub model_conflicts: u32,
    /// Cycles per warp-access and measured wavefronts.
    pub measured: Option<(f64, f64)>,
    /// ncu's wavefronts and conflicts per warp-instruction.
    pub ncu: Option<(f64, f64)>,
}

/// The table's rows, in launch order: every pattern whose name contains `filter`, per op.
pub fn rows(filter: Option<&str>) -> Result<Vec<Row>> {
    let mut out = Vec::new();
    for p in probe::patterns().into_iter().filter(|p| filter.is_none_or(|f| p.name.contains(f))) {
        for &op in p.ops {
            let a = probe::predict(&p.access, op).with_context(|| p.name.clone())?;
            out.push(Row {
                name: p.name.clone(),
                op,
                access: p.access.clone(),
                model_wavefronts: a.wavefronts(),
                model_conflicts: a.conflicts(),
                measured: None,
                ncu: None,
            });
        }
    }
    if out.is_empty() {
        bail!("no probe pattern matches the filter");
    }
    Ok(out)
}

/// Joins profiled launches to `rows`: the k-th `probe_*` launch is row k. Counters are divided
/// by the launch's shared-memory warp-instructions (ncu's count, or the plan's if absent).
pub fn join_ncu(rows: &mut [Row], launches: &[ncu::Launch]) -> Result<()> {
    let probes: Vec<&ncu::Launch> = launches.iter().filter(|l| l.kernel.starts_with("probe_")).collect();
    if probes.len() != rows.len() {
        bail!(
            "the CSV has {} probe launches but the table has {} rows: profile `bankwise probe --once` with the same --filter",
            probes.len(),
            rows.len()
        );
    }
    for (row, launch) in rows.iter_mut().zip(probes) {
        let plan = probe::plan(&row.access, row.op, 1)?;
        if launch.kernel != plan.launch.kernel.name() {
            bail!(
                "launch {} is {} but row {} {} expects {}",
                launch.id,
                launch.kernel,
                row.name,
                row.op,
                plan.launch.kernel.name()
            );
        }
        let suffix = match row.op {
            Op::Load | Op::LoadMatrix => "ld",
            Op::Store | Op::StoreMatrix => "st",
        };
        let metric = |m: &str| launch.metrics.get(&format!("{m}_{suffix}.sum")).copied();
        let instructions = metric("smsp__sass_inst_executed_op_shared")
            .filter(|&n| n > 0.0)
            .unwrap_or(plan.warp_instructions() as f64);
        let wavefronts = metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op");
        let conflicts = metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op");
        if let (Some(w), Some(c)) = (wavefronts, conflicts) {
            row.ncu = Some((w / instructions, c / instructions));
        }
    }
    Ok(())
}

fn width_name(w: Width) -> String {
    format!("{}B", w.bytes())
}

const HEADER: [&str; 9] =
    ["pattern", "op", "width", "model wf", "model conf", "cycles/access", "measured wf", "agree", "ncu wf / conf"];

fn cells(r: &Row) -> [String; 9] {
    let (cycles, measured, agree) = match r.measured {
        Some((c, m)) => (
            format!("{c:.2}"),
            format!("{m:.2}"),
            if probe::agrees(r.model_wavefronts, m) { "yes" } else { "NO" }.into(),
        ),
        None => ("-".into(), "-".into(), "-".into()),
    };
    let ncu = r.ncu.map_or("-".into(), |(w, c)| format!("{w:.2} / {c:.2}"));
    [
        r.name.clone(),
        r.op.to_string(),
        width_name(r.access.width),
        r.model_wavefronts.to_string(),
        r.model_conflicts.to_string(),
        cycles,
        measured,
        agree,
        ncu,
    ]
}

/// The table as aligned text.
pub fn render(rows: &[Row]) -> String {
    let all: Vec<[String; 9]> = rows.iter().map(cells).collect();
    let widths: Vec<usize> =
        (0..9).map(|i| all.iter().map(|c| c[i].chars().count()).chain([HEADER[i].len()]).max().unwrap_or(0)).collect();
    let mut out = String::new();
    let line = |out: &mut String, c: &[String]| {
        for (i, cell) in c.iter().enumerate() {
            let w = widths[i];
            if i < 3 { write!(out, "{cell:<w$}  ") } else { write!(out, "{cell:>w$}  ") }.unwrap();
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    line(&mut out, &HEADER.map(String::from));
    for c in &all {
        line(&mut out, c);
    }
    out
}

/// The table as Markdown.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n|{}\n", HEADER.join(" | "), " --- |".repeat(3) + &" ---: |".repeat(6));
    for r in rows {
        let c = cells(r);
        writeln!(out, "| `{}` | {} |", c[0], c[1..].join(" | ")).unwrap();
    }
    out
}

pub fn run(args: &Args) -> Result<()> {
    // Where the table goes is checked before the run, not after it.
    if let Some(path) = &args.markdown {
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    }
    let mut rows = rows(args.filter.as_deref())?;
    if let Some(path) = &args.ncu_csv {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let launches = ncu::parse(&text).map_err(anyhow::Error::msg)?;
        join_ncu(&mut rows, &launches)?;
    }
    let gpu = match Gpu::new() {
        Ok(gpu) => Some(gpu),
        Err(e) if args.ncu_csv.is_some() => {
            eprintln!("no GPU ({e}): showing the model and the ncu counters only");
            None
        }
        Err(e) => bail!(
            "`bankwise probe` measures on a GPU and found none: {e} (`bankwise banks` shows the model's predictions without one)"
        ),
    };
    if let Some(gpu) = &gpu {
        let info = gpu.info();
        eprintln!("{} (sm_{}{})", info.name, info.compute_capability.0, info.compute_capability.1);
        if args.once {
            eprintln!("profile with: ncu --csv --metrics {} bankwise probe --once > ncu.csv", NCU_METRICS.join(","));
            for (k, r) in rows.iter().enumerate() {
                println!("# launch {k}: {} {}", r.name, r.op);
                gpu.probe_once(&r.access, r.op).with_context(|| format!("{} {}", r.name, r.op))?;
            }
            return Ok(());
        }
        if args.ncu_csv.is_none() {
            measure(gpu, &mut rows, args.iterations)?;
        }
    }
    print!("{}", render(&rows));
    let disagree =
        rows.iter().filter(|r| r.measured.is_some_and(|(_, m)| !probe::agrees(r.model_wavefronts, m))).count();
    if gpu.is_some() && args.ncu_csv.is_none() {
        println!(
            "{} rows; measured wf = cycles/access ÷ stride-1's (same op); agree = within {:.0}% or 0.5 wf; {disagree} disagree",
            rows.len(),
            probe::TOLERANCE * 100.0
        );
    }
    if let Some(path) = &args.markdown {
        let device = gpu.as_ref().map_or("no GPU (model and ncu only)".into(), |g| g.info().name.clone());
        let text = format!(
            "{device}; {} iterations × {UNROLL} accesses × {WARPS} warps per probe.\n\n{}",
            args.iterations,
            markdown(&rows)
        );
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Times every row, after the two calibrations (a 1-wavefront `stride-1` load and store).
fn measure(gpu: &Gpu, rows: &mut [Row], iterations: u32) -> Result<()> {
    let one_wavefront = Access::strided(Width::B4, 0, 1);
    let mut calibration = [0.0; 2];
    for (i, op) in Op::ALL.into_iter().enumerate() {
        gpu.probe(&one_wavefront, op, iterations)?; // warm-up: module load, clocks
        calibration[i] = gpu.probe(&one_wavefront, op, iterations)?.cycles_per_access;
    }
    for r in rows.iter_mut() {
        let result = gpu.probe(&r.access, r.op, iterations).with_context(|| format!("{} {}", r.name, r.op))?;
        let calib = calibration[usize::from(r.op == Op::Store)];
        r.measured = Some((result.cycles_per_access, probe::normalised(result.cycles_per_access, calib)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_cover_the_table_in_order() {
        let all = rows(None).unwrap();
        assert!(all.len() >= 120, "{} rows", all.len());
        assert_eq!((all[0].name.as_str(), all[0].op, all[1].op), ("stride-1", Op::Load, Op::Store));
        let s32 = all.iter().find(|r| r.name == "stride-32").unwrap();
        assert_eq!((s32.model_wavefronts, s32.model_conflicts), (32, 31));
        let tiles = rows(Some("transpose_tiled-b4")).unwrap();
        assert_eq!(tiles.len(), 2);
        assert_eq!((tiles[0].op, tiles[0].model_wavefronts), (Op::Load, 32));
        assert!(rows(Some("no such pattern")).is_err());
    }

    fn launch(id: u64, kernel: &str, metrics: &[(&str, f64)]) -> ncu::Launch {
        ncu::Launch { id, kernel: kernel.into(), metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect() }
    }

    #[test]
    fn ncu_counters_join_per_instruction() {
        let mut r = rows(Some("stride-32")).unwrap();
        r.retain(|r| r.name == "stride-32");
        assert_eq!(r.len(), 2);
        let ld = [
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 8192.0),
            ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 7936.0),
            ("smsp__sass_inst_executed_op_shared_ld.sum", 256.0),
        ];
        let st = [
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 8192.0),
            ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 7936.0),
        ];
        let launches =
            [launch(0, "copy_bytes", &[]), launch(1, "probe_load_u32", &ld), launch(2, "probe_store_u32", &st)];
        join_ncu(&mut r, &launches).unwrap();
        assert_eq!(r[0].ncu, Some((32.0, 31.0)));
        assert_eq!(r[1].ncu, Some((32.0, 31.0)), "falls back to the planned 256 instructions");
        assert!(render(&r).contains("32.00 / 31.00"));
        assert!(join_ncu(&mut r, &launches[..2]).is_err(), "row count must match");
        let swapped = [launch(1, "probe_store_u32", &st), launch(2, "probe_load_u32", &ld)];
        assert!(join_ncu(&mut r, &swapped).is_err(), "kernel names must match the rows");
    }

    #[test]
    fn rendering() {
        let mut r = rows(Some("stride-2")).unwrap();
        r.retain(|r| r.name == "stride-2");
        r[0].measured = Some((4.1, 2.05));
        r[1].measured = Some((9.0, 4.5));
        let text = render(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("pattern") && lines[0].ends_with("ncu wf / conf"));
        assert!(lines[1].contains("2.05") && lines[1].contains("yes"));
        assert!(lines[2].contains("NO"));
        let md = markdown(&r);
        assert_eq!(md.lines().count(), 4);
        assert!(md.lines().all(|l| l.starts_with('|') && l.ends_with('|')));
    }
}
