//! The [`Gpu`] handle: a runtime [`Device`] with bankwise's module loaded, and the
//! [`Launch`] plans its launchers queue.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use bankwise_runtime::{Entries, Kernel, KernelEntry, LaunchArgs, LaunchConfig, Module, ModuleImage};

use crate::error::Result;
use crate::kernels;
use crate::tuning::{PlanTarget, Tuning};

pub use bankwise_runtime::{
    Device, DeviceBuffer, DeviceId, DeviceInfo, DeviceRead, DeviceSlice, DeviceSliceMut, DeviceWrite, EmulatorChecks,
    Stream, driver_present,
};

// ---- bankwise's module: the one place that reads `crate::kernels` for it ----------------

/// Which form of bankwise's kernels a [`Gpu`] loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadedImage {
    /// Shipped SASS for this architecture (`sm_80`, `sm_90`): no compilation at load.
    Sass(&'static str),
    /// The PTX, compiled by the driver's JIT for this GPU (cached by the driver unless
    /// `CUDA_CACHE_DISABLE=1`): GPUs without shipped SASS, kernels rebuilt from changed sources,
    /// or a driver too old for the shipped SASS.
    Ptx,
    /// The kernels' host forms, run by the CPU emulator ([`Gpu::emulator`]).
    Emulator,
}

/// The entries of bankwise's modules (name, parameters and declared shared memory of every
/// kernel), known without a GPU from the manifests the build wrote.
pub fn module_entries() -> &'static Entries {
    static ENTRIES: OnceLock<Entries> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let text: String = kernels::MODULES.iter().map(|m| m.manifest).collect::<Vec<_>>().join("\n");
        Entries::from_manifest(&text).expect("build.rs checked the manifests")
    })
}

/// Loads `module` onto `device`: the shipped SASS where there is one for its architecture
/// (cold start without JIT: 2.3–3.8 s → see `docs/benchmarks.md`), else the PTX.
fn load_module(device: &Device, module: &kernels::KernelModule) -> Result<(Module, LoadedImage)> {
    let (major, minor) = device.info().compute_capability;
    if let Some(sass) = module.cubin_for((major, minor)) {
        let arch = if major == 9 { "sm_90" } else { "sm_80" };
        // A driver older than the CUDA 13.0 ptxas that made the SASS refuses it: take the PTX.
        if let Ok(loaded) = device.load_module(ModuleImage::Cubin(sass), Some(module.manifest)) {
            return Ok((loaded, LoadedImage::Sass(arch)));
        }
    }
    Ok((device.load_module(ModuleImage::Ptx(module.ptx), Some(module.manifest))?, LoadedImage::Ptx))
}

/// Adds a handle to each entry of `module`, loaded as `image`, to `kernels`: the untyped
/// kernels behind every typed launch ([`Gpu::launch`] finds them by their typed entry's name).
fn add_kernels(image: &Module, module: &kernels::KernelModule, kernels: &mut HashMap<String, Kernel>) -> Result<()> {
    for e in module.entries() {
        let kernel = image.kernel_by_name(&e.name)?;
        kernels.insert(e.name, kernel);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

/// One GPU with bankwise's kernels loaded: a runtime [`Device`] (context, stream, limits),
/// bankwise's module, and a handle to each of its kernels. Dropping it releases them.
///
/// It dereferences to the [`Device`] (also [`Gpu::device`]), so the runtime's calls are made on
/// it: buffers ([`Device::upload`], [`Device::alloc_zeros`], [`Device::download`],
/// [`Device::upload_into`], [`Device::fill_bytes`]), [`Device::synchronize`],
/// [`Device::memory`], [`Device::info`], streams and events, [`Device::load_module`] for your
/// own kernels. They return the runtime's [`bankwise_runtime::Result`], which `?` turns into
/// bankwise's [`Error`](crate::Error) (an allocation past the device's memory is
/// `Error::Runtime(OutOfMemory { .. })`, naming the bytes asked for and free).
///
/// Calls are asynchronous with respect to the host; [`Device::download`] and
/// [`Device::synchronize`] wait for the queued work and report any error it raised. The
/// launchers wait for nothing (those that return a value to the host, [`Gpu::reduce`], wait
/// for it): they queue on the handle's stream, the device's default one or the caller's
/// ([`Gpu::with_stream`]), and return.
///
/// Launchers take memory bankwise allocated or borrowed ([`DeviceRead`], [`DeviceWrite`]):
/// a [`DeviceBuffer`] or view of one, cudarc's `CudaSlice`, `CudaView` and `CudaViewMut`, and
/// raw device pointers ([`DeviceSlice::from_raw`]). Memory of another device is refused with
/// [`crate::Error::Runtime`]`(WrongDevice { .. })`. One `Gpu` per ordinal ([`Gpu::with_ordinal`])
/// uses several GPUs from one process; a `Gpu` is `Send` and `Sync`, and cheap to clone (the
/// modules are shared).
#[derive(Clone)]
pub struct Gpu {
    device: Device,
    _modules: Arc<Vec<Module>>,
    kernels: Arc<HashMap<String, Kernel>>,
    loaded: LoadedImage,
    tuning: &'static Tuning,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("device", &self.device)
            .field("kernels", &self.kernels.len())
            .field("loaded", &self.loaded)
            .field("tuning", &self.tuning.device)
            .finish()
    }
}

impl Deref for Gpu {
    type Target = Device;
    fn deref(&self) -> &Device {
        &self.device
    }
}

impl Gpu {
    /// Opens device 0. See [`Gpu::with_ordinal`].
    pub fn new() -> Result<Self> {
        Self::with_ordinal(0)
    }

    /// Opens device `ordinal` and loads bankwise's kernels onto it.
    ///
    /// Errors: [`crate::Error::NoDriver`] where `libcuda` cannot be loaded,
    /// [`crate::Error::NoDevice`] where the ordinal does not exist, [`crate::Error::Runtime`]
    /// with `MissingKernel` where the module lacks a kernel the host launches,
    /// [`crate::Error::Driver`] for anything else the driver refuses.
    pub fn with_ordinal(ordinal: usize) -> Result<Self> {
        Self::on(Device::new(ordinal)?)
    }

    /// [`Gpu::emulator`] where the environment variable `BANKWISE_EMULATOR` is `1`, the
    /// emulator collecting races in its reports where it is `collect`
    /// ([`Gpu::emulator_with`]), else [`Gpu::new`] (see [`Device::from_env`]).
    pub fn from_env() -> Result<Self> {
        let device = Device::from_env(0)?;
        if device.is_emulator() { Self::emulator_on(device) } else { Self::on(device) }
    }

    /// Loads bankwise's kernels onto a GPU device: every module it runs
    /// ([`kernels::KernelModule::runs_on`]).
    fn on(device: Device) -> Result<Self> {
        let mut modules = Vec::new();
        let mut kernels = HashMap::new();
        let mut loaded = LoadedImage::Ptx;
        for module in kernels::MODULES.iter().filter(|m| m.runs_on(device.info().compute_capability)) {
            let (image, how) = load_module(&device, module)?;
            // The base module's form is the one reported.
            if modules.is_empty() {
                loaded = how;
            }
            add_kernels(&image, module, &mut kernels)?;
            modules.push(image);
        }
        let tuning = crate::tuning::resolve(device.info())?;
        Ok(Gpu { device, _modules: Arc::new(modules), kernels: Arc::new(kernels), loaded, tuning })
    }

    /// bankwise's kernels on the CPU emulator (`bankwise-emu`), no GPU needed: the same
    /// kernels, compiled for the host, run with every GPU thread as a fiber, and every
    /// launcher works as on a GPU (every module's kernels, as on the newest GPU). Each
    /// launch's report (each shared-memory access site's requests and wavefronts, and any
    /// races) is kept: [`Device::take_emulator_reports`]; a launch with a race is an error
    /// (`Runtime(Race)`), as a fault is. Timing (events, benchmarks) and occupancy need a GPU.
    pub fn emulator() -> Result<Self> {
        Self::emulator_on(Device::emulator())
    }

    /// [`Gpu::emulator`], with races treated as `checks` says: an error
    /// ([`EmulatorChecks::Strict`], the default) or only collected in the reports
    /// ([`EmulatorChecks::Collect`]), for tools that show the reports of racy kernels.
    pub fn emulator_with(checks: EmulatorChecks) -> Result<Self> {
        Self::emulator_on(Device::emulator_with(checks))
    }

    fn emulator_on(device: Device) -> Result<Self> {
        let mut modules = Vec::new();
        let mut kernels = HashMap::new();
        for module in kernels::MODULES {
            let image = device.load_module(ModuleImage::Ptx(module.ptx), Some(module.manifest))?;
            add_kernels(&image, module, &mut kernels)?;
            modules.push(image);
        }
        let tuning = Tuning::for_device(device.info());
        let (modules, kernels) = (Arc::new(modules), Arc::new(kernels));
        Ok(Gpu { device, _modules: modules, kernels, loaded: LoadedImage::Emulator, tuning })
    }

    /// The tuning table this handle plans with ([`crate::tuning`]): a table file named by
    /// `BANKWISE_TUNING` for this GPU, else the shipped one ([`crate::tuning::resolve`]).
    pub fn tuning(&self) -> &'static Tuning {
        self.tuning
    }

    /// This GPU planning with `tuning` instead (`bankwise tune` sweeps candidate tables this
    /// way; any valid table gives correct results, only perhaps slower ones).
    pub fn with_tuning(&self, tuning: &'static Tuning) -> Gpu {
        Gpu { tuning, ..self.clone() }
    }

    /// What the planners plan for on this GPU: its SMs and compute capability, and
    /// [`Gpu::tuning`].
    pub fn plan_target(&self) -> PlanTarget<'static> {
        let info = self.info();
        PlanTarget::new(info.multiprocessors, info.compute_capability, self.tuning)
    }

    /// This GPU with its launches queued on `stream` (one of [`Device::new_stream`], or the
    /// caller's cudarc stream through [`Stream::from_cuda`]): the modules are shared, nothing is
    /// loaded again, and no launch waits for anything, so the caller's work and bankwise's
    /// overlap or order as the caller's streams say. cudarc's slices are ordered for you (see
    /// [`DeviceRead`]); bankwise's own buffers made on another stream are ordered as in CUDA
    /// C++, by the caller ([`Stream::wait`]), dropping them included: a buffer is freed on the
    /// stream it was made on.
    ///
    /// ```no_run
    /// # fn main() -> bankwise::Result<()> {
    /// use bankwise::{Gpu, Stream};
    /// let gpu = Gpu::new()?;
    /// let side = gpu.with_stream(&gpu.new_stream()?)?; // or Stream::from_cuda(cudarc_stream)
    /// let src = side.upload(&[1.0f32; 6])?;
    /// let mut dst = side.alloc_zeros::<f32>(6)?;
    /// side.permute(&src, &mut dst, &[2, 3], &[1, 0])?; // queued on the side stream
    /// # Ok(()) }
    /// ```
    ///
    /// Errors: `Runtime(WrongDevice)` for a stream of another device.
    pub fn with_stream(&self, stream: &Stream) -> Result<Gpu> {
        Ok(Gpu { device: self.device.with_stream(stream)?, ..self.clone() })
    }

    /// Which form of the kernels this handle loaded: shipped SASS, JIT-compiled PTX, or the
    /// emulator's host forms.
    pub fn loaded_image(&self) -> LoadedImage {
        self.loaded
    }

    /// The runtime device underneath.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// bankwise's kernel `name` (one of the modules' entries).
    ///
    /// Errors: [`crate::Error::NeedsNewerGpu`] for a kernel of a module this GPU does not run,
    /// [`crate::Error::Runtime`] with `MissingKernel` for a name no module has.
    pub fn kernel(&self, name: &str) -> Result<&Kernel> {
        if let Some(kernel) = self.kernels.get(name) {
            return Ok(kernel);
        }
        let cc = self.info().compute_capability;
        if let Some(module) = kernels::MODULES.iter().find(|m| m.entries().iter().any(|e| e.name == name)) {
            return Err(crate::Error::NeedsNewerGpu {
                kernel: name.into(),
                needs: module.min_compute_capability,
                has: cc,
            });
        }
        // No module has it, so the entries' lookup fails too, naming the closest ones.
        module_entries().get(name)?;
        let known = Some(self.kernels.len());
        Err(bankwise_runtime::Error::MissingKernel { name: name.into(), near: Vec::new(), known })?
    }

    /// How many blocks of `launch` one SM holds at once, by the driver's occupancy calculator
    /// (registers, threads, and the shared memory the launch is given, its residency cap
    /// included): what the kernels' docs mean by "blocks per SM".
    pub fn resident_blocks<P>(&self, launch: &Launch<P>) -> Result<u32> {
        Ok(self.kernel(launch.kernel.name())?.occupancy(&launch.config_on(self.info()))?)
    }

    /// `src` as a view for this handle's stream (named `what` in a `WrongDevice` error), and
    /// the access to hold until the work that reads it is queued.
    pub(crate) fn read<'a, T, S: DeviceRead<T> + ?Sized>(
        &'a self,
        what: &str,
        src: &'a S,
    ) -> Result<(DeviceSlice<'a, T>, bankwise_runtime::Access<'a>)> {
        Ok(bankwise_runtime::foreign::read(self.stream(), what, src)?)
    }

    /// `dst` as a view for this handle's stream that its work writes, as [`Gpu::read`].
    pub(crate) fn write<'a, T, D: DeviceWrite<T> + ?Sized>(
        &'a self,
        what: &str,
        dst: &'a mut D,
    ) -> Result<(DeviceSliceMut<'a, T>, bankwise_runtime::Access<'a>)> {
        Ok(bankwise_runtime::foreign::write(self.stream(), what, dst)?)
    }

    /// Queues a validated [`Launch`] with `args`, whose types the compiler checked against the
    /// kernel's parameters; the runtime checks the configuration against the device and adds
    /// the shared memory the kernel declares.
    ///
    /// # Safety
    /// The plan must keep the kernel inside the buffers it is given (the `plan` functions
    /// check exactly that).
    pub(crate) unsafe fn launch<P, A: LaunchArgs<P>>(&self, plan: Launch<P>, args: A) -> Result<()> {
        let kernel = self.kernel(plan.kernel.name())?;
        // SAFETY: the compiler checked the arguments against `P`; the caller vouches for the
        // plan's bounds.
        unsafe { kernel.launch_as(plan.kernel, self.device.stream(), plan.config_on(self.info()), args)? };
        Ok(())
    }
}

/// A validated kernel launch: which entry (typed by its parameters `P`), with which grid.
/// Launchers compute it with a pure `plan` function (so argument checks are testable without a
/// GPU), then queue it with arguments the compiler checks against `P`.
pub struct Launch<P> {
    /// The entry.
    pub kernel: KernelEntry<P>,
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block in bytes, on top of what the kernel declares
    /// ([`KernelEntry::shared_bytes`]): 0 for every kernel whose shared memory is fixed.
    pub shared_bytes: u32,
    /// At most this many blocks resident per SM, where the kernel measured faster held to
    /// fewer than its registers and shared memory would allow. Enforced by giving each block
    /// more shared memory than it uses ([`Launch::shared_bytes_on`]).
    pub resident: Option<u32>,
}

// By hand, without bounds on `P` (a tuple of up to 16 parameter types, which implements none
// of these past 12).
impl<P> Clone for Launch<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Launch<P> {}

impl<P> PartialEq for Launch<P> {
    fn eq(&self, o: &Self) -> bool {
        (self.kernel, self.grid, self.block, self.shared_bytes, self.resident)
            == (o.kernel, o.grid, o.block, o.shared_bytes, o.resident)
    }
}

impl<P> Eq for Launch<P> {}

impl<P> std::fmt::Debug for Launch<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("shared_bytes", &self.shared_bytes)
            .field("resident", &self.resident)
            .finish()
    }
}

impl<P> Launch<P> {
    /// A launch of `kernel` with `grid` and `block`, no dynamic shared memory and no cap on
    /// resident blocks.
    pub fn new(kernel: KernelEntry<P>, grid: (u32, u32, u32), block: (u32, u32, u32)) -> Self {
        Launch { kernel, grid, block, shared_bytes: 0, resident: None }
    }

    /// The shared memory a block uses: what the kernel declares, plus [`Launch::shared_bytes`]
    /// after it rounded up to 16 (where the dynamic bytes start).
    pub fn used_shared_bytes(&self) -> u32 {
        match (self.kernel.shared_bytes(), self.shared_bytes) {
            (declared, 0) => declared,
            (declared, dynamic) => declared.next_multiple_of(16).saturating_add(dynamic),
        }
    }

    /// The dynamic shared memory to launch with on `device`: [`Launch::shared_bytes`], or, for
    /// a launch capped at `n` resident blocks per SM, enough more that no more than `n` fit
    /// (each block's share of the SM's shared memory, less the driver's reservation, within
    /// the per-block maximum, less what the kernel declares).
    pub fn shared_bytes_on(&self, device: &DeviceInfo) -> u32 {
        match self.resident {
            Some(n) if n > 0 => {
                let share = (device.shared_per_sm / n).saturating_sub(device.shared_reserved_per_block);
                let target = share.min(device.shared_per_block_max);
                if target <= self.used_shared_bytes() {
                    return self.shared_bytes;
                }
                // The runtime places dynamic bytes after the declared ones rounded up to 16.
                target - self.kernel.shared_bytes().next_multiple_of(16)
            }
            _ => self.shared_bytes,
        }
    }

    /// The shared memory each block gets on `device`: what the kernel declares and
    /// [`Launch::shared_bytes_on`] after it.
    pub fn block_shared_bytes_on(&self, device: &DeviceInfo) -> u32 {
        Launch { shared_bytes: self.shared_bytes_on(device), ..*self }.used_shared_bytes()
    }

    /// The runtime's launch configuration on `device` (dynamic shared memory from
    /// [`Launch::shared_bytes_on`]; the runtime adds the declared bytes).
    pub fn config_on(&self, device: &DeviceInfo) -> LaunchConfig {
        LaunchConfig { grid: self.grid, block: self.block, shared_bytes: self.shared_bytes_on(device) }
    }
}
