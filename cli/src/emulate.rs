//! `bankwise emulate`: runs one kernel on the CPU emulator (no GPU needed), on random data,
//! checks it against the CPU reference (bit for bit, or within the derived bound of a float
//! sum or matrix multiply), and prints each shared-memory access site's requests,
//! wavefronts and wavefronts per request (the bank model's counts, as Nsight Compute's
//! `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}` would give them on an H100), each
//! global access site's requests and 32-byte sectors (coalescing), and any race between
//! threads. Exits non-zero when the result is wrong, a race or a fault (an
//! out-of-bounds access, a deadlock) was found.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use anyhow::{Context, Result, bail};
use bankwise::banks::{Geometry, analyze, render_text};
use bankwise::matmul::{Float, MatmulKernel, MatmulShape};
use bankwise::reduce::{Operation, Reducible};
use bankwise::runtime::LaunchReport;
use bankwise::runtime::bankwise_emu::{AccessOp, GlobalSiteStats, costliest_map};
use bankwise::runtime::verify::{self, Exact};
use bankwise::{Element, EmulatorChecks, Gpu, Max, Min, ReduceKernel, Shape, Sum, TransposeKernel, cpu};
use bankwise_layout::reduce::{THREADS, elements_per_block};
use rand::{RngCore, SeedableRng, rngs::SmallRng};

/// The teaching kernel that does the reduction's last warp without `sync_warp`: a race that
/// no result on the H100 shows (racecheck warns of it, after minutes) and the emulator reports.
pub const UNSYNCED: &str = "reduce_unrolled_warp_unsynced";

#[derive(clap::Args)]
pub struct Args {
    /// The kernel: a rung of the transpose, reduction or matrix multiply ladder
    /// (`transpose_tiled`, `reduce_shuffle`, `matmul_warptile`, …), `copy_bytes`, or the teaching
    /// kernel `reduce_unrolled_warp_unsynced` (see --list).
    #[arg(required_unless_present = "list")]
    kernel: Option<String>,
    /// List the kernels it can run.
    #[arg(long, conflicts_with = "kernel")]
    list: bool,
    /// Matrix shape for transposes, as ROWSxCOLS [default: 256x256].
    #[arg(long, value_parser = crate::bench::parse_shape)]
    shape: Option<Shape>,
    /// Elements for reductions; bytes for `copy_bytes` [default: 65536].
    #[arg(long)]
    len: Option<usize>,
    /// `C = A·B`'s shape for matrix multiplies, as MxNxK [default: 128x128x64].
    #[arg(long, value_parser = parse_dims)]
    dims: Option<MatmulShape>,
    /// Element type: u8, u16, f16, bf16, f32, f64 for transposes; f32, f64, i32, u32, i64, u64 for
    /// reductions; f32, f64 for matrix multiplies [default: f32].
    #[arg(long = "type")]
    ty: Option<String>,
    /// The reduction's operation: sum, min or max [default: sum].
    #[arg(long)]
    op: Option<String>,
    /// Print one JSON object instead of the table: `kernel`, `correct`, `sites` (`site`, `op`,
    /// `requests`, `wavefronts`), `global` (`site`, `op`, `requests`, `sectors`,
    /// `ideal_sectors`) and `races` (`first`, `second`, `address`).
    #[arg(long)]
    json: bool,
    /// Also draw what the launch did: `--draw` in short (the bank map of the costliest shared
    /// request and its legend, each global site's costliest request in a line), `--draw=full`
    /// every shared site's map with its legend and each global request sector by sector.
    #[arg(long, conflicts_with = "json", value_enum, num_args = 0..=1, require_equals = true,
          default_missing_value = "compact")]
    draw: Option<Draw>,
}

/// How much `--draw` draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Draw {
    /// The costliest shared request's bank map and legend, a line for each global site.
    Compact,
    /// Each map with its legend, each global site's costliest request sector by sector.
    Full,
}

impl Args {
    /// `bankwise emulate KERNEL --type TY [--draw]` with every other option at its default.
    pub fn defaults(kernel: &str, ty: &str, draw: Option<Draw>) -> Args {
        Args {
            kernel: Some(kernel.into()),
            list: false,
            shape: None,
            len: None,
            dims: None,
            // Only the kernels that take a type get one (the others would refuse it).
            ty: (kernel.starts_with("transpose")
                || kernel.starts_with("matmul")
                || kernel.starts_with("reduce") && kernel != UNSYNCED)
                .then(|| ty.into()),
            op: None,
            json: false,
            draw,
        }
    }

    fn shape(&self) -> Shape {
        self.shape.unwrap_or(Shape::new(256, 256))
    }

    fn len(&self) -> usize {
        self.len.unwrap_or(1 << 16)
    }

    fn dims(&self) -> MatmulShape {
        self.dims.unwrap_or(MatmulShape::new(128, 128, 64))
    }

    fn ty(&self) -> &str {
        self.ty.as_deref().unwrap_or("f32")
    }

    fn op(&self) -> &str {
        self.op.as_deref().unwrap_or("sum")
    }

    /// Refuses the options that `kernel` would ignore, naming them.
    fn check_options_for(&self, kernel: &str) -> Result<()> {
        let transpose = kernel.starts_with("transpose");
        let reduction = kernel.starts_with("reduce") && kernel != UNSYNCED;
        let matmul = kernel.starts_with("matmul");
        let ignored: Vec<&str> = [
            ("--shape", self.shape.is_some() && !transpose),
            ("--len", self.len.is_some() && (transpose || matmul)),
            ("--dims", self.dims.is_some() && !matmul),
            ("--type", self.ty.is_some() && !(transpose || reduction || matmul)),
            ("--op", self.op.is_some() && !reduction),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        if !ignored.is_empty() {
            bail!(
                "`{kernel}` takes no {} (transposes take --shape and --type; reductions --len, --type \
                 and --op; matrix multiplies --dims and --type; copy_bytes and {UNSYNCED} --len)",
                ignored.join(" or ")
            );
        }
        Ok(())
    }
}

/// Every kernel `emulate` can run.
pub fn kernels() -> Vec<&'static str> {
    let mut names = vec!["copy_bytes"];
    names.extend(TransposeKernel::ALL.iter().map(|k| k.name()));
    names.extend(ReduceKernel::ALL.iter().map(|k| k.name()));
    names.push(UNSYNCED);
    names.extend(MatmulKernel::ALL.iter().map(|k| k.name()));
    names
}

/// What one emulated run found.
pub struct Outcome {
    pub correct: Result<(), String>,
    pub launches: Vec<LaunchReport>,
}

pub fn run(args: &Args) -> Result<()> {
    if args.list {
        for k in kernels() {
            println!("{k}");
        }
        return Ok(());
    }
    let kernel = args.kernel.as_deref().context("name a kernel, or --list")?;
    if !kernels().contains(&kernel) {
        bail!("no kernel `{kernel}` to emulate; `bankwise emulate --list` lists them");
    }
    args.check_options_for(kernel)?;
    // Races are collected, not errors: this command shows them beside the sites (and exits
    // non-zero where there is one).
    let gpu = Gpu::emulator_with(EmulatorChecks::Collect)?;
    let outcome = emulate(&gpu, kernel, args)?;
    let sites = sites(&outcome.launches);
    let global = global_sites(&outcome.launches);
    let races: Vec<_> = outcome.launches.iter().flat_map(|l| l.report.races.iter()).collect();
    if args.json {
        let json = serde_json::json!({
            "kernel": kernel,
            "correct": outcome.correct.is_ok(),
            "sites": sites.iter().map(|s| serde_json::json!({
                "site": s.site, "op": s.op, "requests": s.requests, "wavefronts": s.wavefronts,
            })).collect::<Vec<_>>(),
            "global": global.iter().map(|s| serde_json::json!({
                "site": s.site.to_string(), "op": s.op.to_string(), "requests": s.requests,
                "sectors": s.sectors, "ideal_sectors": s.ideal_sectors,
            })).collect::<Vec<_>>(),
            "races": races.iter().map(|r| serde_json::json!({
                "first": r.first.to_string(), "second": r.second.to_string(), "address": r.address,
            })).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        let what = describe(kernel, args);
        println!(
            "{kernel} on the emulator ({what}): {}",
            match &outcome.correct {
                Ok(()) => "correct".to_string(),
                Err(e) => format!("WRONG: {e}"),
            }
        );
        print_sites(&sites);
        print_global_sites(&global);
        for r in &races {
            println!("RACE: {r}");
        }
        if let Some(draw) = args.draw {
            let color = std::io::stdout().is_terminal();
            match draw {
                Draw::Full => {
                    for s in &sites {
                        if let Some(access) = &s.worst {
                            println!(
                                "\n{} {} (its costliest request, {} wavefronts):",
                                s.site, s.op, s.worst_wavefronts
                            );
                            print!("{}", render_text(&analyze(access, &Geometry::MODERN)?, &Geometry::MODERN, color));
                        }
                    }
                    global.iter().for_each(|s| print!("\n{}", s.draw()));
                }
                Draw::Compact => {
                    // The costliest site's map alone (the first where several cost the most),
                    // as the exercises' short drawing ends.
                    let costliest = sites.iter().rev().max_by_key(|s| s.worst_wavefronts);
                    if let Some(map) = costliest
                        .and_then(|s| costliest_map(&s.site, &s.op, s.worst.as_ref()?, s.worst_wavefronts, color))
                    {
                        print!("{map}");
                    }
                    if !global.is_empty() {
                        println!("\nglobal sites, the costliest request of each:");
                    }
                    for s in &global {
                        println!("  {} {}: {}", s.site, s.op, s.costliest_summary());
                    }
                }
            }
        }
    }
    // A race first: it is the cause, and a wrong result only one of its effects.
    if !races.is_empty() {
        let wrong = if outcome.correct.is_err() { ", and its result is wrong" } else { "" };
        bail!("{kernel}: {} racing pair(s) of shared-memory accesses{wrong}", races.len());
    }
    if let Err(e) = outcome.correct {
        bail!("{kernel} gave a wrong result on the emulator: {e}");
    }
    Ok(())
}

fn describe(kernel: &str, args: &Args) -> String {
    if kernel == UNSYNCED {
        format!("u32 sum of {} elements, one pass", args.len())
    } else if kernel.starts_with("transpose") {
        format!("{} {}", args.ty(), args.shape())
    } else if kernel.starts_with("reduce") {
        format!("{} {} of {} elements", args.ty(), args.op(), args.len())
    } else if kernel.starts_with("matmul") {
        let d = args.dims();
        format!("{} C = A·B, {}×{}×{}", args.ty(), d.m, d.n, d.k)
    } else {
        format!("{} bytes", args.len())
    }
}

/// One access site over every launch of a run (a reduction launches once per pass).
pub struct SiteRow {
    pub site: String,
    pub op: &'static str,
    pub requests: u64,
    pub wavefronts: u64,
    pub worst: Option<bankwise::banks::Access>,
    pub worst_wavefronts: u32,
}

/// The load and store sites of `launches`, merged by site, in source order.
pub fn sites(launches: &[LaunchReport]) -> Vec<SiteRow> {
    let mut by_site: BTreeMap<(String, &'static str), SiteRow> = BTreeMap::new();
    for s in launches.iter().flat_map(|l| l.report.sites.iter()) {
        let op = match s.op {
            AccessOp::Load => "load",
            AccessOp::Store => "store",
            AccessOp::Atomic => continue,
        };
        let row = by_site.entry((s.site.to_string(), op)).or_insert_with(|| SiteRow {
            site: s.site.to_string(),
            op,
            requests: 0,
            wavefronts: 0,
            worst: None,
            worst_wavefronts: 0,
        });
        row.requests += s.requests;
        row.wavefronts += s.wavefronts;
        if row.worst.is_none() || s.worst_wavefronts > row.worst_wavefronts {
            row.worst = s.worst.clone();
            row.worst_wavefronts = s.worst_wavefronts;
        }
    }
    by_site.into_values().collect()
}

pub fn print_sites(sites: &[SiteRow]) {
    if sites.is_empty() {
        println!("  no shared-memory accesses");
        return;
    }
    println!("  {:<58} {:>5} {:>9} {:>10} {:>8}", "shared site", "op", "requests", "wavefronts", "per req");
    for s in sites {
        let per = s.wavefronts as f64 / s.requests.max(1) as f64;
        println!("  {:<58} {:>5} {:>9} {:>10} {:>8.2}", short(&s.site), s.op, s.requests, s.wavefronts, per);
    }
}

/// The global load and store sites of `launches`, merged by site, in source order.
pub fn global_sites(launches: &[LaunchReport]) -> Vec<GlobalSiteStats> {
    let mut by_site: BTreeMap<(String, AccessOp), GlobalSiteStats> = BTreeMap::new();
    for s in launches.iter().flat_map(|l| l.report.global.iter()) {
        match by_site.entry((s.site.to_string(), s.op)) {
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(s.clone());
            }
            std::collections::btree_map::Entry::Occupied(mut e) => e.get_mut().absorb(s),
        }
    }
    by_site.into_values().collect()
}

/// The global sites' table: sectors per request beside the fewest the same bytes could take.
pub fn print_global_sites(sites: &[GlobalSiteStats]) {
    if sites.is_empty() {
        return;
    }
    println!(
        "  {:<58} {:>6} {:>9} {:>10} {:>8} {:>10}",
        "global site", "op", "requests", "sectors", "per req", "coalesced"
    );
    for s in sites {
        let ideal = s.ideal_sectors as f64 / s.requests.max(1) as f64;
        let site = s.site.to_string();
        println!(
            "  {:<58} {:>6} {:>9} {:>10} {:>8.2} {:>10.2}",
            short(&site),
            s.op,
            s.requests,
            s.sectors,
            s.sectors_per_request(),
            ideal
        );
    }
}

/// A site's path from the crate folder on (`bankwise-kernels/src/transpose.rs:185:26`).
fn short(site: &str) -> &str {
    site.find("bankwise-").map_or(site, |i| &site[i..])
}

/// Runs `kernel` once on the emulator with `args`' sizes and type, on random data.
pub fn emulate(gpu: &Gpu, kernel: &str, args: &Args) -> Result<Outcome> {
    gpu.take_emulator_reports();
    let correct = if let Some(k) = TransposeKernel::ALL.into_iter().find(|k| k.name() == kernel) {
        match args.ty() {
            "u8" => transpose::<u8>(gpu, k, args.shape())?,
            "u16" => transpose::<u16>(gpu, k, args.shape())?,
            "f32" => transpose::<f32>(gpu, k, args.shape())?,
            "f64" => transpose::<f64>(gpu, k, args.shape())?,
            "f16" => transpose::<bankwise::half::f16>(gpu, k, args.shape())?,
            "bf16" => transpose::<bankwise::half::bf16>(gpu, k, args.shape())?,
            t => bail!("transposes take --type u8, u16, f16, bf16, f32 or f64, not {t}"),
        }
    } else if kernel == "copy_bytes" {
        let data = random_bytes(args.len(), 1);
        let src = gpu.upload(&data)?;
        let mut dst = gpu.alloc_zeros::<u8>(data.len())?;
        gpu.copy(&src, &mut dst)?;
        exact(&gpu.download(&dst)?, &data)
    } else if kernel == UNSYNCED {
        unsynced(gpu, args.len())?
    } else if let Some(k) = MatmulKernel::ALL.into_iter().find(|k| k.name() == kernel) {
        match args.ty() {
            "f32" => matmul::<f32>(gpu, k, args.dims())?,
            "f64" => matmul::<f64>(gpu, k, args.dims())?,
            t => bail!("matrix multiplies take --type f32 or f64, not {t}"),
        }
    } else {
        let k = ReduceKernel::ALL.into_iter().find(|k| k.name() == kernel).context("a known kernel")?;
        macro_rules! by_op {
            ($t:ty) => {
                match args.op() {
                    "sum" => reduce::<$t, Sum>(gpu, k, Sum, args.len())?,
                    "min" => reduce::<$t, Min>(gpu, k, Min, args.len())?,
                    "max" => reduce::<$t, Max>(gpu, k, Max, args.len())?,
                    o => bail!("--op takes sum, min or max, not {o}"),
                }
            };
        }
        match args.ty() {
            "f32" => by_op!(f32),
            "f64" => by_op!(f64),
            "i32" => by_op!(i32),
            "u32" => by_op!(u32),
            "i64" => by_op!(i64),
            "u64" => by_op!(u64),
            t => bail!("reductions take --type f32, f64, i32, u32, i64 or u64, not {t}"),
        }
    };
    Ok(Outcome { correct, launches: gpu.take_emulator_reports() })
}

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; n];
    SmallRng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

/// `n` random elements of `T` (any bit pattern; for floats, finite values in [-1, 1)).
fn random<T: Element + 'static>(n: usize, seed: u64) -> Vec<T> {
    let bytes = random_bytes(n * size_of::<T>(), seed);
    let mut v: Vec<T> = bytes
        .chunks_exact(size_of::<T>())
        // Safety: Element types are plain integers and floats; every bit pattern is a value.
        .map(|c| unsafe { c.as_ptr().cast::<T>().read_unaligned() })
        .collect();
    if let Some(f) = (&mut v as &mut dyn std::any::Any).downcast_mut::<Vec<f32>>() {
        f.iter_mut().for_each(|x| *x = (x.to_bits() >> 8) as f32 / (1u32 << 23) as f32 - 1.0);
    }
    if let Some(f) = (&mut v as &mut dyn std::any::Any).downcast_mut::<Vec<f64>>() {
        f.iter_mut().for_each(|x| *x = (x.to_bits() >> 11) as f64 / (1u64 << 52) as f64 - 1.0);
    }
    v
}

/// `verify::exact`'s verdict (bit for bit), its error as the message.
fn exact<T: Exact>(got: &[T], want: &[T]) -> Result<(), String> {
    verify::exact(got, want).and_then(|r| r.check()).map_err(|e| e.to_string())
}

fn transpose<T: Element + Exact + 'static>(
    gpu: &Gpu,
    kernel: TransposeKernel,
    shape: Shape,
) -> Result<Result<(), String>> {
    let data = random::<T>(shape.elements()?, 2);
    let src = gpu.upload(&data)?;
    let mut dst = gpu.alloc_zeros::<T>(data.len())?;
    gpu.fill_bytes(&mut dst, 0xA5)?;
    gpu.transpose_with(kernel, &src, &mut dst, shape)?;
    Ok(exact(&gpu.download(&dst)?, &cpu::transpose(&data, shape)?))
}

/// `C = A·B` by one rung, on random inputs in [-1, 1), `C` poisoned with NaN (β = 0: never
/// read), against the float64 reference within its derived bound (`cpu::matmul`).
fn matmul<T: Float + 'static>(gpu: &Gpu, kernel: MatmulKernel, shape: MatmulShape) -> Result<Result<(), String>> {
    let (a, b) = (random::<T>(shape.m * shape.k, 5), random::<T>(shape.k * shape.n, 6));
    let c = vec![T::from_f64(f64::NAN); shape.m * shape.n];
    let (want, bound) = cpu::matmul(T::from_f64(1.0), &a, &b, T::from_f64(0.0), &c, shape)?;
    let (a_dev, b_dev, mut c_dev) = (gpu.upload(&a)?, gpu.upload(&b)?, gpu.upload(&c)?);
    gpu.matmul_with(kernel, T::from_f64(1.0), &a_dev, &b_dev, T::from_f64(0.0), &mut c_dev, shape)?;
    let got = gpu.download(&c_dev)?;
    let worst = got.iter().zip(want.iter().zip(&bound)).enumerate().find(|(_, (g, (w, tol)))| {
        let g: f64 = (**g).into();
        (g - **w).abs() > **tol || g.is_nan()
    });
    Ok(match worst {
        None => Ok(()),
        Some((at, (g, (w, tol)))) => {
            let g: f64 = (*g).into();
            Err(format!("C[{}][{}] is {g}, the reference {w} ± {tol}", at / shape.n, at % shape.n))
        }
    })
}

/// `MxNxK`, each at least 1, with `M·K`, `K·N` and `M·N` elements in the address space.
fn parse_dims(s: &str) -> Result<MatmulShape, String> {
    let parts: Vec<&str> = s.split(['x', '×']).collect();
    let [m, n, k] = parts[..] else {
        return Err(format!("{s:?} is not MxNxK (such as 128x128x64)"));
    };
    let one = |x: &str| match x.trim().parse::<usize>() {
        Ok(0) => Err(format!("{s:?}: every dimension must be at least 1")),
        Ok(v) => Ok(v),
        Err(e) => Err(format!("{s:?}: {x:?} is not a count: {e}")),
    };
    let (m, n, k) = (one(m)?, one(n)?, one(k)?);
    for (a, b) in [(m, k), (k, n), (m, n)] {
        if a.checked_mul(b).and_then(|e| e.checked_mul(8)).is_none() {
            return Err(format!("{s:?}: a {a} × {b} matrix overflows the address space"));
        }
    }
    Ok(MatmulShape::new(m, n, k))
}

fn reduce<T, O: Operation<T>>(gpu: &Gpu, kernel: ReduceKernel, op: O, n: usize) -> Result<Result<(), String>>
where
    T: Reducible + Element + std::fmt::Debug + Into<Judge> + 'static,
{
    let data = random::<T>(n, 3);
    let src = gpu.upload(&data)?;
    let got = gpu.reduce_with(kernel, op, &src, ..)?;
    let want = cpu::reduce(&data, op);
    Ok(match (got.into(), want.into()) {
        (Judge::Float(g), Judge::Float(w)) if O::NAME == "sum" => {
            let sums: Vec<f64> = data.iter().map(|&x| Into::<Judge>::into(x).value()).collect();
            let (exact_sum, abs) = cpu::sum_reference(&sums);
            let depth = kernel.depth::<T>(0, n, gpu.plan_target());
            let u = if size_of::<T>() == 4 { 2f64.powi(-24) } else { 2f64.powi(-53) };
            let tol = cpu::sum_tolerance(depth, u, n, exact_sum, abs);
            if (g - exact_sum).abs() <= tol { Ok(()) } else { Err(format!("got {g:e}, want {w:e} within {tol:e}")) }
        }
        (g, w) if g.bits() == w.bits() => Ok(()),
        (g, w) => Err(format!("got {g:?}, want {w:?}")),
    })
}

/// A reduction's result, for comparing across types: floats within a bound, the rest bit for
/// bit.
#[derive(Debug, Clone, Copy)]
pub enum Judge {
    Float(f64),
    Bits(u64),
}

impl Judge {
    fn value(self) -> f64 {
        match self {
            Judge::Float(v) => v,
            Judge::Bits(b) => b as f64,
        }
    }
    fn bits(self) -> u64 {
        match self {
            Judge::Float(v) => v.to_bits(),
            Judge::Bits(b) => b,
        }
    }
}

macro_rules! judge {
    (float: $($f:ty),+; bits: $($i:ty),+) => {
        $(impl From<$f> for Judge { fn from(v: $f) -> Self { Judge::Float(v as f64) } })+
        $(impl From<$i> for Judge { fn from(v: $i) -> Self { Judge::Bits(v as u64) } })+
    };
}
judge!(float: f32, f64; bits: i32, u32, i64, u64);

/// The unsynchronised teaching kernel over `n` u32s: one pass of per-block sums, added up on
/// the host.
fn unsynced(gpu: &Gpu, n: usize) -> Result<Result<(), String>> {
    let data: Vec<u32> = random_bytes(n, 4).into_iter().map(u32::from).collect();
    let blocks = (n as u64).div_ceil(elements_per_block(true)).max(1);
    let src = gpu.upload(&data)?;
    let mut partials = gpu.alloc_zeros::<u32>(blocks as usize)?;
    let entry = bankwise::builtin::reduce::reduce_unrolled_warp_unsynced_sum_u32;
    let kernel = gpu.kernel(entry.name())?;
    // The kernel declares its `THREADS · 4` bytes of shared memory.
    let config = bankwise::runtime::LaunchConfig::linear(blocks as u32, THREADS);
    // Safety: the kernel reads `src[0..n]` and writes one partial per block, as the ladder's
    // `reduce_unrolled_warp` it copies (same grid, block and shared memory).
    unsafe { kernel.launch_as(entry, gpu.stream(), config, (&mut partials, &src, n as u64))? };
    let got = gpu.download(&partials)?.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    let want = data.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    Ok(if got == want { Ok(()) } else { Err(format!("got {got}, want {want}")) })
}

/// What `cargo xtask bench` shows without a GPU: each ladder rung on the emulator, checked,
/// with its wavefronts per request on each shared-memory access site and its sectors per request
/// on each global one.
pub fn ladder_summary() -> Result<()> {
    // Races are collected, so that every rung is shown, a racy one marked, before it fails.
    let gpu = Gpu::emulator_with(EmulatorChecks::Collect)?;
    println!("From the CPU emulator (not timings): every ladder rung, checked against the CPU reference,");
    println!("with the bank model's wavefronts per request at each shared-memory access site and the 32-byte");
    println!("sectors per request at each global one.\n");
    let mut wrong = Vec::new();
    for kernel in kernels().into_iter().filter(|&k| k != UNSYNCED) {
        let args = Args::defaults(kernel, "f32", None);
        let outcome = emulate(&gpu, kernel, &args)?;
        let races: usize = outcome.launches.iter().map(|l| l.report.races.len()).sum();
        println!(
            "{kernel} (emulator, {}): {}{}",
            describe(kernel, &args),
            if outcome.correct.is_ok() { "correct" } else { "WRONG" },
            if races > 0 { format!(", {races} race(s)") } else { String::new() }
        );
        print_sites(&sites(&outcome.launches));
        print_global_sites(&global_sites(&outcome.launches));
        if outcome.correct.is_err() || races > 0 {
            wrong.push(kernel);
        }
    }
    if !wrong.is_empty() {
        bail!("wrong on the emulator: {}", wrong.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Args;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn check(line: &str) -> Result<(), String> {
        let cli = Cli::try_parse_from(std::iter::once("emulate").chain(line.split_whitespace()))
            .map_err(|e| e.to_string())?;
        let kernel = cli.args.kernel.clone().unwrap_or_default();
        cli.args.check_options_for(&kernel).map_err(|e| e.to_string())
    }

    #[test]
    fn options_a_kernel_would_ignore_are_refused() {
        assert_eq!(check("transpose_tiled --shape 64x96 --type f64"), Ok(()));
        assert_eq!(check("reduce_shuffle --len 1000 --type u64 --op max"), Ok(()));
        assert_eq!(check("copy_bytes --len 4096"), Ok(()));
        assert_eq!(check("matmul_tiled --dims 33x17x5 --type f64"), Ok(()));
        for (line, named) in [
            ("transpose_tiled --len 5", "--len"),
            ("transpose_tiled --dims 4x4x4", "--dims"),
            ("matmul_warptile --len 5", "--len"),
            ("matmul_warptile --shape 4x4", "--shape"),
            ("matmul_warptile --op sum", "--op"),
            ("transpose_padded --op max", "--op"),
            ("reduce_shuffle --shape 4x4", "--shape"),
            ("copy_bytes --type f64", "--type"),
            ("reduce_unrolled_warp_unsynced --op min", "--op"),
        ] {
            let e = check(line).unwrap_err();
            assert!(e.contains(&format!("takes no {named}")), "{line}: {e}");
        }
        assert!(check("--list transpose_tiled").is_err(), "--list with a kernel");
        for bad in [
            "matmul_tiled --dims 4x4",
            "matmul_tiled --dims 0x4x4",
            "matmul_tiled --dims 4xax4",
            "matmul_tiled --dims 4294967296x4294967296x1",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert!(check("transpose_tiled --json --draw").is_err(), "--draw is not drawn in JSON");
    }

    /// Every matrix multiply rung, `f32` and `f64`, at a shape no tile divides: correct on the
    /// emulator, with shared-memory sites for every rung past the first two.
    #[test]
    fn every_matmul_rung_emulates_correctly() {
        let gpu = bankwise::Gpu::emulator().unwrap();
        for kernel in bankwise::matmul::MatmulKernel::ALL {
            for ty in ["f32", "f64"] {
                let mut args = Args::defaults(kernel.name(), ty, None);
                args.dims = Some(super::parse_dims("37x41x19").unwrap());
                let outcome = super::emulate(&gpu, kernel.name(), &args).unwrap();
                assert_eq!(outcome.correct, Ok(()), "{} {ty}", kernel.name());
                let shared = super::sites(&outcome.launches).len();
                let staged = !matches!(kernel.name(), "matmul_naive" | "matmul_coalesced");
                assert_eq!(shared > 0, staged, "{} {ty}: {shared} shared sites", kernel.name());
            }
        }
    }
}
