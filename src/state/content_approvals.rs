//! The owner's approvals of executable content — skills, slash commands, subagents, the
//! project settings — by the exact bytes (`state/content_approvals.json`, issue 23 §2).
//!
//! Per item (`skill:<name>`, `subagent:<name>`, …) the file keeps the content hash the owner
//! approved and the one they denied, and the open requests: one per item, with the Discord
//! message that carries its buttons, so a click is honoured only on that message and only for
//! the bytes it showed. The file lives in `state/`, which the agent's box can neither read nor
//! write. A file that can't be read counts as empty: nothing is then loaded until approved
//! again, the safe direction.

use std::{collections::BTreeMap, path::PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// The owner's decision on one version of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentDecision {
    /// These bytes may be loaded.
    Approved,
    /// These bytes were refused; not asked about again.
    Denied,
    /// Not answered yet.
    Undecided,
}

/// An open question to the owner about one version of an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentRequest {
    /// The item key, e.g. `skill:weekly-plan`.
    pub key: String,
    /// The content hash the request shows.
    pub hash: String,
    /// The item's path, relative to the data dir.
    pub file: String,
    /// The Discord message with the buttons, once posted.
    #[serde(default)]
    pub message_id: Option<u64>,
}

/// How a click on a content approval button went.
pub type ContentOutcome = super::tool_approvals::DecideOutcome<ContentRequest>;

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Stored {
    #[serde(default)]
    approved: BTreeMap<String, String>,
    #[serde(default)]
    denied: BTreeMap<String, String>,
    #[serde(default)]
    requests: BTreeMap<String, ContentRequest>,
}

/// The decisions, read once (for a pass over every item).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContentDecisions {
    approved: BTreeMap<String, String>,
    denied: BTreeMap<String, String>,
}

impl ContentDecisions {
    /// The decision on `key` at `hash`.
    pub fn decision(&self, key: &str, hash: &str) -> ContentDecision {
        if self.approved.get(key).is_some_and(|h| h == hash) {
            ContentDecision::Approved
        } else if self.denied.get(key).is_some_and(|h| h == hash) {
            ContentDecision::Denied
        } else {
            ContentDecision::Undecided
        }
    }
}

/// The approval store; clones share one lock.
#[derive(Debug, Clone)]
pub struct ContentApprovals {
    file: StateFile<Format>,
}

impl ContentApprovals {
    /// A store backed by `path` (`DataDir::content_approvals_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// Every decision, read once.
    pub fn decisions(&self) -> ContentDecisions {
        let stored = self.file.read().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the content approvals; nothing counts as approved");
            Stored::default()
        });
        ContentDecisions {
            approved: stored.approved,
            denied: stored.denied,
        }
    }

    /// Records `hash` as the approved version of `key` (the owner's shell, or a click) and
    /// closes the item's open request.
    pub fn approve(&self, key: &str, hash: &str) -> Result<(), StateError> {
        self.record(key, hash, true)
    }

    fn record(&self, key: &str, hash: &str, approve: bool) -> Result<(), StateError> {
        self.file.update(|stored| {
            if approve {
                stored.denied.remove(key);
                stored.approved.insert(key.to_owned(), hash.to_owned());
            } else {
                stored.denied.insert(key.to_owned(), hash.to_owned());
            }
            stored.requests.retain(|_, request| request.key != key);
        })
    }

    /// Opens a request for `key` at `hash` unless one for these bytes is open already;
    /// returns the new request's id. A request for another version of the item is replaced.
    pub fn open_request(
        &self,
        key: &str,
        hash: &str,
        file: &str,
    ) -> Result<Option<String>, StateError> {
        self.file.update(|stored| {
            if stored
                .requests
                .values()
                .any(|r| r.key == key && r.hash == hash)
            {
                return None;
            }
            stored.requests.retain(|_, request| request.key != key);
            let id = super::fresh_id(8, |id| stored.requests.contains_key(id));
            stored.requests.insert(
                id.clone(),
                ContentRequest {
                    key: key.to_owned(),
                    hash: hash.to_owned(),
                    file: file.to_owned(),
                    message_id: None,
                },
            );
            Some(id)
        })
    }

    /// Remembers the message that carries request `id`'s buttons.
    pub fn set_message(&self, id: &str, message_id: u64) -> Result<(), StateError> {
        self.file.update(|stored| {
            if let Some(request) = stored.requests.get_mut(id) {
                request.message_id = Some(message_id);
            }
        })
    }

    /// Drops request `id` without a decision (its message could not be posted), so the next
    /// start asks again.
    pub fn withdraw(&self, id: &str) -> Result<(), StateError> {
        self.file.update(|stored| {
            stored.requests.remove(id);
        })
    }

    /// Answers request `id` from a click on `message_id`: the hash it showed is what is
    /// approved or denied, whatever the file holds by now.
    pub fn decide(
        &self,
        id: &str,
        approve: bool,
        message_id: u64,
    ) -> Result<ContentOutcome, StateError> {
        let request = {
            let stored = self.file.read()?;
            match stored.requests.get(id) {
                None => return Ok(ContentOutcome::NotPending),
                Some(r) if r.message_id.is_none() => return Ok(ContentOutcome::NotPostedYet),
                Some(r) if r.message_id != Some(message_id) => {
                    return Ok(ContentOutcome::WrongMessage);
                }
                Some(r) => r.clone(),
            }
        };
        self.record(&request.key, &request.hash, approve)?;
        Ok(ContentOutcome::Decided(request))
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Stored>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_holds_for_its_bytes_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = ContentApprovals::new(dir.path().join("a.json"));
        store.approve("skill:x", "h1").unwrap();
        let decisions = store.decisions();
        assert_eq!(
            decisions.decision("skill:x", "h1"),
            ContentDecision::Approved
        );
        assert_eq!(
            decisions.decision("skill:x", "h2"),
            ContentDecision::Undecided
        );
        assert_eq!(
            decisions.decision("skill:y", "h1"),
            ContentDecision::Undecided
        );
    }

    #[test]
    fn a_click_decides_the_shown_bytes_on_its_own_message_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = ContentApprovals::new(dir.path().join("a.json"));
        let id = store
            .open_request("skill:x", "h1", "skills/x")
            .unwrap()
            .unwrap();
        assert_eq!(
            store.open_request("skill:x", "h1", "skills/x").unwrap(),
            None
        );
        store.set_message(&id, 7).unwrap();
        assert_eq!(
            store.decide(&id, true, 8).unwrap(),
            ContentOutcome::WrongMessage
        );
        assert!(matches!(
            store.decide(&id, false, 7).unwrap(),
            ContentOutcome::Decided(_)
        ));
        assert_eq!(
            store.decisions().decision("skill:x", "h1"),
            ContentDecision::Denied
        );
        assert_eq!(
            store.decide(&id, true, 7).unwrap(),
            ContentOutcome::NotPending
        );
        // A new version is a new question, replacing nothing approved.
        let newer = store.open_request("skill:x", "h2", "skills/x").unwrap();
        assert!(newer.is_some());
    }

    #[test]
    fn a_corrupt_file_approves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, "{not json").unwrap();
        let store = ContentApprovals::new(&path);
        assert_eq!(
            store.decisions().decision("skill:x", "h1"),
            ContentDecision::Undecided
        );
    }
}
