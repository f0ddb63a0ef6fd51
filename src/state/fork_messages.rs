//! Reply-to-fork records (SES-15, SES-17): which fork session produced a Discord message.
//!
//! `state/fork_messages.json` is a JSON array of `{"message_id": 1234567890123456789,
//! "fork_session_id": "sess_fork_abc", "parent_session_id": "sess_main" | null,
//! "ts": 1740000000.0, "origin": {"kind": "owner"}}` (section D.2), where `origin` says
//! what a reply resumes the session with (issue 23 §4): `{"kind": "owner"}` for the owner's
//! interactive forks, `{"kind": "background", "job": "routine:daily", "allowed_tools":
//! […]}` for a background run. A record without `origin` (written before it existed) counts
//! as a background run with no tools of its own. Records older than seven days are pruned whenever the
//! file is rewritten, but never on read (F-33), so a lookup can still tell an expired record
//! from an unknown message (RPL-3). Writes are atomic and serialised by a mutex shared by
//! clones ([`StateFile`]); lookups read without it, relying on the atomic replace. Operations
//! are small blocking file I/O.

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::StateError;
use super::paths::DataDir;
use super::state_file::{JsonList, StateFile};

/// How long a fork message stays resumable by reply, in seconds (7 days, SES-17).
pub const FORK_MESSAGE_TTL_SECS: f64 = 604_800.0;

/// One Discord message sent by a fork run (SES-15).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkMessageRecord {
    /// The Discord message id (a JSON integer; snowflakes fit `u64` exactly).
    pub message_id: u64,
    /// The session that produced the message; a reply resumes it.
    pub fork_session_id: String,
    /// The main session the fork branched from; `None` for isolated/persistent runs.
    pub parent_session_id: Option<String>,
    /// When the record was flushed, unix seconds.
    pub ts: f64,
    /// Where the session came from.
    #[serde(default = "SessionOrigin::unrecorded")]
    pub origin: SessionOrigin,
}

/// Where a recorded session came from: what a reply to one of its messages resumes it with
/// (issue 23 §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionOrigin {
    /// One of the owner's interactive forks: resumed with the main session's tools.
    Owner,
    /// A background run, which may have read untrusted text: resumed with that run's own
    /// tools, and the owner is shown that it is one.
    Background {
        /// The job, as the owner knows it (`routine:daily`, `webhook:github`).
        job: String,
        /// The run's `--allowedTools`.
        allowed_tools: Vec<String>,
        /// What the job is, for the owner (its description or its first line): the name of
        /// the thread it is resumed in (issue 41 §1). Absent in records from before.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
}

impl SessionOrigin {
    /// The origin of a record from before origins were recorded: a background run with no
    /// tools of its own, the safe reading.
    pub fn unrecorded() -> Self {
        Self::Background {
            job: "an earlier run".to_owned(),
            allowed_tools: Vec::new(),
            title: None,
        }
    }
}

/// The session a batch of messages came from.
#[derive(Debug, Clone, Copy)]
pub struct RecordedSession<'a> {
    /// The session a reply resumes.
    pub id: &'a str,
    /// The main session it branched from, if any.
    pub parent: Option<&'a str>,
    /// Where it came from.
    pub origin: &'a SessionOrigin,
}

/// What a reply's referenced message maps to (SES-17).
#[derive(Debug, Clone, PartialEq)]
pub enum ForkLookup {
    /// A record younger than [`FORK_MESSAGE_TTL_SECS`]: resume this session.
    Live {
        /// The fork session to resume.
        fork_session_id: String,
        /// Its parent main session, if any.
        parent_session_id: Option<String>,
        /// When the message was recorded (unix seconds), for the fork's age (IFK-20).
        recorded_at: f64,
        /// What a reply resumes it with.
        origin: SessionOrigin,
    },
    /// The message was a fork's, but its record is older than the TTL (RPL-3).
    Expired,
    /// No record for this message.
    Unknown,
}

/// Whether a record flushed at `ts` has expired at `now`.
fn expired(ts: f64, now: f64) -> bool {
    now - ts > FORK_MESSAGE_TTL_SECS
}

/// Handle to `state/fork_messages.json`. Cheap to clone; clones share one write lock.
#[derive(Debug, Clone)]
pub struct ForkMessageStore {
    file: StateFile<Format>,
    clock: crate::clock::Clock,
}

impl ForkMessageStore {
    /// A handle for `state/fork_messages.json` under `data_dir`. Touches nothing yet.
    pub fn new(data_dir: &DataDir) -> Self {
        Self {
            file: StateFile::new(data_dir.fork_messages_file()),
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same store, reading time from `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The backing file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Records that `message_ids` came from `session` (SES-15), with one shared timestamp.
    /// See [`ForkMessageStore::record_at`].
    pub fn record(
        &self,
        message_ids: &[u64],
        session: &RecordedSession<'_>,
    ) -> Result<(), StateError> {
        self.record_at(message_ids, session, super::unix_of(self.clock.now()))
    }

    /// [`ForkMessageStore::record`] at `now` (unix seconds).
    ///
    /// Appends one record per id (an id already present is replaced by the new record), drops
    /// records older than the TTL (SES-17, F-33) and rewrites the file atomically. An empty
    /// `message_ids` writes nothing. A corrupt file is moved aside to
    /// `fork_messages.json.corrupt-<last written, unix s>[-<n>]` and the store starts empty; other read
    /// errors are returned without writing.
    pub fn record_at(
        &self,
        message_ids: &[u64],
        session: &RecordedSession<'_>,
        now: f64,
    ) -> Result<(), StateError> {
        if message_ids.is_empty() {
            return Ok(());
        }
        let mut new_ids = HashSet::new();
        let new_ids: Vec<u64> = message_ids
            .iter()
            .copied()
            .filter(|id| new_ids.insert(*id))
            .collect();
        self.file.update(|records| {
            records.retain(|r| !expired(r.ts, now) && !new_ids.contains(&r.message_id));
            records.extend(new_ids.into_iter().map(|message_id| ForkMessageRecord {
                message_id,
                fork_session_id: session.id.to_owned(),
                parent_session_id: session.parent.map(str::to_owned),
                ts: now,
                origin: session.origin.clone(),
            }));
        })
    }

    /// What `message_id` maps to now (SES-17). A damaged file is set aside; one that can't be
    /// read (the owner is told of it) reads as empty and is left as it is.
    pub fn lookup(&self, message_id: u64) -> ForkLookup {
        self.lookup_at(message_id, super::unix_of(self.clock.now()))
    }

    /// [`ForkMessageStore::lookup`] at `now` (unix seconds).
    pub fn lookup_at(&self, message_id: u64, now: f64) -> ForkLookup {
        let records = self
            .file
            .read()
            .map_or_else(|_| Vec::new(), |listed| listed.to_vec());
        // The newest record wins should a hand edit have left duplicates.
        match records
            .into_iter()
            .rev()
            .find(|r| r.message_id == message_id)
        {
            None => ForkLookup::Unknown,
            Some(r) if expired(r.ts, now) => ForkLookup::Expired,
            Some(r) => ForkLookup::Live {
                fork_session_id: r.fork_session_id,
                parent_session_id: r.parent_session_id,
                recorded_at: r.ts,
                origin: r.origin,
            },
        }
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = JsonList<ForkMessageRecord>;

#[cfg(test)]
#[path = "fork_messages_tests.rs"]
mod tests;
