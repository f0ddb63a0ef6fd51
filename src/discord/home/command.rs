//! `/home` (CHN-1, CHN-3): run in a text channel of a server the owner shares with the bot,
//! it makes that channel the home channel, a second door to the same conversation, and says
//! who else can read it and which permissions the bot lacks there; `/home off` goes back to
//! the DM only; in the DM it says which channel is home.

use serenity::{all::CommandInteraction, builder::EditInteractionResponse, model::id::ChannelId};

use super::{HomeChannel, HomeError, privacy::readers_notice, standing};
use crate::{
    config::runtime::{ConfigKey, NotifyPlace},
    discord::{
        commands::{option, reply_ephemeral},
        rate_limit::with_rate_limit_retries,
    },
};

/// What `/home` in the DM says when no home channel is set.
pub(crate) const NO_HOME: &str = "No home channel: I answer you here only. Run `/home` in a text \
     channel of your server to talk with me there too.";

impl HomeChannel {
    /// `/home [off]`.
    pub(crate) async fn command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        if option(command, "action") == Some("off") {
            let text = match self
                .reach
                .services
                .runtime
                .update(ConfigKey::HomeChannel, "off")
            {
                Ok(_) => "No home channel any more: I answer you in our DM only.".to_owned(),
                Err(error) => format!("could not save the setting: {error}"),
            };
            return reply_ephemeral(&self.reach.http, command, text).await;
        }
        if command.guild_id.is_none() {
            let text = match self.reach.places.home() {
                Some(home) => format!(
                    "Your home channel is <#{home}>: I answer you there and here, one \
                     conversation. `/home off` there or here stops it."
                ),
                None => NO_HOME.to_owned(),
            };
            return reply_ephemeral(&self.reach.http, command, text).await;
        }
        with_rate_limit_retries(|| command.defer(&self.reach.http)).await?;
        let text = self.make_home(command.channel_id).await;
        let edit = EditInteractionResponse::new().content(text);
        with_rate_limit_retries(|| command.edit_response(&self.reach.http, edit.clone()))
            .await
            .map(drop)
    }

    /// Makes `channel` the home channel; returns what the owner is told.
    async fn make_home(&self, channel: ChannelId) -> String {
        let Some(owner) = self.reach.owner.owner() else {
            return "not authorized".to_owned();
        };
        let standing = match standing(
            &self.reach.http,
            channel,
            owner,
            self.reach.places.thread_kind(),
        )
        .await
        {
            Ok(standing) => standing,
            Err(HomeError::NotATextChannel) => {
                return "Run `/home` in a text channel of your server (not a thread or a voice \
                        channel)."
                    .to_owned();
            }
            Err(HomeError::Discord(error)) => {
                return format!(
                    "I can't read this channel's settings ({error}), so it isn't my home."
                );
            }
        };
        let id = channel.get().to_string();
        if let Err(error) = self
            .reach
            .services
            .runtime
            .update(ConfigKey::HomeChannel, &id)
        {
            return format!("could not save the setting: {error}");
        }
        self.reach.places.home_unusable(channel, None);
        let mut lines = vec![
            "This channel is now my home: I answer you here as in our DM, and it's one \
             conversation whichever you use."
                .to_owned(),
        ];
        lines.extend(readers_notice(None, &standing.readers));
        lines.extend(standing.missing_line());
        lines.push(match self.reach.services.runtime.current().notify_in {
            NotifyPlace::Home => "Reminders, pings and notices come here.".to_owned(),
            NotifyPlace::Dm => "Reminders, pings and notices still go to our DM; \
                                `/config notify_in home` sends them here."
                .to_owned(),
        });
        self.told_readers.record(channel, standing.readers);
        lines.join("\n")
    }
}
