//! One session's transcript as the Claude Code CLI writes it: a JSON object a line, each with
//! its `uuid`, `parentUuid`, `sessionId`, `cwd`, `version` and `timestamp`; the owner's prompts
//! and tool results as `user` lines, each assistant content block as an `assistant` line
//! with the API message's id, model and usage.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::vocabulary::Rng;

/// The CLI version the lines claim.
const VERSION: &str = "2.1.197";
/// The model the replies claim.
const MODEL: &str = "claude-sonnet-4-5-20250929";

/// A session being written.
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) lines: Vec<String>,
    /// Lines written with the year and the last one's time; the rest are the appended
    /// day's (`None`: every line is the year's).
    pub(crate) kept: Option<(usize, DateTime<Utc>)>,
    pub(crate) last: DateTime<Utc>,
    cwd: String,
    parent: Option<String>,
}

impl Session {
    pub(crate) fn new(rng: &mut Rng, cwd: &str, at: DateTime<Utc>) -> Self {
        Self {
            id: rng.uuid(),
            lines: Vec::new(),
            kept: None,
            last: at,
            cwd: cwd.to_owned(),
            parent: None,
        }
    }

    /// The owner's prompt (or a scheduled one), as given to the CLI.
    pub(crate) fn prompt(&mut self, rng: &mut Rng, at: DateTime<Utc>, text: &str) {
        let message = json!({ "role": "user", "content": text });
        self.push(rng, at, "user", &message, None);
    }

    /// A reply's text block.
    pub(crate) fn reply(&mut self, rng: &mut Rng, at: DateTime<Utc>, text: &str) {
        let content = json!([{ "type": "text", "text": text }]);
        self.assistant(rng, at, &content, "end_turn");
    }

    /// A tool call and its result a few seconds later.
    pub(crate) fn tool(
        &mut self,
        rng: &mut Rng,
        at: DateTime<Utc>,
        name: &str,
        input: &Value,
        result: &str,
    ) {
        let id = format!("toolu_01{:022x}", rng.next_u64() >> 8);
        let call = json!([{ "type": "tool_use", "id": id, "name": name, "input": input }]);
        self.assistant(rng, at, &call, "tool_use");
        let blocks = json!([{ "type": "text", "text": result }]);
        let message = json!({
            "role": "user",
            "content": [{ "tool_use_id": id, "type": "tool_result", "content": blocks }],
        });
        let later = at + chrono::Duration::seconds(2);
        self.push(rng, later, "user", &message, Some(blocks));
    }

    fn assistant(&mut self, rng: &mut Rng, at: DateTime<Utc>, content: &Value, stop: &str) {
        let message = json!({
            "id": format!("msg_01{:022x}", rng.next_u64() >> 8),
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": null,
            "usage": {
                "input_tokens": 4 + rng.below(20),
                "cache_creation_input_tokens": rng.below(2_000),
                "cache_read_input_tokens": 18_000 + rng.below(30_000),
                "output_tokens": 20 + rng.below(400),
                "service_tier": "standard",
            },
        });
        self.push(rng, at, "assistant", &message, None);
    }

    fn push(
        &mut self,
        rng: &mut Rng,
        at: DateTime<Utc>,
        kind: &str,
        message: &Value,
        tool_result: Option<Value>,
    ) {
        let uuid = rng.uuid();
        let mut line = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.id,
            "version": VERSION,
            "gitBranch": "",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        });
        if kind == "assistant" {
            line["requestId"] = json!(format!("req_011C{:020x}", rng.next_u64() >> 8));
        }
        if let Some(result) = tool_result {
            line["toolUseResult"] = result;
        }
        self.lines.push(line.to_string());
        self.parent = Some(uuid);
        self.last = at;
    }
}
