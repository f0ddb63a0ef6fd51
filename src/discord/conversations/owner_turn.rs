//! A turn the owner started (issue 41 §2): by a message, a button on an agent's message, a
//! set-up click or command. Applied once for all of them: the reply in progress of the
//! conversation it is addressed to is cut short (MSG-3), the unfinished-work ticket is held
//! while it runs (so a killed process tells the owner what it was doing), the context warning
//! follows a finished turn (STR-11), and a failed one gets the one owner-facing text
//! ([`failure_text`], as poise's one `on_error`) where it was started.

use serenity::model::id::ChannelId;

use super::Conversations;
use crate::discord::rate_limit::with_rate_limit_retries;
use crate::{
    agent::{
        AgentError, TurnReport,
        turn::context_usage::{context_tokens, context_warning},
    },
    claude::ClaudeError,
    state::unfinished::{Work, excerpt},
};

/// Posted when the CLI went away mid-turn (MSG-7).
pub const LOST_CONNECTION: &str = "lost connection — try again.";

impl Conversations {
    /// Runs `turn`, started by the owner in `at` with `said`, as every owner turn runs.
    /// Returns its report when it finished.
    pub(crate) async fn owner_turn(
        &self,
        at: ChannelId,
        said: &str,
        turn: impl Future<Output = Result<TurnReport, AgentError>>,
    ) -> Option<TurnReport> {
        // MSG-3: the reply in progress of the conversation it is addressed to is cut short,
        // and no other (not during compaction).
        self.reach.session.interrupt_in(self.reach.addressed_in(at));
        let ticket = self.reach.services.unfinished.begin(Work::Reply {
            excerpt: excerpt(said),
        });
        let outcome = turn.await;
        ticket.finish();
        match outcome {
            Ok(report) => {
                self.warn_of_context(at, &report).await;
                Some(report)
            }
            Err(error) => {
                tracing::warn!(%error, "the turn failed");
                if matches!(&error, AgentError::Claude(ClaudeError::NotStarting { .. })) {
                    // This reply is how the owner hears the CLI won't start (issue 16).
                    self.reach.services.cli_start.tell_once();
                }
                let text = failure_text(&error);
                if let Err(error) =
                    with_rate_limit_retries(|| at.say(&self.reach.http, &text)).await
                {
                    tracing::warn!(%error, "could not report the failed turn");
                }
                None
            }
        }
    }

    /// The context warning after a turn that filled the context (STR-11), by the model of the
    /// conversation that answered, read from its report: a thread's turn never waits for
    /// main's lock for it.
    async fn warn_of_context(&self, at: ChannelId, report: &TurnReport) {
        let Some(usage) = report
            .result
            .usage
            .as_ref()
            .filter(|_| report.compaction.is_none())
        else {
            return;
        };
        if let Some(warning) = context_warning(context_tokens(usage), report.model.as_deref())
            && let Err(error) = with_rate_limit_retries(|| at.say(&self.reach.http, &warning)).await
        {
            tracing::debug!(%error, "could not post the context warning");
        }
    }
}

/// What the owner reads when a turn they started failed.
pub(crate) fn failure_text(error: &AgentError) -> String {
    match error {
        // A limit of the session's container stopped it (issue 39 §1): say which.
        AgentError::Claude(ClaudeError::ProcessExited {
            limit: Some(limit), ..
        }) => format!("I had to stop: {limit}. Write again to carry on."),
        AgentError::Claude(ClaudeError::ProcessExited { .. } | ClaudeError::Closed) => {
            LOST_CONNECTION.to_owned()
        }
        AgentError::Claude(ClaudeError::NotStarting {
            retry_in_secs,
            last_failure,
        }) => format!(
            "I can't start Claude Code right now ({last_failure}). Write again in \
             {retry_in_secs}s or later and I'll try again; `ollim-bot doctor` checks the \
             install."
        ),
        AgentError::Claude(ClaudeError::Silent { secs }) => format!(
            "Claude stopped answering (nothing for {} min), so I restarted it. Send your \
             message again to pick up where we left off.",
            secs.div_ceil(60)
        ),
        other => format!("something went wrong: {other}"),
    }
}
