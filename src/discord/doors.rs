//! Which door a message came through, and whether it reaches the agent at all (CHN-1, CHN-2,
//! CHN-4, CHN-6): the owner's DM and the home channel both lead to the main conversation, a
//! thread that holds an open fork leads to that fork, and everything else — another member,
//! a bot, another channel, a thread that holds no fork — reaches nothing.
//!
//! Channel ids are unique across Discord, so a channel's id alone says whether it is the home
//! channel; a thread is recognised by its id too (the bot made it), without asking Discord for
//! its parent.

use serenity::model::id::ChannelId;

/// Where a message was posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A DM with the bot.
    Dm(ChannelId),
    /// A channel or thread of a server.
    Server(ChannelId),
}

/// The way into the conversation a message took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// The owner's DM: the main conversation.
    Dm,
    /// The home channel: the main conversation too.
    HomeChannel,
    /// A thread of the home channel that holds an open fork: that fork.
    ForkThread(ChannelId),
}

/// Why a message reaches nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Someone other than the owner wrote it.
    NotTheOwner,
    /// A bot wrote it (the bot itself included).
    ByABot,
    /// It was posted in a server channel or thread that is neither the home channel nor the
    /// thread of an open fork (or no home channel is set).
    OtherChannel,
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

/// The door `place` is, for a message by `author`, given the home channel (when there is one)
/// and the open forks' threads.
pub fn door(
    author: Author,
    place: Place,
    home: Option<ChannelId>,
    fork_threads: &[ChannelId],
) -> Result<Door, Closed> {
    match author {
        Author::Bot => return Err(Closed::ByABot),
        Author::Someone => return Err(Closed::NotTheOwner),
        Author::Owner => {}
    }
    match place {
        Place::Dm(_) => Ok(Door::Dm),
        Place::Server(channel) if Some(channel) == home => Ok(Door::HomeChannel),
        Place::Server(channel) if fork_threads.contains(&channel) => Ok(Door::ForkThread(channel)),
        Place::Server(_) => Err(Closed::OtherChannel),
    }
}

/// How something the owner did came in (issue 41 §2: one admission for every way in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// A message: reaches the agent through a door only.
    Message,
    /// Typing: wakes the CLI a message there would reach, through a door only.
    Typing,
    /// A slash command: through a door; `/home` (`makes_home`) in any channel of a server,
    /// since it makes that channel the home channel (CHN-4).
    Command {
        /// Whether it is `/home`.
        makes_home: bool,
    },
    /// A click on a button the bot posted, wherever that message is (its own checks decide
    /// what it may do).
    Click,
    /// A reaction on a message the bot posted (a tool approval), wherever it is.
    Reaction,
}

/// Why something reaches nothing, and what its author is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Nothing: a bot's, or a message, typing or reaction by someone else or elsewhere.
    Silently,
    /// An ephemeral `not authorized`: someone else's command or click.
    NotAuthorized,
    /// The owner's command in a channel that is no door: told where the bot answers.
    Elsewhere,
}

/// Whether what `author` did `way` at `place` reaches the bot, and through which door (none
/// for a click, a reaction or `/home` outside the doors), given the home channel and the open
/// forks' threads. The one owner and door check of every way in (CHN-2, CHN-4).
pub fn admit(
    way: Way,
    author: Author,
    place: Place,
    home: Option<ChannelId>,
    fork_threads: &[ChannelId],
) -> Result<Option<Door>, Refused> {
    let answered = matches!(way, Way::Command { .. } | Way::Click);
    match (author, answered) {
        (Author::Bot, _) | (Author::Someone, false) => return Err(Refused::Silently),
        (Author::Someone, true) => return Err(Refused::NotAuthorized),
        (Author::Owner, _) => {}
    }
    match (way, door(author, place, home, fork_threads)) {
        (_, Ok(door)) => Ok(Some(door)),
        (Way::Click | Way::Reaction | Way::Command { makes_home: true }, Err(_)) => Ok(None),
        (Way::Command { makes_home: false }, Err(_)) => Err(Refused::Elsewhere),
        (Way::Message | Way::Typing, Err(_)) => Err(Refused::Silently),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DM: Place = Place::Dm(ChannelId::new(99));
    const HOME: ChannelId = ChannelId::new(20);
    const OTHER: ChannelId = ChannelId::new(21);
    const FORK_THREAD: ChannelId = ChannelId::new(30);
    const OLD_THREAD: ChannelId = ChannelId::new(31);
    const SECOND_THREAD: ChannelId = ChannelId::new(32);

    fn owner_at(place: Place, home: Option<ChannelId>) -> Result<Door, Closed> {
        door(Author::Owner, place, home, &[FORK_THREAD, SECOND_THREAD])
    }

    #[test]
    fn the_dm_and_the_home_channel_lead_to_main_and_the_fork_thread_to_its_fork() {
        assert_eq!(owner_at(DM, None), Ok(Door::Dm));
        assert_eq!(owner_at(DM, Some(HOME)), Ok(Door::Dm));
        assert_eq!(
            owner_at(Place::Server(HOME), Some(HOME)),
            Ok(Door::HomeChannel)
        );
        for thread in [FORK_THREAD, SECOND_THREAD] {
            assert_eq!(
                owner_at(Place::Server(thread), Some(HOME)),
                Ok(Door::ForkThread(thread))
            );
        }
    }

    #[test]
    fn everything_else_reaches_nothing() {
        assert_eq!(
            door(Author::Owner, Place::Server(HOME), None, &[]),
            Err(Closed::OtherChannel)
        );
        for channel in [OTHER, OLD_THREAD] {
            assert_eq!(
                owner_at(Place::Server(channel), Some(HOME)),
                Err(Closed::OtherChannel)
            );
        }
        for (author, closed) in [
            (Author::Someone, Closed::NotTheOwner),
            (Author::Bot, Closed::ByABot),
        ] {
            for place in [Place::Server(HOME), Place::Server(FORK_THREAD), DM] {
                assert_eq!(door(author, place, Some(HOME), &[FORK_THREAD]), Err(closed));
            }
        }
    }

    #[test]
    fn every_way_in_is_admitted_by_one_rule() {
        let threads = [FORK_THREAD];
        let admit_at = |way, author, place| admit(way, author, place, Some(HOME), &threads);
        let command = Way::Command { makes_home: false };
        let home_command = Way::Command { makes_home: true };
        let other = Place::Server(OTHER);
        for way in [
            Way::Message,
            Way::Typing,
            command,
            Way::Click,
            Way::Reaction,
        ] {
            assert_eq!(admit_at(way, Author::Owner, DM), Ok(Some(Door::Dm)));
            assert_eq!(
                admit_at(way, Author::Owner, Place::Server(FORK_THREAD)),
                Ok(Some(Door::ForkThread(FORK_THREAD)))
            );
            assert_eq!(admit_at(way, Author::Bot, DM), Err(Refused::Silently));
        }
        // Someone else: told only where an answer is due (a command, a click).
        for (way, refused) in [
            (Way::Message, Refused::Silently),
            (Way::Typing, Refused::Silently),
            (Way::Reaction, Refused::Silently),
            (command, Refused::NotAuthorized),
            (Way::Click, Refused::NotAuthorized),
        ] {
            assert_eq!(admit_at(way, Author::Someone, DM), Err(refused));
        }
        // The owner outside the doors: clicks, reactions and `/home` go on, door-less;
        // other commands are told where the bot answers; messages reach nothing.
        assert_eq!(admit_at(Way::Click, Author::Owner, other), Ok(None));
        assert_eq!(admit_at(Way::Reaction, Author::Owner, other), Ok(None));
        assert_eq!(admit_at(home_command, Author::Owner, other), Ok(None));
        assert_eq!(
            admit_at(command, Author::Owner, other),
            Err(Refused::Elsewhere)
        );
        assert_eq!(
            admit_at(Way::Message, Author::Owner, other),
            Err(Refused::Silently)
        );
        assert_eq!(
            admit_at(Way::Typing, Author::Owner, other),
            Err(Refused::Silently)
        );
    }
}
