//! The stream-json connection: one reader task routing every stdout line, one writer task
//! writing one JSON line at a time, and the control protocol in both directions.
//!
//! Generic over the byte streams so the same code runs against a real CLI process and against
//! recorded transcripts in tests.

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;

use serde_json::{Map, Value, json};
use tokio::{
    io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::{mpsc, oneshot},
    task::{AbortHandle, JoinHandle},
};
use tracing::Instrument;

use super::{ClaudeError, Message, control::ControlHandlers, serve::serve_request};

/// Lines longer than this are dropped with a warning (a 3 MB line is normal; 256 MiB is not).
const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

type PendingReply = oneshot::Sender<Result<Value, String>>;

#[derive(Default)]
struct Pending {
    closed: bool,
    replies: HashMap<String, PendingReply>,
}

/// The shared half of a connection: writing lines and making control requests.
pub(crate) struct Connection {
    lines: mpsc::UnboundedSender<String>,
    pending: Mutex<Pending>,
    pub(super) handlers_in_flight: Mutex<HashMap<String, AbortHandle>>,
    counter: AtomicU64,
    /// The span of the work the CLI serves now (a turn), when it is not the one that
    /// connected it: frames are routed, and requests served, under it.
    serving: Mutex<Option<tracing::Span>>,
}

/// The tasks behind a connection; aborted when the owner drops it.
pub(crate) struct ConnectionTasks {
    reader: Option<JoinHandle<()>>,
    writer: JoinHandle<()>,
}

impl ConnectionTasks {
    /// Aborts both tasks.
    pub(crate) fn abort(&self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
        self.writer.abort();
    }

    /// Waits for the reader to see end-of-file (or be aborted); returns at once afterwards.
    pub(crate) async fn reader_finished(&mut self) {
        if let Some(reader) = self.reader.as_mut() {
            let _ = reader.await;
            self.reader = None;
        }
    }
}

/// Starts the reader and writer tasks over `stdout`/`stdin` of the CLI.
pub(crate) fn start<R, W>(
    stdout: R,
    stdin: W,
    handlers: ControlHandlers,
) -> (
    Arc<Connection>,
    mpsc::UnboundedReceiver<Message>,
    ConnectionTasks,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (line_tx, line_rx) = mpsc::unbounded_channel();
    let (message_tx, message_rx) = mpsc::unbounded_channel();
    let connection = Arc::new(Connection {
        lines: line_tx,
        pending: Mutex::new(Pending::default()),
        handlers_in_flight: Mutex::new(HashMap::new()),
        counter: AtomicU64::new(0),
        serving: Mutex::new(None),
    });
    // The tasks carry the span of whoever connected (a turn, a fire, a run), so what the CLI
    // does shows under the work that started it.
    let span = tracing::Span::current();
    let writer = tokio::spawn(write_lines(stdin, line_rx).instrument(span.clone()));
    let reader = tokio::spawn(
        read_lines(
            BufReader::with_capacity(256 * 1024, stdout),
            Arc::clone(&connection),
            Arc::new(handlers),
            message_tx,
        )
        .instrument(span),
    );
    (
        connection,
        message_rx,
        ConnectionTasks {
            reader: Some(reader),
            writer,
        },
    )
}

impl Connection {
    /// Routes what the CLI sends from now on under `span` (`None`: the span that connected
    /// it), so a turn's tool calls and approvals log under the turn (issue 41 §2).
    pub(crate) fn serve_under(&self, span: Option<tracing::Span>) {
        *self.serving.lock() = span;
    }

    /// Queues one JSON line for stdin.
    pub(crate) fn send_json(&self, value: &Value) -> Result<(), ClaudeError> {
        self.lines
            .send(value.to_string())
            .map_err(|_| ClaudeError::Closed)
    }

    /// Closes stdin once everything queued so far is written.
    pub(crate) fn close_stdin(&self) {
        // An empty string is the writer's signal to shut stdin down.
        let _ = self.lines.send(String::new());
    }

    /// Whether the CLI's stdout has ended.
    pub(crate) fn is_closed(&self) -> bool {
        self.pending.lock().closed
    }

    /// Sends a control request and waits for the CLI's answer.
    pub(crate) async fn request(
        &self,
        subtype: &str,
        mut fields: Map<String, Value>,
        timeout: Duration,
    ) -> Result<Value, ClaudeError> {
        let serial = self.counter.fetch_add(1, Ordering::Relaxed);
        let request_id = format!(
            "req_{serial}_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let (reply_tx, reply_rx) = oneshot::channel();
        {
            let mut pending = self.pending.lock();
            if pending.closed {
                return Err(ClaudeError::Closed);
            }
            pending.replies.insert(request_id.clone(), reply_tx);
        }
        fields.insert("subtype".into(), json!(subtype));
        let frame = json!({"type": "control_request", "request_id": request_id, "request": fields});
        if let Err(error) = self.send_json(&frame) {
            self.pending.lock().replies.remove(&request_id);
            return Err(error);
        }
        match tokio::time::timeout(timeout, reply_rx).await {
            Ok(Ok(Ok(body))) => Ok(body),
            Ok(Ok(Err(message))) => Err(ClaudeError::ControlRequest {
                subtype: subtype.to_owned(),
                message,
            }),
            Ok(Err(_)) => Err(ClaudeError::Closed),
            Err(_) => {
                self.pending.lock().replies.remove(&request_id);
                Err(ClaudeError::Timeout {
                    subtype: subtype.to_owned(),
                    secs: timeout.as_secs(),
                })
            }
        }
    }

    /// Sends a control request without waiting for (or routing) its answer.
    pub(crate) fn request_nowait(&self, subtype: &str) -> Result<(), ClaudeError> {
        let serial = self.counter.fetch_add(1, Ordering::Relaxed);
        self.send_json(
            &json!({"type": "control_request", "request_id": format!("req_{serial}_nowait"),
            "request": {"subtype": subtype}}),
        )
    }

    /// Aborts every control-request handler still running.
    pub(crate) fn abort_handlers(&self) {
        for (_, handle) in self.handlers_in_flight.lock().drain() {
            handle.abort();
        }
    }

    fn resolve(&self, request_id: &str, outcome: Result<Value, String>) {
        let reply = self.pending.lock().replies.remove(request_id);
        if let Some(reply) = reply {
            let _ = reply.send(outcome);
        } else {
            tracing::debug!(request_id, "control response for an unknown request");
        }
    }

    fn mark_closed(&self) {
        let mut pending = self.pending.lock();
        pending.closed = true;
        // Dropping the senders fails every waiting request with `Closed`.
        pending.replies.clear();
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut stdin: W,
    mut lines: mpsc::UnboundedReceiver<String>,
) {
    while let Some(mut line) = lines.recv().await {
        if line.is_empty() {
            break;
        }
        line.push('\n');
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        };
        if let Err(error) = written.await {
            tracing::debug!(%error, "writing to the CLI's stdin failed");
            break;
        }
    }
    let _ = stdin.shutdown().await;
}

async fn read_lines<R: AsyncBufRead + Unpin>(
    mut stdout: R,
    connection: Arc<Connection>,
    handlers: Arc<ControlHandlers>,
    messages: mpsc::UnboundedSender<Message>,
) {
    let mut line = Vec::with_capacity(64 * 1024);
    loop {
        line.clear();
        match read_line_capped(&mut stdout, &mut line).await {
            Ok(true) => {}
            Ok(false) => break,
            Err(error) => {
                tracing::warn!(%error, "reading the CLI's stdout failed");
                break;
            }
        }
        let text = line.trim_ascii();
        if !text.starts_with(b"{") {
            if !text.is_empty() {
                tracing::debug!(line = %String::from_utf8_lossy(text), "skipping a non-JSON stdout line");
            }
            continue;
        }
        match serde_json::from_slice::<Value>(text) {
            Ok(frame) => {
                let serving = connection.serving.lock().clone();
                match serving {
                    Some(span) => span.in_scope(|| route(frame, &connection, &handlers, &messages)),
                    None => route(frame, &connection, &handlers, &messages),
                }
            }
            Err(error) => tracing::warn!(%error, "skipping an unparsable stdout line"),
        }
    }
    connection.mark_closed();
}

/// Reads one line into `line`; returns `Ok(false)` at end-of-file. Over-long lines are dropped.
async fn read_line_capped<R: AsyncBufRead + Unpin>(
    stdout: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<bool> {
    let mut oversized = false;
    loop {
        let chunk = stdout.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(!line.is_empty() && !oversized);
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(newline) => (newline + 1, true),
            None => (chunk.len(), false),
        };
        if !oversized {
            if line.len() + take > MAX_LINE_BYTES {
                oversized = true;
                line.clear();
            } else {
                line.extend_from_slice(&chunk[..take]);
            }
        }
        stdout.consume(take);
        if done {
            if oversized {
                tracing::warn!(limit = MAX_LINE_BYTES, "dropped an over-long stdout line");
                oversized = false;
                continue;
            }
            return Ok(true);
        }
    }
}

fn route(
    mut frame: Value,
    connection: &Arc<Connection>,
    handlers: &Arc<ControlHandlers>,
    messages: &mpsc::UnboundedSender<Message>,
) {
    match frame.get("type").and_then(Value::as_str) {
        Some("control_response") => {
            let mut response = frame
                .get_mut("response")
                .map(Value::take)
                .unwrap_or_default();
            let request_id = response
                .get("request_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let outcome = if response.get("subtype").and_then(Value::as_str) == Some("error") {
                Err(response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error")
                    .to_owned())
            } else {
                Ok(response
                    .get_mut("response")
                    .map(Value::take)
                    .unwrap_or_default())
            };
            connection.resolve(&request_id, outcome);
        }
        Some("control_request") => serve_request(frame, connection, handlers),
        Some("control_cancel_request") => {
            let request_id = frame
                .get("request_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(handle) = connection.handlers_in_flight.lock().remove(request_id) {
                tracing::debug!(request_id, "the CLI cancelled its request");
                handle.abort();
            }
        }
        _ => {
            // The receiver may be gone after a disconnect; nothing to deliver then.
            let _ = messages.send(Message::from_value(frame));
        }
    }
}

#[cfg(test)]
#[path = "transport_tests.rs"]
mod tests;
