//! Which door a message came through, and whether it reaches the agent at all (CHN-1, CHN-2,
//! CHN-4, CHN-6): the owner's DM and the home channel both lead to the main conversation, a
//! thread of the home channel that holds a fork leads to that fork, and everything else —
//! another member, a bot, another channel, a thread the bot doesn't know — reaches nothing.

use serenity::model::id::{ChannelId, GuildId};

/// Where a message was posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The server, `None` for a DM.
    pub guild: Option<GuildId>,
    /// The channel or thread.
    pub channel: ChannelId,
    /// The channel a thread belongs to (`None` outside threads).
    pub thread_parent: Option<ChannelId>,
}

/// The owner's home channel, when one is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Home {
    /// Its server.
    pub guild: GuildId,
    /// The channel.
    pub channel: ChannelId,
}

/// The way into the conversation a message took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// The owner's DM: the main conversation.
    Dm,
    /// The home channel: the main conversation too.
    HomeChannel,
    /// A thread of the home channel that holds a fork: that fork.
    ForkThread(ChannelId),
}

/// Why a message reaches nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Someone other than the owner wrote it.
    NotTheOwner,
    /// A bot wrote it (the bot itself included).
    ByABot,
    /// It was posted in a server channel that isn't the home channel (or none is set).
    OtherChannel,
    /// It was posted in a thread of the home channel that holds no fork.
    ThreadWithoutFork,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    /// The owner.
    Owner,
    /// Another person.
    Someone,
    /// A bot or webhook.
    Bot,
}

/// The door `place` is, for a message by `author`; `holds_fork` says whether a thread of the
/// home channel is one of the bot's fork threads.
pub fn door(
    author: Author,
    place: Place,
    home: Option<Home>,
    holds_fork: impl Fn(ChannelId) -> bool,
) -> Result<Door, Closed> {
    match author {
        Author::Bot => return Err(Closed::ByABot),
        Author::Someone => return Err(Closed::NotTheOwner),
        Author::Owner => {}
    }
    let Some(guild) = place.guild else {
        return Ok(Door::Dm);
    };
    let Some(home) = home.filter(|home| home.guild == guild) else {
        return Err(Closed::OtherChannel);
    };
    match place.thread_parent {
        None if place.channel == home.channel => Ok(Door::HomeChannel),
        Some(parent) if parent == home.channel => {
            if holds_fork(place.channel) {
                Ok(Door::ForkThread(place.channel))
            } else {
                Err(Closed::ThreadWithoutFork)
            }
        }
        _ => Err(Closed::OtherChannel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUILD: GuildId = GuildId::new(10);
    const HOME: ChannelId = ChannelId::new(20);
    const OTHER: ChannelId = ChannelId::new(21);
    const FORK_THREAD: ChannelId = ChannelId::new(30);
    const IDLE_THREAD: ChannelId = ChannelId::new(31);

    const HOME_SET: Option<Home> = Some(Home {
        guild: GUILD,
        channel: HOME,
    });

    fn at(channel: ChannelId, parent: Option<ChannelId>) -> Place {
        Place {
            guild: Some(GUILD),
            channel,
            thread_parent: parent,
        }
    }

    fn owner_at(place: Place, home: Option<Home>) -> Result<Door, Closed> {
        door(Author::Owner, place, home, |thread| thread == FORK_THREAD)
    }

    #[test]
    fn the_dm_and_the_home_channel_lead_to_main_and_a_fork_thread_to_its_fork() {
        let dm = Place {
            guild: None,
            channel: ChannelId::new(99),
            thread_parent: None,
        };
        assert_eq!(owner_at(dm, None), Ok(Door::Dm));
        assert_eq!(owner_at(dm, HOME_SET), Ok(Door::Dm));
        assert_eq!(owner_at(at(HOME, None), HOME_SET), Ok(Door::HomeChannel));
        assert_eq!(
            owner_at(at(FORK_THREAD, Some(HOME)), HOME_SET),
            Ok(Door::ForkThread(FORK_THREAD))
        );
    }

    #[test]
    fn everything_else_reaches_nothing() {
        assert_eq!(owner_at(at(HOME, None), None), Err(Closed::OtherChannel));
        assert_eq!(
            owner_at(at(OTHER, None), HOME_SET),
            Err(Closed::OtherChannel)
        );
        assert_eq!(
            owner_at(at(FORK_THREAD, Some(OTHER)), HOME_SET),
            Err(Closed::OtherChannel)
        );
        assert_eq!(
            owner_at(at(IDLE_THREAD, Some(HOME)), HOME_SET),
            Err(Closed::ThreadWithoutFork)
        );
        let elsewhere = Place {
            guild: Some(GuildId::new(11)),
            channel: HOME,
            thread_parent: None,
        };
        assert_eq!(owner_at(elsewhere, HOME_SET), Err(Closed::OtherChannel));
        for (author, closed) in [
            (Author::Someone, Closed::NotTheOwner),
            (Author::Bot, Closed::ByABot),
        ] {
            assert_eq!(
                door(author, at(HOME, None), HOME_SET, |_| true),
                Err(closed)
            );
            let dm = Place {
                guild: None,
                channel: ChannelId::new(99),
                thread_parent: None,
            };
            assert_eq!(door(author, dm, HOME_SET, |_| true), Err(closed));
        }
    }
}
