//! Reminder chains (REM-6…9, MCP-13): the firing reminder is made available to
//! `follow_up_chain` for the duration of its run, and a follow-up is an ordinary reminder file
//! carrying the whole background configuration one link further down the chain.

use chrono::Duration;
use chrono_tz::Tz;
use parking_lot::Mutex;

use super::files::Reminder;

/// Answer when no chain reminder is running (MCP-13).
pub const NO_CHAIN: &str = "Error: no active reminder context";
/// Answer on the final check of a chain (MCP-13, F-19).
pub const CHAIN_LIMIT: &str = "Error: follow-up limit reached — this was the last check. If the \
                               task still needs attention, ping the user now.";

/// The chain reminder a run is executing, if any. Background runs get their own slot; the
/// main session's slot is filled only while a foreground chain reminder runs (REM-8).
#[derive(Debug, Default)]
pub struct ChainSlot(Mutex<Option<Reminder>>);

impl ChainSlot {
    /// A slot holding `reminder` when it is part of a chain.
    pub fn with(reminder: Option<Reminder>) -> Self {
        Self(Mutex::new(reminder.filter(|r| r.max_chain > 0)))
    }

    /// Sets (or clears) the running chain reminder.
    pub fn set(&self, reminder: Option<Reminder>) {
        *self.0.lock() = reminder.filter(|r| r.max_chain > 0);
    }

    /// The running chain reminder.
    pub fn get(&self) -> Option<Reminder> {
        self.0.lock().clone()
    }
}

/// The next link of `origin`'s chain, `minutes` from `now`, or the error text the agent reads.
pub fn follow_up(
    origin: Option<&Reminder>,
    minutes: i64,
    now: chrono::DateTime<Tz>,
) -> Result<Reminder, String> {
    let Some(origin) = origin.filter(|r| r.max_chain > 0) else {
        return Err(NO_CHAIN.to_owned());
    };
    if origin.chain_depth >= origin.max_chain {
        return Err(CHAIN_LIMIT.to_owned());
    }
    if minutes < 1 {
        return Err("Error: minutes_from_now must be at least 1.".to_owned());
    }
    let mut next = origin.clone();
    next.id = super::files::new_id();
    next.chain_depth = origin.chain_depth + 1;
    next.chain_parent = Some(
        origin
            .chain_parent
            .clone()
            .unwrap_or_else(|| origin.id.clone()),
    );
    next.run_at = (now + Duration::minutes(minutes)).fixed_offset();
    // NAG-8: the follow-up is the agent's own later check; the origin's nag, if it has one,
    // stays open on its own until answered, so the follow-up doesn't open a second one.
    next.until_done = None;
    Ok(next)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::domain::job_options::{BgSession, RunMode};

    fn chain(depth: u32, max: u32) -> Reminder {
        let tz = chrono_tz::America::Los_Angeles;
        let mut reminder = Reminder::new_in(10, "check CI", tz);
        reminder.max_chain = max;
        reminder.chain_depth = depth;
        reminder.run = RunMode::Background(BgSession::Isolated);
        reminder.options.allow_ping = false;
        reminder.options.skills = vec!["ci".into()];
        reminder
    }

    #[test]
    fn a_follow_up_carries_the_configuration_one_link_down() {
        let now = chrono_tz::America::Los_Angeles
            .with_ymd_and_hms(2026, 11, 21, 9, 0, 0)
            .unwrap();
        let mut root = chain(0, 2);
        root.until_done = Some(crate::scheduling::files::UntilDone::default());
        let next = follow_up(Some(&root), 15, now).unwrap();
        // NAG-8: the origin's nag stays its own; the follow-up doesn't open another.
        assert_eq!(next.until_done, None);
        assert_eq!(next.chain_depth, 1);
        assert_eq!(next.max_chain, 2);
        assert_eq!(next.chain_parent.as_deref(), Some(root.id.as_str()));
        assert_ne!(next.id, root.id);
        assert_eq!(next.message, "check CI");
        assert_eq!(next.run, root.run);
        assert_eq!(next.options, root.options);
        assert_eq!(next.run_at, (now + Duration::minutes(15)).fixed_offset());
        let last = follow_up(Some(&next), 5, now).unwrap();
        assert_eq!(last.chain_parent.as_deref(), Some(root.id.as_str()));
        assert_eq!(follow_up(Some(&last), 5, now).unwrap_err(), CHAIN_LIMIT);
    }

    #[test]
    fn plain_reminders_and_no_reminder_have_no_chain() {
        let now = chrono_tz::UTC
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .unwrap();
        assert_eq!(follow_up(None, 5, now).unwrap_err(), NO_CHAIN);
        assert_eq!(follow_up(Some(&chain(0, 0)), 5, now).unwrap_err(), NO_CHAIN);
        let slot = ChainSlot::with(Some(chain(0, 0)));
        assert!(slot.get().is_none());
        slot.set(Some(chain(1, 3)));
        assert_eq!(slot.get().unwrap().chain_depth, 1);
    }
}
