//! Global memory for emulated launches: host allocations that register themselves, so that
//! every global access of a kernel is checked against them.

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Live allocations: start address → end address (exclusive).
static LIVE: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

/// Allocations are aligned as `cudaMalloc`'s are.
pub const ALIGN: usize = 256;

/// A zeroed host allocation standing for a device buffer (`cudaMalloc`), registered while it
/// lives. Zero-length allocations hold no memory and are never registered (a kernel may not
/// touch them, as on the GPU).
#[derive(Debug)]
pub struct HostAllocation {
    ptr: *mut u8,
    bytes: usize,
}

// Safety: the allocation is plain memory owned by this handle; accesses go through raw
// pointers whose users synchronise (launches are synchronous).
unsafe impl Send for HostAllocation {}
// SAFETY: as for `Send`: shared access hands out only the pointer and, through `bytes`, a read
// whose caller vouches that no launch writes meanwhile.
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    /// `bytes` zeroed bytes, `ALIGN`-aligned. `None` where the system cannot provide them.
    pub fn zeroed(bytes: usize) -> Option<Self> {
        if bytes == 0 {
            return Some(HostAllocation { ptr: std::ptr::null_mut(), bytes: 0 });
        }
        let layout = Layout::from_size_align(bytes, ALIGN).ok()?;
        // Safety: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).insert(ptr as usize, ptr as usize + bytes);
        Some(HostAllocation { ptr, bytes })
    }

    /// The address of byte 0 (null for an empty allocation).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The bytes, to copy from.
    ///
    /// # Safety
    /// No launch writes the allocation meanwhile.
    pub unsafe fn bytes(&self) -> &[u8] {
        // SAFETY: a non-empty allocation is `self.bytes` initialised (zeroed) bytes at `self.ptr`,
        // alive as long as `self`; the caller vouches that no launch writes them meanwhile.
        if self.bytes == 0 { &[] } else { unsafe { std::slice::from_raw_parts(self.ptr, self.bytes) } }
    }

    /// The bytes, to copy into.
    ///
    /// # Safety
    /// No launch reads or writes the allocation meanwhile.
    pub unsafe fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, borrowed mutably through `&mut self`; the caller vouches that no
        // launch reads or writes them meanwhile.
        if self.bytes == 0 { &mut [] } else { unsafe { std::slice::from_raw_parts_mut(self.ptr, self.bytes) } }
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(&(self.ptr as usize));
        // Safety: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, Layout::from_size_align_unchecked(self.bytes, ALIGN)) };
    }
}

/// The live allocations as sorted `(start, end)` pairs, for one launch's checks.
pub(crate) fn snapshot() -> Vec<(usize, usize)> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(&s, &e)| (s, e)).collect()
}

/// The allocation containing `[addr, addr + bytes)`, if one does.
pub(crate) fn containing(allocations: &[(usize, usize)], addr: usize, bytes: usize) -> Result<(), String> {
    let i = allocations.partition_point(|&(start, _)| start <= addr);
    if i == 0 {
        return Err("below every allocation".into());
    }
    let (start, end) = allocations[i - 1];
    if addr.checked_add(bytes).is_some_and(|last| last <= end) {
        Ok(())
    } else if addr < end {
        Err(format!("runs past the end of the {}-byte allocation at {start:#x}", end - start))
    } else {
        Err(format!("{} bytes past the end of the {}-byte allocation at {start:#x}", addr - end, end - start))
    }
}
