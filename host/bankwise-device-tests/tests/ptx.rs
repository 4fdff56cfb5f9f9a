//! CPU checks of the primitives PTX: ptxas assembles it for sm_70 and sm_90 with no spills and
//! no local memory in any entry, and each entry's sm_90 SASS holds the instructions its
//! primitive is meant to produce (shuffles, votes, barrier reductions, global and shared
//! atomics at each scope, reds, fences, clocks, vector/streaming/non-coherent loads and stores).
//!
//! ptxas and nvdisasm come from PyPI (`cargo xtask test` installs them into `.tools/`); without
//! them these tests fail with a message saying so, because they carry the weight on CI.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use bankwise::tools::{self, Inspected, KernelResources};
use bankwise_device_tests::{ENTRIES, PTX};

/// Each entry's resources and SASS for `arch` (`bankwise::tools::inspect`).
fn inspect(arch: &str) -> Vec<Inspected> {
    tools::inspect(PTX, arch).unwrap_or_else(|e| panic!("{e}"))
}

fn assemble(arch: &str) -> Vec<KernelResources> {
    tools::resources(PTX, arch).unwrap_or_else(|e| panic!("{e}"))
}

/// The entry names of the manifest.
fn entries() -> Vec<&'static str> {
    ENTRIES.lines().filter_map(|l| l.split('(').next()).filter(|n| !n.is_empty()).collect()
}

/// Each entry's sm_90 SASS as its instruction tokens (the module is assembled once).
fn sass() -> &'static BTreeMap<String, Vec<String>> {
    static SASS: OnceLock<BTreeMap<String, Vec<String>>> = OnceLock::new();
    SASS.get_or_init(|| {
        inspect("sm_90")
            .into_iter()
            .map(|Inspected { resources, sass: body }| (resources.name, body))
            .map(|(name, body)| {
                let tokens = body.split_whitespace().map(|t| t.trim_matches([',', ';']).to_string()).collect();
                (name, tokens)
            })
            .collect()
    })
}

/// Whether `tokens` hold the instruction or operand `pattern`, alone or with further
/// `.`-suffixes (`BAR.RED.POPC` matches `BAR.RED.POPC.DEFER_BLOCKING`, not `BAR.RED.POPCX`).
fn holds(tokens: &[String], pattern: &str) -> bool {
    tokens.iter().any(|t| t == pattern || t.strip_prefix(pattern).is_some_and(|rest| rest.starts_with('.')))
}

/// What an entry's SASS must hold and must not hold.
#[derive(Default)]
struct Expect {
    has: Vec<String>,
    lacks: Vec<String>,
}

const SCOPES: [&str; 3] = ["SM", "GPU", "SYS"];
const TYPES: [&str; 6] = ["u32", "i32", "u64", "i64", "f32", "f64"];
const INTEGERS: [&str; 4] = ["u32", "i32", "u64", "i64"];

/// The SASS type suffix of a global atomic or red of `op` on `ty` (measured with ptxas 13.0).
fn suffix(op: &str, ty: &str) -> &'static str {
    match (op, ty) {
        ("ADD", "f32") => ".F32.FTZ.RN",
        ("ADD", "f64") => ".F64.RN",
        ("MIN" | "MAX", "i32") => ".S32",
        ("MIN" | "MAX", "i64") => ".S64",
        (_, "u64" | "i64" | "f64") => ".64",
        _ => "",
    }
}

/// The instructions each entry is meant to produce on sm_90.
fn expectations() -> BTreeMap<String, Expect> {
    let mut e: BTreeMap<String, Expect> = BTreeMap::new();
    let mut has = |entry: &str, what: &[&str]| {
        e.entry(entry.to_string()).or_default().has.extend(what.iter().map(|s| s.to_string()));
    };
    has("thread_indices", &["SR_TID", "SR_CTAID", "SR_LANEID"]);
    has("global_index", &["SR_TID", "SR_CTAID"]);
    has("barrier_reductions", &["BAR.RED.POPC", "BAR.RED.AND", "BAR.RED.OR"]);
    has("block_exchange", &["STS", "BAR.SYNC", "LDS"]);
    has("warp_exchange", &["STS", "LDS"]);
    for (kind, sass) in [("down", "SHFL.DOWN"), ("up", "SHFL.UP"), ("xor", "SHFL.BFLY"), ("idx", "SHFL.IDX")] {
        for ty in ["u32", "u64", "f64", "pair"] {
            has(&format!("shfl_{kind}_{ty}"), &[sass]);
        }
    }
    has("votes", &["VOTE.ALL", "VOTE.ANY"]);
    has("active_mask_divergent", &["VOTE.ANY"]);
    has("fence_message", &["MEMBAR.SC.CTA", "MEMBAR.SC.GPU", "MEMBAR.SC.SYS", "ATOMG.E.EXCH.STRONG.GPU"]);
    for ty in TYPES {
        let ops: &[&str] = if INTEGERS.contains(&ty) { &["ADD", "EXCH", "MIN", "MAX"] } else { &["ADD", "EXCH"] };
        for op in ops {
            let lower = if *op == "EXCH" { "exchange".to_string() } else { op.to_lowercase() };
            let at_scopes = |unit: &str| SCOPES.map(|s| format!("{unit}.E.{op}{}.STRONG.{s}", suffix(op, ty)));
            has(&format!("atomic_{lower}_{ty}"), &at_scopes("ATOMG").each_ref().map(String::as_str));
            if *op != "EXCH" {
                has(&format!("red_{lower}_{ty}"), &at_scopes("REDG").each_ref().map(String::as_str));
            }
            // Shared atomics: 32-bit integer ops and exchanges are single instructions; 64-bit
            // add/min/max and float adds are compare-and-swap loops (ATOMS.CAST.SPIN).
            let wide = ty.ends_with("64");
            let shared = match (*op, ty) {
                ("EXCH", _) => format!("ATOMS.EXCH{}", if wide { ".64" } else { "" }),
                ("ADD", "u32" | "i32") => "ATOMS.ADD".to_string(),
                (_, "u32") => format!("ATOMS.{op}"),
                (_, "i32") => format!("ATOMS.{op}.S32"),
                _ => format!("ATOMS.CAST.SPIN{}", if wide { ".64" } else { "" }),
            };
            has(&format!("shared_atomic_{lower}_{ty}"), &[&shared]);
        }
        let cas: [String; 3] = SCOPES.map(|s| format!("ATOMG.E.CAS{}.STRONG.{s}", suffix("CAS", ty)));
        has(&format!("atomic_cas_{ty}"), &cas.each_ref().map(String::as_str));
        has(&format!("atomic_cas_increment_{ty}"), &cas.each_ref().map(String::as_str));
        let shared_cas = format!("ATOMS.CAS{}", suffix("CAS", ty));
        has(&format!("shared_atomic_cas_{ty}"), &[&shared_cas]);
        has(&format!("shared_cas_increment_{ty}"), &[&shared_cas]);
    }
    has("clock_monotonic", &["SR_CLOCKLO"]);
    has("global_timer_monotonic", &["SR_GLOBALTIMERLO"]);
    // The checked constructors' views (their handles pass through a `Result`) still access
    // shared memory with LDS/STS, not generic LD.E/ST.E (checked below for every shared entry).
    has("shared_views", &["BAR.SYNC", "LDS", "STS"]);
    has("copy_v4", &["LDG.E.128", "STG.E.128"]);
    has("copy_v4_streaming", &["LDG.E.EF.128", "STG.E.EF.128"]);
    has("copy_v4_nc", &["LDG.E.128.CONSTANT", "STG.E.128"]);
    has("copy_u64_streaming", &["LDG.E.EF.64", "STG.E.EF.64"]);
    has("copy_u64_nc", &["LDG.E.64.CONSTANT", "STG.E.64"]);
    has("copy_u32_nc", &["LDG.E.CONSTANT", "STG.E"]);
    // The emulator's planted out-of-bounds copy (never launched on a GPU): plain accesses.
    has("planted_off_by_one", &["LDG.E", "STG.E"]);
    // What must be absent: a warp-scoped exchange needs no block barrier; a red returns
    // nothing, so it is no ATOMG; shared-memory atomics touch no global atomic unit; and no
    // entry that works in shared memory reaches it through generic addresses (LD.E/ST.E/ATOM,
    // which the shared handles would produce if LLVM lost their address space).
    for (entry, x) in e.iter_mut() {
        if entry == "warp_exchange" {
            x.lacks.push("BAR.SYNC".into());
        }
        if entry.starts_with("red_") || entry.starts_with("shared_") {
            x.lacks.push("ATOMG".into());
        }
        if entry.starts_with("shared_") || ["block_exchange", "warp_exchange"].contains(&entry.as_str()) {
            x.lacks.extend(["LD.E", "ST.E", "ATOM"].map(String::from));
        }
    }
    e
}

#[test]
fn ptx_targets_sm70_and_defines_every_manifest_entry() {
    assert!(PTX.lines().any(|l| l.trim() == ".target sm_70"), "the primitives must build for the sm_70 baseline");
    let names = entries();
    assert_eq!(names.len(), 112, "bankwise-primitives has 112 entries; the manifest lists {names:?}");
    for name in names {
        assert!(PTX.contains(&format!(".entry {name}(")), "{name} is in the manifest but not an .entry of the PTX");
    }
}

#[test]
fn ptxas_accepts_every_entry_for_sm70_and_sm90_without_spills_or_local_memory() {
    for arch in ["sm_70", "sm_90"] {
        let report = assemble(arch);
        for name in entries() {
            let k = report
                .iter()
                .find(|k| k.name == name)
                .unwrap_or_else(|| panic!("ptxas did not report {name} for {arch}"));
            assert_eq!((k.spill_stores, k.spill_loads), (0, 0), "{name} spills on {arch}: {k:?}");
            assert_eq!(k.stack_bytes, 0, "{name} uses local memory (a stack frame) on {arch}: {k:?}");
            assert!(k.registers > 0 && k.registers <= 64, "{name} uses {} registers on {arch}", k.registers);
        }
    }
}

#[test]
fn every_entry_has_sass_expectations() {
    let expected = expectations();
    let names = entries();
    let missing: Vec<_> = names.iter().filter(|n| !expected.contains_key(**n)).collect();
    assert!(missing.is_empty(), "entries without SASS expectations: {missing:?}");
    let unknown: Vec<_> = expected.keys().filter(|k| !names.contains(&k.as_str())).collect();
    assert!(unknown.is_empty(), "expectations for entries the module lacks: {unknown:?}");
}

#[test]
fn sm90_sass_holds_each_primitives_instructions() {
    let sass = sass();
    let mut failures = Vec::new();
    for (entry, expect) in expectations() {
        let Some(tokens) = sass.get(&entry) else {
            failures.push(format!("{entry}: no SASS"));
            continue;
        };
        for want in &expect.has {
            if !holds(tokens, want) {
                failures.push(format!("{entry}: no {want}"));
            }
        }
        for unwanted in &expect.lacks {
            if holds(tokens, unwanted) {
                failures.push(format!("{entry}: holds {unwanted}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} SASS expectations failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn token_matching_respects_suffix_boundaries() {
    let tokens: Vec<String> =
        ["@P0", "ATOMG.E.ADD.64.STRONG.GPU", "BAR.RED.POPC.DEFER_BLOCKING", "SR_TID.X"].map(String::from).to_vec();
    assert!(holds(&tokens, "BAR.RED.POPC") && holds(&tokens, "SR_TID") && holds(&tokens, "ATOMG"));
    assert!(holds(&tokens, "ATOMG.E.ADD.64.STRONG.GPU"));
    assert!(!holds(&tokens, "ATOMG.E.ADD.STRONG.GPU"), "a 64-bit add is not a 32-bit one");
    assert!(!holds(&tokens, "BAR.RED.POP") && !holds(&tokens, "SR_TI"));
    // The generic-access patterns the shared entries must lack match only generic accesses.
    let shared: Vec<String> = ["LDS.64", "STS", "ATOMS.ADD", "LDG.E", "STG.E.64"].map(String::from).to_vec();
    assert!(!holds(&shared, "LD.E") && !holds(&shared, "ST.E") && !holds(&shared, "ATOM"));
    let generic: Vec<String> = ["LD.E.64", "ST.E", "ATOM.E.ADD.STRONG.GPU"].map(String::from).to_vec();
    assert!(holds(&generic, "LD.E") && holds(&generic, "ST.E") && holds(&generic, "ATOM"));
}
