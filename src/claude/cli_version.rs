//! The Claude Code CLI version this build is tested against, and how an installed one
//! compares (issue 15: the CLI pinned for users too; CMD-7's CLI check; BOOT-1's start-up log).

use std::{fmt, path::Path, process::Stdio, time::Duration};

/// The CLI version the whole test suite runs (`.ci/test.sh` installs exactly this one; the
/// README's install section names it).
pub const TESTED_CLI_VERSION: CliVersion = CliVersion {
    major: 2,
    minor: 1,
    patch: 332,
};

/// How long `claude --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// A `major.minor.patch` CLI version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CliVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

impl fmt::Display for CliVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// How an installed CLI stands against [`TESTED_CLI_VERSION`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliFit {
    /// Exactly the tested version.
    Tested,
    /// An older one: it lacks switches the bot sets (2.1.197 still reads files named with
    /// `@path` in a prompt into the model's context).
    Older(CliVersion),
    /// A newer one: it may speak the protocol differently.
    Newer(CliVersion),
}

/// The npm package of [`TESTED_CLI_VERSION`]: `@anthropic-ai/claude-code@<version>`.
pub fn tested_package() -> String {
    format!("@anthropic-ai/claude-code@{TESTED_CLI_VERSION}")
}

/// What to do when no `claude` runs where the bot looks: the same words in the driver's error,
/// the start-up auth check and `chat`.
pub fn missing_cli_fix() -> String {
    format!(
        "run `ollim-bot setup` to install the tested version ({}) for the bot, or set \
         OLLIM_CLAUDE_CLI to the path of the `claude` executable",
        tested_package()
    )
}

/// How to get [`TESTED_CLI_VERSION`], told wherever a CLI is another version: `ollim-bot
/// setup` offers to fetch it with npm into a folder of the bot's own, which the bot then runs
/// unless `OLLIM_CLAUDE_CLI` names another CLI.
fn install_hint() -> String {
    format!(
        "run `ollim-bot setup` to install {TESTED_CLI_VERSION} for the bot (with \
         OLLIM_CLAUDE_CLI set, point it at that version instead)"
    )
}

impl CliFit {
    /// How an untested version differs (`None` for the tested one), without the fix.
    pub fn difference(self) -> Option<String> {
        match self {
            Self::Tested => None,
            Self::Older(version) => Some(format!(
                "Claude Code CLI {version} is older than {TESTED_CLI_VERSION}, the version this \
                 build is tested with, and lacks switches the bot relies on (older CLIs read \
                 files named with @ in a prompt into the model's context)"
            )),
            Self::Newer(version) => Some(format!(
                "Claude Code CLI {version} is newer than {TESTED_CLI_VERSION}, the version this \
                 build is tested with, and may speak the protocol differently"
            )),
        }
    }

    /// What to tell the owner about an untested version (`None` for the tested one): the
    /// [`Self::difference`] and [`install_hint`]; the same words at start and in `chat`.
    pub fn concern(self) -> Option<String> {
        self.difference()
            .map(|difference| format!("{difference}: {}", install_hint()))
    }
}

impl CliVersion {
    /// Reads the first `x.y.z` of `claude --version` output (`2.1.332 (Claude Code)`).
    pub fn parse(output: &str) -> Option<Self> {
        let word = output.split_whitespace().next()?;
        let mut parts = word.trim_start_matches('v').splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch_text = parts.next()?;
        let digits = patch_text
            .find(|c: char| !c.is_ascii_digit())
            .map_or(patch_text, |end| &patch_text[..end]);
        Some(Self {
            major,
            minor,
            patch: digits.parse().ok()?,
        })
    }

    /// How this version stands against the tested one.
    pub fn fit(self) -> CliFit {
        match self.cmp(&TESTED_CLI_VERSION) {
            std::cmp::Ordering::Equal => CliFit::Tested,
            std::cmp::Ordering::Less => CliFit::Older(self),
            std::cmp::Ordering::Greater => CliFit::Newer(self),
        }
    }
}

/// Why the installed CLI's version could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CliVersionError {
    /// The executable is missing or can't be started.
    #[error("cannot run {path}: {source}")]
    Spawn {
        /// The CLI path tried.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// It ran but took too long.
    #[error("{path} --version did not answer within {}s", VERSION_TIMEOUT.as_secs())]
    Timeout {
        /// The CLI path tried.
        path: String,
    },
    /// It answered something that is not a version.
    #[error("{path} --version printed no version: {output:?}")]
    Unreadable {
        /// The CLI path tried.
        path: String,
        /// What it printed (first line).
        output: String,
    },
}

/// Runs `<cli> --version` (auto-updater off) and reads its answer.
pub async fn installed_cli_version(cli: &Path) -> Result<CliVersion, CliVersionError> {
    let path = cli.display().to_string();
    let run = tokio::process::Command::new(cli)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(VERSION_TIMEOUT, run)
        .await
        .map_err(|_| CliVersionError::Timeout { path: path.clone() })?
        .map_err(|source| CliVersionError::Spawn {
            path: path.clone(),
            source,
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    CliVersion::parse(&text).ok_or_else(|| CliVersionError::Unreadable {
        path,
        output: text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(120)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cli_answer() {
        assert_eq!(
            CliVersion::parse("2.1.332 (Claude Code)\n"),
            Some(TESTED_CLI_VERSION)
        );
        assert_eq!(
            CliVersion::parse("v2.2.0-beta.1"),
            Some(CliVersion {
                major: 2,
                minor: 2,
                patch: 0
            })
        );
        assert_eq!(CliVersion::parse("Claude Code"), None);
        assert_eq!(CliVersion::parse(""), None);
    }

    #[test]
    fn only_the_tested_version_fits_and_an_older_one_is_told_to_update() {
        assert_eq!(TESTED_CLI_VERSION.fit(), CliFit::Tested);
        assert_eq!(TESTED_CLI_VERSION.fit().concern(), None);
        let older = CliVersion::parse("2.1.197").unwrap();
        assert_eq!(older.fit(), CliFit::Older(older));
        let said = older.fit().concern().unwrap();
        assert!(said.contains("older than 2.1.332"), "{said}");
        assert!(
            said.contains("`ollim-bot setup` to install 2.1.332"),
            "{said}"
        );
        let newer = CliVersion::parse("2.2.0").unwrap();
        assert_eq!(newer.fit(), CliFit::Newer(newer));
        assert!(
            newer
                .fit()
                .concern()
                .unwrap()
                .contains("newer than 2.1.332")
        );
        assert_eq!(TESTED_CLI_VERSION.to_string(), "2.1.332");
    }
}
