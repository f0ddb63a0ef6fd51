//! The `result` frame that ends every turn.

use serde::Deserialize;

/// The `result` frame that ends every turn.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
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

    /// Whether the turn was ended by an interrupt.
    pub fn was_interrupted(&self) -> bool {
        matches!(
            self.terminal_reason.as_deref(),
            Some("aborted_streaming" | "aborted_tools")
        )
    }
}

/// Token usage reported in a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(default)]
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
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct PermissionDenial {
    /// Denied tool.
    pub tool_name: String,
    /// The denied call.
    pub tool_use_id: String,
}
