//! Half-precision storage for the axis reductions: [`Bf16`] and [`F16`] hold the bits of the
//! host's `half::bf16` and `half::f16` (the same size and alignment), and convert to and from
//! `f32`, the type the reductions accumulate in ([`Stored`]).
//!
//! The conversions are integer code, the same on the GPU and in the emulator, written after
//! the `half` crate's portable fallbacks (MIT/Apache-2.0) and rounding to nearest, ties to
//! even, as they do: `bf16` ↔ `f32` is a shift (plus the rounding), `f16` ↔ `f32` a few
//! dozen integer instructions per element.

use bankwise_device::Plain;

use crate::reduce::Element;

/// An element an axis reduction reads into, and writes from, its accumulator `A`: every type
/// is its own accumulator (the identity below); half precision accumulates in `f32`.
pub trait Stored<A: Element>: Element {
    /// Rows a column thread of the axis reductions loads before folding them
    /// (`reduce_axes::reduce_columns`): [`COLUMN_UNROLL`](crate::reduce_axes::COLUMN_UNROLL),
    /// four 16-byte loads in flight.
    const COLUMN_UNROLL: usize = crate::reduce_axes::COLUMN_UNROLL as usize;
    /// The value as the accumulator (exact).
    fn widen(self) -> A;
    /// The accumulator rounded to this type (to nearest, ties to even).
    fn narrow(a: A) -> Self;
}

impl<T: Element> Stored<T> for T {
    #[inline(always)]
    fn widen(self) -> T {
        self
    }
    #[inline(always)]
    fn narrow(a: T) -> T {
        a
    }
}

/// The bits of a bfloat16 (`half::bf16` on the host): 1 sign, 8 exponent, 7 fraction bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bf16(pub u16);

/// The bits of an IEEE binary16 (`half::f16` on the host): 1 sign, 5 exponent, 10 fraction
/// bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct F16(pub u16);

// SAFETY: a `u16` each, `#[repr(transparent)]`: no padding, every bit pattern valid.
unsafe impl Plain for Bf16 {}
// SAFETY: as for `Bf16`.
unsafe impl Plain for F16 {}

impl Stored<f32> for Bf16 {
    /// Eight: its column kernels hold three blocks per SM (`reduce_axes::column_blocks_per_sm`),
    /// not four, and a widening is a shift, so eight rows' raw vectors fit its 80 registers. Not
    /// `F16`, whose widening's integer code spilled at eight (188 bytes at 80 registers).
    const COLUMN_UNROLL: usize = 8;
    #[inline(always)]
    fn widen(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
    #[inline(always)]
    fn narrow(a: f32) -> Bf16 {
        let x = a.to_bits();
        if x & 0x7FFF_FFFF > 0x7F80_0000 {
            // NaN: kept quiet, its top payload bits kept.
            return Bf16(((x >> 16) | 0x0040) as u16);
        }
        let round = 0x8000u32;
        let up = (x & round) != 0 && (x & (3 * round - 1)) != 0;
        Bf16(((x >> 16) + up as u32) as u16)
    }
}

impl Stored<f32> for F16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        let i = self.0 as u32;
        if i & 0x7FFF == 0 {
            return f32::from_bits(i << 16);
        }
        let sign = (i & 0x8000) << 16;
        let (exp, man) = (i & 0x7C00, i & 0x03FF);
        if exp == 0x7C00 {
            // Infinity, or NaN (quiet, payload kept).
            let nan = if man == 0 { 0 } else { 0x0040_0000 | (man << 13) };
            return f32::from_bits(sign | 0x7F80_0000 | nan);
        }
        if exp == 0 {
            // Subnormal: normalise (`man` is not 0 here).
            let e = (man as u16).leading_zeros() - 6;
            return f32::from_bits(sign | ((127 - 15 - e) << 23) | ((man << (14 + e)) & 0x007F_FFFF));
        }
        f32::from_bits(sign | (((exp >> 10) + 127 - 15) << 23) | (man << 13))
    }
    #[inline(always)]
    fn narrow(a: f32) -> F16 {
        let x = a.to_bits();
        let (sign, exp, man) = ((x & 0x8000_0000) >> 16, x & 0x7F80_0000, x & 0x007F_FFFF);
        if exp == 0x7F80_0000 {
            let nan = if man == 0 { 0 } else { 0x0200 };
            return F16((sign | 0x7C00 | nan | (man >> 13)) as u16);
        }
        let half_exp = ((exp >> 23) as i32) - 127 + 15;
        if half_exp >= 0x1F {
            return F16((sign | 0x7C00) as u16);
        }
        if half_exp <= 0 {
            if 14 - half_exp > 24 {
                return F16(sign as u16);
            }
            let man = man | 0x0080_0000;
            let shift = (14 - half_exp) as u32;
            let round = 1u32 << (shift - 1);
            let up = (man & round) != 0 && (man & (3 * round - 1)) != 0;
            return F16((sign | ((man >> shift) + up as u32)) as u16);
        }
        let bits = sign | ((half_exp as u32) << 10) | (man >> 13);
        let round = 0x1000u32;
        let up = (man & round) != 0 && (man & (3 * round - 1)) != 0;
        F16((bits + up as u32) as u16)
    }
}
