//! What `send_file` may send (MCP-5): an existing regular file of at most 25 MB in the data
//! dir (an allow-list: the agent's notes, downloads, drafts; issue 23 §5) that holds none of
//! the bot's secrets.
//!
//! Refused, checked on the path as written and again on the path with every symlink resolved
//! (so a link to `/proc/self/environ` or to `.env` is refused like its target):
//! * anything under `/proc`, `/sys` or `/dev` (the process environment holds the Discord token
//!   and the API keys);
//! * anything that is not a regular file;
//! * the project `.env` the bot loaded ([`Config::env_file`]), any file whose name the box
//!   classifies as private ([`crate::sandbox::is_private_name`]: `.env*`, key and token files,
//!   `.credentials.json`, `.claude.json`, …), and anything under a top-level entry of the data
//!   dir the box hides (issue 39 §4: one classification for the box, `send_file` and `doctor`);
//! * everything under the data dir's `state/`: code-only files (D.2), among them the Google
//!   OAuth client (`credentials.json`) and token (`token.json`); nothing there is meant for the
//!   owner's eyes, so no per-name rule is needed;
//! * anything else outside the data dir, once links are resolved;
//! * files over 25 MB.

use std::path::{Path, PathBuf};

use crate::{
    config::Config,
    state::paths::{DataDir, absolute_normalized, normalize},
};

/// The largest file `send_file` sends (Discord's limit for bots without boosts).
pub(super) const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;

/// Roots of kernel and device files: never sent, whatever links lead there.
const SYSTEM_ROOTS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// `bytes` in MB, for the refusal text.
#[allow(clippy::cast_precision_loss)] // a size shown to one decimal; exact up to 8 PB
fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Why `send_file` refuses a path; shown to the agent after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(super) enum FileRefusal {
    /// `~/…` without a HOME.
    #[error("cannot expand ~ (HOME is not set).")]
    NoHome,
    /// A relative path.
    #[error("file_path must be absolute or start with ~/ (got {0}).")]
    NotAbsolute(String),
    /// The path or its target is under `/proc`, `/sys` or `/dev`.
    #[error("{0} is a system file (/proc, /sys, /dev); those are never sent.")]
    SystemFile(PathBuf),
    /// The path does not resolve (missing, no permission, a dangling link).
    #[error("cannot read {path}: {reason}")]
    Unreadable {
        /// The path as asked.
        path: PathBuf,
        /// The OS error.
        reason: String,
    },
    /// A directory, socket, fifo, device…
    #[error("{0} is not a regular file.")]
    NotRegularFile(PathBuf),
    /// The path is, or leads to, a file holding the bot's secrets.
    #[error("{0} holds the bot's secrets (tokens, keys); it is never sent.")]
    SecretFile(PathBuf),
    /// The path leads outside the folders files are sent from.
    #[error(
        "{0} is outside the data dir; send_file sends only files there (notes/, downloads/, …)."
    )]
    OutsideWorkspace(PathBuf),
    /// The path is, or leads to, a file in the data dir's `state/`.
    #[error(
        "{0} is one of the bot's state/ files (code-only, some hold tokens); it is never sent."
    )]
    StateFile(PathBuf),
    /// Over [`MAX_FILE_BYTES`].
    #[error(
        "{path} is {:.1} MB; files over 25 MB can't be sent.",
        megabytes(*.bytes)
    )]
    TooLarge {
        /// The path as asked.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
}

/// The secret places of one bot instance, beyond the fixed rules (system roots, secret file
/// names).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SecretPlaces {
    /// Files never sent: the loaded `.env` (whatever its name).
    pub files: Vec<PathBuf>,
    /// Directories nothing below is sent: the data dir's `state/`.
    pub dirs: Vec<PathBuf>,
    /// The only folders files are sent from: the data dir.
    pub send_roots: Vec<PathBuf>,
}

impl SecretPlaces {
    /// The places of the instance `config` describes.
    pub(super) fn of(config: &Config) -> Self {
        Self {
            files: vec![config.env_file.clone()],
            dirs: vec![DataDir::new(&config.data_dir).state_dir()],
            send_roots: vec![config.data_dir.clone()],
        }
    }
}

/// Expands `~/` with `home` and checks `raw` against every rule; the resolved path (symlinks
/// followed) is what may be sent, so the file checked is the file read.
pub(super) fn check_file(
    raw: &str,
    home: Option<&Path>,
    secrets: &SecretPlaces,
) -> Result<PathBuf, FileRefusal> {
    let raw = raw.trim();
    let path = match raw.strip_prefix("~/") {
        Some(rest) => home.ok_or(FileRefusal::NoHome)?.join(rest),
        None => PathBuf::from(raw),
    };
    if !path.is_absolute() {
        return Err(FileRefusal::NotAbsolute(raw.to_owned()));
    }
    if is_system_path(&normalize(&path)) {
        return Err(FileRefusal::SystemFile(path));
    }
    let resolved = std::fs::canonicalize(&path).map_err(|error| FileRefusal::Unreadable {
        path: path.clone(),
        reason: error.to_string(),
    })?;
    if is_system_path(&resolved) {
        return Err(FileRefusal::SystemFile(path));
    }
    let metadata = std::fs::metadata(&resolved).map_err(|error| FileRefusal::Unreadable {
        path: path.clone(),
        reason: error.to_string(),
    })?;
    if !metadata.is_file() {
        return Err(FileRefusal::NotRegularFile(path));
    }
    if secrets.dirs.iter().any(|dir| {
        resolved.starts_with(resolve(dir)) || normalize(&path).starts_with(normalize(dir))
    }) {
        return Err(FileRefusal::StateFile(path));
    }
    if has_secret_name(&resolved) || has_secret_name(&path) {
        return Err(FileRefusal::SecretFile(path));
    }
    // What the box hides at the data dir's top is never sent either (issue 39 §4).
    if secrets
        .send_roots
        .iter()
        .any(|root| top_entry_is_private(&resolved, &resolve(root)))
    {
        return Err(FileRefusal::SecretFile(path));
    }
    if secrets.files.iter().any(|file| resolve(file) == resolved) {
        return Err(FileRefusal::SecretFile(path));
    }
    if !secrets
        .send_roots
        .iter()
        .any(|root| resolved.starts_with(resolve(root)))
    {
        return Err(FileRefusal::OutsideWorkspace(path));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(FileRefusal::TooLarge {
            path,
            bytes: metadata.len(),
        });
    }
    Ok(resolved)
}

fn is_system_path(path: &Path) -> bool {
    SYSTEM_ROOTS.iter().any(|root| path.starts_with(root))
}

/// A file whose name says it holds secrets, by the box's own classification
/// ([`crate::sandbox::is_private_name`]: `.env*`, key and token files, the CLI's login, …).
fn has_secret_name(path: &Path) -> bool {
    path.file_name()
        .is_some_and(crate::sandbox::is_private_name)
}

/// Whether `path` lies under an entry at the top of `root` that the box never shows.
fn top_entry_is_private(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .ok()
        .and_then(|rest| rest.components().next())
        .is_some_and(|first| crate::sandbox::is_private_name(first.as_os_str()))
}

/// The path with symlinks resolved when it exists; else made absolute and cleaned lexically.
fn resolve(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute_normalized(path))
}

#[cfg(test)]
#[path = "file_guard_tests.rs"]
mod tests;
