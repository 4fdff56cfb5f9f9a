//! The embedded kernels: the PTX modules, their entries, SASS for the architectures bankwise
//! ships, and the typed entries of the matrix multiply (the transposes', reductions', copies'
//! and probes' are looked up through `bankwise_builtin`'s traits and constants directly).
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

/// The kernels that need Ampere's instructions (`cp.async`: [`MatmulKernel::Multistage`](crate::MatmulKernel::Multistage)): `sm_80`
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

/// A ladder rung's parameters (`Gemm`'s order): `c`, `a`, `b`, `m`, `n`, `k`, `lda`, `ldb`,
/// `ldc`, `alpha`, `beta`. Positional, not a `#[repr(C)]` struct: passed as one, the `f32`
/// entries' SASS was scheduled differently and measured slower (`docs/decisions.md`,
/// 2026-11-26); the typed launch checks each one's type all the same.
pub type GemmParams<T> = (*mut T, *const T, *const T, u64, u64, u64, u64, u64, u64, T, T);
/// A tuned or multistage entry's parameters: [`GemmParams`], then the batch's `count`,
/// `first`, `stride_a`, `stride_b`, `stride_c`.
pub type TunedParams<T> = (*mut T, *const T, *const T, u64, u64, u64, u64, u64, u64, T, T, u64, u64, u64, u64, u64);
/// Split `k`'s sum's parameters: `c`, the workspace `w`, `m`, `n`, `ldc`, `alpha`, `beta`,
/// `slices`.
pub type SplitSumParams<T> = (*mut T, *const T, u64, u64, u64, T, T, u64);

/// Four entries indexed by the `op`s: NN, NT, TN, TT; `None` where a tile has none for the type.
pub type PerOps<T> = [Option<bankwise_runtime::KernelEntry<TunedParams<T>>>; 4];

/// The matrix multiply's entries for one element type: the typed lookup its launchers use.
#[derive(Debug)]
pub struct MatmulEntries<T> {
    /// `matmul_naive_*` … `matmul_warptile_*`, in [`crate::MatmulKernel`]'s ladder order
    /// (naive, coalesced, tiled, blocktile 1-d, blocktile 2-d, vectorized, vectorized padded,
    /// vectorized swizzled, warptile).
    pub ladder: [bankwise_runtime::KernelEntry<GemmParams<T>>; 9],
    /// `matmul_tuned_<ops>_*`: square tiles.
    pub tuned: PerOps<T>,
    /// `matmul_tuned_wide_<ops>_f32`: 128 × 256 tiles.
    pub tuned_wide: PerOps<T>,
    /// `matmul_tuned_whole_<ops>_f32`: square tiles, whole-tile path.
    pub tuned_whole: PerOps<T>,
    /// `matmul_tuned_wide_whole_<ops>_f32`.
    pub tuned_wide_whole: PerOps<T>,
    /// `matmul_multistage_<ops>_*` ([`SM80`]'s).
    pub multistage: PerOps<T>,
    /// `matmul_multistage_wide_<ops>_*`.
    pub multistage_wide: PerOps<T>,
    /// `matmul_multistage_wide_whole_<ops>_f64`.
    pub multistage_wide_whole: PerOps<T>,
    /// `matmul_split_sum_*`.
    pub split_sum: bankwise_runtime::KernelEntry<SplitSumParams<T>>,
}

/// `[Some(nn), Some(nt), Some(tn), Some(tt)]` of a crate's module.
macro_rules! per_ops {
    ($module:path: $nn:ident, $nt:ident, $tn:ident, $tt:ident) => {{
        use $module as m;
        [Some(m::$nn), Some(m::$nt), Some(m::$tn), Some(m::$tt)]
    }};
}

/// The `f32` entries.
pub const MATMUL_F32: MatmulEntries<f32> = {
    use bankwise_builtin::matmul as b;
    MatmulEntries {
        ladder: [
            b::matmul_naive_f32,
            b::matmul_coalesced_f32,
            b::matmul_tiled_f32,
            b::matmul_blocktile_1d_f32,
            b::matmul_blocktile_2d_f32,
            b::matmul_vectorized_f32,
            b::matmul_vectorized_padded_f32,
            b::matmul_vectorized_swizzled_f32,
            b::matmul_warptile_f32,
        ],
        tuned: per_ops!(bankwise_builtin::matmul: matmul_tuned_nn_f32, matmul_tuned_nt_f32, matmul_tuned_tn_f32, matmul_tuned_tt_f32),
        tuned_wide: per_ops!(bankwise_builtin::matmul:
            matmul_tuned_wide_nn_f32, matmul_tuned_wide_nt_f32, matmul_tuned_wide_tn_f32, matmul_tuned_wide_tt_f32),
        tuned_whole: per_ops!(bankwise_builtin::matmul:
            matmul_tuned_whole_nn_f32, matmul_tuned_whole_nt_f32, matmul_tuned_whole_tn_f32, matmul_tuned_whole_tt_f32),
        tuned_wide_whole: per_ops!(bankwise_builtin::matmul:
            matmul_tuned_wide_whole_nn_f32, matmul_tuned_wide_whole_nt_f32,
            matmul_tuned_wide_whole_tn_f32, matmul_tuned_wide_whole_tt_f32),
        multistage: per_ops!(bankwise_builtin_sm80:
            matmul_multistage_nn_f32, matmul_multistage_nt_f32, matmul_multistage_tn_f32, matmul_multistage_tt_f32),
        multistage_wide: per_ops!(bankwise_builtin_sm80:
            matmul_multistage_wide_nn_f32, matmul_multistage_wide_nt_f32,
            matmul_multistage_wide_tn_f32, matmul_multistage_wide_tt_f32),
        multistage_wide_whole: [None; 4],
        split_sum: b::matmul_split_sum_f32,
    }
};

/// The `f64` entries.
pub const MATMUL_F64: MatmulEntries<f64> = {
    use bankwise_builtin::matmul as b;
    MatmulEntries {
        ladder: [
            b::matmul_naive_f64,
            b::matmul_coalesced_f64,
            b::matmul_tiled_f64,
            b::matmul_blocktile_1d_f64,
            b::matmul_blocktile_2d_f64,
            b::matmul_vectorized_f64,
            b::matmul_vectorized_padded_f64,
            b::matmul_vectorized_swizzled_f64,
            b::matmul_warptile_f64,
        ],
        tuned: per_ops!(bankwise_builtin::matmul: matmul_tuned_nn_f64, matmul_tuned_nt_f64, matmul_tuned_tn_f64, matmul_tuned_tt_f64),
        tuned_wide: [None; 4],
        tuned_whole: [None; 4],
        tuned_wide_whole: [None; 4],
        multistage: per_ops!(bankwise_builtin_sm80:
            matmul_multistage_nn_f64, matmul_multistage_nt_f64, matmul_multistage_tn_f64, matmul_multistage_tt_f64),
        multistage_wide: per_ops!(bankwise_builtin_sm80:
            matmul_multistage_wide_nn_f64, matmul_multistage_wide_nt_f64,
            matmul_multistage_wide_tn_f64, matmul_multistage_wide_tt_f64),
        multistage_wide_whole: per_ops!(bankwise_builtin_sm80:
            matmul_multistage_wide_whole_nn_f64, matmul_multistage_wide_whole_nt_f64,
            matmul_multistage_wide_whole_tn_f64, matmul_multistage_wide_whole_tt_f64),
        split_sum: b::matmul_split_sum_f64,
    }
};

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

    /// The names of the typed entries the launchers use, each of which must be an entry of
    /// the module, with the same declared shared memory and parameter count.
    fn typed() -> Vec<(&'static str, u32, usize)> {
        fn of<P>(e: bankwise_runtime::KernelEntry<P>) -> (&'static str, u32, usize) {
            (e.name(), e.shared_bytes(), e.host().params.len())
        }
        let mut all = Vec::new();
        for m in [&MATMUL_F32] {
            all.extend(m.ladder.map(of));
            all.push(of(m.split_sum));
            for t in [m.tuned, m.tuned_wide, m.tuned_whole, m.tuned_wide_whole, m.multistage, m.multistage_wide] {
                all.extend(t.into_iter().flatten().map(of));
            }
        }
        for m in [&MATMUL_F64] {
            all.extend(m.ladder.map(of));
            all.push(of(m.split_sum));
            for t in [m.tuned, m.multistage, m.multistage_wide, m.multistage_wide_whole] {
                all.extend(t.into_iter().flatten().map(of));
            }
        }
        all
    }

    #[test]
    fn every_typed_entry_is_the_modules() {
        let typed = typed();
        assert_eq!(typed.len(), 9 * 2 + 2 + 4 * 10, "every matmul entry");
        for (name, shared, params) in typed {
            let entry = manifest().iter().find(|e| e.name == name).unwrap_or_else(|| panic!("{name} is not an entry"));
            assert_eq!((entry.shared_bytes, entry.params.len()), (shared, params), "{name}");
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
        let copy =
            manifest().iter().find(|e| e.name == bankwise_builtin::copy_bytes.name()).expect("copy_bytes is listed");
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
            let first = rung.entry_name::<f32>();
            let module = MODULES.iter().find(|m| entries(m.ptx).contains(&first)).expect("an entry");
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
