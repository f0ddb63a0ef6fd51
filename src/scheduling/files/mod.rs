//! Routine and reminder files (E.0–E.2): markdown with a YAML frontmatter under
//! `routines/` and `reminders/` in the data dir.
//!
//! - [`parse_routine`] / [`parse_reminder`] read one file's text; kebab-case and legacy
//!   `snake_case` keys are both accepted, unknown keys are ignored, and every rejection comes
//!   with a reason a person can act on (RTN-6).
//! - [`render_routine`] / [`render_reminder`] write the canonical form: kebab-case keys,
//!   defaults omitted, strings double-quoted. `parse(render(x)) == x` for every valid item.
//! - [`load_routines`] / [`load_reminders`] read a whole folder, never failing as a whole:
//!   broken files come back as [`FileProblem`]s next to the good ones.
//! - [`write_routine`] / [`write_reminder`] and [`remove_routine`] / [`remove_reminder`]
//!   change the folders atomically and record each change in the data-dir git repo (GIT-2).
//!
//! The YAML `id` is authoritative; file names are cosmetic (slug of the message).

mod keys;
mod load;
mod parse;
mod render;
mod scope;
mod set_by;
mod store;
mod until_done;
mod validator;

#[cfg(test)]
mod load_tests;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod scope_tests;
#[cfg(test)]
mod set_by_tests;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod until_done_tests;
#[cfg(test)]
mod validator_tests;

use std::path::PathBuf;

use chrono::{DateTime, Duration, FixedOffset, Timelike};
use chrono_tz::Tz;

use crate::domain::job_options::{BgSession, RunMode, RunOptions};
use crate::domain::nag::NagPolicy;
use crate::state::StateError;
use crate::state::git::GitRecorder;

pub use keys::{reminder_notes, routine_notes};
pub use load::{
    LoadCache, load_reminders, load_reminders_cached, load_reminders_changed, load_routines,
    load_routines_cached, load_routines_changed,
};
pub use parse::{parse_reminder, parse_routine, parse_run_at};
pub use render::{render_reminder, render_routine};
pub use set_by::SetBy;
pub use store::{
    reminder_setters, remove_reminder, remove_routine, slugify, write_reminder, write_routine,
};
pub use until_done::UntilDone;
pub use validator::{LONG_ROUTINE_LINES, RoutineVerdict, VALIDATOR_PREFIX, validate_routine_write};

/// A recurring job: `routines/<slug>.md` (E.1, RTN-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routine {
    /// Unique job key (`id`); authoritative over the file name.
    pub id: String,
    /// Five-field cron expression (`cron`), evaluated in the configured zone (RTN-2).
    pub cron: String,
    /// Label for lists and the forward schedule (`description`, default empty).
    pub description: String,
    /// In the main session (the default) or in the background, forked, isolated or
    /// persistent (`background`, `isolated`, `session`; BGF-3, PRS-1).
    pub run: RunMode,
    /// The run's options (`model`, `thinking`, `update-main-session`, `allow-ping`, the tool
    /// lists, `skills`, `subagent`, `reflect`).
    pub options: RunOptions,
    /// Whether each fire stays open until answered, and how it nags (`until-done`,
    /// `nag-every`, `max-nags`; issue 28 §1, NAG-1); a fire still open when the next comes is
    /// replaced by it.
    pub until_done: Option<UntilDone>,
    /// The prompt: the trimmed markdown body after the frontmatter.
    pub message: String,
}

impl Routine {
    /// A foreground routine with every option at its default and a fresh [`new_id`].
    pub fn new(cron: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            id: new_id(),
            cron: cron.into(),
            description: String::new(),
            run: RunMode::Foreground,
            options: RunOptions::default(),
            until_done: None,
            message: message.into(),
        }
    }
}

/// A one-shot job: `reminders/<slug>.md` (E.2, REM-1). Deleted after it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    /// Unique job key (`id`); authoritative over the file name.
    pub id: String,
    /// When it fires (`run-at`, ISO-8601 with offset; naive values are read in the
    /// configured zone).
    pub run_at: DateTime<FixedOffset>,
    /// Label for lists and the forward schedule (`description`, default empty).
    pub description: String,
    /// Position in its chain, 0 for the root (`chain-depth`, ≤ `max-chain`).
    pub chain_depth: u32,
    /// How many follow-ups the chain allows; 0 = plain one-shot (`max-chain`).
    pub max_chain: u32,
    /// Id of the chain's root reminder (`chain-parent`).
    pub chain_parent: Option<String>,
    /// The owner, or the background run that set it (`set-by`, `generation`; issue 39 §4,
    /// REM-15). A chain's follow-ups are set by whoever set its first link.
    pub set_by: SetBy,
    /// In the background (the default, REM-2/F-21), forked or isolated, or in the main
    /// session (`background`, `isolated`). Never [`BgSession::Persistent`]: reminders have no
    /// `session` key (E.2), so their session kind is forked or isolated only.
    ///
    /// [`BgSession::Persistent`]: crate::domain::job_options::BgSession::Persistent
    pub run: RunMode,
    /// The run's options, as for routines; all inherited by chain follow-ups (MCP-13).
    pub options: RunOptions,
    /// Whether it stays open until answered, and how it nags (`until-done`, `nag-every`,
    /// `max-nags`; issue 28 §1, NAG-1). A chain follow-up doesn't inherit it (NAG-8).
    pub until_done: Option<UntilDone>,
    /// The prompt: the trimmed markdown body after the frontmatter.
    pub message: String,
}

impl Reminder {
    /// How it nags until answered, or `None` for a reminder that fires once (NAG-1).
    pub fn nag_policy(&self) -> Option<NagPolicy> {
        self.until_done.map(|until_done| until_done.policy())
    }

    /// A plain (unchained) background reminder with default options, a fresh [`new_id`],
    /// firing `delay_minutes` after `now` (in the owner's zone, REM-3), to the whole second.
    /// Callers that start a chain set `max_chain` and `chain_parent = Some(id)` themselves.
    pub fn new_in(delay_minutes: i64, message: impl Into<String>, now: DateTime<Tz>) -> Self {
        let now = now.fixed_offset();
        let now = now.with_nanosecond(0).unwrap_or(now);
        let run_at = Duration::try_minutes(delay_minutes)
            .and_then(|delay| now.checked_add_signed(delay))
            .unwrap_or(now);
        Self::new_at(run_at, message)
    }

    /// As [`Self::new_in`], firing at `run_at` (cut to the whole second).
    pub fn new_at(run_at: DateTime<FixedOffset>, message: impl Into<String>) -> Self {
        let run_at = run_at.with_nanosecond(0).unwrap_or(run_at);
        Self {
            id: new_id(),
            run_at,
            description: String::new(),
            chain_depth: 0,
            max_chain: 0,
            chain_parent: None,
            set_by: SetBy::Owner,
            run: RunMode::Background(BgSession::Forked),
            options: RunOptions::default(),
            until_done: None,
            message: message.into(),
        }
    }
}

/// A parsed file and where it lives (path relative to the data dir, e.g.
/// `routines/morning-review.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFile<T> {
    /// Path relative to the data-dir root.
    pub path: PathBuf,
    /// The parsed routine or reminder.
    pub item: T,
    /// What is worth telling about it though it loads (unknown keys, issue 24 §4).
    pub notes: Vec<String>,
}

/// A file that could not be used, and why (for the warning log and the pending update, RTN-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// Path relative to the data-dir root.
    pub path: PathBuf,
    /// Why the file was skipped, in words the owner or agent can act on.
    pub reason: String,
}

/// How a code write or removal is committed to the data-dir git repo (GIT-2).
#[derive(Debug, Clone, Copy)]
pub enum Commit<'a> {
    /// Daemon: queue the commit on the background recorder (never blocks).
    Queued(&'a GitRecorder),
    /// CLI: run git now, blocking (`commit_path_blocking` / `remove_path_blocking`).
    Now,
    /// Do not commit.
    Skip,
}

/// Why writing or removing a job file failed.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The item would produce a file that does not load back (e.g. both tool lists set).
    #[error("refusing to write an invalid {kind}: {reason}")]
    Invalid {
        /// `routine` or `reminder`.
        kind: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A filesystem operation failed on `path`.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The atomic write or removal failed.
    #[error(transparent)]
    State(#[from] StateError),
}

impl FilesError {
    /// Whether the filesystem refused the write: in a background run's sandbox the job
    /// folders are read-only (issue 23 §4).
    pub fn is_permission_denied(&self) -> bool {
        matches!(
            self,
            Self::Io { source, .. } | Self::State(StateError::Io { source, .. })
                if matches!(
                    source.kind(),
                    // Refused by the Landlock wall, or (in a container, issue 39) a folder
                    // mounted read-only.
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                )
        )
    }
}

/// What a command run by a background run is told when it tries to write a job.
pub const BACKGROUND_JOB_WRITE: &str = "a background run can't write routines or reminders \
    (their text would reach the main session): set a background reminder with the \
    add_reminder tool, or tell the main session with report_updates";

/// A fresh job id: 8 random lowercase hex characters (REM-3).
pub fn new_id() -> String {
    let mut id = uuid::Uuid::new_v4().simple().to_string();
    id.truncate(8);
    id
}
