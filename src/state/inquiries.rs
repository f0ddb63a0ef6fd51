//! Button inquiries (BTN-3, BTN-4, BTN-12): prompts behind `agent:` buttons.
//!
//! `state/inquiries.json` maps 8-hex ids to `{"prompt": ..., "ts": <unix seconds, float>}`.
//! The file is the source of truth and is re-read on every operation, so every clone of one
//! [`InquiryStore`] sees the same entries; a shared mutex serialises read-modify-write cycles
//! so concurrent registers and pops never lose entries. Entries older than seven days are
//! dropped on every read and write. Operations are small blocking file I/O.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::state::StateError;
use crate::state::state_file::{JsonMap, Keyed, StateFile};

/// How long an inquiry stays clickable, in seconds (7 days, BTN-12).
pub const INQUIRY_TTL_SECS: f64 = 7.0 * 24.0 * 60.0 * 60.0;

/// Length of an inquiry id in hex characters (BTN-3).
pub const INQUIRY_ID_LEN: usize = 8;

/// One stored inquiry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Inquiry {
    /// The prompt sent to the agent when the button is clicked.
    prompt: String,
    /// Registration time, unix seconds.
    ts: f64,
}

type Entries = Keyed<Inquiry>;

/// The inquiry store behind `agent:` buttons. Clones share one lock; create one per data dir
/// and hand out clones.
#[derive(Debug, Clone)]
pub struct InquiryStore {
    file: StateFile<Format>,
    clock: crate::clock::Clock,
}

/// Whether an entry registered at `ts` has expired at `now`.
fn expired(ts: f64, now: f64) -> bool {
    now - ts > INQUIRY_TTL_SECS
}

impl InquiryStore {
    /// A store backed by `path` (normally `DataDir::inquiries_file()`). Touches nothing yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
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

    /// Registers `prompt` and returns its new 8-hex id (BTN-2/3).
    pub fn register(&self, prompt: &str) -> Result<String, StateError> {
        self.register_at(prompt, super::unix_of(self.clock.now()))
    }

    /// [`InquiryStore::register`] at a given time (unix seconds).
    pub fn register_at(&self, prompt: &str, now: f64) -> Result<String, StateError> {
        self.file.update(|entries| {
            prune(entries, now);
            let id = super::fresh_id(INQUIRY_ID_LEN, |id| {
                entries.contains_key(id) || entries.unread().contains_key(id)
            });
            entries.insert(
                id.clone(),
                Inquiry {
                    prompt: prompt.to_owned(),
                    ts: now,
                },
            );
            id
        })
    }

    /// Removes and returns the prompt for `id`; `None` when unknown, already used or expired
    /// (BTN-4: consumed once).
    ///
    /// A failure to persist the removal is logged, not returned: the click still proceeds, and
    /// at worst the button works once more after a restart.
    pub fn pop(&self, id: &str) -> Option<String> {
        self.pop_at(id, super::unix_of(self.clock.now()))
    }

    /// [`InquiryStore::pop`] at a given time (unix seconds).
    pub fn pop_at(&self, id: &str, now: f64) -> Option<String> {
        let popped = self.file.update(|entries| {
            prune(entries, now);
            entries.remove(id).map(|inquiry| inquiry.prompt)
        });
        popped.unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the button prompts");
            None
        })
    }

    /// Number of live (unexpired) inquiries at `now`; for status and tests.
    pub fn len_at(&self, now: f64) -> usize {
        self.file.read().map_or(0, |entries| {
            entries
                .values()
                .filter(|inquiry| !expired(inquiry.ts, now))
                .count()
        })
    }
}

/// Drops the entries expired at `now`.
fn prune(entries: &mut Entries, now: f64) {
    entries.retain(|_, inquiry| !expired(inquiry.ts, now));
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = JsonMap<Inquiry>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const T0: f64 = 1_740_000_000.0;
    const DAY: f64 = 24.0 * 60.0 * 60.0;

    fn store() -> (tempfile::TempDir, InquiryStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = InquiryStore::new(dir.path().join("state").join("inquiries.json"));
        (dir, store)
    }

    #[test]
    fn register_then_pop_once() {
        let (_dir, store) = store();
        let id = store.register_at("Summarise my emails", T0).unwrap();
        assert_eq!(id.len(), INQUIRY_ID_LEN);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(
            store.pop_at(&id, T0 + 1.0).as_deref(),
            Some("Summarise my emails")
        );
        assert_eq!(store.pop_at(&id, T0 + 2.0), None);
        assert_eq!(store.pop_at("ffffffff", T0), None);
    }

    #[test]
    fn file_format_matches_the_spec() {
        let (_dir, store) = store();
        let id = store.register_at("Summarise my emails", T0).unwrap();
        let text = fs::read_to_string(store.path()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({ id: { "prompt": "Summarise my emails", "ts": T0 } })
        );
        assert!(text.contains("1740000000.0"), "{text}");
    }

    #[test]
    fn reads_files_written_by_the_python_bot() {
        let (_dir, store) = store();
        fs::create_dir_all(store.path().parent().unwrap()).unwrap();
        fs::write(
            store.path(),
            r#"{"a1b2c3d4": {"prompt": "Summarise my emails", "ts": 1740000000.0}}"#,
        )
        .unwrap();
        assert_eq!(
            store.pop_at("a1b2c3d4", T0 + DAY).as_deref(),
            Some("Summarise my emails")
        );
    }

    #[test]
    fn entries_expire_after_seven_days() {
        let (_dir, store) = store();
        let old = store.register_at("old", T0).unwrap();
        let fresh = store.register_at("fresh", T0 + 6.0 * DAY).unwrap();
        assert_eq!(store.len_at(T0 + 7.0 * DAY), 2);
        assert_eq!(store.len_at(T0 + 7.0 * DAY + 1.0), 1);
        assert_eq!(store.pop_at(&old, T0 + 7.0 * DAY + 1.0), None);
        assert_eq!(
            store.pop_at(&fresh, T0 + 7.0 * DAY + 1.0).as_deref(),
            Some("fresh")
        );
    }

    #[test]
    fn expired_entries_are_pruned_from_the_file_on_write() {
        let (_dir, store) = store();
        let old = store.register_at("old", T0).unwrap();
        store.register_at("new", T0 + 8.0 * DAY).unwrap();
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(!text.contains(&old), "{text}");
        assert!(!text.contains("\"old\""), "{text}");
    }

    #[test]
    fn a_miss_still_persists_pruning() {
        let (_dir, store) = store();
        store.register_at("old", T0).unwrap();
        assert_eq!(store.pop_at("00000000", T0 + 8.0 * DAY), None);
        let value: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(store.path()).unwrap()).unwrap();
        assert_eq!(value, serde_json::json!({}));
    }

    #[test]
    fn corrupt_file_is_kept_aside_and_the_store_starts_empty() {
        let (dir, store) = store();
        let state = dir.path().join("state");
        fs::create_dir_all(&state).unwrap();
        fs::write(store.path(), b"{not json").unwrap();
        let id = store.register_at("after corruption", T0).unwrap();
        assert_eq!(
            fs::read(&crate::state::set_aside::copies_of(store.path())[0]).unwrap(),
            b"{not json"
        );
        assert_eq!(store.pop_at(&id, T0).as_deref(), Some("after corruption"));
    }

    #[test]
    fn malformed_entries_are_dropped_individually() {
        let (_dir, store) = store();
        fs::create_dir_all(store.path().parent().unwrap()).unwrap();
        fs::write(
            store.path(),
            r#"{"aaaaaaaa": {"prompt": 3}, "bbbbbbbb": {"prompt": "ok", "ts": 1740000000}}"#,
        )
        .unwrap();
        assert_eq!(store.len_at(T0), 1);
        assert_eq!(store.pop_at("bbbbbbbb", T0).as_deref(), Some("ok"));
    }

    #[test]
    fn concurrent_registers_and_pops_lose_nothing() {
        let (_dir, store) = store();
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let store = store.clone();
                std::thread::spawn(move || {
                    (0..10)
                        .map(|i| {
                            let prompt = format!("p{t}-{i}");
                            (store.register_at(&prompt, T0).unwrap(), prompt)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let all: Vec<(String, String)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        assert_eq!(store.len_at(T0), 80);
        let poppers: Vec<_> = all
            .chunks(10)
            .map(|chunk| {
                let store = store.clone();
                let chunk = chunk.to_vec();
                std::thread::spawn(move || {
                    for (id, prompt) in chunk {
                        assert_eq!(store.pop_at(&id, T0).as_deref(), Some(prompt.as_str()));
                    }
                })
            })
            .collect();
        for p in poppers {
            p.join().unwrap();
        }
        assert_eq!(store.len_at(T0), 0);
    }
}
