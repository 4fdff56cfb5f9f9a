//! Shared-memory tile staging (the transpose ladder's building block): a 32 × 32 tile laid out
//! plain, padded or swizzled ([`TileLayout`]), written along rows and read along columns (or
//! the other way) without bank conflicts for the padded and swizzled layouts.

use bankwise_device::Plain;
use bankwise_device::shared::{SharedError, SharedSlice};
pub use bankwise_layout::transpose::{TILE, TileLayout};

/// A [`TILE`] × [`TILE`] tile of `T` at the start of the block's dynamic shared memory, laid
/// out by a [`TileLayout`]: element `(r, c)` lives at `layout.offset(r, c, size_of::<T>())`.
/// The launch needs [`SharedTile::bytes`] bytes of dynamic shared memory. A `Copy` handle over
/// [`SharedSlice`], with its accessors' contract.
pub struct SharedTile<T> {
    layout: TileLayout,
    cells: SharedSlice<T>,
}

impl<T> Clone for SharedTile<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedTile<T> {}

impl<T: Plain> SharedTile<T> {
    /// Bytes of shared memory a tile of `layout` needs.
    pub const fn bytes(layout: TileLayout) -> u32 {
        layout.tile_bytes(size_of::<T>() as u32)
    }

    /// The tile, checked against the launch's dynamic shared memory.
    #[inline(always)]
    pub fn new(layout: TileLayout) -> Result<Self, SharedError> {
        let cells = SharedSlice::new(0, (Self::bytes(layout) as usize) / size_of::<T>())?;
        Ok(SharedTile { layout, cells })
    }

    /// The tile, unchecked.
    ///
    /// # Safety
    /// Every launch of the kernel gives at least [`SharedTile::bytes`] bytes of dynamic shared
    /// memory.
    #[inline(always)]
    pub unsafe fn new_unchecked(layout: TileLayout) -> Self {
        // SAFETY: offset 0 is aligned, and the caller vouches for the `bytes(layout)` bytes (this
        // function's contract), which the slice spans.
        let cells = unsafe { SharedSlice::new_unchecked(0, (Self::bytes(layout) as usize) / size_of::<T>()) };
        SharedTile { layout, cells }
    }

    /// The layout.
    #[inline(always)]
    pub fn layout(self) -> TileLayout {
        self.layout
    }

    /// Reads element `(r, c)`.
    ///
    /// # Safety
    /// `r, c < TILE`, and the read does not race (as [`SharedSlice::read`]).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(self, r: u32, c: u32) -> T {
        // SAFETY: for `r, c < TILE` (the caller's contract) the layout's offset is below `TILE ·
        // pitch`, inside the slice; the caller vouches that the read does not race.
        unsafe { self.cells.read(self.layout.offset(r, c, size_of::<T>() as u32) as usize) }
    }

    /// Writes element `(r, c)`.
    ///
    /// # Safety
    /// `r, c < TILE`, and the write does not race (as [`SharedSlice::write`]).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(self, r: u32, c: u32, v: T) {
        // SAFETY: as in `read`, for a write.
        unsafe { self.cells.write(self.layout.offset(r, c, size_of::<T>() as u32) as usize, v) }
    }
}
