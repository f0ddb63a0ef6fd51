//! The main session's `--allowedTools` (AGT-5) and the start-up check of every declared tool
//! set (BOOT-10): the main rules, `tool-policy.yaml`, and the patterns each approved skill and
//! subagent declares that the owner trusts or approved (a bundled subagent's own tools count
//! as trusted). What routines and reminders declare is not merged: a foreground job's granted
//! tools are allowed during its own turn only (issue 23 §4, [`crate::agent::permissions::live_rules`]); the
//! client is merely offered their tool names, so such a turn can call them.

use crate::services::Services;
use crate::{
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
        &granted.content,
    )
}

/// The tools granted to routines and reminders, which a main-session client is offered (not
/// allowed) so that a foreground job's turn can use them.
pub fn job_offer_rules(services: &Services) -> Vec<String> {
    let policy = services.tool_policy.current();
    granted_patterns(services, &policy, false).jobs
}

/// Checks every declared tool set in the data dir and logs what is wrong, with its source
/// (BOOT-10, PRM-8).
pub fn check_declared_tools(services: &Services) {
    let policy = services.tool_policy.current();
    let granted = granted_patterns(services, &policy, true);
    tracing::info!(
        content = granted.content.len(),
        jobs = granted.jobs.len(),
        "declared tool patterns checked"
    );
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
        let version = file.item.approval_scope().version().to_owned();
        Some((
            Source::Routine(file.item.id),
            file.item.options.tools.allowed()?.to_vec(),
            Some(version),
        ))
    }));
    lists.extend(reminders.into_iter().filter_map(|file| {
        let version = file.item.approval_scope().version().to_owned();
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

/// Granted declared patterns, by who declared them.
#[derive(Default)]
struct Granted {
    /// Approved skills and subagents: part of the main set.
    content: Vec<String>,
    /// Routines and reminders: their own turns only.
    jobs: Vec<String>,
}

/// The declared patterns of every source that are usable and granted for it.
fn granted_patterns(services: &Services, policy: &ToolPolicyFile, log: bool) -> Granted {
    let mut all = Granted::default();
    let approvals = services.tool_approvals.snapshot();
    for (source, tools, version) in declared_lists(services, log) {
        let granted = match &source {
            Source::Routine(_) | Source::Reminder(_) => &mut all.jobs,
            _ => &mut all.content,
        };
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
    all
}
