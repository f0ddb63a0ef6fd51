//! File-backed state under the data dir: atomic writes, the session store and its history log,
//! pending updates, and the git auto-commit recorder.
//!
//! Layout and formats follow the feature inventory sections D.2 (files under `state/`) and D.4
//! (concurrency / atomicity rules):
//! - [`atomic`]: temp-file + rename writes used by every JSON/bare-string state file.
//! - [`paths`]: the [`paths::DataDir`] layout and the `state/` write guard (PRM-2/PRM-3, HKS-3).
//! - [`git`]: data-dir auto-commits (GIT-1..3), serialised through one background worker.
//! - [`history`]: the append-only `session_history.jsonl` lifecycle log (SES-6/7).
//! - [`sessions`]: the main-session id store with change detection (SES-1..5, 10, 11) and
//!   persistent routine session files (PRS-2).
//! - [`pending`]: pending updates from forks to the main session (PUP-1..6).

pub mod atomic;
pub mod fork_messages;
pub mod git;
pub mod history;
pub mod inquiries;
pub mod paths;
pub mod pending;
pub mod ping_budget;
pub mod sessions;
pub mod tool_approvals;

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset, Timelike, Utc};

/// Errors raised by the file-backed state layer.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A filesystem operation failed on `path`.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A state file could not be encoded or decoded as JSON.
    #[error("JSON error in {}: {source}", path.display())]
    Json {
        /// The state file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// A routine id that would not be safe as a file name under `state/routine_sessions/`.
    #[error("invalid routine id {0:?}: expected only ASCII letters, digits, '-' or '_'")]
    InvalidRoutineId(String),
    /// An external command (git) ran but reported failure.
    #[error("`{command}` failed in {}: {detail}", dir.display())]
    Command {
        /// The command line, for the message.
        command: String,
        /// The working directory it ran in.
        dir: PathBuf,
        /// Exit status and trimmed stderr.
        detail: String,
    },
}

impl StateError {
    /// Builds an [`StateError::Io`] for `path`.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Builds a [`StateError::Json`] for `path`.
    pub(crate) fn json(path: &Path, source: serde_json::Error) -> Self {
        Self::Json {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The current time in the configured zone, as stored in state files (SES-6, PUP-1).
///
/// Truncated to whole microseconds so timestamps serialise with at most six fractional digits,
/// the same shape the original bot wrote.
pub fn now_in(tz: chrono_tz::Tz) -> DateTime<FixedOffset> {
    let now = Utc::now().with_timezone(&tz).fixed_offset();
    let micros = now.nanosecond() / 1_000 * 1_000;
    now.with_nanosecond(micros).unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_in_uses_zone_offset_and_micro_precision() {
        let now = now_in(chrono_tz::Asia::Tokyo);
        assert_eq!(now.offset().local_minus_utc(), 9 * 3600);
        assert_eq!(now.nanosecond() % 1_000, 0);
    }

    #[test]
    fn errors_name_the_path() {
        let err = StateError::io(
            Path::new("/x/state/sessions.json"),
            std::io::Error::other("boom"),
        );
        assert!(err.to_string().contains("/x/state/sessions.json"));
    }
}
