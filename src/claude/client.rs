//! [`ClaudeClient`]: one connected CLI process, and [`ClientHandle`], a cheap handle for
//! interrupting and steering it from elsewhere.

use std::{process::ExitStatus, sync::Arc, time::Duration};

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{
    ClaudeError, ClientOptions, ControlHandlers, Message, PermissionMode, SessionId,
    process::{self, CliProcess},
    result::CostMeter,
    transport::{self, Connection, ConnectionTasks},
};

/// How long the CLI may take to answer `initialize` (it starts MCP servers meanwhile).
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(90);
/// How long other control requests may take.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(60);

/// The content of one user message.
#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    /// Plain text (a leading `/` makes it a slash command such as `/compact`).
    Text(String),
    /// Content blocks (text and image blocks).
    Blocks(Vec<Value>),
}

/// An image to attach to a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageAttachment {
    /// MIME type (`image/png`, `image/jpeg`, `image/gif`, `image/webp`).
    pub media_type: String,
    /// Base64-encoded bytes.
    pub base64_data: String,
}

impl UserContent {
    /// Images first, then the text block (omitted when the text is empty) (AGT-17).
    pub fn with_images(text: &str, images: &[ImageAttachment]) -> Self {
        if images.is_empty() {
            return Self::Text(text.to_owned());
        }
        let mut blocks: Vec<Value> = images
            .iter()
            .map(|image| {
                json!({"type": "image", "source": {"type": "base64",
                    "media_type": image.media_type, "data": image.base64_data}})
            })
            .collect();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        Self::Blocks(blocks)
    }

    fn to_json(&self) -> Value {
        match self {
            Self::Text(text) => json!(text),
            Self::Blocks(blocks) => json!(blocks),
        }
    }
}

/// A cloneable handle to a connected client: send prompts, interrupt, change model or mode.
/// It never blocks on the owner of the [`ClaudeClient`].
#[derive(Clone)]
pub struct ClientHandle {
    connection: Arc<Connection>,
}

impl std::fmt::Debug for ClientHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHandle")
            .field("closed", &self.connection.is_closed())
            .finish()
    }
}

impl ClientHandle {
    /// Sends a user message. The turn's frames arrive through [`ClaudeClient::recv`].
    pub fn send(&self, content: &UserContent) -> Result<(), ClaudeError> {
        self.connection.send_json(&json!({
            "type": "user",
            "message": {"role": "user", "content": content.to_json()},
            "parent_tool_use_id": null,
            "session_id": "",
        }))
    }

    /// Interrupts the running turn (a success even when idle).
    pub async fn interrupt(&self) -> Result<(), ClaudeError> {
        self.request("interrupt", Map::new()).await.map(drop)
    }

    /// Interrupts the running turn without waiting for the CLI's acknowledgement.
    pub fn interrupt_nowait(&self) -> Result<(), ClaudeError> {
        self.connection.request_nowait("interrupt")
    }

    /// Switches the model from the next API call on; `None` = the CLI's default model.
    pub async fn set_model(&self, model: Option<&str>) -> Result<(), ClaudeError> {
        let mut fields = Map::new();
        fields.insert("model".into(), json!(model));
        self.request("set_model", fields).await.map(drop)
    }

    /// Changes the permission mode for the next tool decision.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), ClaudeError> {
        let mut fields = Map::new();
        fields.insert("mode".into(), json!(mode.as_str()));
        self.request("set_permission_mode", fields).await.map(drop)
    }

    /// The context the next turn would send, counted by the CLI (`get_context_usage`): it
    /// builds that turn's system prompt, tools and messages, and asks the API to count them.
    pub async fn context_usage(&self) -> Result<Value, ClaudeError> {
        self.request("get_context_usage", Map::new()).await
    }

    /// Sends any control request and returns the response body.
    pub async fn request(
        &self,
        subtype: &str,
        fields: Map<String, Value>,
    ) -> Result<Value, ClaudeError> {
        self.connection
            .request(subtype, fields, CONTROL_TIMEOUT)
            .await
    }

    /// Whether the CLI's stdout has ended.
    pub fn is_closed(&self) -> bool {
        self.connection.is_closed()
    }

    /// Serves what the CLI sends under `span` from now on (`None`: under the span that
    /// connected it): the turn a long-lived client answers now, not the click that started it.
    pub fn serve_under(&self, span: Option<tracing::Span>) {
        self.connection.serve_under(span);
    }
}

/// One connected Claude Code CLI process.
pub struct ClaudeClient {
    handle: ClientHandle,
    messages: mpsc::UnboundedReceiver<Message>,
    tasks: ConnectionTasks,
    process: CliProcess,
    session_id: Option<SessionId>,
    session_observer: Option<super::options::SessionObserver>,
    initialize_response: Value,
    cost: CostMeter,
}

impl std::fmt::Debug for ClaudeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaudeClient")
            .field("pid", &self.process.pid())
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

impl ClaudeClient {
    /// Starts the CLI and completes the `initialize` handshake, serving the CLI's own requests
    /// (MCP handshakes) while waiting.
    pub async fn connect(
        options: &ClientOptions,
        handlers: ControlHandlers,
    ) -> Result<Self, ClaudeError> {
        let has_permission_handler = handlers.permissions.is_some();
        let mut fields = Map::new();
        fields.insert("hooks".into(), handlers.hooks_config());
        if let Some(agents) = &options.agents {
            fields.insert("agents".into(), agents.clone());
        }
        let (process, stdin, stdout) = process::spawn(options, has_permission_handler)?;
        let (connection, messages, tasks) = transport::start(stdout, stdin, handlers);
        let mut client = Self {
            handle: ClientHandle { connection },
            messages,
            tasks,
            process,
            session_id: options
                .session_id
                .clone()
                .or_else(|| options.resume.clone().filter(|_| !options.fork_session)),
            session_observer: options.session_observer.clone(),
            initialize_response: Value::Null,
            cost: CostMeter::default(),
        };
        if let (Some(id), Some(observer), Some(dir)) = (
            &client.session_id,
            &client.session_observer,
            client.process.config_dir(),
        ) {
            observer(id, dir);
        }
        let initialized = client
            .handle
            .connection
            .request("initialize", fields, INITIALIZE_TIMEOUT)
            .await;
        match initialized {
            Ok(response) => {
                client.initialize_response = response;
                Ok(client)
            }
            Err(ClaudeError::Closed) => Err(client.startup_failure(options).await),
            Err(error) => {
                client.abort().await;
                Err(error)
            }
        }
    }

    async fn startup_failure(mut self, options: &ClientOptions) -> ClaudeError {
        self.tasks.reader_finished().await;
        let error = self.process.exit_error().await;
        if let (Some(resumed), ClaudeError::ProcessExited { stderr_tail, .. }) =
            (&options.resume, &error)
            && stderr_tail.contains("No conversation found")
        {
            return ClaudeError::SessionNotFound {
                session_id: resumed.to_string(),
            };
        }
        error
    }

    /// A cloneable handle for sending, interrupting and steering.
    pub fn handle(&self) -> ClientHandle {
        self.handle.clone()
    }

    /// Sends a user message (see [`ClientHandle::send`]).
    pub fn send(&self, content: &UserContent) -> Result<(), ClaudeError> {
        self.handle.send(content)
    }

    /// The next message from the CLI; `None` once the process's stdout has ended.
    pub async fn recv(&mut self) -> Option<Message> {
        let mut message = self.messages.recv().await?;
        if let Message::Result(result) = &mut message {
            result.turn_cost_usd = self.cost.turn_cost(result.total_cost_usd);
        }
        if let Some(id) = message.session_id().filter(|id| !id.is_empty()) {
            match SessionId::parse(id) {
                Ok(id) => {
                    if self.session_id.as_ref() != Some(&id)
                        && let (Some(observer), Some(dir)) =
                            (&self.session_observer, self.process.config_dir())
                    {
                        observer(&id, dir);
                    }
                    self.session_id = Some(id);
                }
                Err(error) => tracing::warn!(%error, "the CLI reported an unusable session id"),
            }
        }
        Some(message)
    }

    /// The error for a process that ended unexpectedly (after [`Self::recv`] returned `None`).
    pub async fn exit_error(&mut self) -> ClaudeError {
        self.tasks.reader_finished().await;
        self.process.exit_error().await
    }

    /// The session id most recently reported by the CLI (or chosen at launch).
    pub fn session_id(&self) -> Option<&SessionId> {
        self.session_id.as_ref()
    }

    /// The CLI's answer to `initialize` (commands, models, account).
    pub fn initialize_response(&self) -> &Value {
        &self.initialize_response
    }

    /// The models this CLI offers, from its `initialize` answer.
    pub fn models(&self) -> Vec<super::CliModel> {
        super::offered_models(&self.initialize_response)
    }

    /// The OS process id of the CLI, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// Ends the session: closes stdin so the CLI finishes any turn in flight, keeps serving its
    /// requests until it exits, and kills it after `grace`. Reaps the process.
    pub async fn disconnect(mut self, grace: Duration) -> Option<ExitStatus> {
        self.handle.connection.close_stdin();
        let started = tokio::time::Instant::now();
        let _ = tokio::time::timeout(grace, self.tasks.reader_finished()).await;
        let status = self
            .process
            .finish(grace.saturating_sub(started.elapsed()))
            .await;
        self.tasks.abort();
        self.handle.connection.abort_handlers();
        status
    }

    async fn abort(mut self) {
        self.tasks.abort();
        self.handle.connection.abort_handlers();
        self.process.finish(Duration::ZERO).await;
    }
}

impl Drop for ClaudeClient {
    fn drop(&mut self) {
        // The child itself is killed by `kill_on_drop`; stop our tasks with it.
        self.tasks.abort();
        self.handle.connection.abort_handlers();
    }
}

/// The stream-json protocol over arbitrary byte streams instead of a child process: a
/// recorded transcript, a socket, an in-memory pipe. Control requests from the other side are
/// served by `handlers` exactly as for a [`ClaudeClient`].
pub struct StreamConnection {
    handle: ClientHandle,
    messages: mpsc::UnboundedReceiver<Message>,
    tasks: ConnectionTasks,
}

impl StreamConnection {
    /// Starts reading `stdout` (what the CLI writes) and writing to `stdin` (what it reads).
    pub fn start<R, W>(stdout: R, stdin: W, handlers: ControlHandlers) -> Self
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (connection, messages, tasks) = transport::start(stdout, stdin, handlers);
        Self {
            handle: ClientHandle { connection },
            messages,
            tasks,
        }
    }

    /// A handle for sending and control requests.
    pub fn handle(&self) -> ClientHandle {
        self.handle.clone()
    }

    /// The next non-control message; `None` once the input has ended.
    pub async fn recv(&mut self) -> Option<Message> {
        self.messages.recv().await
    }

    /// Closes the write side once everything queued is written.
    pub fn close_input(&self) {
        self.handle.connection.close_stdin();
    }
}

impl Drop for StreamConnection {
    fn drop(&mut self) {
        self.tasks.abort();
        self.handle.connection.abort_handlers();
    }
}
