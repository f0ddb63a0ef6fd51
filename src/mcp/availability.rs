//! Which `discord` tools each kind of session may use (the MCP availability matrix).
//!
//! The server implements all 13 tools (MCP-16), but each client lists only those its session
//! may ever use ([`listed_tools`], issue 17): the CLI fetches a server's tool list once per
//! process, so the list is fixed at the start — an interactive fork's client also lists
//! main's tools, because a saved fork's client becomes the main session's (SES-10), and a
//! background run lists its gated tools only when its options open the gate (BGF-7). Whether a
//! call is allowed is still decided when it is made: tools outside their current scope answer
//! with the spec's `Error:` text, and in background runs the permission policy gates the
//! Discord-visible ones.

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

/// A background run's gates as its options set them (BGF-7): they never open during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunGates {
    /// `allow-ping`: `ping_user`, `discord_embed`, `send_file`.
    pub allow_ping: bool,
    /// `update-main-session` is not `blocked`: `report_updates`, `follow_up_chain`.
    pub may_report: bool,
    /// The run executes a chain reminder: `follow_up_chain` has a chain to extend (MCP-13).
    pub in_chain: bool,
}

/// The tools one client lists (issue 17): what `scope` offers, for an interactive fork also
/// what main offers (the client may be promoted), and for a background run only what its
/// gates let through.
pub fn listed_tools(scope: ToolScope, gates: Option<RunGates>) -> Vec<&'static str> {
    ALL_TOOLS
        .into_iter()
        .filter(|tool| {
            is_offered(tool, scope)
                || (scope == ToolScope::InteractiveFork && is_offered(tool, ToolScope::Main))
        })
        .filter(|tool| match (gates, *tool) {
            (Some(gates), "ping_user" | "discord_embed" | "send_file") => gates.allow_ping,
            (Some(gates), "report_updates") => gates.may_report,
            (Some(gates), "follow_up_chain") => gates.may_report && gates.in_chain,
            _ => true,
        })
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

    #[test]
    fn each_client_lists_what_its_session_may_ever_use() {
        let main = listed_tools(ToolScope::Main, None);
        assert_eq!(main.len(), 8);
        assert!(!main.contains(&"ping_user") && !main.contains(&"report_updates"));
        let fork = listed_tools(ToolScope::InteractiveFork, None);
        assert_eq!(
            fork.len(),
            11,
            "a fork also lists main's tools (SES-10): {fork:?}"
        );
        assert!(fork.contains(&"enter_fork") && fork.contains(&"exit_fork"));
        assert!(!fork.contains(&"ping_user") && !fork.contains(&"compact_session"));
        let closed = RunGates {
            allow_ping: false,
            may_report: false,
            in_chain: true,
        };
        assert_eq!(
            listed_tools(ToolScope::Background, Some(closed)),
            ["add_reminder", "list_reminders", "cancel_reminder"]
        );
        let open = RunGates {
            allow_ping: true,
            may_report: true,
            in_chain: false,
        };
        let background = listed_tools(ToolScope::Background, Some(open));
        assert_eq!(background.len(), 7, "{background:?}");
        assert!(!background.contains(&"follow_up_chain"));
        let chain = listed_tools(
            ToolScope::Background,
            Some(RunGates {
                in_chain: true,
                ..open
            }),
        );
        assert!(chain.contains(&"follow_up_chain"));
        let persistent = listed_tools(ToolScope::PersistentRoutine, Some(open));
        assert!(persistent.contains(&"compact_session") && persistent.contains(&"ping_user"));
        assert!(!persistent.contains(&"follow_up_chain"));
    }
}
