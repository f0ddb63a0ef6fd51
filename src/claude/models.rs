//! The models the CLI offers, as its `initialize` answer lists them (`models[]`): each alias,
//! the model it stands for today, and what it supports. The CLI knows this better than any
//! list of ours (2.1.332 added the `fable` alias and models that can't turn thinking off).

use serde_json::Value;

/// One entry of the CLI's model list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliModel {
    /// What `--model` takes: an alias (`opus`, `sonnet[1m]`) or `default`.
    pub value: String,
    /// The model id it resolves to now (`claude-opus-5-5`), when the CLI says.
    pub resolved: Option<String>,
    /// The CLI's name for it (`Opus`).
    pub display_name: String,
    /// Whether thinking can be turned off for it (`supportsThinkingOff`; CLIs that don't
    /// report it could always turn it off).
    pub thinking_off: bool,
}

/// The `models` of an `initialize` answer; entries without a `value` are skipped.
pub fn offered_models(initialize: &Value) -> Vec<CliModel> {
    let entries = initialize["models"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    entries
        .iter()
        .filter_map(|entry| {
            let value = entry["value"].as_str()?.to_owned();
            Some(CliModel {
                display_name: entry["displayName"]
                    .as_str()
                    .map_or_else(|| value.clone(), str::to_owned),
                resolved: entry["resolvedModel"].as_str().map(str::to_owned),
                thinking_off: entry["supportsThinkingOff"].as_bool().unwrap_or(true),
                value,
            })
        })
        .collect()
}

/// The entry for `model` as the bot passes it (`None`: the CLI's default), matched by alias
/// (any case) or by the id it resolves to.
pub fn find_model<'a>(models: &'a [CliModel], model: Option<&str>) -> Option<&'a CliModel> {
    let wanted = model.unwrap_or("default");
    models.iter().find(|entry| {
        entry.value.eq_ignore_ascii_case(wanted) || entry.resolved.as_deref() == Some(wanted)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer() -> Value {
        json!({"models": [
            {"value": "default", "resolvedModel": "claude-opus-5-5",
             "displayName": "Default (recommended)", "supportsThinkingOff": false},
            {"value": "fable", "resolvedModel": "claude-fable-5-2", "displayName": "Fable",
             "supportsThinkingOff": false},
            {"value": "haiku", "resolvedModel": "claude-haiku-4-5-20251001",
             "displayName": "Haiku"},
            {"displayName": "no value, skipped"}
        ]})
    }

    #[test]
    fn the_list_is_read_and_a_missing_thinking_flag_means_it_can_be_turned_off() {
        let models = offered_models(&answer());
        assert_eq!(models.len(), 3);
        assert!(!models[0].thinking_off);
        assert!(models[2].thinking_off);
        assert_eq!(models[1].resolved.as_deref(), Some("claude-fable-5-2"));
        assert!(offered_models(&Value::Null).is_empty());
    }

    #[test]
    fn a_model_is_found_by_alias_or_resolved_id_and_none_is_the_default() {
        let models = offered_models(&answer());
        assert_eq!(find_model(&models, None).unwrap().value, "default");
        assert_eq!(find_model(&models, Some("Fable")).unwrap().value, "fable");
        let by_id = find_model(&models, Some("claude-haiku-4-5-20251001")).unwrap();
        assert_eq!(by_id.value, "haiku");
        assert!(find_model(&models, Some("sonnet")).is_none());
    }
}
