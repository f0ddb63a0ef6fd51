//! Scripted answers: [`Reply`] and how it goes on the wire (JSON or SSE events).

use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Clone, Debug)]
enum Block {
    Text(Vec<String>),
    Thinking(Vec<String>),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

/// A scripted answer to one model call (`POST /v1/messages`).
#[derive(Clone, Debug)]
pub struct Reply {
    blocks: Vec<Block>,
    pub(super) error: Option<(u16, String, String)>,
    pub(super) chunk_delay: Duration,
    pub(super) initial_delay: Duration,
    /// Holds the stream after this many content deltas until the token is cancelled.
    pub(super) hold: Option<(usize, CancellationToken)>,
    input_tokens: u64,
}

fn words(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_string).collect()
}

impl Reply {
    fn blocks(blocks: Vec<Block>) -> Self {
        Reply {
            blocks,
            error: None,
            chunk_delay: Duration::ZERO,
            initial_delay: Duration::ZERO,
            hold: None,
            input_tokens: 100,
        }
    }

    /// One text block, streamed as one delta per word.
    pub fn text(text: impl Into<String>) -> Self {
        Self::blocks(vec![Block::Text(words(&text.into()))])
    }

    /// One text block streamed as exactly these deltas, sleeping `delay_between` between them.
    pub fn text_chunks<S: Into<String>>(
        chunks: impl IntoIterator<Item = S>,
        delay_between: Duration,
    ) -> Self {
        let chunks = chunks.into_iter().map(Into::into).collect();
        Self::blocks(vec![Block::Text(chunks)]).with_chunk_delay(delay_between)
    }

    /// One `tool_use` block (fresh `toolu_<hex>` id); `stop_reason` becomes `"tool_use"`.
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self::blocks(Vec::new()).and_tool_use(name, input)
    }

    /// A text block followed by one `tool_use` block.
    pub fn text_then_tool_use(
        text: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Self {
        Self::text(text).and_tool_use(name, input)
    }

    /// Appends another `tool_use` block (parallel tool calls).
    pub fn and_tool_use(mut self, name: impl Into<String>, input: Value) -> Self {
        let id = format!("toolu_{}", uuid::Uuid::new_v4().simple());
        self.blocks.push(Block::ToolUse {
            id,
            name: name.into(),
            input,
        });
        self
    }

    /// A thinking block (with a signature) followed by a text block.
    pub fn thinking_then_text(thinking: impl Into<String>, text: impl Into<String>) -> Self {
        let thinking = Block::Thinking(words(&thinking.into()));
        Self::blocks(vec![thinking, Block::Text(words(&text.into()))])
    }

    /// An HTTP error: `status` with `{"type":"error","error":{"type":..,"message":..}}`.
    pub fn error(status: u16, error_type: &str, message: &str) -> Self {
        let mut reply = Self::blocks(Vec::new());
        reply.error = Some((status, error_type.to_string(), message.to_string()));
        reply
    }

    /// Sets `usage.input_tokens` of `message_start` (the CLI's context size; default 100).
    pub fn with_input_tokens(mut self, input_tokens: u64) -> Self {
        self.input_tokens = input_tokens;
        self
    }

    /// Sleeps this long before every content delta but the first.
    pub fn with_chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Sleeps this long before the first byte of the body (headers go out at once).
    pub fn with_initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// Streams `deltas` content deltas, then waits until `release` is cancelled before the
    /// rest: a reply that is provably still streaming while a test does something else.
    pub fn held_after(mut self, deltas: usize, release: CancellationToken) -> Self {
        self.hold = Some((deltas, release));
        self
    }

    /// Ids of the `tool_use` blocks, in order.
    pub fn tool_use_ids(&self) -> Vec<String> {
        let ids = self.blocks.iter().filter_map(|b| match b {
            Block::ToolUse { id, .. } => Some(id.clone()),
            _ => None,
        });
        ids.collect()
    }

    /// Concatenated text of the text blocks (what the CLI will report as the answer).
    pub fn full_text(&self) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            if let Block::Text(chunks) = block {
                out.extend(chunks.iter().map(String::as_str));
            }
        }
        out
    }

    fn stop_reason(&self) -> &'static str {
        let tool = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        if tool { "tool_use" } else { "end_turn" }
    }

    fn output_tokens(&self) -> usize {
        let count = |b: &Block| match b {
            Block::Text(c) | Block::Thinking(c) => c.len(),
            Block::ToolUse { .. } => 10,
        };
        self.blocks.iter().map(count).sum::<usize>().max(1)
    }

    #[allow(clippy::needless_pass_by_value)] // callers build `content` in place for the message
    fn message(&self, model: &str, content: Value) -> Value {
        json!({"id": format!("msg_mock_{}", uuid::Uuid::new_v4().simple()), "type": "message",
            "role": "assistant", "model": model, "content": content, "stop_reason": Value::Null,
            "stop_sequence": Value::Null, "usage": {"input_tokens": self.input_tokens,
            "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
    }

    /// The whole reply as a non-streaming JSON message.
    pub(super) fn json_message(&self, model: &str) -> Value {
        let content = self.blocks.iter().map(Block::full_json).collect();
        let mut msg = self.message(model, Value::Array(content));
        msg["stop_reason"] = json!(self.stop_reason());
        msg["usage"]["output_tokens"] = json!(self.output_tokens());
        msg
    }

    /// SSE payloads in wire order; each event's name is its payload's `type`.
    pub(super) fn sse_events(&self, model: &str) -> Vec<Value> {
        let start = self.message(model, json!([]));
        let mut ev = vec![json!({"type": "message_start", "message": start})];
        for (index, block) in self.blocks.iter().enumerate() {
            let (start, deltas) = block.stream_parts();
            ev.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
            ev.extend(deltas.into_iter().map(
                |delta| json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
            ev.push(json!({"type": "content_block_stop", "index": index}));
        }
        let stop = json!({"stop_reason": self.stop_reason(), "stop_sequence": Value::Null});
        let usage = json!({"output_tokens": self.output_tokens()});
        ev.push(json!({"type": "message_delta", "delta": stop, "usage": usage}));
        ev.push(json!({"type": "message_stop"}));
        ev
    }
}

const SIGNATURE: &str = "bW9jay1zaWduYXR1cmU=";

impl Block {
    fn full_json(&self) -> Value {
        match self {
            Block::Text(c) => json!({"type": "text", "text": c.concat()}),
            Block::Thinking(c) => {
                json!({"type": "thinking", "thinking": c.concat(), "signature": SIGNATURE})
            }
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        }
    }

    /// `content_block_start` block and the deltas that fill it.
    fn stream_parts(&self) -> (Value, Vec<Value>) {
        match self {
            Block::Text(c) => {
                let deltas = c.iter().map(|t| json!({"type": "text_delta", "text": t}));
                (json!({"type": "text", "text": ""}), deltas.collect())
            }
            Block::Thinking(c) => {
                let deltas = c
                    .iter()
                    .map(|t| json!({"type": "thinking_delta", "thinking": t}));
                let sig = json!({"type": "signature_delta", "signature": SIGNATURE});
                let start = json!({"type": "thinking", "thinking": "", "signature": ""});
                (start, deltas.chain([sig]).collect())
            }
            Block::ToolUse { id, name, input } => {
                let start = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
                let json = input.to_string();
                (
                    start,
                    vec![json!({"type": "input_json_delta", "partial_json": json})],
                )
            }
        }
    }
}
