//! Devices: the context a launch runs in, its limits, and the stream a handle queues on
//! (streams and events themselves: [`crate::stream`]).

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{CUdevice_attribute as Attr, CUevent_flags};
use cudarc::driver::{CudaContext, DeviceRepr, ValidAsZeroBits};

use crate::emulator::{Emulated, EmulatorChecks, LaunchReport};
use crate::error::{Error, Result};
use crate::launch::DEFAULT_SHARED_PER_BLOCK;
use crate::memory::{DeviceBuffer, DeviceId};
use crate::module::{Kernel, Module, ModuleImage};
use crate::stream::{Event, Stream, StreamKind};

/// The limits launches are checked against and the facts benchmarks depend on
/// (CUDA C++: `cudaDeviceProp`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name, as the driver reports it.
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// L2 cache size in bytes: benchmarks rotate buffers so inputs never sit in it.
    pub l2_bytes: usize,
    /// Global memory in bytes.
    pub memory_bytes: usize,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most threads along each block axis (x, y, z).
    pub max_block_dim: (u32, u32, u32),
    /// Most blocks along each grid axis (x, y, z): 2^31 − 1, 65 535, 65 535 since Kepler.
    pub max_grid_dim: (u32, u32, u32),
    /// Dynamic shared memory a block gets without opting in: 48 KiB.
    pub shared_per_block: u32,
    /// The most shared memory one block can be given once its kernel opts in, in bytes
    /// (`cudaDevAttrMaxSharedMemoryPerBlockOptin`).
    pub shared_per_block_max: u32,
    /// Shared memory per SM in bytes.
    pub shared_per_sm: u32,
    /// Shared memory the driver reserves per resident block, in bytes (1 KiB from sm_80).
    pub shared_reserved_per_block: u32,
    /// The SMs' peak clock in kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`), for peak-FLOP figures.
    pub clock_khz: u32,
}

impl DeviceInfo {
    /// The emulator's limits: an H100's (so that plans and launch checks are the same), with
    /// one "multiprocessor" per CPU core (grids sized per SM stay small) and half the host's
    /// memory.
    pub fn emulator() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        let memory_bytes = host_memory_bytes().map_or(4 << 30, |m| m / 2);
        DeviceInfo {
            name: "bankwise CPU emulator".into(),
            multiprocessors: cores,
            memory_bytes,
            ..DeviceInfo::example_sm90()
        }
    }

    /// The limits of an H100 SXM (sm_90, 132 SMs): for CPU tests of launch checks and plans.
    pub fn example_sm90() -> Self {
        DeviceInfo {
            name: "NVIDIA H100 80GB HBM3 (example)".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            l2_bytes: 50 << 20,
            memory_bytes: 80 << 30,
            max_threads_per_block: 1024,
            max_block_dim: (1024, 1024, 64),
            max_grid_dim: (i32::MAX as u32, 65_535, 65_535),
            shared_per_block: DEFAULT_SHARED_PER_BLOCK,
            shared_per_block_max: 232_448,
            shared_per_sm: 233_472,
            shared_reserved_per_block: 1024,
            clock_khz: 1_980_000,
        }
    }

    fn query(ctx: &CudaContext) -> Result<Self> {
        let attr = |a| -> Result<u32> { Ok(ctx.attribute(a)?.max(0) as u32) };
        Ok(DeviceInfo {
            name: ctx.name()?,
            compute_capability: ctx.compute_capability()?,
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
            memory_bytes: ctx.total_mem()?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_per_block_max: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            shared_reserved_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
            clock_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
        })
    }
}

/// The host's memory in bytes (Linux: `MemTotal` of `/proc/meminfo`).
fn host_memory_bytes() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Fails with [`Error::NoDriver`] where `libcuda` cannot be loaded. cudarc would panic on the
/// first driver call instead, so [`Device::new`] checks this first.
pub fn driver_present() -> Result<()> {
    // SAFETY: only loads `libcuda` (running its initialisers, as every driver call does) to see
    // whether it loads.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        let names = cudarc::get_lib_name_candidates("cuda");
        Err(Error::NoDriver(format!("tried {}", names.join(", "))))
    }
}

/// How many CUDA devices the driver sees (0 where there is no driver or no device).
pub fn device_count() -> Result<usize> {
    if driver_present().is_err() {
        return Ok(0);
    }
    match CudaContext::device_count() {
        Ok(n) => Ok(n.max(0) as usize),
        Err(e) if e.0 == cudarc::driver::sys::cudaError_enum::CUDA_ERROR_NO_DEVICE => Ok(0),
        Err(e) => Err(e.into()),
    }
}

/// Where a device's work runs.
pub(crate) enum Backend {
    /// A GPU, through the CUDA driver.
    Cuda {
        ctx: Arc<CudaContext>,
        /// The `spin_wait` hold kernel, loaded on first use ([`Device::spin_wait`]).
        hold: OnceLock<Kernel>,
    },
    /// The CPU emulator.
    Emulator(Arc<Emulated>),
}

struct Inner {
    backend: Backend,
    info: Arc<DeviceInfo>,
}

/// One GPU, or the CPU emulator standing in for one: its default stream every call of this
/// handle is queued on, and its [`DeviceInfo`] (CUDA C++: a device after `cudaSetDevice`).
/// Cheap to clone; the context lives while any clone, module, kernel or buffer of it does.
///
/// Work is asynchronous with respect to the host; [`Device::download`] and
/// [`Device::synchronize`] wait for it and report any error it raised. On the emulator
/// ([`Device::emulator`]) every launch runs to completion before `launch` returns, and returns
/// the kernel's fault, if any, itself, and by default its races ([`EmulatorChecks`]).
#[derive(Clone)]
pub struct Device {
    inner: Arc<Inner>,
    stream: Stream,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner.backend {
            Backend::Cuda { ctx, .. } => {
                f.debug_struct("Device").field("ordinal", &ctx.ordinal()).field("info", &self.inner.info).finish()
            }
            Backend::Emulator(_) => f.debug_struct("Device").field("emulator", &true).finish(),
        }
    }
}

/// The environment variable that [`Device::from_env`] reads: `1` for the CPU emulator, where a
/// race is an error ([`EmulatorChecks::Strict`]); `collect` for the emulator collecting races
/// in its reports ([`EmulatorChecks::Collect`]); `0` or unset for the GPU.
pub const EMULATOR_VAR: &str = "BANKWISE_EMULATOR";

impl Device {
    /// Opens device `ordinal`.
    ///
    /// Errors: [`Error::NoDriver`] where `libcuda` cannot be loaded, [`Error::NoDevice`] where
    /// the ordinal does not exist, [`Error::Driver`] for anything else the driver refuses.
    pub fn new(ordinal: usize) -> Result<Self> {
        driver_present()?;
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal)?;
        // Streams are ordered queues, synchronised with events where work crosses them, as in
        // CUDA C++: cudarc's per-buffer event tracking would only add host overhead to every
        // launch and copy.
        // SAFETY: cudarc then leaves ordering across streams to us: within a stream work is
        // ordered, and work that crosses streams must be ordered with events (`Stream::wait`), the
        // rule `Device::new_stream` states, as in CUDA C++. Buffers used on one stream, as
        // bankwise's are, meet cudarc's conditions.
        unsafe { ctx.disable_event_tracking() };
        let stream = Stream { kind: StreamKind::Cuda(ctx.default_stream()) };
        let info = Arc::new(DeviceInfo::query(&ctx)?);
        Ok(Device { inner: Arc::new(Inner { backend: Backend::Cuda { ctx, hold: OnceLock::new() }, info }), stream })
    }

    /// The CPU emulator (`bankwise-emu`) as a device: buffers in host memory, and kernels run
    /// from their host forms, which `#[kernel]` registered (the kernel crate must be linked
    /// into the program). Modules load from the same images as on a GPU: the emulator takes
    /// the entry names from the manifest or PTX and finds each kernel's host form by name.
    /// Each launch's report (shared-memory sites, races) is kept
    /// ([`Device::take_emulator_reports`]); a launch whose report holds a race is
    /// [`Error::Race`] ([`EmulatorChecks::Strict`]; [`Device::emulator_with`] picks otherwise).
    /// Events, [`Device::spin_wait`] and occupancy need a GPU ([`Error::NeedsGpu`]).
    pub fn emulator() -> Self {
        Device::emulator_with(EmulatorChecks::Strict)
    }

    /// [`Device::emulator`], with races treated as `checks` says: an error
    /// ([`EmulatorChecks::Strict`], the default) or only collected in the reports
    /// ([`EmulatorChecks::Collect`], for tools that show them).
    pub fn emulator_with(checks: EmulatorChecks) -> Self {
        let emulated = Arc::new(Emulated::new(checks));
        let stream = Stream { kind: StreamKind::Emulated(emulated.clone()) };
        let info = Arc::new(DeviceInfo::emulator());
        Device { inner: Arc::new(Inner { backend: Backend::Emulator(emulated), info }), stream }
    }

    /// [`Device::emulator`] where the environment variable [`EMULATOR_VAR`]
    /// (`BANKWISE_EMULATOR`) is `1` (a race is an error), the emulator collecting races in its
    /// reports where it is `collect`, else [`Device::new`]`(ordinal)`: one switch that moves a
    /// whole program onto the CPU emulator, as Numba's `NUMBA_ENABLE_CUDASIM=1` does.
    ///
    /// Errors: those of [`Device::new`], and [`Error::BadEnvironment`] for a value other than
    /// `0`, `1` or `collect`.
    pub fn from_env(ordinal: usize) -> Result<Self> {
        match std::env::var(EMULATOR_VAR).as_deref() {
            Ok("1") => Ok(Device::emulator()),
            Ok("collect") => Ok(Device::emulator_with(EmulatorChecks::Collect)),
            Ok("0") | Err(std::env::VarError::NotPresent) => Device::new(ordinal),
            _ => Err(Error::BadEnvironment {
                variable: EMULATOR_VAR,
                value: std::env::var_os(EMULATOR_VAR).unwrap_or_default().to_string_lossy().into_owned(),
                expected: "1 (the CPU emulator; a race is an error), collect (the CPU emulator, collecting races in \
                           its reports) or 0 (the GPU)",
            }),
        }
    }

    /// Whether this is the CPU emulator rather than a GPU.
    pub fn is_emulator(&self) -> bool {
        matches!(self.inner.backend, Backend::Emulator(_))
    }

    /// How the emulator treats races (`None` on a GPU).
    pub fn emulator_checks(&self) -> Option<EmulatorChecks> {
        match &self.inner.backend {
            Backend::Emulator(e) => Some(e.checks),
            Backend::Cuda { .. } => None,
        }
    }

    /// The reports of the emulated launches since the last call, in launch order (empty on a
    /// GPU).
    pub fn take_emulator_reports(&self) -> Vec<LaunchReport> {
        match &self.inner.backend {
            Backend::Emulator(e) => std::mem::take(&mut *e.reports.lock().unwrap_or_else(|p| p.into_inner())),
            Backend::Cuda { .. } => Vec::new(),
        }
    }

    pub(crate) fn backend(&self) -> &Backend {
        &self.inner.backend
    }

    /// The device's properties and limits.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    pub(crate) fn info_arc(&self) -> &Arc<DeviceInfo> {
        &self.inner.info
    }

    /// The underlying cudarc context, for interoperation (`None` on the emulator).
    pub fn context(&self) -> Option<&Arc<CudaContext>> {
        match &self.inner.backend {
            Backend::Cuda { ctx, .. } => Some(ctx),
            Backend::Emulator(_) => None,
        }
    }

    /// The stream this handle's calls are queued on: the context's default stream, or the one
    /// [`Device::with_stream`] gave it.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Which device this is ([`DeviceId`]): what memory passed to its launches must belong to.
    pub fn id(&self) -> DeviceId {
        self.stream.device_id()
    }

    /// This device, with its calls queued on `stream` instead (a stream of this device's:
    /// [`Device::new_stream`], or a cudarc stream of its context through
    /// [`Stream::from_cuda`]). The context, limits and modules are shared; nothing waits
    /// for the other stream's work.
    ///
    /// Errors: [`Error::WrongDevice`] for a stream of another device.
    pub fn with_stream(&self, stream: &Stream) -> Result<Device> {
        if stream.device_id() != self.id() {
            return Err(Error::WrongDevice {
                what: "the stream".into(),
                memory: stream.device_id(),
                device: self.id(),
            });
        }
        Ok(Device { inner: self.inner.clone(), stream: stream.clone() })
    }

    /// A new stream of this device (CUDA C++: `cudaStreamCreate`). Work on it runs
    /// concurrently with other streams' unless ordered with [`Stream::wait`].
    pub fn new_stream(&self) -> Result<Stream> {
        match &self.inner.backend {
            Backend::Cuda { ctx, .. } => Ok(Stream { kind: StreamKind::Cuda(ctx.new_stream()?) }),
            Backend::Emulator(e) => Ok(Stream { kind: StreamKind::Emulated(e.clone()) }),
        }
    }

    /// A new event with timing enabled (CUDA C++: `cudaEventCreate`).
    pub fn new_event(&self) -> Result<Event> {
        match &self.inner.backend {
            Backend::Cuda { ctx, .. } => Ok(Event { event: ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))? }),
            Backend::Emulator(_) => Err(Error::NeedsGpu("timing with events")),
        }
    }

    /// Loads a module from a PTX, cubin or fatbin image (CUDA C++: `cuModuleLoadData`).
    /// `manifest` lists its entries (`name(ptr, u64)` per line, as `bankwise-builder` writes
    /// it); without one they are read from the PTX text, and a binary image's are unknown, so
    /// its kernels' arguments are not checked. On the emulator the image is only read for its
    /// entries, whose host forms run.
    pub fn load_module(&self, image: ModuleImage<'_>, manifest: Option<&str>) -> Result<Module> {
        Module::load(self, image, manifest)
    }

    /// Free and total device memory in bytes (on the emulator: the memory it reports as its
    /// own, half the host's, as both).
    pub fn memory(&self) -> Result<(usize, usize)> {
        match &self.inner.backend {
            Backend::Cuda { ctx, .. } => Ok(ctx.mem_get_info()?),
            Backend::Emulator(_) => Ok((self.inner.info.memory_bytes, self.inner.info.memory_bytes)),
        }
    }

    /// Waits for the work queued on [`Device::stream`]; returns the first error it raised
    /// ([`Error::KernelFault`] where a kernel faulted).
    pub fn synchronize(&self) -> Result<()> {
        self.stream().synchronize()
    }

    /// Copies `data` to a new device buffer on [`Device::stream`]. [`Error::OutOfMemory`]
    /// where the device has not the memory.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        self.stream().upload(data)
    }

    /// A new device buffer of `len` zeroed elements. [`Error::OutOfMemory`] where the device
    /// has not the memory.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.stream().alloc_zeros(len)
    }

    /// A new device buffer of `len` elements that are not initialised, on
    /// [`Device::stream`]: see [`Stream::alloc_uninit`].
    ///
    /// # Safety
    /// As for [`Stream::alloc_uninit`].
    pub unsafe fn alloc_uninit<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        // SAFETY: the caller keeps `Stream::alloc_uninit`'s contract (this function's).
        unsafe { self.stream().alloc_uninit(len) }
    }

    /// Copies a device buffer back to a new `Vec`, waiting for the queued work first.
    pub fn download<T: DeviceRepr>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.stream().download(buf)
    }

    /// Overwrites a device buffer with `data` (same length).
    pub fn upload_into<T: DeviceRepr>(&self, data: &[T], buf: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream().upload_into(data, buf)
    }

    /// Sets every byte of `buf` to `byte` (CUDA C++: `cudaMemsetAsync`): tests poison outputs
    /// with it so that an element a kernel failed to write cannot pass for a correct one.
    pub fn fill_bytes<T>(&self, buf: &mut DeviceBuffer<T>, byte: u8) -> Result<()> {
        self.stream().fill_bytes(buf, byte)
    }

    /// Copies `src` into `dst` with the driver (`cuMemcpyDtoDAsync`): the bandwidth reference
    /// of [`crate::bench::versus_copy`].
    pub fn copy_dtod<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream().copy_dtod(src, dst)
    }

    /// Copies `rows × cols` elements between buffers whose rows start `src_ld` and `dst_ld`
    /// elements apart, on [`Device::stream`]: see [`Stream::copy_rows`].
    pub fn copy_rows<T: DeviceRepr>(
        &self,
        src: &DeviceBuffer<T>,
        src_ld: usize,
        dst: &mut DeviceBuffer<T>,
        dst_ld: usize,
        shape: (usize, usize),
    ) -> Result<()> {
        self.stream().copy_rows(src, src_ld, dst, dst_ld, shape)
    }

    /// Holds the device's stream for `duration` with a one-thread kernel that spins on
    /// `%globaltimer`, so that the work the host queues next waits behind it and then runs back
    /// to back (see [`crate::bench`]). The kernel is loaded from embedded PTX on first use (the
    /// driver compiles it then: 21 ms on an H100), which the benchmark harness does before timing.
    /// A GPU only.
    pub fn spin_wait(&self, duration: std::time::Duration) -> Result<()> {
        let Backend::Cuda { hold, .. } = &self.inner.backend else {
            return Err(Error::NeedsGpu("holding the stream for timing"));
        };
        let kernel = match hold.get() {
            Some(k) => k,
            None => {
                let module = self.load_module(ModuleImage::Ptx(crate::bench::SPIN_WAIT_PTX), None)?;
                let kernel = module.kernel_by_name(crate::bench::SPIN_WAIT)?;
                // A racing thread may have set it first; either kernel is the same.
                let _ = hold.set(kernel);
                hold.get().expect("set above")
            }
        };
        let ns = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        // Safety: the hold kernel takes one u64 and touches no memory.
        unsafe { kernel.launch(self.stream(), crate::LaunchConfig::linear(1, 1), (ns,)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulators_row_copy_moves_rows_to_their_new_pitch_and_refuses_what_does_not_fit() {
        let dev = Device::emulator();
        let from = dev.upload(&(0..15u32).collect::<Vec<_>>()).unwrap();
        let mut to = dev.upload(&[99u32; 12]).unwrap();
        dev.copy_rows(&from, 5, &mut to, 4, (3, 3)).unwrap();
        assert_eq!(dev.download(&to).unwrap(), [0, 1, 2, 99, 5, 6, 7, 99, 10, 11, 12, 99]);
        let err = dev.copy_rows(&from, 5, &mut to, 4, (4, 3)).unwrap_err();
        assert!(matches!(err, Error::BadRowCopy { what: "the source's last row ends past its buffer", .. }), "{err}");
        let err = dev.copy_rows(&from, 4, &mut to, 4, (4, 3)).unwrap_err();
        assert!(
            matches!(err, Error::BadRowCopy { what: "the destination's last row ends past its buffer", .. }),
            "{err}"
        );
        let err = dev.copy_rows(&from, 2, &mut to, 4, (2, 3)).unwrap_err();
        assert!(matches!(err, Error::BadRowCopy { what: "a row is longer than a leading dimension", .. }), "{err}");
    }
}
