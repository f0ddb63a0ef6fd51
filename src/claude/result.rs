//! The `result` frame that ends every turn.

use serde_json::Value;

use super::frame_fields::{count, flag, string, string_or_empty, strings};

/// The `result` frame that ends every turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultMessage {
    /// `success`, `error_during_execution`, `error_max_turns`, …
    pub subtype: String,
    /// Whether the turn failed; test this, not `subtype` (API errors are `success` + error).
    pub is_error: bool,
    /// Final text (absent on error subtypes).
    pub result: Option<String>,
    /// Session id at the end of the turn.
    pub session_id: String,
    /// Model calls made in the turn.
    pub num_turns: u64,
    /// Wall time of the turn.
    pub duration_ms: u64,
    /// Cumulative cost of this CLI process.
    pub total_cost_usd: Option<f64>,
    /// What this turn cost: the rise of [`Self::total_cost_usd`] since the process's previous
    /// result ([`CostMeter`]); set by the client that read it, `None` when the CLI gave none.
    pub turn_cost_usd: Option<f64>,
    /// The models this CLI process has called so far (`modelUsage`'s keys), in the CLI's order.
    pub models: Vec<String>,
    /// Token usage of this turn.
    pub usage: Option<Usage>,
    /// HTTP status of an API failure.
    pub api_error_status: Option<u64>,
    /// Why the turn ended (`completed`, `aborted_streaming`, `aborted_tools`, …).
    pub terminal_reason: Option<String>,
    /// Error details on error subtypes.
    pub errors: Vec<String>,
    /// Tools the permission system refused during the turn.
    pub permission_denials: Vec<PermissionDenial>,
}

impl ResultMessage {
    /// Reads a `result` frame; fields of unexpected types take their defaults.
    pub(super) fn from_value(value: &Value) -> Self {
        Self {
            subtype: string_or_empty(value, "subtype"),
            is_error: flag(value, "is_error"),
            result: string(value, "result"),
            session_id: string_or_empty(value, "session_id"),
            num_turns: count(value, "num_turns").unwrap_or(0),
            duration_ms: count(value, "duration_ms").unwrap_or(0),
            total_cost_usd: value.get("total_cost_usd").and_then(Value::as_f64),
            turn_cost_usd: None,
            models: value
                .get("modelUsage")
                .and_then(Value::as_object)
                .map(|usage| usage.keys().cloned().collect())
                .unwrap_or_default(),
            usage: value
                .get("usage")
                .filter(|u| u.is_object())
                .map(Usage::from_value),
            api_error_status: count(value, "api_error_status"),
            terminal_reason: string(value, "terminal_reason"),
            errors: strings(value, "errors"),
            permission_denials: value
                .get("permission_denials")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .map(|item| PermissionDenial {
                            tool_name: string_or_empty(item, "tool_name"),
                            tool_use_id: string_or_empty(item, "tool_use_id"),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// A short human description of a failed turn.
    pub fn error_summary(&self) -> String {
        if let Some(text) = self.result.as_deref().filter(|t| !t.is_empty()) {
            return text.to_owned();
        }
        if let Some(first) = self.errors.first() {
            return first.clone();
        }
        format!("turn ended with {}", self.subtype)
    }

    /// Whether the CLI ended the turn at its `--max-turns` limit.
    pub fn hit_turn_limit(&self) -> bool {
        self.subtype == "error_max_turns"
    }

    /// Whether the turn was ended by an interrupt.
    pub fn was_interrupted(&self) -> bool {
        matches!(
            self.terminal_reason.as_deref(),
            Some("aborted_streaming" | "aborted_tools")
        )
    }
}

/// Turns the CLI's cumulative `total_cost_usd` into each turn's own cost (issue 27): the cost
/// is counted per CLI process, and survives `/clear`, so each result's rise over the previous
/// one is what that turn spent.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CostMeter {
    reported: f64,
}

impl CostMeter {
    /// The cost of the turn whose result reported `total`; `None` without a figure. A total
    /// below the last one (a CLI that started counting again) counts from zero.
    pub(super) fn turn_cost(&mut self, total: Option<f64>) -> Option<f64> {
        let total = total.filter(|t| t.is_finite() && *t >= 0.0)?;
        let cost = if total >= self.reported {
            total - self.reported
        } else {
            total
        };
        self.reported = total;
        Some(cost)
    }
}

/// Token usage reported in a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Input tokens of the last request (the context size).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
    /// Tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
}

/// One entry of `result.permission_denials`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermissionDenial {
    /// Denied tool.
    pub tool_name: String,
    /// The denied call.
    pub tool_use_id: String,
}

impl Usage {
    /// Reads a `usage` object; absent or null counts are 0.
    pub(super) fn from_value(value: &Value) -> Self {
        let tokens = |key| count(value, key).unwrap_or(0);
        Self {
            input_tokens: tokens("input_tokens"),
            output_tokens: tokens("output_tokens"),
            cache_read_input_tokens: tokens("cache_read_input_tokens"),
            cache_creation_input_tokens: tokens("cache_creation_input_tokens"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_result_is_charged_what_the_process_total_rose_by() {
        let mut meter = CostMeter::default();
        assert_eq!(meter.turn_cost(Some(0.25)), Some(0.25));
        assert_eq!(meter.turn_cost(None), None);
        assert_eq!(meter.turn_cost(Some(0.75)), Some(0.5));
        assert_eq!(meter.turn_cost(Some(0.75)), Some(0.0));
        assert_eq!(meter.turn_cost(Some(0.1)), Some(0.1), "a restarted count");
        assert_eq!(meter.turn_cost(Some(f64::NAN)), None);
    }

    #[test]
    fn the_models_come_from_model_usage() {
        let result = ResultMessage::from_value(&serde_json::json!({
            "type": "result", "subtype": "success", "total_cost_usd": 0.5,
            "modelUsage": {"claude-haiku-4-5": {"costUSD": 0.1}, "claude-opus-4-8": {"costUSD": 0.4}}
        }));
        assert_eq!(result.models, ["claude-haiku-4-5", "claude-opus-4-8"]);
        assert_eq!(result.turn_cost_usd, None, "set by the client that read it");
    }
}
