//! Recall as the terminal, the agent's tool and Discord use it: where its sources and index
//! are for a configuration, and the three things asked of it — find, forget, rebuild — each
//! bringing the index up to date with its sources first. Blocking (`SQLite` and the files):
//! async callers run it off their threads.

use std::{collections::BTreeSet, path::PathBuf};

use chrono::{DateTime, Utc};

use super::{
    entry::Entry,
    gather::Places,
    index::{Index, Updated, refreshed},
    query::{Hit, Query},
    words::Words,
};
use crate::{
    config::Config,
    state::{
        paths::DataDir, recall_forgotten::RecallForgotten, untrusted_sessions::UntrustedSessions,
    },
};

/// Recall for one data dir.
#[derive(Debug, Clone)]
pub struct Memory {
    places: Places,
    index_dir: PathBuf,
    /// The language words are matched in (`/config recall_language`).
    language: &'static str,
    forgotten: RecallForgotten,
    untrusted: UntrustedSessions,
}

impl Memory {
    /// Recall over `config`'s data dir and the CLI's transcripts (its config dir and every
    /// container's CLI home), words matched in `language` (`/config recall_language`, read by
    /// the caller once: the daemon through its settings handle); `Err` when the CLI's config
    /// dir can't be found.
    pub fn for_config(config: &Config, language: &'static str) -> Result<Self, String> {
        let data_dir = DataDir::new(&config.data_dir);
        let claude_dir = config.claude_config_dir().ok_or(
            "cannot find the Claude CLI's config dir: set HOME or CLAUDE_CONFIG_DIR".to_owned(),
        )?;
        let homes: Vec<PathBuf> = std::fs::read_dir(data_dir.cli_homes_dir())
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default();
        Ok(Self {
            places: Places {
                data_dir: config.data_dir.clone(),
                claude_dirs: std::iter::once(claude_dir).chain(homes).collect(),
            },
            index_dir: data_dir.recall_index_dir(),
            language,
            forgotten: RecallForgotten::new(data_dir.recall_forgotten_file()),
            untrusted: UntrustedSessions::new(data_dir.untrusted_sessions_file()),
        })
    }

    /// The passages that answer `query` best at `now`.
    pub fn find(&self, query: &Query, now: DateTime<Utc>) -> Result<Vec<Hit>, String> {
        let (index, _) = self.refreshed()?;
        index.search(query, now).map_err(|e| e.to_string())
    }

    /// Removes the passages holding every word of `query`, for good (their fingerprints kept
    /// as tombstones at `now`); returns them.
    pub fn forget(&self, query: &Query, now: DateTime<Utc>) -> Result<Vec<Entry>, String> {
        let (mut index, _) = self.refreshed()?;
        let gone = index.forget(query).map_err(|e| e.to_string())?;
        #[allow(clippy::cast_precision_loss)] // seconds of a date
        let at = now.timestamp() as f64;
        self.forgotten
            .forget(gone.iter().map(Entry::fingerprint), at)
            .map_err(|e| format!("forgotten from the index, but not kept as forgotten: {e}"))?;
        Ok(gone)
    }

    /// Brings the index up to date with its sources (what the daemon does off the turn's
    /// path, so a question reads only what changed since).
    pub fn catch_up(&self) -> Result<Updated, String> {
        self.refreshed().map(|(_, updated)| updated)
    }

    /// Rebuilds the index from its sources.
    pub fn rebuild(&self) -> Result<Updated, String> {
        Index::remove(&self.index_dir).map_err(|e| e.to_string())?;
        self.refreshed().map(|(_, updated)| updated)
    }

    /// The index brought up to date with the sources. What the owner forgot must be readable:
    /// without it a rebuild could bring forgotten passages back.
    fn refreshed(&self) -> Result<(Index, Updated), String> {
        let forgotten: BTreeSet<String> = self
            .forgotten
            .all()
            .map_err(|e| format!("can't read what you told recall to forget: {e}"))?
            .into_keys()
            .collect();
        let untrusted = self.untrusted.all().ok();
        let words = Words::new(self.language).ok_or("recall's language is unknown".to_owned())?;
        refreshed(
            &self.index_dir,
            words,
            &self.places,
            untrusted.as_ref(),
            &forgotten,
        )
        .map_err(|e| e.to_string())
    }
}
