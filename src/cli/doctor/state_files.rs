//! STATE FILES (CMD-7): every `state/*.json` is JSON, and `state/config.json` is what the
//! runtime settings loader accepts. Nothing is changed: a broken file is reported, not moved
//! aside, and no file's content is ever shown.

use std::path::Path;

use serde_json::Value;

use super::{Check, Group};
use crate::{config::RuntimeConfig, state::paths::DataDir};

/// The STATE FILES group for `data_dir`.
pub(super) fn state_file_checks(data_dir: &DataDir) -> Vec<Check> {
    let group = Group::StateFiles;
    let state_dir = data_dir.state_dir();
    let entries = match std::fs::read_dir(&state_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return vec![Check::pass(group, "no state/ yet (created at first start)")];
        }
        Err(error) => {
            return vec![Check::fail(
                group,
                format!("state/ can't be read ({error}): fix its permissions"),
            )];
        }
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json") && path.is_file())
        .collect();
    files.sort();
    let mut checks: Vec<Check> = files.iter().map(|path| json_file_check(path)).collect();
    checks.push(runtime_config_check(&data_dir.config_file()));
    checks
}

fn shown(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    format!("state/{name}")
}

/// One file parses as JSON.
pub(super) fn json_file_check(path: &Path) -> Check {
    let group = Group::StateFiles;
    let name = shown(path);
    match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(_) => Check::pass(group, format!("{name} is valid JSON")),
            Err(error) => Check::fail(
                group,
                format!(
                    "{name} is not valid JSON ({error}): repair it, or stop the bot and move it \
                     aside (the bot starts that file afresh)"
                ),
            ),
        },
        Err(error) => Check::fail(
            group,
            format!("{name} can't be read ({error}): fix its permissions"),
        ),
    }
}

/// `state/config.json` as the runtime settings loader reads it (without its moving a broken
/// file aside).
pub(super) fn runtime_config_check(path: &Path) -> Check {
    let group = Group::StateFiles;
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Check::pass(
                group,
                "state/config.json absent: the default settings apply",
            );
        }
        Err(error) => {
            return Check::fail(
                group,
                format!("state/config.json can't be read ({error}): fix its permissions"),
            );
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => {
            let settings = RuntimeConfig::from_json(&object);
            let changed = settings.to_json().len();
            Check::pass(
                group,
                format!("state/config.json loads ({changed} setting(s) differ from the defaults)"),
            )
        }
        Ok(_) => Check::fail(
            group,
            "state/config.json is not a JSON object: the bot would set it aside and use the \
             defaults; fix it or change settings with /config",
        ),
        // The JSON line above already names the problem.
        Err(_) => Check::fail(
            group,
            "state/config.json can't be loaded: the bot would set it aside and use the defaults",
        ),
    }
}
