//! Which `discord` tools each kind of session may use (the MCP availability matrix).
//!
//! Every client lists all the tools (MCP-16): the CLI fetches a server's tool list once per
//! process, and a fork's client can become the main session's. Whether a call is allowed is
//! decided when it is made: tools outside their scope answer with the spec's `Error:` text, and
//! in background runs the permission policy gates the Discord-visible ones (BGF-7).

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
