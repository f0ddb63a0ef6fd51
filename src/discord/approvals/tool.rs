//! The owner's click on a tool approval embed's Approve / Deny button: recorded for the job's
//! source, the buttons removed, and the main session told.

use serenity::{
    all::ComponentInteraction,
    builder::{CreateInteractionResponse, CreateInteractionResponseMessage},
};

use super::Approvals;
use crate::discord::{buttons::UNKNOWN_ACTION, rate_limit::with_rate_limit_retries};
use crate::state::tool_approvals::DecideOutcome;

impl Approvals {
    /// Answers a tool approval button. Only the message the bot posted for the request counts,
    /// so an agent-made embed carrying the same button id can't approve anything.
    pub(crate) async fn tool_click(
        &self,
        component: &ComponentInteraction,
        request_id: &str,
        approve: bool,
    ) -> Result<(), serenity::Error> {
        let approvals = &self.reach.services.tool_approvals;
        let message = component.message.id.get();
        let outcome = once_posted(|| approvals.decide(request_id, approve, message)).await;
        let Some(request) = self.decided(component, request_id, outcome).await? else {
            return Ok(());
        };
        let verdict = if approve { "approved" } else { "denied" };
        let patterns: Vec<String> = request.patterns.iter().map(|p| format!("`{p}`")).collect();
        tracing::info!(source = request.source, ?request.patterns, verdict, "tool approval answered");
        let note = format!(
            "Owner {verdict} tools for {} ({}): {}.",
            request.source,
            request.file,
            patterns.join(", ")
        );
        if let Err(error) = self.reach.services.pending.append(&note) {
            tracing::warn!(%error, "could not queue a pending update");
        }
        let update = CreateInteractionResponseMessage::new()
            .content(format!("{verdict}: {}", patterns.join(", ")))
            .components(Vec::new());
        let response = CreateInteractionResponse::UpdateMessage(update);
        with_rate_limit_retries(|| component.create_response(&self.reach.http, response.clone()))
            .await
    }
}

impl Approvals {
    /// The request an approval click decided, or `None` once the owner was told why nothing
    /// was (already answered, a click on a message the bot didn't post for it, a failed save).
    pub(crate) async fn decided<R>(
        &self,
        component: &ComponentInteraction,
        request_id: &str,
        outcome: Result<DecideOutcome<R>, crate::state::StateError>,
    ) -> Result<Option<R>, serenity::Error> {
        let answer = match outcome {
            Ok(DecideOutcome::Decided(request)) => return Ok(Some(request)),
            Ok(DecideOutcome::NotPending) => "this request was already answered or replaced.",
            Ok(DecideOutcome::NotPostedYet) => "one moment — I'm still posting that; click again.",
            Ok(DecideOutcome::WrongMessage) => {
                tracing::warn!(
                    request_id,
                    "an approval click on a message the bot did not post for it"
                );
                UNKNOWN_ACTION
            }
            Err(error) => {
                tracing::warn!(%error, "could not record an approval");
                "couldn't save your answer — try again."
            }
        };
        self.reach.ephemeral(component, answer).await?;
        Ok(None)
    }
}

/// How long a click waits for the bot's own post of its request to come back (a few Discord
/// round trips).
const POST_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Decides with `decide`, waiting while the request's message is still being posted: a click
/// can come before the bot learnt the id of the message it posted.
pub(crate) async fn once_posted<R>(
    decide: impl Fn() -> Result<DecideOutcome<R>, crate::state::StateError>,
) -> Result<DecideOutcome<R>, crate::state::StateError> {
    // A few-second UI race window, on the system clock (issue 40 §2).
    let until = tokio::time::Instant::now() + POST_WAIT;
    loop {
        match decide() {
            Ok(DecideOutcome::NotPostedYet) if tokio::time::Instant::now() < until => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}
