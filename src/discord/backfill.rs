//! Catching up after a gateway reconnect (issue 16, issue 41 §1): what the owner wrote while
//! the gateway was away, in the DM, the home channel and the open forks' threads, is answered
//! once, oldest first, each where it was written, after a note there saying it is late.

use std::{collections::HashMap, sync::Arc};

use serenity::{
    builder::GetMessages,
    model::{
        channel::Message,
        id::{ChannelId, MessageId},
    },
};
use tracing::Instrument;

use super::{bot::Bot, rate_limit::with_rate_limit_retries};

/// How long the catch-up after a reconnect leaves the gateway to deliver a message it fetched.
const BACKFILL_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// How many messages per place a catch-up fetches.
const FETCHED_PER_PLACE: u8 = 50;

impl Bot {
    /// Answers the owner's messages that arrived while the gateway was away (after a resume or
    /// a re-identify), in each place the bot listens, oldest first; ones already handled are
    /// skipped. Discord's ids grow with time, so one "newest handled" serves every place.
    pub(crate) async fn backfill(self: &Arc<Self>) {
        let Some(after) = self.arrivals.newest() else {
            return;
        };
        let doors = [self.reach.places.dm(), self.reach.places.home()]
            .into_iter()
            .flatten();
        let places = doors.chain(self.reach.places.open_threads());
        let mut candidates = Vec::new();
        for channel in places {
            candidates.extend(self.fetch_unseen(channel, after).await);
        }
        if candidates.is_empty() {
            return;
        }
        // A message sent just as the gateway came back still arrives as an event: give it a
        // moment, so only the ones that never will are taken here (and counted as missed).
        tokio::time::sleep(BACKFILL_GRACE).await;
        let mut missed: Vec<Message> = candidates.into_iter().filter(|m| self.accepts(m)).collect();
        missed.sort_by_key(|m| m.id);
        let mut untold: HashMap<ChannelId, usize> = HashMap::new();
        for message in &missed {
            *untold.entry(message.channel_id).or_default() += 1;
        }
        for message in missed {
            let channel = message.channel_id;
            if let Some(count) = untold.remove(&channel) {
                // Told once per place, before the late answers there.
                let note = missed_note(count);
                if let Err(error) =
                    with_rate_limit_retries(|| channel.say(&self.reach.http, &note)).await
                {
                    tracing::warn!(%error, %channel, "could not tell the owner about missed messages");
                }
            }
            tracing::info!(id = %message.id, %channel, "answering a message missed during the reconnect");
            let span = self.turn_span(&message);
            self.reach
                .work
                .spawn(Arc::clone(self).take_message(message).instrument(span));
        }
    }

    /// The messages in `channel` after `after` that this process has not handled.
    async fn fetch_unseen(&self, channel: ChannelId, after: MessageId) -> Vec<Message> {
        let fetched = with_rate_limit_retries(|| {
            channel.messages(
                &self.reach.http,
                GetMessages::new().after(after).limit(FETCHED_PER_PLACE),
            )
        })
        .await;
        match fetched {
            Ok(messages) => messages
                .into_iter()
                .filter(|m| !self.arrivals.was_seen(m.id))
                .collect(),
            Err(error) => {
                tracing::warn!(%error, %channel, "could not fetch messages missed during the reconnect");
                Vec::new()
            }
        }
    }
}

/// What the owner is told when messages sent while the gateway was away are answered late.
pub(crate) fn missed_note(count: usize) -> String {
    let (what, them) = if count == 1 {
        ("a message".to_owned(), "it")
    } else {
        (format!("{count} messages"), "them")
    };
    format!(
        "-# i lost my connection to Discord for a while and missed {what} from you — answering {them} now."
    )
}
