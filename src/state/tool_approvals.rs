//! The owner's one-time approvals of tool patterns that agent-writable files declare
//! (`state/tool_approvals.json`).
//!
//! Per source (`routine:<id>`, `skill:<name>`, …) the file keeps the approved and the denied
//! patterns, and the open approval requests: one per source, with the Discord message that
//! carries its buttons, so a click is honoured only on that message. The file is re-read on
//! every operation; a mutex serialises read-modify-write cycles within the process. A file
//! that can't be read counts as empty: every new pattern is then asked about again, which is
//! the safe direction.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
};

use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};
use crate::tool_policy::Approval;

/// The owner's decisions for one source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decisions {
    /// Granted from now on.
    #[serde(default)]
    pub approved: BTreeSet<String>,
    /// Withheld, not asked again.
    #[serde(default)]
    pub denied: BTreeSet<String>,
    /// The version of the job the approvals hold for (a hash of the whole job: its text, how
    /// and when it runs, and every option, issue 23 §2 and issue 39 §4): any change makes it
    /// another version, which starts with nothing approved. A version of the older format
    /// (text, tools, skills and subagent only) never equals a current one, so such approvals
    /// are asked about again. `None` for sources approved without one (skills, subagents:
    /// their content is approved as a whole elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl Decisions {
    /// These decisions as they hold for `version` of the job: approvals made for another
    /// version (or for none) don't count; denials always do.
    #[must_use]
    pub fn at(&self, version: Option<&str>) -> Self {
        match version {
            Some(v) if self.version.as_deref() != Some(v) => Self {
                approved: BTreeSet::new(),
                denied: self.denied.clone(),
                version: Some(v.to_owned()),
            },
            _ => self.clone(),
        }
    }

    /// Records `patterns` as approved for `version`, dropping approvals of another version.
    fn approve(&mut self, patterns: &[String], version: Option<&str>) {
        if version.is_some() && self.version.as_deref() != version {
            self.approved.clear();
            self.version = version.map(str::to_owned);
        }
        for pattern in patterns {
            self.denied.remove(pattern);
            self.approved.insert(pattern.clone());
        }
    }

    /// The decision on `pattern`.
    pub fn approval(&self, pattern: &str) -> Approval {
        if self.approved.contains(pattern) {
            Approval::Approved
        } else if self.denied.contains(pattern) {
            Approval::Denied
        } else {
            Approval::Undecided
        }
    }
}

/// An open question to the owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// The source key, e.g. `routine:a1b2c3d4`.
    pub source: String,
    /// The file declaring the patterns, relative to the data dir.
    pub file: String,
    /// The patterns asked about.
    pub patterns: Vec<String>,
    /// The Discord message with the buttons, once posted.
    #[serde(default)]
    pub message_id: Option<u64>,
    /// The job version the request is about (see [`Decisions::version`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// How a click on an approval button went (tool approvals, and with `R` the content
/// approvals' requests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecideOutcome<R = ApprovalRequest> {
    /// Recorded; the request is closed.
    Decided(R),
    /// No such open request (already answered, or replaced by a newer one).
    NotPending,
    /// The click came from another message than the one the bot posted for this request.
    WrongMessage,
    /// The bot's post of the request is still on its way, so the click can't be matched to
    /// it yet (an owner quicker than the post's answer).
    NotPostedYet,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Stored {
    #[serde(default)]
    sources: BTreeMap<String, Decisions>,
    #[serde(default)]
    requests: BTreeMap<String, ApprovalRequest>,
}

/// The approval store; clones share one lock.
#[derive(Debug, Clone)]
pub struct ToolApprovals {
    file: StateFile<Format>,
}

impl ToolApprovals {
    /// A store backed by `path` (`DataDir::tool_approvals_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// The decisions for `source`.
    pub fn decisions(&self, source: &str) -> Decisions {
        self.snapshot().remove(source).unwrap_or_default()
    }

    /// Every source's decisions, read once: for passes over many sources (a scheduler sync,
    /// the main session's tool set).
    pub fn snapshot(&self) -> BTreeMap<String, Decisions> {
        self.file.read().map_or_else(
            |error| {
                tracing::warn!(%error, "cannot read the tool approvals; nothing counts as approved");
                BTreeMap::new()
            },
            |stored| stored.sources,
        )
    }

    /// Records `patterns` as approved for `version` of `source` (the owner's own shell, or a
    /// click) and closes that source's open request when it is now fully answered.
    pub fn approve(
        &self,
        source: &str,
        patterns: &[String],
        version: Option<&str>,
    ) -> Result<(), StateError> {
        self.file.update(|stored| {
            let decisions = stored.sources.entry(source.to_owned()).or_default();
            decisions.approve(patterns, version);
            let decided = decisions.clone();
            stored.requests.retain(|_, request| {
                request.source != source
                    || request
                        .patterns
                        .iter()
                        .any(|p| decided.approval(p) == Approval::Undecided)
            });
        })
    }

    /// Opens a request for `patterns` of `source` unless one covering them is open already;
    /// returns the new request's id, which the caller posts buttons for. A newer request
    /// replaces the source's older one.
    pub fn open_request(
        &self,
        source: &str,
        file: &str,
        patterns: &[String],
        version: Option<&str>,
    ) -> Result<Option<String>, StateError> {
        self.file.update(|stored| {
            let covered = stored.requests.values().any(|request| {
                request.source == source
                    && request.version.as_deref() == version
                    && patterns.iter().all(|p| request.patterns.contains(p))
            });
            if covered || patterns.is_empty() {
                return None;
            }
            stored
                .requests
                .retain(|_, request| request.source != source);
            let id = super::fresh_id(8, |id| stored.requests.contains_key(id));
            stored.requests.insert(
                id.clone(),
                ApprovalRequest {
                    source: source.to_owned(),
                    file: file.to_owned(),
                    patterns: patterns.to_vec(),
                    message_id: None,
                    version: version.map(str::to_owned),
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
    /// check asks again.
    pub fn withdraw(&self, id: &str) -> Result<(), StateError> {
        self.file.update(|stored| {
            stored.requests.remove(id);
        })
    }

    /// Answers request `id` from a click on `message_id`.
    pub fn decide(
        &self,
        id: &str,
        approve: bool,
        message_id: u64,
    ) -> Result<DecideOutcome, StateError> {
        self.file.update(|stored| {
            match stored.requests.get(id) {
                None => return DecideOutcome::NotPending,
                Some(request) if request.message_id.is_none() => {
                    return DecideOutcome::NotPostedYet;
                }
                Some(request) if request.message_id != Some(message_id) => {
                    return DecideOutcome::WrongMessage;
                }
                Some(_) => {}
            }
            let Some(request) = stored.requests.remove(id) else {
                return DecideOutcome::NotPending;
            };
            let decisions = stored.sources.entry(request.source.clone()).or_default();
            if approve {
                decisions.approve(&request.patterns, request.version.as_deref());
            } else {
                for pattern in &request.patterns {
                    decisions.approved.remove(pattern);
                    decisions.denied.insert(pattern.clone());
                }
            }
            DecideOutcome::Decided(request)
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Stored>;

#[cfg(test)]
#[path = "tool_approvals_tests.rs"]
mod tests;
