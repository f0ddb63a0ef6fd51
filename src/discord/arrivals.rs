//! The messages that arrived (issue 41 §2: the router's own state): which ones this process
//! handled already, so a replayed event or a catch-up after a reconnect answers each once; the
//! newest one, where a catch-up starts; and the DMs that came before the owner was known,
//! held until then.

use std::collections::{HashSet, VecDeque};

use parking_lot::Mutex;
use serenity::model::{channel::Message, id::MessageId};

/// How many handled message ids are remembered to drop duplicates after a resume.
const SEEN_CAPACITY: usize = 512;
/// How many DMs are held while the owner is still unknown.
const EARLY_CAPACITY: usize = 20;

#[derive(Default)]
struct Seen {
    ids: HashSet<MessageId>,
    order: VecDeque<MessageId>,
    newest: Option<MessageId>,
}

/// The messages that arrived, handled or held.
#[derive(Default)]
pub(crate) struct Arrivals {
    seen: Mutex<Seen>,
    early: Mutex<Vec<Message>>,
}

impl Arrivals {
    /// Records `id` as handled; false if it was handled already (a replayed event).
    pub(crate) fn first_sighting(&self, id: MessageId) -> bool {
        let mut seen = self.seen.lock();
        if !seen.ids.insert(id) {
            return false;
        }
        seen.order.push_back(id);
        if seen.order.len() > SEEN_CAPACITY
            && let Some(oldest) = seen.order.pop_front()
        {
            seen.ids.remove(&oldest);
        }
        if seen.newest.is_none_or(|newest| id > newest) {
            seen.newest = Some(id);
        }
        true
    }

    /// Whether `id` was handled (among the last ones remembered).
    pub(crate) fn was_seen(&self, id: MessageId) -> bool {
        self.seen.lock().ids.contains(&id)
    }

    /// The newest message handled (or marked with [`Self::catch_up_from`]).
    pub(crate) fn newest(&self) -> Option<MessageId> {
        self.seen.lock().newest
    }

    /// Marks `id` as the point a catch-up starts from when no newer message was handled
    /// (the greeting, posted once connected: a DM sent while the gateway is away is fetched
    /// after the reconnect even before the owner's first message, issue 16). Ids are
    /// Discord's, so the local clock does not matter.
    pub(crate) fn catch_up_from(&self, id: MessageId) {
        let mut seen = self.seen.lock();
        if seen.newest.is_none_or(|newest| id > newest) {
            seen.newest = Some(id);
        }
    }

    /// Holds a DM that arrived before the owner was known (bounded: the rest are dropped).
    pub(crate) fn hold_early(&self, message: Message) {
        let mut early = self.early.lock();
        if early.len() < EARLY_CAPACITY {
            tracing::debug!(id = %message.id, "a DM before the owner is known: held until then");
            early.push(message);
        }
    }

    /// The DMs held until the owner was known, taken.
    pub(crate) fn take_early(&self) -> Vec<Message> {
        std::mem::take(&mut *self.early.lock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_is_seen_once_and_the_newest_is_where_a_catch_up_starts() {
        let arrivals = Arrivals::default();
        assert!(arrivals.first_sighting(MessageId::new(10)));
        assert!(!arrivals.first_sighting(MessageId::new(10)), "a replay");
        assert!(arrivals.first_sighting(MessageId::new(5)));
        assert_eq!(arrivals.newest(), Some(MessageId::new(10)));
        arrivals.catch_up_from(MessageId::new(8));
        assert_eq!(arrivals.newest(), Some(MessageId::new(10)), "never back");
        arrivals.catch_up_from(MessageId::new(12));
        assert_eq!(arrivals.newest(), Some(MessageId::new(12)));
    }

    #[test]
    fn only_the_last_ids_are_remembered() {
        let arrivals = Arrivals::default();
        for id in 1..=(SEEN_CAPACITY as u64 + 1) {
            assert!(arrivals.first_sighting(MessageId::new(id)));
        }
        assert!(
            !arrivals.was_seen(MessageId::new(1)),
            "the oldest is forgotten"
        );
        assert!(arrivals.was_seen(MessageId::new(2)));
    }

    #[test]
    fn early_dms_are_held_up_to_the_cap_and_taken_once() {
        let arrivals = Arrivals::default();
        for id in 1..=(EARLY_CAPACITY as u64 + 5) {
            let mut message = Message::default();
            message.id = MessageId::new(id);
            arrivals.hold_early(message);
        }
        assert_eq!(arrivals.take_early().len(), EARLY_CAPACITY);
        assert!(arrivals.take_early().is_empty());
    }
}
