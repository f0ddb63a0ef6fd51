//! Which `discord` tools each kind of session may use (the MCP availability matrix).
//!
//! The server implements all 13 tools of MCP-16, `spend_report` (USE-8) and the three Google
//! tools ([`GOOGLE_TOOLS`]),
//! but each client lists only those its session may ever use ([`listed_tools`], issue 17): the
//! CLI fetches a server's tool list once per process, so the list is fixed at the start — an
//! interactive fork's client also lists main's tools, because a saved fork's client becomes
//! the main session's (SES-10), a background run lists its gated tools only when its options
//! open the gate (BGF-7), and a Google tool only when the run's tool set names it (BGF-6).
//! Whether a call is allowed is still decided when it is made: tools outside their current
//! scope answer with the spec's `Error:` text, and in background runs the permission policy
//! gates the Discord-visible ones.

use std::sync::atomic::{AtomicU8, Ordering};

/// The kind of session a CLI client serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ToolScope {
    /// The owner's main conversation.
    Main = 0,
    /// An interactive fork of the main session.
    InteractiveFork = 1,
    /// A background run (forked or isolated).
    Background = 2,
    /// A background run of a routine with `session: persistent`.
    PersistentRoutine = 3,
}

impl ToolScope {
    /// Whether this is a background run of any kind.
    pub fn is_background(self) -> bool {
        matches!(self, Self::Background | Self::PersistentRoutine)
    }
}

/// The scope of one CLI client, changeable while it runs: an interactive fork's client becomes
/// the main session's when the fork is saved (SES-10), and its tools must then act as main's.
#[derive(Debug)]
pub struct ScopeCell(AtomicU8);

impl ScopeCell {
    /// A cell holding `scope`.
    pub fn new(scope: ToolScope) -> Self {
        Self(AtomicU8::new(scope as u8))
    }

    /// The current scope.
    pub fn get(&self) -> ToolScope {
        match self.0.load(Ordering::Relaxed) {
            0 => ToolScope::Main,
            1 => ToolScope::InteractiveFork,
            2 => ToolScope::Background,
            _ => ToolScope::PersistentRoutine,
        }
    }

    /// Changes the scope.
    pub fn set(&self, scope: ToolScope) {
        self.0.store(scope as u8, Ordering::Relaxed);
    }
}

/// Every tool of the `discord` server: MCP-16's thirteen, `spend_report`, `recall`, then
/// [`GOOGLE_TOOLS`].
pub const ALL_TOOLS: [&str; 18] = [
    "discord_embed",
    "ping_user",
    "send_file",
    "enter_fork",
    "save_context",
    "report_updates",
    "exit_fork",
    "add_reminder",
    "list_reminders",
    "cancel_reminder",
    "follow_up_chain",
    "update_names",
    "compact_session",
    "spend_report",
    "recall",
    "google_tasks",
    "google_calendar",
    "gmail",
];

/// The tools that act on the owner's Google account (GOO-5…7). The main session and
/// interactive forks are offered all three; a background run only those its tool set
/// (`--allowedTools`) names: `google_tasks` is in the default set, the others come from the
/// job's declared tools (its subagent's included) or `tool-policy.yaml`.
pub const GOOGLE_TOOLS: [&str; 3] = ["google_tasks", "google_calendar", "gmail"];

/// The tools a background run has only when its tool set names them: the Google tools and
/// `recall` (issue 42 §2).
pub const DECLARED_TOOLS: [&str; 4] = ["google_tasks", "google_calendar", "gmail", "recall"];

/// Whether `tool` is offered in `scope` (available or dynamically gated).
pub fn is_offered(tool: &str, scope: ToolScope) -> bool {
    use ToolScope::{Background, InteractiveFork, Main, PersistentRoutine};
    match tool {
        "discord_embed" | "send_file" | "add_reminder" | "list_reminders" | "cancel_reminder"
        | "spend_report" => true,
        "ping_user" => matches!(scope, Background | PersistentRoutine),
        "enter_fork" | "update_names" => scope == Main,
        "save_context" | "exit_fork" => scope == InteractiveFork,
        "report_updates" => scope != Main,
        "follow_up_chain" => scope != PersistentRoutine,
        "compact_session" => scope == PersistentRoutine,
        "google_tasks" | "google_calendar" | "gmail" | "recall" => {
            matches!(scope, Main | InteractiveFork)
        }
        _ => false,
    }
}

/// A background run's gates as its options and tool set make them (BGF-6, BGF-7): they never
/// open during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunGates<'a> {
    /// `allow-ping`: `ping_user`, `discord_embed`, `send_file`.
    pub allow_ping: bool,
    /// `update-main-session` is not `blocked`: `report_updates`, `follow_up_chain`.
    pub may_report: bool,
    /// The run executes a chain reminder: `follow_up_chain` has a chain to extend (MCP-13).
    pub in_chain: bool,
    /// The run's `--allowedTools`: which [`GOOGLE_TOOLS`] it has.
    pub allowed: &'a [String],
}

impl RunGates<'_> {
    /// Whether the run's tool set names `tool` of the `discord` server, alone or with the
    /// whole server (`mcp__discord`, `mcp__discord__*`).
    fn allows(&self, tool: &str) -> bool {
        self.allowed.iter().map(|rule| rule.trim()).any(|rule| {
            matches!(rule, "mcp__discord" | "mcp__discord__*")
                || rule.strip_prefix("mcp__discord__") == Some(tool)
        })
    }
}

/// The tools one client lists (issue 17): what `scope` offers, for an interactive fork also
/// what main offers (the client may be promoted), and for a background run only what its
/// gates let through, plus the Google tools its tool set names.
pub fn listed_tools(scope: ToolScope, gates: Option<RunGates<'_>>) -> Vec<&'static str> {
    ALL_TOOLS
        .into_iter()
        .filter(|tool| {
            let offered = is_offered(tool, scope)
                || (scope == ToolScope::InteractiveFork && is_offered(tool, ToolScope::Main));
            match (gates, *tool) {
                (Some(gates), "ping_user" | "discord_embed" | "send_file") => {
                    offered && gates.allow_ping
                }
                (Some(gates), "report_updates") => offered && gates.may_report,
                (Some(gates), "follow_up_chain") => offered && gates.may_report && gates.in_chain,
                (Some(gates), tool) if DECLARED_TOOLS.contains(&tool) => gates.allows(tool),
                _ => offered,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_matches_the_spec() {
        let offered = |scope| ALL_TOOLS.iter().filter(|t| is_offered(t, scope)).count();
        assert_eq!(offered(ToolScope::Main), 13);
        assert_eq!(offered(ToolScope::InteractiveFork), 14);
        assert_eq!(offered(ToolScope::Background), 9);
        assert_eq!(offered(ToolScope::PersistentRoutine), 9);
        assert!(!is_offered("ping_user", ToolScope::Main));
        assert!(is_offered("enter_fork", ToolScope::Main));
        assert!(!is_offered("enter_fork", ToolScope::InteractiveFork));
        assert!(is_offered("compact_session", ToolScope::PersistentRoutine));
        assert!(!is_offered("follow_up_chain", ToolScope::PersistentRoutine));
        assert!(!is_offered("no_such_tool", ToolScope::Main));
        for tool in DECLARED_TOOLS {
            assert!(
                is_offered(tool, ToolScope::Main) && is_offered(tool, ToolScope::InteractiveFork)
            );
            assert!(
                !is_offered(tool, ToolScope::Background),
                "{tool} needs the run's tool set"
            );
        }
    }

    #[test]
    fn each_client_lists_what_its_session_may_ever_use() {
        let main = listed_tools(ToolScope::Main, None);
        assert_eq!(main.len(), 13);
        assert!(DECLARED_TOOLS.iter().all(|tool| main.contains(tool)));
        assert!(!main.contains(&"ping_user") && !main.contains(&"report_updates"));
        let fork = listed_tools(ToolScope::InteractiveFork, None);
        assert_eq!(
            fork.len(),
            16,
            "a fork also lists main's tools (SES-10): {fork:?}"
        );
        assert!(fork.contains(&"enter_fork") && fork.contains(&"exit_fork"));
        assert!(!fork.contains(&"ping_user") && !fork.contains(&"compact_session"));
        let closed = RunGates {
            allow_ping: false,
            may_report: false,
            in_chain: true,
            allowed: &[],
        };
        assert_eq!(
            listed_tools(ToolScope::Background, Some(closed)),
            [
                "add_reminder",
                "list_reminders",
                "cancel_reminder",
                "spend_report"
            ]
        );
        let open = RunGates {
            allow_ping: true,
            may_report: true,
            in_chain: false,
            allowed: &[],
        };
        let background = listed_tools(ToolScope::Background, Some(open));
        assert_eq!(background.len(), 8, "{background:?}");
        assert!(!background.contains(&"follow_up_chain"));
        let chain = listed_tools(
            ToolScope::Background,
            Some(RunGates {
                in_chain: true,
                ..open
            }),
        );
        assert!(chain.contains(&"follow_up_chain"));
        // A job that declares recall has it (issue 42 §2); one that doesn't, hasn't.
        assert!(!chain.contains(&"recall"));
        let declared = ["mcp__discord__recall".to_owned()];
        let recalling = listed_tools(
            ToolScope::Background,
            Some(RunGates {
                allowed: &declared,
                ..open
            }),
        );
        assert!(recalling.contains(&"recall"), "{recalling:?}");
        let persistent = listed_tools(ToolScope::PersistentRoutine, Some(open));
        assert!(persistent.contains(&"compact_session") && persistent.contains(&"ping_user"));
        assert!(!persistent.contains(&"follow_up_chain"));
    }

    #[test]
    fn a_background_run_lists_the_google_tools_its_set_names() {
        let names = |rules: &[&str]| -> Vec<&'static str> {
            let allowed: Vec<String> = rules.iter().map(|r| (*r).to_owned()).collect();
            let gates = RunGates {
                allow_ping: false,
                may_report: false,
                in_chain: false,
                allowed: &allowed,
            };
            listed_tools(ToolScope::Background, Some(gates))
                .into_iter()
                .filter(|tool| GOOGLE_TOOLS.contains(tool))
                .collect()
        };
        assert!(names(&["Bash(ollim-bot help)", "mcp__discord__add_reminder"]).is_empty());
        assert_eq!(names(&["mcp__discord__google_tasks"]), ["google_tasks"]);
        assert_eq!(
            names(&["mcp__discord__google_tasks", " mcp__discord__gmail "]),
            ["google_tasks", "gmail"]
        );
        assert_eq!(names(&["mcp__discord__*"]), GOOGLE_TOOLS);
        assert!(names(&["mcp__discord__gmail_x", "mcp__docs__*"]).is_empty());
    }
}
