//! The embedded kernels: the PTX modules, their entries, SASS for the architectures bankwise
//! ships, and the names of the kernels the host launches.
//!
//! `build.rs` provides them: rebuilt from `kernels/bankwise-builtin` and
//! `bankwise-builtin-sm80` in the bankwise repository, or copied from the package's `prebuilt/` folder (`BANKWISE_PREBUILT=1`, and
//! always in the published crate, which needs only stable Rust). [`ORIGIN`] says which.

use std::sync::OnceLock;

pub use bankwise_builder::manifest::{Entry, Param};

// `GENERATED_ALL` (the manifest's entry names) and `GENERATED_ORIGIN`, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/bankwise-builtin.rs"));

/// A byte image aligned for the driver: `cuModuleLoadData` reads an ELF image in place.
#[derive(Debug)]
#[repr(C, align(64))]
struct Aligned<T: ?Sized>(T);

/// One PTX module of bankwise's kernels, built from a kernel crate with rustc's
/// `nvptx64-nvidia-cuda` backend, with its entries manifest and the SASS shipped for it.
#[derive(Debug)]
pub struct KernelModule {
    /// The module's name: its kernel crate's (`bankwise-builtin`, `bankwise-builtin-sm80`).
    pub name: &'static str,
    /// The oldest GPU that runs it, as a compute capability (the PTX's `.target`).
    pub min_compute_capability: (i32, i32),
    /// The PTX. The driver JIT-compiles it where [`cubin_for`](Self::cubin_for) has no SASS
    /// for the GPU.
    pub ptx: &'static str,
    /// The entries manifest of [`ptx`](Self::ptx): one line per entry, `name(ptr, u64)` (see
    /// [`bankwise_builder::manifest`]).
    pub manifest: &'static str,
    sm_80: &'static Aligned<[u8]>,
    sm_90: &'static Aligned<[u8]>,
}

impl KernelModule {
    /// Whether a GPU of `compute_capability` (major, minor) runs the module.
    pub fn runs_on(&self, compute_capability: (i32, i32)) -> bool {
        compute_capability >= self.min_compute_capability
    }

    /// The SASS (a cubin, CUDA 13.0's ptxas from [`ptx`](Self::ptx)) to load on a GPU of
    /// `compute_capability` instead of JIT-compiling the PTX, 64-byte aligned: `sm_90`'s for
    /// 9.0, `sm_80`'s for any 8.x (SASS runs on GPUs of its major version with an equal or
    /// higher minor one). `None` for other GPUs, and when this build embeds no SASS for the
    /// module (see [`Origin::Rebuilt`]): load the PTX then. The CUDA C++ equivalent is a
    /// fatbinary with `-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90`
    /// plus the PTX.
    ///
    /// With the SASS, loading the module takes no JIT compilation (2.3–3.8 s for the base
    /// module's PTX on an H100 with the driver's JIT cache disabled).
    pub fn cubin_for(&self, compute_capability: (i32, i32)) -> Option<&'static [u8]> {
        let image: &'static [u8] = match compute_capability {
            (9, 0) => &self.sm_90.0,
            (8, minor) if minor >= 0 => &self.sm_80.0,
            _ => return None,
        };
        // build.rs writes an empty file for SASS it does not embed.
        (!image.is_empty()).then_some(image)
    }

    /// Every entry of the module, with its parameters, in the module's order: the manifest
    /// parsed.
    pub fn entries(&self) -> Vec<Entry> {
        // build.rs fails the build unless the manifest parses and lists exactly the PTX's entries.
        bankwise_builder::manifest::from_text(self.manifest).unwrap_or_default()
    }
}

/// Declares a [`KernelModule`] from the files build.rs wrote for `$stem`.
macro_rules! module {
    ($stem:literal, $min:expr) => {
        KernelModule {
            name: $stem,
            min_compute_capability: $min,
            ptx: include_str!(concat!(env!("OUT_DIR"), "/", $stem, ".ptx")),
            manifest: include_str!(concat!(env!("OUT_DIR"), "/", $stem, ".entries")),
            sm_80: &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $stem, ".sm_80.cubin"))),
            sm_90: &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $stem, ".sm_90.cubin"))),
        }
    };
}

/// Every kernel that runs from Volta on: `sm_70` PTX, built from `kernels/bankwise-builtin`.
pub static BASE: KernelModule = module!("bankwise-builtin", (7, 0));

/// The oldest GPU that runs [`SM80`], as a compute capability.
pub const SM80_MIN_COMPUTE_CAPABILITY: (i32, i32) = (8, 0);

/// The kernels that need Ampere's instructions (`cp.async`: [`MATMUL_MULTISTAGE`]): `sm_80`
/// PTX, built from `kernels/bankwise-builtin-sm80`. Loaded only on GPUs that run it.
pub static SM80: KernelModule = module!("bankwise-builtin-sm80", SM80_MIN_COMPUTE_CAPABILITY);

/// bankwise's modules, [`BASE`] first.
pub static MODULES: [&KernelModule; 2] = [&BASE, &SM80];

/// Where the embedded kernels came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built from the kernel sources by this build. `matches_shipped`: every module's fresh
    /// PTX and manifest are byte-identical to those in `prebuilt/`, so the shipped SASS is
    /// embedded; where a module's are not, none of its SASS is
    /// ([`KernelModule::cubin_for`] is `None`) and `cargo xtask kernels` refreshes them.
    Rebuilt {
        /// Whether the shipped kernels are the ones the sources build.
        matches_shipped: bool,
    },
    /// Copied from the package's `prebuilt/` folder, SASS included.
    Prebuilt,
}

/// Where this build's kernels came from.
pub const ORIGIN: Origin = GENERATED_ORIGIN;

/// Every entry of every module, with its parameters, [`BASE`]'s first.
pub fn manifest() -> &'static [Entry] {
    static PARSED: OnceLock<Vec<Entry>> = OnceLock::new();
    PARSED.get_or_init(|| MODULES.iter().flat_map(|m| m.entries()).collect())
}

/// `copy_bytes`: the bandwidth baseline.
pub const COPY_BYTES: &str = "copy_bytes";
/// `copy_rows_aligned`: rows of 4-byte words copied into rows that start on 16 bytes.
pub const COPY_ROWS_ALIGNED: &str = "copy_rows_aligned";
/// `transpose_naive_*`, indexed by [`crate::Width`] (1, 2, 4, 8 bytes).
pub const TRANSPOSE_NAIVE: [&str; 4] =
    ["transpose_naive_u8", "transpose_naive_u16", "transpose_naive_u32", "transpose_naive_u64"];

/// `transpose_tiled_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_TILED: [&str; 4] =
    ["transpose_tiled_u8", "transpose_tiled_u16", "transpose_tiled_u32", "transpose_tiled_u64"];
/// `transpose_padded_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_PADDED: [&str; 4] =
    ["transpose_padded_u8", "transpose_padded_u16", "transpose_padded_u32", "transpose_padded_u64"];
/// `transpose_swizzled_*`, indexed by [`crate::Width`].
pub const TRANSPOSE_SWIZZLED: [&str; 4] =
    ["transpose_swizzled_u8", "transpose_swizzled_u16", "transpose_swizzled_u32", "transpose_swizzled_u64"];

/// `transpose_*`, the tuned transpose, indexed by [`crate::Width`]: 16-byte vectors for 1-, 2-
/// and 4-byte elements of aligned shapes, scalar accesses through a tall tile for 8-byte ones.
pub const TRANSPOSE_TUNED: [&str; 4] = ["transpose_u8", "transpose_u16", "transpose_u32", "transpose_u64"];

/// `transpose_unaligned_u32`: the tuned transpose of 4-byte elements whose rows are not all
/// 16-byte aligned.
pub const TRANSPOSE_UNALIGNED_U32: &str = "transpose_unaligned_u32";
/// The tuned transpose of small 8-byte matrices whose rows start on a 32-byte sector.
pub const TRANSPOSE_SMALL_U64: &str = "transpose_small_u64";
/// [`TRANSPOSE_SMALL_U64`] with cache-streaming loads and stores, for the smallest of them.
pub const TRANSPOSE_SMALL_STREAMING_U64: &str = "transpose_small_streaming_u64";
/// `matmul_naive_*`, indexed by [`crate::matmul::Float::INDEX`] (`f32`, `f64`).
pub const MATMUL_NAIVE: [&str; 2] = ["matmul_naive_f32", "matmul_naive_f64"];
/// `matmul_coalesced_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_COALESCED: [&str; 2] = ["matmul_coalesced_f32", "matmul_coalesced_f64"];
/// `matmul_tiled_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_TILED: [&str; 2] = ["matmul_tiled_f32", "matmul_tiled_f64"];
/// `matmul_blocktile_1d_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_BLOCKTILE_1D: [&str; 2] = ["matmul_blocktile_1d_f32", "matmul_blocktile_1d_f64"];
/// `matmul_blocktile_2d_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_BLOCKTILE_2D: [&str; 2] = ["matmul_blocktile_2d_f32", "matmul_blocktile_2d_f64"];
/// `matmul_vectorized_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_VECTORIZED: [&str; 2] = ["matmul_vectorized_f32", "matmul_vectorized_f64"];
/// `matmul_vectorized_padded_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_VECTORIZED_PADDED: [&str; 2] = ["matmul_vectorized_padded_f32", "matmul_vectorized_padded_f64"];
/// `matmul_vectorized_swizzled_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_VECTORIZED_SWIZZLED: [&str; 2] = ["matmul_vectorized_swizzled_f32", "matmul_vectorized_swizzled_f64"];
/// `matmul_warptile_*`, indexed like [`MATMUL_NAIVE`].
pub const MATMUL_WARPTILE: [&str; 2] = ["matmul_warptile_f32", "matmul_warptile_f64"];
/// `matmul_tuned_<op(A)><op(B)>_*`: indexed like [`MATMUL_NAIVE`], then by the `op`s (NN, NT,
/// TN, TT).
pub const MATMUL_TUNED: [[&str; 4]; 2] = [
    ["matmul_tuned_nn_f32", "matmul_tuned_nt_f32", "matmul_tuned_tn_f32", "matmul_tuned_tt_f32"],
    ["matmul_tuned_nn_f64", "matmul_tuned_nt_f64", "matmul_tuned_tn_f64", "matmul_tuned_tt_f64"],
];
/// `matmul_tuned_wide_<op(A)><op(B)>_f32`: the tuned rung's 128 × 256 tiles, indexed by the
/// `op`s like [`MATMUL_TUNED`].
pub const MATMUL_TUNED_WIDE: [&str; 4] =
    ["matmul_tuned_wide_nn_f32", "matmul_tuned_wide_nt_f32", "matmul_tuned_wide_tn_f32", "matmul_tuned_wide_tt_f32"];
/// `matmul_tuned_whole_<op(A)><op(B)>_f32`: the tuned rung's square `f32` tiles with the
/// whole-tile path (a block whose tiles lie inside `A` and `B`, rows aligned, loads without
/// bounds checks), indexed by the `op`s like [`MATMUL_TUNED`].
pub const MATMUL_TUNED_WHOLE: [&str; 4] = [
    "matmul_tuned_whole_nn_f32",
    "matmul_tuned_whole_nt_f32",
    "matmul_tuned_whole_tn_f32",
    "matmul_tuned_whole_tt_f32",
];
/// `matmul_tuned_wide_whole_<op(A)><op(B)>_f32`: [`MATMUL_TUNED_WIDE`] with the whole-tile
/// path of [`MATMUL_TUNED_WHOLE`].
pub const MATMUL_TUNED_WIDE_WHOLE: [&str; 4] = [
    "matmul_tuned_wide_whole_nn_f32",
    "matmul_tuned_wide_whole_nt_f32",
    "matmul_tuned_wide_whole_tn_f32",
    "matmul_tuned_wide_whole_tt_f32",
];
/// `matmul_multistage_wide_whole_<op(A)><op(B)>_f64` ([`SM80`]'s): the multistage rung's wide
/// `f64` tiles with the whole-tile path (a block whose tiles lie inside `A` and `B`, rows
/// aligned, copies without bounds checks), indexed by the `op`s like [`MATMUL_TUNED`].
pub const MATMUL_MULTISTAGE_WIDE_WHOLE: [&str; 4] = [
    "matmul_multistage_wide_whole_nn_f64",
    "matmul_multistage_wide_whole_nt_f64",
    "matmul_multistage_wide_whole_tn_f64",
    "matmul_multistage_wide_whole_tt_f64",
];
/// `matmul_multistage_<op(A)><op(B)>_*` ([`SM80`]'s): indexed like [`MATMUL_TUNED`].
pub const MATMUL_MULTISTAGE: [[&str; 4]; 2] = [
    ["matmul_multistage_nn_f32", "matmul_multistage_nt_f32", "matmul_multistage_tn_f32", "matmul_multistage_tt_f32"],
    ["matmul_multistage_nn_f64", "matmul_multistage_nt_f64", "matmul_multistage_tn_f64", "matmul_multistage_tt_f64"],
];
/// `matmul_multistage_wide_<op(A)><op(B)>_*` ([`SM80`]'s): indexed like [`MATMUL_TUNED`].
pub const MATMUL_MULTISTAGE_WIDE: [[&str; 4]; 2] = [
    [
        "matmul_multistage_wide_nn_f32",
        "matmul_multistage_wide_nt_f32",
        "matmul_multistage_wide_tn_f32",
        "matmul_multistage_wide_tt_f32",
    ],
    [
        "matmul_multistage_wide_nn_f64",
        "matmul_multistage_wide_nt_f64",
        "matmul_multistage_wide_tn_f64",
        "matmul_multistage_wide_tt_f64",
    ],
];
/// `matmul_split_sum_*`, indexed like [`MATMUL_NAIVE`]: the tuned rung's split `k` sum.
pub const MATMUL_SPLIT_SUM: [&str; 2] = ["matmul_split_sum_f32", "matmul_split_sum_f64"];
/// `probe_load_*`, indexed by access width (1, 2, 4, 8, 16 bytes): see [`crate::probe`].
pub const PROBE_LOAD: [&str; 5] =
    ["probe_load_u8", "probe_load_u16", "probe_load_u32", "probe_load_u64", "probe_load_u128"];
/// `probe_store_*`, indexed like [`PROBE_LOAD`].
pub const PROBE_STORE: [&str; 5] =
    ["probe_store_u8", "probe_store_u16", "probe_store_u32", "probe_store_u64", "probe_store_u128"];

/// The name of every kernel entry of every module, [`BASE`]'s first, in the modules' order:
/// their manifests' names (read at build time with [`bankwise_builder::manifest::from_text`]).
/// [`crate::Gpu::new`] loads each one its GPU runs; the named constants above are among them
/// (a unit test checks this).
pub const ALL: &[&str] = GENERATED_ALL;

/// The `.entry` names defined in `ptx`.
pub fn entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.split(['(', ' ']).next().unwrap_or(""))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names the launchers use, each of which must be an entry of the module.
    fn named() -> Vec<&'static str> {
        let mut names = vec![
            COPY_BYTES,
            COPY_ROWS_ALIGNED,
            TRANSPOSE_UNALIGNED_U32,
            TRANSPOSE_SMALL_U64,
            TRANSPOSE_SMALL_STREAMING_U64,
        ];
        for table in [TRANSPOSE_NAIVE, TRANSPOSE_TILED, TRANSPOSE_PADDED, TRANSPOSE_SWIZZLED, TRANSPOSE_TUNED] {
            names.extend(table);
        }
        for table in [
            MATMUL_NAIVE,
            MATMUL_COALESCED,
            MATMUL_TILED,
            MATMUL_BLOCKTILE_1D,
            MATMUL_BLOCKTILE_2D,
            MATMUL_VECTORIZED,
            MATMUL_VECTORIZED_PADDED,
            MATMUL_VECTORIZED_SWIZZLED,
            MATMUL_WARPTILE,
            MATMUL_SPLIT_SUM,
        ] {
            names.extend(table);
        }
        names.extend(MATMUL_TUNED.as_flattened());
        names.extend(MATMUL_TUNED_WIDE);
        names.extend(MATMUL_TUNED_WHOLE);
        names.extend(MATMUL_TUNED_WIDE_WHOLE);
        names.extend(MATMUL_MULTISTAGE.as_flattened());
        names.extend(MATMUL_MULTISTAGE_WIDE.as_flattened());
        names.extend(MATMUL_MULTISTAGE_WIDE_WHOLE);
        names.extend(PROBE_LOAD);
        names.extend(PROBE_STORE);
        names
    }

    #[test]
    fn every_named_kernel_is_an_entry() {
        for name in named() {
            assert!(ALL.contains(&name), "{name} is not an entry of the embedded PTX (entries: {ALL:?})");
        }
    }

    #[test]
    fn all_is_the_manifests_and_the_ptx_entries() {
        let from_manifest: Vec<&str> = manifest().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(ALL, &from_manifest[..]);
        let defined: Vec<&str> = MODULES.iter().flat_map(|m| entries(m.ptx)).collect();
        assert_eq!(ALL, &defined[..]);
        assert!(ALL.len() > 100, "only {} entries", ALL.len());
        // Each module's PTX targets its oldest GPU.
        for (module, target) in [(&BASE, ".target sm_70"), (&SM80, ".target sm_80")] {
            assert!(module.ptx.lines().any(|l| l.trim() == target), "{} is not {target}", module.name);
        }
        assert!(entries(SM80.ptx).iter().all(|e| e.starts_with("matmul_multistage_")), "only what needs sm_80");
        let copy = manifest().iter().find(|e| e.name == COPY_BYTES).expect("copy_bytes is listed");
        assert_eq!(
            copy.params,
            [Param::Ptr, Param::Ptr, Param::Scalar(bankwise_builder::manifest::Scalar { kind: 'u', bits: 64 })]
        );
    }

    #[test]
    fn modules_run_from_their_compute_capability() {
        assert!(BASE.runs_on((7, 0)) && BASE.runs_on((9, 0)));
        assert!(!SM80.runs_on((7, 5)) && SM80.runs_on((8, 0)) && SM80.runs_on((8, 9)) && SM80.runs_on((9, 0)));
        // Each matmul rung needs the compute capability of the module holding its entries.
        for rung in crate::matmul::MatmulKernel::ALL {
            let module = MODULES.iter().find(|m| entries(m.ptx).contains(&rung.entries()[0])).expect("an entry");
            assert_eq!(rung.min_compute_capability(), module.min_compute_capability, "{}", rung.name());
        }
    }

    #[test]
    fn sass_is_chosen_by_compute_capability() {
        let embedded = !matches!(ORIGIN, Origin::Rebuilt { matches_shipped: false });
        for module in MODULES {
            for (cc, image) in [
                ((8, 0), &module.sm_80.0),
                ((8, 6), &module.sm_80.0),
                ((8, 9), &module.sm_80.0),
                ((9, 0), &module.sm_90.0),
            ] {
                let got = module.cubin_for(cc);
                if embedded {
                    assert!(got.is_some(), "{} {cc:?}", module.name);
                }
                if let Some(got) = got {
                    assert!(std::ptr::eq(got, image), "{cc:?} got the wrong image");
                    // An ELF image, 64-byte aligned for cuModuleLoadData.
                    assert_eq!(&got[..4], b"\x7fELF", "{cc:?}");
                    assert_eq!(got.as_ptr() as usize % 64, 0);
                }
            }
            if embedded {
                assert_ne!(module.cubin_for((8, 0)), module.cubin_for((9, 0)), "sm_80 and sm_90 share an image");
            }
            for cc in [(7, 0), (7, 5), (9, 1), (10, 0), (12, 0), (8, -1), (0, 0)] {
                assert_eq!(module.cubin_for(cc), None, "{cc:?} has no shipped SASS");
            }
        }
    }
}
