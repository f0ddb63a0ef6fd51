//! Mail is untrusted text. Once a session has read some (the `gmail` tool), the tools that
//! reach out of the machine (`WebFetch`, `WebSearch`) could carry what it read to whoever the
//! mail names, so in that session they need the owner's say-so for every call, whatever the
//! permission mode and whatever `--allowedTools` holds (issue 23 §4): the owner is asked in
//! the asking modes (`bypassPermissions` included), and in `dontAsk`, which never asks, the
//! call is refused with the reason. "Allow always" lifts the hold for the rest of the
//! session, like any session allowance (PRM-5).
//!
//! A session counts as having read mail when it, or the session its client resumed or
//! branched from, is in [`UntrustedSessions`] (so a fork of such a conversation and the
//! conversation after a restart are held too). Background runs are marked as well; a reply
//! resumes them with their own tools, which don't include these unless the owner granted
//! them.

use std::sync::Arc;

use serde_json::Value;

use super::policy::{PermissionState, dont_ask_refusal};
use crate::agent::turn::labels::tool_label;
use crate::{
    claude::{BoxFuture, HookCallback, HookOutput},
    front_end::{Approval, CurrentTurn, FrontEnd, TurnEvent},
    sandbox::{Gate, HostRule},
    state::untrusted_sessions::UntrustedSessions,
};

/// The tools held in a session that read mail (a hook matcher).
pub const OUTBOUND_TOOLS: &str = "WebFetch|WebSearch";
/// The tool whose results are mail (a hook matcher).
pub const MAIL_TOOL: &str = "mcp__discord__gmail";

/// What the model reads when a held tool is refused.
fn held_reason(tool: &str) -> String {
    format!(
        "{tool} is held in this conversation because it has read mail (untrusted text): the \
         owner must approve each call. {}",
        dont_ask_refusal(tool)
    )
}

/// What an owner-facing client's hold needs beyond the shared hook inputs.
pub struct HoldDeps {
    /// Where the owner is asked.
    pub front_end: Arc<dyn FrontEnd>,
    /// The session the client resumed or branched from, if any.
    pub lineage: Option<String>,
}

/// Records the session of a `gmail` call as having read untrusted text, and narrows what its
/// container reaches from then on (issue 39 §3).
pub struct MailReadMarker {
    /// The store of such sessions.
    pub untrusted: UntrustedSessions,
    /// The session's network.
    pub gate: Arc<Gate>,
}

impl HookCallback for MailReadMarker {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        self.gate.read_untrusted();
        if let Some(session) = input.get("session_id").and_then(Value::as_str)
            && let Err(error) = self.untrusted.mark(session)
        {
            tracing::warn!(%error, "could not record that the session read mail");
        }
        Box::pin(std::future::ready(HookOutput::default()))
    }
}

/// Holds the outbound tools in a session that read mail.
pub struct OutboundHold {
    /// The store of sessions that read untrusted text.
    pub untrusted: UntrustedSessions,
    /// The session the client resumed or branched from, if any.
    pub lineage: Option<String>,
    /// The shared `dontAsk` flag and session allowances.
    pub permissions: Arc<PermissionState>,
    /// Where the owner is asked.
    pub front_end: Arc<dyn FrontEnd>,
    /// The turn in progress, for struck-through labels.
    pub turn: CurrentTurn,
    /// The session's network: the owner's answer opens it for the URL's host (allow once)
    /// or altogether (allow always).
    pub gate: Arc<Gate>,
}

impl OutboundHold {
    fn read_mail(&self, input: &Value) -> bool {
        let mut sessions: Vec<&str> = self.lineage.iter().map(String::as_str).collect();
        sessions.extend(input.get("session_id").and_then(Value::as_str));
        self.untrusted.any(&sessions)
    }
}

impl HookCallback for OutboundHold {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let tool = input
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if !self.read_mail(&input) || self.permissions.is_session_allowed(&tool) {
            return Box::pin(std::future::ready(HookOutput::default()));
        }
        let permissions = Arc::clone(&self.permissions);
        let front_end = Arc::clone(&self.front_end);
        let turn = self.turn.clone();
        let gate = Arc::clone(&self.gate);
        Box::pin(async move {
            let denied = |reason: String| {
                if let Some(id) = input.get("tool_use_id").and_then(Value::as_str) {
                    turn.emit(TurnEvent::ToolDenied { id: id.to_owned() });
                }
                HookOutput::deny_tool(reason)
            };
            if permissions.dont_ask() {
                return denied(held_reason(&tool));
            }
            let tool_input = input.get("tool_input").unwrap_or(&Value::Null);
            let label = format!(
                "{} — this conversation read mail",
                tool_label(&tool, tool_input)
            );
            match front_end.ask_approval(label).await {
                Approval::AllowOnce => {
                    let url = tool_input.get("url").and_then(Value::as_str);
                    if let Some(host) = url.and_then(HostRule::parse) {
                        gate.grant(host);
                    }
                    HookOutput::default()
                }
                Approval::AllowAlways => {
                    permissions.allow_for_session(&tool);
                    gate.reopen();
                    HookOutput::default()
                }
                refused => denied(
                    refused
                        .unanswered_reason()
                        .unwrap_or_else(|| front_end.denial_reason())
                        .to_owned(),
                ),
            }
        })
    }
}
