//! The `routines/` and `reminders/` folders: loading every file, writing one atomically under
//! a slug file name, removing by id, and committing each change (E.0, GIT-2, D.4).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono_tz::Tz;

use super::frontmatter::{Fields, split};
use super::{
    Commit, FileProblem, FilesError, JobFile, Reminder, Routine, parse_reminder, parse_routine,
    render_reminder, render_routine,
};
use crate::state::atomic::{remove_if_exists, write_atomic};
use crate::state::git::{commit_path_blocking, remove_path_blocking};
use crate::state::paths::DataDir;

/// Longest slug, in characters, before `.md` or a collision suffix.
const SLUG_MAX: usize = 50;

/// Folder names under the data dir.
const ROUTINES: &str = "routines";
const REMINDERS: &str = "reminders";

/// The file-name slug of `text` (E.0): lowercase, every run of characters outside `[a-z0-9]`
/// becomes `-`, no leading or trailing `-`, at most 50 characters. May be empty.
pub fn slugify(text: &str) -> String {
    let mut slug = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    // The slug is ASCII, so byte and character counts agree.
    slug.truncate(SLUG_MAX);
    slug.trim_end_matches('-').to_owned()
}

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

/// Writes `routine` to `routines/` and commits it as `add routine <id>`. Returns the path
/// relative to the data dir. See [`write_reminder`] for how the file name is chosen.
pub fn write_routine(
    data_dir: &DataDir,
    routine: &Routine,
    commit: Commit<'_>,
) -> Result<PathBuf, FilesError> {
    let text = render_routine(routine);
    parse_routine(&text).map_err(|reason| FilesError::Invalid {
        kind: "routine",
        reason,
    })?;
    let fallback = [routine.id.as_str(), "routine"];
    write_job(
        data_dir,
        ROUTINES,
        &routine.id,
        &routine.message,
        &fallback,
        &text,
    )
    .inspect(|rel| commit.add(data_dir, rel, &format!("add routine {}", routine.id)))
}

/// Writes `reminder` to `reminders/` and commits it as `add reminder <id>`. Returns the path
/// relative to the data dir.
///
/// A file already holding the same `id` is overwritten in place (whatever its name).
/// Otherwise the name is the slug of the message (the id when the message has no letters or
/// digits, F-48) plus `.md`, with `-2`, `-3`, … added while the name is taken. The write is
/// atomic. Items that would not load back are refused with [`FilesError::Invalid`].
pub fn write_reminder(
    data_dir: &DataDir,
    reminder: &Reminder,
    commit: Commit<'_>,
) -> Result<PathBuf, FilesError> {
    let text = render_reminder(reminder);
    parse_reminder(&text, chrono_tz::UTC).map_err(|reason| FilesError::Invalid {
        kind: "reminder",
        reason,
    })?;
    let fallback = [reminder.id.as_str(), "reminder"];
    write_job(
        data_dir,
        REMINDERS,
        &reminder.id,
        &reminder.message,
        &fallback,
        &text,
    )
    .inspect(|rel| commit.add(data_dir, rel, &format!("add reminder {}", reminder.id)))
}

/// Deletes every routine file whose YAML `id` is `id` (files that do not parse fully still
/// count if their frontmatter names the id) and commits `remove routine <id>`. `Ok(false)`
/// when there was none.
pub fn remove_routine(
    data_dir: &DataDir,
    id: &str,
    commit: Commit<'_>,
) -> Result<bool, FilesError> {
    remove_job(
        data_dir,
        ROUTINES,
        id,
        &format!("remove routine {id}"),
        commit,
    )
}

/// Deletes every reminder file whose YAML `id` is `id` and commits `remove reminder <id>`
/// (REM-1). `Ok(false)` when there was none.
pub fn remove_reminder(
    data_dir: &DataDir,
    id: &str,
    commit: Commit<'_>,
) -> Result<bool, FilesError> {
    remove_job(
        data_dir,
        REMINDERS,
        id,
        &format!("remove reminder {id}"),
        commit,
    )
}

impl Commit<'_> {
    fn add(self, data_dir: &DataDir, rel: &Path, message: &str) {
        match self {
            Commit::Queued(recorder) => recorder.commit(rel.to_path_buf(), message.to_owned()),
            Commit::Now => commit_path_blocking(data_dir.root(), rel, message),
            Commit::Skip => {}
        }
    }

    fn remove(self, data_dir: &DataDir, rel: &Path, message: &str) {
        match self {
            Commit::Queued(recorder) => recorder.remove(rel.to_path_buf(), message.to_owned()),
            Commit::Now => remove_path_blocking(data_dir.root(), rel, message),
            Commit::Skip => {}
        }
    }
}

/// The `*.md` files of `data_dir/<folder>` as (file name, path relative to the data dir),
/// sorted by name. Directories and other non-files are skipped.
fn md_files(data_dir: &DataDir, folder: &str) -> io::Result<Vec<(String, PathBuf)>> {
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
fn read_text(path: &Path) -> Result<String, String> {
    let bytes = fs::read(path).map_err(|e| format!("could not read the file: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the file is not valid UTF-8 text".to_owned())
}

/// Parsed files remembered between loads, keyed by path and checked against each file's
/// modification time and size, so a sync re-parses only what changed.
#[derive(Debug)]
pub struct LoadCache<T> {
    entries: HashMap<PathBuf, (Stamp, Result<T, String>)>,
}

impl<T> Default for LoadCache<T> {
    fn default() -> Self {
        Self {
            entries: HashMap::new(),
        }
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
        parse_routine,
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
        |text| parse_reminder(text, tz),
        |reminder| &reminder.id,
        cache,
    )
}

fn load_dir<T: Clone>(
    data_dir: &DataDir,
    folder: &str,
    parse: impl Fn(&str) -> Result<T, String>,
    id_of: impl Fn(&T) -> &String,
    cache: &mut LoadCache<T>,
) -> (Vec<JobFile<T>>, Vec<FileProblem>) {
    let mut items = Vec::new();
    let mut problems = Vec::new();
    let files = match stamped_md_files(data_dir, folder) {
        Ok(files) => files,
        Err(e) => {
            problems.push(FileProblem {
                path: PathBuf::from(folder),
                reason: format!("could not list the folder: {e}"),
            });
            return (items, problems);
        }
    };
    let mut owners: HashMap<String, PathBuf> = HashMap::new();
    let present: std::collections::HashSet<&PathBuf> =
        files.iter().map(|(_, rel, _)| rel).collect();
    cache.entries.retain(|path, _| present.contains(path));
    for (_, rel, stamp) in files {
        let parsed = match cache.entries.get(&rel) {
            Some((seen, parsed)) if *seen == stamp && stamp.0.is_some() => parsed.clone(),
            _ => {
                let parsed = read_text(&data_dir.root().join(&rel)).and_then(|text| parse(&text));
                cache.entries.insert(rel.clone(), (stamp, parsed.clone()));
                parsed
            }
        };
        match parsed {
            Ok(item) => {
                let id = id_of(&item).clone();
                if let Some(first) = owners.get(&id) {
                    let reason = format!(
                        "duplicate id \"{id}\" (already used by {}); this file is ignored",
                        first.display()
                    );
                    tracing::debug!(path = %rel.display(), reason, "job file skipped");
                    problems.push(FileProblem { path: rel, reason });
                } else {
                    owners.insert(id, rel.clone());
                    items.push(JobFile { path: rel, item });
                }
            }
            Err(reason) => {
                tracing::debug!(path = %rel.display(), reason, "job file skipped");
                problems.push(FileProblem { path: rel, reason });
            }
        }
    }
    (items, problems)
}

/// The frontmatter `id` of a job file, read leniently (only the frontmatter must parse).
fn file_id(path: &Path) -> Option<String> {
    let text = read_text(path).ok()?;
    let (yaml, _) = split(&text).ok()?;
    Fields::parse(yaml, &["id"]).ok()?.text("id").ok()?
}

/// The existing files of `folder` whose frontmatter id is `id`, in name order.
fn files_with_id(data_dir: &DataDir, folder: &str, id: &str) -> io::Result<Vec<PathBuf>> {
    Ok(md_files(data_dir, folder)?
        .into_iter()
        .map(|(_, rel)| rel)
        .filter(|rel| file_id(&data_dir.root().join(rel)).as_deref() == Some(id))
        .collect())
}

fn write_job(
    data_dir: &DataDir,
    folder: &str,
    id: &str,
    message: &str,
    fallback: &[&str],
    text: &str,
) -> Result<PathBuf, FilesError> {
    let dir = data_dir.root().join(folder);
    fs::create_dir_all(&dir).map_err(|source| FilesError::Io {
        path: dir.clone(),
        source,
    })?;
    let existing = files_with_id(data_dir, folder, id)
        .map_err(|source| FilesError::Io {
            path: dir.clone(),
            source,
        })?
        .into_iter()
        .next();
    let rel = match existing {
        Some(rel) => rel,
        None => free_name(&dir, &base_name(message, fallback))
            .map(|name| Path::new(folder).join(name))
            .map_err(|source| FilesError::Io {
                path: dir.clone(),
                source,
            })?,
    };
    write_atomic(&data_dir.root().join(&rel), text.as_bytes())?;
    tracing::debug!(path = %rel.display(), id, "job file written");
    Ok(rel)
}

/// The slug of the message, else of the first fallback that has one (F-48).
fn base_name(message: &str, fallback: &[&str]) -> String {
    std::iter::once(message)
        .chain(fallback.iter().copied())
        .map(slugify)
        .find(|slug| !slug.is_empty())
        .unwrap_or_else(|| "job".to_owned())
}

/// `<base>.md`, or the first of `<base>-2.md`, `<base>-3.md`, … that does not exist.
fn free_name(dir: &Path, base: &str) -> io::Result<String> {
    let mut counter = 1u32;
    loop {
        let name = if counter == 1 {
            format!("{base}.md")
        } else {
            format!("{base}-{counter}.md")
        };
        match fs::symlink_metadata(dir.join(&name)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(name),
            Err(e) => return Err(e),
            Ok(_) => counter += 1,
        }
    }
}

fn remove_job(
    data_dir: &DataDir,
    folder: &str,
    id: &str,
    message: &str,
    commit: Commit<'_>,
) -> Result<bool, FilesError> {
    let files = files_with_id(data_dir, folder, id).map_err(|source| FilesError::Io {
        path: data_dir.root().join(folder),
        source,
    })?;
    let mut removed = false;
    for rel in files {
        if remove_if_exists(&data_dir.root().join(&rel))? {
            tracing::debug!(path = %rel.display(), id, "job file removed");
            commit.remove(data_dir, &rel, message);
            removed = true;
        }
    }
    Ok(removed)
}
