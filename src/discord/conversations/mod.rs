//! The conversations part (issue 41 §2): the main conversation and the open forks, as the
//! owner reaches them — messages, the agent's and the forks' buttons ([`clicks`]), the
//! conversation's slash commands ([`commands`]), `/setup` and **Get started** ([`setup`]),
//! waking a sleeping CLI on intent ([`wake`]); every owner turn runs as [`owner_turn`] says.
//! The conversations themselves (locks, CLIs, forks) are the agent's (`crate::agent`).
//!
//! An owner message's way through (MSG-1…8, CHN-1, CHN-2, CHN-6), once the router admitted it
//! through its door (the DM, the home channel, a fork's thread): 👀, interrupt of the reply in
//! progress of the conversation it addresses, the prompt (trimmed text, quoted reply, images,
//! saved files), the streamed answer back where the message was written (CHN-8), and a clear
//! message when the CLI connection was lost. The prompt's parts are plain Rust beneath it:
//! [`attachments`] and [`quote`].

pub mod attachments;
pub mod clicks;
pub mod commands;
pub mod owner_turn;
pub mod quote;
pub mod setup;
pub mod wake;

use std::sync::Arc;

use base64::Engine;
use serenity::model::channel::{Message, ReactionType};

use self::{
    attachments::{append_saved_paths, image_media_type, save_download},
    quote::{QuotedEmbed, QuotedSource, prepend_quote, quote_reply},
};
use super::{rate_limit::with_rate_limit_retries, reach::Reach};
use crate::{
    agent::interactive_fork::{ALREADY_IN_FORK_NOTE, EXPIRED_NOTE, reply_resume_prompt},
    agent::{
        AgentError, ForkCommandError, NoRoom, Prompt, Target, TurnReport,
        prompt::context::relative_age,
    },
    claude::{ImageAttachment, SessionId},
    front_end::{ReplyPlace, TurnPlace},
    state::fork_messages::ForkLookup,
};

const SEEN: &str = "👀";

/// The conversations part.
pub struct Conversations {
    reach: Arc<Reach>,
}

impl Conversations {
    /// The part.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self { reach }
    }

    /// Handles one owner message end to end, answering where it was written.
    pub(crate) async fn handle_message(&self, message: Message) {
        tracing::debug!(target: "ollim_bot::latency", id = %message.id, "owner message received");
        // The owner's DM channel is normally known from start-up; learn it here otherwise, so
        // unasked messages always have somewhere to go.
        if message.guild_id.is_none() {
            self.reach.places.learn_dm(message.channel_id);
        }
        let seen = ReactionType::Unicode(SEEN.to_owned());
        if let Err(error) =
            with_rate_limit_retries(|| message.react(&self.reach.http, seen.clone())).await
        {
            tracing::debug!(%error, "could not add the 👀 reaction");
        }
        self.owner_turn(message.channel_id, &message.content, self.answer(&message))
            .await;
        if let Err(error) = with_rate_limit_retries(|| {
            self.reach
                .http
                .delete_reaction_me(message.channel_id, message.id, &seen)
        })
        .await
        {
            tracing::debug!(%error, "could not remove the 👀 reaction");
        }
    }

    /// Routes a DM (RPL-1…4): a reply to a live fork session's message resumes it as a fork;
    /// anything else goes to the open fork or the main session, with the replied-to message
    /// quoted (CTX-10).
    async fn answer(&self, message: &Message) -> Result<TurnReport, AgentError> {
        let here = TurnPlace::AskedIn(ReplyPlace(message.channel_id.get()));
        let prompt = self.prompt_for(message).await.answered_in(here);
        if let Some(fork) = self.reach.places.fork_in(message.channel_id) {
            // A fork's thread talks to that fork (CHN-6).
            return self
                .reach
                .session
                .exchange_in(Target::Fork(fork), prompt)
                .await;
        }
        let Some(referenced) = message.referenced_message.as_deref() else {
            return self.reach.session.exchange(prompt).await;
        };
        let quoted = |prompt: Prompt| Prompt {
            text: prepend_quote(quote_reply(&quoted_source(referenced)), &prompt.text),
            ..prompt
        };
        let current_main = self.reach.services.sessions.load();
        match self
            .reach
            .services
            .fork_messages
            .lookup(referenced.id.get())
        {
            ForkLookup::Live {
                fork_session_id,
                recorded_at,
                origin,
                ..
            } if current_main.as_ref().map(SessionId::as_str) != Some(fork_session_id.as_str()) => {
                if let Err(no_room) = self.reach.session.fork_room() {
                    self.note(message, &no_room_note(no_room)).await;
                    return self.reach.session.exchange(quoted(prompt)).await;
                }
                #[allow(clippy::cast_possible_truncation)]
                // whole seconds of an age; `as` saturates
                let age = relative_age(chrono::Duration::seconds(
                    (self.reach.services.clock.unix_secs() - recorded_at).max(0.0) as i64,
                ));
                let resume = Prompt {
                    text: reply_resume_prompt(&age, &prompt.text),
                    ..prompt.clone()
                };
                let Ok(session_id) = SessionId::parse(&fork_session_id) else {
                    tracing::warn!(fork_session_id, "a fork record holds an invalid session id");
                    return self.reach.session.exchange(quoted(prompt)).await;
                };
                match self
                    .reach
                    .session
                    .resume_fork(session_id, origin, resume)
                    .await
                {
                    Ok(report) => Ok(report),
                    Err(ForkCommandError::Agent(error)) => Err(error),
                    Err(ForkCommandError::NoRoom(no_room)) => {
                        self.note(message, &no_room_note(no_room)).await;
                        self.reach.session.exchange(quoted(prompt)).await
                    }
                    Err(error) => {
                        tracing::info!(%error, "could not resume the fork; answering in place");
                        self.reach.session.exchange(quoted(prompt)).await
                    }
                }
            }
            ForkLookup::Expired => {
                self.note(message, EXPIRED_NOTE).await;
                self.reach.session.exchange(quoted(prompt)).await
            }
            _ => self.reach.session.exchange(quoted(prompt)).await,
        }
    }

    /// Posts `text` where `message` was written.
    async fn note(&self, message: &Message, text: &str) {
        self.reach.say_in(message.channel_id, text).await;
    }

    /// The prompt for a DM: images as blocks (MSG-4), other files saved under `downloads/`
    /// with their paths appended (MSG-5).
    async fn prompt_for(&self, message: &Message) -> Prompt {
        let mut images = Vec::new();
        let mut saved = Vec::new();
        for attachment in &message.attachments {
            let bytes = match attachment.download().await {
                Ok(bytes) => bytes,
                Err(error) => {
                    tracing::warn!(%error, name = attachment.filename, "could not download an attachment");
                    continue;
                }
            };
            if let Some(media_type) = image_media_type(&bytes) {
                images.push(ImageAttachment {
                    media_type: media_type.to_owned(),
                    base64_data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                });
                continue;
            }
            match save_download(
                &self.reach.services.data_dir.downloads_dir(),
                &attachment.filename,
                &bytes,
            ) {
                Ok(path) => saved.push(path),
                Err(error) => {
                    tracing::warn!(%error, name = attachment.filename, "could not save an attachment");
                }
            }
        }
        Prompt {
            text: append_saved_paths(message.content.trim(), &saved),
            images,
            place: TurnPlace::Conversation,
            lead: None,
        }
        .led_by_its_command(&self.reach.services.data_dir)
    }
}

/// What a reply to a fork's message says when no fork can open for it (RPL-1, issue 41 §1).
fn no_room_note(no_room: NoRoom) -> String {
    match no_room {
        NoRoom::InPlaceOpen => ALREADY_IN_FORK_NOTE.to_owned(),
        NoRoom::Full => {
            "-# three forks are open already — reply added as context instead.".to_owned()
        }
        NoRoom::NeedsThread => "-# a fork is open, and one beside it needs a thread of the home \
                                channel — reply added as context here instead."
            .to_owned(),
    }
}

fn quoted_source(message: &Message) -> QuotedSource {
    QuotedSource {
        content: message.content.clone(),
        embed: message.embeds.first().map(|embed| QuotedEmbed {
            title: embed.title.clone().unwrap_or_default(),
            description: embed.description.clone().unwrap_or_default(),
            fields: embed
                .fields
                .iter()
                .map(|field| (field.name.clone(), field.value.clone()))
                .collect(),
        }),
    }
}
