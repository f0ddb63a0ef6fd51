//! What the owner told recall to forget (issue 42 §2): the fingerprints of the forgotten
//! passages' words, kept as tombstones so a rebuild of the index from its sources never brings
//! them back. `state/recall_forgotten.json` maps each fingerprint to when it was forgotten
//! (unix seconds).

use std::{collections::BTreeMap, path::PathBuf};

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// Handle to `state/recall_forgotten.json`. Cheap to clone; clones share one write lock.
#[derive(Debug, Clone)]
pub struct RecallForgotten {
    file: StateFile<Format>,
}

impl RecallForgotten {
    /// A store backed by `path` (`DataDir::recall_forgotten_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// Every tombstone: fingerprint → when it was forgotten.
    pub fn all(&self) -> Result<BTreeMap<String, f64>, StateError> {
        self.file.read()
    }

    /// Forgets `fingerprints` at `now` (unix seconds); the first time is kept.
    pub fn forget(
        &self,
        fingerprints: impl IntoIterator<Item = String>,
        now: f64,
    ) -> Result<(), StateError> {
        let fingerprints: Vec<String> = fingerprints.into_iter().collect();
        self.file.update(|known| {
            for fingerprint in fingerprints {
                known.entry(fingerprint).or_insert(now);
            }
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<BTreeMap<String, f64>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A tombstone stays, dated by its first forgetting.
    #[test]
    fn forgotten_stays_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store = RecallForgotten::new(dir.path().join("recall_forgotten.json"));
        assert!(store.all().unwrap().is_empty());
        store
            .forget(["a".to_owned(), "b".to_owned()], 10.0)
            .unwrap();
        store.forget(["a".to_owned()], 20.0).unwrap();
        let all = store.all().unwrap();
        assert_eq!(all.get("a"), Some(&10.0));
        assert_eq!(all.len(), 2);
    }
}
