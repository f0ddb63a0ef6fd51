//! Reminders open until answered (issue 28 §1, NAG-4…NAG-8): `state/nags.json`, one entry per
//! reminder or routine id. The scheduler opens one when such a job fires, the nag keeper
//! sends what falls due, and the owner's Done, Snooze, Not today or Drop takes it out or moves
//! it. A change wakes the keeper ([`NagStore::changed`]).
//!
//! A damaged file is set aside and counts as empty: a lost entry means a reminder stops
//! nagging, never that one nags twice. A file that can't be read at all is left as it is: it
//! reads as no nags due, and a change to it is an error (issue 40 §1).

use std::{path::PathBuf, sync::Arc};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};
use crate::domain::open_nag::OpenNag;

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Stored {
    /// The open reminders, oldest first.
    #[serde(default)]
    open: Vec<OpenNag>,
}

/// The store; clones share one lock and one wake-up.
#[derive(Debug, Clone)]
pub struct NagStore {
    file: StateFile<Format>,
    changed: Arc<tokio::sync::Notify>,
}

impl NagStore {
    /// A store backed by `path` (`DataDir::nags_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
            changed: Arc::default(),
        }
    }

    /// Woken whenever an entry is opened, moved or taken out.
    pub fn changed(&self) -> &tokio::sync::Notify {
        &self.changed
    }

    /// Opens `nag`; an entry already open under its id (a routine's earlier fire) is replaced
    /// and returned.
    pub fn open(&self, nag: OpenNag) -> Result<Option<OpenNag>, StateError> {
        let replaced = self.file.update(|stored| {
            let replaced = take(stored, &nag.id);
            stored.open.push(nag);
            replaced
        })?;
        self.changed.notify_one();
        Ok(replaced)
    }

    /// Every open entry, oldest first; none when the file can't be read (the owner is told
    /// of it).
    pub fn all(&self) -> Vec<OpenNag> {
        self.file.read().map_or_else(
            |error| {
                tracing::warn!(%error, "cannot read the open reminders");
                Vec::new()
            },
            |stored| stored.open,
        )
    }

    /// The entry open under `id`.
    pub fn get(&self, id: &str) -> Option<OpenNag> {
        self.all().into_iter().find(|nag| nag.id == id)
    }

    /// The entries with a nag due at `now`, oldest first.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<OpenNag> {
        let mut due = self.all();
        due.retain(|nag| nag.is_due(now));
        due
    }

    /// When the next nag falls due, if any does.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.all().iter().filter_map(|nag| nag.wait.due_at()).min()
    }

    /// Takes the entry under `id` out (answered or dropped) and returns it; `None` when it was
    /// not open (already answered from another card).
    pub fn close(&self, id: &str) -> Result<Option<OpenNag>, StateError> {
        let closed = self.file.update(|stored| take(stored, id))?;
        self.changed.notify_one();
        Ok(closed)
    }

    /// Changes the entry under `id` with `change` and returns it as saved; `None`, and
    /// nothing saved, when it is not open.
    pub fn update(
        &self,
        id: &str,
        change: impl FnOnce(&mut OpenNag),
    ) -> Result<Option<OpenNag>, StateError> {
        let updated = self.file.update(|stored| {
            let nag = stored.open.iter_mut().find(|nag| nag.id == id)?;
            change(nag);
            Some(nag.clone())
        })?;
        if updated.is_some() {
            self.changed.notify_one();
        }
        Ok(updated)
    }
}

fn take(stored: &mut Stored, id: &str) -> Option<OpenNag> {
    let at = stored.open.iter().position(|nag| nag.id == id)?;
    Some(stored.open.remove(at))
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Stored>;

#[cfg(test)]
#[path = "nags_tests.rs"]
mod tests;
