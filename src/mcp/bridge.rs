//! The bridge between the CLI's `mcp_message` control requests and an rmcp server running in
//! this process.
//!
//! The CLI connects to an sdk-type server twice, reusing JSON-RPC ids (`initialize` with id 0
//! twice, `tools/list` with id 1 twice), and carries no connection identity. A strict MCP server
//! would reject that, so the bridge does its own handshake with the rmcp service once, answers
//! the CLI's `initialize` itself, acknowledges notifications, and forwards every other request
//! under a fresh internal id, restoring the CLI's id on the way back. A `notifications/cancelled`
//! from the CLI (an interrupt during `tools/call`) is forwarded with the internal id, so rmcp
//! cancels the running tool.

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;

use rmcp::{
    RoleServer, ServerHandler,
    model::{ClientJsonRpcMessage, ServerJsonRpcMessage},
    service::{RunningService, serve_server},
    transport::Transport,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::claude::{BoxFuture, McpMessageHandler};

/// The protocol version the bridge speaks to its own rmcp service.
const INTERNAL_PROTOCOL_VERSION: &str = "2025-06-18";

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The rmcp service refused or failed the internal handshake.
    #[error("the in-process MCP server failed to start: {0}")]
    Handshake(String),
}

type Waiters = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

/// An in-process MCP server reachable through `mcp_message`; one per CLI client.
pub struct McpBridge<S: ServerHandler> {
    to_server: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    waiters: Waiters,
    /// CLI JSON-RPC id (as JSON text) of each forwarded request → internal id.
    in_flight: Arc<Mutex<HashMap<String, i64>>>,
    next_id: AtomicI64,
    server_info: Value,
    _service: RunningService<RoleServer, S>,
    pump: tokio::task::JoinHandle<()>,
}

impl<S: ServerHandler> Drop for McpBridge<S> {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

struct ChannelTransport {
    incoming: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    outgoing: mpsc::UnboundedSender<ServerJsonRpcMessage>,
}

impl Transport<RoleServer> for ChannelTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = self
            .outgoing
            .send(item)
            .map_err(|_| std::io::Error::other("the MCP bridge is closed"));
        std::future::ready(sent)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl<S: ServerHandler> McpBridge<S> {
    /// Starts `server` and completes the internal MCP handshake.
    pub async fn start(server: S) -> Result<Self, BridgeError> {
        let info = server.get_info();
        let server_info = json!({
            "capabilities": info.capabilities,
            "serverInfo": info.server_info,
        });
        let (to_server, incoming) = mpsc::unbounded_channel();
        let (outgoing, mut from_server) = mpsc::unbounded_channel();
        let transport = ChannelTransport { incoming, outgoing };
        let serving = tokio::spawn(serve_server(server, transport));

        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": INTERNAL_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "ollim-bot-bridge", "version": env!("CARGO_PKG_VERSION")}}});
        send_value(&to_server, initialize)?;
        let reply = tokio::time::timeout(Duration::from_secs(10), from_server.recv())
            .await
            .map_err(|_| BridgeError::Handshake("no initialize response".into()))?
            .ok_or_else(|| BridgeError::Handshake("the service stopped".into()))?;
        let reply = serde_json::to_value(reply).unwrap_or(Value::Null);
        if reply.get("result").is_none() {
            return Err(BridgeError::Handshake(format!(
                "initialize failed: {reply}"
            )));
        }
        send_value(
            &to_server,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )?;
        let service = serving
            .await
            .map_err(|error| BridgeError::Handshake(error.to_string()))?
            .map_err(|error| BridgeError::Handshake(error.to_string()))?;

        let waiters: Waiters = Arc::default();
        let pump = tokio::spawn(pump_replies(from_server, Arc::clone(&waiters)));
        Ok(Self {
            to_server,
            waiters,
            in_flight: Arc::default(),
            next_id: AtomicI64::new(1),
            server_info,
            _service: service,
            pump,
        })
    }

    /// Handles one JSON-RPC message from the CLI and returns the reply to wrap in
    /// `mcp_response`.
    pub async fn dispatch(&self, message: Value) -> Value {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(cli_id) = message.get("id").cloned().filter(|id| !id.is_null()) else {
            if method == "notifications/cancelled" {
                self.forward_cancellation(&message);
            }
            return json!({"jsonrpc": "2.0", "result": {}});
        };
        match method.as_str() {
            "initialize" => {
                let mut result = self.server_info.clone();
                result["protocolVersion"] = message
                    .pointer("/params/protocolVersion")
                    .cloned()
                    .unwrap_or_else(|| json!(INTERNAL_PROTOCOL_VERSION));
                json!({"jsonrpc": "2.0", "id": cli_id, "result": result})
            }
            "ping" => json!({"jsonrpc": "2.0", "id": cli_id, "result": {}}),
            _ => self.forward(message, cli_id).await,
        }
    }

    async fn forward(&self, mut message: Value, cli_id: Value) -> Value {
        let internal = self.next_id.fetch_add(1, Ordering::Relaxed);
        message["id"] = json!(internal);
        let (reply_tx, reply_rx) = oneshot::channel();
        self.waiters.lock().insert(internal, reply_tx);
        self.in_flight.lock().insert(cli_id.to_string(), internal);
        let reply = match serde_json::from_value::<ClientJsonRpcMessage>(message) {
            Ok(parsed) => match self.to_server.send(parsed) {
                Ok(()) => reply_rx.await.ok(),
                Err(_) => None,
            },
            Err(error) => {
                self.waiters.lock().remove(&internal);
                Some(json!({"jsonrpc": "2.0", "error": {"code": -32600,
                    "message": format!("invalid request: {error}")}}))
            }
        };
        self.in_flight.lock().remove(&cli_id.to_string());
        let mut reply = reply.unwrap_or_else(|| {
            json!({"jsonrpc": "2.0", "error": {"code": -32603,
                "message": "the in-process MCP server stopped"}})
        });
        reply["id"] = cli_id;
        reply
    }

    fn forward_cancellation(&self, message: &Value) {
        let Some(cli_request) = message.pointer("/params/requestId") else {
            return;
        };
        let Some(internal) = self.in_flight.lock().get(&cli_request.to_string()).copied() else {
            return;
        };
        let mut cancel = message.clone();
        cancel["params"]["requestId"] = json!(internal);
        if let Ok(parsed) = serde_json::from_value::<ClientJsonRpcMessage>(cancel) {
            let _ = self.to_server.send(parsed);
        }
    }
}

impl<S: ServerHandler> McpMessageHandler for Arc<McpBridge<S>> {
    fn handle(&self, message: Value) -> BoxFuture<'static, Value> {
        let bridge = Arc::clone(self);
        Box::pin(async move { bridge.dispatch(message).await })
    }
}

async fn pump_replies(
    mut from_server: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    waiters: Waiters,
) {
    while let Some(reply) = from_server.recv().await {
        let reply = match serde_json::to_value(reply) {
            Ok(reply) => reply,
            Err(error) => {
                tracing::warn!(%error, "unserialisable MCP reply");
                continue;
            }
        };
        let Some(id) = reply.get("id").and_then(Value::as_i64) else {
            tracing::debug!(%reply, "MCP server notification dropped");
            continue;
        };
        if let Some(waiter) = waiters.lock().remove(&id) {
            let _ = waiter.send(reply);
        }
    }
}

fn send_value(
    to_server: &mpsc::UnboundedSender<ClientJsonRpcMessage>,
    value: Value,
) -> Result<(), BridgeError> {
    let parsed =
        serde_json::from_value(value).map_err(|error| BridgeError::Handshake(error.to_string()))?;
    to_server
        .send(parsed)
        .map_err(|_| BridgeError::Handshake("the service stopped".into()))
}
