//! The owner's click on a content approval embed (issue 23 §2): the bytes the embed showed
//! are approved or denied, the buttons removed. The CLI loads approved content from the next
//! session on.

use serenity::{
    all::ComponentInteraction,
    builder::{CreateInteractionResponse, CreateInteractionResponseMessage},
};

use super::Approvals;
use super::tool::once_posted;
use crate::discord::rate_limit::with_rate_limit_retries;

impl Approvals {
    /// Answers a content approval button. Only the message the bot posted for the request
    /// counts, so an agent-made embed carrying the same button id approves nothing.
    pub(crate) async fn content_click(
        &self,
        component: &ComponentInteraction,
        request_id: &str,
        approve: bool,
    ) -> Result<(), serenity::Error> {
        let approvals = &self.reach.services.content_approvals;
        let message = component.message.id.get();
        let outcome = once_posted(|| approvals.decide(request_id, approve, message)).await;
        let Some(request) = self.decided(component, request_id, outcome).await? else {
            return Ok(());
        };
        let verdict = if approve {
            "approved: loads from the next session (`/clear` or a restart)"
        } else {
            "denied: not loaded, and not asked about again until it changes"
        };
        tracing::info!(
            key = request.key,
            hash = request.hash,
            approve,
            "content approval answered"
        );
        let update = CreateInteractionResponseMessage::new()
            .content(format!("`{}` ({}) {verdict}", request.file, request.key))
            .components(Vec::new());
        let response = CreateInteractionResponse::UpdateMessage(update);
        with_rate_limit_retries(|| component.create_response(&self.reach.http, response.clone()))
            .await
    }
}
