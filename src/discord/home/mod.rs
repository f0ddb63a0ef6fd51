//! The home channel's standing (CHN-3, CHN-9): who besides the owner can read it and which
//! permissions the bot lacks there, read from Discord over REST, told to the owner when the
//! channel is set and again whenever that changes (a channel or role update), and checked at
//! start-up so a channel that is gone or closed to the bot is said, not silently ignored.
//!
//! The home-channel part (issue 41 §2) owns what the owner was last told about the channel's
//! readers and answers `/home` ([`command`]); [`privacy`] works out, in plain Rust, who can
//! read the channel and which permissions the bot lacks.

pub mod command;
pub mod privacy;

use std::sync::Arc;

use parking_lot::Mutex;

use crate::config::runtime::ThreadKind;
use serenity::{
    http::Http,
    model::{
        channel::{Channel, ChannelType},
        id::{ChannelId, UserId},
    },
};

use self::privacy::{ChannelFacts, Reader, missing, other_readers, readers_notice};
use super::{rate_limit::with_rate_limit_retries, reach::Reach};

/// Why the home channel's standing could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// The channel is a DM, a thread, a voice or forum channel: not a server text channel.
    #[error("this isn't a text channel of a server")]
    NotATextChannel,
    /// Discord refused or failed (the channel is gone, the bot can't see it, …).
    #[error(transparent)]
    Discord(#[from] serenity::Error),
}

/// What the owner needs to know about a home channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// Who besides the owner (and the bot) can read it.
    pub readers: Vec<Reader>,
    /// The permissions the bot needs there and lacks, by name.
    pub missing: Vec<&'static str>,
}

impl Standing {
    /// The lines about missing permissions, empty when none is missing.
    pub fn missing_line(&self) -> Option<String> {
        (!self.missing.is_empty()).then(|| {
            format!(
                "I'm missing permissions here: **{}**. Add them to my role or in this channel's \
                 settings, or parts of what I do here will fail.",
                self.missing.join("**, **")
            )
        })
    }
}

/// Reads `channel`'s standing from Discord.
pub async fn standing(
    http: &Http,
    channel: ChannelId,
    owner: UserId,
    threads: ThreadKind,
) -> Result<Standing, HomeError> {
    let Channel::Guild(channel) = with_rate_limit_retries(|| channel.to_channel(http)).await?
    else {
        return Err(HomeError::NotATextChannel);
    };
    if !matches!(channel.kind, ChannelType::Text) {
        return Err(HomeError::NotATextChannel);
    }
    let guild = with_rate_limit_retries(|| channel.guild_id.to_partial_guild(http)).await?;
    let me = with_rate_limit_retries(|| http.get_current_user()).await?;
    let roles: Vec<_> = guild.roles.values().cloned().collect();
    let facts = ChannelFacts {
        guild: guild.id,
        guild_owner: guild.owner_id,
        roles: &roles,
        overwrites: &channel.permission_overwrites,
    };
    let readers = other_readers(&facts, owner, me.id);
    let member = with_rate_limit_retries(|| guild.id.member(http, me.id)).await?;
    let granted = guild.user_permissions_in(&channel, &member);
    Ok(Standing {
        readers,
        missing: missing(granted, threads),
    })
}

/// The readers last told to the owner, per home channel, so a change is told once.
#[derive(Default)]
pub struct ToldReaders(Mutex<Option<(ChannelId, Vec<Reader>)>>);

impl ToldReaders {
    /// Records what the owner now knows about `channel`.
    pub fn record(&self, channel: ChannelId, readers: Vec<Reader>) {
        *self.0.lock() = Some((channel, readers));
    }

    /// What the owner was told about `channel`, if it is the one on record.
    pub fn told(&self, channel: ChannelId) -> Option<Vec<Reader>> {
        self.0
            .lock()
            .as_ref()
            .filter(|(told, _)| *told == channel)
            .map(|(_, readers)| readers.clone())
    }
}

/// The home-channel part.
pub struct HomeChannel {
    reach: Arc<Reach>,
    /// Who the owner was last told can read the home channel (CHN-3).
    told_readers: ToldReaders,
}

impl HomeChannel {
    /// The part; nothing told yet.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self {
            reach,
            told_readers: ToldReaders::default(),
        }
    }

    /// Start-up: reads the home channel's standing as the baseline for later changes; a home
    /// channel the bot can't use any more is told to the owner in the DM (CHN-9), and `/config`
    /// marks it (CHN-10).
    pub(crate) async fn check_home_channel(&self) {
        let (Some(home), Some(owner)) = (self.reach.places.home(), self.reach.owner.owner()) else {
            return;
        };
        match standing(
            &self.reach.http,
            home,
            owner,
            self.reach.places.thread_kind(),
        )
        .await
        {
            Ok(standing) => {
                self.reach.places.home_unusable(home, None);
                if let Some(line) = standing.missing_line() {
                    self.reach.say_in(home, &line).await;
                }
                self.told_readers.record(home, standing.readers);
            }
            Err(error) => {
                tracing::warn!(%error, %home, "the home channel can't be used");
                self.reach
                    .places
                    .home_unusable(home, Some(error.to_string()));
                let text = format!(
                    "I can't use your home channel <#{home}> ({error}), so I answer you in our DM \
                     only for now. Run `/home` in a channel of your server to choose it again."
                );
                if let Some(dm) = self.reach.places.dm() {
                    self.reach.say_in(dm, &text).await;
                }
            }
        }
    }

    /// A channel or role changed: when the home channel's readers changed since the owner was
    /// last told, they are told again, in the channel (CHN-3).
    pub(crate) async fn recheck_readers(&self, changed: Option<ChannelId>) {
        let (Some(home), Some(owner)) = (self.reach.places.home(), self.reach.owner.owner()) else {
            return;
        };
        if changed.is_some_and(|channel| channel != home) {
            return;
        }
        let standing = match standing(
            &self.reach.http,
            home,
            owner,
            self.reach.places.thread_kind(),
        )
        .await
        {
            Ok(standing) => standing,
            Err(error) => {
                tracing::warn!(%error, %home, "could not re-read the home channel's permissions");
                return;
            }
        };
        if let Some(before) = self.told_readers.told(home)
            && let Some(text) = readers_notice(Some(&before), &standing.readers)
        {
            self.reach.say_in(home, &text).await;
        }
        self.told_readers.record(home, standing.readers);
        tracing::debug!(%home, "the home channel's readers looked at again");
    }
}
