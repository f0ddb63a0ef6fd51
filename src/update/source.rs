//! Where updates come from and how often the auto-update loop looks (UPD-2, F-37): the git
//! checkout the bot is built from, and `OLLIM_UPDATE_POLL_SECS`.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

/// How often the auto-update loop wakes by default (SCH-5, UPD-2).
pub const DEFAULT_POLL: Duration = Duration::from_secs(5 * 60);

/// The checkout updates are pulled into and installed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceDir {
    /// A git work tree.
    Checkout(PathBuf),
    /// No usable checkout; the text says why and what to do.
    Unavailable(String),
}

impl SourceDir {
    /// `OLLIM_SOURCE_DIR` if set, else the checkout this binary was built from
    /// (`CARGO_MANIFEST_DIR`: `cargo install --path` and `cargo run` build in place).
    pub fn from_env() -> Self {
        let explicit = crate::config::environment::source_dir();
        Self::resolve(explicit, Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// The checkout: `explicit` when given, else `built_from`; either must be a git work
    /// tree (hold a `.git` directory, or file for a linked worktree).
    pub fn resolve(explicit: Option<PathBuf>, built_from: &Path) -> Self {
        let is_work_tree = |dir: &Path| dir.join(".git").exists();
        match explicit {
            Some(dir) if is_work_tree(&dir) => Self::Checkout(dir),
            Some(dir) => Self::Unavailable(format!(
                "OLLIM_SOURCE_DIR ({}) is not a git checkout",
                dir.display()
            )),
            None if is_work_tree(built_from) => Self::Checkout(built_from.to_path_buf()),
            None => Self::Unavailable(format!(
                "this binary was not built from a git checkout ({} is not one); \
                 set OLLIM_SOURCE_DIR to the ollim-bot checkout",
                built_from.display()
            )),
        }
    }
}

/// The auto-update loop's wake-up interval: `OLLIM_UPDATE_POLL_SECS` (whole seconds above
/// zero; tests shorten it), else five minutes.
pub fn poll_interval(raw: Option<&str>) -> Duration {
    raw.and_then(|raw| raw.trim().parse::<u64>().ok())
        .filter(|secs| *secs > 0)
        .map_or(DEFAULT_POLL, Duration::from_secs)
}

/// [`poll_interval`] of the process environment.
pub fn poll_interval_from_env() -> Duration {
    poll_interval(crate::config::environment::update_poll_secs().as_deref())
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
