//! What the owner sees of tool calls beyond their labels:
//!
//! - the status line while a subagent works (STR-12): `<agent>(<description>) · <tool>`, from
//!   the subagent's own tool calls, which the CLI streams with the launching call's id as their
//!   `parent_tool_use_id`; the MCP prefix is stripped from the tool's name, and the description
//!   is cut to 40 characters;
//! - failed calls (STR-7), held until the next message shows they weren't an interrupt: the
//!   CLI answers a call cut short with an error result, then a `[Request interrupted by user`
//!   line, and such a call is not shown as an error.

use std::collections::HashMap;

use serde_json::Value;

use crate::claude::{ContentBlock, Message};

/// How the CLI's line after an interrupted call begins.
const INTERRUPTED: &str = "[Request interrupted by user";

/// Failed calls not reported yet.
#[derive(Debug, Default)]
pub(super) struct HeldFailures(Vec<String>);

impl HeldFailures {
    /// Call `id` came back as an error.
    pub(super) fn failed(&mut self, id: &str) {
        self.0.push(id.to_owned());
    }

    /// The failures to report before `next` is handled: none when `next` says they were
    /// interrupted.
    pub(super) fn release(&mut self, next: &Message) -> Vec<String> {
        let held = std::mem::take(&mut self.0);
        let interrupted = matches!(next, Message::User(user) if user.content.iter().any(
            |block| matches!(block, ContentBlock::Text { text } if text.starts_with(INTERRUPTED))
        ));
        if interrupted { Vec::new() } else { held }
    }
}

/// The most characters of a subagent's description shown.
const DESCRIPTION_CHARS: usize = 40;

/// The subagents launched in this turn, by the id of the call that launched each.
#[derive(Debug, Default)]
pub(super) struct SubagentStatus {
    running: HashMap<String, String>,
}

impl SubagentStatus {
    /// A top-level tool call: a subagent launch is remembered by its id.
    pub(super) fn called(&mut self, id: &str, name: &str, input: &Value) {
        if !matches!(name, "Agent" | "Task") {
            return;
        }
        let agent = input["subagent_type"]
            .as_str()
            .filter(|agent| !agent.is_empty())
            .unwrap_or("general-purpose");
        let description = cut(input["description"].as_str().unwrap_or_default().trim());
        self.running
            .insert(id.to_owned(), format!("{agent}({description})"));
    }

    /// The status label for a tool `tool` called inside the subagent launched by `parent`.
    pub(super) fn label(&self, parent: Option<&str>, tool: &str) -> Option<String> {
        let agent = self.running.get(parent?)?;
        let tool = tool.rsplit("__").next().unwrap_or(tool);
        Some(format!("{agent} · {tool}"))
    }
}

/// `text` within [`DESCRIPTION_CHARS`], an ellipsis ending one that was cut.
fn cut(text: &str) -> String {
    if text.chars().count() <= DESCRIPTION_CHARS {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(DESCRIPTION_CHARS - 1).collect();
    kept.push('…');
    kept
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_subagents_tool_reads_with_its_agent_and_description() {
        let mut status = SubagentStatus::default();
        status.called(
            "toolu_1",
            "Agent",
            &json!({"subagent_type": "gmail-reader", "description": "check mail"}),
        );
        status.called("toolu_2", "Read", &json!({"file_path": "x"}));
        assert_eq!(
            status
                .label(Some("toolu_1"), "mcp__discord__gmail")
                .as_deref(),
            Some("gmail-reader(check mail) · gmail")
        );
        assert_eq!(status.label(Some("toolu_2"), "Bash"), None);
        assert_eq!(status.label(Some("toolu_9"), "Bash"), None);
        let long = "a".repeat(60);
        status.called("toolu_3", "Task", &json!({"description": long}));
        let label = status.label(Some("toolu_3"), "Bash").unwrap();
        assert_eq!(
            label,
            format!("general-purpose({}…) · Bash", "a".repeat(39))
        );
    }
}
