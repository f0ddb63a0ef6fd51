//! An interrupt during an in-process MCP tool call (AGT-14): the turn ends as `aborted_tools`,
//! the tool is told to cancel, and the session goes on.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use ollim_bot::claude::{
    BoxFuture, ClaudeClient, ControlHandlers, McpMessageHandler, McpServerConfig, UserContent,
};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::{options, read_turn, turn};
use crate::support::{
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
    wait,
};

/// An in-process MCP server with one tool, `wait`, that runs until cancelled.
#[derive(Default)]
struct SlowServer {
    started: Notify,
    cancelled: Notify,
    cancellations: Mutex<Vec<Value>>,
}

/// The handler side of a shared [`SlowServer`].
struct SlowHandler(Arc<SlowServer>);

impl McpMessageHandler for SlowHandler {
    fn handle(&self, message: Value) -> BoxFuture<'static, Value> {
        let server = Arc::clone(&self.0);
        Box::pin(async move {
            let id = message.get("id").cloned();
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            let result = match method.as_str() {
                "initialize" => json!({
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "slow", "version": "1.0.0"},
                }),
                "tools/list" => json!({"tools": [{
                    "name": "wait",
                    "description": "Waits a long time.",
                    "inputSchema": {"type": "object", "properties": {}},
                }]}),
                "tools/call" => {
                    server.started.notify_one();
                    tokio::select! {
                        () = server.cancelled.notified() => {}
                        () = tokio::time::sleep(Duration::from_secs(60)) => {}
                    }
                    json!({"content": [{"type": "text", "text": "finished"}], "isError": false})
                }
                "notifications/cancelled" => {
                    server.cancellations.lock().unwrap().push(message.clone());
                    server.cancelled.notify_one();
                    json!({})
                }
                _ if id.is_none() => json!({}),
                _ => {
                    return json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "method not found"}});
                }
            };
            match id {
                Some(id) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                None => json!({"jsonrpc": "2.0", "result": {}}),
            }
        })
    }
}

/// AGT-14, protocol §3.4.3/§4.8: interrupting during an in-process MCP tool call ends the turn
/// as `aborted_tools`, the tool is told to cancel, and the next turn works.
#[tokio::test]
async fn an_interrupted_mcp_call_aborts_the_turn_and_the_session_goes_on() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let server = Arc::new(SlowServer::default());
    let handler: Arc<dyn McpMessageHandler> = Arc::new(SlowHandler(server.clone()));
    let handlers = ControlHandlers {
        mcp_servers: vec![("slow".to_owned(), handler)],
        ..ControlHandlers::default()
    };
    let mut options = options(&sandbox, &mock);
    options
        .mcp_servers
        .insert("slow".to_owned(), McpServerConfig::Sdk);
    options.allowed_tools = vec!["mcp__slow__wait".to_owned()];
    let mut client = ClaudeClient::connect(&options, handlers).await.unwrap();
    mock.push(Reply::tool_use("mcp__slow__wait", json!({})));
    client
        .send(&UserContent::Text("wait for it".to_owned()))
        .unwrap();
    tokio::time::timeout(Duration::from_secs(20), server.started.notified())
        .await
        .expect("the tool call started");
    let handle = client.handle();
    handle.interrupt().await.unwrap();
    let (_, result) = read_turn(&mut client).await;
    assert_eq!(
        result.terminal_reason.as_deref(),
        Some("aborted_tools"),
        "{result:?}"
    );
    assert!(result.was_interrupted());
    wait::until_true(
        "notifications/cancelled",
        Duration::from_secs(5),
        || !server.cancellations.lock().unwrap().is_empty(),
        String::new,
    )
    .await;

    mock.push(Reply::text("Back to normal."));
    let (_, result) = turn(&mut client, "are you there?").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("Back to normal."));
    client.disconnect(Duration::from_secs(5)).await;
}
