//! `/setup` (SLC-14) and the first-run greeting's **Get started — 3 questions** (GRT-3): both
//! run the `setup` skill in the main session; the reply streams where it was asked for, like
//! any other.

use serenity::{
    all::{CommandInteraction, ComponentInteraction},
    builder::{CreateActionRow, CreateButton, CreateMessage},
    model::{application::ButtonStyle, id::ChannelId},
};

use super::Conversations;
use crate::discord::{buttons::ButtonAction, rate_limit::with_rate_limit_retries};
use crate::{
    agent::Prompt,
    front_end::{ReplyPlace, TurnPlace},
    skills::skill_prompt,
};

/// The label of the greeting's button (GRT-3).
pub(crate) const GET_STARTED_LABEL: &str = "Get started — 3 questions";

/// The first-run greeting with its **Get started** button.
pub(crate) fn greeting_with_get_started(text: String) -> CreateMessage {
    let message = CreateMessage::new().content(text);
    match ButtonAction::GetStarted.custom_id() {
        Ok(custom_id) => message.components(vec![CreateActionRow::Buttons(vec![
            CreateButton::new(custom_id)
                .label(GET_STARTED_LABEL)
                .style(ButtonStyle::Primary),
        ])]),
        Err(_) => message,
    }
}

impl Conversations {
    /// `/setup`: the deferred answer is removed; the set-up conversation follows in the DM.
    pub(crate) async fn setup_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        with_rate_limit_retries(|| command.defer_ephemeral(&self.reach.http)).await?;
        with_rate_limit_retries(|| command.delete_response(&self.reach.http)).await?;
        if let Err(text) = self.run_setup("", command.channel_id).await {
            self.reach.command_followup(command, &text).await?;
        }
        Ok(())
    }

    /// **Get started — 3 questions**: the quick path.
    pub(crate) async fn get_started_click(
        &self,
        component: &ComponentInteraction,
    ) -> Result<(), serenity::Error> {
        with_rate_limit_retries(|| component.defer(&self.reach.http)).await?;
        if let Err(text) = self.run_setup("quick", component.channel_id).await {
            self.reach.click_followup(component, &text).await?;
        }
        Ok(())
    }

    /// Sends the `setup` skill to the conversation `here` leads to, as an owner turn (a reply
    /// in progress there is cut short as a new message would; a failure is told there).
    async fn run_setup(&self, arguments: &str, here: ChannelId) -> Result<(), String> {
        // Cut short now: the start below waits for the reply in progress.
        self.reach
            .session
            .interrupt_in(self.reach.addressed_in(here));
        // The approved skills are installed as the CLI starts (BOX-2): a click right after
        // start-up can come before that, so the start is waited for first.
        if let Err(error) = self.reach.session.connect().await {
            tracing::warn!(%error, "the CLI didn't start for the set-up");
        }
        let skills_dir = self.reach.services.data_dir.approved_skills_dir();
        let prompt = skill_prompt(&skills_dir, "setup", arguments)
            .map_err(|problem| format!("could not start the set-up: {problem}"))?;
        let place = TurnPlace::AskedIn(ReplyPlace(here.get()));
        let target = self.reach.target_of(here);
        let turn = self
            .reach
            .session
            .exchange_in(target, Prompt::text(prompt).answered_in(place));
        self.owner_turn(here, "/setup", turn).await;
        Ok(())
    }
}
