//! Reminder chains (REM-6…9, MCP-13): the firing reminder is made available to
//! `follow_up_chain` for the duration of its run, and a follow-up is an ordinary reminder file
//! carrying the whole background configuration one link further down the chain. A fire
//! schedules one next check at most (REM-18): a chain is a line of runs, never a tree.

use chrono::Duration;
use chrono_tz::Tz;
use parking_lot::Mutex;

use super::{files::Reminder, lineage::follow_up_set_by};

/// Answer when no chain reminder is running (MCP-13).
pub const NO_CHAIN: &str = "Error: no active reminder context";
/// Answer on the final check of a chain (MCP-13, F-19).
pub const CHAIN_LIMIT: &str = "Error: follow-up limit reached — this was the last check. If the \
                               task still needs attention, ping the user now.";

/// The chain reminder a run is executing, if any, and the next check it scheduled. Background
/// runs get their own slot; the main session's slot is filled only while a foreground chain
/// reminder runs (REM-8).
#[derive(Debug, Default)]
pub struct ChainSlot(Mutex<Option<Link>>);

/// A running chain reminder.
#[derive(Debug)]
struct Link {
    reminder: Reminder,
    /// The id of the follow-up this fire scheduled, once it has (REM-18).
    next: Option<String>,
}

impl Link {
    fn of(reminder: Option<Reminder>) -> Option<Self> {
        reminder.filter(|r| r.max_chain > 0).map(|reminder| Self {
            reminder,
            next: None,
        })
    }
}

impl ChainSlot {
    /// A slot holding `reminder` when it is part of a chain.
    pub fn with(reminder: Option<Reminder>) -> Self {
        Self(Mutex::new(Link::of(reminder)))
    }

    /// Sets (or clears) the running chain reminder.
    pub fn set(&self, reminder: Option<Reminder>) {
        *self.0.lock() = Link::of(reminder);
    }

    /// The running chain reminder.
    pub fn get(&self) -> Option<Reminder> {
        self.0.lock().as_ref().map(|link| link.reminder.clone())
    }

    /// The next link of the running chain, `minutes` from `now`, or the error text the agent
    /// reads. A fire gets one (REM-18): the claim holds until [`Self::release_follow_up`].
    pub fn claim_follow_up(
        &self,
        minutes: i64,
        now: chrono::DateTime<Tz>,
    ) -> Result<Reminder, String> {
        let mut slot = self.0.lock();
        let Some(link) = slot.as_mut() else {
            return Err(NO_CHAIN.to_owned());
        };
        if let Some(next) = &link.next {
            return Err(format!(
                "Error: this check already scheduled the chain's next one ({next}); a chain has \
                 one next check at a time."
            ));
        }
        let next = follow_up(Some(&link.reminder), minutes, now)?;
        link.next = Some(next.id.clone());
        Ok(next)
    }

    /// Gives back the claim of a follow-up that could not be written.
    pub fn release_follow_up(&self) {
        if let Some(link) = self.0.lock().as_mut() {
            link.next = None;
        }
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
    // REM-17: a background run's chain is a line of runs scheduled by runs.
    next.set_by = follow_up_set_by(&origin.set_by)?;
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
        let mut reminder = Reminder::new_in(10, "check CI", chrono::Utc::now().with_timezone(&tz));
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

    /// REM-17: a background run's chain moves a generation down with each follow-up and ends
    /// at the bound; the owner's stays the owner's.
    #[test]
    fn a_runs_chain_counts_its_follow_ups_as_generations() {
        use crate::scheduling::{files::SetBy, lineage::MAX_GENERATIONS};
        let now = chrono_tz::UTC
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .unwrap();
        let owners = follow_up(Some(&chain(0, 9)), 5, now).unwrap();
        assert_eq!(owners.set_by, SetBy::Owner);
        let mut root = chain(0, 9);
        root.set_by = SetBy::Background {
            job: "routine:r".into(),
            generation: MAX_GENERATIONS - 1,
        };
        let last = follow_up(Some(&root), 5, now).unwrap();
        assert_eq!(last.set_by.generation(), MAX_GENERATIONS);
        assert!(follow_up(Some(&last), 5, now).is_err());
    }

    /// REM-18: a fire schedules one next check; one that could not be written frees the claim.
    #[test]
    fn a_fire_schedules_one_next_check() {
        let now = chrono_tz::UTC
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .unwrap();
        let slot = ChainSlot::with(Some(chain(0, 5)));
        let first = slot.claim_follow_up(5, now).unwrap();
        slot.release_follow_up();
        let next = slot.claim_follow_up(5, now).unwrap();
        assert_ne!(next.id, first.id);
        let again = slot.claim_follow_up(5, now).unwrap_err();
        assert!(again.contains(&next.id), "{again}");
        assert_eq!(
            ChainSlot::default().claim_follow_up(5, now).unwrap_err(),
            NO_CHAIN
        );
        // The final check still answers with the limit (F-19).
        let last = ChainSlot::with(Some(chain(5, 5)));
        assert_eq!(last.claim_follow_up(5, now).unwrap_err(), CHAIN_LIMIT);
    }
}
