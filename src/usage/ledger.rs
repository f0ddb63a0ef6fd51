//! The ledger's files: one JSON line per record, one file per month in UTC
//! (`state/usage/2026-11.jsonl`), so a year is twelve small files and a window reads only the
//! months it covers (USE-2). A line is written whole in one `write` to a file opened for
//! appending, so concurrent writers (the daemon, `chat`) never interleave inside one, and is
//! synced before the append returns; a line that doesn't parse (a cut-off last line after a
//! power loss) is skipped and counted, never fatal.

use std::{
    io::Write as _,
    path::{Path, PathBuf},
};

use chrono::{DateTime, Datelike, Utc};

use super::record::UsageRecord;

/// Why the ledger could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// A filesystem operation failed on `path`.
    #[error("usage ledger I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be encoded.
    #[error("could not encode a usage record: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The records a read found, and how many lines it skipped as unreadable.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Read {
    /// The records, oldest file first, in the order written.
    pub records: Vec<UsageRecord>,
    /// Lines that did not parse.
    pub skipped: usize,
}

/// The ledger under one directory (normally `state/usage/`).
#[derive(Debug, Clone)]
pub struct UsageLedger {
    dir: PathBuf,
}

impl UsageLedger {
    /// The ledger in `dir`. Touches nothing yet.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The month file a record finished at `at` goes to.
    pub fn file_for(&self, at: DateTime<Utc>) -> PathBuf {
        self.dir
            .join(format!("{:04}-{:02}.jsonl", at.year(), at.month()))
    }

    /// Appends `record` to its month's file, synced (USE-2).
    pub fn append(&self, record: &UsageRecord) -> Result<(), LedgerError> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        std::fs::create_dir_all(&self.dir).map_err(|source| LedgerError::Io {
            path: self.dir.clone(),
            source,
        })?;
        let path = self.file_for(record.at);
        let io = |source| LedgerError::Io {
            path: path.clone(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        file.write_all(&line).map_err(io)?;
        file.sync_data().map_err(io)
    }

    /// Every record finished at or after `since`. A missing ledger reads as empty.
    pub fn read_since(&self, since: DateTime<Utc>) -> Result<Read, LedgerError> {
        let first = format!("{:04}-{:02}.jsonl", since.year(), since.month());
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Read::default());
            }
            Err(source) => {
                return Err(LedgerError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| is_month_file(name) && *name >= first)
            .collect();
        names.sort();
        let mut read = Read::default();
        for name in names {
            let path = self.dir.join(&name);
            let text = std::fs::read_to_string(&path)
                .map_err(|source| LedgerError::Io { path, source })?;
            for line in text.lines().filter(|line| !line.trim().is_empty()) {
                match serde_json::from_str::<UsageRecord>(line) {
                    Ok(record) if record.at >= since => read.records.push(record),
                    Ok(_) => {}
                    Err(_) => read.skipped += 1,
                }
            }
        }
        if read.skipped > 0 {
            tracing::warn!(skipped = read.skipped, dir = %self.dir.display(), "unreadable usage ledger lines skipped");
        }
        Ok(read)
    }
}

/// `YYYY-MM.jsonl`.
fn is_month_file(name: &str) -> bool {
    let Some(month) = name.strip_suffix(".jsonl") else {
        return false;
    };
    let bytes = month.as_bytes();
    bytes.len() == 7
        && bytes[4] == b'-'
        && bytes[..4].iter().chain(&bytes[5..]).all(u8::is_ascii_digit)
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
