//! Where the bot talks with the owner (CHN-1, CHN-5, CHN-6): their DM, the home channel when
//! one is set, the threads of the forks opened there, and which of them the conversation is
//! shown in now.
//!
//! The home channel and where unasked messages go are settings (`home_channel`, `notify_in`
//! in `state/config.json`), read from there each time; only the DM channel (learnt at
//! start-up), the open forks' threads and the conversation's current place live here.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use serenity::model::id::ChannelId;

use crate::{
    config::runtime::{NotifyPlace, RuntimeSettings, ThreadKind},
    front_end::{Branch, ForkId, TurnPlace},
};

/// The owner's places, shared by the front ends, the router and the parts.
pub struct Places {
    dm: OnceLock<ChannelId>,
    runtime: Arc<RuntimeSettings>,
    /// `OLLIM_HOME_CHANNEL`, standing in while the owner hasn't chosen with `/home`.
    home_from_env: Option<u64>,
    /// Where the conversation's last turn was shown; `None` until the first one.
    conversation: Mutex<Option<ChannelId>>,
    /// The threads of the forks open in the home channel, each with its fork.
    fork_threads: Mutex<Vec<(ForkId, ChannelId)>>,
    /// A home channel the start-up check found the bot can't use, and why (CHN-10).
    unusable_home: Mutex<Option<(ChannelId, String)>>,
}

impl Places {
    /// Places that read the home channel and `notify_in` from `runtime`, with `home_from_env`
    /// (`OLLIM_HOME_CHANNEL`) standing in for an unchosen home channel.
    pub fn new(runtime: Arc<RuntimeSettings>, home_from_env: Option<u64>) -> Self {
        Self {
            dm: OnceLock::new(),
            runtime,
            home_from_env,
            conversation: Mutex::new(None),
            fork_threads: Mutex::default(),
            unusable_home: Mutex::default(),
        }
    }

    /// Notes that the bot can't use `channel` as its home, and `why` (CHN-10); `None`: it can
    /// (again).
    pub fn home_unusable(&self, channel: ChannelId, why: Option<String>) {
        *self.unusable_home.lock() = why.map(|why| (channel, why));
    }

    /// Why the bot can't use the home channel set now, when the start-up check found so
    /// (CHN-10).
    pub fn unusable_home(&self) -> Option<(ChannelId, String)> {
        let home = self.home()?;
        self.unusable_home
            .lock()
            .clone()
            .filter(|(channel, _)| *channel == home)
    }

    /// The owner's DM channel, once open.
    pub fn dm(&self) -> Option<ChannelId> {
        self.dm.get().copied()
    }

    /// Records the owner's DM channel (the first one learnt wins).
    pub fn learn_dm(&self, channel: ChannelId) {
        let _ = self.dm.set(channel);
    }

    /// The kind of thread a fork in the home channel gets (`fork_threads`, issue 41 §1).
    pub fn thread_kind(&self) -> ThreadKind {
        self.runtime.current().fork_threads
    }

    /// The home channel, when one is set.
    pub fn home(&self) -> Option<ChannelId> {
        let setting = self.runtime.current().home_channel;
        setting.channel(self.home_from_env).map(ChannelId::new)
    }

    /// Where messages the owner didn't ask for go: the home channel when they chose it and one
    /// is set, else the DM.
    pub fn unasked(&self) -> Option<ChannelId> {
        match (self.runtime.current().notify_in, self.home()) {
            (NotifyPlace::Home, Some(home)) => Some(home),
            _ => self.dm(),
        }
    }

    /// `fork`'s thread, while it has one.
    pub fn fork_thread(&self, fork: ForkId) -> Option<ChannelId> {
        self.fork_threads
            .lock()
            .iter()
            .find_map(|(id, thread)| (*id == fork).then_some(*thread))
    }

    /// The fork whose thread `channel` is, if it is one.
    pub fn fork_in(&self, channel: ChannelId) -> Option<ForkId> {
        self.fork_threads
            .lock()
            .iter()
            .find_map(|(id, thread)| (*thread == channel).then_some(*id))
    }

    /// The open forks' threads, oldest first.
    pub fn open_threads(&self) -> Vec<ChannelId> {
        self.fork_threads
            .lock()
            .iter()
            .map(|(_, thread)| *thread)
            .collect()
    }

    /// `fork`, opened in the home channel, lives in `thread` from now on; main's
    /// conversation stays where it is (issue 41 §1).
    pub fn open_fork_thread(&self, fork: ForkId, thread: ChannelId) {
        self.fork_threads.lock().push((fork, thread));
    }

    /// `fork`'s thread is done with: its outcome goes to the home channel, beside the
    /// thread (CHN-7). Returns the thread.
    pub fn close_fork_thread(&self, fork: ForkId) -> Option<ChannelId> {
        let thread = {
            let mut threads = self.fork_threads.lock();
            let at = threads.iter().position(|(id, _)| *id == fork)?;
            threads.remove(at).1
        };
        if let Some(home) = self.home() {
            *self.conversation.lock() = Some(home);
        }
        Some(thread)
    }

    /// Where main's conversation (or a fork without a thread) is shown now: where its last
    /// turn went, else where unasked messages go. A home channel unset since is left for the
    /// place unasked messages go.
    pub fn conversation(&self) -> Option<ChannelId> {
        let current = *self.conversation.lock();
        match current {
            Some(channel) if [self.dm(), self.home()].contains(&Some(channel)) => Some(channel),
            _ => self.unasked(),
        }
    }

    /// Moves the conversation to where the next turn's output goes. A fork with a thread
    /// answers there through a front end of its own and moves nothing; main (and a fork
    /// without a thread) never answers in a fork's thread.
    pub fn answer_in(&self, place: TurnPlace, branch: Branch) {
        if let Branch::Fork(fork) = branch
            && self.fork_thread(fork).is_some()
        {
            return;
        }
        let mut conversation = self.conversation.lock();
        let next = match place {
            TurnPlace::AskedIn(place) => Some(ChannelId::new(place.0)),
            TurnPlace::Unasked => self.unasked(),
            TurnPlace::Conversation => *conversation,
        };
        let next = match next {
            Some(channel) if self.fork_in(channel).is_some() => self.home(),
            other => other,
        };
        if next.is_some() {
            *conversation = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front_end::ReplyPlace;

    fn places(settings: &[(&str, &str)]) -> (tempfile::TempDir, Places) {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Arc::new(RuntimeSettings::new(dir.path().join("config.json")));
        for (key, value) in settings {
            let key = crate::config::runtime::ConfigKey::from_name(key).unwrap();
            runtime.update(key, value).unwrap();
        }
        let places = Places::new(runtime, None);
        places.learn_dm(ChannelId::new(5));
        (dir, places)
    }

    #[test]
    fn unasked_messages_go_to_the_dm_unless_the_owner_chose_a_set_home_channel() {
        let (_dir, only_dm) = places(&[("notify_in", "home")]);
        assert_eq!(only_dm.unasked(), Some(ChannelId::new(5)));
        let (_dir, home_set) = places(&[("home_channel", "77")]);
        assert_eq!(home_set.unasked(), Some(ChannelId::new(5)));
        let (_dir, chosen) = places(&[("home_channel", "77"), ("notify_in", "home")]);
        assert_eq!(chosen.unasked(), Some(ChannelId::new(77)));
    }

    #[test]
    fn the_conversation_follows_the_owner_and_scheduled_turns_go_where_chosen() {
        let (_dir, places) = places(&[("home_channel", "77"), ("notify_in", "home")]);
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(5)), Branch::Main);
        assert_eq!(places.conversation(), Some(ChannelId::new(5)));
        places.answer_in(TurnPlace::Conversation, Branch::Main);
        assert_eq!(places.conversation(), Some(ChannelId::new(5)));
        places.answer_in(TurnPlace::Unasked, Branch::Main);
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
    }

    #[test]
    fn a_home_channel_unset_since_gives_the_conversation_back_to_the_dm() {
        let (_dir, places) = places(&[("home_channel", "77")]);
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(77)), Branch::Main);
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
        let key = crate::config::runtime::ConfigKey::HomeChannel;
        places.runtime.update(key, "off").unwrap();
        assert_eq!(places.conversation(), Some(ChannelId::new(5)));
    }

    #[test]
    fn the_env_home_channel_stands_in_until_the_owner_chooses() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Arc::new(RuntimeSettings::new(dir.path().join("config.json")));
        let places = Places::new(Arc::clone(&runtime), Some(88));
        assert_eq!(places.home(), Some(ChannelId::new(88)));
        let key = crate::config::runtime::ConfigKey::HomeChannel;
        runtime.update(key, "77").unwrap();
        assert_eq!(places.home(), Some(ChannelId::new(77)));
        runtime.update(key, "off").unwrap();
        assert_eq!(places.home(), None);
    }

    #[test]
    fn a_fork_thread_leaves_main_where_it_is_and_gives_the_outcome_to_the_channel() {
        let (_dir, places) = places(&[("home_channel", "77")]);
        let (fork, other) = (ForkId(1), ForkId(2));
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(77)), Branch::Main);
        places.open_fork_thread(fork, ChannelId::new(90));
        places.open_fork_thread(other, ChannelId::new(91));
        assert_eq!(places.fork_in(ChannelId::new(91)), Some(other));
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
        // The owner moves to the DM: main answers there; the forks' turns move nothing.
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(5)), Branch::Main);
        places.answer_in(TurnPlace::Conversation, Branch::Fork(fork));
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(91)), Branch::Fork(other));
        assert_eq!(places.conversation(), Some(ChannelId::new(5)));
        // Main never answers in the thread, even asked there.
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(90)), Branch::Main);
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(5)), Branch::Main);
        assert_eq!(places.close_fork_thread(fork), Some(ChannelId::new(90)));
        assert_eq!(places.open_threads(), vec![ChannelId::new(91)]);
        assert_eq!(places.conversation(), Some(ChannelId::new(77)));
        // A message queued in the closed thread is not answered there.
        places.answer_in(TurnPlace::AskedIn(ReplyPlace(90)), Branch::Main);
        assert_ne!(places.conversation(), Some(ChannelId::new(90)));
    }
}
