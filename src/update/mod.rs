//! Self-update of a bot built from a git checkout (UPD-1…8, SLC-11, SLC-15, SCH-5, F-37).
//!
//! - [`version`]: the version string of `/version` and the greeting (`git describe`).
//! - [`source`]: where the checkout is (`OLLIM_SOURCE_DIR`, else the one the binary was built
//!   from) and how often the auto-update loop wakes.
//! - [`release`]: `v*` tags in version order; [`auto`]: the auto-update decisions;
//!   [`summary`]: the message before the restart; [`process`]: running git and cargo.
//! - [`Updater`] does detection (fetch the tags, compare the newest with this binary's version)
//!   and applying (fast-forward the checkout, `cargo install` it), one at a time.
//!
//! F-37 lets the Rust port swap the Python tool upgrade for its own install step: here it is
//! `cargo install --locked --path <checkout>`, which replaces the installed `ollim-bot`.

pub mod auto;
pub mod process;
pub mod release;
pub mod source;
pub mod summary;
pub mod version;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use semver::Version;
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, MutexGuard};

pub use self::{
    process::CommandError,
    release::Release,
    source::SourceDir,
    version::{RunningVersion, running_version},
};
use crate::state::{
    paths::DataDir,
    state_file::{Json, StateFile},
};

/// Time limit for git commands that talk to `origin` (fetch, pull; UPD-5).
const NETWORK_LIMIT: Duration = Duration::from_secs(60);
/// Time limit for local git commands (UPD-3).
const LOCAL_LIMIT: Duration = Duration::from_secs(10);
/// Time limit for `cargo install`: a release build with fat LTO and one codegen unit takes
/// several minutes on a fast machine and much longer on a small one, so far above the 300 s
/// the Python original gave its dependency sync (F-37).
const INSTALL_LIMIT: Duration = Duration::from_secs(30 * 60);
/// The record of the last applied release, under `state/`.
const RECORD_FILE: &str = "update.json";

/// Why a check or an update could not be done.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// There is no checkout to update from.
    #[error("updates are unavailable: {0}")]
    Unavailable(String),
    /// A git or cargo command failed (its text is the spec's error text).
    #[error(transparent)]
    Command(#[from] CommandError),
}

/// What a check found (UPD-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detection {
    /// No release newer than this binary.
    UpToDate,
    /// A newer release to apply.
    Available(Release),
    /// The newest release is newer than this binary but was applied already: its
    /// `Cargo.toml` version was not bumped, and applying it again would loop.
    AlreadyApplied(Release),
}

/// An update that was applied and is waiting for the restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The release installed.
    pub release: Release,
    /// One-line subjects of the commits the pull brought in, newest first.
    pub subjects: Vec<String>,
}

/// `state/update.json`: the last release applied (the loop guard).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct UpdateRecord {
    #[serde(default)]
    applied_tag: Option<String>,
}

/// What `state/update.json` holds: the format `doctor` and the start-up check judge it by.
pub type RecordFormat = Json<UpdateRecord>;

/// Checks for and applies updates; one check-and-apply runs at a time.
#[derive(Debug)]
pub struct Updater {
    source: SourceDir,
    record_file: PathBuf,
    running: Version,
    turn: Mutex<()>,
}

impl Updater {
    /// An updater for `source`, keeping its record under `state_dir`, for a binary built as
    /// `running`.
    pub fn new(source: SourceDir, state_dir: &Path, running: Version) -> Self {
        Self {
            source,
            record_file: state_dir.join(RECORD_FILE),
            running,
            turn: Mutex::new(()),
        }
    }

    /// The updater of this process: [`SourceDir::from_env`], this data dir, this binary.
    pub fn from_env(data_dir: &DataDir) -> Self {
        Self::new(
            SourceDir::from_env(),
            &data_dir.state_dir(),
            release::running(),
        )
    }

    /// Where updates come from.
    pub fn source(&self) -> &SourceDir {
        &self.source
    }

    /// Starts a check-and-apply; `None` while another one runs (`/update` and the auto loop
    /// never pull or install at the same time).
    pub fn begin(&self) -> Option<UpdateRun<'_>> {
        let turn = self.turn.try_lock().ok()?;
        Some(UpdateRun {
            updater: self,
            _turn: turn,
        })
    }

    fn checkout(&self) -> Result<&Path, UpdateError> {
        match &self.source {
            SourceDir::Checkout(dir) => Ok(dir),
            SourceDir::Unavailable(why) => Err(UpdateError::Unavailable(why.clone())),
        }
    }

    fn applied_tag(&self) -> Option<String> {
        match self.record().read() {
            Ok(record) => record.applied_tag,
            Err(error) => {
                tracing::warn!(%error, "cannot read state/update.json");
                None
            }
        }
    }

    fn record_applied(&self, tag: &str) {
        let written = self.record().update(|record| {
            record.applied_tag = Some(tag.to_owned());
        });
        if let Err(error) = written {
            tracing::warn!(%error, "could not record the applied update in state/update.json");
        }
    }

    fn record(&self) -> StateFile<RecordFormat> {
        StateFile::new(&self.record_file)
    }
}

/// One check-and-apply, holding the [`Updater`]'s turn.
#[derive(Debug)]
pub struct UpdateRun<'a> {
    updater: &'a Updater,
    _turn: MutexGuard<'a, ()>,
}

impl UpdateRun<'_> {
    /// Fetches the tags from `origin` and compares the newest release with this binary
    /// (UPD-3). Untagged commits upstream never make an update.
    pub async fn detect(&self) -> Result<Detection, UpdateError> {
        let dir = self.updater.checkout()?;
        git(dir, &["fetch", "--tags", "origin"], NETWORK_LIMIT).await?;
        let tags = git(dir, &["tag", "-l", "v*"], LOCAL_LIMIT).await?;
        let Some(release) = release::update_over(&tags, &self.updater.running) else {
            return Ok(Detection::UpToDate);
        };
        if self.updater.applied_tag().as_deref() == Some(release.tag.as_str()) {
            return Ok(Detection::AlreadyApplied(release));
        }
        Ok(Detection::Available(release))
    }

    /// Applies `release` (UPD-5): `git pull --ff-only` unless the tag is already in HEAD's
    /// history (a diverged checkout fails here), then `cargo install --locked --path
    /// <checkout>`; records the tag so it is never applied twice. The restart is the
    /// caller's.
    pub async fn apply(&self, release: &Release) -> Result<Applied, UpdateError> {
        let dir = self.updater.checkout()?;
        let old = head(dir).await?;
        if !contains(dir, &release.tag).await? {
            git(dir, &["pull", "--ff-only"], NETWORK_LIMIT).await?;
        }
        let new = head(dir).await?;
        let subjects = if old == new {
            Vec::new()
        } else {
            let range = format!("{old}..{new}");
            git(dir, &["log", "--format=%s", &range], LOCAL_LIMIT)
                .await?
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_owned)
                .collect()
        };
        let path = dir.to_str().ok_or_else(|| {
            UpdateError::Unavailable(format!("{} is not a UTF-8 path", dir.display()))
        })?;
        process::run(
            "cargo",
            &["install", "--locked", "--path", path],
            dir,
            INSTALL_LIMIT,
        )
        .await?;
        self.updater.record_applied(&release.tag);
        Ok(Applied {
            release: release.clone(),
            subjects,
        })
    }
}

async fn git(dir: &Path, args: &[&str], limit: Duration) -> Result<String, CommandError> {
    process::run("git", args, dir, limit).await
}

async fn head(dir: &Path) -> Result<String, CommandError> {
    Ok(git(dir, &["rev-parse", "HEAD"], LOCAL_LIMIT)
        .await?
        .trim()
        .to_owned())
}

/// Whether `tag` is in HEAD's history (then there is nothing to pull).
async fn contains(dir: &Path, tag: &str) -> Result<bool, CommandError> {
    let tag_commit = format!("{tag}^{{commit}}");
    match git(
        dir,
        &["merge-base", "--is-ancestor", &tag_commit, "HEAD"],
        LOCAL_LIMIT,
    )
    .await
    {
        Ok(_) => Ok(true),
        Err(error) if error.exit_code() == Some(1) => Ok(false),
        Err(error) => Err(error),
    }
}

/// The program to run again on restart (UPD-7), from `std::env::current_exe()`. Once `cargo
/// install` replaced the binary, Linux names the running one `<path> (deleted)`; the path
/// without that suffix is the new binary.
pub fn restart_program(current_exe: PathBuf) -> PathBuf {
    const DELETED: &str = " (deleted)";
    if current_exe.exists() {
        return current_exe;
    }
    match current_exe
        .to_str()
        .and_then(|path| path.strip_suffix(DELETED))
    {
        Some(path) => PathBuf::from(path),
        None => current_exe,
    }
}

#[cfg(test)]
mod tests;
