//! `bankwise bench axes`: reductions along axes ([`bankwise::Gpu::reduce_axes`]), their input
//! read at a share of the driver's copy of the same input (timed in a block of runs right
//! after, as for the whole-range reductions: a reduction writes next to nothing).
//!
//! The cases are the tensors issue's: an 8192 × 8192 sum of rows and of columns, and a
//! (64, 4096, 1024) sum over its middle axis; plus the minimum and the argmax
//! ([`bankwise::Gpu::arg_reduce_axes`], `u64` positions) along the same axes. PyTorch's side
//! (`torch.sum(x, dim, out=…)`, `torch.argmax`) is `benches/peers/axes_torch.py`.

use anyhow::Result;
use bankwise::half::bf16;
use bankwise::reduce_axes::{ArgMax, ArgOperation, AxesElement, AxesOperation};
use bankwise::timing::{measure, rotation};
use bankwise::{Min, Sum};

use super::{Bench, Row, random, short_type_name};

/// `(dims, axes)` of the suite.
pub const CASES: [(&[usize], &[usize]); 3] = [(&[8192, 8192], &[1]), (&[8192, 8192], &[0]), (&[64, 4096, 1024], &[1])];

impl Bench<'_> {
    /// Every case: f32, f64 and bf16 sums, the f32 minimum, the f32 and bf16 argmax.
    pub(super) fn axes_suite(&mut self) -> Result<()> {
        self.progress.inc_length(6 * CASES.len() as u64);
        for (dims, axes) in CASES {
            self.axes::<f32, _>(Sum, dims, axes)?;
            self.axes::<f64, _>(Sum, dims, axes)?;
            self.axes::<bf16, _>(Sum, dims, axes)?;
            self.axes::<f32, _>(Min, dims, axes)?;
            self.arg_axes::<f32, _>(ArgMax, dims, axes)?;
            self.arg_axes::<bf16, _>(ArgMax, dims, axes)?;
        }
        Ok(())
    }

    /// Times `op` over `axes` of a `dims` tensor of random `T`s, into an output and scratch made
    /// once ([`bankwise::Gpu::reduce_axes_with_scratch`]).
    fn axes<T: AxesElement, O: AxesOperation<T>>(&mut self, op: O, dims: &[usize], axes: &[usize]) -> Result<()> {
        let gpu = self.gpu;
        let mut out = gpu.alloc_zeros::<T>(kept(dims, axes))?;
        let mut scratch = gpu.reduce_axes_scratch::<T>(dims, axes)?;
        self.time_axes::<T, T>(O::OP, dims, axes, |src| {
            gpu.reduce_axes_with_scratch(op, src, dims, axes, &mut out, &mut scratch)
        })
    }

    /// Times the position of `op`'s extreme over `axes` of a `dims` tensor of random `T`s into
    /// `u64`s, output and scratch made once ([`bankwise::Gpu::arg_reduce_axes_with_scratch`]).
    fn arg_axes<T: AxesElement, O: ArgOperation<T>>(&mut self, op: O, dims: &[usize], axes: &[usize]) -> Result<()> {
        let gpu = self.gpu;
        let mut out = gpu.alloc_zeros::<u64>(kept(dims, axes))?;
        let mut scratch = gpu.arg_reduce_axes_scratch::<T>(dims, axes)?;
        self.time_axes::<T, u64>(O::OP, dims, axes, |src| {
            gpu.arg_reduce_axes_with_scratch(op, src, dims, axes, &mut out, &mut scratch)
        })
    }

    /// Times `run` on rotating copies of a `dims` tensor of random `T`s, whose reduction over
    /// `axes` writes one `Out` per kept index, beside the driver's copy of the same input.
    fn time_axes<T: AxesElement, Out>(
        &mut self,
        op: &str,
        dims: &[usize],
        axes: &[usize],
        mut run: impl FnMut(&bankwise::DeviceBuffer<T>) -> bankwise::Result<()>,
    ) -> Result<()> {
        let dtype = short_type_name::<T>();
        let label = format!("{} over {:?}", dims.iter().map(usize::to_string).collect::<Vec<_>>().join("x"), axes);
        let name = format!("reduce_axes/{op}");
        self.progress.set_message(format!("{name} {dtype} {label}"));
        let n: usize = dims.iter().product();
        let bytes = n * size_of::<T>();
        let sets = rotation(self.gpu.info().l2_bytes, bytes);
        let host = random::<T>(n);
        let srcs = (0..sets).map(|_| self.gpu.upload(&host)).collect::<bankwise::runtime::Result<Vec<_>>>()?;
        let mut copy_dst = self.gpu.alloc_zeros::<T>(n)?;
        let (warmup, runs) = if self.args.quick { (2, 5) } else { (self.args.warmup, self.args.runs) };
        let stats = measure(self.gpu, warmup, runs, |i| run(&srcs[i % sets]))?;
        let copy = measure(self.gpu, warmup, runs.min(50), |i| self.gpu.copy_driver(&srcs[i % sets], &mut copy_dst))?;
        let moved = (bytes + kept(dims, axes) * size_of::<Out>()) as u64;
        self.record(Row::new(name, dtype, label, (moved, stats), (2 * bytes as u64, copy)));
        Ok(())
    }
}

/// The outputs of a reduction over `axes` of `dims`: the product of the kept dimensions.
fn kept(dims: &[usize], axes: &[usize]) -> usize {
    (0..dims.len()).filter(|a| !axes.contains(a)).map(|a| dims[a]).product()
}
