//! Wake on intent (issue 29, REST-2): the conversation's CLI sleeps when idle, and the owner starting
//! to type where the bot listens (the DM, the home channel, the fork's thread), or clicking
//! and running commands, starts it at once, so it is usually ready when the message arrives.
//! Anyone else typing does nothing.

use serenity::all::{Interaction, TypingStartEvent};

use super::{
    bot::Bot,
    doors::{Author, Door, Place, door},
};
use crate::agent::WakeAt;

impl Bot {
    /// `TYPING_START`: wakes the CLI when it is the owner, somewhere the bot listens.
    pub(crate) async fn typing(&self, event: &TypingStartEvent) {
        if !self.is_accepting() || !self.owner.is_owner(event.user_id) {
            return;
        }
        let place = match event.guild_id {
            None => Place::Dm(event.channel_id),
            Some(_) => Place::Server(event.channel_id),
        };
        let here = door(
            Author::Owner,
            place,
            self.places.home(),
            self.places.fork_thread(),
        );
        match here {
            Ok(Door::ForkThread(_)) => self.session.wake(WakeAt::ForkThread).await,
            Ok(Door::Dm | Door::HomeChannel) => self.session.wake(WakeAt::MainDoor).await,
            Err(_) => {}
        }
    }

    /// An owner's slash command or click: wakes the CLI beside its handling.
    pub(crate) async fn wake_for(&self, interaction: &Interaction) {
        let user = match interaction {
            Interaction::Command(command) => Some(command.user.id),
            Interaction::Component(component) => Some(component.user.id),
            _ => None,
        };
        if user.is_some_and(|user| self.owner.is_owner(user)) && self.is_accepting() {
            self.session.wake(WakeAt::MainDoor).await;
        }
    }
}
