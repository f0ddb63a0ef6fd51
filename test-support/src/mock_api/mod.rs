//! Scriptable mock of the Anthropic Messages API (protocol doc §6), served on
//! `127.0.0.1:<random port>` inside the test's tokio runtime.
//!
//! A model call is answered by, in order: the reflection answer when it is the bot's
//! reflection trace request ([`MockApi::set_reflection`]), the first matching rule
//! ([`MockApi::add_rule`]), the built-in compaction / title-generator answers,
//! the FIFO queue ([`MockApi::push`]), then the default reply (text `"ok"`).

mod reply;
mod request;
mod server;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use reply::Reply;
// `ToolResult` is part of the API even in binaries that never name it.
#[allow(unused_imports)]
pub use request::{AnsweredBy, RecordedRequest, ToolResult};
use server::{Script, Shared, handle};

/// Marker that identifies the CLI's compaction (summarization) request.
pub const COMPACTION_MARKER: &str = "Your task is to create a detailed summary of";
/// Start of the system prompt of the CLI's title-generator side request.
pub const SIDE_REQUEST_MARKER: &str = "Generate a concise";
/// Start of the system prompt of the bot's reflection trace session (BGF-22): after every
/// background run, so it has an answer of its own and never takes a reply queued for a run.
pub const REFLECTION_MARKER: &str = "You write the trace of a reflection";
/// What the reflection session is answered unless a test says otherwise.
pub const REFLECTION_TRACE: &str = "The run did what its job asked.";

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
                reflection: Reply::text(REFLECTION_TRACE),
                rules: Vec::new(),
                count_tokens: None,
                count_tokens_delay: Duration::ZERO,
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

    /// Replaces the answer to the bot's reflection trace requests.
    pub fn set_reflection(&self, reply: Reply) {
        self.shared.lock().reflection = reply;
    }

    /// Adds a rule, checked (in order of addition) before everything but reflections.
    pub fn add_rule(
        &self,
        rule: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static,
    ) {
        self.shared.lock().rules.push(Arc::new(rule));
    }

    /// Answers every background reminder's run (`[reminder-bg:…]`): first a call of `tool`
    /// with `input`, then, once the tool result is back, `then`.
    pub fn answer_reminder_runs(&self, tool: &'static str, input: serde_json::Value, then: &str) {
        let then = then.to_owned();
        self.add_rule(move |request| {
            let prompt = request.user_prompts().join("\n");
            if !prompt.contains("[reminder-bg:") {
                return None;
            }
            Some(if request.tool_results().is_empty() {
                Reply::tool_use(tool, input.clone())
            } else {
                Reply::text(then.clone())
            })
        });
    }

    /// Fixes the `count_tokens` answer (default: request JSON size / 4).
    pub fn set_count_tokens(&self, tokens: Option<u64>) {
        self.shared.lock().count_tokens = tokens;
    }

    /// Holds back every `count_tokens` answer by `delay` (an API slow to count).
    pub fn set_count_tokens_delay(&self, delay: Duration) {
        self.shared.lock().count_tokens_delay = delay;
    }

    /// Replies still waiting in the queue.
    pub fn queued(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// Every request received so far (probes and `count_tokens` included), in arrival order.
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
