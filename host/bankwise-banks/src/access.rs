//! What a warp asks of shared memory: each lane's access [`Width`], which instruction it runs
//! ([`Op`]: loads, stores, matrix loads and stores), and the [`Access`] itself (one byte address
//! per lane, `None` for an inactive lane).

use crate::BankError;

/// Number of lanes an [`Access`] can describe: one warp.
pub const MAX_LANES: usize = 32;

/// Size of each lane's access, as in `LDS.U8` / `LDS.U16` / `LDS` / `LDS.64` / `LDS.128`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// 1 byte (`char`).
    B1,
    /// 2 bytes (`short`, `half`).
    B2,
    /// 4 bytes (`float`, `int`).
    B4,
    /// 8 bytes (`double`, `float2`), LDS.64.
    B8,
    /// 16 bytes (`float4`, `uint4`), LDS.128.
    B16,
}

impl Width {
    /// Size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Width::B1 => 1,
            Width::B2 => 2,
            Width::B4 => 4,
            Width::B8 => 8,
            Width::B16 => 16,
        }
    }

    /// The width of `bytes` bytes, if it is one of 1, 2, 4, 8, 16.
    pub const fn from_bytes(bytes: u32) -> Option<Width> {
        match bytes {
            1 => Some(Width::B1),
            2 => Some(Width::B2),
            4 => Some(Width::B4),
            8 => Some(Width::B8),
            16 => Some(Width::B16),
            _ => None,
        }
    }
}

/// Which instruction a warp runs on shared memory. For `LDS`/`STS` it matters only for 8- and
/// 16-byte accesses: the half- or quarter-warps of a *load* merge under the conditions of the
/// article "Bank conflicts and vectorized memory access in CUDA" ("Cuda 中的bank conflict 和
/// 向量化访存"), those of a store never do (measured on an H100 with Nsight Compute:
/// `docs/banks.md`). The matrix instructions (`ldmatrix`, `stmatrix`) move 8×8 matrices of
/// 16-byte rows, one matrix per phase: see [`Access::matrices`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Op {
    /// `LDS*`.
    #[default]
    Load,
    /// `STS*`.
    Store,
    /// `ldmatrix` (`LDSM`, sm_75 on), its `.m8n8.b16` forms: lanes `8k … 8k + 7` give the
    /// 16-byte rows of matrix `k`.
    LoadMatrix,
    /// `stmatrix` (`STSM`, sm_90 on): addressed as [`Op::LoadMatrix`].
    StoreMatrix,
}

impl Op {
    /// `LDS` and `STS`, in table order: the instructions the probes measure.
    pub const ALL: [Op; 2] = [Op::Load, Op::Store];

    /// Whether this is a matrix instruction (`ldmatrix`, `stmatrix`).
    pub const fn is_matrix(self) -> bool {
        matches!(self, Op::LoadMatrix | Op::StoreMatrix)
    }

    /// Whether it writes shared memory.
    pub const fn is_store(self) -> bool {
        matches!(self, Op::Store | Op::StoreMatrix)
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Load => "load",
            Op::Store => "store",
            Op::LoadMatrix => "ldmatrix",
            Op::StoreMatrix => "stmatrix",
        })
    }
}

/// One warp-wide shared-memory access: which byte address each lane touches (`None` =
/// inactive), how wide, and whether it loads or stores.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Access {
    /// Bytes per lane.
    pub width: Width,
    /// Byte address per lane; `None` for inactive lanes.
    pub addresses: [Option<u64>; MAX_LANES],
    /// Load or store.
    pub op: Op,
}

impl Access {
    /// Lanes set in `active_mask` read address `f(lane)`.
    pub fn from_fn(width: Width, active_mask: u32, f: impl Fn(u32) -> u64) -> Access {
        let addresses = std::array::from_fn(|i| {
            let lane = i as u32;
            (active_mask >> lane & 1 == 1).then(|| f(lane))
        });
        Access { width, addresses, op: Op::Load }
    }

    /// The same addresses, loaded or stored.
    pub fn with_op(mut self, op: Op) -> Access {
        self.op = op;
        self
    }

    /// All 32 lanes active; lane `i` reads element `i * stride_elems` of an array of `width`-sized
    /// elements starting at `base_bytes` (address arithmetic wraps rather than panicking).
    pub fn strided(width: Width, base_bytes: u64, stride_elems: u64) -> Access {
        let elem = u64::from(width.bytes());
        Access::from_fn(width, u32::MAX, |i| {
            base_bytes.wrapping_add(u64::from(i).wrapping_mul(stride_elems).wrapping_mul(elem))
        })
    }

    /// An `ldmatrix` (or, with [`Access::with_op`], `stmatrix`) of `count` 8×8 matrices of 2-byte
    /// elements (`.m8n8.b16`; 1, 2 or 4: `.x1`, `.x2`, `.x4`), each row 16 bytes: lane `8k + r`
    /// gives the byte address of row `r` of matrix `k`, `row(k, r)`; the model reads no other
    /// lane's address (PTX asks every lane for a valid one on sm_75 and earlier). `.trans`
    /// moves the same rows (it transposes in the registers), so it is the same access. The 8-bit
    /// forms of later GPUs (`.m16n16.b8`, …) map lanes to rows otherwise and are not modelled.
    ///
    /// Errors: [`BankError::BadMatrixAccess`] for a `count` other than 1, 2 or 4.
    pub fn matrices(count: u32, row: impl Fn(u32, u32) -> u64) -> Result<Access, BankError> {
        if !matches!(count, 1 | 2 | 4) {
            return Err(BankError::BadMatrixAccess("ldmatrix and stmatrix move 1, 2 or 4 matrices"));
        }
        let active = if count == 4 { u32::MAX } else { (1 << (8 * count)) - 1 };
        Ok(Access::from_fn(Width::B16, active, |lane| row(lane / 8, lane % 8)).with_op(Op::LoadMatrix))
    }

    /// Deactivates the lanes not set in `mask` (lanes already inactive stay inactive).
    pub fn with_mask(mut self, mask: u32) -> Access {
        for (lane, a) in self.addresses.iter_mut().enumerate() {
            if mask >> lane & 1 == 0 {
                *a = None;
            }
        }
        self
    }

    /// Bit `i` set iff lane `i` is active.
    pub fn active_mask(&self) -> u32 {
        self.addresses.iter().enumerate().filter(|(_, a)| a.is_some()).fold(0, |m, (i, _)| m | 1 << i)
    }

    /// Number of active lanes.
    pub fn active_lanes(&self) -> u32 {
        self.active_mask().count_ones()
    }
}
