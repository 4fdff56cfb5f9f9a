//! The one error type of the runtime.

use cudarc::driver::DriverError;

/// Everything that can go wrong between a runtime call and its result. Launch configurations
/// and kernel arguments are checked before the driver sees them, so each mistake gets its own
/// variant with the numbers involved, never a launch.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `libcuda` could not be loaded: no NVIDIA driver on this machine.
    #[error(
        "no CUDA driver: libcuda could not be loaded ({0}); install the NVIDIA driver, run on a machine with a GPU, or set BANKWISE_EMULATOR=1 where the program opens it with from_env (the CPU emulator)"
    )]
    NoDriver(String),
    /// The driver loaded but there is no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s); pick an ordinal below {count}")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver call failed: {0}")]
    Driver(#[from] DriverError),
    /// A module image cannot be handed to the driver as it is.
    #[error("invalid module image: {0}")]
    InvalidImage(String),
    /// A manifest line is not `name(param, …)` with params `ptr`, `u32`, `f64`, ….
    #[error("manifest line {line} is not an entry `name(ptr, u64, …)`: {text:?}")]
    BadManifest {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// The module defines no kernel of this name.
    #[error("the module has no kernel `{name}`{}", missing_hint(near, *known))]
    MissingKernel {
        /// The name asked for.
        name: String,
        /// Entries of the module with similar names (at most five, closest first).
        near: Vec<String>,
        /// How many entries the module is known to define (`None`: loaded without a manifest).
        known: Option<usize>,
    },
    /// A launch passed a different number of arguments than the kernel takes.
    #[error("kernel `{kernel}` takes {expected} argument(s), {signature}, but the launch passed {got}")]
    ArgumentCount {
        /// The kernel.
        kernel: String,
        /// Parameters in its manifest entry.
        expected: usize,
        /// Arguments passed.
        got: usize,
        /// Its manifest entry, as `name(ptr, u64)`.
        signature: String,
    },
    /// A launch argument does not fit the kernel's parameter at its position.
    #[error(
        "kernel `{kernel}` argument {index}: the parameter is `{expected}` but the launch passed {got} ({signature})"
    )]
    ArgumentMismatch {
        /// The kernel.
        kernel: String,
        /// 0-based argument position.
        index: usize,
        /// The parameter, as the manifest writes it (`ptr`, `u64`, `f32`).
        expected: String,
        /// What was passed (`a device pointer`, `a 4-byte scalar`).
        got: String,
        /// Its manifest entry.
        signature: String,
    },
    /// A launch was queued on a stream of another device's context than the kernel's module.
    #[error(
        "the stream belongs to another context than the kernel's module; launch on a stream of the device the module was loaded on"
    )]
    ForeignStream,
    /// A block or grid dimension is 0.
    #[error("{what} is 0; every grid and block dimension must be at least 1")]
    ZeroLaunchDimension {
        /// `grid.x`, `block.z`, ….
        what: &'static str,
    },
    /// More threads per block than the device allows.
    #[error("block {block:?} has {threads} threads; this device allows at most {max} per block")]
    BlockTooLarge {
        /// The block's dimensions.
        block: (u32, u32, u32),
        /// Their product.
        threads: u64,
        /// The device's limit.
        max: u32,
    },
    /// A block dimension past the device's limit for that axis.
    #[error("block.{axis} = {got} exceeds this device's limit of {max}")]
    BlockDimTooLarge {
        /// `x`, `y` or `z`.
        axis: char,
        /// The dimension asked for.
        got: u32,
        /// The device's limit.
        max: u32,
    },
    /// A grid dimension past the device's limit for that axis (y and z: 65 535).
    #[error("grid.{axis} = {got} exceeds this device's limit of {max}; loop inside the kernel or split the launch")]
    GridDimTooLarge {
        /// `x`, `y` or `z`.
        axis: char,
        /// The dimension asked for.
        got: u32,
        /// The device's limit.
        max: u32,
    },
    /// More dynamic shared memory than one block can be given on this device, even opted in.
    #[error("{bytes} bytes of dynamic shared memory per block pass this device's opt-in maximum of {max}")]
    SharedMemoryTooLarge {
        /// Bytes asked for.
        bytes: u32,
        /// The device's opt-in maximum per block.
        max: u32,
    },
    /// A host slice's length does not match the device buffer it is copied to or from.
    #[error("host slice holds {host} elements but the device buffer holds {device}; copy between equal lengths")]
    HostLengthMismatch {
        /// Elements on the host.
        host: usize,
        /// Elements on the device.
        device: usize,
    },
    /// Two device buffers of a copy differ in length.
    #[error("copy from {src} elements into {dst}; device-to-device copies need equal lengths")]
    CopyLengthMismatch {
        /// Elements in the source.
        src: usize,
        /// Elements in the destination.
        dst: usize,
    },
    /// A copy of rows ([`Stream::copy_rows`](crate::Stream::copy_rows)) whose rows are longer
    /// than a leading dimension, or whose last row ends past its buffer; `bankwise`'s
    /// `Gpu::copy_rows_aligned` also for elements narrower than 4 bytes, destination rows off
    /// 16 bytes, and leading dimensions too large to address (`what` says which).
    #[error("copy of {rows} rows of {cols} elements from rows {src_ld} apart into rows {dst_ld} apart: {what}")]
    BadRowCopy {
        /// Rows copied.
        rows: usize,
        /// Elements per row.
        cols: usize,
        /// Elements between the source's rows.
        src_ld: usize,
        /// Elements between the destination's rows.
        dst_ld: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A sub-range of a buffer is not inside it.
    #[error("range {start}..{end} is outside a buffer of {len} elements")]
    RangeOutOfBounds {
        /// First element.
        start: usize,
        /// One past the last.
        end: usize,
        /// Elements in the buffer.
        len: usize,
    },
    /// A verification compared slices of different lengths.
    #[error("verify: got {got} elements, want {want}; the output and its reference must have the same length")]
    VerifyLength {
        /// Elements produced.
        got: usize,
        /// Elements expected.
        want: usize,
    },
    /// A verification found mismatches ([`crate::verify::Report::check`]).
    #[error("verify: {0}")]
    VerifyFailed(String),
    /// A launch on the emulator ended with a fault of the kernel: an out-of-bounds or
    /// misaligned access, a panic, a deadlock (see [`bankwise_emu::Fault`]).
    #[error("emulated launch of `{kernel}`: {fault}")]
    Emulated {
        /// The kernel.
        kernel: String,
        /// What it did.
        fault: bankwise_emu::Fault,
    },
    /// The emulator has no host form of a kernel the module names.
    #[error(transparent)]
    NotLinked(#[from] bankwise_emu::registry::LookupError),
    /// An environment variable that bankwise reads has a value it does not understand.
    #[error("{variable}={value:?}: expected {expected}")]
    BadEnvironment {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What it may be.
        expected: &'static str,
    },
    /// What was asked for needs a real GPU (timing, occupancy, driver interop).
    #[error(
        "{0} needs a GPU: the emulator runs kernels and reports their shared-memory traffic, but does not time them"
    )]
    NeedsGpu(&'static str),
    /// The host could not give an emulated buffer its memory.
    #[error("the host could not allocate {bytes} bytes for an emulated device buffer")]
    HostOutOfMemory {
        /// Bytes asked for.
        bytes: usize,
    },
    /// A kernel's declared shared memory and the dynamic bytes a launch asks for pass what a
    /// block can have.
    #[error(
        "kernel `{kernel}` declares {declared} bytes of shared memory; with the {dynamic} dynamic bytes the launch asks for, a block would need more than this device's maximum of {max} per block"
    )]
    DeclaredSharedTooLarge {
        /// The kernel.
        kernel: String,
        /// Bytes it declares.
        declared: u32,
        /// Dynamic bytes the launch asked for.
        dynamic: u32,
        /// The device's per-block maximum.
        max: u32,
    },
    /// A module's entry and the kernel crate's host form disagree: the PTX was built from other
    /// sources than the host form linked into this program.
    #[error(
        "kernel `{kernel}` is `{module}` in the module but `{host}` in its linked host form: rebuild the PTX from the same kernel sources"
    )]
    StaleModule {
        /// The kernel.
        kernel: String,
        /// The module's entry, as its manifest writes it.
        module: String,
        /// The host form's signature.
        host: String,
    },
}

fn missing_hint(near: &[String], known: Option<usize>) -> String {
    match (near.is_empty(), known) {
        (_, None) => "; the module was loaded without a manifest, so its entries are unknown (check the name, or load it with its manifest)".into(),
        (true, Some(n)) => format!("; none of its {n} entries has a similar name (was it built from other kernel sources?)"),
        (false, Some(n)) => format!("; similar entries among its {n}: {}", near.join(", ")),
    }
}

/// `Result` with the runtime's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
