//! How a background run ended badly, and the one line the owner hears of it (BGF-5, USE-7).

use std::time::Duration;

use crate::agent::AgentError;

/// How a background run ended badly.
#[derive(Debug, thiserror::Error)]
pub enum BgError {
    /// It ran past `bg_fork_timeout` and was stopped.
    #[error("timed out after {}", humantime::format_duration(*limit))]
    TimedOut {
        /// The limit it reached.
        limit: Duration,
    },
    /// It kept calling the model past `bg_max_turns` and the CLI stopped it.
    #[error("stopped at its limit of {limit} model calls")]
    TurnLimit {
        /// The limit it reached.
        limit: u64,
    },
    /// The CLI failed or reported an error.
    #[error(transparent)]
    Failed(AgentError),
    /// The job was not started: it declares a refused tool pattern (BGF-23).
    #[error("not run: {0}")]
    Refused(String),
}

impl BgError {
    /// The error of a run that failed with `error` under a limit of `max_turns` model calls.
    pub(super) fn from_agent(error: AgentError, max_turns: u64) -> Self {
        match error {
            AgentError::TurnLimit => Self::TurnLimit { limit: max_turns },
            other => Self::Failed(other),
        }
    }

    /// What the owner is told about the run named `name` (once, when it ends).
    pub fn notice(&self, name: &str) -> String {
        match self {
            Self::TimedOut { limit } => format!(
                "{name} was stopped after {}, its time limit (`/config bg_fork_timeout` \
                 changes it).",
                humantime::format_duration(*limit)
            ),
            Self::TurnLimit { limit } => format!(
                "{name} was stopped after {limit} model calls, its limit (`/config \
                 bg_max_turns` changes it)."
            ),
            // A limit of its container stopped it (issue 39 §1): say which.
            Self::Failed(AgentError::Claude(crate::claude::ClaudeError::ProcessExited {
                limit: Some(limit),
                ..
            })) => format!("{name} was stopped: {limit}."),
            Self::Failed(_) | Self::Refused(_) => format!("{name} couldn't complete."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_hears_when_a_limit_of_its_container_stopped_a_run() {
        let stopped = BgError::from_agent(
            AgentError::Claude(crate::claude::ClaudeError::ProcessExited {
                code: None,
                limit: Some("the session went over its memory limit (512 MiB)".to_owned()),
                stderr_tail: String::new(),
            }),
            12,
        );
        assert_eq!(
            stopped.notice("Routine `a1`"),
            "Routine `a1` was stopped: the session went over its memory limit (512 MiB)."
        );
    }

    #[test]
    fn the_owner_hears_which_limit_stopped_a_run() {
        let timed_out = BgError::TimedOut {
            limit: Duration::from_secs(45),
        };
        assert_eq!(
            timed_out.notice("Routine `a1`"),
            "Routine `a1` was stopped after 45s, its time limit (`/config bg_fork_timeout` \
             changes it)."
        );
        let capped = BgError::from_agent(AgentError::TurnLimit, 12);
        assert!(
            capped
                .notice("Webhook `ci`")
                .contains("after 12 model calls")
        );
        let failed = BgError::from_agent(AgentError::RunFailed("boom".into()), 12);
        assert_eq!(failed.notice("x"), "x couldn't complete.");
    }
}
