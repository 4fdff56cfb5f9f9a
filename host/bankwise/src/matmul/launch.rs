//! The launchers of the matrix multiply on [`Gpu`], and [`plan`], the launch each makes after
//! validating its arguments.

use super::shape::Stored;
use super::{Float, MatmulKernel, MatmulShape, Op, Realign, SplitK, TunedPlan, TunedTile};
use crate::error::{Error, Result};
use crate::gpu::{DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, Gpu, Launch};
use crate::kernels;
use bankwise_layout::matmul::{
    GROUP_M, TILE, blocktile_2d, grid_columns_in_x, grid_of_batched_tiles, grid_of_tiles, grid_rows_in_x,
};
use bankwise_layout::transpose::{MAX_GRID_X, MAX_GRID_YZ};

/// Validates `C = α·op(A)·op(B) + β·C` of `shape` with buffers of `a_len`, `b_len`, `c_len`
/// elements of `T`, and plans the launch of `kernel`'s entry for `T` (a tuned rung's with
/// `tile`, which the other rungs ignore). For a batch of more than 65,535 products
/// ([`MAX_GRID_YZ`]) the launch covers the first 65,535; the kernel's `first` argument selects
/// each further grid's. Where the tuned rung splits `k` ([`TunedPlan::split`]), the launch is
/// that of the whole product, which the slices' launches adapt.
pub fn plan<T: Float>(
    kernel: MatmulKernel,
    tile: TunedTile,
    shape: MatmulShape,
    a_len: usize,
    b_len: usize,
    c_len: usize,
) -> Result<MatmulLaunch<T>> {
    shape.check_buffers(a_len, b_len, c_len)?;
    if !kernel.is_tuned() && !shape.is_plain() {
        let what = if shape.batch != 1 { "a batch" } else { "a transposed operand" };
        return Err(Error::MatmulUnsupported { kernel: kernel.name(), what });
    }
    let (m, n) = (shape.m as u64, shape.n as u64);
    let bytes = size_of::<T>() as u32;
    let square = (TILE, TILE, 1);
    // The tuned rung's entry, by its tiles and `op`s; the other rungs' by type.
    let mut tuned_entry = None;
    // Each entry declares its tiles' shared memory (`#[kernel(shared = …)]`, the same layout
    // functions): the launches ask for no dynamic bytes.
    let (grid, block) = match kernel {
        MatmulKernel::Naive => (grid_rows_in_x(m, n), square),
        MatmulKernel::Coalesced | MatmulKernel::Tiled => (grid_columns_in_x(m, n), square),
        MatmulKernel::BlockTile1d => {
            use bankwise_layout::matmul::blocktile_1d::{BM, BN, THREADS};
            (grid_of_tiles(m, n, BM, BN), (THREADS, 1, 1))
        }
        MatmulKernel::BlockTile2d
        | MatmulKernel::Vectorized
        | MatmulKernel::VectorizedPadded
        | MatmulKernel::VectorizedSwizzled
        | MatmulKernel::WarpTile => {
            // These rungs share their block tiles.
            let s = blocktile_2d(bytes);
            (grid_of_tiles(m, n, s.bm, s.bn), (s.threads(), 1, 1))
        }
        MatmulKernel::Tuned | MatmulKernel::Multistage => {
            let unfit = Error::TunedPlanUnfit { what: "the tuned rung's wide tiles are f32 only" };
            let (Some(t), Some(entry)) = (tile.tiles::<T>(kernel), tile.entry::<T>(kernel, shape)) else {
                return Err(unfit);
            };
            tuned_entry = Some(entry);
            let s = t.warps.tiles;
            // One block per tile: the kernel has no grid-stride loop (it would cost spills), and
            // numbers tiles in 32 bits (`grouped_tile`, whose groups span GROUP_M rows of them).
            let (tiles_m, tiles_n) = (m.div_ceil(s.bm as u64), n.div_ceil(s.bn as u64));
            if tiles_m * tiles_n > u64::from(MAX_GRID_X) || tiles_n * u64::from(GROUP_M) > u64::from(u32::MAX) {
                return Err(Error::ShapeOverflow { shape: shape.to_string() });
            }
            (grid_of_batched_tiles(m, n, shape.batch as u64, s.bm, s.bn), (t.threads(), 1, 1))
        }
    };
    Ok(match (tuned_entry, kernel.ladder_index()) {
        (Some(kernel), _) => MatmulLaunch::Tuned(Launch::new(kernel, grid, block)),
        (None, Some(i)) => MatmulLaunch::Ladder(Launch::new(T::ENTRIES.ladder[i], grid, block)),
        (None, None) => unreachable!("the tuned rungs have a tuned entry"),
    })
}

/// A matrix multiply's planned launch: a ladder rung's, or a tuned rung's (which takes the
/// batch's arguments too).
#[derive(Debug, PartialEq, Eq)]
pub enum MatmulLaunch<T> {
    /// A ladder rung ([`kernels::GemmParams`]).
    Ladder(Launch<kernels::GemmParams<T>>),
    /// A tuned or multistage entry ([`kernels::TunedParams`]).
    Tuned(Launch<kernels::TunedParams<T>>),
}

impl<T> Clone for MatmulLaunch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MatmulLaunch<T> {}

impl<T> MatmulLaunch<T> {
    /// The entry's name.
    pub fn kernel(&self) -> &'static str {
        match self {
            MatmulLaunch::Ladder(l) => l.kernel.name(),
            MatmulLaunch::Tuned(l) => l.kernel.name(),
        }
    }

    /// Blocks in x, y, z.
    pub fn grid(&self) -> (u32, u32, u32) {
        match self {
            MatmulLaunch::Ladder(l) => l.grid,
            MatmulLaunch::Tuned(l) => l.grid,
        }
    }

    /// Threads per block in x, y, z.
    pub fn block(&self) -> (u32, u32, u32) {
        match self {
            MatmulLaunch::Ladder(l) => l.block,
            MatmulLaunch::Tuned(l) => l.block,
        }
    }

    /// Shared memory per block: what the entry declares (the launch asks for no dynamic bytes).
    pub fn shared_bytes(&self) -> u32 {
        match self {
            MatmulLaunch::Ladder(l) => l.used_shared_bytes(),
            MatmulLaunch::Tuned(l) => l.used_shared_bytes(),
        }
    }

    /// The tuned entry's launch, if it is one.
    fn tuned(self) -> Option<Launch<kernels::TunedParams<T>>> {
        match self {
            MatmulLaunch::Tuned(l) => Some(l),
            MatmulLaunch::Ladder(_) => None,
        }
    }
}

impl Gpu {
    /// `C = α·op(A)·op(B) + β·C` with the fastest rung measured for the shape and type
    /// ([`MatmulKernel::for_shape`] for this GPU: [`Gpu::plan_target`]). The operands are any
    /// device memory of this GPU ([`DeviceRead`], [`DeviceWrite`]: bankwise's buffers and
    /// views, cudarc's slices, raw pointers); views that start off 16 bytes are read and
    /// written element by element where the kernels would take 16-byte vectors.
    pub fn matmul<T: Float>(
        &self,
        alpha: T,
        a: &(impl DeviceRead<T> + ?Sized),
        b: &(impl DeviceRead<T> + ?Sized),
        beta: T,
        c: &mut (impl DeviceWrite<T> + ?Sized),
        shape: MatmulShape,
    ) -> Result<()> {
        let kernel = MatmulKernel::for_shape::<T>(shape, self.plan_target());
        self.matmul_with(kernel, alpha, a, b, beta, c, shape)
    }

    /// `C = α·op(A)·op(B) + β·C` with a chosen rung of the ladder; the tuned rung with the
    /// plan predicted fastest for this GPU ([`TunedPlan::for_shape`] for [`Gpu::plan_target`],
    /// then [`matmul_tuned`](Self::matmul_tuned)).
    ///
    /// Errors, before anything is launched: [`Error::ZeroDimension`],
    /// [`Error::LeadingDimension`], [`Error::MatrixTooShort`], [`Error::BatchTooShort`],
    /// [`Error::OverlappingBatches`], [`Error::ShapeOverflow`], and
    /// [`Error::MatmulUnsupported`] for transposed operands or batches with a rung other than
    /// [`MatmulKernel::Tuned`].
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    pub fn matmul_with<T: Float>(
        &self,
        kernel: MatmulKernel,
        alpha: T,
        a: &(impl DeviceRead<T> + ?Sized),
        b: &(impl DeviceRead<T> + ?Sized),
        beta: T,
        c: &mut (impl DeviceWrite<T> + ?Sized),
        shape: MatmulShape,
    ) -> Result<()> {
        let (a, _reading_a) = self.read("a", a)?;
        let (b, _reading_b) = self.read("b", b)?;
        let (mut c, _writing) = self.write("c", c)?;
        if kernel.is_tuned() {
            let tuned = TunedPlan::for_shape::<T>(kernel, shape, self.plan_target());
            return self.matmul_tuned_views(tuned, alpha, a, b, beta, c, shape);
        }
        let MatmulLaunch::Ladder(launch) = plan::<T>(kernel, TunedTile::Square, shape, a.len(), b.len(), c.len())?
        else {
            unreachable!("the ladder's rungs plan ladder launches")
        };
        let s = shape;
        let [m, n, k, lda, ldb, ldc] = [s.m, s.n, s.k, s.lda(), s.ldb(), s.ldc()].map(|x| x as u64);
        // Safety: `plan` checked that each view holds its matrix with its leading dimension;
        // the launch uses the rung's grid, block and shared memory.
        unsafe { self.launch(launch, (&mut c, a, b, m, n, k, lda, ldb, ldc, alpha, beta)) }
    }

    /// `C = α·op(A)·op(B) + β·C` with the tuned rung and a chosen plan (its tiles, its split
    /// of `k`, for which it allocates a workspace of [`SplitK::workspace_len`] elements,
    /// stream-ordered, from the driver's memory pool, the operands it copies to aligned rows
    /// first, and its strip of columns).
    ///
    /// Errors: as [`matmul_with`](Self::matmul_with), and [`Error::TunedPlanUnfit`] where the
    /// plan's split or strip was made for another shape.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    pub fn matmul_tuned<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: &(impl DeviceRead<T> + ?Sized),
        b: &(impl DeviceRead<T> + ?Sized),
        beta: T,
        c: &mut (impl DeviceWrite<T> + ?Sized),
        shape: MatmulShape,
    ) -> Result<()> {
        let (a, _reading_a) = self.read("a", a)?;
        let (b, _reading_b) = self.read("b", b)?;
        let (c, _writing) = self.write("c", c)?;
        self.matmul_tuned_views(tuned, alpha, a, b, beta, c, shape)
    }

    /// [`matmul_tuned`](Self::matmul_tuned) on views.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn matmul_tuned_views<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        mut c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
    ) -> Result<()> {
        plan::<T>(tuned.kernel(), tuned.tile(), shape, a.len(), b.len(), c.len())?;
        let columns = tuned.strip().unwrap_or(shape.n);
        if columns == 0 || columns > shape.n {
            return Err(Error::TunedPlanUnfit { what: "its strip was made for another shape" });
        }
        let main = shape.with_columns(columns);
        if tuned.split().is_some_and(|split| !split.fits(main)) {
            return Err(Error::TunedPlanUnfit { what: "its split of k was made for another shape" });
        }
        if tuned.realign() != Realign::default() {
            return self.matmul_realigned(tuned, alpha, a, b, beta, c, shape);
        }
        let main_plan = tuned.without_strip();
        self.tuned_part(main_plan, alpha, a.slice(..)?, b.slice(..)?, beta, c.slice_mut(..)?, main)?;
        if columns == shape.n {
            return Ok(());
        }
        // The strip: the same rows of op(A), op(B)'s and C's columns from `columns` on.
        let rest = shape.with_columns(shape.n - columns);
        let b_from = if shape.op_b == Op::N { columns } else { columns * shape.ldb() };
        let target = self.plan_target();
        let rest_plan = TunedPlan::fastest::<T>(tuned.kernel(), rest, target, false).1.without_realign();
        self.tuned_part(rest_plan, alpha, a.slice(..)?, b.slice(b_from..)?, beta, c.slice_mut(columns..)?, rest)
    }

    /// [`matmul_tuned`](Self::matmul_tuned) after copying the plan's [`Realign`] operands
    /// into workspaces (stream-ordered) whose rows start on 16 bytes; where the device has no
    /// memory for a workspace, the operand is read where it is.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn matmul_realigned<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
    ) -> Result<()> {
        let [sa, sb, _] = shape.stored();
        let copy = |s: &Stored, from: DeviceSlice<'_, T>| -> Result<Option<(crate::DeviceBuffer<T>, usize)>> {
            let ld = Realign::leading_dimension::<T>(s.row_len);
            // Safety: the copy writes every element of every row (each row's `row_len`
            // elements and its padding, zeros).
            let mut to = match unsafe { self.alloc_uninit::<T>(s.rows * ld) } {
                Ok(to) => to,
                Err(bankwise_runtime::Error::OutOfMemory { .. }) => {
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
            };
            self.copy_rows_aligned_from(from, s.ld, &mut to, ld, (s.rows, s.row_len))?;
            Ok(Some((to, ld)))
        };
        let new_a = if tuned.realign().a { copy(&sa, a)? } else { None };
        let new_b = if tuned.realign().b { copy(&sb, b)? } else { None };
        let (a, lda) = match &new_a {
            Some((buf, ld)) => (buf.slice(..)?, *ld),
            None => (a, shape.lda()),
        };
        let (b, ldb) = match &new_b {
            Some((buf, ld)) => (buf.slice(..)?, *ld),
            None => (b, shape.ldb()),
        };
        let shape = shape.with_operand_leading_dimensions(lda, ldb);
        self.matmul_tuned_views(tuned.without_realign(), alpha, a, b, beta, c, shape)
    }

    /// The launches of a plan without realignment or strip over `shape`, on views of the
    /// operands (a strip's start at their first element).
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn tuned_part<T: Float>(
        &self,
        tuned: TunedPlan,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        mut c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
    ) -> Result<()> {
        let planned = plan::<T>(tuned.kernel(), tuned.tile(), shape, a.len(), b.len(), c.len())?;
        let Some(launch) = planned.tuned() else { unreachable!("a tuned plan plans a tuned launch") };
        if let Some(split) = tuned.split() {
            return self.matmul_split_k(split, alpha, a, b, beta, c, shape, launch);
        }
        let s = shape;
        let [m, n, k, lda, ldb, ldc] = [s.m, s.n, s.k, s.lda(), s.ldb(), s.ldc()].map(|x| x as u64);
        let [count, stride_a, stride_b, stride_c] =
            [s.batch, s.stride_a(), s.stride_b(), s.stride_c()].map(|x| x as u64);
        let mut first = 0;
        while first < count {
            let products = (count - first).min(u64::from(MAX_GRID_YZ));
            let grid = (launch.grid.0, products as u32, 1);
            let args = (&mut c, a, b, m, n, k, lda, ldb, ldc, alpha, beta, count, first, stride_a, stride_b, stride_c);
            // Safety: `plan` checked that each view holds its batch of matrices with their
            // leading dimensions and strides, and that the `C`s do not overlap; each grid
            // computes the products from `first` on.
            unsafe { self.launch(Launch { grid, ..launch }, args)? };
            first += products;
        }
        Ok(())
    }

    /// The tuned rung over `split`'s slices of `k` into a workspace it allocates (stream-
    /// ordered, not filled), then their sum into `C`; `launch` is `plan`'s for the whole product.
    #[allow(clippy::too_many_arguments)] // the BLAS argument list
    fn matmul_split_k<T: Float>(
        &self,
        split: SplitK,
        alpha: T,
        a: DeviceSlice<'_, T>,
        b: DeviceSlice<'_, T>,
        beta: T,
        c: DeviceSliceMut<'_, T>,
        shape: MatmulShape,
        launch: Launch<kernels::TunedParams<T>>,
    ) -> Result<()> {
        // Safety: the slices' launches below write every element of the workspace (each
        // covers all of `C`'s tiles, with β = 0) before the sum reads it.
        let mut w = unsafe { self.alloc_uninit::<T>(split.workspace_len(shape))? };
        let s = shape;
        let [m, n, k, lda, ldb, ldc, depth] = [s.m, s.n, s.k, s.lda(), s.ldb(), s.ldc(), split.depth].map(|x| x as u64);
        // Slice `i` of op(A) starts `i·depth` columns in, of op(B) `i·depth` rows down; its
        // partial product is the workspace's `i`-th `m × n` matrix.
        let stride_a = if s.op_a == Op::N { depth } else { depth * lda };
        let stride_b = if s.op_b == Op::N { depth * ldb } else { depth };
        let (full, rest) = (k / depth, k % depth);
        let count = split.slices as u64;
        let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
        // The full slices in one grid, the shallower last one (if any) in another.
        for (first, products, depth) in [(0, full, depth), (full, count - full, rest)] {
            if products == 0 {
                continue;
            }
            let grid = (launch.grid.0, products as u32, 1);
            let args = (&mut w, a, b, m, n, depth, lda, ldb, n, one, zero, count, first, stride_a, stride_b, m * n);
            // Safety: `plan` checked `A` and `B` for the whole product, and each slice reads a
            // part of them; the workspace holds `count` packed `m × n` matrices.
            unsafe { self.launch(Launch { grid, ..launch }, args)? };
        }
        let columns = n.div_ceil(u64::from(SPLIT_SUM_THREADS)).min(u64::from(MAX_GRID_X)) as u32;
        let grid = (columns, m.min(u64::from(MAX_GRID_YZ)) as u32, 1);
        let sum = Launch::new(T::ENTRIES.split_sum, grid, (SPLIT_SUM_THREADS, 1, 1));
        // Safety: the workspace holds `count` packed `m × n` matrices, `C` its `m` rows of
        // `ldc` (`plan`); the kernel's loops take any grid.
        unsafe { self.launch(sum, (c, &w, m, n, ldc, alpha, beta, count)) }
    }
}

/// Threads per block of `matmul_split_sum`, along a row of `C`.
const SPLIT_SUM_THREADS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::PlanTarget;
    use crate::tuning::h100::H100;

    const H100_SXM: PlanTarget<'static> = PlanTarget::new(132, (9, 0), &H100);

    #[test]
    fn bad_arguments_have_their_own_errors() {
        let s = MatmulShape::new(3, 4, 5);
        assert!(plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 15, 20, 12).is_ok());
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, MatmulShape::new(0, 4, 5), 15, 20, 12),
            Err(Error::ZeroDimension { what: "m" })
        ));
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, MatmulShape::new(3, 4, 0), 15, 20, 12),
            Err(Error::ZeroDimension { what: "k" })
        ));
        let short = plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 15, 19, 12);
        assert!(matches!(short, Err(Error::MatrixTooShort { matrix: "B", expected: 20, actual: 19, .. })), "{short:?}");
        let ld = plan::<f64>(MatmulKernel::Naive, TunedTile::Square, s.with_leading_dimensions(4, 4, 4), 15, 20, 12);
        assert!(matches!(ld, Err(Error::LeadingDimension { matrix: "A", ld: 4, row_len: 5 })), "{ld:?}");
        // Padded rows: the last row needs only its own length.
        let padded = s.with_leading_dimensions(7, 9, 6);
        assert!(
            plan::<f64>(MatmulKernel::Coalesced, TunedTile::Square, padded, 2 * 7 + 5, 4 * 9 + 4, 2 * 6 + 4).is_ok()
        );
        let huge = MatmulShape::new(1 << 62, 1, 1); // A alone: 2^65 bytes
        assert!(matches!(
            plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, huge, 0, 0, 0),
            Err(Error::ShapeOverflow { .. })
        ));
    }

    #[test]
    fn the_rungs_but_the_tuned_ones_take_one_product_as_stored() {
        // The rungs take one product as stored, and say what they lack.
        let s = MatmulShape::new(3, 4, 5).with_ops(Op::T, Op::T);
        for (shape, what) in [(s, "a transposed operand"), (MatmulShape::new(3, 4, 5).batched_packed(2), "a batch")] {
            let e = plan::<f32>(MatmulKernel::WarpTile, TunedTile::Square, shape, 100, 100, 100);
            assert!(matches!(e, Err(Error::MatmulUnsupported { what: w, .. }) if w == what), "{e:?}");
        }
    }

    #[test]
    fn the_tuned_kernel_picks_its_entry_by_ops_and_grids_the_batch() {
        let s = MatmulShape::new(300, 129, 7);
        for (ops, entry) in [
            ((Op::N, Op::N), "matmul_tuned_nn_f32"),
            ((Op::N, Op::T), "matmul_tuned_nt_f32"),
            ((Op::T, Op::N), "matmul_tuned_tn_f32"),
            ((Op::T, Op::T), "matmul_tuned_tt_f32"),
        ] {
            let shape = s.with_ops(ops.0, ops.1).batched_packed(70_000);
            let n = 70_000 * 300 * 129;
            let launch = plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, shape, n, n, n).unwrap();
            // 3 × 2 tiles of 128 × 128; the first 65,535 products in the first grid.
            assert_eq!((launch.kernel(), launch.grid(), launch.block()), (entry, (6, 65_535, 1), (256, 1, 1)));
            assert_eq!(launch.shared_bytes(), 2 * 8 * (132 + 132) * 4);
        }
        // A row of 2²⁹ tiles would overflow the kernel's 32-bit tile numbers: refused.
        let wide = MatmulShape::new(1, 1 << 36, 1);
        let e = plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, wide, 1, 1 << 36, 1 << 36);
        assert!(matches!(e, Err(Error::ShapeOverflow { .. })), "{e:?}");
        assert!(
            plan::<f32>(MatmulKernel::Tuned, TunedTile::Square, MatmulShape::new(1, 1 << 35, 1), 1, 1 << 35, 1 << 35)
                .is_ok()
        );
        let f64_plan = plan::<f64>(MatmulKernel::Tuned, TunedTile::Square, s, 300 * 7, 7 * 129, 300 * 129).unwrap();
        assert_eq!((f64_plan.kernel(), f64_plan.grid()), ("matmul_tuned_nn_f64", (9, 1, 1)));
        assert_eq!(f64_plan.shared_bytes(), 2 * 8 * (130 + 66) * 8);
        // Wide tiles: 3 × 1 of 128 × 256, f32 only.
        let lens = (300 * 7, 7 * 129, 300 * 129);
        let wide = plan::<f32>(MatmulKernel::Tuned, TunedTile::Wide, s.with_ops(Op::N, Op::T), lens.0, lens.1, lens.2);
        let wide = wide.unwrap();
        assert_eq!((wide.kernel(), wide.grid(), wide.block()), ("matmul_tuned_wide_nt_f32", (3, 1, 1), (256, 1, 1)));
        assert_eq!(wide.shared_bytes(), 2 * 8 * (132 + 260) * 4);
        let e = plan::<f64>(MatmulKernel::Tuned, TunedTile::Wide, s, lens.0, lens.1, lens.2);
        assert!(matches!(e, Err(Error::TunedPlanUnfit { .. })), "{e:?}");
        let unfit = |p: Result<TunedPlan>| matches!(p, Err(Error::TunedPlanUnfit { .. }));
        assert!(unfit(TunedPlan::new::<f64>(MatmulKernel::Tuned, TunedTile::Wide, s, H100_SXM)));
        assert!(unfit(TunedPlan::new::<f32>(MatmulKernel::WarpTile, TunedTile::Square, s, H100_SXM)));
        // The multistage rung: the tuned rung's tiles and grid, four stages, its own entries.
        for (tile, entry, stage_bytes) in [
            (TunedTile::Square, "matmul_multistage_nt_f32", 8 * (132 + 132) * 4),
            (TunedTile::Wide, "matmul_multistage_wide_nt_f32", 8 * (132 + 260) * 4),
        ] {
            let p = plan::<f32>(MatmulKernel::Multistage, tile, s.with_ops(Op::N, Op::T), lens.0, lens.1, lens.2);
            let p = p.unwrap();
            assert_eq!((p.kernel(), p.block(), p.shared_bytes()), (entry, (256, 1, 1), 4 * stage_bytes));
        }
        let p = plan::<f64>(MatmulKernel::Multistage, TunedTile::Square, s, lens.0, lens.1, lens.2).unwrap();
        assert_eq!(
            (p.kernel(), p.grid(), p.shared_bytes()),
            ("matmul_multistage_nn_f64", (9, 1, 1), 4 * 16 * (130 + 66) * 8)
        );
        // The multistage rung has wide f64 tiles: 128 × 128, 3 × 2 of them.
        let p = plan::<f64>(MatmulKernel::Multistage, TunedTile::Wide, s, lens.0, lens.1, lens.2).unwrap();
        assert_eq!(
            (p.kernel(), p.grid(), p.shared_bytes()),
            ("matmul_multistage_wide_nn_f64", (6, 1, 1), 4 * 8 * (130 + 130) * 8)
        );
    }

    #[test]
    fn grids_cover_c_and_cap_at_the_hardware() {
        let s = MatmulShape::new(33, 65, 17);
        let tiled = plan::<f32>(MatmulKernel::Tiled, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((tiled.grid(), tiled.block(), tiled.shared_bytes()), ((3, 2, 1), (32, 32, 1), 8192));
        let naive = plan::<f64>(MatmulKernel::Naive, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((naive.kernel(), naive.grid(), naive.shared_bytes()), ("matmul_naive_f64", (2, 3, 1), 0));
        let warp = plan::<f32>(MatmulKernel::WarpTile, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!(
            (warp.grid(), warp.block(), warp.shared_bytes()),
            ((1, 1, 1), (256, 1, 1), ((128 + 4) * 8 + 8 * 128) * 4)
        );
        let f64_tiles =
            plan::<f64>(MatmulKernel::BlockTile2d, TunedTile::Square, s, 33 * 17, 17 * 65, 33 * 65).unwrap();
        assert_eq!((f64_tiles.grid(), f64_tiles.shared_bytes()), ((2, 1, 1), (128 * 8 + 8 * 64) * 8));
        let tall = MatmulShape::new(1 << 22, 1, 1);
        assert_eq!(
            plan::<f32>(MatmulKernel::Coalesced, TunedTile::Square, tall, 1 << 22, 1, 1 << 22).unwrap().grid(),
            (1, 65_535, 1)
        );
    }
}
