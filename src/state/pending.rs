//! Pending updates (PUP): short summaries that forks leave for the main session.
//!
//! Stored as a JSON array in `state/pending_updates.json` (PUP-1). Appends, pops and clears are
//! serialised by the lock every clone of [`PendingUpdates`] shares (PUP-2, D.4); peeks read
//! without it, relying on the atomic replace of the file.

use std::path::Path;

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use super::StateError;
use super::paths::DataDir;
use super::state_file::{Json, StateFile};

/// One pending update as stored in `state/pending_updates.json` (PUP-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingUpdate {
    /// When the update was written (ISO-8601 with offset, configured zone).
    pub ts: DateTime<FixedOffset>,
    /// The summary text written by the agent.
    pub message: String,
}

/// Header line over the updates the main session consumes with a prompt (CTX-2, [S0]
/// wording; `agent::prompt::context` writes the block, recall reads past it).
pub const CONSUME_HEADER: &str =
    "RECENT BACKGROUND UPDATES (mention key findings in your response):";

/// Header line over the updates a fork only peeks at (CTX-3, [S0] wording).
pub const PEEK_HEADER: &str =
    "RECENT BACKGROUND UPDATES (read-only — main session will also see these):";

/// Most entries kept in the file, the omission sentinel included (PUP-3).
pub const MAX_PENDING_UPDATES: usize = 10;

const SENTINEL_PREFIX: &str = "(";
const SENTINEL_SUFFIX: &str = " earlier update(s) omitted — cap reached)";

/// The sentinel text for `omitted` dropped updates (PUP-3).
fn sentinel_message(omitted: usize) -> String {
    format!("{SENTINEL_PREFIX}{omitted}{SENTINEL_SUFFIX}")
}

/// The count carried by a sentinel message, or `None` for a real update.
fn sentinel_count(message: &str) -> Option<usize> {
    message
        .strip_prefix(SENTINEL_PREFIX)?
        .strip_suffix(SENTINEL_SUFFIX)?
        .parse()
        .ok()
}

/// Enforces the cap after an append (PUP-3, F-51).
///
/// When over [`MAX_PENDING_UPDATES`], keeps the newest `MAX - 1` real updates behind a sentinel
/// whose count is cumulative: the updates dropped now plus whatever an earlier sentinel (always
/// the first entry) had already counted.
fn apply_cap(mut updates: Vec<PendingUpdate>, now: DateTime<FixedOffset>) -> Vec<PendingUpdate> {
    if updates.len() <= MAX_PENDING_UPDATES {
        return updates;
    }
    let mut omitted = 0;
    if let Some(count) = updates.first().and_then(|u| sentinel_count(&u.message)) {
        omitted += count;
        updates.remove(0);
    }
    let keep = MAX_PENDING_UPDATES - 1;
    let excess = updates.len().saturating_sub(keep);
    omitted += excess;
    let mut capped = Vec::with_capacity(MAX_PENDING_UPDATES);
    capped.push(PendingUpdate {
        ts: now,
        message: sentinel_message(omitted),
    });
    capped.extend(updates.into_iter().skip(excess));
    capped
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Vec<PendingUpdate>>;

/// Handle to the pending-updates file. Clones share one lock (PUP-2).
#[derive(Debug, Clone)]
pub struct PendingUpdates {
    file: StateFile<Format>,
    tz: chrono_tz::Tz,
    clock: crate::clock::Clock,
}

impl PendingUpdates {
    /// A handle for `state/pending_updates.json` under `data_dir`, timestamping in `tz`.
    pub fn new(data_dir: &DataDir, tz: chrono_tz::Tz) -> Self {
        Self {
            file: StateFile::new(data_dir.pending_updates_file()),
            tz,
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same store, timestamping with `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Appends `message` timestamped now, applying the cap (PUP-2, PUP-3).
    pub fn append(&self, message: &str) -> Result<(), StateError> {
        self.append_at(message, super::stored_time_in(self.clock.now(), self.tz))
    }

    /// [`PendingUpdates::append`] at a given time (`now` as [`super::stored_time_in`] gives
    /// it): the entry's `ts` and, when the cap is reached, the sentinel's. A damaged file is
    /// set aside first (`state::set_aside`).
    pub fn append_at(&self, message: &str, now: DateTime<FixedOffset>) -> Result<(), StateError> {
        self.file.update(|updates| {
            updates.push(PendingUpdate {
                ts: now,
                message: message.to_owned(),
            });
            *updates = apply_cap(std::mem::take(updates), now);
        })
    }

    /// Reads and deletes the file under the lock, so each update is consumed once (PUP-4).
    pub fn pop(&self) -> Result<Vec<PendingUpdate>, StateError> {
        self.file.take()
    }

    /// Reads without deleting (PUP-5). A file that can't be read (the owner is told of it)
    /// reads as none: it stays for a later pop.
    pub fn peek(&self) -> Vec<PendingUpdate> {
        self.file.read().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the pending updates");
            Vec::new()
        })
    }

    /// Deletes the file (PUP-6).
    pub fn clear(&self) -> Result<(), StateError> {
        self.file.remove().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn setup() -> (tempfile::TempDir, PendingUpdates) {
        let dir = tempfile::tempdir().unwrap();
        let p = PendingUpdates::new(&DataDir::new(dir.path()), chrono_tz::UTC);
        (dir, p)
    }

    fn at(minute: u32) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(&format!("2026-02-24T10:{minute:02}:00-08:00")).unwrap()
    }

    fn messages(updates: &[PendingUpdate]) -> Vec<String> {
        updates.iter().map(|u| u.message.clone()).collect()
    }

    #[test]
    fn sentinel_text_round_trips() {
        assert_eq!(
            sentinel_message(3),
            "(3 earlier update(s) omitted — cap reached)"
        );
        assert_eq!(sentinel_count(&sentinel_message(42)), Some(42));
        assert_eq!(
            sentinel_count("(x earlier update(s) omitted — cap reached)"),
            None
        );
        assert_eq!(sentinel_count("checked email"), None);
    }

    #[tokio::test]
    async fn cap_keeps_nine_newest_with_cumulative_sentinel() {
        let (_dir, p) = setup();
        for i in 1..=12 {
            p.append_at(&format!("u{i}"), at(i)).unwrap();
        }
        let got = p.peek();
        assert_eq!(got.len(), MAX_PENDING_UPDATES);
        assert_eq!(
            got[0].message,
            "(3 earlier update(s) omitted — cap reached)"
        );
        assert_eq!(got[0].ts, at(12));
        let expected: Vec<String> = (4..=12).map(|i| format!("u{i}")).collect();
        assert_eq!(messages(&got[1..]), expected);

        p.append_at("u13", at(13)).unwrap();
        p.append_at("u14", at(14)).unwrap();
        let got = p.peek();
        assert_eq!(got.len(), MAX_PENDING_UPDATES);
        assert_eq!(
            got[0].message,
            "(5 earlier update(s) omitted — cap reached)"
        );
        let expected: Vec<String> = (6..=14).map(|i| format!("u{i}")).collect();
        assert_eq!(messages(&got[1..]), expected);
    }

    #[tokio::test]
    async fn file_format_matches_spec() {
        let (_dir, p) = setup();
        p.append_at("Checked your morning emails — 3 need replies.", at(15))
            .unwrap();
        let text = fs::read_to_string(p.path()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            serde_json::json!([{
                "ts": "2026-02-24T10:15:00-08:00",
                "message": "Checked your morning emails — 3 need replies."
            }])
        );
    }

    /// Also drives the clock-reading wrapper, [`PendingUpdates::append`].
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_appends_lose_nothing() {
        let (_dir, p) = setup();
        let tasks: Vec<_> = (0..5)
            .map(|i| {
                let p = p.clone();
                tokio::spawn(async move { p.append(&format!("job {i}")) })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        let mut got = messages(&p.peek());
        got.sort();
        assert_eq!(got, ["job 0", "job 1", "job 2", "job 3", "job 4"]);
    }

    #[tokio::test]
    async fn pop_consumes_once_and_peek_does_not() {
        let (_dir, p) = setup();
        assert!(p.pop().unwrap().is_empty());
        p.append_at("a", at(1)).unwrap();
        p.append_at("b", at(2)).unwrap();
        assert_eq!(messages(&p.peek()), ["a", "b"]);
        assert_eq!(p.peek()[1].ts, at(2));
        assert_eq!(messages(&p.peek()), ["a", "b"]);
        assert_eq!(messages(&p.pop().unwrap()), ["a", "b"]);
        assert!(!p.path().exists());
        assert!(p.pop().unwrap().is_empty());
        p.append_at("c", at(3)).unwrap();
        p.clear().unwrap();
        assert!(p.peek().is_empty());
        p.clear().unwrap();
    }

    #[tokio::test]
    async fn corrupt_file_is_moved_aside() {
        let (dir, p) = setup();
        fs::create_dir_all(dir.path().join("state")).unwrap();
        fs::write(p.path(), "[{\"ts\": oops").unwrap();
        assert!(p.peek().is_empty());
        p.append_at("fresh", at(4)).unwrap();
        assert_eq!(messages(&p.peek()), ["fresh"]);
        let aside: Vec<String> = fs::read_dir(dir.path().join("state"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("pending_updates.json.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1);
        let kept = fs::read_to_string(dir.path().join("state").join(&aside[0])).unwrap();
        assert_eq!(kept, "[{\"ts\": oops");

        fs::write(p.path(), "not json").unwrap();
        assert!(p.pop().unwrap().is_empty());
        assert!(!p.path().exists());
        let aside_count = fs::read_dir(dir.path().join("state"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy()
                    .starts_with("pending_updates.json.corrupt-")
            })
            .count();
        assert_eq!(
            aside_count, 2,
            "second quarantine must not overwrite the first"
        );
    }
}
