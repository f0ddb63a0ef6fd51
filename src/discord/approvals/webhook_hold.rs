//! The owner's click on a held webhook request's Run / Drop button (WHK-12, failing closed):
//! handed to the webhook dispatch, the buttons removed, the answer shown.

use serenity::{
    all::ComponentInteraction,
    builder::{CreateInteractionResponse, CreateInteractionResponseMessage},
};

use super::Approvals;
use crate::background::webhook_dispatch::HoldAnswer;
use crate::discord::{buttons::UNKNOWN_ACTION, rate_limit::with_rate_limit_retries};

impl Approvals {
    /// Answers a hold notice button. Only the notice the bot posted for the request counts,
    /// so an agent-made embed carrying the same button id can't dispatch anything.
    pub(crate) async fn webhook_hold_click(
        &self,
        component: &ComponentInteraction,
        hold_id: &str,
        run: bool,
    ) -> Result<(), serenity::Error> {
        let Some(dispatch) = self.webhooks.get() else {
            return self.reach.ephemeral(component, UNKNOWN_ACTION).await;
        };
        match dispatch.answer_hold(hold_id, component.message.id.get(), run) {
            HoldAnswer::Done(text) => {
                let update = CreateInteractionResponseMessage::new()
                    .content(text)
                    .components(Vec::new());
                let response = CreateInteractionResponse::UpdateMessage(update);
                with_rate_limit_retries(|| {
                    component.create_response(&self.reach.http, response.clone())
                })
                .await
            }
            HoldAnswer::Unknown => {
                tracing::warn!(
                    hold_id,
                    "a webhook hold click on a message the bot did not post for it"
                );
                self.reach.ephemeral(component, UNKNOWN_ACTION).await
            }
            HoldAnswer::Gone => {
                self.reach
                    .ephemeral(component, "this request was already answered.")
                    .await
            }
            HoldAnswer::Failed(reason) => {
                self.reach
                    .ephemeral(component, &format!("couldn't run it: {reason}"))
                    .await
            }
        }
    }
}
