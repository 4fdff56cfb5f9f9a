//! GPU tests of every `bankwise-device` primitive: each entry of `bankwise-primitives` (see the
//! table at the top of its `src/lib.rs`) is launched through `bankwise-runtime` with its outputs
//! poisoned, and what it wrote is compared with the primitive's CUDA definition computed here.
//! Without a CUDA driver or device every trial is reported as ignored, with the reason printed
//! first; on a GPU they run and assert.
//!
//! Trials are named `group/entry[/case]`; `--list` shows them all.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use bankwise_device_tests::{ENTRIES, PTX};
use bankwise_primitives::{Atomic, AtomicOp as Op, CopyParams, Pair, ShuffleKind, ShuffleParams, Shuffled};
use bankwise_runtime::{
    ByValue, Device, DeviceBuffer, DeviceRepr, KernelEntry, LaunchArgs, LaunchConfig, Module, ModuleImage,
    ValidAsZeroBits,
};
use libtest_mimic::{Arguments, Failed, Trial};

/// The byte every output is filled with before a launch.
const POISON: u8 = 0xFF;
/// The poison for outputs whose expected words include all-ones (votes, active masks), so that
/// an unwritten word cannot pass as one.
const POISON_ALT: u8 = 0xA5;
/// Elements past the end of each output that the kernel must leave poisoned.
const PAD: usize = 64;
/// The `scope` codes of the atomic entries: block, device, system.
const SCOPES: [u32; 3] = [0, 1, 2];

type Check = Result<(), Failed>;

/// The device and the primitives module loaded on it.
struct Gpu {
    dev: Device,
    module: Module,
}

impl Gpu {
    /// Launches `entry` on the device's stream (its arguments' types checked by the compiler).
    ///
    /// # Safety
    /// `args` are as the entry's row of the `bankwise-primitives` table asks, with every buffer
    /// at least as long as the launch `config` reaches.
    unsafe fn launch<P, A: LaunchArgs<P>>(&self, entry: KernelEntry<P>, config: LaunchConfig, args: A) -> Check {
        let kernel = self.module.kernel(entry)?;
        // SAFETY: the caller vouches for `args` and `config` (this function's contract), which is
        // what `launch` asks; the compiler checked the arguments against the entry's parameters.
        unsafe { kernel.launch(self.dev.stream(), config, args)? };
        Ok(())
    }

    /// `len` elements filled with the byte `poison`.
    fn poisoned<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize, poison: u8) -> Result<DeviceBuffer<T>, Failed> {
        let mut buf = self.dev.alloc_zeros::<T>(len)?;
        self.dev.fill_bytes(&mut buf, poison)?;
        Ok(buf)
    }

    fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Failed> {
        Ok(self.dev.upload(data)?)
    }

    fn download<T: DeviceRepr>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>, Failed> {
        Ok(self.dev.download(buf)?)
    }
}

/// Where the trials run: a loaded module, a reason to skip, or a module that failed to load
/// (every trial then fails with the reason).
#[derive(Clone)]
enum Target {
    Gpu(Arc<Gpu>),
    Skip(String),
    Broken(String),
}

#[allow(dead_code)] // `emulator.rs` includes this file and has its own `main`
fn main() {
    run_on(Device::new(0).map_err(|e| e.to_string()), "GPU", &[]);
}

/// Runs every trial on `device` (`what` names it), or reports them ignored with the reason;
/// trials whose names contain one of `unsupported`'s keys are ignored, with its reason.
pub fn run_on(device: Result<Device, String>, what: &str, unsupported: &[(&str, &str)]) {
    let args = Arguments::from_args();
    let target = match device {
        Ok(dev) => {
            let info = dev.info();
            eprintln!(
                "primitive {what} tests on {} (sm_{}{})",
                info.name, info.compute_capability.0, info.compute_capability.1
            );
            match dev.load_module(ModuleImage::Ptx(PTX), Some(ENTRIES)) {
                Ok(module) => Target::Gpu(Arc::new(Gpu { dev, module })),
                Err(e) => Target::Broken(format!("loading the bankwise-primitives PTX failed: {e}")),
            }
        }
        Err(e) => {
            eprintln!("primitive {what} tests skipped: {e}");
            Target::Skip("no GPU: see the reason printed above".into())
        }
    };
    let mut trials = Trials { target, list: Vec::new() };
    indices(&mut trials);
    barriers(&mut trials);
    warps(&mut trials);
    fences(&mut trials);
    atomics::<u32>(&mut trials);
    atomics::<i32>(&mut trials);
    atomics::<u64>(&mut trials);
    atomics::<i64>(&mut trials);
    atomics::<f32>(&mut trials);
    atomics::<f64>(&mut trials);
    clocks(&mut trials);
    shared_views(&mut trials);
    copies(&mut trials);
    checkers(&mut trials.list);
    for trial in &mut trials.list {
        if let Some((_, why)) = unsupported.iter().find(|(key, _)| trial.name().contains(key)) {
            eprintln!("{what}: {} ignored: {why}", trial.name());
            *trial = Trial::test(trial.name().to_string(), || Ok(())).with_ignored_flag(true);
        }
    }
    libtest_mimic::run(&args, trials.list).exit();
}

/// The trial list under construction.
struct Trials {
    target: Target,
    list: Vec<Trial>,
}

impl Trials {
    fn add(&mut self, name: String, f: impl FnOnce(&Gpu) -> Check + Send + 'static) {
        let target = self.target.clone();
        let skip = matches!(target, Target::Skip(_));
        let trial = Trial::test(name, move || match target {
            Target::Gpu(gpu) => f(&gpu),
            Target::Skip(why) | Target::Broken(why) => Err(why.into()),
        });
        self.list.push(trial.with_ignored_flag(skip));
    }
}

// ---------------------------------------------------------------------------------------------
// Element types and comparisons.

/// An element type of the entries, with what the host-side definitions need.
trait Num: DeviceRepr + ValidAsZeroBits + ByValue + Atomic + Debug + PartialOrd + Send + Sync {
    /// The suffix of the entries for this type.
    const NAME: &'static str;
    /// Integers have min/max atomics; floats do not.
    const INTEGER: bool;
    /// A test value for `x`: `x` itself for 32-bit integers (wrapped for unsigned), spread over
    /// both words for 64-bit ones (`x · (2^33 + 1)`), `x + 0.5` for floats. Order-preserving for
    /// the signed types and floats, injective for all at the magnitudes used.
    fn of(x: i64) -> Self;
    /// The bit pattern, zero-extended: equality of bits is what the entries promise.
    fn bits(self) -> u64;
    /// `self + other`, wrapping for integers (the atomics' arithmetic).
    fn plus(self, other: Self) -> Self;
    /// `n` in this type.
    fn count(n: u64) -> Self;
    /// The element made of [`POISON`] bytes.
    fn poison() -> Self;
    /// `(initial, expected)` pairs for a compare-and-swap that compare bit patterns, not values.
    fn cas_specials() -> Vec<(Self, Self)>;
}

macro_rules! integer {
    ($($t:ty: $name:literal, $spread:expr;)+) => {$(
        impl Num for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = true;
            fn of(x: i64) -> Self {
                (x as $t).wrapping_mul($spread)
            }
            fn bits(self) -> u64 {
                self as u64 & (u64::MAX >> (64 - 8 * size_of::<$t>()))
            }
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            fn count(n: u64) -> Self {
                n as $t
            }
            fn poison() -> Self {
                <$t>::from_ne_bytes([POISON; size_of::<$t>()])
            }
            fn cas_specials() -> Vec<(Self, Self)> {
                vec![(<$t>::MAX, <$t>::MAX), (<$t>::MIN, <$t>::MIN), (<$t>::MIN, <$t>::MAX), (0, 1)]
            }
        }
    )+};
}

integer! {
    u32: "u32", 1;
    i32: "i32", 1;
    u64: "u64", (1 << 33) + 1;
    i64: "i64", (1 << 33) + 1;
}

macro_rules! float {
    ($($t:ident: $name:literal, $nan:expr;)+) => {$(
        impl Num for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = false;
            fn of(x: i64) -> Self {
                x as $t + 0.5
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn plus(self, other: Self) -> Self {
                self + other
            }
            fn count(n: u64) -> Self {
                n as $t
            }
            fn poison() -> Self {
                $t::from_ne_bytes([POISON; size_of::<$t>()])
            }
            fn cas_specials() -> Vec<(Self, Self)> {
                let nan = $t::from_bits($nan);
                // 0 and -0 are equal but their bits differ: the swap must not happen. A NaN
                // equals nothing, yet its own bits match: the swap must happen.
                vec![(0.0, -0.0), (-0.0, 0.0), (nan, nan), ($t::INFINITY, $t::INFINITY), (1.0, 1.5)]
            }
        }
    )+};
}

float! {
    f32: "f32", 0x7fc0_0001;
    f64: "f64", 0x7ff8_0000_0000_0001;
}

/// `got` equals `want` bit for bit, or says how many differ and where the first is.
fn same<T: Num>(what: &str, got: &[T], want: &[T]) -> Check {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i].bits() != want[i].bits()).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{what}: {} of {} differ; the first at {i}: got {:?}, expected {:?}",
            bad.len(),
            got.len(),
            got[i],
            want[i]
        )
        .into()),
    }
}

/// `got[..n]` equals `want` and everything after it still holds `poison` bytes.
fn same_then_untouched<T: Num>(what: &str, got: &[T], want: &[T], poison: T) -> Check {
    let n = want.len().min(got.len());
    same(what, &got[..n], want)?;
    same(&format!("{what}, past the end"), &got[n..], &vec![poison; got.len() - n])
}

/// A pseudo-random 64-bit word for index `i` (splitmix64).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

// ---------------------------------------------------------------------------------------------
// Indices.

fn indices(t: &mut Trials) {
    let shapes_3d = [((2, 3, 1), (8, 4, 2)), ((1, 1, 1), (48, 1, 1)), ((3, 2, 2), (5, 3, 3)), ((2, 1, 2), (32, 2, 1))];
    for (grid, block) in shapes_3d {
        t.add(format!("indices/thread_indices/{}", shape(grid, block)), move |g| thread_indices(g, grid, block));
    }
    for (grid, block) in [((3, 2, 1), (16, 4, 1)), ((2, 3, 1), (5, 7, 1)), ((1, 1, 1), (48, 1, 1))] {
        t.add(format!("indices/global_index/{}", shape(grid, block)), move |g| global_index(g, grid, block));
    }
}

/// `2x3x1_of_8x4x2`: a launch shape for a trial name.
fn shape(grid: Dim, block: Dim) -> String {
    format!("{}x{}x{}_of_{}x{}x{}", grid.0, grid.1, grid.2, block.0, block.1, block.2)
}

type Dim = (u32, u32, u32);

/// Every thread's 16 words: its indices, the launch shape, lane and warp from its linear index.
fn thread_indices(g: &Gpu, grid: Dim, block: Dim) -> Check {
    let threads = block.0 * block.1 * block.2;
    let total = (grid.0 * grid.1 * grid.2 * threads) as usize;
    let mut out = g.poisoned::<u32>(16 * total + PAD, POISON)?;
    let config = LaunchConfig { grid, block, shared_bytes: 0 };
    // Safety: 16 words per launched thread.
    unsafe { g.launch(bankwise_primitives::thread_indices, config, (&mut out,))? };
    let mut want = Vec::with_capacity(16 * total);
    for bz in 0..grid.2 {
        for by in 0..grid.1 {
            for bx in 0..grid.0 {
                for tz in 0..block.2 {
                    for ty in 0..block.1 {
                        for tx in 0..block.0 {
                            let linear = tx + block.0 * (ty + block.1 * tz);
                            want.extend([tx, ty, tz, bx, by, bz, block.0, block.1, block.2, grid.0, grid.1, grid.2]);
                            want.extend([linear % 32, linear / 32, linear, 0]);
                        }
                    }
                }
            }
        }
    }
    same_then_untouched("16 words per thread", &g.download(&out)?, &want, u32::MAX)
}

/// `index_1d` and `index_2d` of every thread of a 2-D launch.
fn global_index(g: &Gpu, grid: Dim, block: Dim) -> Check {
    let (width, height) = (grid.0 * block.0, grid.1 * block.1);
    let total = (width * height) as usize;
    let mut out = g.poisoned::<u64>(3 * total + PAD, POISON)?;
    // Safety: 3 words per launched thread.
    unsafe { g.launch(bankwise_primitives::global_index, LaunchConfig { grid, block, shared_bytes: 0 }, (&mut out,))? };
    let want: Vec<u64> = (0..height as u64).flat_map(|y| (0..width as u64).flat_map(move |x| [x, x, y])).collect();
    same_then_untouched("index_1d, index_2d.x, index_2d.y", &g.download(&out)?, &want, u64::MAX)
}

// ---------------------------------------------------------------------------------------------
// Barriers and exchanges through shared memory.

fn barriers(t: &mut Trials) {
    for block in [32, 48, 1000, 1024] {
        t.add(format!("barrier/reductions/block_{block}"), move |g| barrier_reductions(g, block));
    }
    for (grid, block) in [(3, 48), (2, 96), (1, 1024)] {
        t.add(format!("barrier/block_exchange/{grid}x{block}"), move |g| block_exchange(g, grid, block));
    }
    for (grid, block) in [(2, 96), (1, 1024)] {
        t.add(format!("barrier/warp_exchange/{grid}x{block}"), move |g| warp_exchange(g, grid, block));
    }
}

/// `__syncthreads_count/and/or` of `t % modulus == 0` for several moduli.
fn barrier_reductions(g: &Gpu, block: u32) -> Check {
    for modulus in [0, 1, 2, 3, 7, 32, 999, 1024, 5000] {
        let mut out = g.poisoned::<u32>(3 * block as usize + PAD, POISON)?;
        // Safety: one block, 3 words per thread.
        unsafe {
            g.launch(bankwise_primitives::barrier_reductions, LaunchConfig::linear(1, block), (&mut out, modulus))?
        };
        let count = (0..block).filter(|t| modulus != 0 && t % modulus == 0).count() as u32;
        let word = [count, (count == block) as u32, (count > 0) as u32];
        let want: Vec<u32> = (0..block).flat_map(|_| word).collect();
        same_then_untouched(&format!("count, and, or for modulus {modulus}"), &g.download(&out)?, &want, u32::MAX)?;
    }
    Ok(())
}

/// Each thread reads what the thread mirrored in its block wrote before `sync_threads`.
fn block_exchange(g: &Gpu, grid: u32, block: u32) -> Check {
    let n = (grid * block) as usize;
    let mut out = g.poisoned::<u32>(n + PAD, POISON)?;
    let config = LaunchConfig::linear(grid, block).with_shared_bytes(4 * block);
    // Safety: one word per thread, 4 · blockDim bytes of shared memory.
    unsafe { g.launch(bankwise_primitives::block_exchange, config, (&mut out,))? };
    let want: Vec<u32> = (0..n as u32).map(|i| 3 * (block - 1 - i % block) + 2).collect();
    same_then_untouched("the mirrored thread's word", &g.download(&out)?, &want, u32::MAX)
}

/// Each lane reads what the next lane of its warp wrote before `sync_warp`.
fn warp_exchange(g: &Gpu, grid: u32, block: u32) -> Check {
    let n = (grid * block) as usize;
    let mut out = g.poisoned::<u32>(n + PAD, POISON)?;
    let config = LaunchConfig::linear(grid, block).with_shared_bytes(4 * block);
    // Safety: one word per thread, whole warps, 4 · blockDim bytes of shared memory.
    unsafe { g.launch(bankwise_primitives::warp_exchange, config, (&mut out,))? };
    let want: Vec<u32> = (0..n as u32)
        .map(|i| {
            let (t, lane) = (i % block, i % 32);
            7 * (t - lane + (lane + 1) % 32) + 1
        })
        .collect();
    same_then_untouched("the next lane's word", &g.download(&out)?, &want, u32::MAX)
}

// ---------------------------------------------------------------------------------------------
// Warp primitives.

/// A shuffle kind: the source lane of lane `l` for `arg` (CUDA `__shfl_*_sync`), and the args.
type Shuffle = (ShuffleKind, fn(u32, u32) -> u32, &'static [u32]);

const SHUFFLES: [Shuffle; 4] = [
    (ShuffleKind::Down, |l, arg| if l + arg < 32 { l + arg } else { l }, &[0, 1, 2, 5, 16, 31, 32]),
    (ShuffleKind::Up, |l, arg| if l >= arg { l - arg } else { l }, &[0, 1, 2, 5, 16, 31, 32]),
    (ShuffleKind::Xor, |l, arg| l ^ arg, &[0, 1, 5, 16, 31]),
    (ShuffleKind::Idx, |_, arg| arg % 32, &[0, 1, 7, 31, 37]),
];

fn warps(t: &mut Trials) {
    // Per type: sample `i`'s bits (the crate docs' `Sample`), read back as the unsigned integer
    // of the type's size.
    for (kind, source, args) in SHUFFLES {
        shuffle_trial::<u32, u32>(t, kind, "u32", source, args, |i| (3 * i + 1) as u64);
        shuffle_trial::<u64, u64>(t, kind, "u64", source, args, |i| (i as u64) << 32 | (3 * i + 1) as u64);
        shuffle_trial::<f64, u64>(t, kind, "f64", source, args, |i| (i as f64 + 0.5).to_bits());
        shuffle_trial::<Pair, u64>(t, kind, "pair", source, args, |i| {
            (1.5 * i as f32).to_bits() as u64 | (i as u64) << 32
        });
    }
    t.add("warp/votes".into(), votes);
    for (grid, block) in [(2, 64), (1, 48), (3, 1000)] {
        t.add(format!("warp/active_mask_divergent/{grid}x{block}"), move |g| active_mask(g, grid, block));
    }
}

/// Adds the trial of `shfl_<kind>_<ty>`, the shuffle of `E`s read back as `U`s.
fn shuffle_trial<E: Shuffled, U: Num>(
    t: &mut Trials,
    kind: ShuffleKind,
    ty: &str,
    source: fn(u32, u32) -> u32,
    args: &'static [u32],
    sample: fn(u32) -> u64,
) {
    let entry = E::shuffle(kind);
    t.add(format!("warp/shfl_{}_{ty}", kind.name()), move |g| shuffle::<E, U>(g, entry, source, args, sample));
}

/// `out[g]` = sample of the source lane within `g`'s warp, for each `arg`. `U` is the
/// unsigned integer of `E`'s size, its bits the sample's.
fn shuffle<E, U: Num>(
    g: &Gpu,
    entry: KernelEntry<ShuffleParams<E>>,
    source: fn(u32, u32) -> u32,
    args: &[u32],
    sample: fn(u32) -> u64,
) -> Check {
    let name = entry.name();
    if size_of::<E>() != size_of::<U>() {
        return Err(format!("{name}: read back as {}-byte words", size_of::<U>()).into());
    }
    let (grid, block) = (3, 64);
    let n = (grid * block) as usize;
    for &arg in args {
        let mut out = g.poisoned::<U>(n + PAD, POISON)?;
        // Safety: every bit pattern the kernel leaves is a valid U.
        let view = unsafe { out.as_slice_mut().cast::<E>() }.ok_or("the output is not aligned for the entry's type")?;
        // Safety: one element per thread, whole warps.
        unsafe { g.launch(entry, LaunchConfig::linear(grid, block), (view, arg))? };
        let got: Vec<u64> = g.download(&out)?.into_iter().map(Num::bits).collect();
        let want: Vec<u64> = (0..n as u32).map(|i| sample(i - i % 32 + source(i % 32, arg))).collect();
        let poison = vec![U::poison().bits(); PAD];
        same(&format!("{name} with arg {arg}"), &got[..n], &want)?;
        same(&format!("{name} past the end"), &got[n..], &poison)?;
    }
    Ok(())
}

/// `__all_sync`, `__any_sync`, `__ballot_sync` of `lane % modulus == 0` over full warps.
fn votes(g: &Gpu) -> Check {
    let (grid, block) = (2, 96);
    let n = (grid * block) as usize;
    for modulus in [0, 1, 2, 3, 5, 16, 31, 32, 33] {
        let mut out = g.poisoned::<u32>(3 * n + PAD, POISON_ALT)?;
        // Safety: 3 words per thread, whole warps.
        unsafe { g.launch(bankwise_primitives::votes, LaunchConfig::linear(grid, block), (&mut out, modulus))? };
        let ballot: u32 = (0..32).filter(|l| modulus != 0 && l % modulus == 0).map(|l| 1u32 << l).sum();
        let word = [(ballot == u32::MAX) as u32, (ballot != 0) as u32, ballot];
        let want: Vec<u32> = (0..n).flat_map(|_| word).collect();
        let poison = u32::from_ne_bytes([POISON_ALT; 4]);
        same_then_untouched(&format!("all, any, ballot for modulus {modulus}"), &g.download(&out)?, &want, poison)?;
    }
    Ok(())
}

/// `__activemask()` converged is every live lane of the warp; inside `if lane % 2 == 0` it holds
/// the lane itself and no odd lane (which even lanes run together is the scheduler's choice).
fn active_mask(g: &Gpu, grid: u32, block: u32) -> Check {
    let n = (grid * block) as usize;
    let mut out = g.poisoned::<u32>(3 * n + PAD, POISON_ALT)?;
    // Safety: 3 words per thread.
    unsafe { g.launch(bankwise_primitives::active_mask_divergent, LaunchConfig::linear(grid, block), (&mut out,))? };
    let got = g.download(&out)?;
    for i in 0..n {
        // Lanes are numbered within the block's warps: thread t of its block is lane t % 32.
        let t = i as u32 % block;
        let lane = t % 32;
        let live = (block - (t - lane)).min(32);
        let converged = if live == 32 { u32::MAX } else { (1 << live) - 1 };
        let [whole, divergent, own] = [got[3 * i], got[3 * i + 1], got[3 * i + 2]];
        if whole != converged {
            return Err(format!("thread {i}: converged mask {whole:#010x}, expected {converged:#010x}").into());
        }
        let (want_own, ok) = if lane.is_multiple_of(2) {
            (1 << lane, divergent & (1 << lane) != 0 && divergent & 0xaaaa_aaaa == 0 && divergent & !converged == 0)
        } else {
            (0, divergent == 0)
        };
        if !ok || own != want_own {
            return Err(
                format!("thread {i} (lane {lane}): divergent mask {divergent:#010x}, own bit {own:#010x}").into()
            );
        }
    }
    let poison = u32::from_ne_bytes([POISON_ALT; 4]);
    same("past the end", &got[3 * n..], &vec![poison; PAD])
}

// ---------------------------------------------------------------------------------------------
// Fences.

fn fences(t: &mut Trials) {
    for scope in SCOPES {
        t.add(format!("fence/message/scope_{scope}"), move |g| fence_message(g, scope));
    }
}

/// A message published behind a fence and a flag reads back whole at the consumer.
fn fence_message(g: &Gpu, scope: u32) -> Check {
    let n = 1000usize;
    let mut data = g.poisoned::<u32>(n, POISON)?;
    let mut flag = g.dev.alloc_zeros::<u32>(1)?;
    let mut out = g.poisoned::<u32>(n + PAD, POISON)?;
    // Scope 0: producer thread 0 and consumer thread 32 of one block; else one thread in each
    // of two blocks.
    let config = if scope == 0 { LaunchConfig::linear(1, 64) } else { LaunchConfig::linear(2, 1) };
    // Safety: data and out hold n words, *flag is 0, the launch is as the table says.
    unsafe { g.launch(bankwise_primitives::fence_message, config, (&mut data, &mut flag, &mut out, n as u32, scope))? };
    let want: Vec<u32> = (0..n as u32).map(|k| k * k + 1).collect();
    same_then_untouched("the consumer's copy", &g.download(&out)?, &want, u32::MAX)?;
    same("the producer's data", &g.download(&data)?, &want)?;
    same("the flag", &g.download(&flag)?, &[1])
}

// ---------------------------------------------------------------------------------------------
// Atomics.

/// What an atomic operation does (CUDA's definition), against which the entries are checked.
trait Definition {
    /// The target's next value after an operation with `v`.
    fn step<T: Num>(self, x: T, v: T) -> T;

    /// The target's initial value and `n` operands. Add: positive operands (so that every
    /// thread sees a different old value; integers wrap past the type's end, floats stay
    /// exact). Exchange: distinct operands. Min/max: distinct operands on both sides of the
    /// initial value.
    fn case<T: Num>(self, n: usize) -> (T, Vec<T>);

    /// Whether `olds` and `last` are what some serial order of the operations gives.
    ///
    /// Add and exchange: every thread saw a different value, so the order is the chain from
    /// `initial` through "the thread that saw `x`" to `x` combined with that thread's operand;
    /// it must take every thread once and end at `last`. Min/max: `last` is the extreme of all;
    /// every old is the initial value or another thread's operand, lies between the initial
    /// value and `last`, and some thread (the first) saw the initial value.
    fn check_serial<T: Num>(self, initial: T, values: &[T], olds: &[T], last: T) -> Check;
}

impl Definition for Op {
    fn step<T: Num>(self, x: T, v: T) -> T {
        match self {
            Op::Add => x.plus(v),
            Op::Exchange => v,
            Op::Min => {
                if v < x {
                    v
                } else {
                    x
                }
            }
            Op::Max => {
                if v > x {
                    v
                } else {
                    x
                }
            }
        }
    }

    fn case<T: Num>(self, n: usize) -> (T, Vec<T>) {
        match self {
            Op::Add => (T::of(-3000), (0..n as i64).map(|i| T::of(1 + i % 97)).collect()),
            Op::Exchange => (T::of(-1), (0..n as i64).map(|i| T::of(7 * i + 11)).collect()),
            Op::Min | Op::Max => (T::of(2501), (0..n as i64).map(|i| T::of((i * 7919) % 10_007 - 5003)).collect()),
        }
    }

    fn check_serial<T: Num>(self, initial: T, values: &[T], olds: &[T], last: T) -> Check {
        match self {
            Op::Add | Op::Exchange => {
                let mut by_old: HashMap<u64, usize> = olds.iter().enumerate().map(|(g, o)| (o.bits(), g)).collect();
                if by_old.len() != olds.len() {
                    return Err(format!("{} threads saw only {} distinct old values", olds.len(), by_old.len()).into());
                }
                let mut x = initial;
                for k in 0..olds.len() {
                    let Some(g) = by_old.remove(&x.bits()) else {
                        return Err(format!("after {k} operations the target held {x:?}, which no thread saw").into());
                    };
                    x = self.step(x, values[g]);
                }
                if x.bits() != last.bits() {
                    return Err(
                        format!("the final value is {last:?}; the serial order of the olds ends at {x:?}").into()
                    );
                }
            }
            Op::Min | Op::Max => {
                let want = values.iter().fold(initial, |x, &v| self.step(x, v));
                if last.bits() != want.bits() {
                    return Err(format!("the final value is {last:?}, expected {want:?}").into());
                }
                let seen: HashMap<u64, usize> = values.iter().enumerate().map(|(g, v)| (v.bits(), g)).collect();
                for (g, &old) in olds.iter().enumerate() {
                    let from_other = seen.get(&old.bits()).is_some_and(|&j| j != g);
                    let between =
                        self.step(old, last).bits() == last.bits() && self.step(initial, old).bits() == old.bits();
                    if !(old.bits() == initial.bits() || from_other) || !between {
                        return Err(format!("thread {g} saw {old:?}, which the target never held").into());
                    }
                }
                if !olds.iter().any(|o| o.bits() == initial.bits()) {
                    return Err(format!("no thread saw the initial value {initial:?}").into());
                }
            }
        }
        Ok(())
    }
}

/// Threads and launch for an atomic at `scope`: block scope is atomic only within one block.
fn atomic_launch(scope: u32) -> (usize, LaunchConfig) {
    match scope {
        0 => (1000, LaunchConfig::linear(1, 1024)),
        _ => (5000, LaunchConfig::for_elements(5000, 256)),
    }
}

fn atomics<T: Num>(t: &mut Trials) {
    let ops: &[Op] = if T::INTEGER { &[Op::Add, Op::Exchange, Op::Min, Op::Max] } else { &[Op::Add, Op::Exchange] };
    let ty = T::NAME;
    for &op in ops {
        let op_name = op.name();
        for scope in SCOPES {
            t.add(format!("atomic/atomic_{op_name}_{ty}/scope_{scope}"), move |g| global_atomic::<T>(g, op, scope));
            if !matches!(op, Op::Exchange) {
                t.add(format!("atomic/red_{op_name}_{ty}/scope_{scope}"), move |g| red::<T>(g, op, scope));
            }
        }
        t.add(format!("shared/shared_atomic_{op_name}_{ty}"), move |g| shared_atomic::<T>(g, op));
    }
    for scope in SCOPES {
        t.add(format!("atomic/atomic_cas_{ty}/scope_{scope}"), move |g| cas::<T>(g, scope));
        t.add(format!("atomic/atomic_cas_increment_{ty}/scope_{scope}"), move |g| cas_increment::<T>(g, scope));
    }
    t.add(format!("shared/shared_atomic_cas_{ty}"), shared_cas::<T>);
    for block in [1, 48, 1024] {
        t.add(format!("shared/shared_cas_increment_{ty}/block_{block}"), move |g| shared_cas_increment::<T>(g, block));
    }
}

/// `atomic_{op}_{T}`: the olds and the final value fit a serial order.
fn global_atomic<T: Num>(g: &Gpu, op: Op, scope: u32) -> Check {
    let (n, config) = atomic_launch(scope);
    let (initial, values) = op.case::<T>(n);
    let mut target = g.upload(&[initial])?;
    let mut olds = g.poisoned::<T>(n + PAD, POISON)?;
    let values_buf = g.upload(&values)?;
    let entry = T::atomic(op).ok_or_else(|| format!("no atomic_{}_{} entry", op.name(), T::NAME))?;
    // Safety: one target, n olds and values.
    unsafe { g.launch(entry, config, (&mut target, &mut olds, &values_buf, n as u32, scope))? };
    let olds = g.download(&olds)?;
    same("olds past n", &olds[n..], &[T::poison(); PAD])?;
    op.check_serial(initial, &values, &olds[..n], g.download(&target)?[0])
}

/// `red_{op}_{T}`: the final value is the operands folded into the initial one.
fn red<T: Num>(g: &Gpu, op: Op, scope: u32) -> Check {
    let (n, config) = atomic_launch(scope);
    let (initial, mut values) = op.case::<T>(n);
    // Operands past n (which the entry must not apply) that would change the result.
    values.extend((0..PAD).map(|_| T::of(-4_000_000)));
    let mut target = g.upload(&[initial])?;
    let values_buf = g.upload(&values)?;
    let entry = T::red(op).ok_or_else(|| format!("no red_{}_{} entry", op.name(), T::NAME))?;
    // Safety: one target, at least n values.
    unsafe { g.launch(entry, config, (&mut target, &values_buf, n as u32, scope))? };
    let want = values[..n].iter().fold(initial, |x, &v| op.step(x, v));
    same("the final value", &g.download(&target)?, &[want])
}

/// `(initial, expected, new)` per element for a compare-and-swap: every third swaps, the others
/// expect another value, and the type's bit-pattern cases come first.
fn cas_case<T: Num>(n: usize) -> (Vec<T>, Vec<T>, Vec<T>) {
    let mut pairs = T::cas_specials();
    pairs.extend((pairs.len()..n).map(|i| {
        let x = T::of(i as i64 * 5 - 900);
        (x, if i % 3 == 0 { x } else { T::of(i as i64 * 5 - 899) })
    }));
    let (initial, expected) = pairs.into_iter().take(n).unzip();
    (initial, expected, (0..n as i64).map(|i| T::of(100_000 + i)).collect())
}

/// What a compare-and-swap leaves: `new` where the bits matched, else the initial value.
fn cas_result<T: Num>(initial: &[T], expected: &[T], new: &[T]) -> Vec<T> {
    (0..initial.len()).map(|i| if initial[i].bits() == expected[i].bits() { new[i] } else { initial[i] }).collect()
}

/// `atomic_cas_{T}` on one element per thread: old is the initial value; swapped iff the bits
/// matched.
fn cas<T: Num>(g: &Gpu, scope: u32) -> Check {
    let (n, config) = atomic_launch(scope);
    let (initial, expected, new) = cas_case::<T>(n);
    let mut target = g.upload(&initial)?;
    let mut olds = g.poisoned::<T>(n + PAD, POISON)?;
    let (expected_buf, new_buf) = (g.upload(&expected)?, g.upload(&new)?);
    // Safety: target, olds, expected and new hold n elements.
    unsafe { g.launch(T::CAS, config, (&mut target, &mut olds, &expected_buf, &new_buf, n as u32, scope))? };
    same_then_untouched("olds", &g.download(&olds)?, &initial, T::poison())?;
    same("targets", &g.download(&target)?, &cas_result(&initial, &expected, &new))
}

/// `atomic_cas_increment_{T}`: n contended compare-and-swap loops add n.
fn cas_increment<T: Num>(g: &Gpu, scope: u32) -> Check {
    let (n, config) = match scope {
        0 => (1000, LaunchConfig::linear(1, 1024)),
        _ => (20_000, LaunchConfig::for_elements(20_000, 256)),
    };
    let mut counter = g.dev.alloc_zeros::<T>(1)?;
    // Safety: one counter, 0.
    unsafe { g.launch(T::CAS_INCREMENT, config, (&mut counter, n as u32, scope))? };
    same("the counter", &g.download(&counter)?, &[T::count(n as u64)])
}

/// `shared_atomic_{op}_{T}` in one block of 1000 threads (a partial last warp).
fn shared_atomic<T: Num>(g: &Gpu, op: Op) -> Check {
    let n = 1000;
    let (initial, values) = op.case::<T>(n);
    let mut result = g.poisoned::<T>(1, POISON)?;
    let mut olds = g.poisoned::<T>(n + PAD, POISON)?;
    let values_buf = g.upload(&values)?;
    let entry = T::shared_atomic(op).ok_or_else(|| format!("no shared_atomic_{}_{} entry", op.name(), T::NAME))?;
    let config = LaunchConfig::linear(1, n as u32).with_shared_bytes(16);
    // Safety: one block; olds and values hold blockDim elements; 16 bytes of shared memory.
    unsafe { g.launch(entry, config, (&mut result, &mut olds, &values_buf, initial))? };
    let olds = g.download(&olds)?;
    same("olds past blockDim", &olds[n..], &[T::poison(); PAD])?;
    op.check_serial(initial, &values, &olds[..n], g.download(&result)?[0])
}

/// `shared_atomic_cas_{T}` on one shared element per thread.
fn shared_cas<T: Num>(g: &Gpu) -> Check {
    let n = 256;
    let (initial, expected, new) = cas_case::<T>(n);
    let mut result = g.poisoned::<T>(n + PAD, POISON)?;
    let mut olds = g.poisoned::<T>(n + PAD, POISON)?;
    let (initial_buf, expected_buf, new_buf) = (g.upload(&initial)?, g.upload(&expected)?, g.upload(&new)?);
    let config = LaunchConfig::linear(1, n as u32).with_shared_bytes(8 * n as u32);
    // Safety: one block; every pointer holds blockDim elements; 8 · blockDim bytes of shared memory.
    unsafe { g.launch(T::SHARED_CAS, config, (&mut result, &mut olds, &initial_buf, &expected_buf, &new_buf))? };
    same_then_untouched("olds", &g.download(&olds)?, &initial, T::poison())?;
    let want = cas_result(&initial, &expected, &new);
    same_then_untouched("values after", &g.download(&result)?, &want, T::poison())
}

/// `shared_cas_increment_{T}`: every thread of the block adds one.
fn shared_cas_increment<T: Num>(g: &Gpu, block: u32) -> Check {
    let mut result = g.poisoned::<T>(1, POISON)?;
    // Safety: one block, one result, 16 bytes of shared memory.
    unsafe { g.launch(T::SHARED_CAS_INCREMENT, LaunchConfig::linear(1, block).with_shared_bytes(16), (&mut result,))? };
    same("the shared counter", &g.download(&result)?, &[T::count(block as u64)])
}

// ---------------------------------------------------------------------------------------------
// Clocks.

fn clocks(t: &mut Trials) {
    for entry in [bankwise_primitives::clock_monotonic, bankwise_primitives::global_timer_monotonic] {
        t.add(format!("time/{}", entry.name()), move |g| monotonic(g, entry));
    }
}

/// Consecutive readings never go backwards; one reading starts and ends at the same value;
/// 100 readings of `clock64` span at least one cycle.
fn monotonic(g: &Gpu, entry: KernelEntry<(*mut u64, u32)>) -> Check {
    let (grid, block) = (2, 64);
    let n = (grid * block) as usize;
    for reads in [1, 2, 100] {
        let mut out = g.poisoned::<u64>(3 * n + PAD, POISON)?;
        // Safety: 3 words per thread.
        unsafe { g.launch(entry, LaunchConfig::linear(grid, block), (&mut out, reads))? };
        let got = g.download(&out)?;
        for i in 0..n {
            let [first, last, backwards] = [got[3 * i], got[3 * i + 1], got[3 * i + 2]];
            let spans = match reads {
                1 => last == first,
                100 if entry == bankwise_primitives::clock_monotonic => last > first,
                _ => last >= first,
            };
            if backwards != 0 || !spans {
                return Err(format!(
                    "{reads} readings, thread {i}: first {first}, last {last}, {backwards} went backwards"
                )
                .into());
            }
        }
        same("past the end", &got[3 * n..], &vec![u64::MAX; PAD])?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Shared-memory views.

fn shared_views(t: &mut Trials) {
    // (dynamic shared bytes, offset, len): fits, fits exactly, one element too many,
    // misaligned, a view that fits beside an array that does not, nothing, more elements than
    // threads, a small launch.
    let cases = [
        (1024, 0, 256),
        (1024, 16, 252),
        (1024, 16, 253),
        (1024, 8, 4),
        (1024, 1008, 4),
        (0, 0, 0),
        (4096, 0, 1000),
        (48, 32, 4),
    ];
    for (bytes, offset, len) in cases {
        t.add(format!("shared/views/{bytes}_bytes_offset_{offset}_len_{len}"), move |g| views(g, bytes, offset, len));
    }
}

/// A checked constructor's code (0 ok, 1 misaligned, 2 too small) and bytes needed.
fn view_code(bytes: u32, offset: u32, size: u32) -> (u32, u32) {
    if !offset.is_multiple_of(16) {
        (1, 0)
    } else if offset + size > bytes {
        (2, offset + size)
    } else {
        (0, 0)
    }
}

/// `SharedSlice::<u32>::new(offset, len)` and `SharedArray::<u64, 4>::new(offset)` against the
/// launch's shared memory, and a round trip through the view when it is valid.
fn views(g: &Gpu, bytes: u32, offset: u32, len: u32) -> Check {
    let block = 64;
    let mut out = g.poisoned::<u32>(8 + len as usize + PAD, POISON)?;
    let config = LaunchConfig::linear(1, block).with_shared_bytes(bytes);
    // Safety: one block; out holds 8 + len words.
    unsafe { g.launch(bankwise_primitives::shared_views, config, (&mut out, offset, len))? };
    let (view, needed) = view_code(bytes, offset, 4 * len);
    let (array, _) = view_code(bytes, offset, 32);
    let mut want = vec![bytes, bytes / 4, view, needed, array, 32, if view == 0 { 4 * len } else { 0 }, 0];
    if view == 0 {
        want.extend((0..len).map(|t| 5 * ((t + 1) % len) + 3));
    }
    same_then_untouched("the codes and the round trip", &g.download(&out)?, &want, u32::MAX)
}

// ---------------------------------------------------------------------------------------------
// Global copies.

fn copies(t: &mut Trials) {
    use bankwise_primitives::{copy_u32_nc, copy_u64_nc, copy_u64_streaming, copy_v4, copy_v4_nc, copy_v4_streaming};
    for entry in [copy_v4, copy_v4_streaming, copy_v4_nc] {
        t.add(format!("memory/{}", entry.name()), move |g| copy::<u32, _>(g, entry));
    }
    for entry in [copy_u64_streaming, copy_u64_nc] {
        t.add(format!("memory/{}", entry.name()), move |g| copy::<u64, _>(g, entry));
    }
    t.add(format!("memory/{}", copy_u32_nc.name()), |g| copy::<u32, _>(g, copy_u32_nc));
}

/// `dst[..n] = src[..n]` for element counts from 0 to a few thousand, none a multiple of the
/// block past the first; an element `E` is a whole number of `T`s.
fn copy<T: Num, E>(g: &Gpu, entry: KernelEntry<CopyParams<E>>) -> Check {
    let words = size_of::<E>() / size_of::<T>();
    for n in [0usize, 1, 3, 255, 1000, 4099] {
        let src: Vec<T> = (0..(n + PAD) * words).map(|i| T::of((mix(i as u64) >> 40) as i64)).collect();
        let src_buf = g.upload(&src)?;
        let mut dst = g.poisoned::<T>((n + PAD) * words, POISON)?;
        // Safety: every bit pattern the kernel leaves is a valid T (it copies Ts).
        let (dst_view, src_view) = unsafe { (dst.as_slice_mut().cast::<E>(), src_buf.as_slice().cast::<E>()) };
        let (Some(dst_view), Some(src_view)) = (dst_view, src_view) else {
            return Err(format!("{}: the buffers are not whole, aligned elements", entry.name()).into());
        };
        // Safety: dst and src hold at least n elements and do not overlap.
        unsafe { g.launch(entry, LaunchConfig::for_elements(n as u64, 256), (dst_view, src_view, n as u64))? };
        same_then_untouched(&format!("{n} elements"), &g.download(&dst)?, &src[..n * words], T::poison())?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The host-side checkers themselves, on the CPU (these run without a GPU too).

fn checkers(list: &mut Vec<Trial>) {
    list.push(Trial::test("host/check_serial_accepts_serial_orders_and_rejects_others", || {
        for op in [Op::Add, Op::Exchange, Op::Min, Op::Max] {
            serial_checker::<u32>(op)?;
            serial_checker::<i64>(op)?;
        }
        serial_checker::<f32>(Op::Add)?;
        serial_checker::<f64>(Op::Exchange)
    }));
    list.push(Trial::test("host/cas_result_compares_bits", || {
        let (initial, expected, new) = cas_case::<f32>(8);
        let after = cas_result(&initial, &expected, &new);
        // 0 vs -0 and -0 vs 0 keep their values; NaN and infinity swap; 1.0 vs 1.5 keeps.
        let swapped: Vec<bool> = (0..5).map(|i| after[i].to_bits() == new[i].to_bits()).collect();
        if swapped != [false, false, true, true, false] {
            return Err(format!("swaps {swapped:?}").into());
        }
        Ok(())
    }));
}

/// `check_serial` passes the olds of a serial run in a shuffled order and fails each kind of
/// corruption: a lost update (two threads see one value), a wrong final value, an old value
/// the target never held.
fn serial_checker<T: Num>(op: Op) -> Check {
    let n = 300;
    let (initial, values) = op.case::<T>(n);
    let order: Vec<usize> = {
        let mut o: Vec<usize> = (0..n).collect();
        o.sort_by_key(|&i| mix(i as u64));
        o
    };
    let mut olds = vec![initial; n];
    let mut x = initial;
    for &g in &order {
        olds[g] = x;
        x = op.step(x, values[g]);
    }
    let what = format!("{op:?} on {}", T::NAME);
    op.check_serial(initial, &values, &olds, x).map_err(|e| format!("{what}: a serial run was rejected: {e:?}"))?;
    let rejected = |case: &str, olds: &[T], last: T| -> Check {
        match op.check_serial(initial, &values, olds, last) {
            Ok(()) => Err(format!("{what}: {case} was accepted").into()),
            Err(_) => Ok(()),
        }
    };
    rejected("a wrong final value", &olds, initial)?;
    if matches!(op, Op::Add | Op::Exchange) {
        let mut lost = olds.clone();
        lost[order[n - 1]] = olds[order[n - 2]];
        rejected("a lost update", &lost, x)?;
    } else {
        let first: Vec<T> = olds.iter().map(|&o| if o.bits() == initial.bits() { x } else { o }).collect();
        rejected("no thread seeing the initial value", &first, x)?;
    }
    let mut never = olds.clone();
    never[order[n / 2]] = T::of(-99_999);
    rejected("an old value never held", &never, x)
}
