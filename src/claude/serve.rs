//! Serving the requests the CLI sends us (`can_use_tool`, `hook_callback`, `mcp_message`):
//! each in its own task, always answered, aborted without an answer when the CLI cancels it.

use std::sync::Arc;

use serde_json::{Value, json};
use tracing::Instrument;

use super::{
    control::{ControlHandlers, PermissionDecision, PermissionRequest},
    frame_fields,
    transport::Connection,
};

/// Runs one CLI→host request in its own task, so several can be in flight, and always answers:
/// with the handler's result, or with an error if the handler fails. A cancelled handler is
/// aborted and not answered, as the protocol asks.
pub(super) fn serve_request(
    mut frame: Value,
    connection: &Arc<Connection>,
    handlers: &Arc<ControlHandlers>,
) {
    let Some(request_id) = frame
        .get("request_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        tracing::warn!("control request without a request_id");
        return;
    };
    let request = frame.get_mut("request").map_or(Value::Null, Value::take);
    let inner =
        tokio::spawn(answer(request, Arc::clone(handlers)).instrument(tracing::Span::current()));
    connection
        .handlers_in_flight
        .lock()
        .insert(request_id.clone(), inner.abort_handle());
    let connection = Arc::clone(connection);
    let span = tracing::Span::current();
    tokio::spawn(
        async move {
            let outcome = inner.await;
            connection.handlers_in_flight.lock().remove(&request_id);
            let response = match outcome {
                Ok(Ok(body)) => {
                    json!({"subtype": "success", "request_id": request_id, "response": body})
                }
                Ok(Err(message)) => {
                    json!({"subtype": "error", "request_id": request_id, "error": message})
                }
                Err(join) if join.is_cancelled() => return,
                Err(_) => json!({"subtype": "error", "request_id": request_id,
                             "error": "the host's handler failed"}),
            };
            let _ =
                connection.send_json(&json!({"type": "control_response", "response": response}));
        }
        .instrument(span),
    );
}

async fn answer(request: Value, handlers: Arc<ControlHandlers>) -> Result<Value, String> {
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match subtype {
        "can_use_tool" => {
            let permission = PermissionRequest {
                tool_name: frame_fields::string_or_empty(&request, "tool_name"),
                input: request.get("input").cloned().unwrap_or_else(|| json!({})),
                tool_use_id: request
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                description: request
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            };
            let decision = match &handlers.permissions {
                Some(handler) => handler.decide(permission).await,
                None => PermissionDecision::deny("no permission handler is configured"),
            };
            Ok(decision.to_response())
        }
        "hook_callback" => {
            let callback_id = frame_fields::string_or_empty(&request, "callback_id");
            let hook = handlers
                .hook_by_id(&callback_id)
                .ok_or_else(|| format!("unknown hook callback id {callback_id}"))?;
            let input = request.get("input").cloned().unwrap_or(Value::Null);
            Ok(hook.callback.call(input).await.to_response(hook.event))
        }
        "mcp_message" => {
            let server = frame_fields::string_or_empty(&request, "server_name");
            let message = request.get("message").cloned().unwrap_or(Value::Null);
            let reply = match handlers.mcp_server(&server) {
                Some(handler) => handler.handle(message).await,
                None => json!({"jsonrpc": "2.0", "id": message.get("id").cloned(),
                    "error": {"code": -32601, "message": format!("no MCP server named {server}")}}),
            };
            Ok(json!({ "mcp_response": reply }))
        }
        other => Err(format!("Unsupported control request subtype: {other}")),
    }
}
