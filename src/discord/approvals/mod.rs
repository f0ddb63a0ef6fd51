//! The approvals part (issue 41 §2): the owner's answers to what the agent may do. It owns the
//! open reaction questions and the way to the webhook dispatch, and answers:
//!
//! - [`tool`], [`content`], `webhook_hold`: Approve / Deny (Run / Drop) on the embeds that
//!   ask for them, honoured only on the message the bot posted for the request;
//! - [`reactions`]: tool approval by reaction (✅ ❌ 🔓) where the conversation asked.

pub mod content;
pub mod reactions;
pub mod tool;
mod webhook_hold;

use std::sync::{Arc, OnceLock};

use serenity::all::{ComponentInteraction, Reaction};

use self::reactions::ReactionApprovals;
use super::{buttons::ButtonAction, reach::Reach};
use crate::background::webhook_dispatch::WebhookDispatch;

/// The approvals part.
pub struct Approvals {
    reach: Arc<Reach>,
    /// Open approval questions answered by reaction (shared with the front end that asks).
    reactions: Arc<ReactionApprovals>,
    /// Where the owner's answers to held webhook requests go, once the server is set up.
    webhooks: OnceLock<WebhookDispatch>,
}

impl Approvals {
    /// The part, answering the questions in `reactions`.
    pub fn new(reach: Arc<Reach>, reactions: Arc<ReactionApprovals>) -> Self {
        Self {
            reach,
            reactions,
            webhooks: OnceLock::new(),
        }
    }

    /// Binds the webhook dispatch held requests are answered through (once, at start-up).
    pub fn bind_webhooks(&self, webhooks: WebhookDispatch) {
        let _ = self.webhooks.set(webhooks);
    }

    /// A click on one of the part's buttons.
    pub(crate) async fn click(
        &self,
        component: &ComponentInteraction,
        action: ButtonAction,
    ) -> Result<(), serenity::Error> {
        match action {
            ButtonAction::ToolApproval {
                request_id,
                approve,
            } => self.tool_click(component, &request_id, approve).await,
            ButtonAction::ContentApproval {
                request_id,
                approve,
            } => self.content_click(component, &request_id, approve).await,
            ButtonAction::WebhookHold { hold_id, run } => {
                self.webhook_hold_click(component, &hold_id, run).await
            }
            _ => {
                self.reach
                    .ephemeral(component, super::buttons::UNKNOWN_ACTION)
                    .await
            }
        }
    }

    /// A reaction, perhaps the answer to an open question.
    pub(crate) fn reaction(&self, reaction: &Reaction) {
        self.reactions
            .answer(reaction.message_id, &reaction.emoji.to_string());
    }
}
