//! What the command line and the `.env` file say before anything else runs: which `.env` is
//! read (`--env-file PATH`, else `./.env`, else `DATA_DIR/.env`) and the `--data-dir` flag.
//!
//! Loaded before the async runtime starts, so setting the process environment races no
//! thread, and before logging starts, so `RUST_LOG` in the file is honoured. Variables already
//! in the environment win over the file's.

use std::path::{Path, PathBuf};

/// Where the `.env` in use came from, in the documented order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvFileSource {
    /// `--env-file PATH`.
    Flag(PathBuf),
    /// `.env` in the current directory.
    CurrentDir(PathBuf),
    /// `DATA_DIR/.env`.
    DataDir(PathBuf),
    /// None of them exists; the paths looked at, in order.
    Absent(Vec<PathBuf>),
}

impl EnvFileSource {
    /// The file read, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Flag(path) | Self::CurrentDir(path) | Self::DataDir(path) => Some(path),
            Self::Absent(_) => None,
        }
    }

    /// How the file was chosen, for `doctor` and logs: `--env-file`, `current directory`, ….
    pub fn describe(&self) -> String {
        match self {
            Self::Flag(path) => format!("{} (--env-file)", path.display()),
            Self::CurrentDir(path) => format!("{} (current directory)", path.display()),
            Self::DataDir(path) => format!("{} (data dir)", path.display()),
            Self::Absent(looked) => format!(
                "none found (looked at {})",
                looked
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Why the `.env` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `--env-file` names a file that is not there.
    #[error("--env-file {0}: no such file")]
    MissingFlagFile(PathBuf),
    /// A command the agent runs named a flag that redirects where the bot reads its
    /// configuration or keeps its data (issue 23 §3).
    #[error(
        "{flag} can't be used in a command the assistant runs: it uses the bot's own data dir \
         and settings"
    )]
    AgentRedirect {
        /// The flag.
        flag: &'static str,
    },
    /// The file exists but can't be read or parsed.
    #[error("could not read {path}: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What went wrong (line and cause for a syntax error).
        reason: String,
    },
}

/// The command line's say on configuration, and the `.env` it led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The `.env` read.
    pub env_file: EnvFileSource,
    /// `--data-dir DIR`: wins over `OLLIM_DATA_DIR`.
    pub data_dir_flag: Option<PathBuf>,
}

impl Launch {
    /// Finds the `.env` (see the module docs) and loads it into the process environment
    /// without overriding variables already set. Call before any thread starts.
    pub fn load(
        env_file_flag: Option<PathBuf>,
        data_dir_flag: Option<PathBuf>,
    ) -> Result<Self, LaunchError> {
        // A command the agent runs (its shells carry the marker) reads no env file: it inherits
        // the bot's settings from the CLI, an env file could point it elsewhere, and the bot's
        // own is outside its sandbox. Flags that redirect it are refused (issue 23 §3).
        if super::environment::is_agent_child() {
            if env_file_flag.is_some() {
                return Err(LaunchError::AgentRedirect { flag: "--env-file" });
            }
            if data_dir_flag.is_some() {
                return Err(LaunchError::AgentRedirect { flag: "--data-dir" });
            }
            return Ok(Self::none());
        }
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let env_file = locate(
            env_file_flag,
            data_dir_flag.as_deref(),
            &cwd,
            super::environment::var,
            Path::is_file,
        )?;
        if let Some(path) = env_file.path() {
            dotenvy::from_path(path).map_err(|error| LaunchError::Unreadable {
                path: path.to_owned(),
                reason: error.to_string(),
            })?;
        }
        Ok(Self {
            env_file,
            data_dir_flag,
        })
    }

    /// No flags and no file: what tests and library callers use.
    pub fn none() -> Self {
        Self {
            env_file: EnvFileSource::Absent(Vec::new()),
            data_dir_flag: None,
        }
    }

    /// A variable as configuration sees it: `OLLIM_DATA_DIR` from `--data-dir` when given,
    /// everything else from the process environment (which the `.env` filled in).
    pub fn var(&self, name: &str) -> Option<String> {
        if name == "OLLIM_DATA_DIR"
            && let Some(dir) = &self.data_dir_flag
        {
            return Some(dir.display().to_string());
        }
        super::environment::var(name)
    }
}

/// The documented order, with the environment and the file system injected.
fn locate(
    flag: Option<PathBuf>,
    data_dir_flag: Option<&Path>,
    cwd: &Path,
    env: impl Fn(&str) -> Option<String>,
    is_file: impl Fn(&Path) -> bool,
) -> Result<EnvFileSource, LaunchError> {
    if let Some(path) = flag {
        let path = if path.is_relative() {
            cwd.join(path)
        } else {
            path
        };
        return if is_file(&path) {
            Ok(EnvFileSource::Flag(path))
        } else {
            Err(LaunchError::MissingFlagFile(path))
        };
    }
    let here = cwd.join(".env");
    if is_file(&here) {
        return Ok(EnvFileSource::CurrentDir(here));
    }
    let data_dir = data_dir_flag
        .map(Path::to_path_buf)
        .or_else(|| super::data_dir_from(&env));
    let Some(data_dir) = data_dir else {
        return Ok(EnvFileSource::Absent(vec![here]));
    };
    let in_data_dir = data_dir.join(".env");
    if is_file(&in_data_dir) {
        Ok(EnvFileSource::DataDir(in_data_dir))
    } else {
        Ok(EnvFileSource::Absent(vec![here, in_data_dir]))
    }
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
