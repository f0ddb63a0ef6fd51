//! A Claude CLI config dir of its own for every container (issue 39 §1, BOX-5). The CLI keeps files
//! there that another CLI of the same dir trusts (shell state it sources before each command,
//! per-session scripts, the peer socket's token, transcripts it reads on resume), so no two
//! sessions of different trust ever share one:
//!
//! - a new session, a fork and every background run start in a fresh home;
//! - resuming a session reuses its home only when that home is of the same trust (the main
//!   conversation waking up); otherwise a fresh home gets a copy of the transcript alone,
//!   taken from the home the bot recorded for that session, never from a file another
//!   session's CLI wrote under the same id;
//! - the login is copied in; only homes of the owner's sessions hand a refreshed login back.

use std::path::{Path, PathBuf};

use crate::state::cli_homes::CliHomeBook;

use super::{Confinement, SandboxError, create_private_dir};

/// The CLI's login file inside a config dir.
const CREDENTIALS: &str = ".credentials.json";
/// The CLI's own settings file inside a config dir (onboarding, per-project flags).
const CLI_STATE: &str = ".claude.json";

/// The homes of every CLI the bot starts, under `state/cli_homes/`.
#[derive(Debug, Clone)]
pub struct CliHomes {
    root: PathBuf,
    master: PathBuf,
    workspace: PathBuf,
    book: CliHomeBook,
    /// The one home every CLI started through these homes runs in (a scratch home).
    pinned: Option<PathBuf>,
}

/// The prefix of a scratch home's name: one a counterfactual replay (CMD-10) makes, runs in
/// and removes; at most a day old unless its command was killed.
pub const SCRATCH_PREFIX: &str = "cf-";

/// The prefix of a home's name: who may have written into it.
fn trust_prefix(confinement: Confinement) -> &'static str {
    match confinement {
        Confinement::Owner => "owner-",
        Confinement::Background => "bg-",
    }
}

impl CliHomes {
    /// Homes under `root`, the login taken from `master` (the CLI config dir of the bot's
    /// own, or the one `CLAUDE_CONFIG_DIR` names), for CLIs working in `workspace`.
    pub fn new(root: PathBuf, master: PathBuf, workspace: PathBuf, book: CliHomeBook) -> Self {
        Self {
            root,
            master,
            workspace,
            book,
            pinned: None,
        }
    }

    /// These homes with every CLI start put in `home` (a scratch home, see
    /// [`Self::scratch`]): nothing is copied in but the login, and nothing is recorded.
    #[must_use]
    pub fn pinned_to(&self, home: PathBuf) -> Self {
        Self {
            pinned: Some(home),
            ..self.clone()
        }
    }

    /// Makes a scratch home (`cf-<random>`, CMD-10): a fresh home with the login brought in,
    /// that no session is recorded in and that its maker removes ([`ScratchHome`]'s drop).
    pub fn scratch(&self) -> Result<ScratchHome, SandboxError> {
        let home = self
            .root
            .join(format!("{SCRATCH_PREFIX}{}", uuid::Uuid::new_v4().simple()));
        create_private_dir(&home)?;
        let scratch = ScratchHome(home);
        self.bring_login(&scratch.0);
        create_private_dir(&scratch.0.join("tmp"))?;
        Ok(scratch)
    }

    /// Removes the scratch homes last changed before `before` (left by a killed command).
    pub fn sweep_scratch(&self, before: std::time::SystemTime) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let stale = entry
                .file_name()
                .to_string_lossy()
                .starts_with(SCRATCH_PREFIX)
                && modified(&entry.path()).is_some_and(|time| time < before);
            if stale && let Err(error) = std::fs::remove_dir_all(entry.path()) {
                tracing::warn!(%error, home = %entry.path().display(), "could not remove a stale scratch home");
            }
        }
    }

    /// The folder of this workspace's transcripts in the CLI home `home`.
    pub fn transcripts_in(&self, home: &Path) -> PathBuf {
        self.projects(home)
    }

    /// The folder every home lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Prepares the home of one CLI start of kind `confinement`, resuming `resume` (branched
    /// into a new id when `fork_session`): reuses the session's own home when it is of the
    /// same trust and the session is continued, else makes a fresh one holding a copy of the
    /// transcript. Brings the login in and makes the home's private temp dir.
    pub fn prepare(
        &self,
        confinement: Confinement,
        resume: Option<&str>,
        fork_session: bool,
    ) -> Result<PathBuf, SandboxError> {
        if let Some(home) = &self.pinned {
            self.bring_login(home);
            create_private_dir(&home.join("tmp"))?;
            return Ok(home.clone());
        }
        let prefix = trust_prefix(confinement);
        let recorded = match resume {
            Some(id) => self.book.home_of(id)?,
            None => None,
        };
        let reused = recorded
            .filter(|_| !fork_session)
            .filter(|name| name.starts_with(prefix))
            .map(|name| self.root.join(name))
            .filter(|home| home.is_dir());
        let home = if let Some(home) = reused {
            home
        } else {
            let home = self
                .root
                .join(format!("{prefix}{}", uuid::Uuid::new_v4().simple()));
            create_private_dir(&home)?;
            home
        };
        if let Some(id) = resume {
            self.bring_transcript(id, &home)?;
        }
        self.bring_login(&home);
        create_private_dir(&home.join("tmp"))?;
        Ok(home)
    }

    /// Records that the CLI working in `home` reported `session`.
    pub fn record(&self, session: &str, home: &Path) {
        if self.pinned.is_some() {
            return;
        }
        let (Some(name), Some(parent)) = (home.file_name(), home.parent()) else {
            return;
        };
        if parent != self.root {
            return;
        }
        let name = name.to_string_lossy();
        if let Err(error) = self.book.record(session, &name) {
            tracing::warn!(%error, session, "could not record which home holds the session");
        }
    }

    /// Where `session`'s transcript is: in the home recorded for it, else (a session from
    /// before issue 39) in the master config dir; an error when the record can't be read.
    pub fn transcript(&self, session: &str) -> Result<Option<PathBuf>, SandboxError> {
        let file = format!("{session}.jsonl");
        let recorded = self
            .book
            .home_of(session)?
            .map(|name| self.projects(&self.root.join(name)).join(&file));
        Ok(recorded
            .into_iter()
            .chain(std::iter::once(self.projects(&self.master).join(&file)))
            .find(|path| path.is_file()))
    }

    /// The folder of this workspace's transcripts in the config dir `dir`.
    fn projects(&self, dir: &Path) -> PathBuf {
        dir.join("projects")
            .join(crate::transcripts::project_key(&self.workspace))
    }

    /// Copies `session`'s transcript into `home` when it isn't there (only the transcript:
    /// nothing else of another home ever comes along).
    fn bring_transcript(&self, session: &str, home: &Path) -> Result<(), SandboxError> {
        let target = self.projects(home).join(format!("{session}.jsonl"));
        if target.is_file() {
            return Ok(());
        }
        let Some(source) = self.transcript(session)? else {
            return Ok(());
        };
        let copied = target
            .parent()
            .is_some_and(|dir| create_private_dir(dir).is_ok())
            && std::fs::copy(&source, &target).is_ok();
        if !copied {
            tracing::warn!(session, from = %source.display(), "could not copy the transcript into the session's home");
        }
        Ok(())
    }

    /// Brings the newest login into `home`: the master's, unless a home of the owner's
    /// sessions holds a newer one (the CLI refreshed it there), which then becomes the
    /// master's first. A background run's home never hands anything back.
    fn bring_login(&self, home: &Path) {
        let master = self.master.join(CREDENTIALS);
        let newest_owner = self
            .book
            .homes()
            .unwrap_or_default()
            .into_iter()
            .filter(|name| name.starts_with(trust_prefix(Confinement::Owner)))
            .map(|name| self.root.join(name).join(CREDENTIALS))
            .filter_map(|path| Some((modified(&path)?, path)))
            .max_by_key(|(time, _)| *time);
        if let Some((time, path)) = newest_owner
            && modified(&master).is_none_or(|master_time| time > master_time)
            && is_json_object(&path)
            && let Err(error) = copy_private(&path, &master)
        {
            tracing::warn!(%error, "could not keep the refreshed Claude login");
        }
        for name in [CREDENTIALS, CLI_STATE] {
            let source = self.master.join(name);
            let target = home.join(name);
            let newer = match (modified(&source), modified(&target)) {
                (Some(source), Some(target)) => source > target,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if newer
                && (name == CLI_STATE || is_json_object(&source))
                && let Err(error) = copy_private(&source, &target)
            {
                tracing::warn!(%error, file = name, "could not bring the Claude login into a session's home");
            }
        }
    }
}

/// A scratch home, removed with everything in it when dropped (CMD-10).
#[derive(Debug)]
pub struct ScratchHome(PathBuf);

impl ScratchHome {
    /// The home.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchHome {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir_all(&self.0)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(%error, home = %self.0.display(), "could not remove a scratch home");
        }
    }
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}

fn is_json_object(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|value| value.is_object())
}

/// Copies `from` over `to` atomically, owner-only, keeping `from`'s modification time so
/// "newer" keeps meaning "refreshed later".
fn copy_private(from: &Path, to: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(from)?;
    crate::state::atomic::write_atomic(to, &bytes).map_err(std::io::Error::other)?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o600))?;
    }
    if let Some(time) = modified(from) {
        std::fs::File::options()
            .write(true)
            .open(to)?
            .set_modified(time)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "homes_tests.rs"]
mod tests;
