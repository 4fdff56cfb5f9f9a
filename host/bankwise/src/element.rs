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
    /// Position in per-width kernel tables such as [`crate::kernels::TRANSPOSE_NAIVE`].
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
/// `u32` and `i32` share one kernel. Sealed: the set of widths is the set of kernels.
pub trait Element:
    DeviceRepr + ValidAsZeroBits + Copy + PartialEq + std::fmt::Debug + Send + Sync + sealed::Sealed
{
    /// The kernel width of this type.
    const WIDTH: Width;
}

macro_rules! element {
    ($($t:ty => $w:ident),+ $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const WIDTH: Width = Width::$w;
        }
    )+};
}

element!(u8 => B1, i8 => B1, u16 => B2, i16 => B2, u32 => B4, i32 => B4, f32 => B4, u64 => B8, i64 => B8, f64 => B8);
