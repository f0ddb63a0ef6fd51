//! The main session's `--allowedTools` (AGT-5) and the start-up check of every declared tool
//! set (BOOT-10): the main rules, `tool-policy.yaml`, and the patterns each routine, reminder,
//! skill and subagent file declares, of which only those the owner trusts or approved are
//! merged (a bundled subagent's own tools count as trusted).

use crate::services::Services;
use crate::{
    domain::job_options::job_version,
    mcp::tools::IMPLEMENTED_TOOLS,
    scheduling::files::{load_reminders, load_routines},
    skills::list_skills,
    subagents::{agents_dir, load_subagents, split_by_template},
    tool_policy::{
        Approval, Source, ToolPolicyFile, check_all, grant, log_findings, main_superset,
    },
};

/// The main session's allowed tools, built afresh (each new CLI process gets the current set).
pub fn main_allowed_tools(services: &Services) -> Vec<String> {
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
pub fn check_declared_tools(services: &Services) {
    let policy = services.tool_policy.current();
    let granted = granted_patterns(services, &policy, true);
    tracing::info!(granted = granted.len(), "declared tool patterns checked");
}

/// A declared tool list: its source, the patterns, and the job version approvals must match
/// (`None` for skills and subagents).
type Declared = (Source, Vec<String>, Option<String>);

/// Every declared tool list in the data dir, with its source.
fn declared_lists(services: &Services, log: bool) -> Vec<Declared> {
    let data_dir = &services.data_dir;
    let (routines, _) = load_routines(data_dir);
    let (reminders, _) = load_reminders(data_dir, services.config.timezone);
    let (subagents, broken) = load_subagents(&agents_dir(data_dir.root()));
    if log {
        for error in broken {
            tracing::warn!(%error, "subagent spec skipped");
        }
    }
    let mut lists: Vec<Declared> = Vec::new();
    lists.extend(routines.into_iter().filter_map(|file| {
        let version = job_version(&file.item.message, &file.item.options);
        Some((
            Source::Routine(file.item.id),
            file.item.options.tools.allowed()?.to_vec(),
            Some(version),
        ))
    }));
    lists.extend(reminders.into_iter().filter_map(|file| {
        let version = job_version(&file.item.message, &file.item.options);
        Some((
            Source::Reminder(file.item.id),
            file.item.options.tools.allowed()?.to_vec(),
            Some(version),
        ))
    }));
    lists.extend(
        list_skills(&data_dir.approved_skills_dir())
            .into_iter()
            .map(|skill| (Source::Skill(skill.name), skill.allowed_tools, None)),
    );
    lists.extend(
        subagents
            .into_iter()
            .map(|spec| (Source::Subagent(spec.name), spec.tools, None)),
    );
    lists
}

/// The declared patterns of every source that are usable and granted for it.
fn granted_patterns(services: &Services, policy: &ToolPolicyFile, log: bool) -> Vec<String> {
    let mut granted = Vec::new();
    let approvals = services.tool_approvals.snapshot();
    for (source, tools, version) in declared_lists(services, log) {
        let (shipped, tools) = match &source {
            Source::Subagent(name) => split_by_template(name, tools),
            _ => (Vec::new(), tools),
        };
        granted.extend(check_all(&shipped).usable);
        let checked = check_all(&tools);
        if log {
            log_findings(&source, &checked);
        }
        let decisions = approvals
            .get(&source.to_string())
            .map(|d| d.at(version.as_deref()));
        let approval = |p: &str| {
            decisions
                .as_ref()
                .map_or(Approval::Undecided, |d| d.approval(p))
        };
        granted.extend(grant(&checked.usable, policy, approval).granted);
    }
    granted
}
