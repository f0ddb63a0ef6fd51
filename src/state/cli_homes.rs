//! Which container home holds each Claude session's transcript (issue 39, BOX-5). Every CLI the bot
//! starts gets a config dir of its own (`state/cli_homes/<name>/`); the transcript of a session
//! is read back on resume, so only the home of the CLI that reported the session is trusted
//! for it, never a file another session's CLI wrote under the same id.
//!
//! `state/cli_homes.json` maps a session id to its home's name and when it was recorded (unix
//! seconds). The newest [`KEPT`] are kept; an older session is long out of use.

use std::{collections::BTreeMap, path::PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// How many sessions are remembered.
const KEPT: usize = 5000;

/// One session's home.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HomeRecord {
    /// The home's folder name under `state/cli_homes/`.
    pub home: String,
    /// When it was recorded (unix seconds).
    pub at: f64,
}

/// Handle to `state/cli_homes.json`. Cheap to clone; clones share one write lock.
#[derive(Debug, Clone)]
pub struct CliHomeBook {
    file: StateFile<Format>,
    clock: crate::clock::Clock,
}

impl CliHomeBook {
    /// A store backed by `path` (`DataDir::cli_homes_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same store, dating its records by `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The home that holds `session`, if known.
    pub fn home_of(&self, session: &str) -> Result<Option<String>, StateError> {
        let known = self.file.read()?;
        Ok(known.get(session).map(|record| record.home.clone()))
    }

    /// Every home named, newest record first.
    pub fn homes(&self) -> Result<Vec<String>, StateError> {
        let known = self.file.read()?;
        let mut records: Vec<HomeRecord> = known.into_values().collect();
        records.sort_by(|a, b| b.at.total_cmp(&a.at));
        let mut homes: Vec<String> = Vec::new();
        for record in records {
            if !homes.contains(&record.home) {
                homes.push(record.home);
            }
        }
        Ok(homes)
    }

    /// Records that `session`'s transcript is now kept in `home`.
    pub fn record(&self, session: &str, home: &str) -> Result<(), StateError> {
        self.record_at(session, home, self.clock.unix_secs())
    }

    /// [`CliHomeBook::record`] at `now` (unix seconds).
    pub fn record_at(&self, session: &str, home: &str, now: f64) -> Result<(), StateError> {
        self.file.update(|known| {
            if known.get(session).is_some_and(|record| record.home == home) {
                return;
            }
            known.insert(
                session.to_owned(),
                HomeRecord {
                    home: home.to_owned(),
                    at: now,
                },
            );
            if known.len() > KEPT {
                let mut by_age: Vec<(String, HomeRecord)> =
                    std::mem::take(known).into_iter().collect();
                by_age.sort_by(|a, b| b.1.at.total_cmp(&a.1.at));
                by_age.truncate(KEPT);
                *known = by_age.into_iter().collect();
            }
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<BTreeMap<String, HomeRecord>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_moves_to_the_home_that_last_reported_it_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let book = CliHomeBook::new(dir.path().join("state/cli_homes.json"));
        assert_eq!(book.home_of("s1").unwrap(), None);
        book.record_at("s1", "owner-a", 1.0).unwrap();
        book.record_at("s2", "bg-b", 2.0).unwrap();
        book.record_at("s1", "owner-c", 3.0).unwrap();
        let reopened = CliHomeBook::new(dir.path().join("state/cli_homes.json"));
        assert_eq!(reopened.home_of("s1").unwrap().as_deref(), Some("owner-c"));
        assert_eq!(reopened.homes().unwrap(), vec!["owner-c", "bg-b"]);
    }
}
