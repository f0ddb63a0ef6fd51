//! What the mock received: [`RecordedRequest`] and its accessors.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;

use super::{COMPACTION_MARKER, SIDE_REQUEST_MARKER};

/// The reserved entry newer CLIs put in every tool list (see [`RecordedRequest::tool_names`]).
const DEFERRED_TOOL_PLACEHOLDER: &str = "DeferredToolPlaceholder";

/// Which part of the script answered a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnsweredBy {
    /// Not answered yet (only seen by rules).
    Pending,
    /// The rule with this index (order of `add_rule`).
    Rule(usize),
    /// Built-in compaction summary.
    AutoCompaction,
    /// Built-in title-generator answer.
    AutoSide,
    /// The reflection answer (`MockApi::set_reflection`).
    AutoReflection,
    /// The FIFO queue.
    Queue,
    /// The default reply.
    Default,
    /// `POST /v1/messages/count_tokens`.
    CountTokens,
    /// `HEAD /` or `GET /`.
    Probe,
    /// Unknown path (404).
    NotFound,
    /// Malformed body (400).
    BadRequest,
}

/// One `tool_result` block of a user message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The `tool_use` id it answers.
    pub tool_use_id: String,
    /// Its text (text blocks joined with `\n`).
    pub content: String,
    /// `is_error` (false when absent).
    pub is_error: bool,
}

impl ToolResult {
    /// The reason a `PreToolUse` hook gave for refusing the call: the content without the
    /// `PreToolUse:<Tool> hook error: ` that CLI 2.1.332 and later put before it.
    pub fn refusal(&self) -> &str {
        let Some(rest) = self.content.strip_prefix("PreToolUse:") else {
            return &self.content;
        };
        rest.split_once(" hook error: ")
            .map_or(&self.content, |(_, reason)| reason)
    }
}

/// A request the mock received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path without the query, e.g. `/v1/messages`.
    pub path: String,
    /// Query string, e.g. `beta=true`.
    pub query: Option<String>,
    /// Headers, names lowercased.
    pub headers: BTreeMap<String, String>,
    /// Parsed JSON body (`Null` if empty, the raw text as a `String` if malformed).
    pub body: Value,
    /// What answered it.
    pub answered_by: AnsweredBy,
    /// When the request arrived.
    pub received_at: Instant,
    /// When the last byte of the (successful or error) reply was written.
    pub completed_at: Option<Instant>,
    /// The client went away before the stream ended (e.g. an interrupt).
    pub disconnected: bool,
}

fn content_texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect(),
        _ => Vec::new(),
    }
}

fn every_text(content: &Value, out: &mut Vec<String>) {
    let Value::Array(blocks) = content else {
        return out.extend(content.as_str().map(str::to_string));
    };
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => out.extend(block["text"].as_str().map(str::to_string)),
            Some("thinking") => out.extend(block["thinking"].as_str().map(str::to_string)),
            Some("tool_use") => out.push(block["input"].to_string()),
            Some("tool_result") => every_text(&block["content"], out),
            _ => {}
        }
    }
}

impl RecordedRequest {
    pub(super) fn new(parts: &axum::http::request::Parts) -> Self {
        let headers = parts.headers.iter().map(|(name, value)| {
            (
                name.as_str().to_string(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        });
        RecordedRequest {
            method: parts.method.to_string(),
            path: parts.uri.path().to_string(),
            query: parts.uri.query().map(str::to_string),
            headers: headers.collect(),
            body: Value::Null,
            answered_by: AnsweredBy::Pending,
            received_at: Instant::now(),
            completed_at: None,
            disconnected: false,
        }
    }

    /// The body's `model`.
    pub fn model(&self) -> Option<&str> {
        self.body["model"].as_str()
    }

    /// The body's `messages` (empty if absent).
    pub fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    fn last_user(&self) -> Option<&Value> {
        self.messages().iter().rev().find(|m| m["role"] == "user")
    }

    /// All text blocks of the last `role: "user"` message.
    pub fn last_user_texts(&self) -> Vec<&str> {
        self.last_user()
            .map_or_else(Vec::new, |m| content_texts(&m["content"]))
    }

    /// The last text block of the last `role: "user"` message (the prompt, normally), not
    /// counting the `[Image: source: <path>]` note CLI 2.1.332 and later add after it for
    /// each image.
    pub fn last_user_text(&self) -> Option<&str> {
        let texts = self.last_user_texts().into_iter();
        texts.rev().find(|t| !t.starts_with("[Image: source: "))
    }

    /// Text blocks of every user message, except `<system-reminder>` blocks.
    pub fn user_prompts(&self) -> Vec<&str> {
        let users = self.messages().iter().filter(|m| m["role"] == "user");
        let texts = users.flat_map(|m| content_texts(&m["content"]));
        texts
            .filter(|t| !t.starts_with("<system-reminder>"))
            .collect()
    }

    /// Every text of every message (text, thinking, tool inputs, tool results), `\n`-joined.
    pub fn all_text(&self) -> String {
        let mut out = Vec::new();
        for message in self.messages() {
            every_text(&message["content"], &mut out);
        }
        out.join("\n")
    }

    /// The system prompt (string or text blocks, `\n`-joined).
    pub fn system_text(&self) -> String {
        content_texts(&self.body["system"]).join("\n")
    }

    /// The size of the body as JSON, in bytes.
    pub fn body_bytes(&self) -> usize {
        self.body.to_string().len()
    }

    /// The mock's token estimate of the request: body bytes / 4 (what `count_tokens` answers).
    pub fn token_estimate(&self) -> u64 {
        (self.body_bytes() / 4).max(1) as u64
    }

    /// `tools[].name`: the tools the model may call. CLI 2.1.332 and later add a reserved
    /// `DeferredToolPlaceholder` entry (`defer_loading`, "never call this tool") to every
    /// request to keep deferred tool loading on; it is no capability, so it is left out.
    pub fn tool_names(&self) -> Vec<&str> {
        let tools = self.body["tools"].as_array().map_or(&[][..], Vec::as_slice);
        tools
            .iter()
            .filter(|t| t["name"] != DEFERRED_TOOL_PLACEHOLDER)
            .filter_map(|t| t["name"].as_str())
            .collect()
    }

    /// The `tool_result` blocks of the last user message.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let Some(Value::Array(blocks)) = self.last_user().map(|m| &m["content"]) else {
            return Vec::new();
        };
        let results = blocks.iter().filter(|b| b["type"] == "tool_result");
        results
            .map(|b| ToolResult {
                tool_use_id: b["tool_use_id"].as_str().unwrap_or_default().to_string(),
                content: content_texts(&b["content"]).join("\n"),
                is_error: b["is_error"].as_bool().unwrap_or(false),
            })
            .collect()
    }

    /// A well-formed `POST /v1/messages` (model call of any kind).
    pub fn is_model_call(&self) -> bool {
        self.method == "POST" && self.path == "/v1/messages" && self.body.is_object()
    }

    /// The CLI's compaction request (summary instructions in the last user message).
    pub fn is_compaction(&self) -> bool {
        self.is_model_call()
            && self
                .last_user_texts()
                .iter()
                .any(|t| t.contains(COMPACTION_MARKER))
    }

    /// A side request (title generator): no tools and a "Generate a concise…" system prompt.
    pub fn is_side_request(&self) -> bool {
        let no_tools = self.body["tools"].as_array().is_none_or(Vec::is_empty);
        let system = content_texts(&self.body["system"]);
        let side = system
            .iter()
            .any(|t| t.trim_start().starts_with(SIDE_REQUEST_MARKER));
        self.is_model_call() && no_tools && side
    }

    /// The bot's reflection trace request (its system prompt starts with the marker).
    pub fn is_reflection(&self) -> bool {
        self.is_model_call()
            && content_texts(&self.body["system"])
                .iter()
                .any(|t| t.trim_start().starts_with(super::REFLECTION_MARKER))
    }

    /// A model call that is neither compaction, a side request nor a reflection.
    pub fn is_main(&self) -> bool {
        self.is_model_call()
            && !self.is_compaction()
            && !self.is_side_request()
            && !self.is_reflection()
    }

    /// One line for diagnostics.
    pub fn summary(&self) -> String {
        let last: String = self
            .last_user_text()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect();
        format!(
            "{} {} {:?} last_user_text={last:?}",
            self.method, self.path, self.answered_by
        )
    }
}
