//! The fixed tool sets and the merged sets handed to the CLI: the main session's superset
//! (AGT-5) and a background run's set (BGF-6).

use std::collections::HashSet;

use super::{ToolPolicyFile, check_all};

/// The main session's own rules (AGT-5); interactive forks share them.
pub const MAIN_TOOL_RULES: &[&str] = &[
    "Bash(ollim-bot reminder *)",
    "Bash(ollim-bot routine list)",
    "Bash(ollim-bot help)",
    "Bash(ollim-bot history *)",
    "Read(./**.md)",
    "Write(./**.md)",
    "Edit(./**.md)",
    "Glob(./**.md)",
    "Grep(./**.md)",
    "WebFetch",
    "WebSearch",
    "Task",
    "Agent",
    "Skill",
];

/// What every background run may use without asking (BGF-6); Google Tasks through the bot's
/// own `google_tasks` tool (the agent's shells can't reach Google).
pub const DEFAULT_BG_TOOLS: &[&str] = &[
    "Bash(ollim-bot help)",
    "mcp__discord__google_tasks",
    "Read(./**.md)",
    "Glob(./**.md)",
    "Grep(./**.md)",
    "mcp__discord__add_reminder",
    "mcp__discord__list_reminders",
    "mcp__discord__cancel_reminder",
    "mcp__discord__spend_report",
];

/// The one rule a background run always has (BGF-6).
const ALWAYS_BG: &str = "Bash(ollim-bot help)";

const DISCORD_PREFIX: &str = "mcp__discord__";

/// The main session's `--allowedTools` (AGT-5): its own rules, every `discord` tool, the docs
/// server's tools when configured, `tool-policy.yaml`'s `main_session.additional_allowed`, and
/// every pattern a job, skill or subagent was granted; error patterns dropped, deduplicated.
pub fn main_superset(
    discord_tools: &[&str],
    docs_server: bool,
    policy: &ToolPolicyFile,
    granted: &[String],
) -> Vec<String> {
    let mut tools: Vec<String> = MAIN_TOOL_RULES.iter().map(|t| (*t).to_owned()).collect();
    tools.extend(discord_tools.iter().map(|t| format!("{DISCORD_PREFIX}{t}")));
    if docs_server {
        tools.push("mcp__docs__*".to_owned());
    }
    tools.extend(policy.main_additional.iter().cloned());
    tools.extend(granted.iter().cloned());
    finish(&tools)
}

/// What a background run's set is built from.
#[derive(Debug, Clone, Copy)]
pub struct BgToolInputs<'a> {
    /// The owner's `tool-policy.yaml`.
    pub policy: &'a ToolPolicyFile,
    /// Patterns granted to the job, its skills and its subagent (see [`super::grant`]), with
    /// the `discord` tools a run gates itself already left out by the caller.
    pub granted: &'a [String],
    /// Skills the job declares: `Skill(<name> *)` each.
    pub skills: &'a [String],
    /// The bound subagent: `Agent(<name> *)`.
    pub subagent: Option<&'a str>,
    /// A persistent routine: `compact_session`.
    pub persistent: bool,
}

/// A background run's `--allowedTools` (BGF-6): the default set (or the policy's override)
/// plus its additions, the granted patterns, the skill and subagent permissions,
/// `compact_session` for persistent routines, and always `Bash(ollim-bot help)`; error
/// patterns dropped, deduplicated.
pub fn bg_tool_set(inputs: BgToolInputs<'_>) -> Vec<String> {
    let mut tools: Vec<String> = match &inputs.policy.bg_override {
        Some(list) => list.clone(),
        None => DEFAULT_BG_TOOLS
            .iter()
            .map(|t| (*t).to_owned())
            .chain(inputs.policy.bg_additional.iter().cloned())
            .collect(),
    };
    tools.push(ALWAYS_BG.to_owned());
    tools.extend(inputs.granted.iter().cloned());
    tools.extend(
        inputs
            .skills
            .iter()
            // The CLI lists the approved skills as `ollim:<name>` and finds them by either
            // name (issue 23 §2).
            .flat_map(|skill| {
                [
                    format!("Skill({skill} *)"),
                    format!("Skill(ollim:{skill} *)"),
                ]
            }),
    );
    if let Some(subagent) = inputs.subagent {
        tools.push(format!("Agent({subagent} *)"));
    }
    if inputs.persistent {
        tools.push(format!("{DISCORD_PREFIX}compact_session"));
    }
    finish(&tools)
}

/// The CLI built-in tools a set of rules can ever let through, for `--tools` (issue 17): the
/// tool name of every rule (`Bash(ollim-bot reminder *)` → `Bash`), MCP tools left out (they are
/// offered by their servers), in first-seen order without duplicates. A tool no rule names is
/// one the session may never use, so it is not offered.
pub fn builtin_tool_names<S: AsRef<str>>(rules: &[S]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for rule in rules {
        let rule = rule.as_ref().trim();
        let name = rule.split_once('(').map_or(rule, |(name, _)| name).trim();
        if name.is_empty() || name.starts_with("mcp__") || names.iter().any(|n| n == name) {
            continue;
        }
        names.push(name.to_owned());
    }
    names
}

/// Drops error patterns (including every write pattern that could reach `state/`, PRM-10) and
/// duplicates, keeping the first occurrence's order.
fn finish(tools: &[String]) -> Vec<String> {
    let usable = check_all(tools).usable;
    let mut seen = HashSet::new();
    usable
        .into_iter()
        .filter(|tool| seen.insert(tool.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_main_superset_merges_everything_and_never_writes_state() {
        let policy = ToolPolicyFile {
            main_additional: strings(&["Bash(git status)", "Edit(**)"]),
            ..ToolPolicyFile::default()
        };
        let granted = strings(&["Bash(ollim-bot history *)", "Bash(curl *)", "Write(**)"]);
        let tools = main_superset(&["ping_user", "gmail"], true, &policy, &granted);
        for expected in [
            "Write(./**.md)",
            "Bash(ollim-bot history *)",
            "mcp__discord__ping_user",
            "mcp__discord__gmail",
            "mcp__docs__*",
            "Bash(git status)",
            "Bash(curl *)",
        ] {
            assert!(
                tools.contains(&expected.to_owned()),
                "{expected}: {tools:?}"
            );
        }
        assert!(!tools.iter().any(|t| t == "Edit(**)" || t == "Write(**)"));
        assert_eq!(
            tools
                .iter()
                .filter(|t| *t == "Bash(ollim-bot history *)")
                .count(),
            1
        );
        // Google is reached through the bot's tools, never the agent's shell.
        assert!(!tools.iter().any(|t| t.starts_with("Bash(ollim-bot tasks")
            || t.starts_with("Bash(ollim-bot cal")
            || t.starts_with("Bash(ollim-bot gmail")));
        assert!(!main_superset(&[], false, &policy, &[]).contains(&"mcp__docs__*".to_owned()));
    }

    #[test]
    fn background_sets_merge_grants_skills_and_subagents() {
        let policy = ToolPolicyFile::default();
        let granted = strings(&[
            "Bash(ollim-bot history *)",
            "mcp__discord__gmail",
            "Read(./**.md)",
            "Bash(*)",
        ]);
        let tools = bg_tool_set(BgToolInputs {
            policy: &policy,
            granted: &granted,
            skills: &strings(&["digest"]),
            subagent: Some("gmail-reader"),
            persistent: true,
        });
        for expected in [
            "Bash(ollim-bot history *)",
            "mcp__discord__gmail",
            "mcp__discord__google_tasks",
            "Skill(digest *)",
            "Agent(gmail-reader *)",
            "Bash(ollim-bot help)",
            "mcp__discord__compact_session",
            "mcp__discord__add_reminder",
        ] {
            assert!(
                tools.contains(&expected.to_owned()),
                "{expected}: {tools:?}"
            );
        }
        assert!(!tools.iter().any(|t| t == "Bash(*)"));
        assert_eq!(tools.iter().filter(|t| *t == "Read(./**.md)").count(), 1);
    }

    #[test]
    fn builtin_names_come_from_the_rules_without_mcp_tools() {
        let rules = strings(&[
            "Bash(ollim-bot reminder *)",
            "Read(./**.md)",
            "Bash(ollim-bot help)",
            "mcp__discord__add_reminder",
            "mcp__docs__*",
            "WebSearch",
            " Skill(digest *) ",
        ]);
        assert_eq!(
            builtin_tool_names(&rules),
            ["Bash", "Read", "WebSearch", "Skill"]
        );
        assert!(builtin_tool_names::<String>(&[]).is_empty());
        assert_eq!(
            builtin_tool_names(MAIN_TOOL_RULES),
            [
                "Bash",
                "Read",
                "Write",
                "Edit",
                "Glob",
                "Grep",
                "WebFetch",
                "WebSearch",
                "Task",
                "Agent",
                "Skill"
            ]
        );
    }

    #[test]
    fn the_policy_file_adds_to_or_replaces_the_background_defaults() {
        let added = ToolPolicyFile {
            bg_additional: strings(&["mcp__discord__google_calendar"]),
            ..ToolPolicyFile::default()
        };
        let inputs = |policy| BgToolInputs {
            policy,
            granted: &[],
            skills: &[],
            subagent: None,
            persistent: false,
        };
        let tools = bg_tool_set(inputs(&added));
        assert!(tools.contains(&"mcp__discord__google_calendar".to_owned()));
        assert!(tools.contains(&"Read(./**.md)".to_owned()));
        let replaced = ToolPolicyFile {
            bg_override: Some(strings(&["Glob(./**.md)"])),
            ..ToolPolicyFile::default()
        };
        assert_eq!(
            bg_tool_set(inputs(&replaced)),
            ["Glob(./**.md)", "Bash(ollim-bot help)"]
        );
    }
}
