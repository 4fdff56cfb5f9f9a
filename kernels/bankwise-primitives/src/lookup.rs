//! The typed lookup of the entries instantiated per operation and element type (host forms
//! only): a host reaches `atomic_min_i64` as `<i64 as Atomic>::atomic(AtomicOp::Min)` and
//! `shfl_xor_pair` as `<Pair as Shuffled>::shuffle(ShuffleKind::Xor)`, each a
//! [`KernelEntry`] whose launches the compiler checks, instead of by a name built at run time.
//! The fixed entries (`thread_indices`, `copy_v4`, …) are reached by their own constants.

use bankwise_device::KernelEntry;

use crate::*;

/// `atomic_<op>_<t>`: `(target, olds, values, n, scope)`.
pub type AtomicParams<T> = (*mut T, *mut T, *const T, u32, u32);
/// `red_<op>_<t>`: `(target, values, n, scope)`.
pub type RedParams<T> = (*mut T, *const T, u32, u32);
/// `atomic_cas_<t>`: `(target, olds, expected, new, n, scope)`.
pub type CasParams<T> = (*mut T, *mut T, *const T, *const T, u32, u32);
/// `atomic_cas_increment_<t>`: `(counter, n, scope)`.
pub type CasIncrementParams<T> = (*mut T, u32, u32);
/// `shared_atomic_<op>_<t>`: `(result, olds, values, initial)`.
pub type SharedAtomicParams<T> = (*mut T, *mut T, *const T, T);
/// `shared_atomic_cas_<t>`: `(result, olds, initial, expected, new)`.
pub type SharedCasParams<T> = (*mut T, *mut T, *const T, *const T, *const T);
/// `shared_cas_increment_<t>`: `(result,)`.
pub type SharedCasIncrementParams<T> = (*mut T,);
/// `shfl_<kind>_<t>`: `(out, arg)`.
pub type ShuffleParams<T> = (*mut T, u32);
/// The copies (`copy_v4`, `copy_u64_nc`, …): `(dst, src, n)`.
pub type CopyParams<T> = (*mut T, *const T, u64);

/// An atomic read-modify-write operation, as the atomic entries are instantiated for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic::add`, `red_add`, `Shared::atomic_add`.
    Add,
    /// `atomic::exchange`, `Shared::atomic_exchange` (no `red` form).
    Exchange,
    /// `atomic::min`, `red_min`, `Shared::atomic_min` (integers only).
    Min,
    /// `atomic::max`, `red_max`, `Shared::atomic_max` (integers only).
    Max,
}

impl AtomicOp {
    /// Every operation.
    pub const ALL: [AtomicOp; 4] = [AtomicOp::Add, AtomicOp::Exchange, AtomicOp::Min, AtomicOp::Max];

    /// The operation's part of its entries' names (`add` in `atomic_add_u32`).
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Exchange => "exchange",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
        }
    }
}

/// An element type of the atomic entries, with the entries instantiated for it.
pub trait Atomic: Copy + 'static {
    /// `atomic_<op>_<t>`, where instantiated (min and max: integers only).
    fn atomic(op: AtomicOp) -> Option<KernelEntry<AtomicParams<Self>>>;
    /// `red_<op>_<t>`, where instantiated (no exchange; min and max: integers only).
    fn red(op: AtomicOp) -> Option<KernelEntry<RedParams<Self>>>;
    /// `shared_atomic_<op>_<t>`, where instantiated (min and max: integers only).
    fn shared_atomic(op: AtomicOp) -> Option<KernelEntry<SharedAtomicParams<Self>>>;
    /// `atomic_cas_<t>`.
    const CAS: KernelEntry<CasParams<Self>>;
    /// `atomic_cas_increment_<t>`.
    const CAS_INCREMENT: KernelEntry<CasIncrementParams<Self>>;
    /// `shared_atomic_cas_<t>`.
    const SHARED_CAS: KernelEntry<SharedCasParams<Self>>;
    /// `shared_cas_increment_<t>`.
    const SHARED_CAS_INCREMENT: KernelEntry<SharedCasIncrementParams<Self>>;
}

/// Implements [`Atomic`] for each type from its entries, listed per operation.
macro_rules! atomic_types {
    ($($t:ty {
        atomic: $($aop:ident => $atomic:ident),+;
        red: $($rop:ident => $red:ident),+;
        shared: $($sop:ident => $shared:ident),+;
        cas: $cas:ident, $inc:ident, $shared_cas:ident, $shared_inc:ident;
    })+) => {$(
        impl Atomic for $t {
            fn atomic(op: AtomicOp) -> Option<KernelEntry<AtomicParams<Self>>> {
                #[allow(unreachable_patterns)] // every operation, for the integers
                match op {
                    $(AtomicOp::$aop => Some($atomic),)+
                    _ => None,
                }
            }
            fn red(op: AtomicOp) -> Option<KernelEntry<RedParams<Self>>> {
                match op {
                    $(AtomicOp::$rop => Some($red),)+
                    _ => None,
                }
            }
            fn shared_atomic(op: AtomicOp) -> Option<KernelEntry<SharedAtomicParams<Self>>> {
                #[allow(unreachable_patterns)] // every operation, for the integers
                match op {
                    $(AtomicOp::$sop => Some($shared),)+
                    _ => None,
                }
            }
            const CAS: KernelEntry<CasParams<Self>> = $cas;
            const CAS_INCREMENT: KernelEntry<CasIncrementParams<Self>> = $inc;
            const SHARED_CAS: KernelEntry<SharedCasParams<Self>> = $shared_cas;
            const SHARED_CAS_INCREMENT: KernelEntry<SharedCasIncrementParams<Self>> = $shared_inc;
        }
    )+};
}

atomic_types! {
    u32 {
        atomic: Add => atomic_add_u32, Exchange => atomic_exchange_u32, Min => atomic_min_u32, Max => atomic_max_u32;
        red: Add => red_add_u32, Min => red_min_u32, Max => red_max_u32;
        shared: Add => shared_atomic_add_u32, Exchange => shared_atomic_exchange_u32, Min => shared_atomic_min_u32,
            Max => shared_atomic_max_u32;
        cas: atomic_cas_u32, atomic_cas_increment_u32, shared_atomic_cas_u32, shared_cas_increment_u32;
    }
    i32 {
        atomic: Add => atomic_add_i32, Exchange => atomic_exchange_i32, Min => atomic_min_i32, Max => atomic_max_i32;
        red: Add => red_add_i32, Min => red_min_i32, Max => red_max_i32;
        shared: Add => shared_atomic_add_i32, Exchange => shared_atomic_exchange_i32, Min => shared_atomic_min_i32,
            Max => shared_atomic_max_i32;
        cas: atomic_cas_i32, atomic_cas_increment_i32, shared_atomic_cas_i32, shared_cas_increment_i32;
    }
    u64 {
        atomic: Add => atomic_add_u64, Exchange => atomic_exchange_u64, Min => atomic_min_u64, Max => atomic_max_u64;
        red: Add => red_add_u64, Min => red_min_u64, Max => red_max_u64;
        shared: Add => shared_atomic_add_u64, Exchange => shared_atomic_exchange_u64, Min => shared_atomic_min_u64,
            Max => shared_atomic_max_u64;
        cas: atomic_cas_u64, atomic_cas_increment_u64, shared_atomic_cas_u64, shared_cas_increment_u64;
    }
    i64 {
        atomic: Add => atomic_add_i64, Exchange => atomic_exchange_i64, Min => atomic_min_i64, Max => atomic_max_i64;
        red: Add => red_add_i64, Min => red_min_i64, Max => red_max_i64;
        shared: Add => shared_atomic_add_i64, Exchange => shared_atomic_exchange_i64, Min => shared_atomic_min_i64,
            Max => shared_atomic_max_i64;
        cas: atomic_cas_i64, atomic_cas_increment_i64, shared_atomic_cas_i64, shared_cas_increment_i64;
    }
    f32 {
        atomic: Add => atomic_add_f32, Exchange => atomic_exchange_f32;
        red: Add => red_add_f32;
        shared: Add => shared_atomic_add_f32, Exchange => shared_atomic_exchange_f32;
        cas: atomic_cas_f32, atomic_cas_increment_f32, shared_atomic_cas_f32, shared_cas_increment_f32;
    }
    f64 {
        atomic: Add => atomic_add_f64, Exchange => atomic_exchange_f64;
        red: Add => red_add_f64;
        shared: Add => shared_atomic_add_f64, Exchange => shared_atomic_exchange_f64;
        cas: atomic_cas_f64, atomic_cas_increment_f64, shared_atomic_cas_f64, shared_cas_increment_f64;
    }
}

/// A warp shuffle, as the shuffle entries are instantiated for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleKind {
    /// `shfl_down`: from lane `l + arg`.
    Down,
    /// `shfl_up`: from lane `l − arg`.
    Up,
    /// `shfl_xor`: from lane `l ^ arg`.
    Xor,
    /// `shfl_idx`: from lane `arg`.
    Idx,
}

impl ShuffleKind {
    /// Every kind.
    pub const ALL: [ShuffleKind; 4] = [ShuffleKind::Down, ShuffleKind::Up, ShuffleKind::Xor, ShuffleKind::Idx];

    /// The kind's part of its entries' names (`down` in `shfl_down_u32`).
    pub fn name(self) -> &'static str {
        match self {
            ShuffleKind::Down => "down",
            ShuffleKind::Up => "up",
            ShuffleKind::Xor => "xor",
            ShuffleKind::Idx => "idx",
        }
    }
}

/// A type the shuffle entries are instantiated for.
pub trait Shuffled: Sample + 'static {
    /// `shfl_<kind>_<t>`.
    fn shuffle(kind: ShuffleKind) -> KernelEntry<ShuffleParams<Self>>;
}

/// Implements [`Shuffled`] for each type from its four entries.
macro_rules! shuffled_types {
    ($($t:ty: $down:ident, $up:ident, $xor:ident, $idx:ident;)+) => {$(
        impl Shuffled for $t {
            fn shuffle(kind: ShuffleKind) -> KernelEntry<ShuffleParams<Self>> {
                match kind {
                    ShuffleKind::Down => $down,
                    ShuffleKind::Up => $up,
                    ShuffleKind::Xor => $xor,
                    ShuffleKind::Idx => $idx,
                }
            }
        }
    )+};
}

shuffled_types! {
    u32: shfl_down_u32, shfl_up_u32, shfl_xor_u32, shfl_idx_u32;
    u64: shfl_down_u64, shfl_up_u64, shfl_xor_u64, shfl_idx_u64;
    f64: shfl_down_f64, shfl_up_f64, shfl_xor_f64, shfl_idx_f64;
    Pair: shfl_down_pair, shfl_up_pair, shfl_xor_pair, shfl_idx_pair;
}
