use std::sync::Arc;

use super::*;
use crate::{
    agent::permissions::policy::PermissionState,
    domain::fork_control::ForkControl,
    front_end::CurrentTurn,
    mcp::availability::{ScopeCell, ToolScope},
};

fn interactive(dont_ask: bool) -> (Arc<PermissionState>, SessionKind) {
    let permissions = Arc::new(PermissionState::new(dont_ask));
    let kind = SessionKind::Interactive {
        permissions: Arc::clone(&permissions),
        turn: CurrentTurn::default(),
        fork_control: Arc::new(ForkControl::default()),
        fork: None,
        scope: Arc::new(ScopeCell::new(ToolScope::Main)),
        live_rules: None,
        offer_rules: Vec::new(),
    };
    (permissions, kind)
}

fn rules(list: &[&str]) -> Vec<String> {
    list.iter().map(|rule| (*rule).to_owned()).collect()
}

#[test]
fn dont_ask_offers_the_rules_and_the_session_allowances() {
    let (permissions, kind) = interactive(true);
    let allowed = rules(&[
        "Bash(ollim-bot reminder *)",
        "Read(./**.md)",
        "mcp__discord__*",
    ]);
    assert_eq!(
        builtin_offer(&kind, &allowed),
        Some(rules(&["Bash", "Read"]))
    );
    // PRM-5: a tool the owner allowed for the session stays usable in dontAsk.
    permissions.allow_for_session("NotebookEdit");
    assert_eq!(
        builtin_offer(&kind, &allowed),
        Some(rules(&["Bash", "Read", "NotebookEdit"]))
    );
}

#[test]
fn an_asking_mode_offers_the_whole_default_set_and_screening_nothing() {
    let (_, kind) = interactive(false);
    assert_eq!(builtin_offer(&kind, &rules(&["Read(./**.md)"])), None);
    assert_eq!(
        builtin_offer(&SessionKind::AnswerOnly, &rules(&["Read"])),
        Some(Vec::new())
    );
    assert_eq!(
        discord_offer(&SessionKind::AnswerOnly, &ChainSlot::default(), &[]),
        None
    );
    assert!(offer_changes(true, false) && !offer_changes(false, false));
}

#[test]
fn an_offer_is_stale_when_the_live_policy_names_a_tool_it_lacks() {
    let permissions = PermissionState::new(true);
    let offered = rules(&["Bash", "Read"]);
    let stale = |live: &[&str], permissions: &PermissionState| {
        offer_is_stale(Some(&offered), permissions, &rules(live))
    };
    assert!(!stale(&["Bash(git status)"], &permissions));
    assert!(stale(&["TaskList"], &permissions));
    permissions.allow_for_session("WebSearch");
    assert!(stale(&[], &permissions), "PRM-5 allowance not offered yet");
    // The whole default set was offered, or the session asks: nothing to catch up with.
    assert!(!offer_is_stale(None, &permissions, &rules(&["TaskList"])));
    assert!(!stale(&["TaskList"], &PermissionState::new(false)));
}
