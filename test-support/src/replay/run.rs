//! One replay in progress: each recorded frame stepped through the driver's
//! [`StreamConnection`], host calls made through its [`ClientHandle`], and every line the driver
//! writes checked against the recording; at the end, every CLI request answered exactly once.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ollim_bot::claude::{
    ClaudeError, ClientHandle, ControlHandlers, McpMessageHandler, StreamConnection, UserContent,
};
use ollim_bot::mcp::{DiscordTools, McpBridge, ToolContext, ToolScope};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::{sync::mpsc, sync::watch, task::JoinHandle, time::timeout};

use super::recorded_host::{
    HookIds, Mcp, Permissions, Script, answer_mismatch, cli_requests, hooks,
};
use super::{Frame, KindCheck, Replay, STEP, lock, text};
use crate::agent::RecordingFrontEnd;
use crate::wait;

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
                let every = Duration::from_millis(1);
                wait::until_every(STEP, every, || running().then_some(())).await;
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
