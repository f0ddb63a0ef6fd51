//! Every source recall reads, listed with a stamp of its current state, and read into
//! passages: the sessions' transcripts (from the CLI's config dir and each container's CLI
//! home) and the markdown of the data dir. An index keeps the stamps it was built from and
//! reads again only what changed.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::SystemTime,
};

use chrono::{DateTime, Utc};

use super::{
    entry::{Entry, Origin},
    sources::{
        files::{file_entries, markdown_files},
        sessions::{SessionPassages, Untrusted},
    },
};
use crate::transcripts::{TranscriptDir, for_each_message};

/// One source as it is now: where to read it and its stamp (last change and length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// What the passages will name as their origin.
    pub origin: Origin,
    /// The file to read.
    pub path: PathBuf,
    /// Its last change and length: the source is read again when either moves.
    pub stamp: Stamp,
}

/// A file's last change (unix nanoseconds) and length.
pub type Stamp = (u128, u64);

/// Where recall's sources are.
#[derive(Debug, Clone)]
pub struct Places {
    /// The data dir (the sessions' working directory; its markdown).
    pub data_dir: PathBuf,
    /// The CLI's config dir, then each container's CLI home (issue 39).
    pub claude_dirs: Vec<PathBuf>,
}

impl Places {
    /// Every source as it is now, by origin.
    pub fn list(&self) -> BTreeMap<Origin, Source> {
        let mut sources = BTreeMap::new();
        if let Some((first, others)) = self.claude_dirs.split_first() {
            let dir = TranscriptDir::for_cwd_in(first, others, &self.data_dir);
            match dir.sessions() {
                Ok(sessions) => {
                    for session in sessions {
                        let Some(stamp) = stamp_of(&session.path) else {
                            continue;
                        };
                        let origin = Origin::Session(session.id.clone());
                        sources.insert(
                            origin.clone(),
                            Source {
                                origin,
                                path: session.path,
                                stamp,
                            },
                        );
                    }
                }
                Err(error) => tracing::warn!(%error, "recall can't list the sessions"),
            }
        }
        for (path, rel) in markdown_files(&self.data_dir) {
            let Some(stamp) = stamp_of(&path) else {
                continue;
            };
            let origin = Origin::File(rel);
            sources.insert(
                origin.clone(),
                Source {
                    origin,
                    path,
                    stamp,
                },
            );
        }
        sources
    }
}

/// The passages of `source`, sessions untrusted as `untrusted` (session id → since, unix
/// seconds; `None`: the record can't be read, so every session counts as untrusted).
pub fn read(source: &Source, untrusted: Option<&BTreeMap<String, f64>>) -> Vec<Entry> {
    match &source.origin {
        Origin::Session(id) => {
            let from = match untrusted {
                None => Untrusted::Always,
                Some(known) => known
                    .get(id)
                    .map_or(Untrusted::Never, |&since| Untrusted::From(since)),
            };
            let mut passages = SessionPassages::new(id, from);
            let file = crate::transcripts::SessionFile {
                id: id.clone(),
                path: source.path.clone(),
                modified: None,
            };
            if let Err(error) = for_each_message(&file, |message| passages.add(message)) {
                tracing::warn!(%error, session = id, "recall can't read a session");
            }
            passages.finish()
        }
        Origin::File(rel) => {
            let at = modified_at(&source.path).unwrap_or(DateTime::<Utc>::MIN_UTC);
            file_entries(&source.path, rel, at).unwrap_or_default()
        }
    }
}

fn stamp_of(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let nanos = meta
        .modified()
        .ok()?
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((nanos, meta.len()))
}

fn modified_at(path: &Path) -> Option<DateTime<Utc>> {
    std::fs::metadata(path)
        .ok()?
        .modified()
        .ok()
        .map(DateTime::<Utc>::from)
}
