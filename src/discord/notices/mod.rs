//! What the bot tells the owner without being asked: [`greeting`] (the start-up greeting and
//! shutdown notice texts), [`disk_space`] (writes failing and recovering), [`set_aside`]
//! (state files that couldn't be read), [`unfinished`] (what a killed process left cut off).
//! Each notice is sent once and forgotten only once the DM went out.

pub mod disk_space;
pub mod greeting;
pub mod quiet_digest;
pub mod set_aside;
pub mod unfinished;

use serenity::{builder::CreateMessage, model::channel::Message};

use super::{bot::Bot, rate_limit::with_rate_limit_retries};

impl Bot {
    /// Sends a message the owner didn't ask for where they want those (CHN-5): the home
    /// channel when they chose it, else the DM; a home channel that refuses it (deleted, the
    /// bot's access taken away) gives way to the DM. `None` (logged as `what`) when it went
    /// nowhere.
    pub(crate) async fn tell(&self, what: &str, message: CreateMessage) -> Option<Message> {
        let dm = self.places.dm();
        let Some(channel) = self.places.unasked().or(dm) else {
            tracing::warn!("no channel yet to send {what} to");
            return None;
        };
        let sent = with_rate_limit_retries(|| channel.send_message(&self.http, message.clone()));
        match sent.await {
            Ok(sent) => return Some(sent),
            Err(error) => tracing::warn!(%error, %channel, "could not send {what}"),
        }
        let dm = dm.filter(|dm| *dm != channel)?;
        match with_rate_limit_retries(|| dm.send_message(&self.http, message.clone())).await {
            Ok(sent) => Some(sent),
            Err(error) => {
                tracing::warn!(%error, "could not send {what} to the DM either");
                None
            }
        }
    }
}
