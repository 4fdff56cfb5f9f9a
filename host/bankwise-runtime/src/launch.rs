//! Launch configurations and their check against a device's limits, pure and CPU-testable.

use crate::device::DeviceInfo;
use crate::error::{Error, Result};

/// Dynamic shared memory a block can be given without raising the kernel's limit: 48 KiB on
/// every architecture since Kepler. Past it, [`crate::Kernel::launch`] raises the kernel's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` first (CUDA C++:
/// `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`).
pub const DEFAULT_SHARED_PER_BLOCK: u32 = 48 * 1024;

/// One launch's shape: CUDA C++'s `<<<grid, block, shared_bytes>>>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in x, y, z (`gridDim`).
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z (`blockDim`).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block in bytes (`extern __shared__`).
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// `grid` blocks of `block` threads along x, no dynamic shared memory.
    pub const fn linear(grid: u32, block: u32) -> Self {
        LaunchConfig { grid: (grid, 1, 1), block: (block, 1, 1), shared_bytes: 0 }
    }

    /// Enough blocks of `block` threads along x for one thread per element of `n` (at least
    /// one block, at most the x limit of 2^31 − 1; a kernel for more loops over its grid).
    pub fn for_elements(n: u64, block: u32) -> Self {
        let blocks = n.div_ceil(u64::from(block.max(1))).clamp(1, i32::MAX as u64) as u32;
        Self::linear(blocks, block)
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub const fn with_shared_bytes(self, bytes: u32) -> Self {
        LaunchConfig { shared_bytes: bytes, ..self }
    }

    /// Threads per block.
    pub const fn threads_per_block(&self) -> u64 {
        self.block.0 as u64 * self.block.1 as u64 * self.block.2 as u64
    }

    /// Checks the launch against `device`'s limits without touching the GPU: each dimension at
    /// least 1, block dimensions and their product within the device's maxima, grid dimensions
    /// within theirs (x 2^31 − 1, y and z 65 535), shared memory within the opt-in maximum
    /// per block. Shared memory past the 48 KiB default is allowed: the launch raises the
    /// kernel's limit.
    pub fn check(&self, device: &DeviceInfo) -> Result<()> {
        let dims = [
            ("grid.x", self.grid.0),
            ("grid.y", self.grid.1),
            ("grid.z", self.grid.2),
            ("block.x", self.block.0),
            ("block.y", self.block.1),
            ("block.z", self.block.2),
        ];
        if let Some(&(what, _)) = dims.iter().find(|(_, n)| *n == 0) {
            return Err(Error::ZeroLaunchDimension { what });
        }
        let axes = ['x', 'y', 'z'];
        let block = [self.block.0, self.block.1, self.block.2];
        let block_max = [device.max_block_dim.0, device.max_block_dim.1, device.max_block_dim.2];
        for ((axis, got), max) in axes.into_iter().zip(block).zip(block_max) {
            if got > max {
                return Err(Error::BlockDimTooLarge { axis, got, max });
            }
        }
        let threads = self.threads_per_block();
        if threads > u64::from(device.max_threads_per_block) {
            return Err(Error::BlockTooLarge { block: self.block, threads, max: device.max_threads_per_block });
        }
        let grid = [self.grid.0, self.grid.1, self.grid.2];
        let grid_max = [device.max_grid_dim.0, device.max_grid_dim.1, device.max_grid_dim.2];
        for ((axis, got), max) in axes.into_iter().zip(grid).zip(grid_max) {
            if got > max {
                return Err(Error::GridDimTooLarge { axis, got, max });
            }
        }
        if self.shared_bytes > device.shared_per_block_max {
            return Err(Error::SharedMemoryTooLarge { bytes: self.shared_bytes, max: device.shared_per_block_max });
        }
        Ok(())
    }

    /// Whether the launch needs the kernel's shared-memory limit raised past the default.
    pub const fn needs_raised_shared_limit(&self, device: &DeviceInfo) -> bool {
        self.shared_bytes > device.shared_per_block
    }
}

/// `config` for kernel `name` declaring `declared` bytes of shared memory: each block gets the
/// declared bytes, and where the launch asks for dynamic bytes too, those after the declared ones
/// rounded up to 16 (so that they start aligned). [`Error::DeclaredSharedTooLarge`] where the
/// sum passes `max`, what a block can have.
pub fn with_declared_shared(name: &str, declared: u32, config: LaunchConfig, max: u32) -> Result<LaunchConfig> {
    if declared == 0 {
        return Ok(config);
    }
    let start = if config.shared_bytes == 0 { declared } else { declared.next_multiple_of(16) };
    // Saturating: a sum past u32 is past the maximum too.
    let bytes = start.saturating_add(config.shared_bytes);
    if bytes > max {
        return Err(Error::DeclaredSharedTooLarge {
            kernel: name.to_string(),
            declared,
            dynamic: config.shared_bytes,
            max,
        });
    }
    Ok(LaunchConfig { shared_bytes: bytes, ..config })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> LaunchConfig {
        LaunchConfig { grid: (10, 2, 3), block: (32, 8, 1), shared_bytes: 1024 }
    }

    #[test]
    fn a_good_launch_passes() {
        let h100 = DeviceInfo::example_sm90();
        ok().check(&h100).unwrap();
        let widest = LaunchConfig { grid: (i32::MAX as u32, 65_535, 65_535), block: (1024, 1, 1), shared_bytes: 0 };
        widest.check(&h100).unwrap();
        let most_shared = ok().with_shared_bytes(h100.shared_per_block_max);
        most_shared.check(&h100).unwrap();
        assert!(most_shared.needs_raised_shared_limit(&h100) && !ok().needs_raised_shared_limit(&h100));
    }

    #[test]
    fn each_zero_dimension_is_named() {
        let h100 = DeviceInfo::example_sm90();
        let cases = [
            (LaunchConfig { grid: (0, 1, 1), ..ok() }, "grid.x"),
            (LaunchConfig { grid: (1, 0, 1), ..ok() }, "grid.y"),
            (LaunchConfig { grid: (1, 1, 0), ..ok() }, "grid.z"),
            (LaunchConfig { block: (0, 1, 1), ..ok() }, "block.x"),
            (LaunchConfig { block: (1, 0, 1), ..ok() }, "block.y"),
            (LaunchConfig { block: (1, 1, 0), ..ok() }, "block.z"),
        ];
        for (config, name) in cases {
            match config.check(&h100) {
                Err(Error::ZeroLaunchDimension { what }) => assert_eq!(what, name),
                other => panic!("{config:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_block_with_too_many_threads_is_rejected() {
        let h100 = DeviceInfo::example_sm90();
        let err = LaunchConfig { block: (32, 32, 2), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::BlockTooLarge { threads: 2048, max: 1024, block: (32, 32, 2) }), "{err:?}");
        assert_eq!(err.to_string(), "block (32, 32, 2) has 2048 threads; this device allows at most 1024 per block");
    }

    #[test]
    fn a_block_dimension_past_its_limit_is_rejected() {
        let h100 = DeviceInfo::example_sm90();
        let err = LaunchConfig { block: (2048, 1, 1), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::BlockDimTooLarge { axis: 'x', got: 2048, max: 1024 }), "{err:?}");
        let err = LaunchConfig { block: (1, 1, 65), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::BlockDimTooLarge { axis: 'z', got: 65, max: 64 }), "{err:?}");
    }

    #[test]
    fn a_grid_dimension_past_its_limit_is_rejected() {
        let h100 = DeviceInfo::example_sm90();
        let err = LaunchConfig { grid: (1, 65_536, 1), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::GridDimTooLarge { axis: 'y', got: 65_536, max: 65_535 }), "{err:?}");
        let err = LaunchConfig { grid: (1, 1, 70_000), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::GridDimTooLarge { axis: 'z', got: 70_000, max: 65_535 }), "{err:?}");
        let err = LaunchConfig { grid: (u32::MAX, 1, 1), ..ok() }.check(&h100).unwrap_err();
        assert!(matches!(err, Error::GridDimTooLarge { axis: 'x', max: 2_147_483_647, .. }), "{err:?}");
        assert!(err.to_string().contains("grid.x = 4294967295"), "{err}");
    }

    #[test]
    fn shared_memory_past_the_opt_in_maximum_is_rejected() {
        let h100 = DeviceInfo::example_sm90();
        let err = ok().with_shared_bytes(h100.shared_per_block_max + 1).check(&h100).unwrap_err();
        assert!(matches!(err, Error::SharedMemoryTooLarge { bytes: 232_449, max: 232_448 }), "{err:?}");
    }

    #[test]
    fn for_elements_covers_every_element() {
        assert_eq!(LaunchConfig::for_elements(1000, 256).grid, (4, 1, 1));
        assert_eq!(LaunchConfig::for_elements(0, 256).grid, (1, 1, 1));
        assert_eq!(LaunchConfig::for_elements(u64::MAX, 256).grid.0, i32::MAX as u32);
    }

    #[test]
    fn declared_shared_memory_comes_first_and_dynamic_bytes_after_it_aligned() {
        let config = LaunchConfig::linear(4, 256);
        let with = |declared, dynamic| with_declared_shared("k", declared, config.with_shared_bytes(dynamic), 1000);
        assert_eq!(with(0, 40).unwrap().shared_bytes, 40);
        assert_eq!(with(100, 0).unwrap().shared_bytes, 100);
        assert_eq!(with(100, 40).unwrap().shared_bytes, 112 + 40);
        assert_eq!(with(1000, 0).unwrap().shared_bytes, 1000);
        for (declared, dynamic) in [(1001, 0), (995, 10), (100, u32::MAX)] {
            match with(declared, dynamic) {
                Err(Error::DeclaredSharedTooLarge { declared: d, dynamic: y, max: 1000, .. }) => {
                    assert_eq!((d, y), (declared, dynamic))
                }
                other => panic!("{declared} + {dynamic}: {other:?}"),
            }
        }
        // 995 rounds up to 1008 before the dynamic bytes: past the maximum though 995 + 5 is not.
        assert_eq!(with(995, 0).unwrap().shared_bytes, 995);
        assert!(with(995, 5).is_err());
        let err = with(995, 10).unwrap_err().to_string();
        assert!(err.contains("kernel `k` declares 995 bytes") && err.contains("maximum of 1000"), "{err}");
    }
}
