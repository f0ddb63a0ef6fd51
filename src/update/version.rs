//! The running version as `/version` and the start-up greeting show it (SLC-15, UPD-8, GRT-1/2):
//! `git describe --tags --match 'v*'` in the source checkout, falling back to the package
//! version.

use std::{fmt, time::Duration};

use tokio::sync::OnceCell;

use super::{process, source::SourceDir};

/// Time limit for the local `git describe` (UPD-3's local git limit).
const DESCRIBE_LIMIT: Duration = Duration::from_secs(10);

/// What the version string is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunningVersion {
    /// HEAD is exactly on this `v*` tag.
    Tagged(String),
    /// HEAD is past the last `v*` tag: the tag and HEAD's short sha.
    Dev {
        /// The last tag before HEAD.
        tag: String,
        /// HEAD's abbreviated commit id.
        sha: String,
    },
    /// No checkout, no git or no tag: the version the binary was built as (without the `v`).
    Package(String),
}

impl RunningVersion {
    /// Reads `git describe --tags --match 'v*' --abbrev=7` output (`v0.3.0` or
    /// `v0.3.0-5-gabc1234`); `None` or an empty output gives the package version.
    pub fn from_describe(describe: Option<&str>, package: &str) -> Self {
        let Some(text) = describe.map(str::trim).filter(|t| !t.is_empty()) else {
            return Self::Package(package.to_owned());
        };
        let mut parts = text.rsplitn(3, '-');
        if let (Some(sha), Some(count), Some(tag)) = (parts.next(), parts.next(), parts.next())
            && let Some(sha) = sha.strip_prefix('g')
            && !sha.is_empty()
            && sha.chars().all(|c| c.is_ascii_hexdigit())
            && !count.is_empty()
            && count.chars().all(|c| c.is_ascii_digit())
        {
            return Self::Dev {
                tag: tag.to_owned(),
                sha: sha.to_owned(),
            };
        }
        Self::Tagged(text.to_owned())
    }

    /// The `/version` answer: `ollim-bot v0.3.0`, `ollim-bot v0.3.0+dev (abc1234)`.
    pub fn reply(&self) -> String {
        format!("ollim-bot {self}")
    }
}

/// `v0.3.0`, `v0.3.0+dev (abc1234)`, or `v<package version>`.
impl fmt::Display for RunningVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tagged(tag) => f.write_str(tag),
            Self::Dev { tag, sha } => write!(f, "{tag}+dev ({sha})"),
            Self::Package(version) => write!(f, "v{version}"),
        }
    }
}

/// Describes the checkout in `source`; any failure (no checkout, no git, no tag) gives the
/// package version.
pub async fn describe(source: &SourceDir) -> RunningVersion {
    let package = env!("CARGO_PKG_VERSION");
    let SourceDir::Checkout(dir) = source else {
        return RunningVersion::Package(package.to_owned());
    };
    let args = ["describe", "--tags", "--match", "v*", "--abbrev=7"];
    match process::run("git", &args, dir, DESCRIBE_LIMIT).await {
        Ok(out) => RunningVersion::from_describe(Some(&out), package),
        Err(error) => {
            tracing::debug!(%error, "no version from git; using the package version");
            RunningVersion::Package(package.to_owned())
        }
    }
}

static RUNNING: OnceCell<RunningVersion> = OnceCell::const_new();

/// This process's version, described once (the first call, at start-up) from the source
/// checkout ([`SourceDir::from_env`]): a later `git pull` shows only after the restart that
/// runs the new binary.
pub async fn running_version() -> &'static RunningVersion {
    RUNNING
        .get_or_init(|| async { describe(&SourceDir::from_env()).await })
        .await
}

#[cfg(test)]
#[path = "version_tests.rs"]
mod tests;
