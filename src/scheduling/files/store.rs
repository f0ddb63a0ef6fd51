//! The `routines/` and `reminders/` folders: writing one file atomically under a slug file
//! name, removing by id, and committing each change (E.0, GIT-2, D.4).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::load::{md_files, read_text};
use super::{
    Commit, FilesError, Reminder, Routine, SetBy, parse_reminder, parse_routine, render_reminder,
    render_routine,
};
use crate::domain::frontmatter::{Fields, split};
use crate::state::atomic::{remove_if_exists, write_atomic};
use crate::state::git::{commit_path_blocking, remove_path_blocking};
use crate::state::paths::DataDir;

/// Longest slug, in characters, before `.md` or a collision suffix.
const SLUG_MAX: usize = 50;

/// Folder names under the data dir.
pub(super) const ROUTINES: &str = "routines";
pub(super) const REMINDERS: &str = "reminders";

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

/// Who set each file of reminder `id`, as [`remove_reminder`] finds them (issue 39 §4,
/// REM-15): `None` for a file whose `set-by` and `generation` don't read. Only the frontmatter
/// must parse, so a file the scheduler skips is still somebody's.
pub fn reminder_setters(data_dir: &DataDir, id: &str) -> Result<Vec<Option<SetBy>>, FilesError> {
    let files = files_with_id(data_dir, REMINDERS, id).map_err(|source| FilesError::Io {
        path: data_dir.root().join(REMINDERS),
        source,
    })?;
    Ok(files
        .iter()
        .map(|rel| {
            let text = read_text(&data_dir.root().join(rel)).ok()?;
            let (yaml, _) = split(&text).ok()?;
            SetBy::read(&Fields::parse(yaml, &["id", "set-by"]).ok()?).ok()
        })
        .collect())
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
