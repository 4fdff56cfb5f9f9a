//! GPU tests: every kernel against the CPU reference (`kernels/mod.rs`), at every size up to
//! past 2^31 elements. On a machine without a CUDA driver or device every test is reported as
//! ignored, with the reason printed first; on a GPU they run and assert.
//!
//! A custom harness (libtest-mimic) so that "no GPU" is a skip the runner counts, not a pass.

mod kernels;

use std::sync::Arc;

use bankwise::Gpu;
use libtest_mimic::Arguments;

fn main() {
    let args = Arguments::from_args();
    let gpu = match Gpu::new() {
        Ok(gpu) => {
            eprintln!(
                "GPU tests on {} (sm_{}{})",
                gpu.info().name,
                gpu.info().compute_capability.0,
                gpu.info().compute_capability.1
            );
            Some(Arc::new(gpu))
        }
        Err(e) => {
            eprintln!("GPU tests skipped: {e}");
            None
        }
    };
    let mut trials = kernels::trials(gpu, kernels::Target::Gpu);
    trials.extend(kernels::foreign::multi_gpu_trials());
    libtest_mimic::run(&args, trials).exit();
}
