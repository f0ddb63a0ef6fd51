//! Loading the `routines/` and `reminders/` folders: every file parsed (only changed ones
//! when a [`LoadCache`] is kept, and only the files named when the caller knows which changed,
//! issue 17), broken files reported, never a panic (RTN-6, REM-12).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono_tz::Tz;

use super::keys::{reminder_notes, routine_notes};
use super::store::{REMINDERS, ROUTINES};
use super::{FileProblem, JobFile, Reminder, Routine, parse_reminder, parse_routine};
use crate::state::paths::DataDir;

/// Every routine in `routines/` (file-name order), and the files that could not be used.
/// A missing folder is empty; nothing here panics or stops at a bad file (RTN-6).
pub fn load_routines(data_dir: &DataDir) -> (Vec<JobFile<Routine>>, Vec<FileProblem>) {
    load_routines_cached(data_dir, &mut LoadCache::default())
}

/// Every reminder in `reminders/` (file-name order), and the files that could not be used.
/// Naive `run-at` values are read in `tz`.
pub fn load_reminders(data_dir: &DataDir, tz: Tz) -> (Vec<JobFile<Reminder>>, Vec<FileProblem>) {
    load_reminders_cached(data_dir, tz, &mut LoadCache::default())
}

/// The `*.md` files of `data_dir/<folder>` as (file name, path relative to the data dir),
/// sorted by name. Directories and other non-files are skipped.
pub(super) fn md_files(data_dir: &DataDir, folder: &str) -> io::Result<Vec<(String, PathBuf)>> {
    Ok(stamped_md_files(data_dir, folder)?
        .into_iter()
        .map(|(name, rel, _)| (name, rel))
        .collect())
}

/// When and how big a file was, to tell whether it changed since it was last parsed.
type Stamp = (Option<SystemTime>, u64);

fn stamped_md_files(data_dir: &DataDir, folder: &str) -> io::Result<Vec<(String, PathBuf, Stamp)>> {
    let dir = data_dir.root().join(folder);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if !name.as_encoded_bytes().ends_with(b".md") {
            continue;
        }
        let meta = match fs::metadata(entry.path()) {
            Ok(meta) if meta.is_file() => meta,
            _ => {
                tracing::debug!(path = %entry.path().display(), "not a regular file; skipped");
                continue;
            }
        };
        let stamp = (meta.modified().ok(), meta.len());
        let name = name.to_string_lossy().into_owned();
        files.push((name, Path::new(folder).join(entry.file_name()), stamp));
    }
    files.sort();
    Ok(files)
}

/// The text of a job file, or why it could not be read.
pub(super) fn read_text(path: &Path) -> Result<String, String> {
    let bytes = fs::read(path).map_err(|e| format!("could not read the file: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the file is not valid UTF-8 text".to_owned())
}

/// Parsed files remembered between loads, keyed by path (so in file-name order) and checked
/// against each file's modification time and size, so a sync re-parses only what changed.
#[derive(Debug)]
pub struct LoadCache<T> {
    entries: BTreeMap<PathBuf, (Stamp, Result<Parsed<T>, String>)>,
}

/// A job file that parsed, with its notes (unknown keys, issue 24 §4).
#[derive(Debug)]
struct Parsed<T> {
    item: T,
    notes: Vec<String>,
}

/// How one folder's files are read: the parser, and what is worth noting about a file that
/// parsed.
struct Reader<P> {
    parse: P,
    notes: fn(&str) -> Vec<String>,
}

impl<T, P: Fn(&str) -> Result<T, String>> Reader<P> {
    fn read(&self, path: &Path) -> Result<Parsed<T>, String> {
        let text = read_text(path)?;
        let item = (self.parse)(&text)?;
        Ok(Parsed {
            item,
            notes: (self.notes)(&text),
        })
    }
}

impl<T> Default for LoadCache<T> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
        }
    }
}

impl<T> LoadCache<T> {
    /// Brings the entry of one file (path relative to the data dir) up to date: dropped when
    /// the file is gone or not a regular `*.md` file, parsed again when its stamp changed.
    fn refresh_one<P: Fn(&str) -> Result<T, String>>(
        &mut self,
        data_dir: &DataDir,
        rel: &Path,
        reader: &Reader<P>,
    ) {
        let is_md = rel
            .file_name()
            .is_some_and(|name| name.as_encoded_bytes().ends_with(b".md"));
        let meta = match fs::metadata(data_dir.root().join(rel)) {
            Ok(meta) if is_md && meta.is_file() => meta,
            _ => {
                self.entries.remove(rel);
                return;
            }
        };
        let stamp = (meta.modified().ok(), meta.len());
        if matches!(self.entries.get(rel), Some((seen, _)) if *seen == stamp && stamp.0.is_some()) {
            return;
        }
        let parsed = reader.read(&data_dir.root().join(rel));
        self.entries.insert(rel.to_path_buf(), (stamp, parsed));
    }
}

/// [`load_routines`] re-parsing only the files that changed since `cache` saw them.
pub fn load_routines_cached(
    data_dir: &DataDir,
    cache: &mut LoadCache<Routine>,
) -> (Vec<JobFile<Routine>>, Vec<FileProblem>) {
    load_dir(
        data_dir,
        ROUTINES,
        &routine_reader(),
        |routine| &routine.id,
        cache,
    )
}

/// [`load_reminders`] re-parsing only the files that changed since `cache` saw them.
pub fn load_reminders_cached(
    data_dir: &DataDir,
    tz: Tz,
    cache: &mut LoadCache<Reminder>,
) -> (Vec<JobFile<Reminder>>, Vec<FileProblem>) {
    load_dir(
        data_dir,
        REMINDERS,
        &reminder_reader(tz),
        |reminder| &reminder.id,
        cache,
    )
}

/// [`load_routines_cached`] looking only at `changed` (paths relative to the data dir, e.g.
/// from file events; other folders' paths are ignored): every other file is taken from
/// `cache` as it was. The cache must have seen the whole folder once.
pub fn load_routines_changed(
    data_dir: &DataDir,
    cache: &mut LoadCache<Routine>,
    changed: &BTreeSet<PathBuf>,
) -> (Vec<JobFile<Routine>>, Vec<FileProblem>) {
    let reader = routine_reader();
    for rel in changed.iter().filter(|rel| rel.starts_with(ROUTINES)) {
        cache.refresh_one(data_dir, rel, &reader);
    }
    collect(cache, |routine| &routine.id)
}

/// [`load_reminders_cached`] looking only at `changed`, as [`load_routines_changed`].
pub fn load_reminders_changed(
    data_dir: &DataDir,
    tz: Tz,
    cache: &mut LoadCache<Reminder>,
    changed: &BTreeSet<PathBuf>,
) -> (Vec<JobFile<Reminder>>, Vec<FileProblem>) {
    let reader = reminder_reader(tz);
    for rel in changed.iter().filter(|rel| rel.starts_with(REMINDERS)) {
        cache.refresh_one(data_dir, rel, &reader);
    }
    collect(cache, |reminder| &reminder.id)
}

fn routine_reader() -> Reader<impl Fn(&str) -> Result<Routine, String>> {
    Reader {
        parse: parse_routine,
        notes: routine_notes,
    }
}

fn reminder_reader(tz: Tz) -> Reader<impl Fn(&str) -> Result<Reminder, String>> {
    Reader {
        parse: move |text: &str| parse_reminder(text, tz),
        notes: reminder_notes,
    }
}

fn load_dir<T: Clone, P: Fn(&str) -> Result<T, String>>(
    data_dir: &DataDir,
    folder: &str,
    reader: &Reader<P>,
    id_of: impl Fn(&T) -> &String,
    cache: &mut LoadCache<T>,
) -> (Vec<JobFile<T>>, Vec<FileProblem>) {
    let files = match stamped_md_files(data_dir, folder) {
        Ok(files) => files,
        Err(e) => {
            let problem = FileProblem {
                path: PathBuf::from(folder),
                reason: format!("could not list the folder: {e}"),
            };
            return (Vec::new(), vec![problem]);
        }
    };
    let present: HashSet<&PathBuf> = files.iter().map(|(_, rel, _)| rel).collect();
    cache.entries.retain(|path, _| present.contains(path));
    for (_, rel, stamp) in files {
        match cache.entries.get(&rel) {
            Some((seen, _)) if *seen == stamp && stamp.0.is_some() => {}
            _ => {
                let parsed = reader.read(&data_dir.root().join(&rel));
                cache.entries.insert(rel, (stamp, parsed));
            }
        }
    }
    collect(cache, id_of)
}

/// The cached files in file-name order: the usable ones, and the problems (parse errors,
/// duplicate ids). No file of a duplicated id runs: a new file can't take over the id, and
/// with it the owner's approvals, of one already there (issue 23 §2).
fn collect<T: Clone>(
    cache: &LoadCache<T>,
    id_of: impl Fn(&T) -> &String,
) -> (Vec<JobFile<T>>, Vec<FileProblem>) {
    let mut items = Vec::new();
    let mut problems = Vec::new();
    let mut files_of: HashMap<&String, Vec<&PathBuf>> = HashMap::new();
    for (rel, (_, parsed)) in &cache.entries {
        if let Ok(parsed) = parsed {
            files_of.entry(id_of(&parsed.item)).or_default().push(rel);
        }
    }
    for (rel, (_, parsed)) in &cache.entries {
        match parsed {
            Ok(Parsed { item, notes }) => {
                let id = id_of(item);
                let files = files_of.get(id).map_or(&[][..], Vec::as_slice);
                if files.len() > 1 {
                    let others: Vec<String> = files
                        .iter()
                        .filter(|other| **other != rel)
                        .map(|other| other.display().to_string())
                        .collect();
                    let reason = format!(
                        "duplicate id \"{id}\" (also used by {}); none of them runs until \
                         each has its own id",
                        others.join(", ")
                    );
                    tracing::debug!(path = %rel.display(), reason, "job file skipped");
                    problems.push(FileProblem {
                        path: rel.clone(),
                        reason,
                    });
                } else {
                    items.push(JobFile {
                        path: rel.clone(),
                        item: item.clone(),
                        notes: notes.clone(),
                    });
                }
            }
            Err(reason) => {
                tracing::debug!(path = %rel.display(), reason, "job file skipped");
                problems.push(FileProblem {
                    path: rel.clone(),
                    reason: reason.clone(),
                });
            }
        }
    }
    (items, problems)
}
