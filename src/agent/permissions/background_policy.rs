//! What a background run may do: its tool set (BGF-6), the permission policy that gates the
//! Discord tools and refuses everything else without asking anyone (BGF-7, BGF-8, PRM-2), and
//! the stop hook that enforces the report mode (HKS-1).

use std::sync::Arc;

use serde_json::Value;

use crate::{
    agent::permissions::policy::state_write_refusal,
    claude::{
        BoxFuture, HookCallback, HookEvent, HookOutput, HookRegistration, PermissionDecision,
        PermissionHandler, PermissionRequest,
    },
    domain::job_options::{BgSession, RunOptions},
    mcp::{
        BgRunState, ToolScope,
        availability::{GOOGLE_TOOLS, is_offered},
        tools::IMPLEMENTED_TOOLS,
    },
    state::paths::DataDir,
    tool_policy::{BgToolInputs, ToolPolicyFile, bg_tool_set},
};

/// The `discord` tools that are gated per run rather than pre-allowed (BGF-7).
const GATED_TOOLS: &[&str] = &[
    "ping_user",
    "discord_embed",
    "send_file",
    "report_updates",
    "follow_up_chain",
];

/// The `--allowedTools` of a run (BGF-6, see [`bg_tool_set`]): `granted` are the tools the
/// job, its skills and its subagent declared and were granted at fire time, of the `discord`
/// server only the Google tools (the others the run gates itself, BGF-7); the job's skills
/// and subagent add their permissions, a persistent session `compact_session`. Tools of the
/// `discord` server this build lacks are left out.
pub fn bg_allowed_tools(
    policy: &ToolPolicyFile,
    granted: &[String],
    options: &RunOptions,
    session: BgSession,
) -> Vec<String> {
    let granted: Vec<String> = granted
        .iter()
        .filter(|tool| {
            tool.strip_prefix("mcp__discord__")
                .is_none_or(|name| GOOGLE_TOOLS.contains(&name))
        })
        .cloned()
        .collect();
    let mut tools = bg_tool_set(BgToolInputs {
        policy,
        granted: &granted,
        skills: &options.skills,
        subagent: options.subagent.as_deref(),
        persistent: session == BgSession::Persistent,
    });
    tools.retain(|tool| match tool.strip_prefix("mcp__discord__") {
        Some(name) => IMPLEMENTED_TOOLS.contains(&name),
        None => true,
    });
    tools
}

/// The permission callback of one background run: never asks the owner (BGF-8).
pub struct BgPolicy {
    data_dir: DataDir,
    run: Arc<BgRunState>,
    scope: ToolScope,
}

impl BgPolicy {
    /// A policy for `run`.
    pub fn new(data_dir: DataDir, run: Arc<BgRunState>, scope: ToolScope) -> Self {
        Self {
            data_dir,
            run,
            scope,
        }
    }

    /// Decides one request (PRM-2 steps 1–2).
    pub fn decide_now(&self, request: &PermissionRequest) -> PermissionDecision {
        if let Some(refusal) =
            state_write_refusal(&self.data_dir, &request.tool_name, &request.input)
        {
            return PermissionDecision::deny(refusal);
        }
        let Some(tool) = request.tool_name.strip_prefix("mcp__discord__") else {
            return PermissionDecision::deny(not_available(&request.tool_name));
        };
        match tool {
            "ping_user" | "discord_embed" | "send_file" if !self.run.allow_ping() => {
                PermissionDecision::deny("pings disabled for this job")
            }
            "report_updates" | "follow_up_chain" if !self.run.may_report() => {
                PermissionDecision::deny("reporting blocked for this job")
            }
            _ if GATED_TOOLS.contains(&tool) || is_offered(tool, self.scope) => {
                PermissionDecision::allow(request)
            }
            _ => PermissionDecision::deny(not_available(&request.tool_name)),
        }
    }
}

fn not_available(tool: &str) -> String {
    format!("{tool} is not available in background forks")
}

impl PermissionHandler for BgPolicy {
    fn decide(&self, request: PermissionRequest) -> BoxFuture<'static, PermissionDecision> {
        let decision = self.decide_now(&request);
        Box::pin(std::future::ready(decision))
    }
}

/// The Stop hook of a background run (HKS-1).
pub fn stop_hook(run: Arc<BgRunState>) -> HookRegistration {
    HookRegistration {
        event: HookEvent::Stop,
        matcher: None,
        timeout_secs: 30,
        callback: Arc::new(ReportEnforcer { run }),
    }
}

struct ReportEnforcer {
    run: Arc<BgRunState>,
}

impl HookCallback for ReportEnforcer {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let again = input
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let output = match self.run.stop_refusal() {
            Some(reason) if !again => HookOutput::block(reason),
            _ => HookOutput::default(),
        };
        Box::pin(std::future::ready(output))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{
        domain::{job_options::UpdateMode, prompt_tag::PromptTag},
        scheduling::lineage::RunLineage,
        state::ping_budget::PingBudget,
    };

    fn run(allow_ping: bool, mode: UpdateMode) -> (tempfile::TempDir, BgPolicy) {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        data_dir.ensure_layout().unwrap();
        let budget = PingBudget::new(&data_dir, chrono_tz::UTC);
        let lineage = RunLineage::of_tag(&PromptTag::System);
        let state = Arc::new(BgRunState::new(allow_ping, mode, false, budget, lineage));
        (dir, BgPolicy::new(data_dir, state, ToolScope::Background))
    }

    fn ask(policy: &BgPolicy, tool: &str) -> PermissionDecision {
        policy.decide_now(&PermissionRequest {
            tool_name: tool.to_owned(),
            input: json!({}),
            tool_use_id: None,
            description: None,
        })
    }

    #[test]
    fn discord_tools_are_gated_and_everything_else_refused() {
        let (_dir, quiet) = run(false, UpdateMode::Blocked);
        assert_eq!(
            ask(&quiet, "mcp__discord__ping_user"),
            PermissionDecision::deny("pings disabled for this job")
        );
        assert_eq!(
            ask(&quiet, "mcp__discord__report_updates"),
            PermissionDecision::deny("reporting blocked for this job")
        );
        assert_eq!(
            ask(&quiet, "WebSearch"),
            PermissionDecision::deny("WebSearch is not available in background forks")
        );
        assert_eq!(
            ask(&quiet, "mcp__discord__enter_fork"),
            PermissionDecision::deny(
                "mcp__discord__enter_fork is not available in background forks"
            )
        );
        // A Google tool outside the run's set is never let through by asking (BGF-6).
        assert_eq!(
            ask(&quiet, "mcp__discord__gmail"),
            PermissionDecision::deny("mcp__discord__gmail is not available in background forks")
        );
        let (_dir, open) = run(true, UpdateMode::OnPing);
        assert!(matches!(
            ask(&open, "mcp__discord__ping_user"),
            PermissionDecision::Allow { .. }
        ));
        assert!(matches!(
            ask(&open, "mcp__discord__report_updates"),
            PermissionDecision::Allow { .. }
        ));
    }

    #[test]
    fn the_tool_set_merges_declared_tools_and_drops_gated_discord_ones() {
        let declared = vec![
            "Bash(ollim-bot history *)".into(),
            "mcp__discord__ping_user".into(),
            "mcp__discord__gmail".into(),
            "Read(./**.md)".into(),
        ];
        let options = RunOptions {
            skills: vec!["digest".into()],
            subagent: Some("gmail-reader".into()),
            ..RunOptions::default()
        };
        let tools = bg_allowed_tools(
            &ToolPolicyFile::default(),
            &declared,
            &options,
            BgSession::Forked,
        );
        assert!(tools.contains(&"Bash(ollim-bot history *)".to_owned()));
        assert!(tools.contains(&"mcp__discord__gmail".to_owned()));
        assert!(tools.contains(&"mcp__discord__google_tasks".to_owned()));
        assert!(!tools.contains(&"mcp__discord__google_calendar".to_owned()));
        assert!(tools.contains(&"Skill(digest *)".to_owned()));
        assert!(tools.contains(&"Agent(gmail-reader *)".to_owned()));
        assert!(tools.contains(&"Bash(ollim-bot help)".to_owned()));
        assert!(!tools.iter().any(|t| t == "mcp__discord__ping_user"));
        assert_eq!(tools.iter().filter(|t| *t == "Read(./**.md)").count(), 1);
    }
}
