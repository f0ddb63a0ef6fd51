//! A state file that can't be read back is never silently replaced: it is moved beside itself
//! to a free `<name>.corrupt-<unix seconds>[-<n>]`, its store starts fresh, and a notice is
//! appended to `set_aside.jsonl` in the same directory, which the bot drains to tell the owner
//! once what happened (issue 16). Works from any process (the daemon, `chat`, a subcommand):
//! the notice waits in the file until the daemon has told the owner.

use std::{
    fs,
    io::Write as _,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

/// The notice file's name, beside the files it reports.
pub const NOTICE_FILE: &str = "set_aside.jsonl";

/// What was wrong with a file, as the owner is told (issue 40 §1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trouble {
    /// Damaged: moved aside (or not even that), its store started fresh.
    #[default]
    Damaged,
    /// It can't be read at all (permissions, a directory in its place, an I/O error): left
    /// as it is, and nothing is written over it until it reads again.
    Unreadable,
    /// Some of its entries can't be read: they are kept in the file untouched.
    EntriesKept,
}

/// One file moved aside (or that could not even be moved), or left as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetAside {
    /// The file that was unreadable.
    pub file: PathBuf,
    /// Where its content went; `None` when the move failed (the content is then replaced)
    /// or the file was left where it is.
    pub moved_to: Option<PathBuf>,
    /// What was wrong with it (one line).
    pub reason: String,
    /// What kind of trouble it was.
    #[serde(default)]
    pub trouble: Trouble,
}

impl SetAside {
    /// One line for the owner: `state/x.json couldn't be read (…); I moved it to … and started it fresh.`
    pub fn describe(&self, root: &Path) -> String {
        let short = |path: &Path| {
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        match (&self.moved_to, self.trouble) {
            (_, Trouble::Unreadable) => format!(
                "`{}` can't be read ({}); I left it as it is and change nothing in it until it \
                 can be read again.",
                short(&self.file),
                self.reason
            ),
            (_, Trouble::EntriesKept) => format!(
                "`{}` has entries I can't read ({}); I kept them in the file untouched and \
                 go on with the rest.",
                short(&self.file),
                self.reason
            ),
            (Some(aside), Trouble::Damaged) => format!(
                "`{}` couldn't be read ({}), so I moved it to `{}` and started it fresh.",
                short(&self.file),
                self.reason,
                short(aside)
            ),
            (None, Trouble::Damaged) => format!(
                "`{}` couldn't be read ({}) and couldn't be moved aside; I started it fresh.",
                short(&self.file),
                self.reason
            ),
        }
    }
}

/// Moves the unreadable `path` aside, logs it, and records the notice. `reason` is the parse
/// error (cut to one line of 200 characters). The copy is named after when the damaged file
/// was last written (unix seconds), which is what the owner wants to know of it; no clock is
/// read.
pub fn set_aside(path: &Path, reason: &str) -> SetAside {
    let reason = one_line(reason);
    let aside = free_name(path, last_written(path));
    let moved_to = match fs::rename(path, &aside) {
        Ok(()) => {
            tracing::warn!(file = %path.display(), moved_to = %aside.display(), %reason,
                "unreadable state file moved aside; starting it fresh");
            Some(aside)
        }
        Err(error) => {
            tracing::warn!(file = %path.display(), %reason, rename_error = %error,
                "unreadable state file could not be moved aside; starting it fresh");
            None
        }
    };
    let notice = SetAside {
        file: path.to_owned(),
        moved_to,
        reason,
        trouble: Trouble::Damaged,
    };
    if let Err(error) = record(&notice) {
        tracing::warn!(%error, "could not record the set-aside notice");
    }
    notice
}

/// Records a notice that `path` has `trouble` (not [`Trouble::Damaged`]: that is
/// [`set_aside`]) for `reason`; the file is left where it is.
pub fn report(path: &Path, trouble: Trouble, reason: &str) -> SetAside {
    let notice = SetAside {
        file: path.to_owned(),
        moved_to: None,
        reason: one_line(reason),
        trouble,
    };
    if let Err(error) = record(&notice) {
        tracing::warn!(%error, "could not record the notice for the owner");
    }
    notice
}

/// `reason` on one line of at most 200 characters.
fn one_line(reason: &str) -> String {
    reason
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect()
}

/// The first free `<path>.corrupt-<ts>[-<n>]`.
/// When `path` was last written, in unix seconds (0 when unknown).
fn last_written(path: &Path) -> i64 {
    fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |age| i64::try_from(age.as_secs()).unwrap_or(i64::MAX))
}

fn free_name(path: &Path, stamp: i64) -> PathBuf {
    (0u32..10_000)
        .map(|n| {
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".corrupt-{stamp}"));
            if n > 0 {
                name.push(format!("-{n}"));
            }
            PathBuf::from(name)
        })
        .find(|candidate| !candidate.exists())
        .unwrap_or_else(|| path.with_extension("corrupt"))
}

fn notice_file(file: &Path) -> PathBuf {
    file.parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(NOTICE_FILE)
}

fn record(notice: &SetAside) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(notice).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(notice_file(&notice.file))?;
    // One write of a whole line: concurrent appenders never interleave inside it.
    file.write_all(&line)?;
    file.sync_data()
}

/// The notices recorded in `dir` and not yet told, oldest first (unreadable lines skipped).
pub fn pending_notices(dir: &Path) -> Vec<SetAside> {
    fs::read_to_string(dir.join(NOTICE_FILE))
        .map(|text| {
            text.lines()
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Forgets the first `told` notices of `dir` (after the owner was told), keeping any
/// recorded since.
pub fn forget_notices(dir: &Path, told: usize) -> Result<(), super::StateError> {
    let path = dir.join(NOTICE_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(super::StateError::io(&path, error)),
    };
    let rest: Vec<&str> = text
        .lines()
        .filter(|line| serde_json::from_str::<SetAside>(line).is_ok())
        .skip(told)
        .collect();
    if rest.is_empty() {
        super::atomic::remove_if_exists(&path).map(drop)
    } else {
        super::atomic::write_atomic(&path, (rest.join("\n") + "\n").as_bytes())
    }
}

#[cfg(test)]
#[path = "set_aside_tests.rs"]
mod tests;

/// The copies [`set_aside`] made of `path`, oldest name first (tests).
#[cfg(test)]
pub(crate) fn copies_of(path: &Path) -> Vec<PathBuf> {
    let Some(name) = path
        .file_name()
        .map(|n| format!("{}.corrupt-", n.to_string_lossy()))
    else {
        return Vec::new();
    };
    let mut copies: Vec<PathBuf> = fs::read_dir(path.parent().unwrap_or(Path::new(".")))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&name))
        })
        .collect();
    copies.sort_by_key(|p| (p.as_os_str().len(), p.clone()));
    copies
}
