//! CPU checks of the embedded PTX modules: they define every kernel the host launches, and
//! CUDA's own assembler accepts each for the oldest architecture that runs it and the newest we
//! support with no spills and no local memory. The SASS holds the instructions each kernel is
//! meant to teach.
//!
//! ptxas and nvdisasm come from PyPI (`cargo xtask test` installs them into `.tools/`); without
//! them these tests fail with a message saying so, because they carry the weight on CI.

use bankwise::kernels::{ALL, BASE, MODULES, SM80, entries};
use bankwise::tools::{self, KernelResources};

/// Every module that runs on `arch` (`sm_70` or `sm_90`), assembled for it.
fn assemble(arch: &str) -> Vec<KernelResources> {
    let runs = |m: &&&bankwise::kernels::KernelModule| arch != "sm_70" || m.runs_on((7, 0));
    MODULES.iter().filter(runs).flat_map(|m| tools::resources(m.ptx, arch).unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// The PTX of `entry`, from the module that defines it.
fn entry_ptx(entry: &str) -> &'static str {
    let module = MODULES.iter().find(|m| entries(m.ptx).contains(&entry)).unwrap_or_else(|| panic!("no entry {entry}"));
    let start = module.ptx.find(&format!(".entry {entry}(")).expect("the entry");
    let rest = &module.ptx[start..];
    &rest[..rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1)]
}

#[test]
fn ptx_defines_every_kernel_the_host_names() {
    let defined: Vec<&str> = MODULES.iter().flat_map(|m| entries(m.ptx)).collect();
    for name in ALL {
        assert!(defined.contains(name), "kernel {name} is not an .entry of the PTX; entries: {defined:?}");
    }
}

#[test]
fn ptx_is_built_for_the_sm70_baseline_and_cp_async_for_sm80() {
    assert!(
        BASE.ptx.lines().any(|l| l.trim() == ".target sm_70"),
        "PTX must target sm_70 so that every GPU from Volta on can JIT it"
    );
    assert!(!BASE.ptx.contains("cp.async"), "the sm_70 module holds an sm_80 instruction");
    assert!(SM80.ptx.lines().any(|l| l.trim() == ".target sm_80"));
    for module in MODULES {
        assert!(module.ptx.lines().any(|l| l.trim() == ".address_size 64"));
    }
}

#[test]
fn ptxas_accepts_the_ptx_for_sm70_and_sm90_without_spills_or_local_memory_but_the_known() {
    for arch in ["sm_70", "sm_90"] {
        let report = assemble(arch);
        for name in ALL.iter().filter(|n| arch == "sm_90" || !n.starts_with("matmul_multistage_")) {
            let k = report
                .iter()
                .find(|k| k.name == *name)
                .unwrap_or_else(|| panic!("ptxas did not report {name} for {arch}"));
            let (spills, stack) = tools::known_local_memory(name, arch);
            assert!(k.spill_stores <= spills && k.spill_loads <= spills, "{name} spills on {arch}: {k:?}");
            assert!(k.stack_bytes <= stack, "{name} uses local memory (stack frame) on {arch}: {k:?}");
            let budget = register_budget(name);
            assert!(k.registers > 0 && k.registers <= budget, "{name} uses {} registers on {arch}", k.registers);
        }
    }
}

/// The most registers `kernel` may use: 128 (two blocks of 256 threads fit an SM), except the
/// register-tiled matrix multiplies from `matmul_blocktile_2d` on, whose 64 accumulators per
/// thread (`f32`) take 130–210 unless capped: one block of 256 threads per SM, which needs at
/// most 255. The tuned `f32` entries' launch bounds cap them at 128, but for the wide tiles'
/// (one block per SM, 128 accumulators); the multistage rung runs one block per SM at every
/// size.
fn register_budget(kernel: &str) -> u32 {
    let big_tiles =
        ["matmul_blocktile_2d_", "matmul_vectorized", "matmul_warptile_", "matmul_tuned_", "matmul_multistage_"];
    let capped = kernel.starts_with("matmul_tuned_") && kernel.ends_with("_f32") && !kernel.contains("_wide_");
    if big_tiles.iter().any(|p| kernel.starts_with(p)) && !capped { 255 } else { 128 }
}

/// The tuned and multistage entries' names, by type (`[f32, f64]`) where both have them, then
/// by the `op`s (NN, NT, TN, TT).
struct TunedNames {
    tuned: [[&'static str; 4]; 2],
    tuned_whole: [&'static str; 4],
    tuned_wide: [&'static str; 4],
    tuned_wide_whole: [&'static str; 4],
    multistage: [[&'static str; 4]; 2],
    multistage_wide: [[&'static str; 4]; 2],
    multistage_wide_whole: [&'static str; 4],
}

impl TunedNames {
    /// The names in `bankwise::kernels`' typed tables.
    fn of_the_module() -> Self {
        use bankwise::kernels::{MATMUL_F32 as F32, MATMUL_F64 as F64, PerOps};
        fn names<T>(table: &PerOps<T>) -> [&'static str; 4] {
            table.map(|e| e.map_or("", |e| e.name()))
        }
        TunedNames {
            tuned: [names(&F32.tuned), names(&F64.tuned)],
            tuned_whole: names(&F32.tuned_whole),
            tuned_wide: names(&F32.tuned_wide),
            tuned_wide_whole: names(&F32.tuned_wide_whole),
            multistage: [names(&F32.multistage), names(&F64.multistage)],
            multistage_wide: [names(&F32.multistage_wide), names(&F64.multistage_wide)],
            multistage_wide_whole: names(&F64.multistage_wide_whole),
        }
    }
}

#[test]
fn launch_bounds_reach_the_ptx() {
    let TunedNames {
        tuned,
        tuned_whole,
        tuned_wide,
        tuned_wide_whole,
        multistage,
        multistage_wide,
        multistage_wide_whole,
    } = TunedNames::of_the_module();
    // `#[kernel(launch_bounds(256, 2))]` on the tuned f32 entries, `(256, 1)` on the f64 ones,
    // on the wide tiles' and on every multistage entry.
    for (entries, blocks) in [
        (tuned[0], 2),
        (tuned_whole, 2),
        (tuned[1], 1),
        (tuned_wide, 1),
        (tuned_wide_whole, 1),
        (multistage[0], 1),
        (multistage[1], 1),
        (multistage_wide[0], 1),
        (multistage_wide[1], 1),
        (multistage_wide_whole, 1),
    ] {
        for entry in entries {
            let ptx = entry_ptx(entry);
            let head = &ptx[..ptx.find('{').expect("a body")];
            let want = format!(")\n.maxntid 256, 1, 1\n.minnctapersm {blocks}\n");
            assert!(head.ends_with(&want), "{entry}'s head:\n{head}");
        }
    }
    for module in MODULES {
        let left = module.ptx.contains(bankwise_builder::launch_bounds::PREFIX);
        assert!(!left, "a launch-bounds static is left in {}", module.name);
    }
}

#[test]
fn matmul_rungs_fuse_multiply_adds_and_the_vectorized_ones_move_16_byte_vectors() {
    let TunedNames {
        tuned,
        tuned_whole,
        tuned_wide,
        tuned_wide_whole,
        multistage,
        multistage_wide,
        multistage_wide_whole,
    } = TunedNames::of_the_module();
    use bankwise::matmul::MatmulKernel;
    for rung in MatmulKernel::ALL {
        let mut entries = vec![(rung.entries()[0], "FFMA", "FMUL"), (rung.entries()[1], "DFMA", "DMUL")];
        if rung.is_tuned() {
            // Every pair of `op`s and both tile sizes; `C` stored as vectors too.
            // (The multistage rung has wide `f64` tiles too.)
            let (square, wide, wide_f64) = if rung == MatmulKernel::Tuned {
                (tuned, tuned_wide, [].as_slice())
            } else {
                (multistage, multistage_wide[0], multistage_wide[1].as_slice())
            };
            entries = square[0].map(|e| (e, "FFMA", "FMUL")).into();
            entries.extend(square[1].map(|e| (e, "DFMA", "DMUL")));
            entries.extend(wide.map(|e| (e, "FFMA", "FMUL")));
            entries.extend(wide_f64.iter().map(|&e| (e, "DFMA", "DMUL")));
            if rung == MatmulKernel::Tuned {
                entries.extend(tuned_whole.into_iter().chain(tuned_wide_whole).map(|e| (e, "FFMA", "FMUL")));
            } else {
                entries.extend(multistage_wide_whole.map(|e| (e, "DFMA", "DMUL")));
            }
            for (entry, _, _) in &entries {
                assert!(sass_of(entry).contains("STG.E.128"), "{entry} has no STG.E.128");
            }
        }
        for (entry, fma, mul) in entries {
            let sass = sass_of(entry);
            assert!(sass.contains(fma), "{entry} has no {fma}:\n{sass}");
            // The only multiplies left are α's and β's, in the epilogue (none in the k loop).
            // The tuned kernel's epilogue has three paths (vectors with β = 0, vectors with
            // β ≠ 0, scalars at the edges), each multiplying the thread's results by α once.
            let muls = sass.matches(mul).count();
            let fmas = sass.matches(fma).count();
            let results = match (fma, entry.contains("_wide_")) {
                ("FFMA", true) => 128,
                ("FFMA", _) | (_, true) => 64,
                _ => 32,
            };
            let most = if rung.is_tuned() { 3 * results + 4 } else { fmas / 4 + 4 };
            assert!(muls <= most, "{entry}: {muls} {mul} against {fmas} {fma}");
            // Global vectors only where the kernel asks for them; ptxas merges shared loads
            // it can prove aligned by itself (the tiled rungs' row of `A`: LDS.128).
            let vectorized = rung.a_tile().is_some_and(|t| t != bankwise_layout::matmul::ATile::RowMajor);
            assert_eq!(sass.contains("LDG.E.128"), vectorized, "{entry}: LDG.E.128 expected: {vectorized}");
            if vectorized {
                assert!(sass.contains("LDS.128"), "{entry} has no LDS.128");
            }
            if rung == MatmulKernel::Multistage {
                // The tiles reach shared memory by asynchronous copies alone: 16-byte ones
                // (`LDGSTS.E.BYPASS.128`, L2 only) for a tile whose stored rows run along `x`
                // (all but NT's), element ones (`LDGSTS.E`, `.64` for `f64`) for one whose rows
                // run along `k` and at the matrices' edges (every entry).
                let copies: Vec<&str> = sass.lines().filter_map(|l| instruction(l, "LDGSTS")).collect();
                assert!(!sass.lines().any(|l| instruction(l, "STS").is_some()), "{entry} stores to shared memory");
                assert!(
                    sass.contains("LDGDEPBAR") && sass.contains("DEPBAR.LE SB0, 0x2"),
                    "{entry}: 2 groups in flight"
                );
                let nt = entry.contains("_nt_");
                let vectors = copies.iter().any(|c| c.starts_with("LDGSTS.E.BYPASS.128"));
                let element = if fma == "FFMA" { "LDGSTS.E" } else { "LDGSTS.E.64" };
                let elements = copies.contains(&element);
                assert_eq!((vectors, elements), (!nt, true), "{entry}: {copies:?}");
            } else if vectorized {
                // Tiles whose stored rows run along `k` are transposed by scalar stores: both
                // of the tuned NT entry's (A as stored, B transposed).
                let vector_stores = !entry.contains("_nt_");
                assert_eq!(sass.contains("STS.128"), vector_stores, "{entry}: STS.128 expected: {vector_stores}");
            }
        }
    }
}

/// The instruction of SASS line `line` (its opcode with modifiers) where its opcode is `op`.
fn instruction<'a>(line: &'a str, op: &str) -> Option<&'a str> {
    let code = line
        .split(';')
        .next()?
        .trim_start_matches(|c: char| c == '/' || c == '*' || c.is_ascii_hexdigit() || c.is_whitespace());
    let code = code.strip_prefix('@').map_or(code, |p| p.split_once(' ').map_or(p, |(_, rest)| rest.trim_start()));
    let opcode = code.split_whitespace().next()?;
    (opcode == op || opcode.strip_prefix(op).is_some_and(|rest| rest.starts_with('.'))).then_some(opcode)
}

/// The SASS of `kernel` for sm_90 (each module is assembled and disassembled once).
fn sass_of(kernel: &str) -> String {
    static SASS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    let all = SASS.get_or_init(|| {
        let each = MODULES.iter().flat_map(|m| tools::inspect(m.ptx, "sm_90").unwrap_or_else(|e| panic!("{e}")));
        each.map(|k| (k.resources.name, k.sass)).collect()
    });
    all.iter()
        .find(|(k, _)| k == kernel)
        .map(|(_, body)| body.clone())
        .unwrap_or_else(|| panic!("no SASS for {kernel}"))
}

#[test]
fn copy_moves_16_byte_vectors() {
    let sass = sass_of("copy_bytes");
    assert!(sass.contains("LDG.E.128"), "copy_bytes must load 16-byte vectors:\n{sass}");
    assert!(sass.contains("STG.E.128"), "copy_bytes must store 16-byte vectors:\n{sass}");
}

#[test]
fn row_copies_read_words_and_write_16_byte_vectors() {
    let sass = sass_of("copy_rows_aligned");
    let ops: Vec<&str> = sass.lines().filter_map(|l| instruction(l, "LDG").or_else(|| instruction(l, "STG"))).collect();
    // A step of the unrolled path: 4 vectors of 4 words, every load before the first store.
    let unrolled =
        ops.windows(20).any(|w| w[..16].iter().all(|o| *o == "LDG.E") && w[16..].iter().all(|o| *o == "STG.E.128"));
    assert!(unrolled, "copy_rows_aligned must load 16 words, then store 4 vectors: {ops:?}");
    assert!(ops.iter().all(|o| *o == "LDG.E" || *o == "STG.E.128"), "only word loads and vector stores: {ops:?}");
}

#[test]
fn naive_transpose_uses_no_shared_memory() {
    for width in ["u8", "u16", "u32", "u64"] {
        let sass = sass_of(&format!("transpose_naive_{width}"));
        assert!(
            sass.contains("LDG") && sass.contains("STG"),
            "transpose_naive_{width} must load and store global memory"
        );
        assert!(
            !sass.contains("LDS") && !sass.contains("STS"),
            "transpose_naive_{width} must not touch shared memory:\n{sass}"
        );
    }
}

#[test]
fn ptxas_report_parser_reads_every_field() {
    let text = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                ptxas info    : Function properties for k\n    \
                16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n\
                ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem, 380 bytes cmem[0]\n";
    let k = &tools::parse_ptxas_report(text)[0];
    assert_eq!(
        *k,
        KernelResources {
            name: "k".into(),
            registers: 40,
            shared_bytes: 4224,
            stack_bytes: 16,
            spill_stores: 4,
            spill_loads: 8
        }
    );
}

#[test]
fn ptxas_report_parser_keeps_an_entrys_spills_past_the_device_functions_after_it() {
    // ptxas 13.0 prints a device function's properties (here a panic handler's) after the
    // entry's, before the next entry.
    let text = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                ptxas info    : Function properties for k\n    \
                120 bytes stack frame, 84 bytes spill stores, 84 bytes spill loads\n\
                ptxas info    : Used 128 registers, used 1 barriers, 120 bytes cumulative stack size\n\
                ptxas info    : Function properties for _RNvNtCs0_4core9panicking9panic_fmt\n    \
                0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                ptxas info    : Compiling entry function 'j' for 'sm_90'\n\
                ptxas info    : Function properties for j\n    \
                0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                ptxas info    : Used 30 registers, used 0 barriers\n";
    let report = tools::parse_ptxas_report(text);
    let k = &report[0];
    assert_eq!((k.name.as_str(), k.registers, k.stack_bytes, k.spill_stores, k.spill_loads), ("k", 128, 120, 84, 84));
    assert_eq!((report[1].name.as_str(), report[1].registers, report[1].stack_bytes), ("j", 30, 0));
}

#[test]
fn tile_transposes_go_through_shared_memory() {
    for kernel in ["transpose_tiled", "transpose_padded", "transpose_swizzled"] {
        for width in ["u8", "u16", "u32", "u64"] {
            let sass = sass_of(&format!("{kernel}_{width}"));
            for op in ["LDS", "STS", "BAR.SYNC"] {
                assert!(sass.contains(op), "{kernel}_{width} must use {op}:\n{sass}");
            }
        }
    }
}

#[test]
fn tuned_transpose_moves_16_byte_vectors_through_shared_memory() {
    for width in ["u8", "u16", "u32"] {
        let sass = sass_of(&format!("transpose_{width}"));
        for op in ["LDG.E.128", "STG.E.128", "STS.128", "BAR.SYNC"] {
            assert!(sass.contains(op), "transpose_{width} must use {op}:\n{sass}");
        }
    }
    // 8-byte elements: scalar 8-byte accesses on both sides and in shared memory.
    let sass = sass_of("transpose_u64");
    for op in ["LDG.E.64", "STG.E.64", "LDS.64", "STS.64", "BAR.SYNC"] {
        assert!(sass.contains(op), "transpose_u64 must use {op}:\n{sass}");
    }
    assert!(!sass.contains(".128"), "transpose_u64 moves no 16-byte vectors:\n{sass}");
    let sass = sass_of("transpose_small_u64");
    for op in ["LDG.E.64", "STG.E.64", "LDS.64", "STS.64", "BAR.SYNC"] {
        assert!(sass.contains(op), "transpose_small_u64 must use {op}:\n{sass}");
    }
    assert!(!sass.contains(".EF"), "transpose_small_u64 takes no cache hint:\n{sass}");
    // The streaming variant: the same accesses, evict-first in the caches.
    let sass = sass_of("transpose_small_streaming_u64");
    for op in ["LDG.E.EF.64", "STG.E.EF.64", "LDS.64", "STS.64", "BAR.SYNC"] {
        assert!(sass.contains(op), "transpose_small_streaming_u64 must use {op}:\n{sass}");
    }
    // Unaligned rows: still 16-byte vectors on both global sides, realigned by a shuffle and
    // staged whole (STS.128), gathered element by element; the permutation's unaligned tiles
    // the same.
    for name in [
        "transpose_unaligned_u16",
        "transpose_unaligned_u32",
        "transpose_unaligned_large_u16",
        "transpose_unaligned_large_u32",
        "permute_tiled_unaligned_u16",
        "permute_tiled_unaligned_u32",
        "permute_tiled_unaligned_large_u16",
        "permute_tiled_unaligned_large_u32",
    ] {
        let sass = sass_of(name);
        for op in ["LDG.E.128", "STG.E.128", "STS.128", "SHFL.DOWN", "LDS", "BAR.SYNC"] {
            assert!(sass.contains(op), "{name} must use {op}:\n{sass}");
        }
    }
}

#[test]
fn permutation_flat_tiles_of_vectors_move_16_byte_words_everywhere() {
    // Runs of 16 bytes that stay innermost: 16-byte vectors on both global sides and in the
    // tile (a plain copy of a 16-byte struct would take two 8-byte accesses on each).
    for name in ["permute_tiled_flat_v4", "permute_tiled_flat_large_v4"] {
        let sass = sass_of(name);
        for op in ["LDG.E.128", "STG.E.128", "LDS.128", "STS.128", "BAR.SYNC"] {
            assert!(sass.contains(op), "{name} must use {op}:\n{sass}");
        }
        for op in ["LDS.64", "STS.64", "LDG.E.64", "STG.E.64"] {
            assert_eq!(count_op(&sass, op, ""), 0, "{name} must not use {op}:\n{sass}");
        }
    }
}

/// The SASS mnemonic each probe width must compile to, load and store.
const PROBE_SASS: [(&str, &str); 5] = [("u8", ".U8"), ("u16", ".U16"), ("u32", ""), ("u64", ".64"), ("u128", ".128")];

/// Counts `op` + `suffix` (e.g. `LDS` + `.64`) as a whole SASS mnemonic.
fn count_op(sass: &str, op: &str, suffix: &str) -> usize {
    let want = format!("{op}{suffix}");
    sass.split(|c: char| c.is_whitespace() || c == ';').filter(|t| *t == want).count()
}

#[test]
fn probes_use_shared_instructions_of_their_width() {
    for (width, suffix) in PROBE_SASS {
        for (kind, op, other) in [("load", "LDS", "STS"), ("store", "STS", "LDS")] {
            let name = format!("probe_{kind}_{width}");
            let sass = sass_of(&name);
            // Unrolled: at least UNROLL accesses of exactly this width, on .shared addresses.
            let n = count_op(&sass, op, suffix);
            assert!(n >= bankwise::probe::UNROLL as usize, "{name}: {n} × {op}{suffix}:\n{sass}");
            for (o, s) in PROBE_SASS.iter().flat_map(|&(_, s)| [(op, s), (other, s)]) {
                let allowed = s == suffix || (o == "STS" && s.is_empty()); // the fill is 4-byte STS
                assert!(allowed || count_op(&sass, o, s) == 0, "{name} contains {o}{s}:\n{sass}");
            }
            assert!(!sass.contains(" LD.") && !sass.contains(" ST."), "{name} uses generic LD/ST:\n{sass}");
            assert!(sass.contains("SR_CLOCKLO"), "{name} must read clock64:\n{sass}");
        }
    }
}

#[test]
fn reduce_shuffle_and_tuned_reduce_use_shuffles_and_the_tuned_one_16_byte_loads() {
    for op in ["sum", "min", "max"] {
        for t in ["f32", "f64", "i32", "u32", "i64", "u64"] {
            let sass = sass_of(&format!("reduce_shuffle_{op}_{t}"));
            assert!(sass.contains("SHFL"), "reduce_shuffle_{op}_{t} must shuffle:\n{sass}");
            let sass = sass_of(&format!("reduce_{op}_{t}"));
            for ins in ["SHFL", "LDG.E.128"] {
                assert!(sass.contains(ins), "reduce_{op}_{t} must use {ins}:\n{sass}");
            }
            // The tree rungs go through shared memory with block barriers.
            let sass = sass_of(&format!("reduce_sequential_{op}_{t}"));
            for ins in ["LDS", "STS", "BAR.SYNC"] {
                assert!(sass.contains(ins), "reduce_sequential_{op}_{t} must use {ins}");
            }
        }
    }
    // The corrected unrolled warp orders its lanes with `__syncwarp` (`bar.warp.sync`, which
    // ptxas lowers to a scheduling barrier in converged code): two per step, six steps.
    let ptx_of = |name: &str| entry_ptx(name).to_string();
    assert_eq!(ptx_of("reduce_unrolled_warp_sum_f32").matches("bar.warp.sync").count(), 12);
    // Its racy original (not a rung) has none, and through `volatile` keeps every step's shared
    // load and store: six of each in the warp's part.
    for t in ["f32", "u32"] {
        let ptx = ptx_of(&format!("reduce_unrolled_warp_unsynced_sum_{t}"));
        assert_eq!(ptx.matches("bar.warp.sync").count(), 0);
        assert_eq!(ptx.matches("ld.volatile.shared").count(), 7, "the lane's own value and six steps");
        assert_eq!(ptx.matches("st.volatile.shared").count(), 6);
    }
}

#[test]
fn tuned_reduce_fits_its_blocks_per_sm() {
    use bankwise_layout::reduce::tuned::{BLOCKS_PER_SM, THREADS};
    // sm_90 (H100), the target of the bandwidth goal; on sm_70 the 8-byte kernels may need a
    // few more registers (ptxas 12.9), and then fewer blocks are resident at once.
    for arch in ["sm_90"] {
        for k in assemble(arch)
            .iter()
            .filter(|k| ["reduce_sum_", "reduce_min_", "reduce_max_"].iter().any(|p| k.name.starts_with(p)))
        {
            // 64 Ki registers per SM, allocated per warp in units of 256 (8 per thread).
            let per_thread = k.registers.div_ceil(8) * 8;
            assert!(
                per_thread * THREADS * BLOCKS_PER_SM <= 65_536,
                "{} uses {} registers on {arch}: {BLOCKS_PER_SM} blocks of {THREADS} threads do not fit an SM",
                k.name,
                k.registers
            );
        }
    }
}

#[test]
fn transposes_keep_the_registers_their_residency_was_measured_with() {
    // Blocks resident per SM on sm_90, as measured in docs/benchmarks.md: the ladder's kernels
    // at 40 registers or fewer (six blocks of 256 threads); the tuned kernels, one tile per
    // block with no loop, at 32 for 1-, 4-byte and small 8-byte elements (eight blocks of 256
    // threads, sixteen of 128). A loop over tiles, or over the batch alone, once held them at
    // 40–68 registers, three to six blocks.
    let layout = |name: &str| match name {
        "transpose_small_u64" | "transpose_small_streaming_u64" => (128, 16),
        "transpose_u8" | "transpose_u32" => (256, 8),
        "transpose_u64" | "transpose_swizzled_u64" => (256, 5),
        // Eight rounds of held vectors and the row's extra one: 78 registers, 3 blocks (the
        // figures of docs/benchmarks.md, 2026-11-29).
        "transpose_unaligned_u32" => (256, 3),
        "transpose_unaligned_large_u32" => (256, 2),
        // 128 × 128 tiles: eight rounds of held vectors, as `f32`'s, in 2-byte elements.
        // `transpose_unaligned_large_u16` spills at two blocks (`tools::known_local_memory`);
        // launches past 2^32 elements only.
        "transpose_unaligned_u16" | "transpose_unaligned_large_u16" => (256, 2),
        "transpose_u16" => (256, 4),
        _ => (256, 6),
    };
    let kernels = assemble("sm_90");
    let transposes: Vec<_> = kernels.iter().filter(|k| k.name.starts_with("transpose")).collect();
    assert_eq!(transposes.len(), 26, "every transpose entry");
    for k in transposes {
        let (threads, min_blocks) = layout(&k.name);
        // 64 Ki registers per SM, allocated per warp in units of 256 (8 per thread).
        let blocks = 65_536 / (k.registers.div_ceil(8) * 8 * threads);
        assert!(blocks >= min_blocks, "{} uses {} registers: {blocks} blocks of {threads} per SM", k.name, k.registers);
    }
}

#[test]
fn skinny_transposes_move_whole_words_on_both_sides() {
    // Segments staged and read as whole words (the word's STS in, its LDS out), the span one
    // element at a time in shared memory; the word's loads and stores on both global sides.
    let suffix = |bits: usize| match bits {
        8 => ".U8",
        16 => ".U16",
        32 => "",
        64 => ".64",
        _ => ".128",
    };
    for width in ["u8", "u16", "u32", "u64"] {
        let bits: usize = width[1..].parse().expect("u<bits>");
        for (word, infix) in [(16, ""), (8, "8b_"), (4, "4b_"), (2, "2b_")] {
            if word * 8 < bits {
                continue;
            }
            for (name, staged, element) in [("interleave", "STS", "LDS"), ("deinterleave", "LDS", "STS")] {
                let kernel = format!("permute_{name}_{infix}{width}");
                let sass = sass_of(&kernel);
                let w = suffix(word * 8);
                for (op, s) in [("LDG", format!(".E{w}")), ("STG", format!(".E{w}")), (staged, w.to_string())] {
                    assert!(count_op(&sass, op, &s) > 0, "{kernel} must use {op}{s}:\n{sass}");
                }
                assert!(sass.contains("BAR.SYNC"), "{kernel} must wait at a barrier:\n{sass}");
                // A word's elements at least.
                let (per_word, singles) = (word * 8 / bits, count_op(&sass, element, suffix(bits)));
                assert!(
                    singles >= per_word,
                    "{kernel}: {singles} {element}{}, {per_word} at least:\n{sass}",
                    suffix(bits)
                );
            }
        }
    }
}
