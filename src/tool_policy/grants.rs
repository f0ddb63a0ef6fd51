//! Which declared patterns a job gets now, and which wait for the owner's one-time approval.
//!
//! Routine, reminder, skill and subagent files are text the agent itself can write, so a
//! pattern they declare is granted only when it is already in a set the owner trusts (the
//! default background set, the main session's rules, `tool-policy.yaml`) or the owner approved
//! it for that source. Everything else is held back: the job runs with the safe set and the
//! owner is asked once (an approval covers the source and the exact pattern).

use super::{DEFAULT_BG_TOOLS, MAIN_TOOL_RULES, ToolPolicyFile};

/// The owner's word on one pattern for one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Approved: granted from now on.
    Approved,
    /// Denied: held back, not asked again.
    Denied,
    /// Never decided: held back until the owner answers.
    Undecided,
}

/// The split of one source's usable patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Handed to the CLI.
    pub granted: Vec<String>,
    /// Withheld: denied or waiting for the owner.
    pub held: Vec<String>,
    /// The held patterns the owner has not decided on yet (to ask about).
    pub undecided: Vec<String>,
}

/// Whether `pattern` is in a set the owner already trusts.
pub fn is_trusted(pattern: &str, policy: &ToolPolicyFile) -> bool {
    pattern.starts_with("mcp__discord__")
        || DEFAULT_BG_TOOLS.contains(&pattern)
        || MAIN_TOOL_RULES.contains(&pattern)
        || policy.mentions(pattern)
}

/// Splits the `usable` patterns of one source (already checked, see [`super::check_all`]).
pub fn grant(
    usable: &[String],
    policy: &ToolPolicyFile,
    approval: impl Fn(&str) -> Approval,
) -> Grant {
    let mut grant = Grant::default();
    for pattern in usable {
        if is_trusted(pattern, policy) {
            grant.granted.push(pattern.clone());
            continue;
        }
        match approval(pattern) {
            Approval::Approved => grant.granted.push(pattern.clone()),
            Approval::Denied => grant.held.push(pattern.clone()),
            Approval::Undecided => {
                grant.held.push(pattern.clone());
                grant.undecided.push(pattern.clone());
            }
        }
    }
    grant
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn trusted_patterns_pass_and_new_ones_wait_for_the_owner() {
        let policy = ToolPolicyFile {
            bg_additional: strings(&["Bash(ollim-bot cal *)"]),
            ..ToolPolicyFile::default()
        };
        let usable = strings(&[
            "Bash(ollim-bot history *)",
            "mcp__discord__gmail",
            "Bash(ollim-bot cal *)",
            "Bash(curl *)",
            "Bash(git push *)",
            "Bash(echo hi)",
        ]);
        let grant = grant(&usable, &policy, |pattern| match pattern {
            "Bash(curl *)" => Approval::Approved,
            "Bash(git push *)" => Approval::Denied,
            _ => Approval::Undecided,
        });
        assert_eq!(
            grant.granted,
            [
                "Bash(ollim-bot history *)",
                "mcp__discord__gmail",
                "Bash(ollim-bot cal *)",
                "Bash(curl *)"
            ]
        );
        assert_eq!(grant.held, ["Bash(git push *)", "Bash(echo hi)"]);
        assert_eq!(grant.undecided, ["Bash(echo hi)"]);
    }
}
