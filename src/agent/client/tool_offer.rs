//! What each kind of session is offered (issue 17): the CLI re-sends the definition of every
//! tool it offers on every request, so a session is offered only the tools it may ever use,
//! derived from the same policy that builds its `--allowedTools` — never a second list.
//!
//! - **Main session and interactive forks** in `dontAsk` (PRM-2 step 3): the tool names of
//!   their allowed rules (AGT-5, `tool-policy.yaml` included) and of the tools the owner
//!   allowed for the session (PRM-5). In an asking mode the owner may approve any tool
//!   (PRM-4), so the CLI's whole default set is offered.
//! - **Background runs** (forked, isolated, persistent): the tool names of the run's set
//!   (BGF-6), the Google tools among them included; everything else is refused without asking
//!   (BGF-8).
//! - **Webhook screening** (WHK-12): nothing at all.
//!
//! Subagents called through `Agent` pick their tools from what their session is offered.
//! The `discord` MCP tools follow the availability matrix ([`listed_tools`]).

use super::session_builder::SessionKind;
use crate::agent::permissions::policy::PermissionState;
use crate::{
    mcp::availability::{RunGates, listed_tools},
    scheduling::chain::ChainSlot,
    tool_policy::builtin_tool_names,
};

/// Whether sessions are offered only what they may use (the default). With
/// [`crate::config::environment::OFFER_EVERY_TOOL_ENV`] set, every session is offered every
/// tool as before issue 17 and the preset system prompt keeps its per-machine sections: for
/// measuring what the narrowing saves (`benches/prompt.rs`), not for normal use.
pub fn narrowed() -> bool {
    !crate::config::environment::offers_every_tool()
}

/// The built-in tools a session of `kind` is offered (`--tools`); `None` = the CLI's default
/// set. `allowed` is the session's `--allowedTools`.
pub(crate) fn builtin_offer(kind: &SessionKind, allowed: &[String]) -> Option<Vec<String>> {
    match kind {
        SessionKind::AnswerOnly => Some(Vec::new()),
        _ if !narrowed() => None,
        SessionKind::Interactive {
            permissions,
            offer_rules,
            ..
        } => {
            let mut basis = allowed.to_vec();
            basis.extend(offer_rules.iter().cloned());
            interactive_offer(permissions, &basis)
        }
        SessionKind::Background { .. } => Some(builtin_tool_names(allowed)),
    }
}

/// The built-in tools a main-session or interactive-fork client is offered, given its
/// `--allowedTools` and the permissions now; `None` = the CLI's default set.
pub fn interactive_offer(permissions: &PermissionState, allowed: &[String]) -> Option<Vec<String>> {
    if !narrowed() || !permissions.dont_ask() {
        return None;
    }
    let mut rules = allowed.to_vec();
    rules.extend(permissions.session_allowed());
    Some(builtin_tool_names(&rules))
}

/// Whether a main-session client started with `offered` lacks a built-in tool the session may
/// use now in `dontAsk`: one `tool-policy.yaml` names since the client started (PRM-11, read
/// live) or one the owner allowed for the session (PRM-5). The session then restarts the
/// client before its next turn, resuming the same conversation.
pub fn offer_is_stale(
    offered: Option<&[String]>,
    permissions: &PermissionState,
    live_additional: &[String],
) -> bool {
    let Some(offered) = offered else {
        return false;
    };
    if !narrowed() || !permissions.dont_ask() {
        return false;
    }
    let mut rules = live_additional.to_vec();
    rules.extend(permissions.session_allowed());
    builtin_tool_names(&rules)
        .iter()
        .any(|name| !offered.contains(name))
}

/// The `discord` tools a session of `kind` lists; `None` for the screening session, which
/// has no `discord` server. `chain` is the chain reminder a background run executes and
/// `allowed` its `--allowedTools` (which Google tools it has).
pub(crate) fn discord_offer(
    kind: &SessionKind,
    chain: &ChainSlot,
    allowed: &[String],
) -> Option<Vec<&'static str>> {
    let every = || crate::mcp::availability::ALL_TOOLS.to_vec();
    match kind {
        SessionKind::AnswerOnly => None,
        _ if !narrowed() => Some(every()),
        SessionKind::Interactive { scope, .. } => Some(listed_tools(scope.get(), None)),
        SessionKind::Background { run, scope } => {
            let gates = RunGates {
                allow_ping: run.allow_ping(),
                may_report: run.may_report(),
                in_chain: chain.get().is_some(),
                allowed,
            };
            Some(listed_tools(*scope, Some(gates)))
        }
    }
}

/// Whether a switch between `before` and `after` (`dontAsk` or not) changes what the main
/// session is offered, so its client must be restarted to offer the new set.
pub fn offer_changes(before_dont_ask: bool, after_dont_ask: bool) -> bool {
    narrowed() && before_dont_ask != after_dont_ask
}

#[cfg(test)]
#[path = "tool_offer_tests.rs"]
mod tests;
