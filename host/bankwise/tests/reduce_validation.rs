//! Argument validation and launch planning of the reductions, on the CPU: each bad input gets
//! its own error; good input gets the passes, grids and scratch the kernels expect.

use bankwise::reduce::{Max, Min, ReduceKernel, Slot, Sum, entry_name, plan};
use bankwise::tuning::{PlanTarget, h100};
use bankwise::{Error, kernels};
use bankwise_layout::reduce::{THREADS, tuned};

/// An H100's table on `sms` SMs.
fn on(sms: u32) -> PlanTarget<'static> {
    PlanTarget { multiprocessors: sms, ..h100::TARGET }
}

#[test]
fn every_builtin_entry_exists_and_is_in_all() {
    for k in ReduceKernel::ALL {
        for name in [
            entry_name::<f32, Sum>(k),
            entry_name::<f64, Min>(k),
            entry_name::<i32, Max>(k),
            entry_name::<u32, Sum>(k),
            entry_name::<i64, Min>(k),
            entry_name::<u64, Max>(k),
        ] {
            assert!(name.starts_with(k.name()) && kernels::ALL.contains(&name), "{name}");
        }
    }
    assert_eq!(entry_name::<f32, Sum>(ReduceKernel::Tuned), "reduce_sum_f32");
    assert_eq!(entry_name::<u64, Max>(ReduceKernel::Shuffle), "reduce_shuffle_max_u64");
}

#[test]
fn each_bad_argument_has_its_own_error() {
    for k in ReduceKernel::ALL {
        let err = plan::<f32, Sum>(k, 10, 5..11, 1, on(132)).unwrap_err();
        assert!(matches!(err, Error::RangeOutOfBounds { start: 5, end: 11, len: 10 }), "{err:?}");
        assert_eq!(err.to_string(), "range 5..11 is out of bounds of a buffer of 10 elements");
        let err = plan::<f32, Sum>(k, 10, 11.., 1, on(132)).unwrap_err();
        assert!(matches!(err, Error::RangeReversed { start: 11, end: 10 }), "{err:?}");
        #[allow(clippy::reversed_empty_ranges)]
        let err = plan::<f32, Sum>(k, 10, 7..3, 1, on(132)).unwrap_err();
        assert!(matches!(err, Error::RangeReversed { start: 7, end: 3 }), "{err:?}");
        let err = plan::<f32, Sum>(k, 10, ..=usize::MAX, 1, on(132)).unwrap_err();
        assert!(matches!(err, Error::RangeOutOfBounds { .. }), "{err:?}");
        let err = plan::<i64, Min>(k, 10, .., 0, on(132)).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { buffer: "out", expected: 1, actual: 0, .. }), "{err:?}");
    }
    // More blocks than a grid holds (only a plan can ask for 2^40 elements).
    let err = plan::<f32, Sum>(ReduceKernel::Sequential, 1 << 40, .., 1, on(132)).unwrap_err();
    assert!(matches!(err, Error::ShapeOverflow { .. }), "{err:?}");
}

#[test]
fn empty_ranges_write_the_identity_without_a_launch() {
    for k in ReduceKernel::ALL {
        let p = plan::<u32, Max>(k, 10, 4..4, 1, on(132)).unwrap();
        assert!(p.write_identity && p.passes.is_empty(), "{k:?}: {p:?}");
        let p = plan::<f64, Sum>(k, 0, .., 1, on(132)).unwrap();
        assert!(p.write_identity && p.passes.is_empty());
    }
}

#[test]
fn tree_rungs_relaunch_over_the_partials_ping_ponging_scratch() {
    let n = 1 << 24;
    let p = plan::<f32, Sum>(ReduceKernel::Sequential, n, .., 1, on(132)).unwrap();
    let route: Vec<_> = p.passes.iter().map(|s| (s.input, s.len, s.output, s.launch.grid().0)).collect();
    assert_eq!(
        route,
        [(Slot::Source, 1 << 24, Slot::A, 1 << 16), (Slot::A, 1 << 16, Slot::B, 256), (Slot::B, 256, Slot::Out, 1)]
    );
    assert_eq!(p.scratch, (1 << 16, 256));
    assert_eq!(p.passes[0].launch.block(), (THREADS, 1, 1));
    assert_eq!(p.passes[0].launch.used_shared_bytes(), THREADS * 4);
    let p = plan::<f64, Min>(ReduceKernel::Shuffle, n, 3.., 1, on(132)).unwrap();
    assert_eq!(p.passes[0].launch.grid().0 as usize, (n - 3).div_ceil(512));
    assert_eq!(p.passes[0].launch.used_shared_bytes(), THREADS * 8);
    assert_eq!(p.passes.len(), 3);
    // One block: straight into the output.
    let p = plan::<i32, Sum>(ReduceKernel::InterleavedDivergent, 256, .., 1, on(132)).unwrap();
    assert_eq!(p.passes.len(), 1);
    assert_eq!((p.passes[0].input, p.passes[0].output), (Slot::Source, Slot::Out));
}

#[test]
fn atomic_and_tuned_kernels_are_one_launch_sized_by_the_device() {
    let p = plan::<f32, Sum>(ReduceKernel::Atomic, 1 << 28, .., 1, on(132)).unwrap();
    assert!(p.write_identity && p.passes.len() == 1);
    assert_eq!(p.passes[0].launch.grid().0, 132 * 32);
    let p = plan::<f32, Sum>(ReduceKernel::Tuned, 1 << 28, .., 1, on(132)).unwrap();
    assert!(!p.write_identity && p.counter && p.passes.len() == 1);
    assert_eq!(p.passes[0].launch.grid().0, 132 * tuned::BLOCKS_PER_SM);
    assert_eq!(p.scratch, (132 * tuned::BLOCKS_PER_SM as usize, 0));
    assert_eq!(p.passes[0].launch.used_shared_bytes(), tuned::SHARED_BYTES);
    let p = plan::<f32, Sum>(ReduceKernel::Tuned, 1 << 28, .., 1, on(114)).unwrap();
    assert_eq!(p.passes[0].launch.grid().0, 114 * tuned::BLOCKS_PER_SM);
    // Small inputs: one block per THREADS · UNROLL vectors, at least one.
    let p = plan::<f32, Sum>(ReduceKernel::Tuned, 1000, 1..2, 1, on(132)).unwrap();
    assert_eq!(p.passes[0].launch.grid().0, 1);
    let p = plan::<u64, Sum>(ReduceKernel::Tuned, 1 << 20, .., 1, on(132)).unwrap();
    assert_eq!(p.passes[0].launch.grid().0, (1u32 << 19).div_ceil(tuned::THREADS * tuned::UNROLL));
}

#[test]
fn tuned_depth_is_small_for_large_inputs() {
    // 2^28 f32 on 132 SMs: 2^26 vectors over 1056 × 256 threads, UNROLL = 4 per step: ceil(2^26 / (1056 · 1024)) = 63 steps.
    let k = ReduceKernel::Tuned.depth::<f32>(0, 1 << 28, on(132));
    assert_eq!(k, (4 * 63 + 2) + 2 + 10 + 5 + 10);
    assert!(bankwise::cpu::gamma(k, 2f64.powi(-24)) < 2e-5);
}
