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

/// Checks that one allocation contains `[addr, addr + bytes)`; else says where the access
/// fell, by the allocation nearest to it: "4 bytes before the start of the 1024-byte
/// allocation at 0x…", "runs 4 bytes past the end of …" (it starts inside), "12 bytes past the
/// end of …". The nearest is the one with the smaller gap to the access (so reading one
/// element before a buffer names that buffer, not whichever lies below it); a neighbour on the
/// other side that is about as near (within [`NEAR_BYTES`] of the access) is named too, since
/// either may be the one the kernel meant.
pub(crate) fn containing(allocations: &[(usize, usize)], addr: usize, bytes: usize) -> Result<(), String> {
    let i = allocations.partition_point(|&(start, _)| start <= addr);
    let last = addr.saturating_add(bytes);
    let below = i.checked_sub(1).map(|j| allocations[j]);
    if let Some((start, end)) = below
        && addr < end
    {
        if last <= end {
            return Ok(());
        }
        return Err(format!("runs {} bytes past the end of the {}", last - end, allocation(start, end)));
    }
    let above = allocations.get(i).copied();
    // Each side's gap: from the end of the allocation below to the access, and from the
    // access's last byte to the start of the one above.
    let past = below.map(|(start, end)| (addr - end, start, end));
    let before = above.map(|(start, end)| (start.saturating_sub(last), start, end));
    let say_past = |(gap, start, end): (usize, usize, usize)| match gap {
        0 => format!("right after the end of the {}", allocation(start, end)),
        _ => format!("{gap} bytes past the end of the {}", allocation(start, end)),
    };
    let say_before = |(_, start, end): (usize, usize, usize)| {
        format!("{} bytes before the start of the {}", start - addr, allocation(start, end))
    };
    match (past, before) {
        (None, None) => Err("no allocation is live".into()),
        (Some(p), None) => Err(say_past(p)),
        (None, Some(b)) => Err(say_before(b)),
        (Some(p), Some(b)) if b.0 <= p.0 => {
            Err(if p.0 <= NEAR_BYTES { format!("{} (and {})", say_before(b), say_past(p)) } else { say_before(b) })
        }
        (Some(p), Some(b)) => {
            Err(if b.0 <= NEAR_BYTES { format!("{} (and {})", say_past(p), say_before(b)) } else { say_past(p) })
        }
    }
}

/// How near a second allocation must be to an access outside every allocation to be named
/// beside the nearest: two 8-byte elements.
pub const NEAR_BYTES: usize = 16;

/// `1024-byte allocation at 0x7f…`.
fn allocation(start: usize, end: usize) -> String {
    format!("{}-byte allocation at {start:#x}", end - start)
}

#[cfg(test)]
mod tests {
    use super::containing;

    #[test]
    fn an_access_outside_every_allocation_names_the_nearest_side() {
        // Two allocations: 28 bytes at 0x1000, 64 at 0x1100.
        let a = [(0x1000, 0x101c), (0x1100, 0x1140)];
        assert_eq!(containing(&a, 0x1000, 28), Ok(()));
        assert_eq!(containing(&a, 0x113c, 4), Ok(()));
        // One 4-byte element before the second: its start, not the end of the first.
        assert_eq!(
            containing(&a, 0x10fc, 4),
            Err("4 bytes before the start of the 64-byte allocation at 0x1100".into())
        );
        // One element past the first's end, and further on: the first.
        assert_eq!(containing(&a, 0x101c, 4), Err("right after the end of the 28-byte allocation at 0x1000".into()));
        assert_eq!(containing(&a, 0x1024, 4), Err("8 bytes past the end of the 28-byte allocation at 0x1000".into()));
        // Starting inside, running out.
        assert_eq!(
            containing(&a, 0x1018, 8),
            Err("runs 4 bytes past the end of the 28-byte allocation at 0x1000".into())
        );
        // Below every allocation, and past the last.
        assert_eq!(
            containing(&a, 0xff8, 8),
            Err("8 bytes before the start of the 28-byte allocation at 0x1000".into())
        );
        assert_eq!(containing(&a, 0x1140, 4), Err("right after the end of the 64-byte allocation at 0x1100".into()));
        assert_eq!(containing(&[], 0x1000, 4), Err("no allocation is live".into()));
        // Both neighbours within a couple of elements: both named, the nearer first.
        let b = [(0x1000, 0x10f8), (0x1100, 0x1140)];
        assert_eq!(
            containing(&b, 0x10fc, 4),
            Err("4 bytes before the start of the 64-byte allocation at 0x1100 \
                 (and 4 bytes past the end of the 248-byte allocation at 0x1000)"
                .into())
        );
    }
}
