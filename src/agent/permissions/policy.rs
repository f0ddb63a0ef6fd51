//! The tool-permission policy of the main session and interactive forks (PRM-2, AGT-6).
//!
//! Order: writes into `state/` are always refused; in `dontAsk` mode anything not allowed for
//! this session is refused silently (its label struck through); otherwise the owner is asked
//! through the front end. Tools in `--allowedTools` never reach this policy.

use std::{
    collections::HashSet,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use parking_lot::Mutex;

use serde_json::Value;

use super::{live_rules::LiveRules, rule_match::rules_cover};
use crate::agent::turn::labels::tool_label;
use crate::front_end::{Approval, CurrentTurn, FrontEnd, TurnEvent};
use crate::{
    claude::{BoxFuture, PermissionDecision, PermissionHandler, PermissionRequest},
    state::paths::DataDir,
};

/// File tools whose target path is checked against `state/`.
pub const FILE_WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// A conversation's permission settings: its own `dontAsk` flag, and the tools the owner
/// allowed for the session, shared by the main session and its forks for the life of the
/// process (until `/clear`).
#[derive(Debug, Default)]
pub struct PermissionState {
    dont_ask: AtomicBool,
    session_allowed: Arc<Mutex<HashSet<String>>>,
}

impl PermissionState {
    /// A state starting in `dontAsk` (`true`) or asking mode.
    pub fn new(dont_ask: bool) -> Self {
        Self {
            dont_ask: AtomicBool::new(dont_ask),
            session_allowed: Arc::default(),
        }
    }

    /// Another conversation's state (a fork's), starting in `dontAsk` or asking mode, with
    /// the same session allowances (issue 41 §1: `/permissions` in one conversation changes
    /// that one only).
    #[must_use]
    pub fn beside(&self, dont_ask: bool) -> Self {
        Self {
            dont_ask: AtomicBool::new(dont_ask),
            session_allowed: Arc::clone(&self.session_allowed),
        }
    }

    /// Whether non-allowed tools are refused without asking.
    pub fn dont_ask(&self) -> bool {
        self.dont_ask.load(Ordering::Relaxed)
    }

    /// Switches `dontAsk` on or off.
    pub fn set_dont_ask(&self, on: bool) {
        self.dont_ask.store(on, Ordering::Relaxed);
    }

    /// Whether the owner allowed `tool` for the rest of the session (PRM-5).
    pub fn is_session_allowed(&self, tool: &str) -> bool {
        self.allowed().contains(tool)
    }

    /// The tools the owner allowed for the rest of the session, sorted.
    pub fn session_allowed(&self) -> Vec<String> {
        let mut tools: Vec<String> = self.allowed().iter().cloned().collect();
        tools.sort();
        tools
    }

    /// Allows `tool` for the rest of the session.
    pub fn allow_for_session(&self, tool: &str) {
        self.allowed().insert(tool.to_owned());
    }

    /// Forgets every session allowance (`/clear`).
    pub fn reset(&self) {
        self.allowed().clear();
    }

    fn allowed(&self) -> parking_lot::MutexGuard<'_, HashSet<String>> {
        self.session_allowed.lock()
    }
}

/// The target path of a file-writing tool call, if it is one.
pub fn write_target(tool_name: &str, input: &Value) -> Option<String> {
    if !FILE_WRITE_TOOLS.contains(&tool_name) {
        return None;
    }
    ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The refusal text for a write into `state/`, or `None` when the call is not one (PRM-2/3).
pub fn state_write_refusal(data_dir: &DataDir, tool_name: &str, input: &Value) -> Option<String> {
    let target = write_target(tool_name, input)?;
    data_dir
        .is_inside_state_dir(Path::new(&target))
        .then(|| format!("{tool_name} to state/ is blocked — system files are write-protected"))
}

/// The refusal text for a tool outside the allowed set in `dontAsk` mode (PRM-2).
pub fn dont_ask_refusal(tool_name: &str) -> String {
    format!("{tool_name} requires permission — denied silently in current mode")
}

/// The policy answering `can_use_tool` for one client.
pub struct PermissionPolicy {
    data_dir: DataDir,
    state: Arc<PermissionState>,
    front_end: Arc<dyn FrontEnd>,
    turn: CurrentTurn,
    live_rules: Option<Arc<LiveRules>>,
}

impl PermissionPolicy {
    /// A policy for a client of the main session or an interactive fork.
    pub fn new(
        data_dir: DataDir,
        state: Arc<PermissionState>,
        front_end: Arc<dyn FrontEnd>,
        turn: CurrentTurn,
    ) -> Self {
        Self {
            data_dir,
            state,
            front_end,
            turn,
            live_rules: None,
        }
    }

    /// Also allows what `tool-policy.yaml` adds to the main session now, without a restart
    /// (PRM-11), and the tools of the foreground job whose turn is running (issue 23 §4).
    #[must_use]
    pub fn with_live_rules(mut self, rules: Arc<LiveRules>) -> Self {
        self.live_rules = Some(rules);
        self
    }

    async fn decide_now(&self, request: PermissionRequest) -> PermissionDecision {
        if let Some(refusal) =
            state_write_refusal(&self.data_dir, &request.tool_name, &request.input)
        {
            self.mark_denied(&request);
            return PermissionDecision::deny(refusal);
        }
        if self.state.is_session_allowed(&request.tool_name) {
            return PermissionDecision::allow(&request);
        }
        if self.live_rules.as_ref().is_some_and(|rules| {
            rules_cover(
                &rules.current(),
                &request.tool_name,
                &request.input,
                &self.data_dir,
            )
        }) {
            return PermissionDecision::allow(&request);
        }
        if self.state.dont_ask() {
            self.mark_denied(&request);
            return PermissionDecision::deny(dont_ask_refusal(&request.tool_name));
        }
        let label = tool_label(&request.tool_name, &request.input);
        match self.front_end.ask_approval(label).await {
            Approval::AllowOnce => {
                self.mark_approved(&request);
                PermissionDecision::allow(&request)
            }
            Approval::AllowAlways => {
                self.state.allow_for_session(&request.tool_name);
                self.mark_approved(&request);
                PermissionDecision::allow(&request)
            }
            refused => {
                self.mark_denied(&request);
                PermissionDecision::deny(
                    refused
                        .unanswered_reason()
                        .unwrap_or_else(|| self.front_end.denial_reason()),
                )
            }
        }
    }

    /// The owner allowed it through the question that shows its label (STR-7).
    fn mark_approved(&self, request: &PermissionRequest) {
        if let Some(id) = &request.tool_use_id {
            self.turn.emit(TurnEvent::ToolApproved { id: id.clone() });
        }
    }

    fn mark_denied(&self, request: &PermissionRequest) {
        if let Some(id) = &request.tool_use_id {
            self.turn.emit(TurnEvent::ToolDenied { id: id.clone() });
        }
    }
}

impl PermissionHandler for Arc<PermissionPolicy> {
    fn decide(&self, request: PermissionRequest) -> BoxFuture<'static, PermissionDecision> {
        let policy = Arc::clone(self);
        Box::pin(async move { policy.decide_now(request).await })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn writes_into_state_are_refused_whatever_the_path_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        let inside = dir.path().join("state/sessions.json");
        for path in [
            inside.display().to_string(),
            "state/config.json".into(),
            "./state/../state/x".into(),
            "State/config.json".into(),
            "./STATE/x".into(),
        ] {
            let refusal = state_write_refusal(&data_dir, "Write", &json!({"file_path": path}));
            assert_eq!(
                refusal.as_deref(),
                Some("Write to state/ is blocked — system files are write-protected")
            );
        }
        assert!(state_write_refusal(&data_dir, "Edit", &json!({"file_path": "USER.md"})).is_none());
        assert!(state_write_refusal(&data_dir, "Read", &json!({"file_path": "state/x"})).is_none());
    }
}
