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
//! - [`fork_messages`]: which fork session posted a Discord message, and where its text came
//!   from (SES-15, SES-17, BOX-3); [`untrusted_sessions`]: sessions that read mail (BOX-3).
//! - [`ping_budget`], [`inquiries`], [`held_webhooks`], [`quiet`], [`nags`], [`tool_approvals`],
//!   [`content_approvals`] (BOX-2), [`unfinished`], [`told`], [`recall_forgotten`] (issue 42):
//!   the other stores of `state/`.
//! - [`state_file`]: the one way every store keeps its file (a typed load that sets aside
//!   what it can't read, a lock its clones share, an atomic save); [`set_aside`] moves a
//!   damaged file aside and tells the owner; [`inspection`] judges each file at start and in
//!   `doctor` by its store's own format.
//! - [`disk_space`]: whether the disk takes writes, told to the owner once each way.
//! - [`instance_lock`]: one process drives the main session; [`env_file`]: setting variables
//!   in a `.env` in place.

pub mod atomic;
pub mod cli_homes;
pub mod content_approvals;
pub mod disk_space;
pub mod env_file;
pub mod fork_messages;
pub mod git;
pub mod held_webhooks;
pub mod history;
pub mod inquiries;
pub mod inspection;
pub mod instance_lock;
pub mod nags;
pub mod paths;
pub mod pending;
pub mod ping_budget;
pub mod quiet;
pub mod recall_forgotten;
pub mod sessions;
pub mod set_aside;
pub mod state_file;
pub mod told;
pub mod tool_approvals;
pub mod unfinished;
pub mod untrusted_sessions;

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

/// A fresh id of `len` lowercase hex characters that `taken` says is free (a held request's,
/// an approval request's, a button prompt's).
pub(crate) fn fresh_id(len: usize, taken: impl Fn(&str) -> bool) -> String {
    loop {
        let mut id = uuid::Uuid::new_v4().simple().to_string();
        id.truncate(len);
        if !taken(&id) {
            return id;
        }
    }
}

/// `at` as unix seconds, as the fork-message and inquiry stores keep it.
#[allow(clippy::cast_precision_loss)] // microseconds since 1970 fit an f64's 52 bits until 2112
pub fn unix_of(at: DateTime<Utc>) -> f64 {
    at.timestamp_micros() as f64 / 1e6
}

/// `instant` in `tz` as stored in state files (SES-6, PUP-1): truncated to whole microseconds so
/// timestamps serialise with at most six fractional digits, the same shape the original bot
/// wrote.
pub fn stored_time_in(instant: DateTime<Utc>, tz: chrono_tz::Tz) -> DateTime<FixedOffset> {
    let local = instant.with_timezone(&tz).fixed_offset();
    let micros = local.nanosecond() / 1_000 * 1_000;
    local.with_nanosecond(micros).unwrap_or(local)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_times_use_the_zone_offset_and_micro_precision() {
        let instant = DateTime::parse_from_rfc3339("2026-02-24T18:15:30.123456789Z")
            .unwrap()
            .with_timezone(&Utc);
        let stored = stored_time_in(instant, chrono_tz::Asia::Tokyo);
        assert_eq!(stored.offset().local_minus_utc(), 9 * 3600);
        assert_eq!(stored.to_rfc3339(), "2026-02-25T03:15:30.123456+09:00");
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
