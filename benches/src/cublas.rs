//! cuBLAS as the vendor baseline, loaded through cudarc: `geam` for transposes (`C = 1·Aᵀ + 0·C`), `gemm` for matrix multiplies.

use anyhow::{Result, bail};
use bankwise::matmul::Op;
use bankwise::{DeviceBuffer, Gpu, MatmulShape, Shape};
use cudarc::cublas::{CudaBlas, sys};

/// A cuBLAS handle on the GPU's stream; `None` where libcublas cannot be loaded.
pub fn open(gpu: &Gpu) -> Option<CudaBlas> {
    // SAFETY: only loads libcublas (running its initialisers, as any use of it does) to see whether
    // it loads.
    if !unsafe { sys::is_culib_present() } {
        eprintln!("cuBLAS not found (libcublas): the geam baseline is skipped");
        return None;
    }
    let Some(stream) = gpu.stream().as_cuda() else {
        eprintln!("cuBLAS needs a GPU, not the emulator: the geam baseline is skipped");
        return None;
    };
    CudaBlas::new(stream.clone()).map_err(|e| eprintln!("cuBLAS handle failed: {e}")).ok()
}

/// Element types cuBLAS transposes with `geam`.
pub trait Geam: bankwise::Element {
    /// Queues `dst = srcᵀ` for one row-major `shape` matrix.
    fn geam(
        blas: &CudaBlas,
        gpu: &Gpu,
        src: &DeviceBuffer<Self>,
        dst: &mut DeviceBuffer<Self>,
        shape: Shape,
    ) -> Result<()>;
}

macro_rules! geam {
    ($t:ty, $f:ident) => {
        impl Geam for $t {
            fn geam(
                blas: &CudaBlas,
                _gpu: &Gpu,
                src: &DeviceBuffer<$t>,
                dst: &mut DeviceBuffer<$t>,
                shape: Shape,
            ) -> Result<()> {
                if shape.batch != 1 {
                    bail!("geam transposes one matrix at a time");
                }
                // Row-major rows×cols is column-major cols×rows (lda = cols); the row-major
                // cols×rows result is column-major rows×cols (ldc = rows). B aliases C with
                // beta = 0, which cuBLAS allows.
                let (m, n) = (shape.rows as i64, shape.cols as i64);
                let (one, zero): ($t, $t) = (1.0, 0.0);
                let (a, c) = (src.device_ptr(), dst.device_ptr());
                // SAFETY: a live handle; `src` and `dst` are live device buffers, each read or
                // written as a `rows × cols` matrix, which the callers (the benches and the CLI)
                // allocate as `shape.elements()` elements; `one` and `zero` outlive the call.
                let status = unsafe {
                    sys::$f(
                        *blas.handle(),
                        sys::cublasOperation_t::CUBLAS_OP_T,
                        sys::cublasOperation_t::CUBLAS_OP_N,
                        m,
                        n,
                        &one,
                        a as *const $t,
                        n,
                        &zero,
                        c as *const $t,
                        m,
                        c as *mut $t,
                        m,
                    )
                };
                if status != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                    bail!("cublas geam failed: {status:?}");
                }
                Ok(())
            }
        }
    };
}

geam!(f32, cublasSgeam_64);
geam!(f64, cublasDgeam_64);

/// Element types cuBLAS multiplies with `gemm`: the matrix multiply baseline.
pub trait Gemm: bankwise::matmul::Float {
    /// Queues row-major `C = α·op(A)·op(B) + β·C` of `shape` (its leading dimensions, `op`s
    /// and strided batch): cuBLAS is column-major, so it computes
    /// `Cᵀ = α·op(B)ᵀ·op(A)ᵀ + β·Cᵀ`, the same memory, with `gemm` for one product and
    /// `gemmStridedBatched` for a batch. The handle's math mode is cuBLAS's default: no TF32
    /// for `f32`; `f64` may use the FP64 tensor cores.
    #[allow(clippy::too_many_arguments)]
    fn gemm(
        blas: &CudaBlas,
        alpha: Self,
        a: &DeviceBuffer<Self>,
        b: &DeviceBuffer<Self>,
        beta: Self,
        c: &mut DeviceBuffer<Self>,
        shape: MatmulShape,
    ) -> Result<()>;
}

macro_rules! gemm {
    ($t:ty, $one:ident, $batched:ident) => {
        impl Gemm for $t {
            fn gemm(
                blas: &CudaBlas,
                alpha: $t,
                a: &DeviceBuffer<$t>,
                b: &DeviceBuffer<$t>,
                beta: $t,
                c: &mut DeviceBuffer<$t>,
                s: MatmulShape,
            ) -> Result<()> {
                s.check_buffers(a.len(), b.len(), c.len())?;
                let d = [s.m, s.n, s.k, s.lda(), s.ldb(), s.ldc()].map(|x| x as i64);
                let [stride_a, stride_b, stride_c, batch] =
                    [s.stride_a(), s.stride_b(), s.stride_c(), s.batch].map(|x| x as i64);
                let op = |o: Op| match o {
                    Op::N => sys::cublasOperation_t::CUBLAS_OP_N,
                    Op::T => sys::cublasOperation_t::CUBLAS_OP_T,
                };
                let (h, ta, tb) = (*blas.handle(), op(s.op_b), op(s.op_a));
                let (pa, pb, pc) =
                    (a.device_ptr() as *const $t, b.device_ptr() as *const $t, c.device_ptr() as *mut $t);
                // Safety: `check_buffers` checked each buffer for its matrices.
                let status = unsafe {
                    if batch == 1 {
                        sys::$one(h, ta, tb, d[1], d[0], d[2], &alpha, pb, d[4], pa, d[3], &beta, pc, d[5])
                    } else {
                        sys::$batched(
                            h, ta, tb, d[1], d[0], d[2], &alpha, pb, d[4], stride_b, pa, d[3], stride_a, &beta, pc,
                            d[5], stride_c, batch,
                        )
                    }
                };
                if status != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
                    bail!("cublas gemm failed: {status:?}");
                }
                Ok(())
            }
        }
    };
}

gemm!(f32, cublasSgemm_v2_64, cublasSgemmStridedBatched_64);
gemm!(f64, cublasDgemm_v2_64, cublasDgemmStridedBatched_64);
