//! The one error type of the runtime, and the mapping of the driver's failures that a user
//! can act on (memory, launch resources, a kernel's fault, a driver too old) to variants of
//! their own.

use cudarc::driver::DriverError;
use cudarc::driver::sys::CUresult;

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
    /// A CUDA driver call failed, for a reason none of the variants below names.
    #[error("CUDA driver call failed: {}", describe(.0))]
    Driver(DriverError),
    /// A device allocation asked for more memory than the device had free
    /// (`CUDA_ERROR_OUT_OF_MEMORY`). The device stays usable.
    #[error(
        "out of device memory: asked for {requested} bytes ({}) with {free} of {total} bytes free ({} of {}); drop buffers no longer needed, or work in smaller pieces",
        human(*requested), human(*free), human(*total)
    )]
    OutOfMemory {
        /// Bytes asked for (`usize::MAX` where the element count times the element size
        /// overflows).
        requested: usize,
        /// Free device memory in bytes when the allocation failed (`cuMemGetInfo`).
        free: usize,
        /// The device's memory in bytes.
        total: usize,
    },
    /// A launch needs more registers than an SM has for its block
    /// (`CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`): too many threads per block at the registers
    /// the kernel was compiled to. Nothing was launched; the device stays usable.
    #[error(
        "launch of `{kernel}` with {threads} threads per block is out of resources: at {registers} registers per thread it runs at most {max_threads} threads per block (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); launch at most {max_threads} threads per block, or compile the kernel to fewer registers (#[kernel(launch_bounds(..))])"
    )]
    LaunchOutOfResources {
        /// The kernel.
        kernel: String,
        /// Threads per block of the launch.
        threads: u64,
        /// Registers per thread the kernel was compiled to (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
        registers: u32,
        /// The most threads per block it launches with on this device
        /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
        max_threads: u32,
    },
    /// A kernel faulted while it ran (an illegal or misaligned address, an illegal instruction,
    /// a trap or panic, …). The driver reports it at the next call that waits for the work,
    /// usually a synchronisation or a download, and every call on the device's context fails
    /// from then on.
    #[error(
        "a kernel faulted: {} ({code:?}); the device's context is unusable now (every later call on it fails this way), so end the process; to name the faulting access, rerun on the CPU emulator (BANKWISE_EMULATOR=1 where the program opens its device with from_env) or under compute-sanitizer",
        fault_cause(*code)
    )]
    KernelFault {
        /// The driver's code for the fault.
        code: CUresult,
    },
    /// The driver cannot run a module image: PTX of a newer ISA version than the driver
    /// compiles (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`), or an image with no code for this GPU
    /// (`CUDA_ERROR_NO_BINARY_FOR_GPU`: SASS for another architecture or from a newer CUDA than
    /// the driver, and no PTX it can compile).
    #[error("{}", unsupported_image(*code, *driver))]
    UnsupportedImage {
        /// The driver's code.
        code: CUresult,
        /// The CUDA version the driver supports, `(major, minor)` (`cuDriverGetVersion`), where
        /// it could be read.
        driver: Option<(i32, i32)>,
    },
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
    /// Memory (or a stream) of one device was given to work on another: on a GPU the kernel
    /// would fault, or read across the interconnect where peer access is on.
    #[error(
        "{what} belongs to {memory}, but the work runs on {device}; copy it to {device} or run the work on {memory}"
    )]
    WrongDevice {
        /// What was given (`argument 1 of permute_rows_u32`, `the stream`, `src`).
        what: String,
        /// The device it belongs to.
        memory: crate::DeviceId,
        /// The device the work runs on.
        device: crate::DeviceId,
    },
    /// A raw device pointer given to [`crate::DeviceSlice::from_raw`] is not what its contract
    /// asks for.
    #[error("a raw view of {len} elements of {elem_bytes} bytes at {ptr:#x}: {what}")]
    BadRawPointer {
        /// The address.
        ptr: u64,
        /// Elements asked for.
        len: usize,
        /// Bytes per element.
        elem_bytes: usize,
        /// What is wrong.
        what: String,
    },
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
    /// A launch on the emulator ran to its end, but threads raced on shared memory (see
    /// [`bankwise_emu::Race`]): an error unless the emulator collects races
    /// ([`crate::EmulatorChecks`]). The report, every race in it, is also kept by the device
    /// ([`crate::Device::take_emulator_reports`]).
    #[error("{}", crate::emulator::describe_races(report))]
    Race {
        /// The launch's report.
        report: Box<crate::LaunchReport>,
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

impl From<DriverError> for Error {
    /// Maps a failed driver call: a kernel's fault ([`Error::KernelFault`]) and an image the
    /// driver cannot run ([`Error::UnsupportedImage`]) get their own variants, whichever call
    /// reports them; the rest is [`Error::Driver`]. Failures that need the call's context to be
    /// acted on (an allocation's size, a launch's block) are mapped where they happen:
    /// `Error::from_allocation`, `Error::from_launch`.
    fn from(e: DriverError) -> Self {
        use CUresult as R;
        match e.0 {
            R::CUDA_ERROR_ILLEGAL_ADDRESS
            | R::CUDA_ERROR_MISALIGNED_ADDRESS
            | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | R::CUDA_ERROR_INVALID_PC
            | R::CUDA_ERROR_HARDWARE_STACK_ERROR
            | R::CUDA_ERROR_ASSERT
            | R::CUDA_ERROR_LAUNCH_FAILED
            | R::CUDA_ERROR_LAUNCH_TIMEOUT => Error::KernelFault { code: e.0 },
            R::CUDA_ERROR_UNSUPPORTED_PTX_VERSION | R::CUDA_ERROR_NO_BINARY_FOR_GPU => {
                Error::UnsupportedImage { code: e.0, driver: driver_version() }
            }
            _ => Error::Driver(e),
        }
    }
}

impl Error {
    /// The error of a failed allocation of `requested` bytes: [`Error::OutOfMemory`] with the
    /// free and total memory `memory` reads (`cuMemGetInfo`) where the driver ran out, else as
    /// [`From<DriverError>`](Error#impl-From<DriverError>-for-Error) maps it.
    pub(crate) fn from_allocation(
        e: DriverError,
        requested: usize,
        memory: impl FnOnce() -> std::result::Result<(usize, usize), DriverError>,
    ) -> Error {
        match (e.0, memory()) {
            (CUresult::CUDA_ERROR_OUT_OF_MEMORY, Ok((free, total))) => Error::OutOfMemory { requested, free, total },
            _ => e.into(),
        }
    }

    /// The error of a failed launch of `kernel` with `block`: [`Error::LaunchOutOfResources`]
    /// with the registers per thread and the most threads per block that `limits` reads from
    /// the kernel where it ran out, else as
    /// [`From<DriverError>`](Error#impl-From<DriverError>-for-Error) maps it.
    pub(crate) fn from_launch(
        e: DriverError,
        kernel: &str,
        block: (u32, u32, u32),
        limits: impl FnOnce() -> std::result::Result<(i32, i32), DriverError>,
    ) -> Error {
        match (e.0, limits()) {
            (CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, Ok((registers, max_threads))) => {
                Error::LaunchOutOfResources {
                    kernel: kernel.to_string(),
                    threads: u64::from(block.0) * u64::from(block.1) * u64::from(block.2),
                    registers: registers.max(0) as u32,
                    max_threads: max_threads.max(0) as u32,
                }
            }
            _ => e.into(),
        }
    }
}

/// The driver's name of the failure (`CUDA_ERROR_INVALID_VALUE`) and, where the driver is loaded,
/// its description: never the driver's own call where there is no driver (cudarc would panic).
fn describe(e: &DriverError) -> String {
    // Safety: only checks whether libcuda can be loaded.
    if unsafe { cudarc::driver::sys::is_culib_present() }
        && let Ok(text) = e.error_string()
    {
        return format!("{:?} ({})", e.0, text.to_string_lossy());
    }
    format!("{:?}", e.0)
}

/// What a kernel did, by the driver's code for its fault.
fn fault_cause(code: CUresult) -> &'static str {
    use CUresult as R;
    match code {
        R::CUDA_ERROR_ILLEGAL_ADDRESS => "it accessed memory outside every allocation",
        R::CUDA_ERROR_MISALIGNED_ADDRESS => "it accessed memory at an address not aligned to the access's width",
        R::CUDA_ERROR_INVALID_ADDRESS_SPACE => "it used an address in the wrong state space (global, shared, local)",
        R::CUDA_ERROR_ILLEGAL_INSTRUCTION => "it executed an illegal instruction",
        R::CUDA_ERROR_INVALID_PC => "it jumped to an invalid program counter",
        R::CUDA_ERROR_HARDWARE_STACK_ERROR => "it overflowed or corrupted its call stack",
        R::CUDA_ERROR_ASSERT => "a device-side assertion failed",
        R::CUDA_ERROR_LAUNCH_TIMEOUT => "it ran past the display watchdog's time limit",
        _ => "it stopped with an exception (a panic or trap in the kernel, or a fault the driver does not name)",
    }
}

/// The CUDA version the loaded driver supports, `(major, minor)`; `None` without a driver.
fn driver_version() -> Option<(i32, i32)> {
    // Safety: only checks whether libcuda can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return None;
    }
    let mut version = 0;
    // Safety: writes one int.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }.result().ok()?;
    Some((version / 1000, version % 1000 / 10))
}

fn unsupported_image(code: CUresult, driver: Option<(i32, i32)>) -> String {
    let driver =
        driver.map_or_else(|| "the driver".to_string(), |(major, minor)| format!("the driver (CUDA {major}.{minor})"));
    match code {
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => format!(
            "{driver} is too old for the module's PTX ISA version ({code:?}); update the NVIDIA driver, or load PTX built for an older ISA"
        ),
        _ => format!(
            "the module has no code this GPU runs ({code:?}): its SASS is for another architecture or from a CUDA newer than {driver}, and it has no PTX the driver compiles; load its PTX, or update the NVIDIA driver"
        ),
    }
}

/// Bytes in the largest binary unit that keeps a whole number in front (`1.5 GiB`).
fn human(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(code: CUresult) -> DriverError {
        DriverError(code)
    }

    #[test]
    fn an_allocation_past_free_memory_names_the_bytes_asked_for_and_free() {
        let e = Error::from_allocation(driver(CUresult::CUDA_ERROR_OUT_OF_MEMORY), 3 << 30, || Ok((1 << 30, 80 << 30)));
        assert!(
            matches!(e, Error::OutOfMemory { requested: 3221225472, free: 1073741824, total: 85899345920 }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "out of device memory: asked for 3221225472 bytes (3.0 GiB) with 1073741824 of 85899345920 bytes free \
             (1.0 GiB of 80.0 GiB); drop buffers no longer needed, or work in smaller pieces"
        );
    }

    #[test]
    fn an_allocation_failing_otherwise_keeps_the_drivers_code() {
        let e = Error::from_allocation(driver(CUresult::CUDA_ERROR_INVALID_VALUE), 4, || Ok((8, 8)));
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE))), "{e:?}");
        // Out of memory, but the free memory cannot be read: the code, not invented figures.
        let e = Error::from_allocation(driver(CUresult::CUDA_ERROR_OUT_OF_MEMORY), 4, || {
            Err(driver(CUresult::CUDA_ERROR_INVALID_CONTEXT))
        });
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY))), "{e:?}");
        // A kernel's earlier fault surfacing at an allocation is that fault.
        let e = Error::from_allocation(driver(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS), 4, || Ok((8, 8)));
        assert!(matches!(e, Error::KernelFault { code: CUresult::CUDA_ERROR_ILLEGAL_ADDRESS }), "{e:?}");
    }

    #[test]
    fn a_launch_out_of_resources_names_the_registers_and_the_threads_that_fit() {
        let code = driver(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
        let e = Error::from_launch(code, "gemm", (32, 32, 1), || Ok((128, 512)));
        let Error::LaunchOutOfResources { kernel, threads, registers, max_threads } = &e else { panic!("{e:?}") };
        assert_eq!((kernel.as_str(), *threads, *registers, *max_threads), ("gemm", 1024, 128, 512));
        let text = e.to_string();
        assert!(text.starts_with("launch of `gemm` with 1024 threads per block is out of resources"), "{text}");
        assert!(text.contains("at 128 registers per thread it runs at most 512 threads per block"), "{text}");
        assert!(text.contains("launch at most 512 threads per block"), "{text}");
        // Where the kernel's limits cannot be read, the driver's code stays.
        let e = Error::from_launch(code, "gemm", (32, 32, 1), || Err(driver(CUresult::CUDA_ERROR_INVALID_HANDLE)));
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES))), "{e:?}");
        let e = Error::from_launch(driver(CUresult::CUDA_ERROR_INVALID_VALUE), "gemm", (1, 1, 1), || Ok((1, 1)));
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE))), "{e:?}");
    }

    #[test]
    fn a_kernels_fault_says_the_context_is_lost_and_how_to_find_the_access() {
        for (code, cause) in [
            (CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, "outside every allocation"),
            (CUresult::CUDA_ERROR_MISALIGNED_ADDRESS, "not aligned"),
            (CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION, "illegal instruction"),
            (CUresult::CUDA_ERROR_LAUNCH_FAILED, "a panic or trap"),
            (CUresult::CUDA_ERROR_ASSERT, "assertion"),
        ] {
            let e = Error::from(driver(code));
            assert!(matches!(e, Error::KernelFault { code: c } if c == code), "{e:?}");
            let text = e.to_string();
            assert!(text.starts_with("a kernel faulted: "), "{text}");
            assert!(text.contains(cause) && text.contains(&format!("{code:?}")), "{text}");
            assert!(text.contains("context is unusable"), "{text}");
            assert!(text.contains("BANKWISE_EMULATOR=1") && text.contains("compute-sanitizer"), "{text}");
        }
    }

    #[test]
    fn an_image_the_driver_cannot_run_says_to_update_the_driver() {
        let e = Error::from(driver(CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION));
        assert!(matches!(e, Error::UnsupportedImage { code: CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, .. }));
        let text = e.to_string();
        assert!(text.contains("is too old for the module's PTX ISA version"), "{text}");
        assert!(text.contains("update the NVIDIA driver"), "{text}");
        let e = Error::UnsupportedImage { code: CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, driver: Some((12, 2)) };
        assert!(e.to_string().starts_with("the driver (CUDA 12.2) is too old"), "{e}");
        let e = Error::from(driver(CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU));
        assert!(matches!(e, Error::UnsupportedImage { code: CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU, .. }));
        let text = e.to_string();
        assert!(text.starts_with("the module has no code this GPU runs (CUDA_ERROR_NO_BINARY_FOR_GPU)"), "{text}");
        assert!(text.contains("load its PTX, or update the NVIDIA driver"), "{text}");
    }

    #[test]
    fn other_driver_failures_name_the_code_not_a_debug_dump() {
        let e = Error::from(driver(CUresult::CUDA_ERROR_INVALID_VALUE));
        assert!(matches!(e, Error::Driver(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE))), "{e:?}");
        let text = e.to_string();
        assert!(text.starts_with("CUDA driver call failed: CUDA_ERROR_INVALID_VALUE"), "{text}");
        assert!(!text.contains("DriverError("), "{text}");
    }

    #[test]
    fn sizes_are_written_in_the_largest_whole_binary_unit() {
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1023), "1023 B");
        assert_eq!(human(1024), "1.0 KiB");
        assert_eq!(human(3 << 29), "1.5 GiB");
        assert_eq!(human(usize::MAX), "16777216.0 TiB");
    }
}
