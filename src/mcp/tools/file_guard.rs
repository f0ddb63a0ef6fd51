//! What `send_file` may send (MCP-5): an existing regular file of at most 25 MB that holds
//! none of the bot's secrets.
//!
//! Refused, checked on the path as written and again on the path with every symlink resolved
//! (so a link to `/proc/self/environ` or to `.env` is refused like its target):
//! * anything under `/proc`, `/sys` or `/dev` (the process environment holds the Discord token
//!   and the API keys);
//! * anything that is not a regular file;
//! * the project `.env` the bot loaded ([`Config::env_file`]), and any file named `.env` or
//!   `.env.<suffix>` (by convention, secrets), `.credentials.json` (the Claude CLI's login) or
//!   `.claude.json` (the CLI's global config, which can hold an API key);
//! * everything under the data dir's `state/`: code-only files (D.2), among them the Google
//!   OAuth client (`credentials.json`) and token (`token.json`); nothing there is meant for the
//!   owner's eyes, so no per-name rule is needed;
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

/// Names of files that hold secrets wherever they are: the Claude CLI's login and its global
/// config (which keeps a `/login` API key).
const SECRET_FILE_NAMES: [&str; 3] = [".env", ".credentials.json", ".claude.json"];

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
}

impl SecretPlaces {
    /// The places of the instance `config` describes.
    pub(super) fn of(config: &Config) -> Self {
        Self {
            files: vec![config.env_file.clone()],
            dirs: vec![DataDir::new(&config.data_dir).state_dir()],
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
    if has_secret_name(&resolved) || has_secret_name(&path) {
        return Err(FileRefusal::SecretFile(path));
    }
    if secrets.files.iter().any(|file| resolve(file) == resolved) {
        return Err(FileRefusal::SecretFile(path));
    }
    if secrets.dirs.iter().any(|dir| {
        resolved.starts_with(resolve(dir)) || normalize(&path).starts_with(normalize(dir))
    }) {
        return Err(FileRefusal::StateFile(path));
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

/// [`SECRET_FILE_NAMES`], and `.env.<anything>` (`.env.local`, `.env.production`).
fn has_secret_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| SECRET_FILE_NAMES.contains(&name) || name.starts_with(".env."))
}

/// The path with symlinks resolved when it exists; else made absolute and cleaned lexically.
fn resolve(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute_normalized(path))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// A data dir with `state/`, a project `.env` beside it and a note.
    struct Layout {
        dir: tempfile::TempDir,
        secrets: SecretPlaces,
    }

    impl Layout {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path().join("data");
            std::fs::create_dir_all(data.join("state")).unwrap();
            std::fs::create_dir_all(data.join("routines")).unwrap();
            std::fs::write(dir.path().join("project.env"), "DISCORD_TOKEN=x").unwrap();
            std::fs::write(data.join("note.md"), "hi").unwrap();
            let secrets = SecretPlaces {
                files: vec![dir.path().join("project.env")],
                dirs: vec![data.join("state")],
            };
            Self { dir, secrets }
        }

        fn path(&self, rel: &str) -> PathBuf {
            self.dir.path().join(rel)
        }

        fn check(&self, path: &Path) -> Result<PathBuf, FileRefusal> {
            check_file(path.to_str().unwrap(), None, &self.secrets)
        }
    }

    #[test]
    fn a_small_regular_file_is_sent_by_its_real_path() {
        let l = Layout::new();
        let note = l.path("data/note.md");
        assert_eq!(l.check(&note).unwrap(), note.canonicalize().unwrap());
        let link = l.path("data/link.md");
        symlink(&note, &link).unwrap();
        assert_eq!(l.check(&link).unwrap(), note.canonicalize().unwrap());
        let home = l.path("data");
        assert_eq!(
            check_file("~/note.md", Some(&home), &l.secrets).unwrap(),
            note.canonicalize().unwrap()
        );
    }

    #[test]
    fn paths_must_be_absolute_and_readable() {
        let l = Layout::new();
        assert_eq!(
            check_file("relative.txt", None, &l.secrets),
            Err(FileRefusal::NotAbsolute("relative.txt".into()))
        );
        assert_eq!(
            check_file("~/x", None, &l.secrets),
            Err(FileRefusal::NoHome)
        );
        let missing = l.check(&l.path("missing")).unwrap_err();
        assert!(missing.to_string().starts_with("cannot read"), "{missing}");
        let dangling = l.path("data/dangling.md");
        symlink(l.path("gone"), &dangling).unwrap();
        assert!(matches!(
            l.check(&dangling),
            Err(FileRefusal::Unreadable { .. })
        ));
        assert!(matches!(
            l.check(&l.path("data")),
            Err(FileRefusal::NotRegularFile(_))
        ));
    }

    #[test]
    fn system_files_are_refused_directly_through_dot_dot_and_through_links() {
        let l = Layout::new();
        for raw in [
            "/proc/self/environ",
            "/proc/1/cmdline",
            "/sys/kernel/hostname",
            "/dev/null",
            "/tmp/../proc/self/environ",
        ] {
            assert!(
                matches!(
                    check_file(raw, None, &l.secrets),
                    Err(FileRefusal::SystemFile(_))
                ),
                "{raw}"
            );
        }
        let link = l.path("data/environ.txt");
        symlink("/proc/self/environ", &link).unwrap();
        assert_eq!(l.check(&link), Err(FileRefusal::SystemFile(link.clone())));
        let dir_link = l.path("data/me");
        symlink("/proc/self", &dir_link).unwrap();
        assert!(matches!(
            l.check(&dir_link.join("environ")),
            Err(FileRefusal::SystemFile(_))
        ));
    }

    #[test]
    fn the_loaded_env_file_and_secret_named_files_are_refused_also_through_links() {
        let l = Layout::new();
        let env = l.path("project.env");
        assert_eq!(l.check(&env), Err(FileRefusal::SecretFile(env.clone())));
        let link = l.path("data/harmless.md");
        symlink(&env, &link).unwrap();
        assert_eq!(l.check(&link), Err(FileRefusal::SecretFile(link.clone())));
        for name in [".env", ".env.local", ".credentials.json", ".claude.json"] {
            let other = l.path(name);
            std::fs::write(&other, "KEY=1").unwrap();
            assert!(
                matches!(l.check(&other), Err(FileRefusal::SecretFile(_))),
                "{name}"
            );
            let to_other = l.path(&format!("data/{name}-link.md"));
            symlink(&other, &to_other).unwrap();
            assert!(
                matches!(l.check(&to_other), Err(FileRefusal::SecretFile(_))),
                "{name}"
            );
        }
        let refusal = l.check(&env).unwrap_err().to_string();
        assert!(refusal.contains("never sent"), "{refusal}");
    }

    #[test]
    fn every_state_file_is_refused_also_through_links_and_dot_dot() {
        let l = Layout::new();
        for name in ["token.json", "credentials.json", "sessions.json"] {
            let file = l.path("data/state").join(name);
            std::fs::write(&file, "{}").unwrap();
            assert!(
                matches!(l.check(&file), Err(FileRefusal::StateFile(_))),
                "{name}"
            );
        }
        let sneaky = l.path("data/routines/../state/token.json");
        assert!(matches!(l.check(&sneaky), Err(FileRefusal::StateFile(_))));
        let link = l.path("data/token.md");
        symlink(l.path("data/state/token.json"), &link).unwrap();
        assert!(matches!(l.check(&link), Err(FileRefusal::StateFile(_))));
        let dir_link = l.path("data/st");
        symlink(l.path("data/state"), &dir_link).unwrap();
        assert!(matches!(
            l.check(&dir_link.join("token.json")),
            Err(FileRefusal::StateFile(_))
        ));
    }

    #[test]
    fn files_over_25_mb_are_refused() {
        let l = Layout::new();
        let big = l.path("data/big.bin");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        let refusal = l.check(&big).unwrap_err();
        assert!(matches!(refusal, FileRefusal::TooLarge { .. }));
        assert!(refusal.to_string().contains("25 MB"), "{refusal}");
        let exact = l.path("data/exact.bin");
        std::fs::File::create(&exact)
            .unwrap()
            .set_len(MAX_FILE_BYTES)
            .unwrap();
        assert!(l.check(&exact).is_ok());
    }

    #[test]
    fn places_of_a_config_cover_the_env_file_and_state() {
        let config = Config::from_lookup(|name| match name {
            "OLLIM_USER_NAME" | "OLLIM_BOT_NAME" => Some("x".into()),
            "OLLIM_DATA_DIR" => Some("/srv/bot".into()),
            "OLLIM_ENV_FILE" => Some("/srv/project/.env".into()),
            _ => None,
        })
        .unwrap();
        let places = SecretPlaces::of(&config);
        assert_eq!(places.files, vec![PathBuf::from("/srv/project/.env")]);
        assert_eq!(places.dirs, vec![PathBuf::from("/srv/bot/state")]);
    }
}
