//! Wake on intent (issue 29, REST-2): the conversation's CLI sleeps when idle, and the owner starting
//! to type where the bot listens (the DM, the home channel, the fork's thread), or clicking
//! and running commands there, starts the CLI the message would go to (main's, or the open
//! fork's) at once, so it is usually ready when the message arrives. Anyone else does nothing.

use serenity::all::{ChannelId, GuildId, Interaction, TypingStartEvent, UserId};

use super::{
    bot::Bot,
    doors::{Author, Door, Place, door},
};
use crate::agent::Target;

impl Bot {
    /// `TYPING_START`: wakes the CLI when it is the owner, somewhere the bot listens.
    pub(crate) async fn typing(&self, event: &TypingStartEvent) {
        self.wake_at(event.user_id, event.channel_id, event.guild_id)
            .await;
    }

    /// An owner's slash command or click: wakes the CLI beside its handling, the fork's when
    /// it came from the fork's thread.
    pub(crate) async fn wake_for(&self, interaction: &Interaction) {
        match interaction {
            Interaction::Command(command) => {
                self.wake_at(command.user.id, command.channel_id, command.guild_id)
                    .await;
            }
            Interaction::Component(click) => {
                self.wake_at(click.user.id, click.channel_id, click.guild_id)
                    .await;
            }
            _ => {}
        }
    }

    /// Wakes the CLI a message by `user` in `channel` would go to: only the owner's, only
    /// where the bot listens (the same door check as messages).
    async fn wake_at(&self, user: UserId, channel: ChannelId, guild: Option<GuildId>) {
        if !self.is_accepting() || !self.owner.is_owner(user) {
            tracing::debug!(%user, "not the owner's, or not now: nothing wakes");
            return;
        }
        let place = match guild {
            None => Place::Dm(channel),
            Some(_) => Place::Server(channel),
        };
        let threads = self.places.open_threads();
        match door(Author::Owner, place, self.places.home(), &threads) {
            Ok(Door::ForkThread(thread)) => self.session.wake(self.target_of(thread)).await,
            Ok(Door::Dm | Door::HomeChannel) => self.session.wake(Target::MainDoor).await,
            Err(_) => {}
        }
    }
}
