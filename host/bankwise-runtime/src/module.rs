//! Modules loaded from PTX, cubin or fatbin images, their entries, and kernel handles with
//! checked launches.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bankwise_builder::manifest::{self, Entry, Param};
use cudarc::driver::sys::{CUfunction_attribute, cudaError_enum};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;

use crate::device::{Backend, Device, DeviceInfo};
use crate::emulator::{Emulated, LaunchReport};
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::memory::{DeviceBuffer, DeviceId, DeviceSlice, DeviceSliceMut};
use crate::stream::{Stream, StreamKind};
use crate::typed::{KernelEntry, TypedKernel};

/// A module's code as the driver takes it (CUDA C++: the image of `cuModuleLoadData`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleImage<'a> {
    /// PTX text, JIT-compiled by the driver for the device at load (cached by the driver).
    Ptx(&'a str),
    /// A cubin (ELF) assembled for one architecture, such as `ptxas -arch=sm_90` writes.
    Cubin(&'a [u8]),
    /// A fatbin: cubins for several architectures and optionally PTX, as `fatbinary` or
    /// `nvcc -fatbin` write; the driver picks the best match for the device.
    Fatbin(&'a [u8]),
}

impl ModuleImage<'_> {
    /// Checks the image's form (PTX text without NUL bytes, ELF or fatbin magic) so that the
    /// driver is never handed something it would misread.
    pub fn validate(&self) -> Result<()> {
        match *self {
            ModuleImage::Ptx(text) => {
                if let Some(at) = text.bytes().position(|b| b == 0) {
                    return Err(Error::InvalidImage(format!(
                        "the PTX text has a NUL byte at offset {at}; pass the text of a .ptx file"
                    )));
                }
                if !text.contains(".version") {
                    return Err(Error::InvalidImage(
                        "the PTX text has no `.version` directive; is it PTX (a binary belongs in Cubin or Fatbin)?"
                            .into(),
                    ));
                }
            }
            ModuleImage::Cubin(bytes) => {
                if !bytes.starts_with(b"\x7fELF") {
                    return Err(Error::InvalidImage(
                        "a cubin starts with the ELF magic \\x7fELF; this does not (a fatbin belongs in Fatbin, PTX in Ptx)"
                            .into(),
                    ));
                }
            }
            ModuleImage::Fatbin(bytes) => {
                if !bytes.starts_with(&FATBIN_MAGIC.to_le_bytes()) {
                    return Err(Error::InvalidImage(format!(
                        "a fatbin starts with the magic {FATBIN_MAGIC:#x}; this does not (a cubin belongs in Cubin)"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The first word of a fatbin file (`fatbinary --create`), little-endian.
const FATBIN_MAGIC: u32 = 0xBA55_ED50;

/// The entries of a module: each kernel's name and parameter types. Pure data: kernel
/// lookups and argument checks against it need no GPU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entries {
    list: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

impl Entries {
    /// The `.visible .entry` declarations of PTX text.
    pub fn from_ptx(ptx: &str) -> Self {
        Self::from_list(manifest::entries(ptx))
    }

    /// A manifest as `bankwise-builder` writes it: `name(ptr, u64)` per line.
    /// A line of another form is [`Error::BadManifest`].
    pub fn from_manifest(text: &str) -> Result<Self> {
        let mut list = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry = manifest::from_text(line).and_then(|mut v| v.pop());
            list.push(entry.ok_or_else(|| Error::BadManifest { line: i + 1, text: line.to_string() })?);
        }
        Ok(Self::from_list(list))
    }

    /// Entries from a list.
    pub fn from_list(list: Vec<Entry>) -> Self {
        let by_name = list.iter().enumerate().map(|(i, e)| (e.name.clone(), i)).collect();
        Entries { list, by_name }
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The entries, in module order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.list.iter()
    }

    /// Whether an entry is called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The entry called `name`; [`Error::MissingKernel`] naming the closest entries otherwise.
    pub fn get(&self, name: &str) -> Result<&Entry> {
        match self.by_name.get(name) {
            Some(&i) => Ok(&self.list[i]),
            None => Err(Error::MissingKernel {
                name: name.to_string(),
                near: near_names(name, self.list.iter().map(|e| e.name.as_str())),
                known: Some(self.list.len()),
            }),
        }
    }
}

/// Up to five of `names` closest to `name` by edit distance (or containing it), closest first.
fn near_names<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = names
        .filter_map(|n| {
            let d = edit_distance(name, n);
            let contains = name.len() >= 3 && (n.contains(name) || (n.len() >= 3 && name.contains(n)));
            (d <= (name.len() / 3).max(2) || contains).then_some((d, n))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, n)| n.to_string()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// What a launch argument is, as far as the kernel's parameter buffer can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A device pointer (8 bytes).
    Ptr,
    /// A scalar of this many bytes.
    Scalar {
        /// Its size.
        bytes: usize,
    },
}

impl std::fmt::Display for ArgKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgKind::Ptr => f.write_str("a device pointer"),
            ArgKind::Scalar { bytes } => write!(f, "a {bytes}-byte scalar"),
        }
    }
}

/// Whether an argument of `kind` fits parameter `param`: a pointer parameter takes a device
/// pointer; a scalar one a scalar of its width, or, for a 64-bit integer, a device pointer too
/// (PTX written by hand or by nvcc declares pointer parameters as plain `.u64`).
pub fn arg_fits(param: Param, kind: ArgKind) -> bool {
    match (param, kind) {
        (Param::Ptr, ArgKind::Ptr) => true,
        (Param::Ptr, ArgKind::Scalar { .. }) => false,
        (Param::Scalar(s), ArgKind::Ptr) => s.bits == 64 && s.kind != 'f',
        (Param::Scalar(s), ArgKind::Scalar { bytes }) => s.bits as usize == bytes * 8,
        (Param::Bytes(n), ArgKind::Scalar { bytes }) => n == bytes,
        (Param::Bytes(_), ArgKind::Ptr) => false,
    }
}

/// Checks launch arguments of `kinds` against `entry`: their count, then each one's fit
/// ([`arg_fits`]). [`Error::ArgumentCount`] or [`Error::ArgumentMismatch`] otherwise.
pub fn check_args(entry: &Entry, kinds: &[ArgKind]) -> Result<()> {
    if kinds.len() != entry.params.len() {
        return Err(Error::ArgumentCount {
            kernel: entry.name.clone(),
            expected: entry.params.len(),
            got: kinds.len(),
            signature: entry.to_string(),
        });
    }
    for (index, (&param, &kind)) in entry.params.iter().zip(kinds).enumerate() {
        if !arg_fits(param, kind) {
            return Err(Error::ArgumentMismatch {
                kernel: entry.name.clone(),
                index,
                expected: param.to_string(),
                got: kind.to_string(),
                signature: entry.to_string(),
            });
        }
    }
    Ok(())
}

/// [`Error::WrongDevice`] where a pointer argument of a launch of `kernel` on `stream` is
/// memory of another device than the stream's (`foreign`: the arguments' first such, found by
/// [`KernelArgs::foreign_memory`] or [`crate::LaunchArgs::foreign_memory`]).
pub(crate) fn check_devices(
    kernel: &str,
    foreign: impl FnOnce(DeviceId) -> Option<(usize, DeviceId)>,
    stream: &Stream,
) -> Result<()> {
    let device = stream.device_id();
    match foreign(device) {
        Some((i, memory)) => Err(Error::WrongDevice { what: format!("argument {i} of `{kernel}`"), memory, device }),
        None => Ok(()),
    }
}

/// One kernel argument: a device buffer or slice (passed as its device address) or a scalar
/// (passed by value), like the arguments of a CUDA C++ `<<<…>>>` launch.
///
/// # Safety
/// [`KernelArg::as_param`] must point at [`KernelArg::kind`]'s bytes of the parameter's value,
/// valid for as long as `self` is borrowed.
pub unsafe trait KernelArg {
    /// What the argument is.
    fn kind(&self) -> ArgKind;
    /// A pointer to the parameter's value, as `cuLaunchKernel`'s `kernelParams` takes it.
    fn as_param(&self) -> *mut c_void;
    /// The device whose memory a pointer argument is (`None` for a scalar).
    fn memory_device(&self) -> Option<DeviceId> {
        None
    }
}

macro_rules! scalar_arg {
    ($($t:ty),+) => {$(
        // SAFETY: `as_param` points at `self`, a `size_of::<$t>()`-byte scalar (the size `kind`
        // reports), valid while `self` is borrowed.
        unsafe impl KernelArg for $t {
            fn kind(&self) -> ArgKind {
                ArgKind::Scalar { bytes: std::mem::size_of::<$t>() }
            }
            fn as_param(&self) -> *mut c_void {
                self as *const $t as *mut c_void
            }
        }
        // SAFETY: `as_param` points at the referenced scalar of `size_of::<$t>()` bytes, which
        // outlives the borrow of `self`.
        unsafe impl KernelArg for &$t {
            fn kind(&self) -> ArgKind {
                ArgKind::Scalar { bytes: std::mem::size_of::<$t>() }
            }
            fn as_param(&self) -> *mut c_void {
                *self as *const $t as *mut c_void
            }
        }
    )+};
}
scalar_arg!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, usize, isize, bool);

macro_rules! pointer_arg {
    ($($t:ty),+) => {$(
        // SAFETY: `as_param` points at the buffer's or slice's device address (`ptr_ref`, its
        // `CUdeviceptr` field), valid while `self` is borrowed; `kind` says it is a pointer.
        unsafe impl<T> KernelArg for $t {
            fn kind(&self) -> ArgKind {
                ArgKind::Ptr
            }
            fn as_param(&self) -> *mut c_void {
                self.ptr_ref() as *const u64 as *mut c_void
            }
            fn memory_device(&self) -> Option<DeviceId> {
                Some(self.device_id())
            }
        }
    )+};
}
pointer_arg!(&DeviceBuffer<T>, &mut DeviceBuffer<T>, DeviceSlice<'_, T>, DeviceSliceMut<'_, T>);
pointer_arg!(&DeviceSlice<'_, T>, &mut DeviceSliceMut<'_, T>);

/// A launch's arguments: a tuple of up to 16 [`KernelArg`]s, such as
/// `(&mut out, &input, n)`.
pub trait KernelArgs {
    /// Each argument's kind, in order.
    fn kinds(&self) -> Vec<ArgKind>;
    /// Pointers to each argument's value, in order, valid while `self` is borrowed.
    fn params(&self) -> Vec<*mut c_void>;
    /// The first pointer argument (its position and device) whose memory is not `device`'s
    /// ([`KernelArg::memory_device`]).
    fn foreign_memory(&self, device: DeviceId) -> Option<(usize, DeviceId)>;
}

impl KernelArgs for () {
    fn kinds(&self) -> Vec<ArgKind> {
        Vec::new()
    }
    fn params(&self) -> Vec<*mut c_void> {
        Vec::new()
    }
    fn foreign_memory(&self, _: DeviceId) -> Option<(usize, DeviceId)> {
        None
    }
}

macro_rules! tuple_args {
    ($($name:ident $i:tt),+) => {
        impl<$($name: KernelArg),+> KernelArgs for ($($name,)+) {
            fn kinds(&self) -> Vec<ArgKind> {
                vec![$(self.$i.kind()),+]
            }
            fn params(&self) -> Vec<*mut c_void> {
                vec![$(self.$i.as_param()),+]
            }
            fn foreign_memory(&self, device: DeviceId) -> Option<(usize, DeviceId)> {
                $(if let Some(memory) = self.$i.memory_device() && memory != device {
                    return Some(($i, memory));
                })+
                None
            }
        }
    };
}
tuple_args!(A 0);
tuple_args!(A 0, B 1);
tuple_args!(A 0, B 1, C 2);
tuple_args!(A 0, B 1, C 2, D 3);
tuple_args!(A 0, B 1, C 2, D 3, E 4);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);

/// A loaded module (CUDA C++: `CUmodule`). Unloaded when it and every [`Kernel`] of it are
/// dropped.
#[derive(Clone)]
pub struct Module {
    kind: ModuleKind,
    entries: Option<Arc<Entries>>,
    info: Arc<DeviceInfo>,
}

#[derive(Clone)]
enum ModuleKind {
    Cuda { module: Arc<CudaModule>, ctx: Arc<CudaContext> },
    Emulated(Arc<Emulated>),
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("entries", &self.entries.as_ref().map(|e| e.len())).finish()
    }
}

impl Module {
    pub(crate) fn load(device: &Device, image: ModuleImage<'_>, manifest: Option<&str>) -> Result<Module> {
        image.validate()?;
        let entries = match (manifest, image) {
            (Some(text), _) => Some(Entries::from_manifest(text)?),
            (None, ModuleImage::Ptx(text)) => Some(Entries::from_ptx(text)),
            (None, _) => None,
        };
        let kind = match device.backend() {
            Backend::Cuda { ctx, .. } => {
                let ptx = match image {
                    ModuleImage::Ptx(text) => Ptx::from_src(text),
                    ModuleImage::Cubin(bytes) | ModuleImage::Fatbin(bytes) => Ptx::from_binary(bytes.to_vec()),
                };
                ModuleKind::Cuda { module: ctx.load_module(ptx)?, ctx: ctx.clone() }
            }
            Backend::Emulator(e) => ModuleKind::Emulated(e.clone()),
        };
        Ok(Module { kind, entries: entries.map(Arc::new), info: device.info_arc().clone() })
    }

    /// The module's entries, where known (from the PTX text or the manifest given at load).
    pub fn entries(&self) -> Option<&Entries> {
        self.entries.as_deref()
    }

    /// The kernel of a `#[kernel]` entry, typed by its parameters (`module.kernel(my_kernels::vector_add)?`):
    /// its launches take exactly the arguments the entry's parameters name (checked by the
    /// compiler), and give each block the shared memory the kernel declares. On the emulator it
    /// runs the entry's own host form. Errors: [`Error::MissingKernel`] where the module has no
    /// such entry, [`Error::StaleModule`] where the module's entry differs from the host form
    /// (its parameter count or declared shared memory: the PTX was built from other sources).
    pub fn kernel<P>(&self, entry: KernelEntry<P>) -> Result<TypedKernel<P>> {
        Ok(TypedKernel::new(self.function_of(entry.name(), Some(entry.host()))?, entry))
    }

    /// The kernel `name`, untyped (CUDA C++: `cuModuleGetFunction`): for PTX that did not come
    /// from a `#[kernel]` crate (prefer [`Module::kernel`] where it did). Where the entries are
    /// known, a missing name is [`Error::MissingKernel`] listing the closest ones, and every
    /// launch's arguments are checked against the entry's parameters (count, pointer or scalar,
    /// width). On the emulator it is the host form `#[kernel]` registered under that name
    /// ([`Error::NotLinked`] where none is).
    pub fn kernel_by_name(&self, name: &str) -> Result<Kernel> {
        self.function_of(name, None)
    }

    /// The kernel `name`; on the emulator `host`'s form, or the one registered under `name`.
    fn function_of(&self, name: &str, host: Option<&'static bankwise_emu::HostKernel>) -> Result<Kernel> {
        let entry = match &self.entries {
            Some(entries) => Some(entries.get(name)?.clone()),
            None => None,
        };
        let missing = || Error::MissingKernel {
            name: name.to_string(),
            near: self.entries.as_ref().map_or_else(Vec::new, |e| near_names(name, e.iter().map(|e| e.name.as_str()))),
            known: self.entries.as_ref().map(|e| e.len()),
        };
        if name.contains('\0') {
            return Err(missing());
        }
        let host = match (host, &self.kind) {
            (Some(host), _) => Some(host),
            (None, ModuleKind::Emulated(_)) => Some(bankwise_emu::registry::find(name)?),
            (None, ModuleKind::Cuda { .. }) => None,
        };
        if let (Some(entry), Some(host)) = (&entry, host)
            && (entry.params.len() != host.params.len() || entry.shared_bytes != host.shared_bytes)
        {
            return Err(Error::StaleModule {
                kernel: name.to_string(),
                module: entry.to_string(),
                host: describe_host(host),
            });
        }
        let declared = match (&entry, host) {
            (Some(entry), _) => entry.shared_bytes,
            (None, Some(host)) => host.shared_bytes,
            (None, None) => 0,
        };
        let function = match &self.kind {
            ModuleKind::Cuda { module, ctx } => {
                let function = module.load_function(name).map_err(|e| match e.0 {
                    cudaError_enum::CUDA_ERROR_NOT_FOUND => missing(),
                    _ => e.into(),
                })?;
                Function::Cuda { function, ctx: ctx.clone() }
            }
            ModuleKind::Emulated(emulated) => {
                let host = host.expect("the emulator's host form was found above");
                Function::Emulated { host, emulated: emulated.clone() }
            }
        };
        Ok(Kernel {
            name: name.to_string(),
            function,
            entry,
            declared,
            info: self.info.clone(),
            raised: AtomicU32::new(self.info.shared_per_block),
        })
    }
}

/// A host form's signature as the entries manifest writes one: `name(*mut f32, u64) shared 64`.
fn describe_host(host: &bankwise_emu::HostKernel) -> String {
    let params: Vec<&str> = host.params.iter().map(|p| p.rust_type).collect();
    let shared = if host.shared_bytes > 0 { format!(" shared {}", host.shared_bytes) } else { String::new() };
    format!("{}({}){shared}", host.name, params.join(", "))
}

/// A kernel of a loaded [`Module`] (CUDA C++: a `__global__` function's handle), with its
/// manifest entry where known.
pub struct Kernel {
    name: String,
    function: Function,
    entry: Option<Entry>,
    /// Bytes of shared memory the kernel declares, given to every block on top of a launch's
    /// dynamic bytes.
    declared: u32,
    info: Arc<DeviceInfo>,
    /// The dynamic shared memory the kernel is allowed now (raised on demand, never lowered).
    raised: AtomicU32,
}

enum Function {
    Cuda { function: CudaFunction, ctx: Arc<CudaContext> },
    Emulated { host: &'static bankwise_emu::HostKernel, emulated: Arc<Emulated> },
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(e) => write!(f, "Kernel({e})"),
            None => write!(f, "Kernel({}, parameters unknown)", self.name),
        }
    }
}

impl Kernel {
    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The entry's parameters, where the module's entries are known.
    pub fn entry(&self) -> Option<&Entry> {
        self.entry.as_ref()
    }

    /// The cudarc function, for interoperation (`None` on the emulator).
    pub fn as_cuda(&self) -> Option<&CudaFunction> {
        match &self.function {
            Function::Cuda { function, .. } => Some(function),
            Function::Emulated { .. } => None,
        }
    }

    /// Checks `args` against the kernel's parameters, where known (see [`check_args`]).
    pub fn check_args(&self, args: &impl KernelArgs) -> Result<()> {
        match &self.entry {
            Some(entry) => check_args(entry, &args.kinds()),
            None => Ok(()),
        }
    }

    /// Bytes of shared memory the kernel declares (`#[kernel(shared = BYTES)]`, read from the
    /// entries manifest or the host form; 0 where none or unknown).
    pub fn shared_bytes(&self) -> u32 {
        self.declared
    }

    /// `config` with the kernel's declared shared memory added ([`with_declared_shared`](crate::launch::with_declared_shared)).
    pub fn full_config(&self, config: LaunchConfig) -> Result<LaunchConfig> {
        crate::launch::with_declared_shared(&self.name, self.declared, config, self.info.shared_per_block_max)
    }

    /// Checks `config` (with the declared shared memory, [`Kernel::full_config`]) against the
    /// device ([`LaunchConfig::check`]) and raises the kernel's shared-memory limit where the
    /// block needs more than the default 48 KiB (binding the context to this thread first,
    /// which setting an attribute needs). Returns the configuration to launch with.
    pub fn prepare(&self, config: &LaunchConfig) -> Result<LaunchConfig> {
        let config = self.full_config(*config)?;
        config.check(&self.info)?;
        if let Function::Cuda { function, ctx } = &self.function
            && config.shared_bytes > self.raised.load(Ordering::Relaxed)
        {
            ctx.bind_to_thread()?;
            function.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                config.shared_bytes as i32,
            )?;
            self.raised.fetch_max(config.shared_bytes, Ordering::Relaxed);
        }
        Ok(config)
    }

    /// Queues the kernel on `stream` with `config` and `args` (CUDA C++:
    /// `kernel<<<grid, block, shared, stream>>>(args…)`), after checking the configuration
    /// against the device and the arguments against the kernel's entry: a bad one is an error
    /// and nothing is launched. Each block gets the declared shared memory plus
    /// `config.shared_bytes`. Errors raised by the kernel itself surface at the next
    /// synchronisation. On the emulator the launch runs to completion here: a fault of the
    /// kernel is [`Error::Emulated`]; otherwise its report is kept by the device
    /// ([`Device::take_emulator_reports`]), and one with a race is [`Error::Race`] unless the
    /// emulator collects them ([`crate::EmulatorChecks`]). A [`TypedKernel`]'s launch checks its arguments at
    /// compile time instead.
    ///
    /// # Safety
    /// The arguments must have the types the kernel's parameters have (the checks see only
    /// pointer or scalar and width), and the kernel must stay inside the buffers it is given
    /// for this grid; buffers it reads must not be written by other work meanwhile.
    pub unsafe fn launch<A: KernelArgs>(&self, stream: &Stream, config: LaunchConfig, args: A) -> Result<()> {
        self.check_args(&args)?;
        check_devices(&self.name, |d| args.foreign_memory(d), stream)?;
        let mut params = args.params();
        // SAFETY: `params` point into `args`, alive until this returns; the caller vouches for
        // their types and the kernel's bounds.
        unsafe { self.launch_params(stream, config, &mut params) }
    }

    /// Queues the kernel as `entry`, with arguments the compiler checked against `entry`'s
    /// parameters (as [`TypedKernel::launch`]), for a holder of kernels of many signatures
    /// (bankwise's `Gpu`). [`Error::StaleModule`] where this kernel is not `entry` (another
    /// name, or another declared shared memory).
    ///
    /// # Safety
    /// As [`TypedKernel::launch`].
    pub unsafe fn launch_as<P, A: crate::typed::LaunchArgs<P>>(
        &self,
        entry: KernelEntry<P>,
        stream: &Stream,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        if entry.name() != self.name || entry.shared_bytes() != self.declared {
            return Err(Error::StaleModule {
                kernel: entry.name().to_string(),
                module: self.entry.as_ref().map_or_else(|| self.name.clone(), |e| e.to_string()),
                host: describe_host(entry.host()),
            });
        }
        check_devices(&self.name, |d| args.foreign_memory(d), stream)?;
        let mut params = args.params();
        // SAFETY: `params` point into `args`, one per parameter of `P`, each of its type; the
        // caller vouches for the kernel's bounds.
        unsafe { self.launch_params(stream, config, &mut params) }
    }

    /// Queues the kernel with `params` (one pointer per parameter, `cuLaunchKernel`'s form).
    ///
    /// # Safety
    /// Each of `params` points at a value of its parameter's type, alive until this returns;
    /// the kernel stays inside the buffers it is given.
    pub(crate) unsafe fn launch_params(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        let config = self.prepare(&config)?;
        match (&self.function, &stream.kind) {
            (Function::Cuda { function, ctx }, StreamKind::Cuda(s)) => {
                // One device's contexts are one context (cudarc's and bankwise's handles of an
                // ordinal share its primary context), so a caller's cudarc stream is welcome.
                if s.context().cu_ctx() != ctx.cu_ctx() {
                    return Err(Error::ForeignStream);
                }
                // The launch takes its context from the current thread's.
                ctx.bind_to_thread()?;
                // SAFETY: the caller vouches for `params` and the kernel's bounds.
                unsafe {
                    cudarc::driver::result::launch_kernel(
                        function.cu_function(),
                        config.grid,
                        config.block,
                        config.shared_bytes,
                        s.cu_stream(),
                        params,
                    )
                    .map_err(|e| {
                        let limits = || {
                            let num_regs = CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS;
                            let max_threads = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
                            Ok((function.get_attribute(num_regs)?, function.get_attribute(max_threads)?))
                        };
                        Error::from_launch(e, &self.name, config.block, limits)
                    })?;
                }
                Ok(())
            }
            (Function::Emulated { host, emulated }, StreamKind::Emulated(on)) => {
                if !Arc::ptr_eq(emulated, on) {
                    return Err(Error::ForeignStream);
                }
                // SAFETY: as above; the emulator checks every access the kernel makes through
                // the device crate against the live buffers.
                let report = unsafe {
                    bankwise_emu::launch(host.run, params, config.grid.into(), config.block.into(), config.shared_bytes)
                }
                .map_err(|fault| Error::Emulated { kernel: self.name.clone(), fault })?;
                emulated.keep(LaunchReport { kernel: self.name.clone(), config, report })
            }
            _ => Err(Error::ForeignStream),
        }
    }

    /// How many blocks of this kernel one SM holds at once with `config`'s block and shared
    /// memory, by the driver's occupancy calculator (registers, threads, shared memory:
    /// CUDA C++ `cudaOccupancyMaxActiveBlocksPerMultiprocessor`). A GPU only.
    pub fn occupancy(&self, config: &LaunchConfig) -> Result<u32> {
        let config = self.prepare(config)?;
        let Function::Cuda { function, ctx } = &self.function else {
            return Err(Error::NeedsGpu("the occupancy calculator"));
        };
        // The occupancy calculator, unlike launches, does not make the context current itself.
        ctx.bind_to_thread()?;
        let threads = config.threads_per_block() as u32;
        Ok(function.occupancy_max_active_blocks_per_multiprocessor(threads, config.shared_bytes as usize, None)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "copy_bytes(ptr, ptr, u64)\ntranspose_u32(ptr, ptr, u64, u64, u64)\n\
        transpose_u64(ptr, ptr, u64, u64, u64)\nspin_wait(u64)\nscale(ptr, f32, u32)\n";

    #[test]
    fn a_missing_kernel_names_the_closest_entries() {
        let entries = Entries::from_manifest(MANIFEST).unwrap();
        assert_eq!(entries.len(), 5);
        assert_eq!(entries.get("spin_wait").unwrap().to_string(), "spin_wait(u64)");
        match entries.get("transpose_u16") {
            Err(Error::MissingKernel { name, near, known }) => {
                assert_eq!(name, "transpose_u16");
                assert_eq!(near, ["transpose_u32", "transpose_u64"]);
                assert_eq!(known, Some(5));
            }
            other => panic!("{other:?}"),
        }
        let err = entries.get("copy").unwrap_err();
        assert_eq!(err.to_string(), "the module has no kernel `copy`; similar entries among its 5: copy_bytes");
        let err = entries.get("matmul").unwrap_err();
        assert!(err.to_string().contains("none of its 5 entries"), "{err}");
    }

    #[test]
    fn a_bad_manifest_line_is_reported_by_number() {
        match Entries::from_manifest("copy_bytes(ptr, ptr, u64)\n\nscale(ptr, q7)\n") {
            Err(Error::BadManifest { line: 3, text }) => assert_eq!(text, "scale(ptr, q7)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn entries_are_read_from_ptx() {
        let entries = Entries::from_ptx(crate::bench::SPIN_WAIT_PTX);
        assert_eq!(entries.iter().map(|e| e.to_string()).collect::<Vec<_>>(), ["bankwise_runtime_spin_wait(u64)"]);
    }

    #[test]
    fn arguments_are_checked_for_count_and_width() {
        let entries = Entries::from_manifest(MANIFEST).unwrap();
        let scale = entries.get("scale").unwrap();
        let (p, s4, s8) = (ArgKind::Ptr, ArgKind::Scalar { bytes: 4 }, ArgKind::Scalar { bytes: 8 });
        check_args(scale, &[p, s4, s4]).unwrap();
        match check_args(scale, &[p, s4]) {
            Err(Error::ArgumentCount { expected: 3, got: 2, ref signature, .. }) => {
                assert_eq!(signature, "scale(ptr, f32, u32)")
            }
            other => panic!("{other:?}"),
        }
        let err = check_args(scale, &[p, s8, s4]).unwrap_err();
        assert!(matches!(err, Error::ArgumentMismatch { index: 1, ref expected, .. } if expected == "f32"), "{err:?}");
        assert_eq!(
            err.to_string(),
            "kernel `scale` argument 1: the parameter is `f32` but the launch passed a 8-byte scalar (scale(ptr, f32, u32))"
        );
        // A scalar where a pointer belongs, and a pointer where a 4-byte scalar belongs.
        assert!(matches!(check_args(scale, &[s8, s4, s4]), Err(Error::ArgumentMismatch { index: 0, .. })));
        assert!(matches!(check_args(scale, &[p, s4, p]), Err(Error::ArgumentMismatch { index: 2, .. })));
        // Hand-written PTX declares pointers as .u64: a pointer fits it, and so does a u64.
        let hold = entries.get("spin_wait").unwrap();
        check_args(hold, &[p]).unwrap();
        check_args(hold, &[s8]).unwrap();
    }

    #[test]
    fn tuple_arguments_report_their_kinds() {
        let (n, a, b) = (7u64, 1.5f32, 3u8);
        let args = (n, &a, b, 2i16);
        assert_eq!(
            args.kinds(),
            [
                ArgKind::Scalar { bytes: 8 },
                ArgKind::Scalar { bytes: 4 },
                ArgKind::Scalar { bytes: 1 },
                ArgKind::Scalar { bytes: 2 }
            ]
        );
        let params = args.params();
        // Each parameter points at its value.
        // SAFETY: `params[0]` points at `args.0`, a `u64`, alive in `args`.
        assert_eq!(unsafe { *(params[0] as *const u64) }, 7);
        // SAFETY: `params[1]` points at `a`, an `f32` borrowed by `args`.
        assert_eq!(unsafe { *(params[1] as *const f32) }, 1.5);
        assert_eq!(params[1], &a as *const f32 as *mut c_void);
    }

    #[test]
    fn images_are_checked_before_the_driver_sees_them() {
        assert!(ModuleImage::Ptx(crate::bench::SPIN_WAIT_PTX).validate().is_ok());
        assert!(matches!(ModuleImage::Ptx(".version 7.0\0").validate(), Err(Error::InvalidImage(_))));
        assert!(matches!(ModuleImage::Ptx("hello").validate(), Err(Error::InvalidImage(_))));
        assert!(ModuleImage::Cubin(b"\x7fELF\x02\x01").validate().is_ok());
        assert!(matches!(ModuleImage::Cubin(b"\x50\xed\x55\xba").validate(), Err(Error::InvalidImage(_))));
        assert!(ModuleImage::Fatbin(b"\x50\xed\x55\xba\x01\x00").validate().is_ok());
        assert!(matches!(ModuleImage::Fatbin(b"\x7fELF").validate(), Err(Error::InvalidImage(_))));
        assert!(matches!(ModuleImage::Fatbin(b"").validate(), Err(Error::InvalidImage(_))));
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
