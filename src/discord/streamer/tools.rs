//! Tool labels waiting to be rendered inline (STR-7): a label is shown once, when the next
//! content starts (or at the end), so a denial or error reported after the `ToolUse` event
//! still reaches it.

use std::collections::{HashMap, HashSet};

use super::render::{ToolOutcome, tool_line};

/// One tool call whose label is not rendered yet.
#[derive(Debug)]
struct PendingTool {
    id: String,
    label: String,
    outcome: ToolOutcome,
}

/// The tool calls of a turn, from `ToolUse` to their inline label.
#[derive(Debug, Default)]
pub(super) struct ToolLabels {
    /// Calls not rendered yet, in call order.
    pending: Vec<PendingTool>,
    /// Outcomes reported before their `ToolUse` event (the events come from different tasks).
    early: HashMap<String, ToolOutcome>,
    /// Every call id seen, so a label is never rendered twice.
    seen: HashSet<String>,
}

impl ToolLabels {
    /// Records a call; `false` when this id was seen before (nothing to do).
    pub(super) fn begin(&mut self, id: String, label: String) -> bool {
        if !self.seen.insert(id.clone()) {
            return false;
        }
        let outcome = self.early.remove(&id).unwrap_or(ToolOutcome::Ran);
        self.pending.push(PendingTool { id, label, outcome });
        true
    }

    /// Notes how call `id` ended. Reports about labels already rendered are dropped.
    pub(super) fn mark(&mut self, id: &str, outcome: ToolOutcome) {
        if let Some(tool) = self.pending.iter_mut().find(|tool| tool.id == id) {
            tool.outcome = tool.outcome.merge(outcome);
        } else if self.seen.contains(id) {
            tracing::debug!(id, ?outcome, "tool outcome after its label was shown");
        } else {
            let entry = self.early.entry(id.to_owned()).or_insert(ToolOutcome::Ran);
            *entry = entry.merge(outcome);
        }
    }

    /// The inline lines of every pending call, in order; they count as rendered afterwards.
    pub(super) fn take_rendered(&mut self) -> String {
        self.pending
            .drain(..)
            .map(|tool| tool_line(&tool.label, tool.outcome))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_in_order_with_outcomes_once() {
        let mut tools = ToolLabels::default();
        assert!(tools.begin("1".into(), "Read(a/b.md)".into()));
        assert!(tools.begin("2".into(), "Bash(rm x)".into()));
        assert!(tools.begin("3".into(), "Grep(x)".into()));
        tools.mark("2", ToolOutcome::Denied);
        tools.mark("2", ToolOutcome::Failed);
        tools.mark("3", ToolOutcome::Failed);
        assert_eq!(
            tools.take_rendered(),
            "\n-# *Read(a/b.md)*\n\
             \n-# *~~Bash(rm x)~~ — denied (use /permissions default to approve)*\n\
             \n-# *~~Grep(x)~~ — error*\n"
        );
        assert_eq!(tools.take_rendered(), "");
        assert!(!tools.begin("1".into(), "Read(a/b.md)".into()));
        tools.mark("1", ToolOutcome::Failed);
        assert_eq!(tools.take_rendered(), "");
    }

    /// STR-7: a call the owner allowed through its question isn't labelled again, unless it
    /// then failed.
    #[test]
    fn approved_calls_are_not_labelled_again() {
        let mut tools = ToolLabels::default();
        tools.mark("1", ToolOutcome::Approved);
        assert!(tools.begin("1".into(), "Bash(touch a)".into()));
        assert!(tools.begin("2".into(), "Bash(touch b)".into()));
        tools.mark("2", ToolOutcome::Approved);
        tools.mark("2", ToolOutcome::Failed);
        assert_eq!(tools.take_rendered(), "\n-# *~~Bash(touch b)~~ — error*\n");
    }

    #[test]
    fn early_outcomes_apply_when_the_call_arrives() {
        let mut tools = ToolLabels::default();
        tools.mark("9", ToolOutcome::Denied);
        assert!(tools.begin("9".into(), "Write(x.md)".into()));
        assert_eq!(
            tools.take_rendered(),
            "\n-# *~~Write(x.md)~~ — denied (use /permissions default to approve)*\n"
        );
    }
}
