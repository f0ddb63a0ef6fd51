//! In `dontAsk` mode (and in every background run), refuses file writes that no allowed
//! `Write(...)`/`Edit(...)` rule covers. The CLI can widen its own rules without asking our
//! permission callback — a skill's `allowed-tools` does, while the skill is active — so the
//! allowed set is enforced here as well, as the Bash guard does for commands (PRM-2, PRM-10).

use std::sync::Arc;

use serde_json::Value;

use super::{
    live_rules::LiveRules,
    policy::{PermissionState, dont_ask_refusal, write_target},
    rule_match::write_covered,
};
use crate::front_end::{CurrentTurn, TurnEvent};
use crate::{
    claude::{BoxFuture, HookCallback, HookOutput},
    state::paths::DataDir,
};

/// The write-scope guard of one client.
pub struct WriteScopeGuard {
    /// The data dir (relative targets resolve against it).
    pub data_dir: DataDir,
    /// The shared permission state.
    pub permissions: Arc<PermissionState>,
    /// The client's `--allowedTools`.
    pub rules: Vec<String>,
    /// Rules that apply without a restart (PRM-11, issue 23 §4).
    pub live_rules: Option<Arc<LiveRules>>,
    /// The turn in progress, for struck-through labels.
    pub turn: CurrentTurn,
}

impl HookCallback for WriteScopeGuard {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let tool = input
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let tool_input = input.get("tool_input").unwrap_or(&Value::Null);
        let refused = match write_target(tool, tool_input) {
            // Writes into state/ get the state guard's own refusal (HKS-3).
            Some(target)
                if self
                    .data_dir
                    .is_inside_state_dir(&self.data_dir.root().join(&target)) =>
            {
                false
            }
            Some(target)
                if self.permissions.dont_ask() && !self.permissions.is_session_allowed(tool) =>
            {
                let live = self
                    .live_rules
                    .as_ref()
                    .map(|rules| rules.current())
                    .unwrap_or_default();
                !write_covered(&self.rules, &target, &self.data_dir)
                    && !write_covered(&live, &target, &self.data_dir)
            }
            _ => false,
        };
        let output = if refused {
            if let Some(id) = input.get("tool_use_id").and_then(Value::as_str) {
                self.turn.emit(TurnEvent::ToolDenied { id: id.to_owned() });
            }
            HookOutput::deny_tool(dont_ask_refusal(tool))
        } else {
            HookOutput::default()
        };
        Box::pin(std::future::ready(output))
    }
}
