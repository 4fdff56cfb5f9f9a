//! Shared-memory layouts as functions of a tile's (row, column): row-major, padded rows, and
//! XOR swizzles — CUTLASS's `Swizzle<B, M, S>` and the three swizzle modes of Hopper's tensor
//! memory accelerator (TMA) — so that the bank model (`bankwise-banks`) and the tests reason
//! about the exact byte offsets a kernel uses.
//!
//! A row-major tile whose rows are a multiple of 128 bytes puts a column of 16-byte pieces in
//! one group of four banks: the eight rows of an `ldmatrix` 8×8 matrix then take 8 wavefronts
//! where 1 would do. Padding each row by 16 bytes shifts row `r` by `4r` banks; an XOR swizzle
//! instead permutes the 16-byte pieces inside each row by the row's index, so the tile stays
//! dense and every 16-byte piece stays aligned (what `ldmatrix`, `cp.async` and TMA need).

/// An XOR swizzle of offsets, CUTLASS's `Swizzle<B, M, S>` (`bits`, `base`, `shift`): the `B`
/// bits of an offset starting at bit `M + S` are XORed into the `B` bits starting at bit `M`.
/// Units are whatever the offsets count (elements in CuTe, bytes for TMA's modes); `2^M` of
/// them move together, and rows of `2^(M + S)` of them each take a different XOR pattern for
/// `2^B` rows running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: u32,
}

impl Swizzle {
    /// `Swizzle<bits, base, shift>`, where the bits read lie above those changed (`shift >=
    /// bits`, as in every swizzle CUTLASS and TMA use, so that applying it twice restores the
    /// offset) and the highest bit read is under 64 (`base + shift + bits <= 63`); `None`
    /// otherwise.
    pub const fn try_new(bits: u32, base: u32, shift: u32) -> Option<Swizzle> {
        let top = match base.checked_add(shift) {
            Some(m) => m.checked_add(bits),
            None => None,
        };
        match top {
            Some(top) if top <= 63 && shift >= bits => Some(Swizzle { bits, base, shift }),
            _ => None,
        }
    }

    /// [`Swizzle::try_new`] for constants.
    ///
    /// # Panics
    /// Where `try_new` gives `None` (at compile time, in a constant).
    pub const fn new(bits: u32, base: u32, shift: u32) -> Swizzle {
        match Swizzle::try_new(bits, base, shift) {
            Some(s) => s,
            None => panic!("Swizzle<B, M, S> needs S >= B and M + S + B <= 63"),
        }
    }

    /// `B`: how many bits are XORed (the pattern repeats every `2^B` rows).
    pub const fn bits(self) -> u32 {
        self.bits
    }

    /// `M`: the lowest bit that changes (`2^M` units move as one piece).
    pub const fn base(self) -> u32 {
        self.base
    }

    /// `S`: how far above `M` the bits read lie (a row is `2^(M + S)` units).
    pub const fn shift(self) -> u32 {
        self.shift
    }

    /// The swizzled offset: `offset ^ ((offset >> S) & (2^B − 1) << M)`. A permutation of every
    /// aligned run of `2^(M + S + B)` units, and its own inverse.
    pub const fn apply(self, offset: u64) -> u64 {
        let mask = ((1u64 << self.bits) - 1) << self.base;
        offset ^ ((offset >> self.shift) & mask)
    }

    /// Units in one period of the swizzle: `2^(M + S + B)`.
    pub const fn period(self) -> u64 {
        1 << (self.base + self.shift + self.bits)
    }
}

/// The swizzle modes of a TMA tensor map (`CU_TENSOR_MAP_SWIZZLE_*`) and of `wgmma`'s
/// shared-memory descriptors, over byte offsets: the 16-byte pieces of each span of 32, 64 or
/// 128 bytes are permuted by the bits of the offset just above a 128-byte line's (bits 7 to
/// 9). The hardware swizzles address bits, so these offsets are the hardware's only where the
/// tile starts on a multiple of 256, 512 or 1024 bytes (the modes' periods).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaSwizzle {
    /// No swizzle: row-major.
    None,
    /// 32-byte mode: `Swizzle<1, 4, 3>` on bytes.
    B32,
    /// 64-byte mode: `Swizzle<2, 4, 3>` on bytes.
    B64,
    /// 128-byte mode: `Swizzle<3, 4, 3>` on bytes.
    B128,
}

impl TmaSwizzle {
    /// All four, narrowest first.
    pub const ALL: [TmaSwizzle; 4] = [TmaSwizzle::None, TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128];

    /// The mode as a [`Swizzle`] over byte offsets (`None`: no swizzle).
    pub const fn swizzle(self) -> Option<Swizzle> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(Swizzle::new(1, 4, 3)),
            TmaSwizzle::B64 => Some(Swizzle::new(2, 4, 3)),
            TmaSwizzle::B128 => Some(Swizzle::new(3, 4, 3)),
        }
    }

    /// The byte offset of byte `offset` of a dense tile in this mode.
    pub const fn apply(self, offset: u64) -> u64 {
        match self.swizzle() {
            Some(s) => s.apply(offset),
            None => offset,
        }
    }

    /// The span whose 16-byte pieces the mode permutes: 32, 64 or 128 bytes (in these modes a
    /// box's inner dimension is at most this long); 16 for `None`, which moves no piece.
    pub const fn span_bytes(self) -> u64 {
        match self {
            TmaSwizzle::None => 16,
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }
}

/// A shared-memory tile of `row_bytes`-byte rows (the row's data; the layout may add padding)
/// laid out as a function of (row, byte within the row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowLayout {
    /// Rows back to back.
    RowMajor,
    /// Each row followed by `pad` bytes.
    Padded {
        /// Bytes of padding after each row.
        pad: u64,
    },
    /// Rows back to back, every byte offset then swizzled.
    Swizzled(Swizzle),
}

impl RowLayout {
    /// The byte offset of byte `byte` of row `row`, for rows of `row_bytes` bytes of data.
    pub const fn offset(self, row: u64, byte: u64, row_bytes: u64) -> u64 {
        match self {
            RowLayout::RowMajor => row * row_bytes + byte,
            RowLayout::Padded { pad } => row * (row_bytes + pad) + byte,
            RowLayout::Swizzled(s) => s.apply(row * row_bytes + byte),
        }
    }

    /// Bytes the tile takes for `rows` rows of `row_bytes` bytes.
    pub const fn bytes(self, rows: u64, row_bytes: u64) -> u64 {
        match self {
            RowLayout::Padded { pad } => rows * (row_bytes + pad),
            RowLayout::RowMajor | RowLayout::Swizzled(_) => rows * row_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn a_swizzle_is_its_own_inverse_and_a_permutation_of_each_period() {
        for (b, m, s) in [(1, 4, 3), (2, 4, 3), (3, 4, 3), (3, 3, 3), (3, 3, 4), (2, 0, 5), (5, 0, 5), (3, 0, 3)] {
            let sw = Swizzle::new(b, m, s);
            let period = sw.period();
            let mut seen = HashSet::new();
            for o in 0..2 * period {
                let x = sw.apply(o);
                assert_eq!(sw.apply(x), o, "Swizzle<{b},{m},{s}> is an involution");
                assert_eq!(x / period, o / period, "stays in its period");
                assert!(seen.insert(x));
                // The 2^M units of a piece move together.
                assert_eq!(x >> m, sw.apply(o & !((1 << m) - 1)) >> m);
            }
        }
    }

    #[test]
    fn tma_128_byte_mode_xors_each_rows_16_byte_pieces_with_its_row() {
        // Rows of 128 bytes: piece p of row r goes to piece p ^ (r % 8) in the 128-byte mode;
        // the 64-byte mode XORs only the low two bits of p, with r % 4.
        for r in 0..16u64 {
            for p in 0..8u64 {
                for byte in [0, 5, 15] {
                    let o = r * 128 + p * 16 + byte;
                    assert_eq!(TmaSwizzle::B128.apply(o), r * 128 + (p ^ (r % 8)) * 16 + byte);
                    assert_eq!(TmaSwizzle::B64.apply(o), r * 128 + (p ^ (r % 4)) * 16 + byte);
                }
            }
        }
        // 64-byte rows, as the 64-byte mode's boxes have: row r's pieces XOR (r / 2) % 4.
        for r in 0..8u64 {
            for p in 0..4u64 {
                assert_eq!(TmaSwizzle::B64.apply(r * 64 + p * 16), r * 64 + (p ^ ((r >> 1) & 3)) * 16);
            }
        }
        // Out of range: bits read below those changed, or past bit 63.
        assert_eq!(Swizzle::try_new(3, 4, 2), None);
        assert_eq!(Swizzle::try_new(1, 62, 1), None);
        assert_eq!(Swizzle::try_new(1, u32::MAX, 1), None);
        let s = Swizzle::try_new(3, 4, 3).expect("valid");
        assert_eq!((s.bits(), s.base(), s.shift(), s.period()), (3, 4, 3, 1024));
        assert_eq!(TmaSwizzle::ALL.map(TmaSwizzle::span_bytes), [16, 32, 64, 128]);
    }

    #[test]
    fn cute_swizzle_3_3_3_on_halves_is_the_128_byte_mode_on_bytes() {
        // CuTe's usual f16 layout (64-element rows, Swizzle<3, 3, 3> on element offsets) is
        // TMA's 128-byte mode on byte offsets.
        let halves = Swizzle::new(3, 3, 3);
        for e in 0..4096u64 {
            assert_eq!(2 * halves.apply(e), TmaSwizzle::B128.apply(2 * e));
        }
    }

    #[test]
    fn layouts_place_rows_as_described() {
        let row_bytes = 128;
        assert_eq!(RowLayout::RowMajor.offset(3, 16, row_bytes), 400);
        assert_eq!(RowLayout::Padded { pad: 16 }.offset(3, 16, row_bytes), 3 * 144 + 16);
        assert_eq!(RowLayout::Padded { pad: 16 }.bytes(64, row_bytes), 64 * 144);
        let swizzled = RowLayout::Swizzled(Swizzle::new(3, 4, 3));
        assert_eq!(swizzled.offset(3, 16, row_bytes), 3 * 128 + (1 ^ 3) * 16);
        assert_eq!(swizzled.bytes(64, row_bytes), 64 * 128);
    }
}
