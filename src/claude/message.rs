//! Typed messages read from the CLI's stdout (everything except `control_*` frames).
//!
//! Parsing is tolerant: unknown keys are ignored, missing optional keys default, and unknown
//! message types or system subtypes are kept as [`Message::Unknown`] / [`SystemMessage::Other`]
//! so a newer CLI never breaks a turn.

use serde_json::Value;

use super::subagent_report::SubagentReport;

use super::frame_fields;

pub use super::{
    result::{PermissionDenial, ResultMessage, Usage},
    stream_event::StreamEvent,
    system::{CompactBoundary, InitInfo, McpServerStatus, SystemMessage},
};

/// One message from the CLI's stdout.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `type: "system"` frames: init, compaction, status, retries, …
    System(SystemMessage),
    /// One assistant content block (the CLI writes one frame per block).
    Assistant(AssistantMessage),
    /// Tool results and synthetic user messages entering the history.
    User(UserMessage),
    /// The end of a turn.
    Result(ResultMessage),
    /// A raw Anthropic streaming event (`--include-partial-messages`).
    StreamEvent(StreamEvent),
    /// A message type this driver does not know; consumers log and skip it.
    Unknown {
        /// The `type` field, or an empty string.
        kind: String,
        /// The whole frame.
        raw: Value,
    },
}

impl Message {
    /// Builds a typed message from one parsed stdout frame.
    pub fn from_value(value: Value) -> Self {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let parsed = match kind.as_str() {
            "system" => Some(Self::System(SystemMessage::from_value(&value))),
            "assistant" => AssistantMessage::from_value(&value).map(Self::Assistant),
            "user" => Some(Self::User(UserMessage::from_value(&value))),
            "result" => Some(Self::Result(ResultMessage::from_value(&value))),
            "stream_event" => value
                .get("event")
                .map(|event| Self::StreamEvent(StreamEvent::from_value(event))),
            _ => None,
        };
        parsed.unwrap_or(Self::Unknown { kind, raw: value })
    }

    /// The session id the frame carries, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::System(SystemMessage::Init(init)) => Some(&init.session_id),
            Self::System(SystemMessage::CompactBoundary(boundary)) => Some(&boundary.session_id),
            Self::Assistant(message) => message.session_id.as_deref(),
            Self::Result(result) => Some(&result.session_id),
            _ => None,
        }
    }
}

/// One assistant frame (one content block of an API message).
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessage {
    /// The API message id; frames of one API message share it.
    pub message_id: String,
    /// Model name, `<synthetic>` for local errors and commands.
    pub model: String,
    /// The content blocks (normally exactly one).
    pub content: Vec<ContentBlock>,
    /// Error kind of a synthetic API-error message (`server_error`, `authentication_failed`).
    pub error: Option<String>,
    /// Set when the message belongs to a sub-agent's tool call.
    pub parent_tool_use_id: Option<String>,
    /// Session id of the frame.
    pub session_id: Option<String>,
}

impl AssistantMessage {
    fn from_value(value: &Value) -> Option<Self> {
        let message = value.get("message")?;
        Some(Self {
            message_id: frame_fields::string(message, "id").unwrap_or_default(),
            model: frame_fields::string(message, "model").unwrap_or_default(),
            content: ContentBlock::list(message.get("content")),
            error: frame_fields::string(value, "error"),
            parent_tool_use_id: frame_fields::string(value, "parent_tool_use_id"),
            session_id: frame_fields::string(value, "session_id"),
        })
    }

    /// All text blocks joined with newlines.
    pub fn text(&self) -> String {
        ContentBlock::joined_text(&self.content)
    }
}

/// A user frame: tool results, synthetic messages and replays of local commands.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMessage {
    /// The content blocks (string content becomes one text block).
    pub content: Vec<ContentBlock>,
    /// Injected by the CLI itself (stop-hook feedback, compaction summary).
    pub is_synthetic: bool,
    /// Output of a local command (`<local-command-stdout>…`).
    pub is_replay: bool,
    /// Set when the message belongs to a sub-agent's tool call.
    pub parent_tool_use_id: Option<String>,
    /// What a finished subagent call used, from the frame's `tool_use_result`.
    pub subagent: Option<SubagentReport>,
}

impl UserMessage {
    fn from_value(value: &Value) -> Self {
        Self {
            content: ContentBlock::list(value.get("message").and_then(|m| m.get("content"))),
            is_synthetic: value
                .get("isSynthetic")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            is_replay: value
                .get("isReplay")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            parent_tool_use_id: frame_fields::string(value, "parent_tool_use_id"),
            subagent: value
                .get("tool_use_result")
                .and_then(SubagentReport::from_value),
        }
    }

    /// All text blocks joined with newlines.
    pub fn text(&self) -> String {
        ContentBlock::joined_text(&self.content)
    }
}

/// A content block of an assistant or user message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// Extended thinking.
    Thinking {
        /// The thinking text (may be empty when redacted).
        thinking: String,
    },
    /// A tool call by the model.
    ToolUse {
        /// Tool use id (`toolu_…`).
        id: String,
        /// Tool name (`Bash`, `mcp__discord__discord_embed`).
        name: String,
        /// The tool input.
        input: Value,
    },
    /// The result of a tool call.
    ToolResult {
        /// The tool use this answers.
        tool_use_id: String,
        /// String or block-list content.
        content: Value,
        /// Whether the tool failed or was denied.
        is_error: bool,
    },
    /// Any other block type, kept raw.
    Other(Value),
}

impl ContentBlock {
    /// The text blocks of `blocks` joined with newlines.
    pub fn joined_text(blocks: &[Self]) -> String {
        let parts: Vec<&str> = blocks
            .iter()
            .filter_map(|block| match block {
                Self::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        parts.join("\n")
    }

    fn list(content: Option<&Value>) -> Vec<Self> {
        match content {
            Some(Value::String(text)) => vec![Self::Text { text: text.clone() }],
            Some(Value::Array(blocks)) => blocks.iter().map(Self::from_value).collect(),
            _ => Vec::new(),
        }
    }

    fn from_value(block: &Value) -> Self {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => Self::Text {
                text: frame_fields::string(block, "text").unwrap_or_default(),
            },
            Some("thinking") => Self::Thinking {
                thinking: frame_fields::string(block, "thinking").unwrap_or_default(),
            },
            Some("tool_use") => Self::ToolUse {
                id: frame_fields::string(block, "id").unwrap_or_default(),
                name: frame_fields::string(block, "name").unwrap_or_default(),
                input: block.get("input").cloned().unwrap_or(Value::Null),
            },
            Some("tool_result") => Self::ToolResult {
                tool_use_id: frame_fields::string(block, "tool_use_id").unwrap_or_default(),
                content: block.get("content").cloned().unwrap_or(Value::Null),
                is_error: block
                    .get("is_error")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            _ => Self::Other(block.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_result_with_api_error() {
        let msg = Message::from_value(json!({
            "type": "result", "subtype": "success", "is_error": true,
            "api_error_status": 500, "result": "API Error: 500 boom",
            "session_id": "s1", "num_turns": 1, "duration_ms": 5, "extra": {"x": 1}
        }));
        let Message::Result(result) = msg else {
            panic!("not a result")
        };
        assert!(result.is_error);
        assert_eq!(result.api_error_status, Some(500));
        assert_eq!(result.error_summary(), "API Error: 500 boom");
    }

    #[test]
    fn mistyped_fields_never_hide_a_result_or_init() {
        let msg = Message::from_value(json!({
            "type": "result", "subtype": "success", "is_error": false, "duration_ms": 5.5,
            "num_turns": null, "session_id": null, "usage": {"input_tokens": null},
            "errors": [{"message": "x"}], "result": "hi"
        }));
        let Message::Result(result) = msg else {
            panic!("a result frame must stay a result: {msg:?}")
        };
        assert_eq!(result.duration_ms, 5);
        assert_eq!(result.result.as_deref(), Some("hi"));
        assert_eq!(result.errors, [r#"{"message":"x"}"#]);
        let init = Message::from_value(json!({
            "type": "system", "subtype": "init", "session_id": "s", "model": null, "tools": []
        }));
        assert!(matches!(init, Message::System(SystemMessage::Init(i)) if i.session_id == "s"));
    }

    #[test]
    fn unknown_type_is_kept() {
        let msg = Message::from_value(json!({"type": "rate_limit_event", "x": 1}));
        assert!(matches!(msg, Message::Unknown { kind, .. } if kind == "rate_limit_event"));
    }

    #[test]
    fn user_string_content_becomes_text_block() {
        let msg = Message::from_value(json!({
            "type": "user", "isReplay": true,
            "message": {"role": "user", "content": "<local-command-stdout>hi</local-command-stdout>"}
        }));
        let Message::User(user) = msg else {
            panic!("not a user")
        };
        assert!(user.is_replay);
        assert!(user.text().contains("hi"));
    }

    #[test]
    fn compact_boundary_carries_pre_tokens() {
        let msg = Message::from_value(json!({
            "type": "system", "subtype": "compact_boundary", "session_id": "s",
            "compact_metadata": {"trigger": "auto", "pre_tokens": 90102}
        }));
        assert_eq!(
            msg,
            Message::System(SystemMessage::CompactBoundary(CompactBoundary {
                session_id: "s".into(),
                trigger: "auto".into(),
                pre_tokens: Some(90102),
            }))
        );
    }

    #[test]
    fn text_delta_stream_event() {
        let msg = Message::from_value(json!({
            "type": "stream_event", "session_id": "s", "uuid": "u",
            "event": {"type": "content_block_delta", "index": 0,
                      "delta": {"type": "text_delta", "text": "Hel"}}
        }));
        assert_eq!(
            msg,
            Message::StreamEvent(StreamEvent::TextDelta {
                index: 0,
                text: "Hel".into()
            })
        );
    }
}
