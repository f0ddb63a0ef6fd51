//! Which Claude Code CLI the bot runs, decided here and nowhere else: the one the owner names
//! (`OLLIM_CLAUDE_CLI`), else the bot's own copy when `ollim-bot setup` installed one, else
//! `claude` on `PATH`.
//!
//! The bot's own copy lives under the XDG data home (`$XDG_DATA_HOME/ollim-bot/claude-cli`,
//! by default `~/.local/share/ollim-bot/claude-cli`), never in the data dir: the data dir is
//! the agent's workspace, and a CLI the agent could rewrite there would next be run by the
//! main session (issue 44 §4). A copy that does sit inside the data dir is not used.

use std::path::{Path, PathBuf};

/// Where the CLI the bot runs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliOrigin {
    /// `OLLIM_CLAUDE_CLI`: the owner's choice, used whatever it is.
    Named,
    /// The copy `ollim-bot setup` installed into [`bot_cli_dir`].
    BotCopy,
    /// `claude`, looked up on `PATH`.
    SearchPath,
}

impl CliOrigin {
    /// How `doctor` and `setup` name it, after the path.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Named => "named by OLLIM_CLAUDE_CLI",
            Self::BotCopy => "the bot's own copy, installed by `ollim-bot setup`",
            Self::SearchPath => "`claude` on PATH",
        }
    }

    /// What makes the tested version the one in use for a CLI from here: the owner's choice is
    /// theirs to change; otherwise `ollim-bot setup` installs it for the bot.
    pub fn fix(self) -> String {
        let tested = crate::claude::TESTED_CLI_VERSION;
        match self {
            Self::Named => format!(
                "point OLLIM_CLAUDE_CLI at {tested}, or remove it and run `ollim-bot setup` to \
                 install that version for the bot"
            ),
            Self::BotCopy | Self::SearchPath => {
                format!("run `ollim-bot setup` to install {tested} for the bot")
            }
        }
    }
}

/// The CLI the bot runs, and why that one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeCli {
    /// The executable: a path, or `claude` to look up on `PATH`.
    pub path: PathBuf,
    /// Where it came from.
    pub origin: CliOrigin,
}

impl ClaudeCli {
    /// The line for a CLI that is not there, with what to do (`doctor`, the daemon's start).
    pub fn not_found(&self) -> String {
        match self.origin {
            CliOrigin::SearchPath => format!(
                "Claude Code CLI not found (no `claude` on PATH, and no copy of the bot's own): \
                 {}, or set OLLIM_CLAUDE_CLI to the path of `claude`",
                self.origin.fix()
            ),
            CliOrigin::Named | CliOrigin::BotCopy => format!(
                "Claude Code CLI not found at {} ({}): {}",
                self.path.display(),
                self.origin.describe(),
                self.origin.fix()
            ),
        }
    }
}

/// The folder the bot's own CLI is installed into, as `lookup` sees the variables:
/// `$XDG_DATA_HOME/ollim-bot/claude-cli` (an absolute `XDG_DATA_HOME` only, as the XDG spec
/// says), else `$HOME/.local/share/ollim-bot/claude-cli`; `None` without either.
pub fn bot_cli_dir(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let get = |name: &str| {
        lookup(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let data_home = get("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| get("HOME").map(|home| PathBuf::from(home).join(".local/share")))?;
    Some(data_home.join("ollim-bot").join("claude-cli"))
}

/// The executable npm links into an install folder (`--prefix <dir>`):
/// `<dir>/node_modules/.bin/claude`.
pub fn bot_cli_executable(dir: &Path) -> PathBuf {
    dir.join("node_modules").join(".bin").join("claude")
}

/// Whether the bot's own CLI folder lies inside `data_dir`, where the agent could change it.
pub fn inside_data_dir(dir: &Path, data_dir: &Path) -> bool {
    let dir = crate::state::paths::absolute_normalized(dir);
    let data_dir = crate::state::paths::absolute_normalized(data_dir);
    dir.starts_with(data_dir)
}

/// The CLI the bot runs, as `lookup` sees the variables (see the module's head for the
/// order). The bot's copy counts when its executable is a file (its link followed) and it is
/// outside the data dir.
pub fn claude_cli_from(lookup: impl Fn(&str) -> Option<String>) -> ClaudeCli {
    let named = lookup("OLLIM_CLAUDE_CLI")
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty());
    if let Some(named) = named {
        return ClaudeCli {
            path: PathBuf::from(named),
            origin: CliOrigin::Named,
        };
    }
    let data_dir = super::data_dir_from(&lookup);
    let own = bot_cli_dir(&lookup)
        .filter(|dir| {
            !data_dir
                .as_deref()
                .is_some_and(|data| inside_data_dir(dir, data))
        })
        .map(|dir| bot_cli_executable(&dir))
        .filter(|exe| exe.is_file());
    match own {
        Some(path) => ClaudeCli {
            path,
            origin: CliOrigin::BotCopy,
        },
        None => ClaudeCli {
            path: PathBuf::from("claude"),
            origin: CliOrigin::SearchPath,
        },
    }
}

#[cfg(test)]
#[path = "claude_cli_tests.rs"]
mod tests;
