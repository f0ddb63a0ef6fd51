//! The axum side of the mock: shared script state, choosing a reply, writing it out.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Json, Response};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::watch;
use tokio_util::codec::{BytesCodec, FramedRead};
use tokio_util::sync::CancellationToken;

use super::{AnsweredBy, COMPACTION_MARKER, RecordedRequest, Reply};

pub(super) type Rule = Arc<dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync>;

pub(super) struct Script {
    pub(super) queue: VecDeque<Reply>,
    pub(super) default: Reply,
    pub(super) reflection: Reply,
    pub(super) rules: Vec<Rule>,
    pub(super) count_tokens: Option<u64>,
    /// How long each `count_tokens` answer is held back (an API slow to count).
    pub(super) count_tokens_delay: std::time::Duration,
    pub(super) requests: Vec<RecordedRequest>,
}

pub(super) struct Shared {
    pub(super) script: Mutex<Script>,
    pub(super) changed: watch::Sender<u64>,
    pub(super) cancel: CancellationToken,
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        if req.is_reflection() {
            return (self.lock().reflection.clone(), AnsweredBy::AutoReflection);
        }
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

fn api_error(status: u16, error_type: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"type": "error", "error": {"type": error_type, "message": message}});
    (status, Json(body)).into_response()
}

pub(super) async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
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
            let estimate = rec.token_estimate();
            let (tokens, delay) = {
                let script = shared.lock();
                (
                    script.count_tokens.unwrap_or(estimate),
                    script.count_tokens_delay,
                )
            };
            shared.record(rec, AnsweredBy::CountTokens);
            tokio::time::sleep(delay).await;
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
        let mut deltas = 0;
        for data in events {
            let is_delta = data["type"] == "content_block_delta";
            if is_delta && !std::mem::replace(&mut first_delta, false) {
                delay = reply.chunk_delay;
            }
            if let Some((after, release)) = &reply.hold
                && is_delta
                && deltas == *after
            {
                tokio::select! {
                    () = release.cancelled() => {}
                    () = shared.cancel.cancelled() => return,
                }
            }
            deltas += usize::from(is_delta);
            if !delay.is_zero() {
                tokio::select! {
                    () = tokio::time::sleep(std::mem::take(&mut delay)) => {}
                    () = shared.cancel.cancelled() => return,
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
