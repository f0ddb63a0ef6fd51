//! What the owner was told unasked, and for which occasion (issue 40 §1, KEEP-5): `state/told.json`
//! maps a notice (`bg_budget`) to the occasion it was last told for (the day, `2026-12-02`), so
//! "told once" holds across a restart.

use std::{collections::BTreeMap, path::PathBuf};

use super::state_file::{Json, StateFile};

/// Handle to `state/told.json`. Cheap to clone; clones share one lock.
#[derive(Debug, Clone)]
pub struct ToldMarks {
    file: StateFile<Format>,
}

impl ToldMarks {
    /// A store backed by `path` (`DataDir::told_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// Whether the owner is still to hear `notice` for `occasion`, marking it told. A file
    /// that can't be read or written answers yes: a notice heard twice beats one never heard
    /// (the owner is told of the file too).
    pub fn first(&self, notice: &str, occasion: &str) -> bool {
        let marked = self.file.update(|told| {
            let first = told.get(notice).is_none_or(|last| last != occasion);
            told.insert(notice.to_owned(), occasion.to_owned());
            first
        });
        marked.unwrap_or_else(|error| {
            tracing::warn!(%error, notice, "can't keep what the owner was told; telling anyway");
            true
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by.
pub(super) type Format = Json<BTreeMap<String, String>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// KEEP-5.
    #[test]
    fn told_once_per_occasion_across_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/told.json");
        let told = ToldMarks::new(&path);
        assert!(told.first("bg_budget", "2026-12-02"));
        assert!(!told.first("bg_budget", "2026-12-02"));
        let restarted = ToldMarks::new(&path);
        assert!(
            !restarted.first("bg_budget", "2026-12-02"),
            "once means once"
        );
        assert!(restarted.first("bg_budget", "2026-12-03"));
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(
            restarted.first("bg_budget", "2026-12-03"),
            "told when unsure"
        );
    }
}
