//! Replays a recorded CLI transcript (`tests/fixtures/cli-transcripts/*.jsonl`) through the
//! driver's [`StreamConnection`]. The recorded `stdout` frames go into the driver as if the CLI
//! wrote them; the driver's handlers answer like the recorded host did, at the moment the
//! recording shows the answer; host prompts and requests go through the driver's own
//! [`ClientHandle`] where the recording shows the host sending them; and every line the driver
//! writes is checked against the recorded `stdin`. A mismatch panics naming transcript and `seq`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::{path::PathBuf, time::Duration};

use ollim_bot::claude::{
    BoxFuture, ClaudeError, ClientHandle, ControlHandlers, HookCallback, HookEvent, HookOutput,
    HookRegistration, McpMessageHandler, Message, PermissionDecision, PermissionHandler,
    PermissionRequest, StreamConnection, UserContent,
};
use ollim_bot::mcp::{DiscordTools, McpBridge, ToolContext, ToolScope};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::{sync::mpsc, sync::watch, task::JoinHandle, time::timeout};

use super::agent::RecordingFrontEnd;

/// How long any single step may take before the replay fails.
const STEP: Duration = Duration::from_secs(2);

/// Checks one typed message against the stdout frame it came from; `Some(problem)` on mismatch.
pub type KindCheck = fn(&Value, &Message) -> Option<String>;

/// One `stdin` or `stdout` line of a transcript.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: u64,
    pub from_cli: bool,
    pub msg: Value,
}

/// What a replay produced, for transcript-specific checks.
#[derive(Debug, Default)]
pub struct Replay {
    /// Every typed message `recv()` returned, with the `seq` of its stdout frame.
    pub messages: Vec<(u64, Message)>,
    /// Host control requests: recorded `seq`, subtype, and how the driver's call ended.
    pub host_requests: Vec<(u64, String, Result<Value, String>)>,
    /// CLI control requests the driver answered (exactly once each).
    pub answered: usize,
    /// CLI control requests the driver rightly never answered (cancelled by the CLI).
    pub unanswered: usize,
}

impl Replay {
    /// The typed messages alone.
    pub fn typed(&self) -> impl Iterator<Item = &Message> {
        self.messages.iter().map(|(_, message)| message)
    }
}

/// `tests/fixtures/cli-transcripts`.
pub fn transcript_dir() -> PathBuf {
    super::paths::repo_root().join("tests/fixtures/cli-transcripts")
}

/// The `stdin`/`stdout` lines of `<name>.jsonl`, in order.
pub fn load(name: &str) -> Vec<Frame> {
    let path = transcript_dir().join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("read the transcript");
    let lines = text.lines().filter(|line| !line.trim().is_empty());
    lines
        .filter_map(|line| {
            let line: Value = serde_json::from_str(line).expect("transcript lines are JSON");
            let from_cli = match line["dir"].as_str()? {
                "stdout" => true,
                "stdin" => false,
                _ => return None,
            };
            let (seq, msg) = (line["seq"].as_u64().expect("a seq"), line["msg"].clone());
            Some(Frame { seq, from_cli, msg })
        })
        .collect()
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A recorded CLI → host request and the host's answer (`None`: cancelled first, or none).
struct CliRequest {
    id: String,
    request: Value,
    answer: Option<(u64, Value)>,
    claimed: bool,
}

/// The recorded host, shared with the driver's handler tasks.
struct Script {
    requests: Mutex<Vec<CliRequest>>,
    /// Recorded host answers up to this `seq` may be given.
    released: watch::Sender<u64>,
    failures: Mutex<Vec<String>>,
}

impl Script {
    /// Finds the recorded request a handler call serves, waits until the replay reaches its
    /// recorded answer and returns the body. A recorded error answer makes the handler panic,
    /// which the driver must turn into an error response. A request with no recorded answer
    /// never resolves, so a `control_cancel_request` has a running handler to stop.
    async fn answer(self: Arc<Self>, subtype: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let claimed = lock(&self.requests)
            .iter_mut()
            .find(|r| !r.claimed && r.request["subtype"] == subtype && matches(&r.request))
            .map(|r| {
                r.claimed = true;
                r.answer.clone()
            });
        let Some(answer) = claimed else {
            let problem = format!("{subtype}: no recorded request has this payload");
            lock(&self.failures).push(problem);
            return Value::Null;
        };
        let Some((seq, response)) = answer else {
            return std::future::pending().await;
        };
        let mut released = self.released.subscribe();
        let _ = released.wait_for(|done| *done >= seq).await;
        assert!(response["subtype"] != "error", "a recorded error answer");
        response.get("response").cloned().unwrap_or_default()
    }
}

struct Permissions(Arc<Script>);

impl PermissionHandler for Permissions {
    fn decide(&self, request: PermissionRequest) -> BoxFuture<'static, PermissionDecision> {
        let script = Arc::clone(&self.0);
        Box::pin(async move {
            let body = script
                .answer("can_use_tool", |r| {
                    r["tool_use_id"].as_str() == request.tool_use_id.as_deref()
                        && r["tool_name"] == request.tool_name.as_str()
                        && r["input"] == request.input
                })
                .await;
            match body["behavior"].as_str() {
                Some("allow") => PermissionDecision::Allow {
                    updated_input: body.get("updatedInput").cloned().unwrap_or_default(),
                },
                _ => PermissionDecision::Deny {
                    message: text(&body["message"]).to_owned(),
                    interrupt: body["interrupt"].as_bool().unwrap_or(false),
                },
            }
        })
    }
}

struct Hook(Arc<Script>, String);

impl HookCallback for Hook {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let (script, id) = (Arc::clone(&self.0), self.1.clone());
        Box::pin(async move {
            let body = script
                .answer("hook_callback", |r| {
                    r["callback_id"] == id.as_str() && r["input"] == input
                })
                .await;
            let specific = &body["hookSpecificOutput"];
            let field = |value: &Value| value.as_str().map(str::to_owned);
            let deny = specific["permissionDecision"] == "deny";
            HookOutput {
                block_reason: field(&body["reason"]).filter(|_| body["decision"] == "block"),
                deny_tool_reason: field(&specific["permissionDecisionReason"]).filter(|_| deny),
                additional_context: field(&specific["additionalContext"]),
                system_message: field(&body["systemMessage"]),
            }
        })
    }
}

/// Whether the real `McpBridge` answers this message: the handshake, the tool list and
/// `discord_embed`. The recordings' other tool (`ping_user`, recorded against a scripted server
/// that succeeds or fails on cue) gets the recorded reply.
pub fn served_by_bridge(message: &Value) -> bool {
    match text(&message["method"]) {
        "initialize" | "tools/list" | "ping" => true,
        "tools/call" => text(&message["params"]["name"]) == "discord_embed",
        method => method.starts_with("notifications/"),
    }
}

struct Mcp(Arc<Script>, Arc<McpBridge<DiscordTools>>);

impl McpMessageHandler for Mcp {
    fn handle(&self, message: Value) -> BoxFuture<'static, Value> {
        let (script, bridge) = (Arc::clone(&self.0), Arc::clone(&self.1));
        Box::pin(async move {
            let body = script
                .answer("mcp_message", |r| {
                    r["server_name"] == "discord" && r["message"] == message
                })
                .await;
            if served_by_bridge(&message) {
                bridge.dispatch(message).await
            } else {
                body["mcp_response"].clone()
            }
        })
    }
}

type HookIds = HashMap<String, String>;

/// The recorded `initialize.hooks` as driver registrations (recorded ids become `hook_<n>`),
/// plus the recorded-id → driver-id map.
fn hooks(frames: &[Frame], script: &Arc<Script>) -> (Vec<HookRegistration>, HookIds) {
    let recorded = frames.iter().find_map(|f| {
        let request = &f.msg["request"];
        let initialize = !f.from_cli && request["subtype"] == "initialize";
        request["hooks"].as_object().filter(|_| initialize).cloned()
    });
    let (mut registrations, mut ids) = (Vec::new(), HashMap::new());
    for (event, matchers) in recorded.unwrap_or_default() {
        let event = match event.as_str() {
            "PreToolUse" => HookEvent::PreToolUse,
            "PostToolUse" => HookEvent::PostToolUse,
            "Stop" => HookEvent::Stop,
            "PreCompact" => HookEvent::PreCompact,
            "UserPromptSubmit" => HookEvent::UserPromptSubmit,
            other => panic!("no HookEvent for {other}"),
        };
        for matcher in matchers.as_array().into_iter().flatten() {
            for id in matcher["hookCallbackIds"].as_array().into_iter().flatten() {
                ids.insert(text(id).to_owned(), format!("hook_{}", registrations.len()));
                registrations.push(HookRegistration {
                    event,
                    matcher: matcher["matcher"].as_str().map(str::to_owned),
                    timeout_secs: matcher["timeout"]
                        .as_u64()
                        .map_or(600, |t| u32::try_from(t).unwrap_or(u32::MAX)),
                    callback: Arc::new(Hook(Arc::clone(script), text(id).to_owned())),
                });
            }
        }
    }
    (registrations, ids)
}

/// The recorded CLI requests with the host's answers; a cancel before the answer voids it.
fn cli_requests(frames: &[Frame]) -> Vec<CliRequest> {
    let find = |from_cli: bool, kind: &str, id: &str| {
        frames.iter().find(|f| {
            let this = f.msg["request_id"] == id || f.msg["response"]["request_id"] == id;
            f.from_cli == from_cli && f.msg["type"] == kind && this
        })
    };
    let requests = frames
        .iter()
        .filter(|f| f.from_cli && f.msg["type"] == "control_request");
    let requests = requests.map(|f| {
        let (id, request) = (
            text(&f.msg["request_id"]).to_owned(),
            f.msg["request"].clone(),
        );
        let answered = find(false, "control_response", &id);
        let answer = match (answered, find(true, "control_cancel_request", &id)) {
            (Some(a), Some(c)) if c.seq < a.seq => None,
            (a, _) => a.map(|a| (a.seq, a.msg["response"].clone())),
        };
        CliRequest {
            id,
            request,
            answer,
            claimed: false,
        }
    });
    requests.collect()
}

/// Why the driver's answer differs from the recorded host's, if it does.
fn answer_mismatch(request: &Value, recorded: &Value, driver: &Value) -> Option<String> {
    let (want, got) = (&recorded["response"], &driver["response"]);
    let same = match text(&request["subtype"]) {
        _ if recorded["subtype"] != driver["subtype"] => false,
        _ if recorded["subtype"] == "error" => driver["error"].is_string(),
        "can_use_tool" if want["behavior"] == "allow" => {
            let input = want.get("updatedInput").cloned().unwrap_or(json!({}));
            got["behavior"] == "allow" && got["updatedInput"] == input
        }
        "can_use_tool" => {
            let interrupt = want.get("interrupt").cloned().unwrap_or(json!(false));
            let message = got["message"] == want["message"] && got["interrupt"] == interrupt;
            got["behavior"] == "deny" && message
        }
        "mcp_message" if served_by_bridge(&request["message"]) => {
            let (want, got) = (&want["mcp_response"], &got["mcp_response"]);
            let version = |reply: &Value| reply["result"]["protocolVersion"].clone();
            got.get("id") == want.get("id")
                && got.get("result").is_some() == want.get("result").is_some()
                && version(got) == version(want)
        }
        _ => want == got,
    };
    (!same).then(|| format!("the driver answered {driver}, the host had {recorded}"))
}

/// Replays `<name>.jsonl`, checking typed messages with `check`.
pub async fn replay(name: &str, check: KindCheck) -> Replay {
    replay_frames(name, load(name), check).await
}

/// Replays `frames` (called `name` in failures), checking typed messages with `check`.
pub async fn replay_frames(name: &str, frames: Vec<Frame>, check: KindCheck) -> Replay {
    let script = Arc::new(Script {
        requests: Mutex::new(cli_requests(&frames)),
        released: watch::Sender::new(0),
        failures: Mutex::default(),
    });
    let (hooks, hook_ids) = hooks(&frames, &script);
    let front_end = Arc::new(RecordingFrontEnd::default());
    let scope = ToolScope::Main;
    let tools = DiscordTools::new(ToolContext::new(scope, front_end));
    let bridge = Arc::new(McpBridge::start(tools).await.expect("start the MCP bridge"));
    let mcp: Arc<dyn McpMessageHandler> = Arc::new(Mcp(Arc::clone(&script), bridge));
    let handlers = ControlHandlers {
        permissions: Some(Arc::new(Permissions(Arc::clone(&script)))),
        hooks,
        mcp_servers: vec![("discord".into(), mcp)],
    };
    let (cli_stdout, driver_stdout) = tokio::io::duplex(1 << 20);
    let (driver_stdin, cli_stdin) = tokio::io::duplex(1 << 20);
    let connection = StreamConnection::start(driver_stdout, driver_stdin, handlers);
    let (out_tx, output) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(cli_stdin).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let parsed = serde_json::from_str(&line).unwrap_or(json!({ "unparsable": line }));
            let _ = out_tx.send(parsed);
        }
    });
    let handle = connection.handle();
    let mut run = Run {
        name: name.to_owned(),
        connection,
        handle,
        cli_stdout: Some(cli_stdout),
        output,
        answers: HashMap::new(),
        host_lines: VecDeque::new(),
        script,
        hook_ids,
        host_calls: HashMap::new(),
        report: Replay::default(),
    };
    for frame in frames {
        run.step(frame.seq, frame.from_cli, frame.msg, check).await;
    }
    run.finish().await
}

/// A host control request in flight through the driver: recorded seq, subtype, the driver's
/// request id, and whether a typed method (no response body) made it.
type HostCall = (
    u64,
    String,
    String,
    bool,
    JoinHandle<Result<Value, ClaudeError>>,
);

struct Run {
    name: String,
    connection: StreamConnection,
    handle: ClientHandle,
    cli_stdout: Option<DuplexStream>,
    output: mpsc::UnboundedReceiver<Value>,
    /// The driver's `control_responses` by request id.
    answers: HashMap<String, Vec<Value>>,
    /// Everything else the driver wrote, in order.
    host_lines: VecDeque<Value>,
    script: Arc<Script>,
    hook_ids: HookIds,
    /// By the recorded host request id.
    host_calls: HashMap<String, HostCall>,
    report: Replay,
}

impl Run {
    fn fail(&self, seq: u64, what: impl std::fmt::Display) -> ! {
        panic!("transcript {} seq {seq}: {what}", self.name)
    }

    /// Takes one line the driver wrote; `false` once its stdin is closed.
    async fn take_output(&mut self, seq: u64) -> bool {
        let line = match timeout(STEP, self.output.recv()).await {
            Ok(Some(line)) => line,
            Ok(None) => return false,
            Err(_) => self.fail(seq, "the driver wrote nothing while a line was due"),
        };
        let id = text(&line["response"]["request_id"]).to_owned();
        if line["type"] == "control_response" {
            self.answers
                .entry(id)
                .or_default()
                .push(line["response"].clone());
        } else {
            self.host_lines.push_back(line);
        }
        true
    }

    async fn next_host_line(&mut self, seq: u64) -> Value {
        while self.host_lines.is_empty() {
            if !self.take_output(seq).await {
                self.fail(seq, "the driver closed its stdin early");
            }
        }
        self.host_lines.pop_front().unwrap_or_default()
    }

    async fn feed(&mut self, msg: &Value) {
        let (line, stdout) = (format!("{msg}\n"), self.cli_stdout.as_mut().expect("open"));
        stdout
            .write_all(line.as_bytes())
            .await
            .expect("feed the driver");
    }

    async fn step(&mut self, seq: u64, from_cli: bool, mut msg: Value, check: KindCheck) {
        let kind = text(&msg["type"]).to_owned();
        match (from_cli, kind.as_str()) {
            (true, "control_request") => {
                if let Some(id) = self.hook_ids.get(text(&msg["request"]["callback_id"])) {
                    msg["request"]["callback_id"] = json!(id);
                }
                self.feed(&msg).await;
            }
            (true, "control_cancel_request") => {
                // Cancel only once the handler runs, so the driver has something to stop.
                let id = text(&msg["request_id"]).to_owned();
                let requests = &self.script.requests;
                let running = || lock(requests).iter().any(|r| r.id == id && r.claimed);
                let started = tokio::time::Instant::now();
                while !running() && started.elapsed() < STEP {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                self.feed(&msg).await;
            }
            (true, "control_response") => self.cli_response(seq, msg).await,
            (true, _) => {
                self.feed(&msg).await;
                let message = match timeout(STEP, self.connection.recv()).await {
                    Ok(Some(message)) => message,
                    Ok(None) => self.fail(seq, "recv() ended early"),
                    Err(_) => self.fail(seq, format!("no typed message for this {kind} frame")),
                };
                if let Some(problem) = check(&msg, &message) {
                    let problem = format!("{problem}\n  frame: {msg}\n  typed: {message:?}");
                    self.fail(seq, problem);
                }
                self.report.messages.push((seq, message));
            }
            (false, "control_response") => self.host_answer(seq, &msg).await,
            (false, "control_request") => self.host_request(seq, &msg).await,
            (false, "user") => {
                let content = text(&msg["message"]["content"]).to_owned();
                self.handle.send(&UserContent::Text(content)).expect("send");
                let line = self.next_host_line(seq).await;
                if line["type"] != "user" || line["message"] != msg["message"] {
                    self.fail(seq, format!("the driver wrote {line}, the host had {msg}"));
                }
            }
            // keep_alive and unknown types: the driver has no API that writes them.
            (false, _) => {}
        }
    }

    /// The host sends a control request: make it through the driver and check its line.
    async fn host_request(&mut self, seq: u64, msg: &Value) {
        let mut fields = msg["request"].as_object().cloned().unwrap_or_default();
        let subtype = text(&fields.remove("subtype").unwrap_or_default()).to_owned();
        if let Some(hooks) = fields.get_mut("hooks").and_then(Value::as_object_mut) {
            let lists = hooks.values_mut().filter_map(Value::as_array_mut).flatten();
            let ids = lists.filter_map(|m| m["hookCallbackIds"].as_array_mut());
            for id in ids.flatten() {
                *id = json!(self.hook_ids[text(id)]);
            }
        }
        let (handle, sent, kind) = (self.handle.clone(), fields.clone(), subtype.clone());
        let model = fields.get("model").cloned();
        let typed = matches!(subtype.as_str(), "interrupt" | "set_model");
        let task = tokio::spawn(async move {
            let typed = match (kind.as_str(), model) {
                ("interrupt", _) => handle.interrupt().await,
                ("set_model", Some(model)) => handle.set_model(model.as_str()).await,
                _ => return handle.request(&kind, sent).await,
            };
            typed.map(|()| Value::Null)
        });
        let line = self.next_host_line(seq).await;
        let mut written = line["request"].as_object().cloned().unwrap_or_default();
        let same = written.remove("subtype") == Some(json!(subtype)) && written == fields;
        if line["type"] != "control_request" || !same {
            self.fail(seq, format!("the driver wrote {line} for {msg}"));
        }
        let driver_id = text(&line["request_id"]).to_owned();
        let call = (seq, subtype, driver_id, typed, task);
        let recorded_id = text(&msg["request_id"]).to_owned();
        self.host_calls.insert(recorded_id, call);
    }

    /// The CLI answers a host request: feed it under the driver's id, check the call's outcome.
    async fn cli_response(&mut self, seq: u64, mut msg: Value) {
        let recorded = text(&msg["response"]["request_id"]).to_owned();
        let Some((_, subtype, driver_id, typed, task)) = self.host_calls.remove(&recorded) else {
            self.fail(seq, format!("a response to {recorded}, not pending"))
        };
        msg["response"]["request_id"] = json!(driver_id);
        self.feed(&msg).await;
        let Ok(Ok(outcome)) = timeout(STEP, task).await else {
            self.fail(seq, format!("`{subtype}` did not resolve"))
        };
        let response = &msg["response"];
        let ok = match (&outcome, text(&response["subtype"])) {
            (Ok(body), "success") => {
                typed || Some(body) == response.get("response").or(Some(&Value::Null))
            }
            (Err(ClaudeError::ControlRequest { message, .. }), "error") => {
                response["error"] == *message
            }
            _ => false,
        };
        if !ok {
            self.fail(seq, format!("`{subtype}`: {outcome:?} for {response}"));
        }
        let outcome = outcome.map_err(|error| error.to_string());
        self.report.host_requests.push((seq, subtype, outcome));
    }

    /// The recorded host answers a CLI request here: release the handler, check the answer.
    async fn host_answer(&mut self, seq: u64, msg: &Value) {
        let id = text(&msg["response"]["request_id"]).to_owned();
        let found = lock(&self.script.requests)
            .iter()
            .find(|r| r.id == id)
            .map(|r| (r.request.clone(), r.answer.is_some()));
        // None: a stray answer (stdin_unknown_type).
        let Some((request, expected)) = found else {
            return;
        };
        self.script.released.send_replace(seq);
        if !expected {
            return; // the CLI cancelled it first: the driver must stay silent
        }
        while !self.answers.contains_key(&id) {
            self.take_output(seq).await;
        }
        let [answer] = self.answers[&id].as_slice() else {
            self.fail(seq, format!("{} answers to {id}", self.answers[&id].len()))
        };
        if let Some(problem) = answer_mismatch(&request, &msg["response"], answer) {
            self.fail(seq, problem);
        }
    }

    /// End of stdout: `recv()` ends, unanswered host requests fail as closed, and every CLI
    /// request got exactly one answer (cancelled ones none).
    async fn finish(mut self) -> Replay {
        drop(self.cli_stdout.take());
        match timeout(STEP, self.connection.recv()).await {
            Ok(None) => {}
            Ok(Some(extra)) => self.fail(u64::MAX, format!("an extra message {extra:?}")),
            Err(_) => self.fail(u64::MAX, "recv() did not end after stdout closed"),
        }
        assert!(self.handle.is_closed(), "{}: open after EOF", self.name);
        for (_, (seq, subtype, _, _, task)) in std::mem::take(&mut self.host_calls) {
            let outcome = timeout(STEP, task).await;
            if !matches!(outcome, Ok(Ok(Err(ClaudeError::Closed)))) {
                self.fail(seq, format!("unanswered `{subtype}` ended as {outcome:?}"));
            }
            let outcome = Err("closed".to_owned());
            self.report.host_requests.push((seq, subtype, outcome));
        }
        tokio::time::sleep(Duration::from_millis(20)).await; // room for a wrong late answer
        self.connection.close_input();
        while self.take_output(u64::MAX).await {}
        if let Some(line) = self.host_lines.front() {
            self.fail(u64::MAX, format!("an unexpected line: {line}"));
        }
        for request in std::mem::take(&mut *lock(&self.script.requests)) {
            let count = self.answers.remove(&request.id).map_or(0, |a| a.len());
            let expected = usize::from(request.answer.is_some());
            if count != expected {
                let (subtype, id) = (&request.request["subtype"], &request.id);
                self.fail(u64::MAX, format!("{count} answers to {subtype} {id}"));
            }
            self.report.answered += expected;
            self.report.unanswered += 1 - expected;
        }
        if let Some(id) = self.answers.keys().next() {
            self.fail(u64::MAX, format!("an answer to unknown request {id}"));
        }
        let failures = lock(&self.script.failures).clone();
        assert!(failures.is_empty(), "{}: {failures:?}", self.name);
        self.report
    }
}
