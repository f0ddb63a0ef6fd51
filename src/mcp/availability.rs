//! Which `discord` tools each kind of session is offered (the MCP availability matrix).
//!
//! The CLI fetches a server's tool list once per process, so the list is fixed per client;
//! tools that are "gated" in background forks are listed and then allowed or refused at call
//! time by the permission policy and the tools' own checks.

/// The kind of session a CLI client serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolScope {
    /// The owner's main conversation.
    Main,
    /// An interactive fork of the main session.
    InteractiveFork,
    /// A background run (forked or isolated).
    Background,
    /// A background run of a routine with `session: persistent`.
    PersistentRoutine,
}

/// Every tool of the `discord` server (MCP-16).
pub const ALL_TOOLS: [&str; 13] = [
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
];

/// Whether `tool` is offered in `scope` (available or dynamically gated).
pub fn is_offered(tool: &str, scope: ToolScope) -> bool {
    use ToolScope::{Background, InteractiveFork, Main, PersistentRoutine};
    match tool {
        "discord_embed" | "send_file" | "add_reminder" | "list_reminders" | "cancel_reminder" => {
            true
        }
        "ping_user" => matches!(scope, Background | PersistentRoutine),
        "enter_fork" | "update_names" => scope == Main,
        "save_context" | "exit_fork" => scope == InteractiveFork,
        "report_updates" => scope != Main,
        "follow_up_chain" => scope != PersistentRoutine,
        "compact_session" => scope == PersistentRoutine,
        _ => false,
    }
}

/// The `mcp__discord__<tool>` names offered in `scope`, for `--allowedTools`.
pub fn allowed_tool_names(scope: ToolScope, implemented: &[&str]) -> Vec<String> {
    implemented
        .iter()
        .filter(|tool| is_offered(tool, scope))
        .map(|tool| format!("mcp__discord__{tool}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_matches_the_spec() {
        let offered = |scope| ALL_TOOLS.iter().filter(|t| is_offered(t, scope)).count();
        assert_eq!(offered(ToolScope::Main), 8);
        assert_eq!(offered(ToolScope::InteractiveFork), 9);
        assert_eq!(offered(ToolScope::Background), 8);
        assert_eq!(offered(ToolScope::PersistentRoutine), 8);
        assert!(!is_offered("ping_user", ToolScope::Main));
        assert!(is_offered("enter_fork", ToolScope::Main));
        assert!(!is_offered("enter_fork", ToolScope::InteractiveFork));
        assert!(is_offered("compact_session", ToolScope::PersistentRoutine));
        assert!(!is_offered("follow_up_chain", ToolScope::PersistentRoutine));
        assert!(!is_offered("no_such_tool", ToolScope::Main));
    }
}
