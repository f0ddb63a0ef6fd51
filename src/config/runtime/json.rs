//! Reading `config.json`'s values back: the text a stored value stands for, and the entries
//! this version does not know (kept as they are on save).

use serde_json::{Map, Value};

use super::ConfigKey;
use crate::state::state_file::FileFormat;

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

/// `config.json` as a state file (issue 40 §1): a JSON object of settings by name, read
/// whole; anything else (including a blank file) is damaged and set aside.
pub struct ConfigFile;

impl FileFormat for ConfigFile {
    type Value = Map<String, Value>;

    fn empty() -> Map<String, Value> {
        Map::new()
    }

    fn decode(bytes: &[u8]) -> Result<Map<String, Value>, String> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(_) => Err("not a JSON object".to_owned()),
            Err(error) => Err(error.to_string()),
        }
    }

    fn encode(value: &Map<String, Value>) -> Result<Vec<u8>, serde_json::Error> {
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// Keeps only the entries of `object` whose keys this version does not know.
pub(super) fn keep_unknown(object: &mut Map<String, Value>) {
    object.retain(|name, _| ConfigKey::from_stored_name(name).is_none());
}
