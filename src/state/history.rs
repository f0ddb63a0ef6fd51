//! The session lifecycle log `state/session_history.jsonl` (SES-6, SES-7).
//!
//! One JSON object per line with exactly the keys `session_id`, `event`, `timestamp` and
//! `parent_session_id` (string or `null`). The file is only ever appended to, and every append
//! is git-committed as `session <event>: <first 8 chars of id>`.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use super::StateError;
use super::git::GitRecorder;
use super::paths::DataDir;
use crate::claude::SessionId;

/// The event vocabulary of the history log (SES-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionEventKind {
    /// A session id was saved with nothing on disk before it (SES-3).
    Created,
    /// The main session id changed underneath us (auto or manual compaction, SES-3/SES-13).
    Compacted,
    /// A fork was promoted to be the main session (SES-10).
    Swapped,
    /// `/clear` dropped the main session (SES-11).
    Cleared,
    /// An interactive fork received its first response (SES-8).
    InteractiveFork,
    /// A background fork branched from the main session finished (SES-9).
    BgFork,
    /// An isolated background run finished (SES-9).
    IsolatedBg,
    /// The bot is about to restart itself (SES-12).
    Restarting,
    /// A persistent routine run finished (SES-9, PRS-6).
    PersistentBg,
}

impl SessionEventKind {
    /// The wire name, e.g. `interactive_fork`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Compacted => "compacted",
            Self::Swapped => "swapped",
            Self::Cleared => "cleared",
            Self::InteractiveFork => "interactive_fork",
            Self::BgFork => "bg_fork",
            Self::IsolatedBg => "isolated_bg",
            Self::Restarting => "restarting",
            Self::PersistentBg => "persistent_bg",
        }
    }
}

impl fmt::Display for SessionEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of `session_history.jsonl` (SES-6). Unknown keys are ignored when reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEvent {
    /// The session the event is about.
    pub session_id: String,
    /// What happened.
    pub event: SessionEventKind,
    /// When, ISO-8601 with the configured zone's offset.
    pub timestamp: DateTime<FixedOffset>,
    /// The session it branched from (forks, compaction, swaps), else `null`.
    #[serde(default)]
    pub parent_session_id: Option<String>,
}

/// Appends to and reads the session history log. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SessionHistory {
    path: PathBuf,
    /// `path` relative to the data-dir root, for git.
    rel_path: PathBuf,
    tz: chrono_tz::Tz,
    git: Option<GitRecorder>,
    clock: crate::clock::Clock,
}

impl SessionHistory {
    /// A history log under `data_dir`, timestamping in `tz` and committing each append through
    /// `git` when given.
    pub fn new(data_dir: &DataDir, tz: chrono_tz::Tz, git: Option<GitRecorder>) -> Self {
        Self {
            path: data_dir.history_file(),
            rel_path: Path::new("state").join("session_history.jsonl"),
            tz,
            git,
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same log, timestamping with `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event timestamped now, then queues its git commit (SES-6).
    ///
    /// Commits run later on the [`GitRecorder`] worker and pick up the file as it is then, so
    /// appends that land before the worker gets to them share the first one's commit (the
    /// later jobs find nothing left to commit). No line is ever left uncommitted.
    pub fn append(
        &self,
        session: &SessionId,
        kind: SessionEventKind,
        parent: Option<&SessionId>,
    ) -> Result<(), StateError> {
        self.append_at(
            session,
            kind,
            parent,
            super::stored_time_in(self.clock.now(), self.tz),
        )
    }

    fn append_at(
        &self,
        session: &SessionId,
        kind: SessionEventKind,
        parent: Option<&SessionId>,
        timestamp: DateTime<FixedOffset>,
    ) -> Result<(), StateError> {
        let event = SessionEvent {
            session_id: session.as_str().to_owned(),
            event: kind,
            timestamp,
            parent_session_id: parent.map(|p| p.as_str().to_owned()),
        };
        let mut line =
            serde_json::to_string(&event).map_err(|e| StateError::json(&self.path, e))?;
        line.push('\n');
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|e| StateError::io(dir, e))?;
        }
        // One write on an O_APPEND descriptor keeps concurrent lines from interleaving.
        let appended = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|e| StateError::io(&self.path, e));
        super::disk_space::SPACE.note_write(&self.path, &appended);
        appended?;
        tracing::debug!(session = session.short(), event = %kind, "session event logged");
        if let Some(git) = &self.git {
            git.commit(
                self.rel_path.clone(),
                format!("session {kind}: {}", session.short()),
            );
        }
        Ok(())
    }

    /// Every readable event, oldest first. Blank lines, lines not starting with `{` and lines
    /// that do not parse are skipped (SES-7); a missing file is an empty history.
    pub fn read_all(&self) -> Vec<SessionEvent> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "cannot read session history");
                return Vec::new();
            }
        };
        text.lines()
            .map(str::trim)
            .filter(|line| line.starts_with('{'))
            .filter_map(|line| match serde_json::from_str(line) {
                Ok(event) => Some(event),
                Err(e) => {
                    tracing::debug!(error = %e, "skipping unreadable session history line");
                    None
                }
            })
            .collect()
    }

    /// Time of the most recent `created` event of any session: the session age reference of
    /// the `/compact` stats line (SES-13).
    pub fn last_created_at(&self) -> Option<DateTime<FixedOffset>> {
        self.read_all()
            .into_iter()
            .rev()
            .find(|e| e.event == SessionEventKind::Created)
            .map(|e| e.timestamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sid(s: &str) -> SessionId {
        SessionId::parse(s).unwrap()
    }

    fn ts(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    #[test]
    fn kinds_serialise_snake_case() {
        let all = [
            (SessionEventKind::Created, "created"),
            (SessionEventKind::Compacted, "compacted"),
            (SessionEventKind::Swapped, "swapped"),
            (SessionEventKind::Cleared, "cleared"),
            (SessionEventKind::InteractiveFork, "interactive_fork"),
            (SessionEventKind::BgFork, "bg_fork"),
            (SessionEventKind::IsolatedBg, "isolated_bg"),
            (SessionEventKind::Restarting, "restarting"),
            (SessionEventKind::PersistentBg, "persistent_bg"),
        ];
        for (kind, name) in all {
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
            assert_eq!(kind.to_string(), name);
        }
    }

    #[test]
    fn lines_have_exactly_four_keys() {
        let dir = tempfile::tempdir().unwrap();
        let h = SessionHistory::new(&DataDir::new(dir.path()), chrono_tz::UTC, None);
        let t = ts("2026-02-24T15:00:00-08:00");
        h.append_at(&sid("sess_abc"), SessionEventKind::Created, None, t)
            .unwrap();
        h.append_at(
            &sid("sess_def"),
            SessionEventKind::BgFork,
            Some(&sid("sess_abc")),
            t,
        )
        .unwrap();
        let text = fs::read_to_string(h.path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"session_id":"sess_abc","event":"created","timestamp":"2026-02-24T15:00:00-08:00","parent_session_id":null}"#,
                r#"{"session_id":"sess_def","event":"bg_fork","timestamp":"2026-02-24T15:00:00-08:00","parent_session_id":"sess_abc"}"#,
            ]
        );
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn read_all_is_lenient() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        data.ensure_layout().unwrap();
        let h = SessionHistory::new(&data, chrono_tz::UTC, None);
        assert!(h.read_all().is_empty());
        assert_eq!(h.last_created_at(), None);
        fs::write(
            h.path(),
            concat!(
                "{\"session_id\":\"a\",\"event\":\"created\",\"timestamp\":\"2026-01-01T08:00:00+00:00\",\"parent_session_id\":null}\n",
                "\n",
                "garbage\n",
                "{not json\n",
                "{\"session_id\":\"b\",\"event\":\"compacted\",\"timestamp\":\"2026-01-02T08:00:00+00:00\",\"parent_session_id\":\"a\",\"extra\":1}\n",
                "{\"session_id\":\"c\",\"event\":\"teleported\",\"timestamp\":\"2026-01-03T08:00:00+00:00\",\"parent_session_id\":null}\n",
                "  {\"session_id\":\"d\",\"event\":\"created\",\"timestamp\":\"2026-01-04T09:30:00+01:00\"}\n",
                "{\"session_id\":\"e\",\"event\":\"cleared\",\"timestamp\":\"2026-01-05T08:00:00+00:00\",\"parent_session_id\":null}",
            ),
        )
        .unwrap();
        let events = h.read_all();
        let ids: Vec<&str> = events.iter().map(|e| e.session_id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "d", "e"]);
        assert_eq!(events[1].parent_session_id.as_deref(), Some("a"));
        assert_eq!(events[2].parent_session_id, None);
        assert_eq!(h.last_created_at(), Some(ts("2026-01-04T09:30:00+01:00")));
    }

    #[tokio::test]
    async fn append_commits_history_file() {
        use crate::state::git::init_repo_with;
        use crate::state::git::test_support::{git_out, isolated_env};
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let env = isolated_env(home.path());
        init_repo_with(dir.path(), &env).unwrap();
        let (git, worker) = GitRecorder::spawn_with_env(dir.path().to_path_buf(), env.clone());
        let h = SessionHistory::new(&DataDir::new(dir.path()), chrono_tz::UTC, Some(git.clone()));
        h.append(&sid("abcd1234-5678"), SessionEventKind::Created, None)
            .unwrap();
        git.flush().await;
        h.append(
            &sid("ef012345-6789"),
            SessionEventKind::Compacted,
            Some(&sid("abcd1234-5678")),
        )
        .unwrap();
        worker.shutdown().await;
        assert_eq!(
            git_out(dir.path(), &env, &["log", "--format=%s"]),
            "session compacted: ef012345\nsession created: abcd1234\n"
        );
        assert_eq!(
            git_out(dir.path(), &env, &["ls-files"]),
            "state/session_history.jsonl\n"
        );
    }

    #[tokio::test]
    async fn back_to_back_appends_are_all_committed() {
        use crate::state::git::init_repo_with;
        use crate::state::git::test_support::{git_out, isolated_env};
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let env = isolated_env(home.path());
        init_repo_with(dir.path(), &env).unwrap();
        let (git, worker) = GitRecorder::spawn_with_env(dir.path().to_path_buf(), env.clone());
        let h = SessionHistory::new(&DataDir::new(dir.path()), chrono_tz::UTC, Some(git));
        for kind in [SessionEventKind::Cleared, SessionEventKind::Created] {
            h.append(&sid("abcd1234"), kind, None).unwrap();
        }
        worker.shutdown().await;
        // The lines may share one commit, but none is left uncommitted.
        assert_eq!(
            git_out(
                dir.path(),
                &env,
                &["show", "HEAD:state/session_history.jsonl"]
            ),
            fs::read_to_string(h.path()).unwrap()
        );
        assert_eq!(git_out(dir.path(), &env, &["status", "--porcelain"]), "");
        assert!(
            git_out(dir.path(), &env, &["log", "--format=%s"])
                .contains("session cleared: abcd1234")
        );
    }

    #[tokio::test]
    async fn append_uses_zone_and_queues_commit_message() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let (git, worker) = GitRecorder::spawn(dir.path().to_path_buf());
        let h = SessionHistory::new(&data, chrono_tz::Asia::Tokyo, Some(git));
        h.append(&sid("abcd1234ffff"), SessionEventKind::Created, None)
            .unwrap();
        let events = h.read_all();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].timestamp.offset().local_minus_utc(), 9 * 3600);
        assert_eq!(h.last_created_at(), Some(events[0].timestamp));
        // Not a git repo here: the queued commit is a logged no-op.
        worker.shutdown().await;
    }
}
