//! Data-dir git auto-commit (GIT-1..3).
//!
//! Every commit stages and commits exactly one path (GIT-2), under the bot's own identity so it
//! works on machines without a configured `user.name`/`user.email`, and with signing disabled.
//! Failures are logged and swallowed: losing a history commit must never break the bot.
//! [`GitRecorder`] funnels all commits through one background task so concurrent writers never
//! race on `.git/index.lock`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::StateError;

mod recorder;

pub use recorder::{GitRecorder, GitWorker};

/// Author and committer name used for every auto-commit.
pub const BOT_NAME: &str = "ollim-bot";
/// Author and committer email used for every auto-commit.
pub const BOT_EMAIL: &str = "ollim-bot@localhost";

/// Extra environment for git child processes (tests point `HOME` at an empty dir).
pub(super) type ExtraEnv = Vec<(OsString, OsString)>;

/// A `git` command running in `root` with the bot identity and no commit signing.
fn git(root: &Path, env: &ExtraEnv) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(root)
        .args(["-c", "commit.gpgsign=false"])
        .env("GIT_AUTHOR_NAME", BOT_NAME)
        .env("GIT_AUTHOR_EMAIL", BOT_EMAIL)
        .env("GIT_COMMITTER_NAME", BOT_NAME)
        .env("GIT_COMMITTER_EMAIL", BOT_EMAIL)
        .env("GIT_TERMINAL_PROMPT", "0");
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd
}

/// Runs a git command and turns a non-zero exit into [`StateError::Command`].
fn run(root: &Path, env: &ExtraEnv, args: &[&std::ffi::OsStr]) -> Result<Output, StateError> {
    // Another process (the daemon's worker, or a subcommand such as `reminder add`) may hold
    // the index for a moment: its lock is waited out, briefly, rather than losing the commit.
    let mut attempt = 0;
    loop {
        let output = git(root, env)
            .args(args)
            .output()
            .map_err(|e| StateError::io(root, e))?;
        if output.status.success() {
            return Ok(output);
        }
        let locked = String::from_utf8_lossy(&output.stderr).contains("index.lock");
        if !locked || attempt >= INDEX_LOCK_TRIES {
            return Err(command_error(root, args, &output));
        }
        attempt += 1;
        std::thread::sleep(std::time::Duration::from_millis(50 * u64::from(attempt)));
    }
}

/// How many times a git command finding the index locked is tried again (about 2.7 s in all).
const INDEX_LOCK_TRIES: u32 = 10;

fn command_error(root: &Path, args: &[&std::ffi::OsStr], output: &Output) -> StateError {
    let command = std::iter::once("git".to_owned())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    StateError::Command {
        command,
        dir: root.to_path_buf(),
        detail: format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
    }
}

/// Runs `git init` in `root` when `root/.git` is absent (GIT-1). Returns `true` when it
/// initialised a repository; the caller prints `Initialized git tracking in <dir>`.
pub fn init_repo(root: &Path) -> Result<bool, StateError> {
    init_repo_with(root, &Vec::new())
}

pub(super) fn init_repo_with(root: &Path, env: &ExtraEnv) -> Result<bool, StateError> {
    std::fs::create_dir_all(root).map_err(|e| StateError::io(root, e))?;
    let created = !root.join(".git").exists();
    if created {
        run(root, env, &["init".as_ref(), "-q".as_ref()])?;
    }
    ensure_ignored_secrets(root)?;
    Ok(created)
}

/// What the data dir's repository always ignores (`.git/info/exclude`, which is not a file of
/// the work tree): the files with secrets, so a `git add -A` of the owner's never puts them in
/// the history (issue 24 §8).
const IGNORED_SECRETS: [&str; 9] = [
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "state/token.json",
    "state/credentials.json",
    "state/claude/",
    "state/tmp/",
];

/// Adds to `root/.git/info/exclude` whichever of [`IGNORED_SECRETS`] it lacks; the owner's
/// own lines stay.
fn ensure_ignored_secrets(root: &Path) -> Result<(), StateError> {
    let dir = root.join(".git/info");
    std::fs::create_dir_all(&dir).map_err(|e| StateError::io(&dir, e))?;
    let path = dir.join("exclude");
    let current = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(StateError::io(&path, e)),
    };
    let present: Vec<&str> = current.lines().map(str::trim).collect();
    let missing: Vec<&str> = IGNORED_SECRETS
        .into_iter()
        .filter(|line| !present.contains(line))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut text = current.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# Added by ollim-bot: files with secrets stay out of this history.\n");
    for line in missing {
        text.push_str(line);
        text.push('\n');
    }
    super::atomic::write_atomic(&path, text.as_bytes())
}

/// Turns `rel` into a path relative to `root`; absolute paths must lie under `root`.
fn relative_to_root(root: &Path, rel: &Path) -> Option<PathBuf> {
    if rel.is_absolute() {
        rel.strip_prefix(root).ok().map(Path::to_path_buf)
    } else {
        Some(rel.to_path_buf())
    }
}

/// What to do with the single path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// `git add -- <rel>`.
    Add,
    /// `git rm --cached -f --quiet -- <rel>`, then the file removed (its folder stays).
    Remove,
}

/// Stages `rel` (added or removed) and commits only that path. `Ok(false)` means there was
/// nothing to commit.
fn record(
    root: &Path,
    rel: &Path,
    message: &str,
    action: Action,
    env: &ExtraEnv,
) -> Result<bool, StateError> {
    let rel_os = rel.as_os_str();
    match action {
        Action::Add => {
            run(root, env, &["add".as_ref(), "--".as_ref(), rel_os])?;
        }
        Action::Remove => {
            // Out of the index only, then the file itself: `git rm` of a folder's last file
            // would remove the folder, and the folders the owner writes into never vanish (KEEP-4)
            // (a CLI's container keeps the folder it mounted, issue 39; the scheduler
            // watches it, issue 40 §1).
            run(
                root,
                env,
                &[
                    "rm".as_ref(),
                    "--cached".as_ref(),
                    "-f".as_ref(),
                    "--quiet".as_ref(),
                    "--ignore-unmatch".as_ref(),
                    "--".as_ref(),
                    rel_os,
                ],
            )?;
            let file = root.join(rel);
            super::atomic::remove_if_exists(&file)?;
        }
    }
    let rel = rel_os;
    // Exit 0: nothing staged for this path; 1: there is something to commit.
    let diff_args: [&std::ffi::OsStr; 5] = [
        "diff".as_ref(),
        "--cached".as_ref(),
        "--quiet".as_ref(),
        "--".as_ref(),
        rel,
    ];
    let diff = git(root, env)
        .args(diff_args)
        .output()
        .map_err(|e| StateError::io(root, e))?;
    match diff.status.code() {
        Some(0) => return Ok(false),
        Some(1) => {}
        _ => return Err(command_error(root, &diff_args, &diff)),
    }
    run(
        root,
        env,
        &[
            "commit".as_ref(),
            "-q".as_ref(),
            "-m".as_ref(),
            message.as_ref(),
            "--".as_ref(),
            rel,
        ],
    )?;
    Ok(true)
}

/// Shared body of the blocking entry points: checks the repo, records, logs failures.
fn record_logged(root: &Path, rel: &Path, message: &str, action: Action, env: &ExtraEnv) {
    if !root.join(".git").exists() {
        tracing::debug!(root = %root.display(), "data dir is not a git repo; skipping commit");
        return;
    }
    let Some(rel) = relative_to_root(root, rel) else {
        tracing::warn!(path = %rel.display(), root = %root.display(), "not committing a path outside the data dir");
        return;
    };
    match record(root, &rel, message, action, env) {
        Ok(true) => tracing::debug!(path = %rel.display(), message, "committed"),
        Ok(false) => tracing::debug!(path = %rel.display(), "nothing to commit"),
        Err(e) => tracing::warn!(path = %rel.display(), error = %e, "git auto-commit failed"),
    }
}

/// Stages and commits only `rel` (relative to `root`, or absolute under it) with `message`
/// (GIT-2). No-op when `root` is not a git repo or the path has no changes; failures are
/// logged, never returned.
pub fn commit_path_blocking(root: &Path, rel: &Path, message: &str) {
    record_logged(root, rel, message, Action::Add, &Vec::new());
}

/// Removes `rel` from the index and work tree (`git rm -f`) and commits only that path
/// (GIT-2, e.g. `remove reminder <id>`). Same no-op and logging rules as
/// [`commit_path_blocking`].
pub fn remove_path_blocking(root: &Path, rel: &Path, message: &str) {
    record_logged(root, rel, message, Action::Remove, &Vec::new());
}

/// Helpers shared with other state tests: git isolated from the machine's configuration.
#[cfg(test)]
pub(super) mod test_support {
    use super::*;

    /// Environment that hides the machine's git configuration (no global identity).
    pub(in crate::state) fn isolated_env(home: &Path) -> ExtraEnv {
        vec![
            ("HOME".into(), home.as_os_str().to_owned()),
            ("XDG_CONFIG_HOME".into(), home.as_os_str().to_owned()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            (
                "GIT_CONFIG_GLOBAL".into(),
                home.join("none").into_os_string(),
            ),
        ]
    }

    /// A fresh repository in a temp dir with an isolated git environment (no identity).
    pub(in crate::state) fn temp_repo() -> (tempfile::TempDir, tempfile::TempDir, ExtraEnv) {
        let repo = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let env = isolated_env(home.path());
        assert!(init_repo_with(repo.path(), &env).unwrap());
        (repo, home, env)
    }

    /// Runs git in `root` with `env` and returns stdout, asserting success.
    pub(in crate::state) fn git_out(root: &Path, env: &ExtraEnv, args: &[&str]) -> String {
        let out = git(root, env).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

#[cfg(test)]
mod tests;
