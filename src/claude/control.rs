//! Host-side handlers for the requests the CLI sends us: `can_use_tool`, `hook_callback` and
//! `mcp_message`. Each connected client gets its own set, so concurrent CLI processes never share
//! per-run state through globals.

use std::{future::Future, pin::Pin, sync::Arc};

use serde_json::{Map, Value, json};

/// A boxed, sendable future, as returned by the handler traits.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A `can_use_tool` request: the CLI asks whether a tool call may run.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// Tool name (`Write`, `Bash`, `mcp__discord__ping_user`).
    pub tool_name: String,
    /// The tool input as the model produced it.
    pub input: Value,
    /// The tool use id, when the CLI sends one.
    pub tool_use_id: Option<String>,
    /// The CLI's short description of the call, if any.
    pub description: Option<String>,
}

/// The answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Run the tool with this input (the original input when nothing changes).
    Allow {
        /// The input to run the tool with; always sent, as the CLI requires it.
        updated_input: Value,
    },
    /// Refuse the tool; the model reads `message`.
    Deny {
        /// Why the tool was refused.
        message: String,
        /// Also abort the turn.
        interrupt: bool,
    },
}

impl PermissionDecision {
    /// Allow with the original input unchanged.
    pub fn allow(request: &PermissionRequest) -> Self {
        Self::Allow {
            updated_input: request.input.clone(),
        }
    }

    /// Deny with a message, without interrupting the turn.
    pub fn deny(message: impl Into<String>) -> Self {
        Self::Deny {
            message: message.into(),
            interrupt: false,
        }
    }

    /// The control-response body for this decision.
    pub(crate) fn to_response(&self) -> Value {
        match self {
            Self::Allow { updated_input } => {
                let input = if updated_input.is_object() {
                    updated_input.clone()
                } else {
                    Value::Object(Map::new())
                };
                json!({"behavior": "allow", "updatedInput": input})
            }
            Self::Deny { message, interrupt } => {
                json!({"behavior": "deny", "message": message, "interrupt": interrupt})
            }
        }
    }
}

/// Decides tool permissions for one client.
pub trait PermissionHandler: Send + Sync {
    /// Decides one request. Must always resolve; the CLI never times this out.
    fn decide(&self, request: PermissionRequest) -> BoxFuture<'static, PermissionDecision>;
}

/// Hook events the bot registers callbacks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a tool runs.
    PreToolUse,
    /// After a tool ran.
    PostToolUse,
    /// When the model wants to end its turn.
    Stop,
    /// Before a compaction.
    PreCompact,
    /// When a prompt is submitted.
    UserPromptSubmit,
}

impl HookEvent {
    /// The event name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
            Self::PreCompact => "PreCompact",
            Self::UserPromptSubmit => "UserPromptSubmit",
        }
    }
}

/// What a hook callback answers. `HookOutput::default()` means "no opinion".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookOutput {
    /// Block the action (`Stop`: keep the model going; the reason is fed back to it).
    pub block_reason: Option<String>,
    /// For `PreToolUse`: deny the tool with this reason.
    pub deny_tool_reason: Option<String>,
    /// Extra context shown to the model (`PostToolUse`, `UserPromptSubmit`).
    pub additional_context: Option<String>,
    /// A message shown to the user/transcript.
    pub system_message: Option<String>,
}

impl HookOutput {
    /// A Stop/PostToolUse block with a reason the model reads.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            block_reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// A `PreToolUse` denial.
    pub fn deny_tool(reason: impl Into<String>) -> Self {
        Self {
            deny_tool_reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// The control-response body for `event`.
    pub(crate) fn to_response(&self, event: HookEvent) -> Value {
        let mut body = Map::new();
        if let Some(reason) = &self.block_reason {
            body.insert("decision".into(), json!("block"));
            body.insert("reason".into(), json!(reason));
        }
        if let Some(message) = &self.system_message {
            body.insert("systemMessage".into(), json!(message));
        }
        let mut specific = Map::new();
        if let Some(reason) = &self.deny_tool_reason {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        if let Some(context) = &self.additional_context {
            specific.insert("additionalContext".into(), json!(context));
        }
        if !specific.is_empty() {
            specific.insert("hookEventName".into(), json!(event.as_str()));
            body.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        Value::Object(body)
    }
}

/// A hook callback: receives the hook input the CLI sends.
pub trait HookCallback: Send + Sync {
    /// Runs the hook. `input` carries `hook_event_name`, `tool_name`, `tool_input`, …
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput>;
}

/// One hook registration: an event, an optional tool-name matcher and a callback.
#[derive(Clone)]
pub struct HookRegistration {
    /// The event.
    pub event: HookEvent,
    /// Tool-name pattern (`Write|Edit`); `None` matches everything.
    pub matcher: Option<String>,
    /// Seconds the CLI waits before giving up on the callback.
    pub timeout_secs: u32,
    /// The callback.
    pub callback: Arc<dyn HookCallback>,
}

impl std::fmt::Debug for HookRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRegistration")
            .field("event", &self.event)
            .field("matcher", &self.matcher)
            .field("timeout_secs", &self.timeout_secs)
            .finish_non_exhaustive()
    }
}

/// An in-process MCP server reached through `mcp_message` control requests.
pub trait McpMessageHandler: Send + Sync {
    /// Handles one JSON-RPC message and returns the JSON-RPC reply (for notifications, an
    /// acknowledgement such as `{"jsonrpc":"2.0","result":{}}`).
    fn handle(&self, message: Value) -> BoxFuture<'static, Value>;
}

/// Everything the host serves for one client.
#[derive(Clone, Default)]
pub struct ControlHandlers {
    /// Answers `can_use_tool`; `None` means tools not otherwise allowed are denied by the CLI.
    pub permissions: Option<Arc<dyn PermissionHandler>>,
    /// Hook registrations, sent in `initialize`.
    pub hooks: Vec<HookRegistration>,
    /// In-process MCP servers by name.
    pub mcp_servers: Vec<(String, Arc<dyn McpMessageHandler>)>,
}

impl std::fmt::Debug for ControlHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<&str> = self.mcp_servers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("ControlHandlers")
            .field("permissions", &self.permissions.is_some())
            .field("hooks", &self.hooks)
            .field("mcp_servers", &servers)
            .finish()
    }
}

impl ControlHandlers {
    /// The `hooks` object for `initialize`, with callback ids `hook_<n>` in registration order.
    pub(crate) fn hooks_config(&self) -> Value {
        if self.hooks.is_empty() {
            return Value::Null;
        }
        let mut by_event: Map<String, Value> = Map::new();
        for (index, hook) in self.hooks.iter().enumerate() {
            let entry = json!({
                "matcher": hook.matcher,
                "hookCallbackIds": [format!("hook_{index}")],
                "timeout": hook.timeout_secs,
            });
            let list = by_event
                .entry(hook.event.as_str().to_owned())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = list {
                items.push(entry);
            }
        }
        Value::Object(by_event)
    }

    /// The registration behind a callback id, if it exists.
    pub(crate) fn hook_by_id(&self, callback_id: &str) -> Option<&HookRegistration> {
        let index: usize = callback_id.strip_prefix("hook_")?.parse().ok()?;
        self.hooks.get(index)
    }

    /// The MCP server named `name`.
    pub(crate) fn mcp_server(&self, name: &str) -> Option<&Arc<dyn McpMessageHandler>> {
        self.mcp_servers
            .iter()
            .find(|(server, _)| server == name)
            .map(|(_, handler)| handler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_always_carries_updated_input() {
        let request = PermissionRequest {
            tool_name: "Write".into(),
            input: json!({"file_path": "a.md"}),
            tool_use_id: None,
            description: None,
        };
        assert_eq!(
            PermissionDecision::allow(&request).to_response(),
            json!({"behavior": "allow", "updatedInput": {"file_path": "a.md"}})
        );
    }

    #[test]
    fn hook_outputs_map_to_wire_shapes() {
        assert_eq!(
            HookOutput::default().to_response(HookEvent::Stop),
            json!({})
        );
        assert_eq!(
            HookOutput::block("say bye").to_response(HookEvent::Stop),
            json!({"decision": "block", "reason": "say bye"})
        );
        assert_eq!(
            HookOutput::deny_tool("no").to_response(HookEvent::PreToolUse),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        );
    }
}
