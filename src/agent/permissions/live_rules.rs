//! Rules that widen the main session's clients after they started, read at every tool call:
//! what `tool-policy.yaml` adds to the main session now (PRM-11), and the declared tools the
//! owner granted the foreground job whose turn is running. A job's tools are allowed for that
//! turn only, never for the main session's other turns (issue 23 §4: approving a tool for a
//! job widens that job only).
//!
//! The permission callback and the `dontAsk` guards consult [`LiveRules::current`]; a client
//! resumed from a background run's session has none (it keeps that run's own set).

use std::sync::Arc;

use parking_lot::Mutex;

use crate::tool_policy::ToolPolicyWatch;

/// The live rules of the main session and its forks.
pub struct LiveRules {
    policy: Arc<ToolPolicyWatch>,
    job: Mutex<Vec<String>>,
}

impl LiveRules {
    /// Live rules over `policy`, with no job turn running.
    pub fn new(policy: Arc<ToolPolicyWatch>) -> Self {
        Self {
            policy,
            job: Mutex::default(),
        }
    }

    /// The rules that apply now: the policy's main-session additions, then the running job's
    /// granted tools.
    pub fn current(&self) -> Vec<String> {
        let mut rules = self.policy.current().main_additional.clone();
        rules.extend(self.job.lock().iter().cloned());
        rules
    }

    /// Grants `patterns` until the returned guard is dropped (the end of the job's turn).
    #[must_use = "the grant ends when the guard is dropped"]
    pub fn grant_job_turn(&self, patterns: Vec<String>) -> JobTurnGrant<'_> {
        *self.job.lock() = patterns;
        JobTurnGrant(self)
    }
}

/// A foreground job's grant; dropping it withdraws the job's tools.
pub struct JobTurnGrant<'a>(&'a LiveRules);

impl Drop for JobTurnGrant<'_> {
    fn drop(&mut self) {
        self.0.job.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_grant_lasts_as_long_as_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let policy = ToolPolicyWatch::new(dir.path().join("tool-policy.yaml"));
        let rules = LiveRules::new(Arc::new(policy));
        assert!(rules.current().is_empty());
        {
            let _grant = rules.grant_job_turn(vec!["Bash(git status)".to_owned()]);
            assert_eq!(rules.current(), ["Bash(git status)"]);
        }
        assert!(rules.current().is_empty(), "the grant ends with the turn");
    }
}
