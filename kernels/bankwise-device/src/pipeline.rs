//! Groups of asynchronous copies from global to shared memory (`sm_80` and later): CUDA C++'s
//! `__pipeline_commit` and `__pipeline_wait_prior`.
//!
//! A thread starts copies with [`Shared::load_async`](crate::shared::Shared::load_async),
//! closes the ones started since its last commit into a group with [`commit`], and waits for
//! all but its newest groups with [`wait_prior`]. A wait covers only the calling thread's
//! copies: a barrier after it makes them visible to the block. The usual multistage loop keeps
//! `S − 1` groups in flight while computing from the stage that arrived:
//!
//! ```text
//! for s in 0..S-1 { start copies of step s into stage s; commit(); }
//! for step in 0.. {
//!     wait_prior::<{S - 2}>(); sync_threads();        // step's stage has arrived
//!     start copies of step + S - 1 into the stage step - 1 used; commit();
//!     compute from stage step % S;
//! }
//! ```
//!
//! On the emulator a copy's shared write happens at the wait that completes it.

use crate::backend;

/// Closes the copies this thread started since its last commit into a group
/// (`cp.async.commit_group`, SASS `LDGDEPBAR`). An empty group is fine: loops commit every step
/// so that [`wait_prior`]'s count stays the same.
#[inline(always)]
#[track_caller]
pub fn commit() {
    backend::cp_async_commit_group();
}

/// Waits until at most `N` of this thread's committed groups, the newest, are in flight
/// (`cp.async.wait_group N`, SASS `DEPBAR.LE SB0, N`): every copy of the older groups is then
/// in shared memory. `N = 0` waits for every committed group.
#[inline(always)]
#[track_caller]
pub fn wait_prior<const N: u32>() {
    backend::cp_async_wait_group::<N>();
}
