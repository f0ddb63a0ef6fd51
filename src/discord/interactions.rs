//! Interactions: slash commands and button clicks, owner-only (others get an ephemeral
//! `not authorized`), and persistent buttons decoded from their `custom_id` (BTN-1…9).

use std::sync::Arc;

use serenity::{
    all::{ComponentInteraction, Context, Interaction},
    builder::{CreateInteractionResponse, CreateInteractionResponseMessage},
};
use tokio::sync::mpsc;

use super::{
    bot::Bot,
    buttons::{ButtonAction, parse_custom_id},
    commands::reply_ephemeral,
    http_sink::{HttpSink, is_unknown_message},
    streamer::{StreamOptions, stream_turn},
};
use crate::agent::Prompt;

const NOT_AUTHORIZED: &str = "not authorized";
const EXPIRED_INQUIRY: &str = "this option has expired — ask again to revisit.";
const GOOGLE_NOT_SET_UP: &str = "Google is not set up yet, so this button can't act. Tasks and calendar land in a later release.";

impl Bot {
    /// Routes one interaction, checking the owner first.
    pub(crate) async fn handle_interaction(
        self: &Arc<Self>,
        _ctx: &Context,
        interaction: Interaction,
    ) {
        let outcome = match &interaction {
            Interaction::Command(command) => {
                if !self.owner.is_owner(command.user.id) || !self.is_accepting() {
                    reply_ephemeral(&self.http, command, NOT_AUTHORIZED).await
                } else {
                    self.run_command(command).await
                }
            }
            Interaction::Component(component) => {
                if self.owner.is_owner(component.user.id) && self.is_accepting() {
                    self.click(component).await
                } else {
                    self.ephemeral(component, NOT_AUTHORIZED).await
                }
            }
            _ => Ok(()),
        };
        if let Err(error) = outcome {
            tracing::warn!(%error, "answering an interaction failed");
        }
    }

    async fn click(
        self: &Arc<Self>,
        component: &ComponentInteraction,
    ) -> Result<(), serenity::Error> {
        let Some(action) = parse_custom_id(&component.data.custom_id) else {
            return self.ephemeral(component, "unknown action").await;
        };
        match action {
            ButtonAction::Dismiss => {
                component.defer(&self.http).await?;
                match component.message.delete(&self.http).await {
                    Err(error) if !is_unknown_message(&error) => Err(error),
                    _ => Ok(()),
                }
            }
            ButtonAction::AgentInquiry { inquiry_id } => match self.inquiries.pop(&inquiry_id) {
                Some(prompt) => {
                    component.defer(&self.http).await?;
                    self.run_button_prompt(component, prompt).await;
                    Ok(())
                }
                None => self.ephemeral(component, EXPIRED_INQUIRY).await,
            },
            ButtonAction::TaskDone { .. }
            | ButtonAction::TaskDelete { .. }
            | ButtonAction::EventDelete { .. } => {
                self.ephemeral(component, GOOGLE_NOT_SET_UP).await
            }
            ButtonAction::ForkSave | ButtonAction::ForkReport | ButtonAction::ForkExit => {
                self.ephemeral(component, "no active fork.").await
            }
            ButtonAction::Unknown { .. } => self.ephemeral(component, "unknown action").await,
        }
    }

    /// Sends `[button] <prompt>` to the main session and streams the answer (BTN-4).
    async fn run_button_prompt(&self, component: &ComponentInteraction, prompt: String) {
        if self.session.is_busy() {
            self.session.interrupt();
        }
        let sink = HttpSink::new(self.http.clone(), component.channel_id);
        let (events, rendered) = mpsc::unbounded_channel();
        let streaming = stream_turn(&sink, rendered, StreamOptions::default());
        let turn = self
            .session
            .send(Prompt::text(format!("[button] {prompt}")), events);
        let (outcome, _) = tokio::join!(turn, streaming);
        if let Err(error) = outcome {
            tracing::warn!(%error, "a button prompt failed");
            let _ = component
                .channel_id
                .say(&self.http, super::intake::LOST_CONNECTION)
                .await;
        }
    }

    async fn ephemeral(
        &self,
        component: &ComponentInteraction,
        text: &str,
    ) -> Result<(), serenity::Error> {
        let message = CreateInteractionResponseMessage::new()
            .content(text)
            .ephemeral(true);
        component
            .create_response(&self.http, CreateInteractionResponse::Message(message))
            .await
    }
}
