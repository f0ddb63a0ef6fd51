//! The main session's `--allowedTools` (AGT-5) and the start-up check of every declared tool
//! set (BOOT-10): the main rules, `tool-policy.yaml`, and the patterns each routine and
//! reminder file declares, of which only those the owner trusts or approved are merged.

use super::services::AgentServices;
use crate::{
    mcp::tools::IMPLEMENTED_TOOLS,
    scheduling::files::{load_reminders, load_routines},
    tool_policy::{Source, ToolPolicyFile, check_all, grant, log_findings, main_superset},
};

/// The main session's allowed tools, built afresh (each new CLI process gets the current set).
pub fn main_allowed_tools(services: &AgentServices) -> Vec<String> {
    let policy = services.tool_policy.current();
    let granted = granted_patterns(services, &policy, false);
    main_superset(
        IMPLEMENTED_TOOLS,
        services.config.docs_mcp_url.is_some(),
        &policy,
        &granted,
    )
}

/// Checks every declared tool set in the data dir and logs what is wrong, with its source
/// (BOOT-10, PRM-8).
pub fn check_declared_tools(services: &AgentServices) {
    let policy = services.tool_policy.current();
    let granted = granted_patterns(services, &policy, true);
    tracing::info!(granted = granted.len(), "declared tool patterns checked");
}

/// The declared patterns of every job file that are usable and granted for their source.
fn granted_patterns(services: &AgentServices, policy: &ToolPolicyFile, log: bool) -> Vec<String> {
    let data_dir = &services.data_dir;
    let (routines, _) = load_routines(data_dir);
    let (reminders, _) = load_reminders(data_dir, services.config.timezone);
    let declared = routines
        .iter()
        .map(|file| {
            (
                Source::Routine(file.item.id.clone()),
                &file.item.allowed_tools,
            )
        })
        .chain(reminders.iter().map(|file| {
            (
                Source::Reminder(file.item.id.clone()),
                &file.item.allowed_tools,
            )
        }));
    let mut granted = Vec::new();
    for (source, tools) in declared {
        let Some(tools) = tools else { continue };
        let checked = check_all(tools);
        if log {
            log_findings(&source, &checked);
        }
        let decisions = services.tool_approvals.decisions(&source.to_string());
        granted.extend(grant(&checked.usable, policy, |p| decisions.approval(p)).granted);
    }
    granted
}
