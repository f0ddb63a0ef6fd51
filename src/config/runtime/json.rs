//! Reading `config.json`'s values back: the text a stored value stands for, and the entries
//! this version does not know (kept as they are on save).

use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigKey;

/// The text a stored JSON value stands for, fed through the same parser as `/config`;
/// `None` for `null` on keys that cannot be unset and for values of the wrong type.
pub(super) fn raw_from_json(key: ConfigKey, value: &Value) -> Option<String> {
    match (key, value) {
        (_, Value::String(text)) => Some(text.clone()),
        (_, Value::Number(number)) => Some(number.to_string()),
        (
            ConfigKey::ModelMain
            | ConfigKey::ModelFork
            | ConfigKey::GoogleCalendars
            | ConfigKey::GoogleTaskList
            | ConfigKey::HomeChannel
            | ConfigKey::QuietHours,
            Value::Null,
        ) => Some(String::new()),
        // AGT-10: older versions stored thinking as a boolean.
        (ConfigKey::ThinkingMain | ConfigKey::ThinkingFork, Value::Bool(on)) => {
            Some(if *on { "adaptive" } else { "off" }.to_owned())
        }
        (ConfigKey::AutoUpdate | ConfigKey::QuietWhenBusy, Value::Bool(on)) => {
            Some(if *on { "on" } else { "off" }.to_owned())
        }
        (ConfigKey::GoogleCalendars, Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(|ids| ids.join(",")),
        _ => None,
    }
}

/// The entries of the JSON object at `path` whose keys this version does not know.
pub(super) fn unknown_entries(path: &Path) -> Map<String, Value> {
    let Ok(bytes) = std::fs::read(path) else {
        return Map::new();
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut object)) => {
            object.retain(|name, _| ConfigKey::from_stored_name(name).is_none());
            object
        }
        _ => Map::new(),
    }
}
