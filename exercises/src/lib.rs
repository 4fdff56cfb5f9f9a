//! bankwise's exercises, rustlings-style: each is a kernel in `exercises/kernels/src/` with a
//! `todo!()` or a deliberate flaw, and a check here that runs it on the CPU emulator (and on a
//! GPU where there is one) and says what is still wrong: the answer against a CPU reference,
//! or the property the exercise teaches (coalesced global accesses, wavefronts per request, no
//! race, the warps a reduction keeps busy), as the emulator reports it.
//!
//! `cargo xtask exercise` checks them in order and stops at the first unsolved one;
//! `cargo xtask exercise list` shows them all; `cargo xtask exercise hint N` gives exercise
//! N's hints, one at a time ([`hints`]). The reference solutions
//! (`exercises/kernels/solutions/`) are checked instead with the `solutions` feature.

use anyhow::Result;
use bankwise_runtime::{Device, Module, ModuleImage};

// The checks launch each kernel by its host-form constant in `bankwise_exercises_kernels`
// (`module.kernel(kernels::e01_vector_add::vector_add)`), which the emulator also runs.
mod checks;
// Exercises 15–20's checks, with checks.rs's helpers.
pub mod hints;
mod patterns;

/// The PTX that `build.rs` made from `kernels/` (or from `kernels/solutions/`), and its entries.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise-exercises-kernels.ptx"));
/// The entries manifest of [`PTX`].
pub const ENTRIES: &str = include_str!(concat!(env!("OUT_DIR"), "/bankwise-exercises-kernels.entries"));

/// Whether this build checks the reference solutions rather than the exercises.
pub const SOLUTIONS: bool = cfg!(feature = "solutions");

/// One exercise: its kernel file, what it teaches, and its check.
pub struct Exercise {
    /// The module and file name (`e01_vector_add`: `kernels/src/e01_vector_add.rs`).
    pub name: &'static str,
    /// The guide chapter that explains it.
    pub chapter: &'static str,
    /// What it teaches, in a few words.
    pub teaches: &'static str,
    /// Runs the kernel on a device: `Ok` when the answer is right and, on the emulator, the
    /// property holds; otherwise what is wrong.
    check: fn(&Device, &Module) -> Result<()>,
}

impl Exercise {
    /// The file to edit, from the repository's root.
    pub fn file(&self) -> String {
        let folder = if SOLUTIONS { "solutions" } else { "src" };
        format!("exercises/kernels/{folder}/{}.rs", self.name)
    }

    /// Checks the exercise on `device` (the emulator checks the property too).
    pub fn check_on(&self, device: &Device) -> Result<()> {
        let module = device.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES))?;
        device.take_emulator_reports(); // only this check's launches
        checks::take_seen();
        (self.check)(device, &module)
    }

    /// The emulator's reports of the launches the last check on this thread examined (each
    /// shared and global access site with its counts, and the races), for a closer look.
    pub fn last_reports() -> Vec<bankwise_runtime::bankwise_emu::Report> {
        checks::take_seen()
    }

    /// Checks the exercise on the emulator, then on `gpu` where given.
    pub fn check(&self, gpu: Option<&Device>) -> Result<()> {
        self.check_on(&Device::emulator_with(bankwise_runtime::EmulatorChecks::Collect))?;
        if let Some(gpu) = gpu {
            self.check_on(gpu).map_err(|e| e.context("on the GPU"))?;
        }
        Ok(())
    }
}

/// Every exercise, in the order the guide takes them.
pub const EXERCISES: &[Exercise] = &[
    Exercise {
        name: "e01_vector_add",
        chapter: "Your first kernel",
        teaches: "a kernel, its thread index, global reads and writes",
        check: checks::vector_add,
    },
    Exercise {
        name: "e02_bounds",
        chapter: "Threads, blocks, grids and warps",
        teaches: "the last block's threads past the end",
        check: checks::bounds,
    },
    Exercise {
        name: "e03_grid_stride",
        chapter: "Threads, blocks, grids and warps",
        teaches: "a grid-stride loop: more elements than threads",
        check: checks::grid_stride,
    },
    Exercise {
        name: "e04_coalesced_copy",
        chapter: "Threads, blocks, grids and warps",
        teaches: "coalescing: a warp's 32-byte sectors",
        check: checks::coalesced_copy,
    },
    Exercise {
        name: "e05_reverse_block",
        chapter: "Shared memory and barriers",
        teaches: "a barrier between writes and other threads' reads",
        check: checks::reverse_block,
    },
    Exercise {
        name: "e06_histogram",
        chapter: "Shared memory and barriers",
        teaches: "shared-memory atomics instead of a racing read-modify-write",
        check: checks::histogram,
    },
    Exercise {
        name: "e07_row_stride",
        chapter: "Bank conflicts",
        teaches: "the stride rule: gcd(stride, 32) lanes per bank",
        check: checks::row_stride,
    },
    Exercise {
        name: "e08_vector_reads",
        chapter: "Bank conflicts",
        teaches: "16-byte shared loads (LDS.128), a quarter-warp per wavefront",
        check: checks::vector_reads,
    },
    Exercise {
        name: "e09_transpose_padded",
        chapter: "Bank conflicts",
        teaches: "padding a tile's rows",
        check: checks::transpose_padded,
    },
    Exercise {
        name: "e10_transpose_swizzled",
        chapter: "Bank conflicts",
        teaches: "an XOR swizzle: no conflict, no extra memory",
        check: checks::transpose_swizzled,
    },
    Exercise {
        name: "e11_divergent_sum",
        chapter: "The reduction ladder",
        teaches: "divergence: pack the working threads into whole warps",
        check: checks::divergent_sum,
    },
    Exercise {
        name: "e12_conflicted_sum",
        chapter: "The reduction ladder",
        teaches: "sequential addressing: a reduction without bank conflicts",
        check: checks::conflicted_sum,
    },
    Exercise {
        name: "e13_warp_sum",
        chapter: "The reduction ladder",
        teaches: "warp shuffles instead of shared memory",
        check: checks::warp_sum,
    },
    Exercise {
        name: "e14_tiled_matmul",
        chapter: "The matrix multiply ladder",
        teaches: "the tiled matrix multiply's two barriers",
        check: checks::tiled_matmul,
    },
    Exercise {
        name: "e15_warp_scan",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "a warp's inclusive scan with shuffles",
        check: patterns::warp_scan,
    },
    Exercise {
        name: "e16_block_scan",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "a block's scan: warp scans, then the warps' totals",
        check: patterns::block_scan,
    },
    Exercise {
        name: "e17_convolution",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "a shared tile and its halo: each input loaded once",
        check: patterns::convolution,
    },
    Exercise {
        name: "e18_stencil",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "a 2-D stencil's halo, at every edge",
        check: patterns::stencil,
    },
    Exercise {
        name: "e19_private_histogram",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "private counters laid out across the banks",
        check: patterns::private_histogram,
    },
    Exercise {
        name: "e20_transpose_wide",
        chapter: "After reductions: scans, stencils, convolutions, histograms",
        teaches: "a non-square tile through shared memory",
        check: patterns::transpose_wide,
    },
];

/// What the check of exercise `name` prints for each of its common mistakes
/// (`kernels/mistakes/`) on the emulator, `passed` for one it lets through: for tests.
#[doc(hidden)]
pub fn mistake_outputs(name: &str) -> Vec<String> {
    checks::mistakes(name)
}

/// The exercise named `name` (its full name, `e12_conflicted_sum`, or its number, `7` or `e07`).
pub fn find(name: &str) -> Option<&'static Exercise> {
    let number = name.trim_start_matches('e').parse::<usize>().ok();
    EXERCISES.iter().enumerate().find(|(i, e)| e.name == name || number == Some(i + 1)).map(|(_, e)| e)
}
