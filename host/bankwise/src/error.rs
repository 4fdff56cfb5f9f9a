//! The one error type of the library.

use cudarc::driver::DriverError;

/// Everything that can go wrong between a call and its result. Every launcher validates its
/// arguments before touching the GPU, so a bad shape is reported, never launched. Errors of
/// the runtime underneath ([`bankwise_runtime::Error`]) arrive as [`Error::Runtime`], except
/// that a missing driver, a missing device and a driver failure the runtime does not name keep
/// their own variants; each says what the runtime's says.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `libcuda` could not be loaded: no NVIDIA driver on this machine.
    #[error("{}", bankwise_runtime::Error::NoDriver(.0.clone()))]
    NoDriver(String),
    /// The driver loaded but there is no device with this ordinal.
    #[error("{}", bankwise_runtime::Error::NoDevice { ordinal: *ordinal, count: *count })]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
    },
    /// A CUDA driver call failed, for a reason the runtime has no variant for. The failures a
    /// user can act on arrive as [`Error::Runtime`]: `OutOfMemory`, `LaunchOutOfResources`,
    /// `KernelFault`, `UnsupportedImage`.
    #[error("{}", bankwise_runtime::Error::Driver(*.0))]
    Driver(DriverError),
    /// The runtime rejected a call (a kernel missing from the module, a launch past the
    /// device's limits, a host slice of the wrong length, an allocation past the device's
    /// memory, a kernel's fault, …): its message.
    #[error(transparent)]
    Runtime(bankwise_runtime::Error),
    /// A dimension is zero.
    #[error("{what} is 0; every dimension must be at least 1")]
    ZeroDimension {
        /// Which dimension.
        what: &'static str,
    },
    /// The element count of a shape does not fit in memory addresses.
    #[error("shape {shape} has more elements than a 64-bit address space holds")]
    ShapeOverflow {
        /// The shape, as written by the caller.
        shape: String,
    },
    /// A tensor has no axes, or more than an operation takes.
    #[error("dims {dims:?} has {} axes; {what} takes 1 to {max}", dims.len())]
    RankOutOfRange {
        /// The sizes given.
        dims: Vec<usize>,
        /// The most axes the operation takes.
        max: usize,
        /// The operation.
        what: &'static str,
    },
    /// A permutation's `perm` is not a reordering of its tensor's axes.
    #[error("perm {perm:?} is not a permutation of the axes of dims {dims:?}: {why}")]
    NotAPermutation {
        /// The sizes given.
        dims: Vec<usize>,
        /// The permutation given.
        perm: Vec<usize>,
        /// What is wrong with it.
        why: String,
    },
    /// A plan made for one element width is used with elements of another.
    #[error("this plan was made for {planned}-byte elements, not {given}-byte ones; plan again for this type")]
    PlanWidthMismatch {
        /// Bytes per element the plan was made for.
        planned: usize,
        /// Bytes per element of the buffers given.
        given: usize,
    },
    /// A tuning table file (`BANKWISE_TUNING`, [`crate::tuning::file`]) could not be read or is
    /// not a valid table.
    #[error("tuning table {path}: {what}")]
    BadTuning {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// A buffer's length does not match the shape it is used with.
    #[error("{buffer} holds {actual} elements but shape {shape} needs {expected}")]
    LengthMismatch {
        /// Which argument (`src`, `dst`).
        buffer: &'static str,
        /// The shape.
        shape: String,
        /// Elements the shape needs.
        expected: usize,
        /// Elements the buffer holds.
        actual: usize,
    },
    /// A matrix's leading dimension is smaller than its rows' length.
    #[error("{matrix}'s leading dimension {ld} is below its row length {row_len}")]
    LeadingDimension {
        /// Which matrix (`A`, `B`, `C`).
        matrix: &'static str,
        /// The leading dimension given.
        ld: usize,
        /// Elements per row.
        row_len: usize,
    },
    /// A buffer is too short for the matrix it holds.
    #[error(
        "{matrix} holds {actual} elements but {rows} rows of {row_len} with leading dimension {ld} need {expected}"
    )]
    MatrixTooShort {
        /// Which matrix (`A`, `B`, `C`).
        matrix: &'static str,
        /// Rows, row length and leading dimension.
        rows: usize,
        /// Elements per row.
        row_len: usize,
        /// Elements between the starts of consecutive rows.
        ld: usize,
        /// Elements needed: `(rows − 1)·ld + row_len`.
        expected: usize,
        /// Elements the buffer holds.
        actual: usize,
    },
    /// A buffer is too short for the batch of matrices it holds.
    #[error(
        "{matrix} holds {actual} elements but a batch of {batch} matrices {stride} elements apart needs {expected}"
    )]
    BatchTooShort {
        /// Which matrix (`A`, `B`, `C`).
        matrix: &'static str,
        /// Matrices in the batch.
        batch: usize,
        /// Elements between the starts of consecutive matrices.
        stride: usize,
        /// Elements needed: `(batch − 1)·stride` plus one matrix.
        expected: usize,
        /// Elements the buffer holds.
        actual: usize,
    },
    /// The `C`s of a batch overlap, so their products would write each other's elements.
    #[error(
        "the batch's C matrices overlap: they are {stride} elements apart but each spans {span}; give C a stride of at least {span}"
    )]
    OverlappingBatches {
        /// `C`'s stride.
        stride: usize,
        /// Elements from one `C`'s first element to its last, plus one.
        span: usize,
    },
    /// The chosen matrix multiply kernel does not compute this operation.
    #[error("{kernel} computes one product of matrices as stored; {what} needs MatmulKernel::Tuned")]
    MatmulUnsupported {
        /// The kernel's name.
        kernel: &'static str,
        /// What it lacks (`a transposed operand`, `a batch`).
        what: &'static str,
    },
    /// A plan of the tuned matrix multiply that cannot compute this product.
    #[error("this plan of the tuned matrix multiply cannot compute the product: {what}")]
    TunedPlanUnfit {
        /// Why (`the tuned rung's wide tiles are f32 only`, `its split of k was made for another
        /// shape`).
        what: &'static str,
    },
    /// A permutation plan whose work no kernel runs (a [`crate::PermutePlan`] edited by hand).
    #[error("this permutation plan cannot run: {what}")]
    PermutePlanUnfit {
        /// Why (`no unaligned tiles of 8-byte words`).
        what: String,
    },
    /// A kernel of a module that this GPU does not run (it needs newer instructions).
    #[error(
        "{kernel} needs a GPU of compute capability {}.{} or later (this one is {}.{}); use MatmulKernel::Tuned, which runs from Volta on",
        needs.0, needs.1, has.0, has.1
    )]
    NeedsNewerGpu {
        /// The kernel.
        kernel: String,
        /// The compute capability its module needs.
        needs: (i32, i32),
        /// The GPU's.
        has: (i32, i32),
    },
    /// A probe of an instruction no probe kernel runs (the matrix loads and stores: the model
    /// analyzes them, the probes measure `LDS`/`STS` only).
    #[error("no probe kernel runs {op}: the probes measure shared loads and stores (LDS, STS)")]
    ProbeUnsupportedOp {
        /// The instruction asked for.
        op: crate::banks::Op,
    },
    /// A bank-conflict probe's mask selects no lane.
    #[error("probe mask selects no active lane; at least one of the 32 lanes must access")]
    ProbeNoActiveLane,
    /// A probe lane's offset is not a multiple of the access width (the hardware would fault).
    #[error("probe lane {lane}: offset {offset:#x} is not aligned to the {width}-byte access width")]
    ProbeMisaligned {
        /// Offending lane.
        lane: u32,
        /// Its byte offset into shared memory.
        offset: u64,
        /// Access width in bytes.
        width: u32,
    },
    /// A probe lane's access does not fit in the shared memory a probe may allocate.
    #[error("probe lane {lane}: {width} bytes at offset {offset:#x} pass the {limit}-byte shared-memory limit")]
    ProbeOutOfBounds {
        /// Offending lane.
        lane: u32,
        /// Its byte offset into shared memory.
        offset: u64,
        /// Access width in bytes.
        width: u32,
        /// Bytes of shared memory a probe may use.
        limit: u32,
    },
    /// A probe's iteration count is 0 or too large.
    #[error("probe iterations must be between 1 and {max}, got {iterations}")]
    ProbeIterations {
        /// Iterations asked for.
        iterations: u32,
        /// The largest allowed.
        max: u32,
    },
    /// A probe read (or read back) other values than the addresses it was given hold.
    #[error("{kernel} warp {warp} lane {lane}: checksum {got:#x}, expected {want:#x}; it did not access its offset")]
    ProbeChecksum {
        /// The probe kernel.
        kernel: &'static str,
        /// Offending lane of warp `warp`.
        lane: u32,
        /// Its warp.
        warp: u32,
        /// What the kernel reported.
        got: u32,
        /// What the offsets predict.
        want: u32,
    },
    /// A reduction's range is not inside its buffer.
    #[error("range {start}..{end} is out of bounds of a buffer of {len} elements")]
    RangeOutOfBounds {
        /// First element of the range.
        start: usize,
        /// One past its last element.
        end: usize,
        /// Elements in the buffer.
        len: usize,
    },
    /// A reduction's range starts after it ends.
    #[error("range {start}..{end} starts after it ends")]
    RangeReversed {
        /// First element of the range.
        start: usize,
        /// One past its last element.
        end: usize,
    },
    /// A reduction's scratch buffers are too small for the range (make them with
    /// `Gpu::reduce_scratch` for at least the range's length and the same kernel).
    #[error("reduction scratch holds {actual} elements but this reduction needs {needed}")]
    ScratchTooSmall {
        /// Elements the plan needs.
        needed: usize,
        /// Elements the scratch holds.
        actual: usize,
    },
    /// A tensor of rank 0 or past 8 given to an axis reduction.
    #[error("a tensor of rank {rank} cannot be reduced along axes: give 1 to 8 dimensions")]
    AxesRank {
        /// Dimensions given.
        rank: usize,
    },
    /// An axis to reduce is not a dimension of the tensor.
    #[error("axis {axis} is out of range for a tensor of rank {rank} (axes are 0 to {})", rank - 1)]
    AxisOutOfRange {
        /// The axis given.
        axis: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An axis to reduce is listed more than once.
    #[error("axis {axis} is listed twice in the axes to reduce; list each axis once")]
    AxisRepeated {
        /// The axis.
        axis: usize,
    },
    /// A minimum or maximum over no elements, which has no value.
    #[error("{op} over axes {axes} of shape {shape} has no value: each of its {outputs} outputs reduces 0 elements")]
    EmptyReduction {
        /// The operation (`min`, `max`).
        op: &'static str,
        /// The shape, as given.
        shape: String,
        /// The axes, as given.
        axes: String,
        /// Outputs the reduction would have.
        outputs: usize,
    },
}

impl From<bankwise_runtime::Error> for Error {
    fn from(e: bankwise_runtime::Error) -> Self {
        match e {
            bankwise_runtime::Error::NoDriver(why) => Error::NoDriver(why),
            bankwise_runtime::Error::NoDevice { ordinal, count } => Error::NoDevice { ordinal, count },
            bankwise_runtime::Error::Driver(e) => Error::Driver(e),
            other => Error::Runtime(other),
        }
    }
}

impl From<DriverError> for Error {
    /// As the runtime maps it (a kernel's fault, an image the driver cannot run: their own
    /// variants).
    fn from(e: DriverError) -> Self {
        bankwise_runtime::Error::from(e).into()
    }
}

/// `Result` with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUresult;

    #[test]
    fn a_wrapped_runtime_error_says_what_the_runtime_says() {
        let runtime = || bankwise_runtime::Error::OutOfMemory { requested: 3 << 30, free: 1 << 30, total: 80 << 30 };
        let e = Error::from(runtime());
        assert!(matches!(e, Error::Runtime(bankwise_runtime::Error::OutOfMemory { .. })), "{e:?}");
        assert_eq!(e.to_string(), runtime().to_string());
        assert!(e.to_string().starts_with("out of device memory: asked for 3221225472 bytes"), "{e}");
        let e = Error::from(bankwise_runtime::Error::NoDevice { ordinal: 3, count: 1 });
        assert!(matches!(e, Error::NoDevice { ordinal: 3, count: 1 }), "{e:?}");
        assert_eq!(e.to_string(), bankwise_runtime::Error::NoDevice { ordinal: 3, count: 1 }.to_string());
        let e = Error::from(bankwise_runtime::Error::NoDriver("tried libcuda.so".into()));
        assert_eq!(e.to_string(), bankwise_runtime::Error::NoDriver("tried libcuda.so".into()).to_string());
    }

    #[test]
    fn a_driver_failure_is_the_runtimes_sentence_not_a_debug_dump() {
        let code = DriverError(CUresult::CUDA_ERROR_INVALID_VALUE);
        let e = Error::from(code);
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE))), "{e:?}");
        assert_eq!(e.to_string(), bankwise_runtime::Error::Driver(code).to_string());
        assert!(e.to_string().starts_with("CUDA driver call failed: CUDA_ERROR_INVALID_VALUE"), "{e}");
        assert!(!e.to_string().contains("DriverError("), "{e}");
        // A failure the runtime names arrives as its variant, whichever way it came.
        let e = Error::from(DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(
            matches!(
                e,
                Error::Runtime(bankwise_runtime::Error::KernelFault { code: CUresult::CUDA_ERROR_ILLEGAL_ADDRESS })
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("context is unusable"), "{e}");
    }
}
