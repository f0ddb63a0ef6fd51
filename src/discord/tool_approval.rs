//! The owner's click on a tool approval embed's Approve / Deny button: recorded for the job's
//! source, the buttons removed, and the main session told.

use serenity::{
    all::ComponentInteraction,
    builder::{CreateInteractionResponse, CreateInteractionResponseMessage},
};

use super::{bot::Bot, rate_limit::with_rate_limit_retries};
use crate::state::tool_approvals::DecideOutcome;

impl Bot {
    /// Answers a tool approval button. Only the message the bot posted for the request counts,
    /// so an agent-made embed carrying the same button id can't approve anything.
    pub(crate) async fn tool_approval_click(
        &self,
        component: &ComponentInteraction,
        request_id: &str,
        approve: bool,
    ) -> Result<(), serenity::Error> {
        let outcome =
            self.services
                .tool_approvals
                .decide(request_id, approve, component.message.id.get());
        let request = match outcome {
            Ok(DecideOutcome::Decided(request)) => request,
            Ok(DecideOutcome::NotPending) => {
                return self
                    .ephemeral(component, "this request was already answered or replaced.")
                    .await;
            }
            Ok(DecideOutcome::WrongMessage) => {
                tracing::warn!(
                    request_id,
                    "a tool approval click on a message the bot did not post for it"
                );
                return self.ephemeral(component, "unknown action").await;
            }
            Err(error) => {
                tracing::warn!(%error, "could not record a tool approval");
                return self
                    .ephemeral(component, "couldn't save your answer — try again.")
                    .await;
            }
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
        if let Err(error) = self.services.pending.append(&note).await {
            tracing::warn!(%error, "could not queue a pending update");
        }
        let update = CreateInteractionResponseMessage::new()
            .content(format!("{verdict}: {}", patterns.join(", ")))
            .components(Vec::new());
        let response = CreateInteractionResponse::UpdateMessage(update);
        with_rate_limit_retries(|| component.create_response(&self.http, response.clone())).await
    }
}
