//! A DM's way through (MSG-1…8): owner check, 👀, interrupt of the reply in progress, the
//! prompt (trimmed text, quoted reply, images, saved files), one conversation at a time, the
//! streamed answer, and a clear message when the CLI connection was lost.

use std::sync::Arc;

use base64::Engine;
use serenity::model::{
    channel::{Message, ReactionType},
    id::MessageId,
};
use tokio::sync::mpsc;

use super::{
    attachments::{append_saved_paths, image_media_type, save_download},
    bot::Bot,
    http_sink::HttpSink,
    quote::{QuotedEmbed, QuotedSource, prepend_quote, quote_reply},
    streamer::{StreamOptions, stream_turn},
};
use crate::{
    agent::{
        AgentError, Prompt,
        context_usage::{context_tokens, context_warning},
    },
    claude::{ClaudeError, ImageAttachment},
};

/// Posted when the CLI went away mid-turn (MSG-7).
pub const LOST_CONNECTION: &str = "lost connection — try again.";

const SEEN: &str = "👀";

impl Bot {
    /// Whether `message` is a DM from the owner that this process has not handled yet.
    pub(crate) fn accepts(&self, message: &Message) -> bool {
        self.is_accepting()
            && !message.author.bot
            && message.guild_id.is_none()
            && self.owner.is_owner(message.author.id)
            && self.first_sighting(message.id)
    }

    /// Handles one owner DM end to end.
    pub(crate) async fn handle_dm(self: &Arc<Self>, message: Message) {
        tracing::debug!(target: "ollim_bot::latency", id = %message.id, "owner DM received");
        let seen = ReactionType::Unicode(SEEN.to_owned());
        if let Err(error) = message.react(&self.http, seen.clone()).await {
            tracing::debug!(%error, "could not add the 👀 reaction");
        }
        if self.session.is_busy() {
            // MSG-3: a new message cuts the reply in progress short (not during compaction).
            self.session.interrupt();
        }
        let prompt = self.prompt_for(&message).await;
        let sink = HttpSink::new(self.http.clone(), message.channel_id);
        let (events, rendered) = mpsc::unbounded_channel();
        let streaming = stream_turn(&sink, rendered, StreamOptions::default());
        let (outcome, _) = tokio::join!(self.session.send(prompt, events), streaming);
        if let Err(error) = self
            .http
            .delete_reaction_me(message.channel_id, message.id, &seen)
            .await
        {
            tracing::debug!(%error, "could not remove the 👀 reaction");
        }
        if let Ok(report) = &outcome
            && report.compaction.is_none()
            && let Some(usage) = &report.result.usage
        {
            let model = self.session.settings().await.model;
            if let Some(warning) = context_warning(context_tokens(usage), model.as_deref())
                && let Err(error) = message.channel_id.say(&self.http, warning).await
            {
                tracing::debug!(%error, "could not post the context warning");
            }
        }
        if let Err(error) = outcome {
            tracing::warn!(%error, "the turn failed");
            let text = match &error {
                AgentError::Claude(ClaudeError::ProcessExited { .. } | ClaudeError::Closed) => {
                    LOST_CONNECTION.to_owned()
                }
                other => format!("something went wrong: {other}"),
            };
            if let Err(error) = message.channel_id.say(&self.http, text).await {
                tracing::warn!(%error, "could not report the failed turn");
            }
        }
    }

    /// The prompt for a DM: quoted reply first (CTX-10), images as blocks (MSG-4), other files
    /// saved under `downloads/` with their paths appended (MSG-5).
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
                &self.services.data_dir.downloads_dir(),
                &attachment.filename,
                &bytes,
            ) {
                Ok(path) => saved.push(path),
                Err(error) => {
                    tracing::warn!(%error, name = attachment.filename, "could not save an attachment")
                }
            }
        }
        let text = append_saved_paths(message.content.trim(), &saved);
        let quote = match &message.referenced_message {
            Some(referenced) => quote_reply(&quoted_source(referenced)),
            None => None,
        };
        Prompt {
            text: prepend_quote(quote, &text),
            images,
        }
    }

    /// The id of the newest owner DM handled, for backfilling after a reconnect.
    pub(crate) fn newest_seen(&self) -> Option<MessageId> {
        self.seen().newest
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
