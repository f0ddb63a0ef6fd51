//! STATE FILES (CMD-7): every state file the bot reads, judged by the reader the bot itself
//! uses (`state::inspection`, issue 24 §1: `sessions.json` holds a bare session id, not JSON),
//! and `state/config.json` as the runtime settings loader accepts it. Nothing is changed: a
//! damaged file is reported (the bot sets it aside at its next start and says so), and no
//! file's content is ever shown.

use std::path::Path;

use serde_json::Value;

use super::{Check, Group};
use crate::{
    config::RuntimeConfig,
    state::{
        inspection::{Health, inspect},
        paths::DataDir,
    },
};

/// The STATE FILES group for `data_dir`.
pub(super) fn state_file_checks(data_dir: &DataDir) -> Vec<Check> {
    let group = Group::StateFiles;
    match std::fs::read_dir(data_dir.state_dir()) {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return vec![Check::pass(group, "no state/ yet (created at first start)")];
        }
        Err(error) => {
            return vec![Check::fail(
                group,
                format!("state/ can't be read ({error}): fix its permissions"),
            )];
        }
    }
    let mut checks: Vec<Check> = inspect(data_dir)
        .into_iter()
        .filter_map(|file| {
            let name = format!("state/{}", file.name);
            match file.health {
                Health::Absent => None,
                Health::Sound => Some(Check::pass(group, format!("{name} reads fine"))),
                Health::Damaged(reason) => Some(Check::fail(
                    group,
                    format!(
                        "{name} is damaged ({reason}): repair it now to keep its content; at its \
                         next start the bot moves it aside as {name}.corrupt-<time>, starts it \
                         fresh and tells you"
                    ),
                )),
                Health::Unreadable(error) => Some(Check::fail(
                    group,
                    format!("{name} can't be read ({error}): fix its permissions"),
                )),
            }
        })
        .collect();
    checks.push(runtime_config_check(&data_dir.config_file()));
    checks
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
