//! The [`Gpu`] handle and typed device buffers.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig};
use cudarc::nvrtc::Ptx;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels;

/// Facts about the device that launch choices and benchmarks depend on.
#[derive(Clone, Debug)]
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
    /// Shared memory per SM in bytes: with the next two, what a launch's cap on blocks per SM
    /// ([`Launch::resident`]) is computed from.
    pub shared_per_sm: u32,
    /// Shared memory the driver reserves per resident block, in bytes (1 KiB from sm_80).
    pub shared_reserved_per_block: u32,
    /// The most dynamic shared memory one block can be given, in bytes (past 48 KiB only after
    /// raising the kernel's limit, which [`Gpu`] does when a launch asks for it).
    pub shared_per_block_max: u32,
}

/// One GPU: a CUDA context, the stream every call is queued on, and bankwise's PTX module
/// with all its kernels loaded. Dropping it releases them.
///
/// Calls are asynchronous with respect to the host; [`Gpu::download`] and
/// [`Gpu::synchronize`] wait for the queued work and report any error it raised.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    functions: HashMap<&'static str, CudaFunction>,
    info: DeviceInfo,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("ordinal", &self.ctx.ordinal()).field("info", &self.info).finish()
    }
}

impl Gpu {
    /// Opens device 0. See [`Gpu::with_ordinal`].
    pub fn new() -> Result<Self> {
        Self::with_ordinal(0)
    }

    /// Opens device `ordinal` and loads bankwise's kernels onto it.
    ///
    /// Errors: [`Error::NoDriver`] where `libcuda` cannot be loaded, [`Error::NoDevice`] where
    /// the ordinal does not exist, [`Error::Driver`] for anything else the driver refuses.
    pub fn with_ordinal(ordinal: usize) -> Result<Self> {
        driver_present()?;
        let count = match CudaContext::device_count() {
            Ok(n) => n.max(0) as usize,
            Err(e) if e.0 == cudarc::driver::sys::cudaError_enum::CUDA_ERROR_NO_DEVICE => 0,
            Err(e) => return Err(e.into()),
        };
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal)?;
        // One stream, in order: cudarc's per-buffer event tracking would only add host
        // overhead to every launch.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let module = ctx.load_module(Ptx::from_src(kernels::PTX))?;
        let mut functions = HashMap::new();
        for &name in kernels::ALL {
            let f = module.load_function(name).map_err(|_| Error::MissingKernel(name))?;
            functions.insert(name, f);
        }
        // Entries beyond `ALL`: reductions instantiated for user-defined operations.
        for name in kernels::entries(kernels::PTX) {
            if !functions.contains_key(name) {
                let f = module.load_function(name).map_err(|_| Error::MissingKernel(name))?;
                functions.insert(name, f);
            }
        }
        let attr = |a| ctx.attribute(a);
        let info = DeviceInfo {
            name: ctx.name()?,
            compute_capability: ctx.compute_capability()?,
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
            memory_bytes: ctx.total_mem()?,
            shared_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)? as u32,
            shared_reserved_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)? as u32,
            shared_per_block_max: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32,
        };
        Ok(Gpu { ctx, stream, _module: module, functions, info })
    }

    /// The device's properties.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The underlying cudarc context, for interoperation.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream all of this handle's work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        Ok(self.ctx.mem_get_info()?)
    }

    /// Waits for all queued work; returns the first error it raised.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    /// Copies `data` to a new device buffer.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        if data.is_empty() {
            return Ok(DeviceBuffer { slice: self.stream.null()? });
        }
        Ok(DeviceBuffer { slice: self.stream.clone_htod(data)? })
    }

    /// A new device buffer of `len` zeroed elements.
    pub fn alloc_zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        if len == 0 {
            return Ok(DeviceBuffer { slice: self.stream.null()? });
        }
        Ok(DeviceBuffer { slice: self.stream.alloc_zeros(len)? })
    }

    /// Copies a device buffer back to a new `Vec`, waiting for queued work first.
    pub fn download<T: Element>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        if buf.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.stream.clone_dtoh(&buf.slice)?)
    }

    /// Overwrites a device buffer with `data` (same length).
    pub fn upload_into<T: Element>(&self, data: &[T], buf: &mut DeviceBuffer<T>) -> Result<()> {
        if data.len() != buf.len() {
            return Err(Error::HostLengthMismatch { host: data.len(), device: buf.len() });
        }
        if !data.is_empty() {
            self.stream.memcpy_htod(data, &mut buf.slice)?;
        }
        Ok(())
    }

    /// Sets every byte of `buf` to `byte`: tests poison outputs with it so that an element a
    /// kernel failed to write cannot pass for a correct one.
    pub fn fill_bytes<T: Element>(&self, buf: &mut DeviceBuffer<T>, byte: u8) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let bytes = buf.bytes();
        let (ptr, _sync) = buf.slice.device_ptr_mut(&self.stream);
        unsafe { cudarc::driver::result::memset_d8_async(ptr, byte, bytes, self.stream.cu_stream())? };
        Ok(())
    }

    /// The loaded kernel `name` (one of [`kernels::ALL`]).
    pub(crate) fn function(&self, name: &'static str) -> Result<&CudaFunction> {
        self.functions.get(name).ok_or(Error::MissingKernel(name))
    }

    /// How many blocks of `launch` one SM holds at once, by the driver's occupancy calculator
    /// (registers, threads, and the shared memory the launch is given, its residency cap
    /// included): what the kernels' docs mean by "blocks per SM".
    pub fn resident_blocks(&self, launch: &Launch) -> Result<u32> {
        let (function, shared_bytes) = self.raised_function(launch)?;
        // The occupancy calculator, unlike launches, does not make the context current itself.
        self.ctx.bind_to_thread()?;
        let threads = launch.block.0 * launch.block.1 * launch.block.2;
        Ok(function.occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)?)
    }

    /// `launch`'s kernel and the dynamic shared memory it is launched with on this device, the
    /// kernel's limit raised where that is more than the default 48 KiB.
    fn raised_function(&self, launch: &Launch) -> Result<(&CudaFunction, u32)> {
        let function = self.function(launch.kernel)?;
        let shared_bytes = launch.shared_bytes_on(&self.info);
        if shared_bytes > DEFAULT_SHARED_LIMIT {
            // Idempotent and cheap: only launches that ask for more than the default raise it.
            // Unlike a launch, setting an attribute needs the context current on this thread.
            self.ctx.bind_to_thread()?;
            function.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes as i32,
            )?;
        }
        Ok((function, shared_bytes))
    }

    /// Queues a validated [`Launch`] with the kernel arguments `push` adds.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters, and the plan must keep the kernel
    /// inside the buffers it is given (the `plan` functions check exactly that).
    pub(crate) unsafe fn launch<'a>(
        &'a self,
        plan: Launch,
        push: impl FnOnce(&mut cudarc::driver::LaunchArgs<'a>),
    ) -> Result<()> {
        let (function, shared_mem_bytes) = self.raised_function(&plan)?;
        let mut args = self.stream.launch_builder(function);
        push(&mut args);
        let config = LaunchConfig { grid_dim: plan.grid, block_dim: plan.block, shared_mem_bytes };
        unsafe { args.launch(config) }?;
        Ok(())
    }
}

/// A validated kernel launch: which entry, with which grid. Launchers compute it with a pure
/// `plan` function (so argument checks are testable without a GPU), then queue it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The PTX entry.
    pub kernel: &'static str,
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block in bytes: what the kernel uses.
    pub shared_bytes: u32,
    /// At most this many blocks resident per SM, where the kernel measured faster held to
    /// fewer than its registers and shared memory would allow. Enforced by giving each block
    /// more shared memory than it uses ([`Launch::shared_bytes_on`]).
    pub resident: Option<u32>,
}

/// Dynamic shared memory a block can be given without raising the kernel's limit.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

impl Launch {
    /// The dynamic shared memory to launch with on `device`: [`Launch::shared_bytes`], or, for
    /// a launch capped at `n` resident blocks per SM, enough that no more than `n` fit
    /// (each block's share of the SM's shared memory, less the driver's reservation), within
    /// the per-block maximum.
    pub fn shared_bytes_on(&self, device: &DeviceInfo) -> u32 {
        match self.resident {
            Some(n) if n > 0 => {
                let share = (device.shared_per_sm / n).saturating_sub(device.shared_reserved_per_block);
                self.shared_bytes.max(share.min(device.shared_per_block_max))
            }
            _ => self.shared_bytes,
        }
    }
}

/// Fails with [`Error::NoDriver`] where `libcuda` cannot be loaded. cudarc would panic on the
/// first driver call instead, so every entry point checks this first.
pub fn driver_present() -> Result<()> {
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        let names = cudarc::get_lib_name_candidates("cuda");
        Err(Error::NoDriver(format!("tried {}", names.join(", "))))
    }
}

/// A typed buffer in device memory, freed when dropped.
pub struct DeviceBuffer<T> {
    pub(crate) slice: CudaSlice<T>,
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.slice.len())
    }
}

impl<T> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }
    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }
    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slice.len() * std::mem::size_of::<T>()
    }
    /// The cudarc slice, for interoperation with other cudarc code.
    pub fn as_cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }
    /// The cudarc slice, mutably.
    pub fn as_cuda_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}
