//! [`BankError`]: why an access cannot be analyzed on a geometry.

/// Why a request cannot be analyzed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BankError {
    /// The hardware faults on unaligned shared-memory accesses.
    #[error("lane {lane}: address {address:#x} is not aligned to the {width}-byte access width")]
    Misaligned {
        /// Offending lane.
        lane: u32,
        /// Its byte address.
        address: u64,
        /// Access width in bytes.
        width: u32,
    },
    /// The geometry breaks an invariant (see [`Geometry::validate`](crate::Geometry::validate)).
    #[error("invalid geometry: {0}")]
    InvalidGeometry(&'static str),
    /// An active lane does not exist in the geometry's warp.
    #[error("lane {lane} is active but the warp has only {warp_lanes} lanes")]
    LaneOutOfRange {
        /// Offending lane.
        lane: u32,
        /// Lanes in the geometry's warp.
        warp_lanes: u32,
    },
    /// A matrix access (`ldmatrix`, `stmatrix`) that the instruction cannot express: rows
    /// other than 16 bytes, a count other than 1, 2 or 4.
    #[error("not a matrix access: {0}")]
    BadMatrixAccess(&'static str),
    /// The sources say nothing about how this access is served on this geometry, so the model
    /// does not guess (compute capability 1.x: wide accesses, and stores that share a word).
    #[error("not modelled: {0}")]
    NotModelled(&'static str),
}
