//! The recorded host: the driver's permission, hook and MCP handlers answer each CLI request
//! as the recording did, when the replay reaches the recorded answer; and how the driver's
//! answer is compared with the recorded one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ollim_bot::claude::{
    BoxFuture, HookCallback, HookEvent, HookOutput, HookRegistration, McpMessageHandler,
    PermissionDecision, PermissionHandler, PermissionRequest,
};
use ollim_bot::mcp::{DiscordTools, McpBridge};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::{Frame, lock, text};

/// A recorded CLI → host request and the host's answer (`None`: cancelled first, or none).
pub(super) struct CliRequest {
    pub(super) id: String,
    pub(super) request: Value,
    pub(super) answer: Option<(u64, Value)>,
    pub(super) claimed: bool,
}

/// The recorded host, shared with the driver's handler tasks.
pub(super) struct Script {
    pub(super) requests: Mutex<Vec<CliRequest>>,
    /// Recorded host answers up to this `seq` may be given.
    pub(super) released: watch::Sender<u64>,
    pub(super) failures: Mutex<Vec<String>>,
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

pub(super) struct Permissions(pub(super) Arc<Script>);

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

pub(super) struct Mcp(
    pub(super) Arc<Script>,
    pub(super) Arc<McpBridge<DiscordTools>>,
);

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

pub(super) type HookIds = HashMap<String, String>;

/// The recorded `initialize.hooks` as driver registrations (recorded ids become `hook_<n>`),
/// plus the recorded-id → driver-id map.
pub(super) fn hooks(frames: &[Frame], script: &Arc<Script>) -> (Vec<HookRegistration>, HookIds) {
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
pub(super) fn cli_requests(frames: &[Frame]) -> Vec<CliRequest> {
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
pub(super) fn answer_mismatch(request: &Value, recorded: &Value, driver: &Value) -> Option<String> {
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
