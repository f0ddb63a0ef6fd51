//! The Discord front end of the agent core: streamed turns, embeds, files and tool approvals,
//! in the place each belongs (CHN-1, CHN-5): the main conversation's output where the owner
//! last asked, what the bot starts on its own where the owner wants unasked messages.

use super::rate_limit::with_rate_limit_retries;
use std::{path::PathBuf, sync::Arc};

use parking_lot::Mutex;

use serenity::{
    builder::{CreateAttachment, CreateMessage, CreateThread, EditThread},
    http::Http,
    model::{
        channel::{AutoArchiveDuration, ChannelType},
        id::ChannelId,
    },
};
use tokio::sync::mpsc::UnboundedReceiver;

use super::{
    approvals::reactions::ReactionApprovals,
    embeds::embed_message,
    http_sink::HttpSink,
    owner::OwnerGate,
    places::Places,
    streamer::{StreamOptions, stream_turn},
};
use crate::{
    claude::BoxFuture,
    config::runtime::ThreadKind,
    domain::embed::Embed,
    front_end::{Approval, Branch, ForkId, FrontEnd, FrontEndError, TurnEvent, TurnPlace},
    state::inquiries::InquiryStore,
};

/// Whose output a front end carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The main conversation's (its turns and tools): shown where it is now.
    Conversation,
    /// One interactive fork's: in its thread while that is open, else where the conversation
    /// is (a fork opened in the DM). Made by the conversation's front end for each fork.
    Fork(ForkId),
    /// Background runs' and webhooks' (pings, embeds, grant questions): where the owner wants
    /// unasked messages.
    Unasked,
}

/// Renders the agent's turns, embeds and approval questions into the owner's places.
pub struct DiscordFrontEnd {
    http: Arc<Http>,
    places: Arc<Places>,
    /// The owner, added to a private fork thread.
    owner: Arc<OwnerGate>,
    audience: Audience,
    approvals: Arc<ReactionApprovals>,
    inquiries: Arc<InquiryStore>,
    /// A fork's front end: the thread it opened, if any.
    thread: Mutex<Option<ChannelId>>,
}

impl DiscordFrontEnd {
    /// A front end for `audience`, posting once the owner's places are known.
    pub fn new(
        http: Arc<Http>,
        (places, owner): (Arc<Places>, Arc<OwnerGate>),
        audience: Audience,
        approvals: Arc<ReactionApprovals>,
        inquiries: Arc<InquiryStore>,
    ) -> Self {
        Self {
            http,
            places,
            owner,
            audience,
            approvals,
            inquiries,
            thread: Mutex::new(None),
        }
    }

    fn channel(&self) -> Result<ChannelId, FrontEndError> {
        match self.audience {
            Audience::Conversation => self.places.conversation(),
            Audience::Fork(_) => self.open_thread().or_else(|| self.places.conversation()),
            Audience::Unasked => self.places.unasked(),
        }
        .ok_or_else(|| FrontEndError("no active channel".to_owned()))
    }

    /// A fork's front end: its thread, while it is open.
    fn open_thread(&self) -> Option<ChannelId> {
        let Audience::Fork(fork) = self.audience else {
            return None;
        };
        let own = (*self.thread.lock())?;
        (self.places.fork_thread(fork) == Some(own)).then_some(own)
    }
}

impl FrontEnd for DiscordFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async move {
            let channel = self.channel()?;
            let message = embed_message(&embed, &self.inquiries)
                .map_err(|error| FrontEndError(error.to_string()))?;
            let sent =
                with_rate_limit_retries(|| channel.send_message(&self.http, message.clone()))
                    .await
                    .map_err(|error| FrontEndError(error.to_string()))?;
            Ok(Some(sent.id.get()))
        })
    }

    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async move {
            let channel = self.channel()?;
            let message = CreateMessage::new().content(text);
            let sent =
                with_rate_limit_retries(|| channel.send_message(&self.http, message.clone()))
                    .await
                    .map_err(|error| FrontEndError(error.to_string()))?;
            Ok(Some(sent.id.get()))
        })
    }

    fn send_file(
        &self,
        path: PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async move {
            let channel = self.channel()?;
            let attachment = CreateAttachment::path(&path).await.map_err(|error| {
                FrontEndError(format!("could not read {}: {error}", path.display()))
            })?;
            let mut builder = CreateMessage::new().add_file(attachment);
            if let Some(message) = message {
                builder = builder.content(message);
            }
            let sent =
                with_rate_limit_retries(|| channel.send_message(&self.http, builder.clone()))
                    .await
                    .map_err(|error| FrontEndError(error.to_string()))?;
            Ok(Some(sent.id.get()))
        })
    }

    fn answer_in(&self, place: TurnPlace, branch: Branch) {
        match self.audience {
            Audience::Conversation => self.places.answer_in(place, branch),
            // A fork in its thread always answers there.
            Audience::Fork(_) if self.open_thread().is_none() => {
                self.places.answer_in(place, branch);
            }
            Audience::Fork(_) | Audience::Unasked => {}
        }
    }

    fn fork_side(&self, fork: ForkId) -> Option<Arc<dyn FrontEnd>> {
        (self.audience == Audience::Conversation).then(|| {
            Arc::new(Self::new(
                Arc::clone(&self.http),
                (Arc::clone(&self.places), Arc::clone(&self.owner)),
                Audience::Fork(fork),
                Arc::clone(&self.approvals),
                Arc::clone(&self.inquiries),
            )) as Arc<dyn FrontEnd>
        })
    }

    fn fork_opened(&self, topic: Option<String>, alone: bool) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let Audience::Fork(fork) = self.audience else {
                return false;
            };
            let home = self.places.home();
            if home.is_none() || self.places.conversation() != home {
                return false;
            }
            let Some(home) = home else { return false };
            let kind = self.places.thread_kind();
            match open_thread(&self.http, home, topic.as_deref(), kind).await {
                Ok(thread) => {
                    // Only members read a private thread: the owner is added before anything
                    // is posted in it.
                    if kind == ThreadKind::Private
                        && let Some(owner) = self.owner.owner()
                        && let Err(error) =
                            with_rate_limit_retries(|| thread.add_thread_member(&self.http, owner))
                                .await
                    {
                        tracing::warn!(%error, "could not add the owner to the fork's private thread");
                    }
                    self.places.open_fork_thread(fork, thread);
                    *self.thread.lock() = Some(thread);
                    true
                }
                Err(error) => {
                    tracing::warn!(%error, alone, "could not open a thread for the fork");
                    let note = if alone {
                        format!(
                            "-# I couldn't open a thread for this fork ({error}), so it runs here."
                        )
                    } else {
                        format!(
                            "-# I couldn't open a thread for this fork ({error}), and another \
                             fork is open, so it didn't start."
                        )
                    };
                    let _ = with_rate_limit_retries(|| home.say(&self.http, &note)).await;
                    false
                }
            }
        })
    }

    fn fork_closing(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (Audience::Fork(fork), Some(thread)) = (self.audience, self.open_thread()) else {
                return;
            };
            self.places.close_fork_thread(fork);
            let archive = EditThread::new().archived(true);
            if let Err(error) =
                with_rate_limit_retries(|| thread.edit_thread(&self.http, archive.clone())).await
            {
                tracing::warn!(%error, %thread, "could not archive the fork's thread");
            }
        })
    }

    fn render_turn(&self, events: UnboundedReceiver<TurnEvent>) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            let Ok(channel) = self.channel() else {
                let mut events = events;
                while events.recv().await.is_some() {}
                return Vec::new();
            };
            let sink = HttpSink::new(self.http.clone(), channel);
            let outcome = stream_turn(&sink, events, StreamOptions::default()).await;
            outcome.message_ids
        })
    }

    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval> {
        Box::pin(async move {
            match self.channel() {
                Ok(channel) => self.approvals.ask(&self.http, channel, &label).await,
                Err(_) => Approval::Unsent,
            }
        })
    }

    fn cancel_approvals(&self) {
        // Each conversation withdraws its own questions only (issue 41 §1).
        let threads = self.places.open_threads();
        match (self.audience, self.open_thread()) {
            (Audience::Fork(_), Some(thread)) => self.approvals.cancel_where(|at| at == thread),
            (Audience::Conversation | Audience::Fork(_), _) => {
                self.approvals.cancel_where(|at| !threads.contains(&at));
            }
            (Audience::Unasked, _) => self.approvals.cancel_all(),
        }
    }
}

/// The longest thread name Discord takes.
const THREAD_NAME_LIMIT: usize = 100;

/// The name of a fork's thread: its topic (cut to Discord's limit), else `fork`.
fn thread_name(topic: Option<&str>) -> String {
    let topic = topic.map(str::trim).filter(|topic| !topic.is_empty());
    topic.map_or_else(
        || "fork".to_owned(),
        |topic| topic.chars().take(THREAD_NAME_LIMIT).collect(),
    )
}

/// Opens a public thread in `home` for a fork about `topic` (CHN-6).
async fn open_thread(
    http: &Http,
    home: ChannelId,
    topic: Option<&str>,
    kind: ThreadKind,
) -> Result<ChannelId, serenity::Error> {
    let create = CreateThread::new(thread_name(topic))
        .kind(match kind {
            ThreadKind::Public => ChannelType::PublicThread,
            ThreadKind::Private => ChannelType::PrivateThread,
        })
        .auto_archive_duration(AutoArchiveDuration::OneDay);
    let thread = with_rate_limit_retries(|| home.create_thread(http, create.clone())).await?;
    Ok(thread.id)
}

#[cfg(test)]
mod tests {
    use super::thread_name;

    #[test]
    fn a_thread_is_named_after_the_topic_within_discords_limit() {
        assert_eq!(thread_name(None), "fork");
        assert_eq!(thread_name(Some("  ")), "fork");
        assert_eq!(thread_name(Some(" taxes ")), "taxes");
        assert_eq!(thread_name(Some(&"é".repeat(150))).chars().count(), 100);
    }
}
