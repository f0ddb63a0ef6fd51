//! Recall's index: one `SQLite` file under `state/recall/` with an `FTS5` table of the passages'
//! stems (BM25) beside the passages themselves and the stamp of each source they came from.
//! Kept up to date by reading again only the sources whose stamp moved; rebuilt from the
//! sources when the file is damaged, gone, or was built for another language. What the owner
//! forgot never goes in.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags, params};

use super::{
    entry::{Entry, Kind, Origin},
    gather::{Places, Source, Stamp, read},
    query::{Hit, MOST, Query},
    rank,
    words::{Asked, Words},
};

/// The index file's name inside its folder.
const FILE: &str = "index.sqlite3";

/// The layout and reading of the sources written by this code; another one is rebuilt (2:
/// updates are passages of their own, apart from the owner's words).
const SCHEMA: &str = "2";

/// How many passages text relevance hands to the recency ranking.
const CANDIDATES: usize = 200;

/// How long a second writer waits for the first.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The page cache the index keeps (KiB): small, so it costs little at rest.
const CACHE_KIB: i64 = 512;

/// Why the index couldn't answer.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// `SQLite` failed (a damaged file is rebuilt before this is returned).
    #[error("recall's index failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The folder can't be made or the damaged file can't be removed.
    #[error("recall's index can't be kept at {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// What an update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Updated {
    /// Sources read (new or changed).
    pub read: usize,
    /// Sources whose passages were dropped (gone or changed).
    pub dropped: usize,
    /// Passages in the index now.
    pub passages: usize,
}

/// The open index.
pub struct Index {
    connection: Connection,
    words: Words,
}

impl Index {
    /// Opens (or makes) the index in `dir`, stemming in `words`' language. A file that is
    /// damaged, of another layout or another language is removed and made again empty (the
    /// next update fills it from the sources).
    pub fn open(dir: &Path, words: Words) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(FILE);
        match Self::open_file(&path, &words) {
            Ok(Some(connection)) => return Ok(Self { connection, words }),
            Ok(None) => tracing::info!(
                "recall's index was made for another layout or language; rebuilding it"
            ),
            Err(error) => tracing::warn!(%error, "recall's index is damaged; rebuilding it"),
        }
        Self::remove(dir)?;
        let connection = Self::open_file(&path, &words)?
            .ok_or_else(|| IndexError::Sqlite(rusqlite::Error::InvalidQuery))?;
        Ok(Self { connection, words })
    }

    /// Removes the index in `dir` (`--reindex`): the next open starts empty.
    pub fn remove(dir: &Path) -> Result<(), IndexError> {
        let path = dir.join(FILE);
        for file in [path.clone(), path.with_extension("sqlite3-journal")] {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(IndexError::Io { path: file, source }),
            }
        }
        Ok(())
    }

    /// The connection to `path` with the layout made, or `None` when the file holds another
    /// layout or language.
    fn open_file(path: &Path, words: &Words) -> Result<Option<Connection>, rusqlite::Error> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags)?;
        // The daemon's tool and the terminal may catch the index up at once: one waits.
        connection.busy_timeout(BUSY_WAIT)?;
        connection.pragma_update(None, "cache_size", -CACHE_KIB)?;
        connection.pragma_update(None, "mmap_size", 0)?;
        let check: String = connection.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
        if check != "ok" {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(check),
            ));
        }
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS sources (
                 origin TEXT PRIMARY KEY, changed INTEGER NOT NULL, length INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS passages (
                 id INTEGER PRIMARY KEY, origin TEXT NOT NULL, at INTEGER NOT NULL,
                 kind TEXT NOT NULL, untrusted INTEGER NOT NULL, fingerprint TEXT NOT NULL,
                 text TEXT NOT NULL);
             CREATE INDEX IF NOT EXISTS passages_origin ON passages (origin);
             CREATE VIRTUAL TABLE IF NOT EXISTS stems USING fts5 (body, tokenize = 'unicode61');",
        )?;
        for (key, want) in [("schema", SCHEMA), ("language", words.language())] {
            let have: Option<String> = connection
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                    row.get(0)
                })
                .ok();
            match have {
                None => {
                    connection.execute(
                        "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                        params![key, want],
                    )?;
                }
                Some(have) if have == want => {}
                Some(_) => return Ok(None),
            }
        }
        Ok(Some(connection))
    }

    /// Brings the index up to date with `sources` (see [`Places::list`]): passages of sources
    /// that are gone or changed are dropped, new and changed sources read (through `read`,
    /// their passages whose fingerprint is in `forgotten` left out).
    pub fn update(
        &mut self,
        sources: &BTreeMap<Origin, Source>,
        read_source: impl Fn(&Source) -> Vec<Entry>,
        forgotten: &BTreeSet<String>,
    ) -> Result<Updated, IndexError> {
        let known = self.stamps()?;
        let mut updated = Updated::default();
        let transaction = self.connection.transaction()?;
        for (origin, _) in known.iter().filter(|(origin, stamp)| {
            sources
                .get(*origin)
                .is_none_or(|source| source.stamp != **stamp)
        }) {
            drop_source(&transaction, &origin.handle())?;
            updated.dropped += 1;
        }
        for source in sources.values() {
            if known.get(&source.origin) == Some(&source.stamp) {
                continue;
            }
            let handle = source.origin.handle();
            for entry in read_source(source) {
                let fingerprint = entry.fingerprint();
                if forgotten.contains(&fingerprint) {
                    continue;
                }
                transaction.execute(
                    "INSERT INTO passages (origin, at, kind, untrusted, fingerprint, text)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        handle,
                        entry.at.timestamp(),
                        entry.kind.name(),
                        entry.untrusted,
                        fingerprint,
                        entry.text
                    ],
                )?;
                let id = transaction.last_insert_rowid();
                transaction.execute(
                    "INSERT INTO stems (rowid, body) VALUES (?1, ?2)",
                    params![id, self.words.stems(&entry.text)],
                )?;
            }
            // Nanoseconds since 1970 fit i64 until 2262; a length past i64 is no note.
            let changed = i64::try_from(source.stamp.0).unwrap_or(i64::MAX);
            let length = i64::try_from(source.stamp.1).unwrap_or(i64::MAX);
            transaction.execute(
                "INSERT OR REPLACE INTO sources (origin, changed, length) VALUES (?1, ?2, ?3)",
                params![handle, changed, length],
            )?;
            updated.read += 1;
        }
        transaction.commit()?;
        updated.passages = self.count()?;
        Ok(updated)
    }

    /// The passages that answer `query` best, relevance lifted for recency at `now`.
    pub fn search(&self, query: &Query, now: DateTime<Utc>) -> Result<Vec<Hit>, IndexError> {
        let asked = self.words.asked(&query.words);
        let mut hits = Vec::new();
        for (mut hit, body) in self.matching(&Asked::every_stem(&asked), " OR ", query)? {
            let found: BTreeSet<&str> = body.split(' ').collect();
            let covered = rank::covered(&asked, &found);
            let relevance = rank::covering(hit.score, covered, asked.len());
            hit.score = rank::score(relevance, hit.entry.at, now);
            hits.push(hit);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut hits = rank::distinct(hits);
        hits.truncate(query.limit.clamp(1, MOST));
        Ok(hits)
    }

    /// Removes the passages holding every word of `query` (within its dates and kinds, at
    /// most [`MOST`]) and returns them; the caller keeps their fingerprints as tombstones.
    pub fn forget(&mut self, query: &Query) -> Result<Vec<Entry>, IndexError> {
        let stems = self.words.query_stems(&query.words);
        if stems.is_empty() {
            return Ok(Vec::new());
        }
        let mut hits: Vec<Hit> = self
            .matching(&stems, " AND ", query)?
            .into_iter()
            .map(|(hit, _)| hit)
            .collect();
        hits.truncate(MOST);
        let fingerprints: Vec<String> = hits.iter().map(|hit| hit.entry.fingerprint()).collect();
        let transaction = self.connection.transaction()?;
        for fingerprint in &fingerprints {
            transaction.execute(
                "DELETE FROM stems WHERE rowid IN (SELECT id FROM passages WHERE fingerprint = ?1)",
                [fingerprint],
            )?;
            transaction.execute("DELETE FROM passages WHERE fingerprint = ?1", [fingerprint])?;
        }
        transaction.commit()?;
        Ok(hits.into_iter().map(|hit| hit.entry).collect())
    }

    /// How many passages the index holds.
    pub fn count(&self) -> Result<usize, IndexError> {
        let count: i64 = self
            .connection
            .query_row("SELECT count(*) FROM passages", [], |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The passages matching `stems` joined by `join` (` OR `, ` AND `), within `query`'s
    /// dates and kinds, best text relevance first, their score that relevance, each with the
    /// stems the index holds for it.
    fn matching(
        &self,
        stems: &[String],
        join: &str,
        query: &Query,
    ) -> Result<Vec<(Hit, String)>, IndexError> {
        if stems.is_empty() {
            return Ok(Vec::new());
        }
        // Each stem quoted: nothing in a question is read as `FTS5` syntax.
        let expression = stems
            .iter()
            .map(|stem| format!("\"{}\"", stem.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(join);
        let since = query.since.map_or(i64::MIN, |at| at.timestamp());
        let until = query.until.map_or(i64::MAX, |at| at.timestamp());
        let mut statement = self.connection.prepare_cached(
            "SELECT p.origin, p.at, p.kind, p.untrusted, p.text, bm25(stems), stems.body
             FROM stems JOIN passages p ON p.id = stems.rowid
             WHERE stems MATCH ?1 AND p.at >= ?2 AND p.at < ?3
             ORDER BY bm25(stems) LIMIT ?4",
        )?;
        #[allow(clippy::cast_possible_wrap)] // a small constant
        let limit = CANDIDATES as i64;
        let rows = statement.query_map(params![expression, since, until, limit], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, bool>(3)?,
                row.get::<_, String>(4)?,
                row.get::<_, f64>(5)?,
                row.get::<_, String>(6)?,
            ))
        })?;
        let mut hits = Vec::new();
        for row in rows {
            let (origin, at, kind, untrusted, text, bm25, body) = row?;
            let (Some(origin), Some(kind), Some(at)) = (
                Origin::from_handle(&origin),
                Kind::from_name(&kind),
                DateTime::<Utc>::from_timestamp(at, 0),
            ) else {
                continue;
            };
            let entry = Entry {
                at,
                kind,
                origin,
                untrusted,
                text,
            };
            if query.admits(&entry) {
                // `FTS5`'s bm25 is negative, better the lower.
                let hit = Hit {
                    entry,
                    score: -bm25,
                };
                hits.push((hit, body));
            }
        }
        Ok(hits)
    }

    /// Each indexed source's stamp.
    fn stamps(&self) -> Result<BTreeMap<Origin, Stamp>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT origin, changed, length FROM sources")?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })?;
        let mut stamps = BTreeMap::new();
        for row in rows {
            let (origin, changed, length) = row?;
            if let Some(origin) = Origin::from_handle(&origin) {
                let stamp = (
                    u128::try_from(changed).unwrap_or(0),
                    u64::try_from(length).unwrap_or(0),
                );
                stamps.insert(origin, stamp);
            }
        }
        Ok(stamps)
    }
}

/// Drops the passages of the source named `handle`, and its stamp.
fn drop_source(
    transaction: &rusqlite::Transaction<'_>,
    handle: &str,
) -> Result<(), rusqlite::Error> {
    transaction.execute(
        "DELETE FROM stems WHERE rowid IN (SELECT id FROM passages WHERE origin = ?1)",
        [handle],
    )?;
    transaction.execute("DELETE FROM passages WHERE origin = ?1", [handle])?;
    transaction.execute("DELETE FROM sources WHERE origin = ?1", [handle])?;
    Ok(())
}

/// Brings the index in `dir` up to date with the sources at `places`: the one call the
/// daemon, the terminal and the tool make before they search.
pub fn refreshed(
    dir: &Path,
    words: Words,
    places: &Places,
    untrusted: Option<&BTreeMap<String, f64>>,
    forgotten: &BTreeSet<String>,
) -> Result<(Index, Updated), IndexError> {
    let mut index = Index::open(dir, words)?;
    let sources = places.list();
    let updated = index.update(&sources, |source| read(source, untrusted), forgotten)?;
    Ok((index, updated))
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
