//! The session commands both front ends offer (SLC-1, 2, 3, 5, 6, 8, 10, 15): one parser from a
//! command name and its named options to a [`Command`], and one reply type. Discord hands in
//! its slash-command options; the terminal hands in the rest of a `/name …` line, split by
//! [`CommandArgs::from_line`]. [`crate::agent::MainSession::run_command`] executes a command.
//!
//! `/fork`, `/interrupt`, `/ping-budget` and `/restart` stay with their front end: they act on
//! the front end itself (deferred replies, the process) rather than on the session's settings.

use crate::{
    claude::{PermissionMode, Thinking},
    config::runtime::{ConfigKey, thinking_from_choice},
};

/// Each command's options, in the order a terminal line gives them; the last one takes the
/// rest of the line (`/thinking 8k budget`, `/compact keep the plan`).
const OPTIONS: &[(&str, &[&str])] = &[
    ("clear", &[]),
    ("compact", &["instructions"]),
    ("cost", &[]),
    ("model", &["name"]),
    ("thinking", &["mode"]),
    ("permissions", &["mode"]),
    ("config", &["key", "value"]),
    ("version", &[]),
];

/// A session command, its options read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/clear` (SLC-1).
    Clear,
    /// `/compact [instructions]` (SLC-2).
    Compact {
        /// What the summary should keep.
        instructions: Option<String>,
    },
    /// `/cost` (SLC-3).
    Cost,
    /// `/model [name]` (SLC-5): `None` shows the current model.
    Model(Option<String>),
    /// `/thinking [mode]` (SLC-6): `None` shows the current mode.
    Thinking(Option<Thinking>),
    /// `/permissions [mode]` (SLC-8): `None` shows the current mode; never `plan`.
    Permissions(Option<PermissionMode>),
    /// `/config [key] [value]` (SLC-10).
    Config(ConfigRequest),
    /// `/version` (SLC-15).
    Version,
}

/// What `/config` was asked (SLC-10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigRequest {
    /// No key: every setting.
    ShowAll,
    /// A key alone: that setting.
    Show(ConfigKey),
    /// A key and a value: validate, save, apply, show (CFG-2, CFG-4).
    Set(ConfigKey, String),
}

impl Command {
    /// Whether answering may take a while (a CLI turn): Discord defers these publicly
    /// (SLC-2, SLC-3).
    pub fn is_slow(&self) -> bool {
        matches!(self, Self::Compact { .. } | Self::Cost)
    }
}

/// Why a command line could not be read; its text is the reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    /// Not one of the session commands.
    #[error("unknown command /{0}")]
    UnknownCommand(String),
    /// `/thinking` with something that is not a mode (SLC-6).
    #[error("thinking must be off, adaptive or a token budget.")]
    Thinking,
    /// `/permissions` with something that is not a mode (SLC-8).
    #[error("permissions must be dontAsk, default, acceptEdits or bypassPermissions.")]
    Permissions,
    /// `/config` with a key it does not know (SLC-10).
    #[error("unknown key: {0}")]
    ConfigKey(String),
}

/// A command's answer, for the front end to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandReply {
    /// The command did what was asked (or showed what was asked).
    Done(String),
    /// The command was refused or failed; the text says why.
    Failed(String),
}

impl CommandReply {
    /// The reply's text, whichever way it went (Discord shows both alike).
    pub fn text(&self) -> &str {
        match self {
            Self::Done(text) | Self::Failed(text) => text,
        }
    }
}

impl From<UsageError> for CommandReply {
    fn from(error: UsageError) -> Self {
        Self::Failed(error.to_string())
    }
}

/// A command's named options (`("mode", "8k budget")`); blank values count as absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandArgs<'a> {
    named: Vec<(&'a str, &'a str)>,
}

impl<'a> CommandArgs<'a> {
    /// Options given by name (Discord's slash-command options).
    pub fn named(named: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            named: named.into_iter().collect(),
        }
    }

    /// The options of a terminal line's `rest` (after `/command`): whitespace-separated, in
    /// the command's option order, the last option taking the rest of the line.
    pub fn from_line(command: &str, rest: &'a str) -> Self {
        let option_names = OPTIONS
            .iter()
            .find(|(name, _)| *name == command)
            .map_or(&[][..], |(_, names)| *names);
        let mut named = Vec::new();
        let mut rest = rest.trim();
        for (index, name) in option_names.iter().enumerate() {
            if rest.is_empty() {
                break;
            }
            let value = if index + 1 == option_names.len() {
                std::mem::take(&mut rest)
            } else {
                let (value, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                rest = tail.trim_start();
                value
            };
            named.push((*name, value));
        }
        Self { named }
    }

    /// The trimmed value of option `name`, if given and not blank.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.named
            .iter()
            .find(|(given, _)| *given == name)
            .map(|(_, value)| value.trim())
            .filter(|value| !value.is_empty())
    }
}

/// Whether `name` is one of the session commands.
pub fn is_command(name: &str) -> bool {
    OPTIONS.iter().any(|(known, _)| *known == name)
}

/// Reads command `name` (without the slash) with its options.
pub fn parse(name: &str, args: &CommandArgs<'_>) -> Result<Command, UsageError> {
    let command = match name {
        "clear" => Command::Clear,
        "compact" => Command::Compact {
            instructions: args.get("instructions").map(str::to_owned),
        },
        "cost" => Command::Cost,
        "model" => Command::Model(args.get("name").map(str::to_owned)),
        "thinking" => Command::Thinking(
            args.get("mode")
                .map(|raw| thinking_from_choice(raw).ok_or(UsageError::Thinking))
                .transpose()?,
        ),
        "permissions" => Command::Permissions(
            args.get("mode")
                .map(|raw| {
                    PermissionMode::parse(raw)
                        .filter(|mode| *mode != PermissionMode::Plan)
                        .ok_or(UsageError::Permissions)
                })
                .transpose()?,
        ),
        "config" => Command::Config(match args.get("key") {
            None => ConfigRequest::ShowAll,
            Some(raw) => {
                let key = ConfigKey::from_name(raw)
                    .ok_or_else(|| UsageError::ConfigKey(raw.to_owned()))?;
                match args.get("value") {
                    None => ConfigRequest::Show(key),
                    Some(value) => ConfigRequest::Set(key, value.to_owned()),
                }
            }
        }),
        "version" => Command::Version,
        other => return Err(UsageError::UnknownCommand(other.to_owned())),
    };
    Ok(command)
}

/// Reads a terminal line (`/thinking 8k budget`): `None` when it does not name a session
/// command (plain text, `/help`, or a slash the agent should see).
pub fn parse_line(line: &str) -> Option<Result<Command, UsageError>> {
    let line = line.trim().strip_prefix('/')?;
    let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    is_command(name).then(|| parse(name, &CommandArgs::from_line(name, rest)))
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
