//! How far background runs may schedule one another (issue 39 §4). A background run may
//! carry someone else's words (a mail, a webhook payload, a page), so what it does to the
//! owner's reminders is bounded:
//!
//! - it cancels only the reminders its own job set (REM-15): a routine's runs those of that
//!   routine's earlier runs, a chain's links those of its other links, a webhook's runs those
//!   of that webhook's earlier runs. The owner's reminders, and other jobs', stay;
//! - it sets at most [`REMINDERS_PER_RUN`] reminders (REM-16);
//! - a line of reminders each set by the run of the one before, counted from the owner's own
//!   job, ends after [`MAX_GENERATIONS`] (REM-17). The links of a chain a background run set
//!   count as generations too, so the chain it may ask for is as long as the line has room
//!   for; a chain the owner set runs its length, as ever.
//!
//! With those numbers one fire of an owner's job leads to at most 4 + 16 + 64 later runs (three
//! reminders and one follow-up each, three generations deep). Each refusal is the tool's
//! answer, in one sentence, so the run can tell the owner.

use super::files::{Reminder, SetBy};
use crate::domain::prompt_tag::PromptTag;

/// Most reminders one background run may set with `add_reminder` (REM-16): enough for a
/// run to schedule its own checks, too few to flood the schedule.
pub const REMINDERS_PER_RUN: u32 = 3;

/// Most generations of reminders set by background runs, one after another, from an owner's
/// job (REM-17): a routine's run sets generation 1, that reminder's run generation 2, …
pub const MAX_GENERATIONS: u32 = 3;

/// What a background run acts as when it sets or cancels reminders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLineage {
    /// The job: `routine:<id>`, `reminder:<id of the chain's first link>` or `webhook:<name>`.
    job: String,
    /// Generations of background-set reminders between the owner and this run's job: 0 for
    /// the owner's own routines, reminders and webhooks.
    generation: u32,
}

impl RunLineage {
    /// A run of the owner's job that `tag` names (a routine, an owner's reminder, a webhook).
    pub fn of_tag(tag: &PromptTag) -> Self {
        let job = match tag {
            PromptTag::Routine(id) | PromptTag::RoutineBg(id) => format!("routine:{id}"),
            PromptTag::Reminder(id) | PromptTag::ReminderBg(id) => format!("reminder:{id}"),
            PromptTag::Webhook(name) => format!("webhook:{name}"),
            other => other.kind().to_owned(),
        };
        Self { job, generation: 0 }
    }

    /// A run of `reminder`: it acts for its chain (the first link's id), a generation below
    /// whoever set it.
    pub fn of_reminder(reminder: &Reminder) -> Self {
        let first = reminder.chain_parent.as_deref().unwrap_or(&reminder.id);
        Self {
            job: format!("reminder:{first}"),
            generation: reminder.set_by.generation(),
        }
    }

    /// The job the run acts for.
    pub fn job(&self) -> &str {
        &self.job
    }

    /// Generations of background-set reminders between the owner and this run.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Who a reminder this run sets, chaining `max_chain` follow-ups, is set by; or the
    /// refusal when the line of runs has no room for it (REM-17).
    pub fn child(&self, max_chain: u32) -> Result<SetBy, String> {
        let generation = self.generation + 1;
        if generation > MAX_GENERATIONS {
            return Err(format!(
                "Error: reminder not set: this run comes at the end of a line of \
                 {MAX_GENERATIONS} reminders that background runs set one after another, the \
                 most allowed, so it can't set another; tell the owner if one is needed."
            ));
        }
        let room = MAX_GENERATIONS - generation;
        if max_chain > room {
            return Err(format!(
                "Error: reminder not set: a reminder this run sets may chain at most {room} \
                 follow-ups (each is one more run scheduled by a run, at most \
                 {MAX_GENERATIONS} in a line), so ask for max_chain {room} or less."
            ));
        }
        Ok(SetBy::Background {
            job: self.job.clone(),
            generation,
        })
    }

    /// Whether this run may cancel reminder `id`, whose files were set by `setters` (REM-15):
    /// only when its own job set every one of them.
    pub fn may_cancel(&self, id: &str, setters: &[Option<SetBy>]) -> Result<(), String> {
        let other = setters
            .iter()
            .find(|setter| !setter.as_ref().is_some_and(|s| s.is_job(&self.job)));
        match other {
            None => Ok(()),
            Some(setter) => Err(format!(
                "Error: reminder {id} not cancelled: a background run can cancel only the \
                 reminders its own job ({}) set, and {id} was set by {}.",
                self.job,
                setter
                    .as_ref()
                    .map_or_else(|| "someone the bot can't tell".to_owned(), SetBy::describe)
            )),
        }
    }
}

/// Who the follow-up of a chain set by `origin` is set by (REM-17): the owner's chain stays
/// the owner's, whatever its length; a background run's chain moves a generation down, and
/// stops at the bound.
pub fn follow_up_set_by(origin: &SetBy) -> Result<SetBy, String> {
    match origin {
        SetBy::Owner => Ok(SetBy::Owner),
        SetBy::Background { generation, .. } if *generation >= MAX_GENERATIONS => Err(format!(
            "Error: follow-up not scheduled: this chain was set by a background run, and its \
             next check would be more than {MAX_GENERATIONS} runs scheduled one by another; \
             if the task still needs attention, tell the owner now."
        )),
        SetBy::Background { job, generation } => Ok(SetBy::Background {
            job: job.clone(),
            generation: generation + 1,
        }),
    }
}

#[cfg(test)]
#[path = "lineage_tests.rs"]
mod tests;
