//! What one container may use (issue 39 §1, BOX-10), so a session can neither take the machine
//! down nor fill the disk the bot's state lives on:
//! - **memory and processes** of everything in it, in a cgroup of its own where the bot can make
//!   one (root, or a delegated cgroup v2 subtree); when one of these stopped it, the error of
//!   its exit says so, and the owner reads it where the failure is reported (the reply, the
//!   background run's failure notice);
//! - **processes** also by `RLIMIT_NPROC`, which the kernel counts per user namespace, so per
//!   container (it doesn't bind root: there the cgroup holds);
//! - **the largest file** it writes (`RLIMIT_FSIZE`) and no core dumps, set by the launcher
//!   inside, so every program in the container inherits them;
//! - **the free space** where the bot's state lives: below `OLLIM_DISK_FLOOR_MB`, a guard stops
//!   every container ([`guard_disk`]).

mod cgroup;
mod live;

pub use cgroup::{CgroupSupport, SessionCgroup};
pub use live::{LiveSession, LiveSessions, free_bytes, guard_disk};

use serde::{Deserialize, Serialize};

/// The limits the launcher sets on itself before it becomes the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessLimits {
    /// `RLIMIT_NPROC`.
    pub processes: u64,
    /// `RLIMIT_FSIZE`, bytes.
    pub file_bytes: u64,
}

impl ProcessLimits {
    /// Sets the limits on this process (inherited by everything it starts).
    pub fn apply(self) -> std::io::Result<()> {
        use rustix::process::{Resource, Rlimit, setrlimit};
        let set = |resource, value: u64| {
            setrlimit(
                resource,
                Rlimit {
                    current: Some(value),
                    maximum: Some(value),
                },
            )
        };
        set(Resource::Nproc, self.processes)?;
        set(Resource::Fsize, self.file_bytes)?;
        set(Resource::Core, 0)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launch_spec_carries_the_limits() {
        let limits = ProcessLimits {
            processes: 64,
            file_bytes: 4096,
        };
        let spec = serde_json::to_string(&limits).unwrap();
        assert_eq!(
            serde_json::from_str::<ProcessLimits>(&spec).unwrap(),
            limits
        );
    }
}
