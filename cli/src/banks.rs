//! `bankwise banks`: the bank map of one warp-wide shared-memory access, from the model alone
//! (no GPU needed): a strided access, a named worked example, or a library kernel's access
//! (a transpose's tile, or a step of a reduction tree); or, with `--kernel K --emulated`, of
//! every access site of a kernel run on the CPU emulator.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bankwise::banks::{self, Access, Geometry, Width};
use bankwise::probe::{TileAccess, tile_access, tile_kernel_name};
use bankwise_layout::reduce::{self as tree, THREADS};
use bankwise_layout::swizzle::{RowLayout, Swizzle};
use bankwise_layout::transpose::TileLayout;

#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Lane i accesses element `offset/width + i*stride` (stride in elements of --width bytes).
    #[arg(long)]
    stride: Option<u64>,
    /// Access width in bytes: 1, 2, 4, 8 or 16.
    #[arg(long, default_value_t = 4, conflicts_with_all = ["pattern", "kernel", "ldmatrix"])]
    width: u32,
    /// Byte offset of lane 0's access.
    #[arg(long, default_value_t = 0, conflicts_with_all = ["pattern", "kernel", "ldmatrix"])]
    offset: u64,
    /// Active lanes as a hexadecimal mask (bit i = lane i), e.g. 0xFFFF.
    #[arg(long, value_parser = parse_mask, conflicts_with = "emulated")]
    mask: Option<u32>,
    /// Bank layout: 32 banks (every GPU since Fermi) or compute capability 1.x's 16.
    #[arg(long, value_enum, default_value_t = GeometryArg::Modern, conflicts_with_all = ["pattern", "emulated"])]
    geometry: GeometryArg,
    /// A named worked example (see --list); it brings its own geometry.
    #[arg(long, conflicts_with_all = ["stride", "kernel"])]
    pattern: Option<String>,
    /// List the named patterns.
    #[arg(long, conflicts_with_all = ["stride", "pattern", "kernel", "svg"])]
    list: bool,
    /// A library kernel's shared-memory access by warp 0, from the model: a transpose's tile
    /// (transpose_tiled, _padded, _swizzled, with --elem-bytes and --access) or a reduction
    /// tree's step (reduce_interleaved_divergent, _strided, reduce_sequential, with --step).
    /// With --emulated, or for any other kernel of `bankwise emulate --list`: the kernel run
    /// on the CPU emulator, each access site's costliest request drawn.
    #[arg(long, conflicts_with = "stride")]
    kernel: Option<String>,
    /// Draw the --kernel's accesses as the CPU emulator records them in a run on random data
    /// (`bankwise emulate K --draw`; --elem-bytes picks the element type), not the model's.
    #[arg(long, requires = "kernel")]
    emulated: bool,
    /// Element size of the --kernel's shared array: 1, 2, 4 or 8 bytes (4 or 8 for reductions)
    /// [default: 4].
    #[arg(long, requires = "kernel")]
    elem_bytes: Option<u32>,
    /// Which tile access of a transpose --kernel [default: column-read].
    #[arg(long, value_enum, requires = "kernel", conflicts_with = "emulated")]
    access: Option<AccessArg>,
    /// The tree step `s` of a reduction --kernel (the distance between the two values it
    /// combines): warp 0's read of the second one is drawn [default: 1].
    #[arg(long, requires = "kernel", conflicts_with = "emulated")]
    step: Option<u32>,
    /// An `ldmatrix.x4` of a 16×16 block of 2-byte elements (an `mma.sync` A fragment) from a
    /// tile of rows this many bytes long (a multiple of 16, at least 32): row-major, or with
    /// --pad or --swizzle.
    #[arg(long, value_name = "ROW_BYTES", conflicts_with_all = ["stride", "pattern", "kernel"])]
    ldmatrix: Option<u64>,
    /// Bytes of padding after each --ldmatrix row (a multiple of 16).
    #[arg(long, requires = "ldmatrix", conflicts_with = "swizzle")]
    pad: Option<u64>,
    /// An XOR swizzle of the --ldmatrix tile's byte offsets, CUTLASS's Swizzle<B, M, S> as
    /// `B,M,S` (TMA's 128-, 64- and 32-byte modes: 3,4,3, 2,4,3 and 1,4,3).
    #[arg(long, requires = "ldmatrix", value_parser = parse_swizzle)]
    swizzle: Option<Swizzle>,
    /// Also write the bank map as SVG to this file.
    #[arg(long, conflicts_with = "emulated")]
    svg: Option<PathBuf>,
    /// Write the guide's concept pictures (a grid's blocks and warps, a transpose tile's path,
    /// a reduction tree), drawn in the bank maps' style, into this folder
    /// (`guide/chapters/img`).
    #[arg(long, conflicts_with_all = ["stride", "pattern", "kernel", "svg", "list"])]
    concepts: Option<PathBuf>,
    /// No ANSI colours (the default when stdout is not a terminal).
    #[arg(long)]
    no_color: bool,
}

impl Args {
    fn elem_bytes(&self) -> u32 {
        self.elem_bytes.unwrap_or(4)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
enum GeometryArg {
    #[default]
    Modern,
    #[value(name = "half-warp-16")]
    HalfWarp16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[allow(clippy::enum_variant_names)] // the kernels' own names
enum KernelArg {
    #[value(name = "transpose_tiled")]
    TransposeTiled,
    #[value(name = "transpose_padded")]
    TransposePadded,
    #[value(name = "transpose_swizzled")]
    TransposeSwizzled,
    #[value(name = "reduce_interleaved_divergent")]
    ReduceInterleavedDivergent,
    #[value(name = "reduce_interleaved_strided")]
    ReduceInterleavedStrided,
    #[value(name = "reduce_sequential")]
    ReduceSequential,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
enum AccessArg {
    #[default]
    ColumnRead,
    RowWrite,
}

/// A tree step's index function: thread `tid` at step `s` combines `(a, b)`, or idles.
type TreeStep = fn(u32, u32) -> Option<(u32, u32)>;

/// Warp 0's read of the second operand at tree step `--step` of a reduction rung, computed by
/// the index functions the kernels themselves use (`bankwise_layout::reduce`).
fn reduction_step(kernel: KernelArg, args: &Args, mask: u32, geometry: Geometry) -> Result<Built> {
    let (name, step): (&str, TreeStep) = match kernel {
        KernelArg::ReduceInterleavedDivergent => ("reduce_interleaved_divergent", tree::interleaved_divergent),
        KernelArg::ReduceInterleavedStrided => {
            ("reduce_interleaved_strided", |tid, s| tree::interleaved_strided(tid, s, THREADS))
        }
        KernelArg::ReduceSequential => ("reduce_sequential", tree::sequential),
        _ => unreachable!("transposes are handled by the caller"),
    };
    let Some(width) = Width::from_bytes(args.elem_bytes()).filter(|_| matches!(args.elem_bytes(), 4 | 8)) else {
        bail!("a reduction's elements are 4 or 8 bytes, not {}", args.elem_bytes());
    };
    if args.access.is_some() {
        bail!("--access picks a transpose's tile access; {name} is a reduction (it takes --step)");
    }
    let s = args.step.unwrap_or(1);
    if !s.is_power_of_two() || s >= THREADS {
        bail!("--step must be a power of two below {THREADS}, not {s}");
    }
    let active = (0..32).filter(|&tid| step(tid, s).is_some()).fold(0u32, |m, tid| m | 1 << tid);
    if active & mask == 0 {
        bail!("no lane of warp 0 works at step {s} of {name}");
    }
    let bytes = u64::from(args.elem_bytes());
    let access = Access::from_fn(width, active & mask, |tid| step(tid, s).map_or(0, |(_, b)| u64::from(b) * bytes));
    let title = format!("{name}, {}-byte elements, step s = {s}: warp 0 reads shared[b]", args.elem_bytes());
    Ok(Built { access, geometry, title })
}

/// `--kernel K --emulated`: `bankwise emulate K --draw`, its type from --elem-bytes.
fn emulated(kernel: &str, args: &Args) -> Result<()> {
    if !crate::emulate::kernels().contains(&kernel) {
        bail!("no kernel `{kernel}` to emulate; `bankwise emulate --list` lists them");
    }
    let ty = match args.elem_bytes() {
        1 => "u8",
        2 => "u16",
        4 => "f32",
        8 => "f64",
        b => bail!("--elem-bytes must be 1, 2, 4 or 8, not {b}"),
    };
    crate::emulate::run(&crate::emulate::Args::defaults(kernel, ty, Some(crate::emulate::Draw::Full)))
}

fn parse_mask(s: &str) -> Result<u32, String> {
    let digits = s.trim_start_matches("0x").trim_start_matches("0X").replace('_', "");
    u32::from_str_radix(&digits, 16).map_err(|e| format!("{s:?} is not a 32-bit hexadecimal mask: {e}"))
}

/// `B,M,S` as a [`Swizzle`]: the bits read must lie above those changed (`S ≥ B`), under bit 64.
fn parse_swizzle(text: &str) -> Result<Swizzle, String> {
    let parts: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<Result<_, _>>()?;
    let [bits, base, shift] = parts[..] else {
        return Err(format!("a swizzle is B,M,S (three numbers, such as 3,4,3), not {text:?}"));
    };
    Swizzle::try_new(bits, base, shift)
        .ok_or_else(|| format!("Swizzle<{bits}, {base}, {shift}> needs S ≥ B and M + S + B ≤ 63"))
}

/// The access to draw, its geometry and a title.
#[derive(Debug)]
pub struct Built {
    pub access: Access,
    pub geometry: Geometry,
    pub title: String,
}

/// Builds the access the arguments describe.
pub fn build(args: &Args) -> Result<Built> {
    let mask = args.mask.unwrap_or(u32::MAX);
    let geometry = match args.geometry {
        GeometryArg::Modern => Geometry::MODERN,
        GeometryArg::HalfWarp16 => Geometry::HALF_WARP_16,
    };
    if let Some(name) = &args.pattern {
        let Some(p) = banks::named_patterns().into_iter().find(|p| p.name == name) else {
            bail!("no pattern named {name:?}; `bankwise banks --list` lists them");
        };
        let title = format!("{}: {}", p.name, p.description);
        return Ok(Built { access: p.access.with_mask(mask), geometry: p.geometry, title });
    }
    if let Some(row_bytes) = args.ldmatrix {
        let (layout, how) = match (args.pad, args.swizzle) {
            (Some(pad), _) => (RowLayout::Padded { pad }, format!("padded by {pad} bytes")),
            (_, Some(s)) => {
                (RowLayout::Swizzled(s), format!("Swizzle<{}, {}, {}> on bytes", s.bits(), s.base(), s.shift()))
            }
            _ => (RowLayout::RowMajor, "row-major".to_string()),
        };
        let access = banks::ldmatrix_fragment(layout, row_bytes)?.with_mask(mask);
        let title = format!("ldmatrix.x4 of a 16×16 block of 2-byte elements, rows of {row_bytes} bytes, {how}");
        return Ok(Built { access, geometry, title });
    }
    if let Some(name) = &args.kernel {
        let Ok(kernel) = <KernelArg as clap::ValueEnum>::from_str(name, false) else {
            bail!(
                "the model draws transpose_tiled, _padded, _swizzled and the reduction trees, not {name}; add --emulated"
            );
        };
        let layout = match kernel {
            KernelArg::TransposeTiled => TileLayout::Plain,
            KernelArg::TransposePadded => TileLayout::Padded,
            KernelArg::TransposeSwizzled => TileLayout::Swizzled,
            reduction => return reduction_step(reduction, args, mask, geometry),
        };
        if args.step.is_some() {
            bail!("--step picks a reduction tree's step; {name} is a transpose (it takes --access)");
        }
        let kind = match args.access.unwrap_or(AccessArg::ColumnRead) {
            AccessArg::ColumnRead => TileAccess::ColumnRead,
            AccessArg::RowWrite => TileAccess::RowWrite,
        };
        let Some(access) = tile_access(layout, args.elem_bytes(), kind) else {
            bail!("--elem-bytes must be 1, 2, 4 or 8, not {}", args.elem_bytes());
        };
        let title = format!(
            "{}, {}-byte elements, {} of warp 0 (pitch {})",
            tile_kernel_name(layout),
            args.elem_bytes(),
            kind.name(),
            layout.pitch(args.elem_bytes())
        );
        return Ok(Built { access: access.with_mask(mask), geometry, title });
    }
    // (clap drops --kernel's requirement where --stride, which excludes it, is given.)
    if args.elem_bytes.is_some() || args.access.is_some() || args.step.is_some() {
        bail!("--elem-bytes, --access and --step describe a --kernel's access; a strided access takes --width");
    }
    let Some(width) = Width::from_bytes(args.width) else {
        bail!("--width must be 1, 2, 4, 8 or 16 bytes, not {}", args.width);
    };
    let stride = args.stride.unwrap_or(1);
    let access = Access::strided(width, args.offset, stride).with_mask(mask);
    let title = format!("stride {stride} × {}-byte elements from byte {}, mask {mask:#010x}", args.width, args.offset);
    Ok(Built { access, geometry, title })
}

/// The `--list` text: one named pattern per line.
pub fn list() -> String {
    banks::named_patterns().iter().map(|p| format!("{:<28} {}\n", p.name, p.description)).collect()
}

pub fn run(args: &Args) -> Result<()> {
    if args.list {
        print!("{}", list());
        return Ok(());
    }
    if let Some(dir) = &args.concepts {
        for picture in banks::concept_pictures() {
            let path = dir.join(picture.file);
            std::fs::write(&path, picture.svg).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        return Ok(());
    }
    if let Some(kernel) = &args.kernel
        && (args.emulated || <KernelArg as clap::ValueEnum>::from_str(kernel, false).is_err())
    {
        return emulated(kernel, args);
    }
    let built = build(args)?;
    let analysis = banks::analyze(&built.access, &built.geometry)?;
    let color = !args.no_color && std::io::stdout().is_terminal();
    println!("{}\n", built.title);
    print!("{}", banks::render_text(&analysis, &built.geometry, color));
    if let Some(path) = &args.svg {
        let svg = banks::render_svg(&analysis, &built.geometry, &built.title);
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(kernel: KernelArg) -> String {
        clap::ValueEnum::to_possible_value(&kernel).unwrap().get_name().to_string()
    }

    #[test]
    fn strided_access_with_offset_and_mask() {
        let args = Args { stride: Some(3), width: 8, offset: 16, mask: Some(0xF), ..Args::default() };
        let b = build(&args).unwrap();
        assert_eq!(b.access.width, Width::B8);
        assert_eq!(b.access.addresses[2], Some(16 + 2 * 3 * 8));
        assert_eq!(b.access.active_mask(), 0xF);
        assert_eq!(b.geometry, Geometry::MODERN);
        let def = build(&Args { width: 4, ..Args::default() }).unwrap();
        assert_eq!(def.access, Access::strided(Width::B4, 0, 1));
        assert!(build(&Args { width: 3, ..Args::default() }).is_err());
    }

    #[test]
    fn named_pattern_brings_its_geometry() {
        let args = Args { pattern: Some("half-warp-stride-4".into()), ..Args::default() };
        let b = build(&args).unwrap();
        assert_eq!(b.geometry, Geometry::HALF_WARP_16);
        assert!(b.title.starts_with("half-warp-stride-4: "));
        assert!(build(&Args { pattern: Some("nope".into()), ..Args::default() }).is_err());
        assert!(list().lines().any(|l| l.starts_with("lds128-case5")));
    }

    #[test]
    fn ldmatrix_tiles_row_major_padded_and_swizzled() {
        let wavefronts = |args: Args| {
            let b = build(&Args { ldmatrix: Some(128), ..args }).unwrap();
            banks::analyze(&b.access, &b.geometry).unwrap().wavefronts()
        };
        assert_eq!(wavefronts(Args::default()), 32);
        assert_eq!(wavefronts(Args { pad: Some(16), ..Args::default() }), 4);
        assert_eq!(wavefronts(Args { swizzle: Some(parse_swizzle("3,4,3").unwrap()), ..Args::default() }), 4);
        // Two bits of XOR leave pairs of rows in each group: 2-way.
        assert_eq!(wavefronts(Args { swizzle: Some(parse_swizzle("2,4,3").unwrap()), ..Args::default() }), 8);
        assert!(build(&Args { ldmatrix: Some(24), ..Args::default() }).is_err());
        assert!(build(&Args { ldmatrix: Some(128), pad: Some(4), ..Args::default() }).is_err());
        assert!(parse_swizzle("3,4").is_err() && parse_swizzle("3,4,2").is_err() && parse_swizzle("a,b,c").is_err());
        assert!(parse_swizzle("1,4294967295,1").is_err() && parse_swizzle("0,0,64").is_err());
        assert!(build(&Args { ldmatrix: Some(u64::MAX - 15), ..Args::default() }).is_err());
        assert!(build(&Args { ldmatrix: Some(1 << 20), ..Args::default() }).is_err());
    }

    #[test]
    fn other_kernels_are_drawn_from_the_emulator() {
        // The model draws only the ladder rungs whose access it computes.
        let shuffle = Args { kernel: Some("reduce_shuffle".into()), ..Args::default() };
        assert!(build(&shuffle).unwrap_err().to_string().contains("--emulated"));
        // The emulator runs any kernel of `bankwise emulate --list`, and checks it.
        assert!(emulated("reduce_shuffle", &Args { elem_bytes: Some(4), ..Args::default() }).is_ok());
        assert!(emulated("transpose_tiled", &Args { elem_bytes: Some(2), ..Args::default() }).is_ok());
        assert!(emulated("transpose_tiled", &Args { elem_bytes: Some(3), ..Args::default() }).is_err());
        assert!(emulated("nope", &Args { elem_bytes: Some(4), ..Args::default() }).is_err());
    }

    #[test]
    fn kernel_tile_access() {
        let args = Args { kernel: Some("transpose_tiled".into()), elem_bytes: Some(4), ..Args::default() };
        let b = build(&args).unwrap();
        assert_eq!(b.access.addresses[1], Some(128));
        let a = banks::analyze(&b.access, &b.geometry).unwrap();
        assert_eq!(a.degree(), 32);
        let padded = Args { kernel: Some("transpose_padded".into()), elem_bytes: Some(2), ..Args::default() };
        assert_eq!(build(&padded).unwrap().access.addresses[1], Some(68));
        let row =
            Args { kernel: Some("transpose_swizzled".into()), access: Some(AccessArg::RowWrite), ..Args::default() };
        assert_eq!(build(&Args { elem_bytes: Some(4), ..row }).unwrap().access.addresses[5], Some(20));
        let bad = Args { kernel: Some("transpose_tiled".into()), elem_bytes: Some(16), ..Args::default() };
        assert!(build(&bad).is_err());
    }

    #[test]
    fn reduction_steps_show_the_strided_conflict() {
        let degree = |kernel, step| {
            let b =
                build(&Args { kernel: Some(name(kernel)), step: Some(step), elem_bytes: Some(4), ..Args::default() })
                    .unwrap();
            banks::analyze(&b.access, &b.geometry).unwrap().degree()
        };
        // Strided: lanes 2s words apart, 2s-way up to s = 4; beyond, only 256 / 2s lanes of
        // warp 0 work, 8 of them per bank: 8-way (Nsight Compute averaged 3.86 wavefronts per
        // load over all the steps, the model 3.80).
        assert_eq!(degree(KernelArg::ReduceInterleavedStrided, 1), 2);
        assert_eq!(degree(KernelArg::ReduceInterleavedStrided, 2), 4);
        assert_eq!(degree(KernelArg::ReduceInterleavedStrided, 4), 8);
        assert_eq!(degree(KernelArg::ReduceInterleavedStrided, 8), 8);
        assert_eq!(degree(KernelArg::ReduceInterleavedStrided, 16), 8);
        for s in [1, 2, 4, 8, 16] {
            assert_eq!(degree(KernelArg::ReduceSequential, s), 1, "sequential, step {s}");
        }
        // Divergent: lane tid works if tid % 2s == 0, reading tid + s: a warp's 32 / 2s working
        // lanes are 2s words apart, one per bank. Idle lanes, but no conflict (ncu agrees).
        for s in [1, 2, 4, 8, 16] {
            assert_eq!(degree(KernelArg::ReduceInterleavedDivergent, s), 1, "divergent, step {s}");
        }
        let args = |step, elem_bytes| Args {
            kernel: Some(name(KernelArg::ReduceSequential)),
            step: Some(step),
            elem_bytes: Some(elem_bytes),
            ..Args::default()
        };
        assert!(build(&args(3, 4)).is_err());
        assert!(build(&args(1, 2)).is_err());
        assert!(build(&args(256, 4)).is_err());
        assert!(build(&args(8, 8)).is_ok());
    }

    #[test]
    fn concepts_writes_the_guides_pictures() {
        let dir = std::env::temp_dir().join(format!("bankwise-concepts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        run(&Args { concepts: Some(dir.clone()), ..Args::default() }).unwrap();
        for picture in banks::concept_pictures() {
            assert_eq!(std::fs::read_to_string(dir.join(picture.file)).unwrap(), picture.svg);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = Args { concepts: Some(dir.join("no/such/folder")), ..Args::default() };
        assert!(run(&missing).unwrap_err().to_string().contains("writing"));
    }

    #[test]
    fn masks_parse_as_hex() {
        assert_eq!(parse_mask("0xFF"), Ok(0xFF));
        assert_eq!(parse_mask("ffff_0000"), Ok(0xFFFF_0000));
        assert!(parse_mask("0x1_0000_0000").is_err());
        assert!(parse_mask("zz").is_err());
    }

    #[test]
    fn options_a_mode_ignores_are_refused() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let refused = |line: &str| match Cli::try_parse_from(std::iter::once("banks").chain(line.split_whitespace())) {
            Err(_) => true,
            Ok(cli) => build(&cli.args).is_err(),
        };
        for line in [
            "--pattern column --width 8",
            "--pattern column --geometry half-warp-16",
            "--stride 2 --step 4",
            "--stride 2 --elem-bytes 8",
            "--step 4",
            "--kernel transpose_tiled --step 2",
            "--kernel reduce_sequential --access row-write",
            "--kernel transpose_tiled --width 8",
            "--kernel transpose_tiled --emulated --svg x.svg",
            "--list --stride 2",
            "--concepts img --pattern column",
        ] {
            assert!(refused(line), "{line} was accepted");
        }
        for line in
            ["--stride 2 --width 8", "--kernel transpose_tiled --elem-bytes 8 --access row-write", "--pattern column"]
        {
            assert!(!refused(line), "{line} was refused");
        }
    }
}
