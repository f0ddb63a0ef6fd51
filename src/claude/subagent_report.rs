//! What a finished subagent call used, as the CLI reports it in the `tool_use_result` of the
//! `user` frame that carries the call's result (`Agent`/`Task` output: the subagent's type, the
//! model, its summed token usage, tool uses and time). Other tools' results don't match.

use serde_json::Value;

use super::{Usage, frame_fields::count};

/// One finished subagent call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentReport {
    /// Its type (`gmail-reader`; `general-purpose` when the CLI names none).
    pub agent_type: String,
    /// The model it ran on, when the CLI says.
    pub model: Option<String>,
    /// Its tokens over all its model calls.
    pub usage: Usage,
    /// The tools it used.
    pub tool_uses: u64,
    /// Its wall time.
    pub duration_ms: u64,
}

impl SubagentReport {
    /// Reads a `tool_use_result` value; `None` unless it is a completed subagent call.
    pub(super) fn from_value(value: &Value) -> Option<Self> {
        if value.get("status").and_then(Value::as_str) != Some("completed")
            || value.get("agentId").is_none()
        {
            return None;
        }
        let usage = value.get("usage").filter(|usage| usage.is_object())?;
        Some(Self {
            agent_type: value
                .get("agentType")
                .and_then(Value::as_str)
                .unwrap_or("general-purpose")
                .to_owned(),
            model: value
                .get("resolvedModel")
                .and_then(Value::as_str)
                .map(str::to_owned),
            usage: Usage::from_value(usage),
            tool_uses: count(value, "totalToolUseCount").unwrap_or(0),
            duration_ms: count(value, "totalDurationMs").unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_finished_agent_call_is_read_and_other_results_are_not() {
        let output = json!({
            "status": "completed", "agentId": "a4d1", "agentType": "history-reviewer",
            "resolvedModel": "claude-sonnet-4-5", "totalToolUseCount": 2,
            "totalDurationMs": 122, "totalTokens": 7780, "prompt": "Review",
            "content": [{"type": "text", "text": "Nothing left open."}],
            "usage": {"input_tokens": 7777, "output_tokens": 3,
                      "cache_creation_input_tokens": null, "cache_read_input_tokens": 40},
        });
        let report = SubagentReport::from_value(&output).unwrap();
        assert_eq!(report.agent_type, "history-reviewer");
        assert_eq!(report.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(report.usage.input_tokens, 7777);
        assert_eq!(report.usage.cache_read_input_tokens, 40);
        assert_eq!(report.usage.cache_creation_input_tokens, 0);
        assert_eq!((report.tool_uses, report.duration_ms), (2, 122));
        let launched = json!({"status": "async_launched", "agentId": "a4d1"});
        assert_eq!(SubagentReport::from_value(&launched), None);
        let write = json!({"type": "create", "filePath": "/x", "content": "y"});
        assert_eq!(SubagentReport::from_value(&write), None);
    }
}
