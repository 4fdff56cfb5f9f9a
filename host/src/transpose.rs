//! Transposes of (batches of) row-major matrices: `dst[b][c][r] = src[b][r][c]`.

use std::fmt;

use cudarc::driver::PushKernelArg;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::gpu::{DeviceBuffer, Gpu, Launch};
use crate::kernels;
use bankwise_layout::transpose::{BLOCK_ROWS, TILE, grid};

/// The shape of a transpose's input: `batch` row-major matrices of `rows × cols` elements,
/// stored one after another. The output has shape `[batch, cols, rows]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of matrices.
    pub batch: usize,
    /// Rows of each input matrix.
    pub rows: usize,
    /// Columns of each input matrix.
    pub cols: usize,
}

impl Shape {
    /// One `rows × cols` matrix.
    pub const fn new(rows: usize, cols: usize) -> Self {
        Shape { batch: 1, rows, cols }
    }

    /// `batch` matrices of `rows × cols`.
    pub const fn batched(batch: usize, rows: usize, cols: usize) -> Self {
        Shape { batch, rows, cols }
    }

    /// The output's shape: rows and columns swapped.
    pub const fn transposed(self) -> Self {
        Shape { batch: self.batch, rows: self.cols, cols: self.rows }
    }

    /// The number of elements, after checking that no dimension is zero and that the count
    /// fits in memory addresses.
    pub fn elements(self) -> Result<usize> {
        for (what, n) in [("batch", self.batch), ("rows", self.rows), ("cols", self.cols)] {
            if n == 0 {
                return Err(Error::ZeroDimension { what });
            }
        }
        self.batch
            .checked_mul(self.rows)
            .and_then(|n| n.checked_mul(self.cols))
            .filter(|&n| u64::try_from(n).is_ok_and(|n| n.checked_mul(8).is_some()))
            .ok_or_else(|| Error::ShapeOverflow { shape: self.to_string() })
    }

    /// Checks that `src` and `dst` both hold exactly this shape's elements.
    pub fn check_buffers(self, src: usize, dst: usize) -> Result<usize> {
        let n = self.elements()?;
        for (buffer, actual) in [("src", src), ("dst", dst)] {
            if actual != n {
                return Err(Error::LengthMismatch { buffer, shape: self.to_string(), expected: n, actual });
            }
        }
        Ok(n)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.batch == 1 {
            write!(f, "{}×{}", self.rows, self.cols)
        } else {
            write!(f, "{}×{}×{}", self.batch, self.rows, self.cols)
        }
    }
}

/// The transpose kernels, one rung of the ladder each (see `docs/benchmarks.md` for figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransposeKernel {
    /// `transpose_naive`: coalesced reads, strided writes; no shared memory.
    #[default]
    Naive,
}

impl TransposeKernel {
    /// Every kernel, in ladder order.
    pub const ALL: [TransposeKernel; 1] = [TransposeKernel::Naive];

    /// The kernel's name, as in the PTX without the width suffix.
    pub const fn name(self) -> &'static str {
        match self {
            TransposeKernel::Naive => "transpose_naive",
        }
    }

    const fn entries(self) -> [&'static str; 4] {
        match self {
            TransposeKernel::Naive => kernels::TRANSPOSE_NAIVE,
        }
    }
}

/// Validates a transpose of `shape` from a buffer of `src_len` elements of `T` into one of
/// `dst_len`, and plans the launch of `kernel`'s entry for `T`'s width.
pub fn plan<T: Element>(kernel: TransposeKernel, src_len: usize, dst_len: usize, shape: Shape) -> Result<Launch> {
    shape.check_buffers(src_len, dst_len)?;
    let (rows, cols, batch) = (shape.rows as u64, shape.cols as u64, shape.batch as u64);
    Ok(Launch {
        kernel: kernel.entries()[T::WIDTH.index()],
        grid: grid(rows, cols, batch),
        block: (TILE, BLOCK_ROWS, 1),
        shared_bytes: 0,
    })
}

impl Gpu {
    /// Transposes `src` (shape `shape`) into `dst` (shape `shape.transposed()`) with the
    /// library's default kernel.
    ///
    /// ```no_run
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::{Gpu, Shape};
    /// let gpu = Gpu::new()?;
    /// let src = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 × 3
    /// let mut dst = gpu.alloc_zeros::<f32>(6)?;
    /// gpu.transpose(&src, &mut dst, Shape::new(2, 3))?;
    /// assert_eq!(gpu.download(&dst)?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]); // 3 × 2
    /// # Ok(()) }
    /// ```
    pub fn transpose<T: Element>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>, shape: Shape) -> Result<()> {
        self.transpose_with(TransposeKernel::default(), src, dst, shape)
    }

    /// Transposes with a chosen rung of the ladder.
    pub fn transpose_with<T: Element>(
        &self,
        kernel: TransposeKernel,
        src: &DeviceBuffer<T>,
        dst: &mut DeviceBuffer<T>,
        shape: Shape,
    ) -> Result<()> {
        let launch = plan::<T>(kernel, src.len(), dst.len(), shape)?;
        let (rows, cols, batch) = (shape.rows as u64, shape.cols as u64, shape.batch as u64);
        // Safety: `plan` checked that both buffers hold exactly batch·rows·cols elements; the
        // kernels cover the grid with bounds-checked grid-stride loops.
        unsafe {
            self.launch(launch, |b| {
                b.arg(&mut dst.slice).arg(&src.slice).arg(&rows).arg(&cols).arg(&batch);
            })
        }
    }
}
