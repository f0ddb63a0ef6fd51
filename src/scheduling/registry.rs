//! The scheduler's bookkeeping, free of I/O: which routines and reminders are registered, when
//! each fires next, and what is due now (SCH-2, RTN-5, REM-1, REM-4, REM-12).
//!
//! Fire times are recomputed from "now" after every fire, so a clock change or a DST switch
//! never leaves a job an hour off.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration};
use chrono_tz::Tz;

use super::{
    cron::CronSchedule,
    files::{FileProblem, JobFile, Reminder, Routine},
};
use crate::scheduling::forward::{ChainPosition, ScheduledJob, ScheduledKind};

/// How long after registration an overdue reminder fires (REM-4).
pub const OVERDUE_DELAY: Duration = Duration::seconds(5);
/// A reminder this late at registration is "late" (missed while the bot was down); anything
/// less is just the sync interval and fires at once without the marker.
pub const LATE_AFTER: Duration = Duration::seconds(30);

struct RoutineJob {
    file: JobFile<Routine>,
    schedule: CronSchedule,
    next: Option<DateTime<Tz>>,
}

struct ReminderJob {
    file: JobFile<Reminder>,
    due: DateTime<Tz>,
    late: Option<DateTime<Tz>>,
    fired: bool,
}

/// A job that is due.
#[derive(Debug, Clone)]
pub enum Fire {
    /// A routine at its cron time.
    Routine(JobFile<Routine>),
    /// A reminder; `late` holds its original time when it was overdue at registration.
    Reminder {
        /// The reminder.
        file: JobFile<Reminder>,
        /// The time it was meant for, when it fires late.
        late: Option<DateTime<Tz>>,
    },
}

/// What a sync changed that the scheduler must act on.
#[derive(Debug, Default)]
pub struct SyncOutcome {
    /// Routines whose cron could not be used (SCH-7).
    pub problems: Vec<FileProblem>,
    /// Routine ids whose files are gone.
    pub removed_routines: Vec<String>,
}

/// Registered routines and reminders.
#[derive(Default)]
pub struct Registry {
    routines: BTreeMap<String, RoutineJob>,
    reminders: BTreeMap<String, ReminderJob>,
}

impl Registry {
    /// Number of registered jobs (reminders already fired excluded).
    pub fn len(&self) -> usize {
        self.routines.len() + self.reminders.values().filter(|r| !r.fired).count()
    }

    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Brings the registry in line with the files: new and edited jobs are (re)registered,
    /// jobs whose files vanished are dropped. A fired reminder stays until its file is gone.
    pub fn sync(
        &mut self,
        routines: Vec<JobFile<Routine>>,
        reminders: Vec<JobFile<Reminder>>,
        now: DateTime<Tz>,
    ) -> SyncOutcome {
        let mut outcome = SyncOutcome::default();
        let mut seen = BTreeSet::new();
        for file in routines {
            let id = file.item.id.clone();
            if !seen.insert(id.clone()) {
                tracing::warn!(id, path = %file.path.display(), "another routine already has this id; skipped");
                continue;
            }
            if self.routines.get(&id).is_some_and(|job| job.file == file) {
                continue;
            }
            match CronSchedule::parse(&file.item.cron) {
                Ok(schedule) => {
                    let next = schedule.next_after(now);
                    self.routines.insert(
                        id,
                        RoutineJob {
                            file,
                            schedule,
                            next,
                        },
                    );
                }
                Err(error) => {
                    self.routines.remove(&id);
                    outcome.problems.push(FileProblem {
                        path: file.path.clone(),
                        reason: error.to_string(),
                    });
                }
            }
        }
        self.routines.retain(|id, _| {
            let keep = seen.contains(id);
            if !keep {
                outcome.removed_routines.push(id.clone());
            }
            keep
        });
        let mut present = BTreeSet::new();
        for file in reminders {
            let id = file.item.id.clone();
            if !present.insert(id.clone()) {
                tracing::warn!(id, path = %file.path.display(), "another reminder already has this id; skipped");
                continue;
            }
            match self.reminders.get(&id) {
                Some(job) if job.fired || job.file == file => continue,
                _ => {}
            }
            let run_at = file.item.run_at.with_timezone(&now.timezone());
            let (due, late) = if run_at < now - LATE_AFTER {
                (now + OVERDUE_DELAY, Some(run_at))
            } else {
                (run_at, None)
            };
            self.reminders.insert(
                id,
                ReminderJob {
                    file,
                    due,
                    late,
                    fired: false,
                },
            );
        }
        self.reminders.retain(|id, _| {
            let kept = present.contains(id);
            if !kept {
                tracing::debug!(id, "reminder forgotten: its file is gone");
            }
            kept
        });
        outcome
    }

    /// A fired reminder that could not run yet (today's background budget is spent, USE-6):
    /// due again at `retry`, marked late with its original time.
    pub fn defer_reminder(&mut self, id: &str, retry: DateTime<Tz>) {
        if let Some(job) = self.reminders.get_mut(id) {
            let original = job.file.item.run_at.with_timezone(&retry.timezone());
            job.late = job.late.or(Some(original));
            job.due = retry;
            job.fired = false;
        }
    }

    /// When the next job is due.
    pub fn next_wake(&self) -> Option<DateTime<Tz>> {
        let routines = self.routines.values().filter_map(|job| job.next);
        let reminders = self
            .reminders
            .values()
            .filter(|job| !job.fired)
            .map(|job| job.due);
        routines.chain(reminders).min()
    }

    /// After the clock jumped forward from `since` to `now` (a suspend, an NTP step), the gap
    /// counts as time offline: routines whose fire fell in it move on to their next fire
    /// without firing (their missed fires are reported, RTN-5), and reminders that fell due
    /// in it fire marked late, as at start-up (REM-12). Returns the routines passed over.
    pub fn pass_over_gap(
        &mut self,
        since: DateTime<Tz>,
        now: DateTime<Tz>,
    ) -> Vec<JobFile<Routine>> {
        let mut passed = Vec::new();
        for job in self.routines.values_mut() {
            if job.next.is_some_and(|next| next > since && next <= now) {
                passed.push(job.file.clone());
                job.next = job.schedule.next_after(now);
            }
        }
        for job in self.reminders.values_mut() {
            if !job.fired && job.due > since && job.due <= now && job.late.is_none() {
                job.late = Some(job.due);
            }
        }
        passed
    }

    /// Takes every job due at `now`; routines move on to their next fire after `now`.
    pub fn take_due(&mut self, now: DateTime<Tz>) -> Vec<Fire> {
        let mut due = Vec::new();
        for job in self.routines.values_mut() {
            if job.next.is_some_and(|next| next <= now) {
                due.push(Fire::Routine(job.file.clone()));
                job.next = job.schedule.next_after(now);
            }
        }
        for job in self.reminders.values_mut() {
            if !job.fired && job.due <= now {
                job.fired = true;
                due.push(Fire::Reminder {
                    file: job.file.clone(),
                    late: job.late,
                });
            }
        }
        due
    }

    /// The background jobs as the forward schedule needs them (BGF-15).
    pub fn scheduled_jobs(&self, now: DateTime<Tz>) -> Vec<ScheduledJob> {
        let routines = self
            .routines
            .values()
            .filter(|job| job.file.item.run.is_background())
            .map(|job| {
                let routine = &job.file.item;
                ScheduledJob {
                    id: routine.id.clone(),
                    kind: ScheduledKind::Routine {
                        previous_fire: job.schedule.last_at_or_before(now, Duration::minutes(15)),
                        next_fire: job.schedule.next_after(now),
                    },
                    allow_ping: routine.options.allow_ping,
                    description: Some(routine.description.clone()).filter(|d| !d.is_empty()),
                    body: routine.message.clone(),
                    file_path: job.file.path.display().to_string(),
                }
            });
        let reminders = self
            .reminders
            .values()
            .filter(|job| job.file.item.run.is_background())
            .map(|job| {
                let reminder = &job.file.item;
                ScheduledJob {
                    id: reminder.id.clone(),
                    kind: ScheduledKind::Reminder {
                        run_at: reminder.run_at.with_timezone(&now.timezone()),
                        chain: (reminder.max_chain > 0).then_some(ChainPosition {
                            depth: reminder.chain_depth,
                            max: reminder.max_chain,
                        }),
                    },
                    allow_ping: reminder.options.allow_ping,
                    description: Some(reminder.description.clone()).filter(|d| !d.is_empty()),
                    body: reminder.message.clone(),
                    file_path: job.file.path.display().to_string(),
                }
            });
        routines.chain(reminders).collect()
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
