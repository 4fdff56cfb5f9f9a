//! Element types the kernels accept.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// Width classes of the kernels: each generic kernel exists once per width
/// (`transpose_naive_u8` … `_u64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// 1-byte elements.
    B1,
    /// 2-byte elements.
    B2,
    /// 4-byte elements.
    B4,
    /// 8-byte elements.
    B8,
}

impl Width {
    /// Bytes per element.
    pub const fn bytes(self) -> usize {
        match self {
            Width::B1 => 1,
            Width::B2 => 2,
            Width::B4 => 4,
            Width::B8 => 8,
        }
    }
    /// Position in per-width tables, in the order `u8`, `u16`, `u32`, `u64`.
    pub const fn index(self) -> usize {
        match self {
            Width::B1 => 0,
            Width::B2 => 1,
            Width::B4 => 2,
            Width::B8 => 3,
        }
    }
    /// The suffix of the kernel instantiated for this width.
    pub const fn suffix(self) -> &'static str {
        match self {
            Width::B1 => "u8",
            Width::B2 => "u16",
            Width::B4 => "u32",
            Width::B8 => "u64",
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A plain-old-data element the kernels can move: its bits are all that matter, so `f32`,
/// `u32` and `i32` share one kernel, and `half::f16`, `half::bf16`, `u16` and `i16` another. Sealed: the set of widths is the set of kernels.
pub trait Element:
    DeviceRepr + ValidAsZeroBits + Copy + PartialEq + std::fmt::Debug + Send + Sync + sealed::Sealed
{
    /// The kernel width of this type.
    const WIDTH: Width;
    /// The unsigned integer of this width: the element type of the kernels that move it
    /// (their typed entries: `bankwise_builtin::TransposeWord`).
    type Word: bankwise_builtin::TransposeWord + DeviceRepr;
}

macro_rules! element {
    ($($t:ty => $w:ident, $word:ty),+ $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const WIDTH: Width = Width::$w;
            type Word = $word;
        }
    )+};
}

element!(
    u8 => B1, u8, i8 => B1, u8, u16 => B2, u16, i16 => B2, u16, u32 => B4, u32, i32 => B4, u32, f32 => B4, u32,
    u64 => B8, u64, i64 => B8, u64, f64 => B8, u64,
    // Half precision moves as its 2-byte word: a copy or transpose never looks at the value.
    half::f16 => B2, u16, half::bf16 => B2, u16
);

/// `slice`'s bytes as elements of `U` (`u8`, or the 4-byte words of a row copy), for the
/// kernels that move bytes whatever they hold; `None` where they are not a whole number of
/// `U`s.
pub(crate) fn view<T: Element, U>(
    slice: bankwise_runtime::DeviceSlice<'_, T>,
) -> Option<bankwise_runtime::DeviceSlice<'_, U>> {
    // SAFETY: any bits are a valid `T` (every Element is a plain number).
    unsafe { slice.cast() }
}

/// [`view`], for a slice a kernel writes.
pub(crate) fn view_mut<T: Element, U>(
    slice: bankwise_runtime::DeviceSliceMut<'_, T>,
) -> Option<bankwise_runtime::DeviceSliceMut<'_, U>> {
    // SAFETY: as for `view`.
    unsafe { slice.cast() }
}

/// `slice`'s elements as the kernels' words of the same width ([`view`] as `T::Word`, which has
/// `T`'s size and alignment: the `element!` macro pairs them by width).
pub(crate) fn words<T: Element>(
    slice: bankwise_runtime::DeviceSlice<'_, T>,
) -> bankwise_runtime::DeviceSlice<'_, T::Word> {
    view(slice).expect("an element and its word have one size and alignment")
}

/// [`words`], for a slice a kernel writes.
pub(crate) fn words_mut<T: Element>(
    slice: bankwise_runtime::DeviceSliceMut<'_, T>,
) -> bankwise_runtime::DeviceSliceMut<'_, T::Word> {
    view_mut(slice).expect("an element and its word have one size and alignment")
}

/// The largest power of two up to 16 that divides every address (16 for none): how wide the
/// words and vectors a kernel reads of views at these addresses may be (allocations start on
/// 256 bytes; other libraries' views anywhere an element may).
pub(crate) fn address_alignment(addresses: &[u64]) -> u64 {
    addresses.iter().fold(16, |a, &p| a.min(1 << p.trailing_zeros().min(4)))
}
