//! The OS file lock on `state/bot.lock`: one process at a time drives the main session — the
//! daemon or a terminal `chat` (PID-1…3, issue 24 §5). The kernel drops it when the process
//! dies, however it dies, so two of them on one data dir can never both run, even with a
//! stale or hand-edited PID file. Rust opens files close-on-exec, so child processes (the
//! Claude CLI) do not inherit it.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// File name of the instance lock inside `state/`.
pub const LOCK_FILE_NAME: &str = "bot.lock";

/// Errors acquiring the [`InstanceLock`].
#[derive(Debug, thiserror::Error)]
pub enum InstanceLockError {
    /// Another process holds the lock; `pid` is what it wrote into the lock file, if readable.
    #[error("ollim-bot is already running{}", pid_suffix(*.pid))]
    AlreadyRunning {
        /// The holder's PID, when known.
        pid: Option<u32>,
    },
    /// The lock file could not be created, opened or locked.
    #[error("cannot use instance lock {}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// ` (pid <pid>)` when the PID is known.
fn pid_suffix(pid: Option<u32>) -> String {
    pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
}

/// Parses PID file content: decimal digits with optional surrounding whitespace, non-zero.
pub(crate) fn parse_pid(text: &str) -> Option<u32> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|&pid| pid != 0)
}

/// An exclusive lock on `state/bot.lock`, held until dropped (normally: for the whole
/// process). The file holds the holder's PID for the error message of the next instance; it
/// is never deleted, since deleting a lock file races with processes opening it.
#[derive(Debug)]
pub struct InstanceLock {
    path: PathBuf,
    /// Keeps the lock: closing the file releases it.
    _file: File,
}

impl InstanceLock {
    /// Takes the instance lock in `state_dir` (created if missing) without waiting.
    ///
    /// Fails with [`InstanceLockError::AlreadyRunning`] (`ollim-bot is already running (pid
    /// <pid>)`) while another open handle holds it, including one in this same process. On a
    /// file system without lock support a warning is logged and an unlocked guard returned,
    /// leaving the PID file as the only protection.
    pub fn acquire(state_dir: &Path) -> Result<Self, InstanceLockError> {
        let path = state_dir.join(LOCK_FILE_NAME);
        let io_err = |source| InstanceLockError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(state_dir).map_err(|source| InstanceLockError::Io {
            path: state_dir.to_path_buf(),
            source,
        })?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err)?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0).map_err(io_err)?;
                file.write_all(std::process::id().to_string().as_bytes())
                    .and_then(|()| file.flush())
                    .map_err(io_err)?;
            }
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let pid = file
                    .read_to_string(&mut text)
                    .ok()
                    .and_then(|_| parse_pid(&text));
                return Err(InstanceLockError::AlreadyRunning { pid });
            }
            Err(TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => {
                tracing::warn!(path = %path.display(), error = %e,
                    "file locking unsupported here; relying on the pid file alone");
            }
            Err(TryLockError::Error(e)) => return Err(io_err(e)),
        }
        Ok(Self { path, _file: file })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_fails_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let first = InstanceLock::acquire(&state).unwrap();
        assert_eq!(first.path(), state.join("bot.lock"));
        let own = std::process::id();
        let err = InstanceLock::acquire(&state).unwrap_err();
        assert!(
            matches!(err, InstanceLockError::AlreadyRunning { pid: Some(p) } if p == own),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("ollim-bot is already running (pid {own})")
        );
        drop(first);
        let again = InstanceLock::acquire(&state).unwrap();
        assert_eq!(fs::read_to_string(again.path()).unwrap(), own.to_string());
    }

    #[test]
    fn already_running_without_a_known_pid() {
        let err = InstanceLockError::AlreadyRunning { pid: None };
        assert_eq!(err.to_string(), "ollim-bot is already running");
    }

    #[test]
    fn stale_lock_file_content_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(LOCK_FILE_NAME), "4242\nold junk").unwrap();
        let lock = InstanceLock::acquire(dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(lock.path()).unwrap(),
            std::process::id().to_string()
        );
    }
}
