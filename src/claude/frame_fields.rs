//! Lenient reads of fields of a CLI frame: a missing, `null` or differently typed field falls
//! back to a default instead of failing the whole frame, so a newer CLI never hangs a turn.

use serde_json::Value;

/// A string field, if it is a string.
pub(super) fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A string field, or an empty string.
pub(super) fn string_or_empty(value: &Value, key: &str) -> String {
    string(value, key).unwrap_or_default()
}

/// A boolean field, or `false`.
pub(super) fn flag(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A non-negative integer field; floats are truncated, anything else is `None`.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // finite, >= 0 and truncated; `as` saturates
pub(super) fn count(value: &Value, key: &str) -> Option<u64> {
    let field = value.get(key)?;
    field.as_u64().or_else(|| {
        field
            .as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(|f| f.trunc() as u64)
    })
}

/// A list field as strings: strings as they are, other values as their JSON text.
pub(super) fn strings(value: &Value, key: &str) -> Vec<String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map_or_else(|| item.to_string(), str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wrong_types_fall_back() {
        let frame = json!({"a": null, "b": 5.7, "c": "x", "d": [1, "two"], "e": -3});
        assert_eq!(string(&frame, "a"), None);
        assert_eq!(count(&frame, "b"), Some(5));
        assert_eq!(count(&frame, "c"), None);
        assert_eq!(count(&frame, "e"), None);
        assert_eq!(strings(&frame, "d"), ["1", "two"]);
        assert!(!flag(&frame, "c"));
    }
}
