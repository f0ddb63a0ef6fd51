//! Declared tools on the command line: checked before a job file is written (PRM-8), and
//! approved when the owner typed the command in their own shell. The same command run by the
//! agent through Bash approves nothing: the bot marks the environment of its CLI children, and
//! the agent's permitted command patterns must start with the command itself, so it can't
//! clear the mark.

use crate::{
    state::{paths::DataDir, tool_approvals::ToolApprovals},
    tool_policy::{Source, ToolPolicyFile, check_all, grant},
};

/// Who typed the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invoker {
    /// The owner, in their own shell: declared tools are approved.
    Owner,
    /// The agent, through Bash: new tools wait for the owner's approval in Discord.
    Agent,
}

impl Invoker {
    /// Reads the mark from this process's environment.
    pub fn from_env() -> Self {
        Self::from_mark(crate::config::environment::is_agent_child())
    }

    /// The invoker given whether the mark is present.
    pub fn from_mark(marked: bool) -> Self {
        if marked { Self::Agent } else { Self::Owner }
    }
}

/// The lines to print when `tools` can't be used: one per refused pattern.
pub fn refused_patterns(tools: &[String]) -> Option<String> {
    let checked = check_all(tools);
    if checked.errors.is_empty() {
        return None;
    }
    let lines: Vec<String> = checked
        .errors
        .iter()
        .map(|finding| format!("error: refused tool pattern {finding}"))
        .collect();
    Some(lines.join("\n"))
}

/// Records the owner's approval of `tools` for `source`, or — when the agent ran the command —
/// says which tools wait for the owner. Returns a line to print, if any.
pub fn record_declared(
    data_dir: &DataDir,
    (source, version): (&Source, Option<&str>),
    tools: &[String],
    invoker: Invoker,
) -> Option<String> {
    let usable = check_all(tools).usable;
    let policy = ToolPolicyFile::load(&data_dir.tool_policy_file()).unwrap_or_default();
    let approvals = ToolApprovals::new(data_dir.tool_approvals_file());
    let decisions = approvals.decisions(&source.to_string()).at(version);
    let new = grant(&usable, &policy, |p| decisions.approval(p)).held;
    if new.is_empty() {
        return None;
    }
    match invoker {
        Invoker::Owner => match approvals.approve(&source.to_string(), &new, version) {
            Ok(()) => Some(format!("approved for {source}: {}", new.join(", "))),
            Err(error) => Some(format!(
                "warning: could not record your approval ({error}); the bot will ask in Discord"
            )),
        },
        Invoker::Agent => Some(format!(
            "note: {} wait for the owner's approval in Discord; until then the job runs \
             without them",
            new.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_approves_and_the_agent_only_asks() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        data_dir.ensure_layout().unwrap();
        let source = Source::Reminder("r1".into());
        let tools = vec!["Bash(curl *)".to_owned(), "Read(./**.md)".to_owned()];
        let note = record_declared(&data_dir, (&source, None), &tools, Invoker::Agent).unwrap();
        assert!(note.contains("wait for the owner's approval"), "{note}");
        let approvals = ToolApprovals::new(data_dir.tool_approvals_file());
        assert_eq!(
            approvals.decisions("reminder:r1").approval("Bash(curl *)"),
            crate::tool_policy::Approval::Undecided
        );
        let note = record_declared(&data_dir, (&source, None), &tools, Invoker::Owner).unwrap();
        assert_eq!(note, "approved for reminder:r1: Bash(curl *)");
        assert_eq!(
            approvals.decisions("reminder:r1").approval("Bash(curl *)"),
            crate::tool_policy::Approval::Approved
        );
        assert_eq!(
            record_declared(&data_dir, (&source, None), &tools, Invoker::Owner),
            None
        );
    }

    #[test]
    fn refused_patterns_are_listed() {
        let text = refused_patterns(&["Bash(*)".into(), "Bash(ls; rm x)".into()]).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(refused_patterns(&["Bash(git status)".into()]).is_none());
        assert_eq!(Invoker::from_mark(true), Invoker::Agent);
    }
}
