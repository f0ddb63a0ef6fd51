//! Which part handles what the router admitted (issue 41 §2): a message goes to the Google
//! part when it is a pasted sign-in address, else to the conversations; a click to the part
//! its button names (decoded from its `custom_id`, so it works after a restart); a command to
//! the part its name belongs to. Nothing else is decided here.

use std::sync::Arc;

use serenity::{
    all::{CommandInteraction, ComponentInteraction},
    model::channel::Message,
};

use super::{
    bot::Bot,
    buttons::{ButtonAction, UNKNOWN_ACTION, parse_custom_id},
    http_sink::is_unknown_message,
    rate_limit::with_rate_limit_retries,
};
use crate::domain::fork_control::ExitAction;

impl Bot {
    /// An owner's message, admitted (or caught up on): a pasted Google redirect completes
    /// `/google-auth` and never reaches the agent (MSG-6); anything else is a turn.
    pub(crate) async fn take_message(self: Arc<Self>, message: Message) {
        if self.google.take_pasted_redirect(&message).await {
            return;
        }
        // Boxed: a turn's future is large; the ways to it stay small.
        Box::pin(self.conversations.handle_message(message)).await;
    }

    /// A click, admitted: the part its button belongs to answers it.
    pub(crate) async fn click(&self, click: &ComponentInteraction) -> Result<(), serenity::Error> {
        let Some(action) = parse_custom_id(&click.data.custom_id) else {
            return self.reach.ephemeral(click, UNKNOWN_ACTION).await;
        };
        match action {
            ButtonAction::Dismiss => self.dismiss(click).await,
            ButtonAction::AgentInquiry { inquiry_id } => {
                self.conversations.agent_click(click, &inquiry_id).await
            }
            ButtonAction::ForkSave => self.conversations.fork_click(click, ExitAction::Save).await,
            ButtonAction::ForkReport => {
                self.conversations
                    .fork_click(click, ExitAction::Report)
                    .await
            }
            ButtonAction::ForkExit => self.conversations.fork_click(click, ExitAction::Exit).await,
            ButtonAction::GetStarted => self.conversations.get_started_click(click).await,
            google @ (ButtonAction::TaskDone { .. }
            | ButtonAction::TaskDelete { .. }
            | ButtonAction::EventDelete { .. }) => self.google.click(click, &google).await,
            approval @ (ButtonAction::ToolApproval { .. }
            | ButtonAction::ContentApproval { .. }
            | ButtonAction::WebhookHold { .. }) => self.approvals.click(click, approval).await,
            ButtonAction::FocusEnd => self.quiet.end_click(click).await,
            ButtonAction::Nag { id, answer } => self.nags.click(click, &id, answer).await,
            ButtonAction::Unknown { .. } => self.reach.ephemeral(click, UNKNOWN_ACTION).await,
        }
    }

    /// **Dismiss** (BTN-8): the message goes; one already gone is fine.
    async fn dismiss(&self, click: &ComponentInteraction) -> Result<(), serenity::Error> {
        let http = &self.reach.http;
        with_rate_limit_retries(|| click.defer(http)).await?;
        match with_rate_limit_retries(|| click.message.delete(http)).await {
            Err(error) if !is_unknown_message(&error) => Err(error),
            _ => Ok(()),
        }
    }

    /// An owner's slash command, admitted: the part it belongs to answers it.
    pub(crate) async fn run_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        match command.data.name.as_str() {
            "restart" => self.restart_command(command).await,
            "update" => self.update_command(command).await,
            "google-auth" => self.google.auth_command(command).await,
            "home" => self.home.command(command).await,
            "quiet" => self.quiet.command(command).await,
            "focus" => self.quiet.focus_command(command).await,
            "nags" => self.nags.command(command).await,
            "recall" | "forget" => self.recall.command(command).await,
            "setup" => self.conversations.setup_command(command).await,
            _ => self.conversations.command(command).await,
        }
    }
}
