//! Work that was started but may never finish: the owner's message being answered and the
//! background runs in progress (issue 16). A process killed mid-way (`kill -9`, a power cut,
//! a panic) leaves its entries in `state/unfinished.json`; the next start moves them to the
//! interrupted list, and the daemon tells the owner once what was cut off.
//!
//! Starting and finishing work only changes memory; one owned writer task
//! ([`UnfinishedWork::keep_written`]) writes the latest state atomically whenever it
//! changed, so a turn never waits for an fsync and a burst of changes is one write.

use std::{collections::BTreeMap, path::PathBuf};

use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// What was being done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Work {
    /// Answering the owner's message (its first words).
    Reply {
        /// The message, cut short.
        excerpt: String,
    },
    /// A background run.
    Run {
        /// The job's name, e.g. `morning checkin`.
        name: String,
        /// The job's instructions, cut short.
        excerpt: String,
    },
}

/// One piece of work and when it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What it was.
    pub work: Work,
    /// Unix seconds.
    pub started: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Ledger {
    /// Work in progress in this process, by ticket number.
    #[serde(default)]
    running: BTreeMap<u64, Entry>,
    /// Work an earlier process left unfinished, not yet told to the owner.
    #[serde(default)]
    interrupted: Vec<Entry>,
}

/// The ledger of unfinished work; clones share it.
#[derive(Debug, Clone)]
pub struct UnfinishedWork {
    file: StateFile<Format>,
    ledger: watch::Sender<Ledger>,
    clock: crate::clock::Clock,
}

/// Proof that a piece of work started; [`WorkTicket::finish`] crosses it off. Dropping a
/// ticket unfinished (a shutdown that cancelled the work) leaves the work on the ledger, to be
/// reported as interrupted after the next start.
#[derive(Debug)]
#[must_use = "call finish() when the work is done"]
pub struct WorkTicket {
    ledger: watch::Sender<Ledger>,
    number: u64,
}

impl WorkTicket {
    /// The work is done (or failed in a way the owner was already told about).
    pub fn finish(self) {
        let number = self.number;
        self.ledger
            .send_if_modified(|ledger| ledger.running.remove(&number).is_some());
    }
}

/// Cuts `text` to its first line and at most 80 characters.
pub fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    let line = text.trim().lines().next().unwrap_or_default().trim();
    if line.chars().count() <= MAX {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

impl UnfinishedWork {
    /// Opens the ledger at `path`: whatever a previous process left running counts as
    /// interrupted now. A damaged file is set aside and the ledger starts empty; one that
    /// can't be read is left as it is (the owner is told of it), and each write of the
    /// ledger fails until it can be read.
    pub fn open(path: PathBuf) -> Self {
        let file = StateFile::new(path);
        let mut ledger: Ledger = file.read().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the unfinished-work ledger");
            Ledger::default()
        });
        let running = std::mem::take(&mut ledger.running);
        ledger.interrupted.extend(running.into_values());
        ledger.interrupted.sort_by_key(|entry| entry.started);
        Self {
            file,
            ledger: watch::Sender::new(ledger),
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same ledger, dating work by `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Records that `work` started now.
    pub fn begin(&self, work: Work) -> WorkTicket {
        let started = self.clock.now().timestamp();
        let mut number = 0;
        self.ledger.send_modify(|ledger| {
            number = ledger.running.keys().next_back().map_or(1, |last| last + 1);
            ledger.running.insert(number, Entry { work, started });
        });
        WorkTicket {
            ledger: self.ledger.clone(),
            number,
        }
    }

    /// Work earlier processes left unfinished, oldest first.
    pub fn interrupted(&self) -> Vec<Entry> {
        self.ledger.borrow().interrupted.clone()
    }

    /// The owner was told about the first `told` interrupted entries.
    pub fn forget_interrupted(&self, told: usize) {
        self.ledger.send_if_modified(|ledger| {
            let told = told.min(ledger.interrupted.len());
            ledger.interrupted.drain(..told);
            told > 0
        });
    }

    /// Work in progress now.
    pub fn running(&self) -> Vec<Entry> {
        self.ledger.borrow().running.values().cloned().collect()
    }

    /// Writes the ledger whenever it changes, until `stop`; then once more and returns.
    pub async fn keep_written(self, stop: CancellationToken) {
        let mut changes = self.ledger.subscribe();
        // The interrupted entries found at start are written at once, so a second crash
        // before the owner is told doesn't lose them.
        changes.mark_changed();
        loop {
            tokio::select! {
                result = changes.changed() => if result.is_err() { break },
                () = stop.cancelled() => break,
            }
            let snapshot = changes.borrow_and_update().clone();
            self.write(snapshot).await;
        }
        let last = self.ledger.borrow().clone();
        self.write(last).await;
    }

    async fn write(&self, ledger: Ledger) {
        let file = self.file.clone();
        let written = tokio::task::spawn_blocking(move || -> Result<(), StateError> {
            file.update(|stored| *stored = ledger)
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "could not write the unfinished-work ledger"),
            Err(error) => tracing::warn!(%error, "the unfinished-work writer failed"),
        }
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Ledger>;

#[cfg(test)]
#[path = "unfinished_tests.rs"]
mod tests;
