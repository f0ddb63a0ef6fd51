//! The process environment, read here and nowhere else in the crate (issue 25 §3): each
//! variable the bot reads has one function saying what it is for, and [`var`] is the one
//! door for settings looked up by name (the `.env` layering in `config::launch`, the
//! configuration's lookups).
//!
//! The one other place that touches the environment is the CLI driver
//! (`claude::process::spawn`), which hands an allow-listed copy of it to the CLI child
//! (`claude::child_env`): that passes the environment through, it reads no setting from it.

use std::{ffi::OsString, path::PathBuf};

/// `name`, when set to valid UTF-8.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `name` set to something other than blanks.
pub fn is_set(name: &str) -> bool {
    var(name).is_some_and(|value| !value.trim().is_empty())
}

/// `$HOME`: the owner's home, for paths written with `~` and the places secrets live.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// `$PATH`: where programs are looked up (the CLI, and the sandbox's executable dirs).
pub fn search_path() -> Option<OsString> {
    std::env::var_os("PATH")
}

/// `$USER`: the login name, for `loginctl` (linger of the user service).
pub fn user_name() -> Option<String> {
    var("USER")
}

/// Whether this process is a command the agent ran (its shells carry
/// [`crate::claude::AGENT_CHILD_ENV`]): it then reads no env file and asks nobody.
pub fn is_agent_child() -> bool {
    std::env::var_os(crate::claude::AGENT_CHILD_ENV).is_some()
}

/// `OLLIM_OFFER_EVERY_TOOL`, set to anything: sessions are offered every tool (for measuring
/// what narrowing saves, `benches/prompt.rs`).
pub const OFFER_EVERY_TOOL_ENV: &str = "OLLIM_OFFER_EVERY_TOOL";

/// Whether [`OFFER_EVERY_TOOL_ENV`] is set.
pub fn offers_every_tool() -> bool {
    std::env::var_os(OFFER_EVERY_TOOL_ENV).is_some()
}

/// `OLLIM_SOURCE_DIR`: the git checkout self-update builds from, when not the one this
/// binary was built in.
pub fn source_dir() -> Option<PathBuf> {
    std::env::var_os("OLLIM_SOURCE_DIR")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// `OLLIM_UPDATE_POLL_SECS`: how often self-update looks for a release (tests set it short).
pub fn update_poll_secs() -> Option<String> {
    var("OLLIM_UPDATE_POLL_SECS")
}

/// `OLLIM_GOOGLE_API_URL`: where the Google APIs are (the fake Google in tests).
pub fn google_api_url() -> Option<String> {
    var(super::GOOGLE_API_URL_ENV)
}

/// `DISCORD_TOKEN`: the bot's Discord token (the `.env` file is loaded into the environment
/// first).
pub fn discord_token() -> Option<String> {
    var("DISCORD_TOKEN")
}

/// `OLLIM_DISCORD_API_URL`: where Discord's HTTP API is (the fake Discord in tests).
pub fn discord_api_url() -> Option<String> {
    var("OLLIM_DISCORD_API_URL").filter(|url| !url.trim().is_empty())
}
