//! Scriptable mock of the Anthropic Messages API (protocol doc §6), served on
//! `127.0.0.1:<random port>` inside the test's tokio runtime.
//!
//! A model call is answered by, in order: the first matching rule
//! ([`MockApi::add_rule`]), the built-in compaction / title-generator answers,
//! the FIFO queue ([`MockApi::push`]), then the default reply (text `"ok"`).

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Json, Response};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::watch;
use tokio_util::codec::{BytesCodec, FramedRead};
use tokio_util::sync::CancellationToken;

/// Marker that identifies the CLI's compaction (summarization) request.
pub const COMPACTION_MARKER: &str = "Your task is to create a detailed summary of";
/// Start of the system prompt of the CLI's title-generator side request.
pub const SIDE_REQUEST_MARKER: &str = "Generate a concise";

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
    error: Option<(u16, String, String)>,
    chunk_delay: Duration,
    initial_delay: Duration,
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

    fn message(&self, model: &str, content: Value) -> Value {
        json!({"id": format!("msg_mock_{}", uuid::Uuid::new_v4().simple()), "type": "message",
            "role": "assistant", "model": model, "content": content, "stop_reason": Value::Null,
            "stop_sequence": Value::Null, "usage": {"input_tokens": self.input_tokens,
            "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
    }

    /// The whole reply as a non-streaming JSON message.
    fn json_message(&self, model: &str) -> Value {
        let content = self.blocks.iter().map(Block::full_json).collect();
        let mut msg = self.message(model, Value::Array(content));
        msg["stop_reason"] = json!(self.stop_reason());
        msg["usage"]["output_tokens"] = json!(self.output_tokens());
        msg
    }

    /// SSE payloads in wire order; each event's name is its payload's `type`.
    fn sse_events(&self, model: &str) -> Vec<Value> {
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

type Rule = Arc<dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync>;

struct Script {
    queue: VecDeque<Reply>,
    default: Reply,
    rules: Vec<Rule>,
    count_tokens: Option<u64>,
    requests: Vec<RecordedRequest>,
}

struct Shared {
    script: Mutex<Script>,
    changed: watch::Sender<u64>,
    cancel: CancellationToken,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn notify(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    fn record(&self, mut req: RecordedRequest, by: AnsweredBy) -> usize {
        req.answered_by = by;
        let index = {
            let mut script = self.lock();
            script.requests.push(req);
            script.requests.len() - 1
        };
        self.notify();
        index
    }

    fn complete(&self, index: usize, disconnected: bool) {
        if let Some(req) = self.lock().requests.get_mut(index) {
            req.completed_at = (!disconnected).then(Instant::now);
            req.disconnected = disconnected;
        }
        self.notify();
    }

    fn choose(&self, req: &RecordedRequest) -> (Reply, AnsweredBy) {
        let rules = self.lock().rules.clone();
        for (i, rule) in rules.iter().enumerate() {
            if let Some(reply) = rule(req) {
                return (reply, AnsweredBy::Rule(i));
            }
        }
        if req.is_compaction() {
            return (
                Reply::text(compaction_summary(req)),
                AnsweredBy::AutoCompaction,
            );
        }
        if req.is_side_request() {
            return (
                Reply::text(r#"{"title": "Mock conversation"}"#),
                AnsweredBy::AutoSide,
            );
        }
        let mut script = self.lock();
        match script.queue.pop_front() {
            Some(reply) => (reply, AnsweredBy::Queue),
            None => (script.default.clone(), AnsweredBy::Default),
        }
    }
}

fn compaction_summary(req: &RecordedRequest) -> String {
    let prompts: Vec<String> = req
        .user_prompts()
        .iter()
        .filter(|t| !t.contains(COMPACTION_MARKER))
        .map(|t| t.chars().take(300).collect())
        .collect();
    format!(
        "<analysis>mock</analysis>\n<summary>Conversation summary: the user said: {}</summary>",
        prompts.join(" | ")
    )
}

/// The running mock server. Dropping it stops the server.
pub struct MockApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl MockApi {
    /// Binds `127.0.0.1:0` and serves in a task of the current tokio runtime.
    pub async fn start() -> MockApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind mock API");
        let addr = listener.local_addr().expect("mock API address");
        let shared = Arc::new(Shared {
            script: Mutex::new(Script {
                queue: VecDeque::new(),
                default: Reply::text("ok"),
                rules: Vec::new(),
                count_tokens: None,
                requests: Vec::new(),
            }),
            changed: watch::Sender::new(0),
            cancel: CancellationToken::new(),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let stop = shared.cancel.clone();
        // Without TCP_NODELAY, Nagle + delayed ACK add ~40 ms to the end of every stream.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        tokio::spawn(async move {
            let served = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned());
            if let Err(err) = served.await {
                eprintln!("mock API server failed: {err}");
            }
        });
        MockApi { addr, shared }
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Appends a reply to the FIFO queue used for main model calls.
    pub fn push(&self, reply: Reply) {
        self.shared.lock().queue.push_back(reply);
    }

    /// Replaces the reply used when no rule matches and the queue is empty.
    pub fn set_default(&self, reply: Reply) {
        self.shared.lock().default = reply;
    }

    /// Adds a rule, checked (in order of addition) before everything else.
    pub fn add_rule(
        &self,
        rule: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static,
    ) {
        self.shared.lock().rules.push(Arc::new(rule));
    }

    /// Fixes the `count_tokens` answer (default: request JSON size / 4).
    pub fn set_count_tokens(&self, tokens: Option<u64>) {
        self.shared.lock().count_tokens = tokens;
    }

    /// Replies still waiting in the queue.
    pub fn queued(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// Every request received so far (probes and count_tokens included), in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Every model call (`POST /v1/messages`), including compaction and side requests.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_model_call)
            .collect()
    }

    /// Model calls that are neither compaction nor side requests.
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_main)
            .collect()
    }

    /// For each fully streamed/sent model reply, when its last byte was written.
    pub fn last_byte_instants(&self) -> Vec<Instant> {
        self.model_requests()
            .iter()
            .filter_map(|r| r.completed_at)
            .collect()
    }

    /// Waits until `pred(all requests)` holds; panics after `timeout` with a summary.
    pub async fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&[RecordedRequest]) -> bool,
    ) -> Vec<RecordedRequest> {
        let mut rx = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let reqs = self.requests();
            if pred(&reqs) {
                return reqs;
            }
            if !matches!(
                tokio::time::timeout_at(deadline, rx.changed()).await,
                Ok(Ok(()))
            ) {
                let seen: Vec<String> = reqs.iter().map(RecordedRequest::summary).collect();
                panic!(
                    "mock API: timed out after {timeout:?} waiting for {what}; seen:\n{}",
                    seen.join("\n")
                );
            }
        }
    }

    /// Waits for at least `n` model calls (any kind) to have arrived.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let what = format!("{n} model requests");
        self.wait_for(&what, timeout, |r| {
            r.iter().filter(|r| r.is_model_call()).count() >= n
        })
        .await;
        self.model_requests()
    }

    /// Waits for at least `n` main model calls to have arrived.
    pub async fn wait_for_main_requests(
        &self,
        n: usize,
        timeout: Duration,
    ) -> Vec<RecordedRequest> {
        let what = format!("{n} main requests");
        self.wait_for(&what, timeout, |r| {
            r.iter().filter(|r| r.is_main()).count() >= n
        })
        .await;
        self.main_requests()
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}

fn api_error(status: u16, error_type: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"type": "error", "error": {"type": error_type, "message": message}});
    (status, Json(body)).into_response()
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let mut rec = RecordedRequest::new(&parts);
    let bytes = axum::body::to_bytes(body, 256 << 20).await;
    let parsed = match &bytes {
        Ok(b) if b.is_empty() => Ok(Value::Null),
        Ok(b) => serde_json::from_slice(b).map_err(|e| format!("malformed JSON body: {e}")),
        Err(e) => Err(format!("unreadable body: {e}")),
    };
    let api = rec.path.starts_with("/v1/");
    match parsed {
        Ok(value) if value.is_object() || !api => rec.body = value,
        other => {
            let raw = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
            rec.body = Value::String(raw.unwrap_or_default());
            let msg = other
                .err()
                .unwrap_or_else(|| "body must be a JSON object".into());
            shared.record(rec, AnsweredBy::BadRequest);
            return api_error(400, "invalid_request_error", &msg);
        }
    }
    let probe = parts.method == Method::HEAD || parts.method == Method::GET;
    let post = parts.method == Method::POST;
    match rec.path.as_str() {
        "/" if probe => {
            shared.record(rec, AnsweredBy::Probe);
            StatusCode::OK.into_response()
        }
        "/v1/messages/count_tokens" if post => {
            let estimate = (rec.body.to_string().len() / 4).max(1) as u64;
            let tokens = shared.lock().count_tokens.unwrap_or(estimate);
            shared.record(rec, AnsweredBy::CountTokens);
            Json(json!({"input_tokens": tokens})).into_response()
        }
        "/v1/messages" if post => {
            let (reply, by) = shared.choose(&rec);
            let model = rec.model().unwrap_or("claude-mock").to_string();
            let stream = rec.body["stream"].as_bool() == Some(true);
            let index = shared.record(rec, by);
            respond(shared, index, reply, &model, stream).await
        }
        path => {
            let msg = format!("mock API: no route for {} {path}", parts.method);
            shared.record(rec, AnsweredBy::NotFound);
            api_error(404, "not_found_error", &msg)
        }
    }
}

async fn respond(
    shared: Arc<Shared>,
    index: usize,
    reply: Reply,
    model: &str,
    stream: bool,
) -> Response {
    if reply.error.is_some() || !stream {
        tokio::time::sleep(reply.initial_delay).await;
        shared.complete(index, false);
        return match &reply.error {
            Some((status, kind, message)) => api_error(*status, kind, message),
            None => Json(reply.json_message(model)).into_response(),
        };
    }
    let events = reply.sse_events(model);
    let (mut writer, reader) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut delay = reply.initial_delay;
        let mut first_delta = true;
        for data in events {
            let is_delta = data["type"] == "content_block_delta";
            if is_delta && !std::mem::replace(&mut first_delta, false) {
                delay = reply.chunk_delay;
            }
            if !delay.is_zero() {
                tokio::select! {
                    _ = tokio::time::sleep(std::mem::take(&mut delay)) => {}
                    _ = shared.cancel.cancelled() => return,
                }
            }
            let name = data["type"].as_str().unwrap_or("message");
            let chunk = format!("event: {name}\ndata: {data}\n\n");
            if writer.write_all(chunk.as_bytes()).await.is_err() {
                return shared.complete(index, true);
            }
        }
        shared.complete(index, false);
    });
    let body = Body::from_stream(FramedRead::new(reader, BytesCodec::new()));
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    let event_stream = HeaderValue::from_static("text/event-stream");
    headers.insert(header::CONTENT_TYPE, event_stream);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

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
    fn new(parts: &axum::http::request::Parts) -> Self {
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

    /// The last text block of the last `role: "user"` message (the prompt, normally).
    pub fn last_user_text(&self) -> Option<&str> {
        self.last_user_texts().pop()
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

    /// `tools[].name`.
    pub fn tool_names(&self) -> Vec<&str> {
        let tools = self.body["tools"].as_array().map_or(&[][..], Vec::as_slice);
        tools.iter().filter_map(|t| t["name"].as_str()).collect()
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

    /// A model call that is neither compaction nor a side request.
    pub fn is_main(&self) -> bool {
        self.is_model_call() && !self.is_compaction() && !self.is_side_request()
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
