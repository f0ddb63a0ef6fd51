//! Which Claude sessions have read untrusted text (issue 23 §4): mail, so far. A session that
//! has holds what the mail said for the rest of its life, across restarts, so the outbound
//! tools (`WebFetch`, `WebSearch`) need the owner's say-so in it: a fetch could carry what it
//! read out.
//!
//! `state/untrusted_sessions.json` maps a session id to when it first read untrusted text
//! (unix seconds). The newest [`KEPT`] are kept; an older session is long out of use.

use std::{collections::BTreeMap, path::PathBuf};

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// How many sessions are remembered.
const KEPT: usize = 500;

/// Handle to `state/untrusted_sessions.json`. Cheap to clone; clones share one write lock.
#[derive(Debug, Clone)]
pub struct UntrustedSessions {
    file: StateFile<Format>,
    clock: crate::clock::Clock,
}

impl UntrustedSessions {
    /// A store backed by `path` (`DataDir::untrusted_sessions_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same store, dating its marks by `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Whether any of `sessions` has read untrusted text. A file that can't be read answers
    /// yes (the owner is told of the file): what can't be checked is held.
    pub fn any(&self, sessions: &[&str]) -> bool {
        match self.file.read() {
            Ok(known) => sessions.iter().any(|id| known.contains_key(*id)),
            Err(error) => {
                tracing::warn!(%error, "holding the outbound tools: the record can't be read");
                !sessions.is_empty()
            }
        }
    }

    /// Every session that read untrusted text, with when it first did (unix seconds).
    pub fn all(&self) -> Result<BTreeMap<String, f64>, StateError> {
        self.file.read()
    }

    /// Records that `session` read untrusted text (once; the first time is kept).
    pub fn mark(&self, session: &str) -> Result<(), StateError> {
        self.mark_at(session, self.clock.unix_secs())
    }

    fn mark_at(&self, session: &str, now: f64) -> Result<(), StateError> {
        self.file.update(|known| {
            if known.contains_key(session) {
                return;
            }
            known.insert(session.to_owned(), now);
            if known.len() > KEPT {
                let mut by_age: Vec<(String, f64)> = std::mem::take(known).into_iter().collect();
                by_age.sort_by(|a, b| b.1.total_cmp(&a.1));
                by_age.truncate(KEPT);
                *known = by_age.into_iter().collect();
            }
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<BTreeMap<String, f64>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_session_stays_marked_and_the_oldest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = UntrustedSessions::new(dir.path().join("state/untrusted_sessions.json"));
        assert!(!store.any(&["a"]));
        store.mark_at("a", 1.0).unwrap();
        store.mark_at("a", 99.0).unwrap();
        assert!(store.any(&["x", "a"]));
        let reopened = UntrustedSessions::new(store.file.path());
        assert!(reopened.any(&["a"]), "it survives a restart");
        for n in 0..KEPT {
            #[allow(clippy::cast_precision_loss)]
            store.mark_at(&format!("s{n}"), 2.0 + n as f64).unwrap();
        }
        assert!(!store.any(&["a"]), "the oldest was dropped");
        assert!(store.any(&["s0", "s499"]));
    }
}
