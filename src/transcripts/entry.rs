//! One transcript line to the messages it holds. Pure.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

/// Who produced a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The owner (or a scheduled prompt sent on their behalf).
    User,
    /// The model.
    Assistant,
    /// A tool's answer, sent back to the model.
    Tool,
}

impl Role {
    /// `user`, `assistant` or `tool`.
    pub fn label(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// What a message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Prose: a prompt or a reply.
    Text(String),
    /// The model called a tool.
    ToolCall {
        /// The tool's name (`Bash`, `mcp__discord__ping_user`…).
        name: String,
        /// What it was called with (`null` when the transcript doesn't say).
        input: Value,
    },
    /// A tool's result.
    ToolResult {
        /// Its text (text blocks joined).
        text: String,
        /// The tool reported an error.
        is_error: bool,
    },
}

/// One message of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// When the CLI recorded it.
    pub time: DateTime<Utc>,
    /// Who produced it.
    pub role: Role,
    /// What it says.
    pub content: Content,
}

/// What one line contributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedLine {
    /// The line's timestamp (bookkeeping lines have one too).
    pub time: Option<DateTime<Utc>>,
    /// The messages it holds, in order (an assistant line may hold text and tool calls).
    pub messages: Vec<Message>,
    /// For assistant lines, the API message id: the CLI writes one line per content block,
    /// so consecutive lines may belong to one reply.
    pub reply_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawLine {
    #[serde(rename = "type")]
    kind: Option<String>,
    timestamp: Option<DateTime<Utc>>,
    message: Option<RawMessage>,
    #[serde(default)]
    is_meta: bool,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_compact_summary: bool,
    uuid: Option<String>,
}

#[derive(Deserialize)]
struct RawMessage {
    id: Option<String>,
    model: Option<String>,
    #[serde(default)]
    content: Value,
}

/// Parses one transcript line. `None` for a line that is not a JSON object of the expected
/// shape (a torn last line, garbage); bookkeeping lines yield their time and no messages.
/// Skipped as messages: meta and compaction-summary prompts, sub-agent (sidechain) lines,
/// the CLI's synthetic replies, local command output, and thinking blocks.
pub fn parse_line(line: &str) -> Option<ParsedLine> {
    let raw: RawLine = serde_json::from_str(line).ok()?;
    let mut parsed = ParsedLine {
        time: raw.timestamp,
        ..ParsedLine::default()
    };
    let (Some(time), Some(message)) = (raw.timestamp, raw.message) else {
        return Some(parsed);
    };
    if raw.is_sidechain || raw.is_meta || raw.is_compact_summary {
        return Some(parsed);
    }
    match raw.kind.as_deref() {
        Some("user") => parsed.messages = user_messages(time, &message.content),
        Some("assistant") if message.model.as_deref() != Some("<synthetic>") => {
            parsed.messages = assistant_messages(time, &message.content);
            parsed.reply_id = message.id.or(raw.uuid);
        }
        _ => {}
    }
    Some(parsed)
}

fn user_messages(time: DateTime<Utc>, content: &Value) -> Vec<Message> {
    let text = |text: &str| {
        let text = text.trim();
        (!text.is_empty() && !text.starts_with("<local-command-")).then(|| Message {
            time,
            role: Role::User,
            content: Content::Text(command_text(text).unwrap_or_else(|| text.to_owned())),
        })
    };
    match content {
        Value::String(s) => text(s).into_iter().collect(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block["type"].as_str() {
                Some("text") => block["text"].as_str().and_then(text),
                Some("image") => text("[image]"),
                Some("tool_result") => Some(Message {
                    time,
                    role: Role::Tool,
                    content: Content::ToolResult {
                        text: block_text(&block["content"]),
                        is_error: block["is_error"].as_bool() == Some(true),
                    },
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A prompt that ran a slash command (CTX-11) as it was sent: the CLI records
/// `<command-message>…</command-message><command-name>/x</command-name><command-args>…`
/// (a built-in command such as `/compact` with `<command-name>` first; the expansion itself is
/// a meta line, skipped); this gives back `/x …`.
fn command_text(text: &str) -> Option<String> {
    let inner = |tag: &str| {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find(&close)?;
        Some(text[start..end].trim())
    };
    if !text.starts_with("<command-message>") && !text.starts_with("<command-name>") {
        return None;
    }
    let name = inner("command-name")?;
    Some(match inner("command-args") {
        Some(args) if !args.is_empty() => format!("{name} {args}"),
        _ => name.to_owned(),
    })
}

fn assistant_messages(time: DateTime<Utc>, content: &Value) -> Vec<Message> {
    let message = |content| Message {
        time,
        role: Role::Assistant,
        content,
    };
    match content {
        Value::String(s) if !s.trim().is_empty() => {
            vec![message(Content::Text(s.trim().to_owned()))]
        }
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block["type"].as_str() {
                Some("text") => block["text"]
                    .as_str()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| message(Content::Text(t.to_owned()))),
                Some("tool_use" | "server_tool_use") => block["name"].as_str().map(|name| {
                    message(Content::ToolCall {
                        name: name.to_owned(),
                        input: block["input"].clone(),
                    })
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A tool result's text: a string, or its text blocks joined with newlines (images shown as
/// `[image]`).
fn block_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block["type"].as_str() {
                Some("text") => block["text"].as_str().map(str::to_owned),
                Some("image") => Some("[image]".to_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
