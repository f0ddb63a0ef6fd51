//! The main-session id file `state/sessions.json` (SES-1..5, SES-10, SES-11) and the
//! persistent routine session files `state/routine_sessions/<routine-id>` (PRS-2).
//!
//! Both hold a bare session id string (not JSON, no trailing newline needed) and are replaced
//! atomically.

use std::fs;

use std::io;
use std::path::{Path, PathBuf};

use super::StateError;
use super::history::{SessionEventKind, SessionHistory};
use super::paths::DataDir;
use super::state_file::{FileFormat, StateFile};
use crate::claude::SessionId;

/// A bare session id file: empty and `{`-prefixed text mean no session (SES-2, PRS-2), as does
/// text that isn't UTF-8 (left in place); anything else must be a valid id, or the file is
/// set aside and the owner told.
pub struct BareSessionId;

impl FileFormat for BareSessionId {
    type Value = Option<SessionId>;

    fn empty() -> Option<SessionId> {
        None
    }

    fn decode(bytes: &[u8]) -> Result<Option<SessionId>, String> {
        let Ok(text) = std::str::from_utf8(bytes) else {
            tracing::warn!("a session id file is not text; reading it as no session");
            return Ok(None);
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('{') {
            return Ok(None);
        }
        SessionId::parse(trimmed)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    fn encode(value: &Option<SessionId>) -> Result<Vec<u8>, serde_json::Error> {
        Ok(value
            .as_ref()
            .map(|id| id.as_str().as_bytes().to_vec())
            .unwrap_or_default())
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = BareSessionId;

/// What [`SessionStore::save`] found on disk and logged (SES-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveOutcome {
    /// Nothing was stored before; `created` was logged.
    Created,
    /// A different id was stored; `compacted` was logged with it as parent.
    Compacted {
        /// The id that was replaced.
        previous: SessionId,
    },
    /// The same id was already stored; nothing was written or logged.
    Unchanged,
}

/// The main session id store with lifecycle logging. Cheap to clone; clones share one lock so
/// the compare-then-write of [`SessionStore::save`] is not interleaved within the process.
#[derive(Debug, Clone)]
pub struct SessionStore {
    file: StateFile<Format>,
    history: SessionHistory,
}

impl SessionStore {
    /// A store for `state/sessions.json` under `data_dir`, logging to `history`.
    pub fn new(data_dir: &DataDir, history: SessionHistory) -> Self {
        Self {
            file: StateFile::new(data_dir.sessions_file()),
            history,
        }
    }

    /// The session file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The history log this store appends to.
    pub fn history(&self) -> &SessionHistory {
        &self.history
    }

    /// The stored main session id, if any (SES-1, SES-2); a file that can't be read is an
    /// error, so the main session never starts over one it could resume.
    pub fn current(&self) -> Result<Option<SessionId>, StateError> {
        self.file.read()
    }

    /// [`Self::current`] for what is only shown or compared: a file that can't be read
    /// (the owner is told of it) reads as no session.
    pub fn load(&self) -> Option<SessionId> {
        self.current().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the main session id");
            None
        })
    }

    /// Stores `id`, logging `created` (nothing stored before) or `compacted` (a different id
    /// stored, which becomes the parent); an identical id is left alone (SES-3).
    ///
    /// A failure to append the history line is logged but does not fail the save: the id on
    /// disk is what matters for resuming.
    pub fn save(&self, id: &SessionId) -> Result<SaveOutcome, StateError> {
        let outcome = self.file.update(|stored| {
            let outcome = match stored.take() {
                None => SaveOutcome::Created,
                Some(previous) if previous == *id => SaveOutcome::Unchanged,
                Some(previous) => SaveOutcome::Compacted { previous },
            };
            *stored = Some(id.clone());
            outcome
        })?;
        let (kind, parent) = match &outcome {
            SaveOutcome::Unchanged => return Ok(outcome),
            SaveOutcome::Compacted { previous } => (SessionEventKind::Compacted, Some(previous)),
            SaveOutcome::Created => (SessionEventKind::Created, None),
        };
        self.log_quietly(id, kind, parent);
        Ok(outcome)
    }

    /// Stores a promoted fork's id without change detection and logs `swapped` with the
    /// previous main id as parent (SES-10).
    pub fn save_swapped(
        &self,
        id: &SessionId,
        previous: Option<&SessionId>,
    ) -> Result<(), StateError> {
        self.file.update(|stored| *stored = Some(id.clone()))?;
        self.log_quietly(id, SessionEventKind::Swapped, previous);
        Ok(())
    }

    /// Logs `cleared` for the current id (only if one is stored), then deletes the session
    /// file (SES-5, SES-11). Returns the id that was cleared.
    pub fn clear(&self) -> Result<Option<SessionId>, StateError> {
        let current = self.file.take()?;
        if let Some(id) = &current {
            self.log_quietly(id, SessionEventKind::Cleared, None);
        }
        Ok(current)
    }

    /// Appends an arbitrary event (forks, restarts, persistent runs: SES-8, SES-9, SES-12).
    pub fn log(
        &self,
        id: &SessionId,
        kind: SessionEventKind,
        parent: Option<&SessionId>,
    ) -> Result<(), StateError> {
        self.history.append(id, kind, parent)
    }

    fn log_quietly(&self, id: &SessionId, kind: SessionEventKind, parent: Option<&SessionId>) {
        if let Err(e) = self.history.append(id, kind, parent) {
            tracing::warn!(error = %e, event = %kind, "could not log session event");
        }
    }
}

/// Whether `id` is safe as a file name: non-empty, only `[A-Za-z0-9_-]`.
fn valid_routine_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Session ids of persistent routines, one bare-string file per routine id (PRS-2).
#[derive(Debug, Clone)]
pub struct RoutineSessionStore {
    dir: PathBuf,
}

impl RoutineSessionStore {
    /// A store for `state/routine_sessions/` under `data_dir`.
    pub fn new(data_dir: &DataDir) -> Self {
        Self {
            dir: data_dir.routine_sessions_dir(),
        }
    }

    fn file(&self, routine_id: &str) -> Result<StateFile<Format>, StateError> {
        if valid_routine_id(routine_id) {
            Ok(StateFile::new(self.dir.join(routine_id)))
        } else {
            Err(StateError::InvalidRoutineId(routine_id.to_owned()))
        }
    }

    /// The routine's stored session id; `None` for no file, an empty/invalid file, or an
    /// invalid routine id (PRS-3: first fire starts fresh).
    pub fn load(&self, routine_id: &str) -> Option<SessionId> {
        match self.file(routine_id) {
            Ok(file) => file.read().unwrap_or_else(|error| {
                tracing::warn!(%error, "cannot read the routine's session; it starts fresh");
                None
            }),
            Err(e) => {
                tracing::warn!(error = %e, "not loading routine session");
                None
            }
        }
    }

    /// Stores the routine's session id atomically (PRS-3, PRS-4).
    pub fn save(&self, routine_id: &str, id: &SessionId) -> Result<(), StateError> {
        self.file(routine_id)?
            .update(|stored| *stored = Some(id.clone()))
    }

    /// Deletes the routine's session file; `true` if one existed (PRS-10).
    pub fn remove(&self, routine_id: &str) -> Result<bool, StateError> {
        self.file(routine_id)?.remove()
    }

    /// Routine ids that currently have a session file, sorted (for PRS-10 cleanup).
    pub fn routine_ids(&self) -> Vec<String> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) => {
                if e.kind() != io::ErrorKind::NotFound {
                    tracing::warn!(dir = %self.dir.display(), error = %e, "cannot list routine sessions");
                }
                return Vec::new();
            }
        };
        let mut ids: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| valid_routine_id(name))
            .collect();
        ids.sort();
        ids
    }
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
