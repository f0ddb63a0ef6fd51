//! Whether the disk takes the bot's writes (issue 16). A full disk, a used-up quota or a file
//! size limit makes state writes fail; [`write_atomic`](super::atomic::write_atomic) keeps the
//! previous content whole either way. Every state write reports here, and the daemon asks for
//! news on a tick: the owner hears once that saving stopped working and once that it works
//! again. While writes fail, [`probe`] tries a write the size of a state file, and only
//! that tells that saving works again.

use std::{
    io,
    path::{Path, PathBuf},
};

use parking_lot::Mutex;

use super::{StateError, atomic::write_atomic};

/// What the owner should hear about the disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskNews {
    /// Writes fail for want of space (or quota, or size limit).
    Full {
        /// The file that couldn't be written.
        path: PathBuf,
        /// The OS error.
        error: String,
    },
    /// Writes work again.
    Recovered,
}

#[derive(Debug)]
enum SpaceState {
    Fine,
    /// Writes fail and the owner doesn't know yet.
    FullUntold {
        path: PathBuf,
        error: String,
    },
    /// Writes fail and the owner knows.
    FullTold,
    /// Writes work again and the owner doesn't know yet.
    RecoveredUntold,
}

/// The disk's story as far as the owner is concerned. The process has one,
/// [`SPACE`]; tests make their own.
#[derive(Debug)]
pub struct SpaceWatch {
    state: Mutex<SpaceState>,
}

/// The process's watch, fed by every state write.
pub static SPACE: SpaceWatch = SpaceWatch::new();

impl Default for SpaceWatch {
    fn default() -> Self {
        Self::new()
    }
}

impl SpaceWatch {
    /// A watch that has seen nothing wrong.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            state: Mutex::new(SpaceState::Fine),
        }
    }

    /// Records how a write of `path` went.
    pub fn note_write(&self, path: &Path, outcome: &Result<(), StateError>) {
        let mut state = self.state.lock();
        match outcome {
            Err(StateError::Io { source, .. }) if is_out_of_space(source) => {
                tracing::error!(path = %path.display(), error = %source, "the disk has no room for a state file");
                *state = match std::mem::replace(&mut *state, SpaceState::Fine) {
                    SpaceState::Fine | SpaceState::FullUntold { .. } => SpaceState::FullUntold {
                        path: path.to_path_buf(),
                        error: source.to_string(),
                    },
                    SpaceState::FullTold | SpaceState::RecoveredUntold => SpaceState::FullTold,
                };
            }
            // Not about space; and a small write that worked can land in the last free
            // block of a disk that is still full (or one another program freed for a
            // moment): only the probe's room decides that saving works again.
            Ok(()) | Err(_) => {}
        }
    }

    /// Records that the disk has room again ([`probe`]'s write fitted).
    pub fn note_room(&self) {
        let mut state = self.state.lock();
        *state = match std::mem::replace(&mut *state, SpaceState::Fine) {
            SpaceState::FullTold | SpaceState::RecoveredUntold => SpaceState::RecoveredUntold,
            SpaceState::Fine | SpaceState::FullUntold { .. } => SpaceState::Fine,
        };
    }

    /// What the owner hasn't heard yet; marks it told.
    pub fn take_news(&self) -> Option<DiskNews> {
        let mut state = self.state.lock();
        match std::mem::replace(&mut *state, SpaceState::Fine) {
            SpaceState::FullUntold { path, error } => {
                *state = SpaceState::FullTold;
                Some(DiskNews::Full { path, error })
            }
            SpaceState::RecoveredUntold => Some(DiskNews::Recovered),
            other => {
                *state = other;
                None
            }
        }
    }

    /// Puts `news` back when telling the owner failed, unless something newer happened.
    pub fn untell(&self, news: DiskNews) {
        let mut state = self.state.lock();
        match (&*state, news) {
            (SpaceState::FullTold, DiskNews::Full { path, error }) => {
                *state = SpaceState::FullUntold { path, error };
            }
            (SpaceState::Fine, DiskNews::Recovered) => *state = SpaceState::RecoveredUntold,
            _ => {}
        }
    }

    /// Whether writes are failing for want of space.
    pub fn is_full(&self) -> bool {
        matches!(
            *self.state.lock(),
            SpaceState::FullUntold { .. } | SpaceState::FullTold
        )
    }
}

/// Whether `error` means the disk has no room for us (ENOSPC, EDQUOT, EFBIG).
pub fn is_out_of_space(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge
    ) || matches!(error.raw_os_error(), Some(28 | 27 | 122))
}

/// How much a probe writes: room for any state file the bot keeps, so a disk with a block or
/// two free now and then (the CLI's temp files come and go) doesn't count as recovered.
const PROBE_BYTES: usize = 64 * 1024;

/// While writes fail, tries a [`PROBE_BYTES`] write in `state_dir`, so that space coming
/// back is noticed even when nothing else is saved; the only way back from full.
pub fn probe(state_dir: &Path) {
    if !SPACE.is_full() {
        return;
    }
    let path = state_dir.join(".space-probe");
    // write_atomic reports a failure itself.
    if write_atomic(&path, &vec![b'.'; PROBE_BYTES]).is_ok() {
        let _ = std::fs::remove_file(&path);
        SPACE.note_room();
    }
}

#[cfg(test)]
#[path = "disk_space_tests.rs"]
mod tests;
