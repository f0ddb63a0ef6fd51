//! Where the bot's folders are, from the variables alone (before, or without, a full
//! [`Config`](super::Config)): the data dir and the Claude CLI's config dir of the bot's own.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

/// The environment every CLI child gets on top of the inherited one, as `lookup` sees the
/// variables: the bot's own CLI config dir unless `CLAUDE_CONFIG_DIR` names one (issue 23).
/// For commands that start the CLI before (or without) a full [`Config`]: `auth`, `setup`,
/// `doctor`.
pub fn cli_env_from(lookup: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    let set = lookup("CLAUDE_CONFIG_DIR").is_some_and(|v| !v.trim().is_empty());
    data_dir_from(&lookup).map_or_else(BTreeMap::new, |data_dir| cli_env_for(set, &data_dir))
}

/// [`cli_env_from`] once the data dir is known.
pub(super) fn cli_env_for(config_dir_set: bool, data_dir: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    if !config_dir_set {
        env.insert(
            "CLAUDE_CONFIG_DIR".to_owned(),
            bot_cli_config_dir(data_dir).display().to_string(),
        );
    }
    env
}

/// The CLI's config dir of the bot's own, used unless `CLAUDE_CONFIG_DIR` names another:
/// `DATA_DIR/state/claude` (issue 23).
pub fn bot_cli_config_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("state").join("claude")
}

/// The data dir the variables name: `OLLIM_DATA_DIR` (`~/` expanded), else
/// `$HOME/.ollim-bot`; `None` without either.
pub fn data_dir_from(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
    get("OLLIM_DATA_DIR")
        .map(|raw| expand_home(raw.trim(), get("HOME").as_deref()))
        .or_else(|| get("HOME").map(|home| PathBuf::from(home).join(".ollim-bot")))
}

pub(crate) fn expand_home(raw: &str, home: Option<&str>) -> PathBuf {
    match (raw.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(raw),
    }
}
