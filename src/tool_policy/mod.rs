//! What the agent may use without asking, in one place (PRM-8…11, AGT-5, BGF-6, BGF-23).
//!
//! Plain domain logic: pattern checks ([`pattern`]), the glob dialect and the `state/` probe
//! ([`glob`]), the fixed tool sets and how declared tools are merged into them ([`sets`]), the
//! owner's one-time approval of new patterns ([`grants`]), the optional `tool-policy.yaml`
//! ([`file`]) and matching Bash commands against `Bash(<pattern>)` rules ([`bash_rules`]). It
//! imports nothing from the session runtime; the callers hand it what they know.
//!
//! Every pattern reaching the CLI has passed [`check_pattern`]; an error-severity pattern is
//! never handed over, and any write pattern that could reach `state/` is such an error.

pub mod bash_rules;
pub mod file;
pub mod glob;
pub mod grants;
pub mod pattern;
pub mod sets;

use std::fmt;

pub use file::{PolicyFileError, ToolPolicyFile, ToolPolicyWatch};
pub use grants::{Approval, Grant, grant};
pub use pattern::{Finding, Severity, ToolPattern, check_pattern, split_tool_list};
pub use sets::{
    BgToolInputs, DEFAULT_BG_TOOLS, MAIN_TOOL_RULES, bg_tool_set, builtin_tool_names, main_superset,
};

/// Where a set of declared tool patterns comes from; shown in logs and used as the key of the
/// owner's approvals (PRM-8).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The main session's own rules.
    Main,
    /// `tool-policy.yaml`.
    PolicyFile,
    /// A routine file.
    Routine(String),
    /// A reminder file.
    Reminder(String),
    /// A skill's `allowed-tools`.
    Skill(String),
    /// A subagent spec's `tools`.
    Subagent(String),
    /// A webhook spec.
    Webhook(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Main => f.write_str("main"),
            Self::PolicyFile => f.write_str("tool-policy.yaml"),
            Self::Routine(id) => write!(f, "routine:{id}"),
            Self::Reminder(id) => write!(f, "reminder:{id}"),
            Self::Skill(name) => write!(f, "skill:{name}"),
            Self::Subagent(name) => write!(f, "subagent:{name}"),
            Self::Webhook(id) => write!(f, "webhook:{id}"),
        }
    }
}

impl Source {
    /// Parses the [`Display`](fmt::Display) form back.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "main" => return Some(Self::Main),
            "tool-policy.yaml" => return Some(Self::PolicyFile),
            _ => {}
        }
        let (kind, name) = text.split_once(':')?;
        let name = name.to_owned();
        Some(match kind {
            "routine" => Self::Routine(name),
            "reminder" => Self::Reminder(name),
            "skill" => Self::Skill(name),
            "subagent" => Self::Subagent(name),
            "webhook" => Self::Webhook(name),
            _ => return None,
        })
    }
}

/// The patterns of one source after checking: the usable ones and what was wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// Patterns without an error (warnings included), trimmed, duplicates dropped.
    pub usable: Vec<String>,
    /// Error-severity findings; their patterns are not in `usable`.
    pub errors: Vec<Finding>,
    /// Warnings; their patterns are in `usable`.
    pub warnings: Vec<Finding>,
}

/// Checks every pattern of a declared list (PRM-8).
pub fn check_all<S: AsRef<str>>(patterns: &[S]) -> Checked {
    let mut checked = Checked::default();
    for pattern in patterns {
        let pattern = pattern.as_ref();
        match check_pattern(pattern) {
            Some(finding) if finding.severity == Severity::Error => checked.errors.push(finding),
            found => {
                checked.warnings.extend(found);
                let pattern = pattern.trim().to_owned();
                if !checked.usable.contains(&pattern) {
                    checked.usable.push(pattern);
                }
            }
        }
    }
    checked
}

/// Logs the findings of one source with the source named (PRM-8, BOOT-10).
pub fn log_findings(source: &Source, checked: &Checked) {
    for finding in &checked.errors {
        tracing::error!(%source, pattern = %finding.pattern, "tool pattern refused: {}", finding.message);
    }
    for finding in &checked.warnings {
        tracing::warn!(%source, pattern = %finding.pattern, "tool pattern: {}", finding.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_print_and_parse_back() {
        for source in [
            Source::Main,
            Source::PolicyFile,
            Source::Routine("a1b2".into()),
            Source::Reminder("x".into()),
            Source::Skill("digest".into()),
            Source::Subagent("gmail-reader".into()),
            Source::Webhook("gh".into()),
        ] {
            assert_eq!(Source::parse(&source.to_string()), Some(source));
        }
        assert_eq!(Source::parse("other:x"), None);
    }

    #[test]
    fn checking_splits_usable_from_refused() {
        let checked = check_all(&["Bash(*)", "Read(*)", " WebSearch ", "WebSearch", ""]);
        assert_eq!(checked.usable, ["Read(*)", "WebSearch"]);
        assert_eq!(checked.errors.len(), 2);
        assert_eq!(checked.warnings.len(), 1);
    }
}
