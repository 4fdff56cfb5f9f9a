//! The catalogue: the worked examples of the source articles (strides, broadcasts, the 1.x
//! half-warp cases, the LDS.64 and LDS.128 merge cases), of the transpose tiles, and of
//! `ldmatrix`/`stmatrix` reading a tensor-core fragment from row-major, padded and swizzled
//! tiles, each a [`NamedPattern`] with the cost the model must give it.

use bankwise_layout::swizzle::{RowLayout, TmaSwizzle};

use crate::{Access, BankError, Geometry, Op, Width};

/// A documented access pattern with its expected cost, used by tests and examples.
#[derive(Debug, Clone)]
pub struct NamedPattern {
    /// Short identifier, e.g. `"column"`.
    pub name: &'static str,
    /// What the kernel does and why it costs what it costs.
    pub description: &'static str,
    /// The access.
    pub access: Access,
    /// The machine.
    pub geometry: Geometry,
    /// Wavefronts (best case on 1.x).
    pub expected_wavefronts: u32,
    /// Transactions after splitting and merging.
    pub expected_transactions: u32,
}

/// The worked examples of the source material, each with its expected cost.
pub fn named_patterns() -> Vec<NamedPattern> {
    let m = Geometry::MODERN;
    let h = Geometry::HALF_WARP_16;
    let p = |name, description, access, geometry, expected_wavefronts, expected_transactions| NamedPattern {
        name,
        description,
        access,
        geometry,
        expected_wavefronts,
        expected_transactions,
    };
    let all = u32::MAX;
    let mut out = vec![
        p("stride-1", "float x = s[tid]: one word per bank", Access::strided(Width::B4, 0, 1), m, 1, 1),
        p("stride-2", "float x = s[2*tid]: two lanes per bank, 2-way", Access::strided(Width::B4, 0, 2), m, 2, 1),
        p("row", "mem[tid]: consecutive words, conflict-free", Access::strided(Width::B4, 0, 1), m, 1, 1),
        p("column", "mem[32*tid]: every lane in bank 0, 32-way", Access::strided(Width::B4, 0, 32), m, 32, 1),
        p(
            "half-warp-base-tid",
            "16 banks: data[base+tid], one wavefront per half-warp",
            Access::strided(Width::B4, 4 * 5, 1),
            h,
            2,
            2,
        ),
        p(
            "half-warp-stride-4",
            "16 banks: data[base+4*tid], 4 lanes per bank per half-warp, 4-way",
            Access::strided(Width::B4, 4 * 5, 4),
            h,
            8,
            2,
        ),
        p(
            "half-warp-broadcast",
            "16 banks: data[3] in every lane, one broadcast per half-warp",
            Access::strided(Width::B4, 4 * 3, 0),
            h,
            2,
            2,
        ),
        p(
            "half-warp-stride-16",
            "16 banks: data[16*tid], every lane of a half-warp in bank 0, 16-way",
            Access::strided(Width::B4, 0, 16),
            h,
            32,
            2,
        ),
        p(
            "half-warp-padded-17",
            "16 banks: data[17*tid] after padding rows to 17, conflict-free",
            Access::strided(Width::B4, 0, 17),
            h,
            2,
            2,
        ),
        p(
            "half-warp-bank5-broadcast",
            "16 banks, one half-warp: lanes 5-9 read one word of bank 5, the others distinct banks; \
             1 cycle if that word is the broadcast, 2 otherwise",
            half_warp_bank5(),
            h,
            1,
            1,
        ),
        p(
            "lds64-case1",
            "LDS.64: lane i reads uint2 i; no merge, one transaction per half-warp",
            Access::from_fn(Width::B8, all, |i| 8 * u64::from(i)),
            m,
            2,
            2,
        ),
        p(
            "lds64-case2",
            "LDS.64: lanes 2k and 2k+1 read uint2 k; condition A merges the warp into one transaction",
            Access::from_fn(Width::B8, all, |i| 8 * u64::from(i / 2)),
            m,
            1,
            1,
        ),
        p(
            "lds128-case1",
            "LDS.128: only quarter-warps 0 and 2 active, consecutive uint4s; one transaction per half-warp",
            Access::from_fn(Width::B16, 0x00FF_00FF, |i| 16 * u64::from(if i < 16 { i } else { i - 8 })),
            m,
            2,
            2,
        ),
        p(
            "lds128-case2",
            "LDS.128: even lanes of half-warp 0 read uint4 0..7; odd lanes inactive, so condition A \
             merges both quarter-warps",
            Access::from_fn(Width::B16, 0x5555, |i| 16 * u64::from(i / 2)),
            m,
            1,
            1,
        ),
        p(
            "lds128-case3",
            "LDS.128: lanes 2k and 2k+1 read uint4 k; condition A merges quarter-warps within each half-warp",
            Access::from_fn(Width::B16, all, |i| 16 * u64::from(i / 2)),
            m,
            2,
            2,
        ),
        p(
            "lds128-case4",
            "LDS.128: half-warp 0 pairs lanes i, i^1; half-warp 1 pairs i, i^2; neither condition holds \
             over the whole warp, so four quarter-warp transactions",
            Access::from_fn(Width::B16, all, lds128_case4),
            m,
            4,
            4,
        ),
        p(
            "lds128-case5",
            "LDS.128: lanes 0-3 read uint4 0, 4-7 uint4 8, 8-11 uint4 1, 12-15 uint4 9 (and 2, 10, 3, 11 in \
             half-warp 1); merged, but uint4 n and n+8 share banks: 2-way per half-warp",
            Access::from_fn(Width::B16, all, lds128_case5),
            m,
            4,
            2,
        ),
        p(
            "transpose-tile-column",
            "float tile[32][32]; tile[tid][c]: a column, all lanes in one bank, 32-way",
            Access::from_fn(Width::B4, all, |i| 4 * (32 * u64::from(i) + 3)),
            m,
            32,
            1,
        ),
        p(
            "transpose-padded-column",
            "float tile[32][33]; tile[tid][c]: pitch 33 puts lane i in bank i + c, conflict-free",
            Access::from_fn(Width::B4, all, |i| 4 * (33 * u64::from(i) + 3)),
            m,
            1,
            1,
        ),
        p(
            "transpose-f64-column",
            "double tile[32][32]; tile[tid][c]: each half-warp hits banks 2c, 2c+1 only, 16-way",
            Access::from_fn(Width::B8, all, |i| 8 * (32 * u64::from(i) + 3)),
            m,
            32,
            2,
        ),
        p(
            "transpose-f64-padded-column",
            "double tile[32][33]; tile[tid][c]: within a half-warp lane i uses banks 2(i+c), 2(i+c)+1, \
             all distinct; two transactions because 256 bytes are read, but no conflict",
            Access::from_fn(Width::B8, all, |i| 8 * (33 * u64::from(i) + 3)),
            m,
            2,
            2,
        ),
        p(
            "bytes-one-word",
            "char c = s[tid]: four lanes per word, 8 words, one wavefront",
            Access::strided(Width::B1, 0, 1),
            m,
            1,
            1,
        ),
    ];
    out.extend(matrix_patterns());
    out
}

/// `ldmatrix.x4` (`.m8n8.b16`) of the 16×16 block of 2-byte elements (an `mma.sync` A
/// fragment) at the top left of a tile of `row_bytes`-byte rows laid out by `layout`: matrix
/// `k` holds rows `8·(k % 2) …` and columns `8·(k / 2) …`, so each of its eight row addresses
/// is 16 bytes of one row.
///
/// Errors: [`BankError::BadMatrixAccess`] where `row_bytes` is not a multiple of 16 of at
/// least 32 (the block's two 16-byte pieces a row), padding is not a multiple of 16, or the
/// block's 16 rows do not fit in a block's shared memory (227 KiB on compute capability 9.0).
pub fn ldmatrix_fragment(layout: RowLayout, row_bytes: u64) -> Result<Access, BankError> {
    if row_bytes < 32 || !row_bytes.is_multiple_of(16) {
        return Err(BankError::BadMatrixAccess("a 16 × 16 block of 2-byte elements needs rows of 32, 48, 64, … bytes"));
    }
    let pad = match layout {
        RowLayout::Padded { pad } => pad,
        _ => 0,
    };
    if !pad.is_multiple_of(16) {
        return Err(BankError::BadMatrixAccess("padding must keep every row on 16 bytes"));
    }
    let fits =
        row_bytes.checked_add(pad).and_then(|pitch| pitch.checked_mul(16)).is_some_and(|b| b <= BLOCK_SHARED_BYTES);
    if !fits {
        return Err(BankError::BadMatrixAccess("the block's 16 rows must fit in a block's shared memory (227 KiB)"));
    }
    Access::matrices(4, |k, r| layout.offset(u64::from(8 * (k % 2) + r), u64::from(16 * (k / 2)), row_bytes))
}

/// The most shared memory one block can have (227 KiB, compute capability 9.0): a bound on the
/// tiles [`ldmatrix_fragment`] describes, not the probes' limit (`bankwise_layout::probe`).
const BLOCK_SHARED_BYTES: u64 = 227 * 1024;

/// The named `ldmatrix`/`stmatrix` patterns, [`ldmatrix_fragment`]s: rows of 128 bytes put all
/// eight rows of a matrix in one group of four banks (8 wavefronts a matrix); 16 bytes of
/// padding per row, or TMA's 128-byte swizzle, spread them over all 32 (1 each: 4 in all, the
/// floor). Narrower rows repeat every 2 (64 B) or 4 (32 B) rows, 4- or 2-way, and their own
/// swizzle modes fix them.
fn matrix_patterns() -> Vec<NamedPattern> {
    let fragment = |layout, row_bytes| ldmatrix_fragment(layout, row_bytes).expect("rows of at least 32 bytes");
    let swizzled = |mode: TmaSwizzle| RowLayout::Swizzled(mode.swizzle().expect("a swizzle mode"));
    let m = Geometry::MODERN;
    let p = |name, description, access, expected_wavefronts| NamedPattern {
        name,
        description,
        access,
        geometry: m,
        expected_wavefronts,
        expected_transactions: 4,
    };
    // ldmatrix.x4 of the block: (name, description, layout, row bytes, wavefronts).
    let x4 = [
        (
            "ldmatrix-row-major-128B",
            "ldmatrix.x4 from a row-major tile of 128-byte rows: each matrix's 8 rows in the same 4 banks, 8-way",
            RowLayout::RowMajor,
            128,
            32,
        ),
        (
            "ldmatrix-padded-128B",
            "ldmatrix.x4, 128-byte rows padded by 16 bytes: row r starts 4r banks on, conflict-free",
            RowLayout::Padded { pad: 16 },
            128,
            4,
        ),
        (
            "ldmatrix-swizzled-128B",
            "ldmatrix.x4, 128-byte rows in TMA's 128-byte swizzle (Swizzle<3,4,3> on bytes): conflict-free",
            swizzled(TmaSwizzle::B128),
            128,
            4,
        ),
        (
            "ldmatrix-row-major-64B",
            "ldmatrix.x4 from 64-byte rows: rows r and r+2 share banks, 4-way",
            RowLayout::RowMajor,
            64,
            16,
        ),
        (
            "ldmatrix-swizzled-64B",
            "ldmatrix.x4, 64-byte rows in TMA's 64-byte swizzle (Swizzle<2,4,3>): conflict-free",
            swizzled(TmaSwizzle::B64),
            64,
            4,
        ),
        (
            "ldmatrix-row-major-32B",
            "ldmatrix.x4 from 32-byte rows: rows r and r+4 share banks, 2-way",
            RowLayout::RowMajor,
            32,
            8,
        ),
        (
            "ldmatrix-swizzled-32B",
            "ldmatrix.x4, 32-byte rows in TMA's 32-byte swizzle (Swizzle<1,4,3>): conflict-free",
            swizzled(TmaSwizzle::B32),
            32,
            4,
        ),
    ];
    let mut out: Vec<NamedPattern> = x4
        .into_iter()
        .map(|(name, description, layout, row_bytes, wavefronts)| {
            p(name, description, fragment(layout, row_bytes), wavefronts)
        })
        .collect();
    out.extend([
        p(
            "stmatrix-row-major-128B",
            "stmatrix.x4 into 128-byte rows: addressed as ldmatrix, the same 8-way conflict",
            fragment(RowLayout::RowMajor, 128).with_op(Op::StoreMatrix),
            32,
        ),
        NamedPattern {
            name: "ldmatrix-x1-row-major-128B",
            description: "ldmatrix.x1 (lanes 0-7 give the rows) from 128-byte rows: one matrix, 8-way",
            access: Access::matrices(1, |_, r| 128 * u64::from(r)).expect("one matrix"),
            geometry: m,
            expected_wavefronts: 8,
            expected_transactions: 1,
        },
    ]);
    out
}

/// The article "The CUDA Programming Guide on shared memory bank conflicts" ("CUDA Programming
/// Guide之shared memory的Bank Confict"; from the CUDA 2.0 guide's Figure 5-8, right): lanes 5-9 read the same word of bank 5; lanes
/// 0-4 and 10-15 read one word each in their own bank; the other half-warp is inactive.
pub(crate) fn half_warp_bank5() -> Access {
    Access::from_fn(Width::B4, 0xFFFF, |i| match i {
        5..=9 => 4 * (16 + 5),
        0..=4 => 4 * u64::from(i),
        _ => 4 * (32 + u64::from(i)),
    })
}

/// Half-warp 0: lanes i and i^1 share uint4 i/2 (condition A holds there). Half-warp 1: lanes
/// i and i^2 share a uint4 (condition B holds there), numbered 8..15.
fn lds128_case4(i: u32) -> u64 {
    let index = if i < 16 {
        i / 2
    } else {
        let j = i - 16;
        8 + ((j >> 2) << 1 | (j & 1))
    };
    16 * u64::from(index)
}

/// Case 5 of "Bank conflicts and vectorized memory access in CUDA" ("Cuda 中的bank conflict 和
/// 向量化访存"): quarter-warp q, its first four lanes read uint4 q, its last four uint4 q+8
/// (one 128-byte row further down, hence the same banks).
fn lds128_case5(i: u32) -> u64 {
    let quarter = i / 8;
    let second_row = (i % 8) / 4;
    16 * u64::from(quarter + 8 * second_row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render_text;
    use crate::testing::run;

    #[test]
    fn named_patterns_match_expectations() {
        let patterns = named_patterns();
        for p in &patterns {
            let a = run(&p.access, &p.geometry);
            assert_eq!(
                a.wavefronts(),
                p.expected_wavefronts,
                "{}: wavefronts\n{}",
                p.name,
                render_text(&a, &p.geometry, false)
            );
            assert_eq!(a.transactions(), p.expected_transactions, "{}: transactions", p.name);
        }
        let mut names: Vec<_> = patterns.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), patterns.len(), "names are unique");
        for required in [
            "half-warp-bank5-broadcast",
            "column",
            "half-warp-broadcast",
            "half-warp-stride-4",
            "half-warp-padded-17",
            "lds64-case1",
            "lds64-case2",
            "lds128-case1",
            "lds128-case5",
            "transpose-tile-column",
            "transpose-padded-column",
        ] {
            assert!(names.contains(&required), "{required} missing");
        }
    }
}
