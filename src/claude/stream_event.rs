//! Raw Anthropic streaming events (`--include-partial-messages`), reduced to what the bot renders.

use serde_json::Value;

use super::frame_fields;

/// A raw Anthropic streaming event, reduced to what the bot renders.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A new API message starts; carries the context size in tokens.
    MessageStart {
        /// `usage.input_tokens` of the request.
        input_tokens: Option<u64>,
    },
    /// A content block starts.
    BlockStart {
        /// Block index within the message.
        index: u64,
        /// `text`, `thinking`, `tool_use`, …
        kind: String,
        /// Tool name for `tool_use` blocks.
        tool_name: Option<String>,
    },
    /// Text appended to a text block.
    TextDelta {
        /// Block index.
        index: u64,
        /// The new text.
        text: String,
    },
    /// Text appended to a thinking block.
    ThinkingDelta {
        /// Block index.
        index: u64,
    },
    /// Partial tool input JSON.
    InputJsonDelta {
        /// Block index.
        index: u64,
    },
    /// A content block ended.
    BlockStop {
        /// Block index.
        index: u64,
    },
    /// Stop reason and final usage of the API message.
    MessageDelta {
        /// `end_turn`, `tool_use`, …
        stop_reason: Option<String>,
    },
    /// The API message ended.
    MessageStop,
    /// Any other event.
    Other,
}

impl StreamEvent {
    pub(super) fn from_value(event: &Value) -> Self {
        let index = || event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => Self::MessageStart {
                input_tokens: event
                    .pointer("/message/usage/input_tokens")
                    .and_then(Value::as_u64),
            },
            Some("content_block_start") => {
                let block = event.get("content_block");
                Self::BlockStart {
                    index: index(),
                    kind: block
                        .and_then(|b| frame_fields::string(b, "type"))
                        .unwrap_or_default(),
                    tool_name: block.and_then(|b| frame_fields::string(b, "name")),
                }
            }
            Some("content_block_delta") => {
                let delta = event.get("delta");
                match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                    Some("text_delta") => Self::TextDelta {
                        index: index(),
                        text: delta
                            .and_then(|d| frame_fields::string(d, "text"))
                            .unwrap_or_default(),
                    },
                    Some("thinking_delta") => Self::ThinkingDelta { index: index() },
                    Some("input_json_delta") => Self::InputJsonDelta { index: index() },
                    _ => Self::Other,
                }
            }
            Some("content_block_stop") => Self::BlockStop { index: index() },
            Some("message_delta") => Self::MessageDelta {
                stop_reason: event
                    .get("delta")
                    .and_then(|d| frame_fields::string(d, "stop_reason")),
            },
            Some("message_stop") => Self::MessageStop,
            _ => Self::Other,
        }
    }
}
