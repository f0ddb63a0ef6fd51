//! Firing what is due: a span per fire, the foreground/background split, the checks a
//! foreground job must pass, persistent routines that never overlap, and removing a fired
//! reminder's file. Every fire is a task the scheduler owns.

use std::sync::Arc;

use chrono::DateTime;
use chrono_tz::Tz;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Scheduler;
use crate::{
    domain::{
        job_options::{BgSession, RunOptions},
        nag::NagPolicy,
        open_nag::{OpenNag, label_of},
    },
    scheduling::{
        bg_job::BgJob,
        files::{Commit, JobFile, Reminder, Routine, remove_reminder},
        job_sink::{BgFate, ForegroundJob, JobSink, refusal_update},
        jobs::{reminder_job, reminder_prompt, routine_job, routine_prompt},
        persistent_guard::PersistentGuard,
        registry::Fire,
    },
    services::Services,
    skills::leading_command,
    tool_policy::Source,
};

impl Scheduler {
    #[allow(clippy::similar_names)] // a `fire` and its job `file` are the domain's own words
    pub(super) fn fire(&self, fire: Fire, stop: &CancellationToken) {
        let span = match &fire {
            Fire::Routine(file) => tracing::info_span!("fire", routine = %file.item.id),
            Fire::Reminder { file, .. } => tracing::info_span!("fire", reminder = %file.item.id),
        };
        let _entered = span.enter();
        match fire {
            Fire::Routine(file) => self.fire_routine(file, stop),
            Fire::Reminder { file, late } => self.fire_reminder(file, late, stop),
        }
    }

    fn fire_routine(&self, file: JobFile<Routine>, stop: &CancellationToken) {
        let routine = file.item;
        tracing::info!(
            id = routine.id,
            background = routine.run.is_background(),
            "routine fired"
        );
        let Some(session) = routine.run.background() else {
            let source = Source::Routine(routine.id.clone());
            let scope = routine.approval_scope();
            let Some(granted) =
                self.admitted_in_foreground(&source, scope.version(), &file.path, &routine.options)
            else {
                return;
            };
            warn_foreground_model(&routine.id, &routine.options);
            let job = ForegroundJob {
                prompt: routine_prompt(&routine, self.command_first(&routine.message)),
                chain: None,
                granted,
            };
            let after = AfterFire {
                remove: None,
                nag: NagSeed::of_routine(&routine),
            };
            self.spawn_foreground(job, after, stop);
            return;
        };
        let guard = if session == BgSession::Persistent {
            let Some(guard) = PersistentGuard::take(&self.running_persistent, &routine.id) else {
                tracing::warn!(
                    id = routine.id,
                    "persistent routine still running; this fire is skipped"
                );
                return;
            };
            Some(guard)
        } else {
            None
        };
        let mut job = routine_job(&routine, Some(self.schedule_text(&routine.id)));
        job.file = Some(file.path);
        let after = AfterFire {
            remove: None,
            nag: NagSeed::of_routine(&routine),
        };
        self.spawn_background(job, after, guard, stop);
    }

    fn fire_reminder(
        &self,
        file: JobFile<Reminder>,
        late: Option<DateTime<Tz>>,
        stop: &CancellationToken,
    ) {
        let reminder = file.item;
        tracing::info!(
            id = reminder.id,
            background = reminder.run.is_background(),
            late = late.is_some(),
            "reminder fired"
        );
        let after = AfterFire {
            remove: Some(reminder.id.clone()),
            nag: NagSeed::of_reminder(&reminder),
        };
        if reminder.run.is_background() {
            let mut job = reminder_job(&reminder, late, Some(self.schedule_text(&reminder.id)));
            job.file = Some(file.path);
            self.spawn_background(job, after, None, stop);
        } else {
            let source = Source::Reminder(reminder.id.clone());
            let scope = reminder.approval_scope();
            let Some(granted) = self.admitted_in_foreground(
                &source,
                scope.version(),
                &file.path,
                &reminder.options,
            ) else {
                remove_fired(&self.services, &reminder.id);
                return;
            };
            warn_foreground_model(&reminder.id, &reminder.options);
            let job = ForegroundJob {
                prompt: reminder_prompt(&reminder, late, self.command_first(&reminder.message)),
                chain: Some(reminder),
                granted,
            };
            self.spawn_foreground(job, after, stop);
        }
    }

    /// The tools a foreground job's turn is granted, or `None` when it must not run (SCH-8: a
    /// refused tool pattern, BGF-23, or a missing skill, SKL-3); the owner then hears why
    /// through a pending update.
    fn admitted_in_foreground(
        &self,
        source: &Source,
        version: &str,
        path: &std::path::Path,
        options: &RunOptions,
    ) -> Option<Vec<String>> {
        let reason = match self.sink.admit_foreground(source, version, options) {
            Ok(granted) => return Some(granted),
            Err(reason) => reason,
        };
        tracing::error!(%source, "{reason}; the job is not run");
        let update = refusal_update(source, Some(path), &reason);
        let services = Arc::clone(&self.services);
        self.tasks.spawn(async move {
            if let Err(error) = services.pending.append(&update) {
                tracing::warn!(%error, "could not queue a pending update");
            }
        });
        None
    }

    /// Whether a foreground job's body starts with an approved skill or command, which then
    /// goes first in its prompt (CTX-11).
    fn command_first(&self, body: &str) -> bool {
        leading_command(body, &self.services.data_dir).is_some()
    }

    fn spawn_foreground(&self, job: ForegroundJob, after: AfterFire, stop: &CancellationToken) {
        let sink = Arc::clone(&self.sink);
        let services = Arc::clone(&self.services);
        let stop = stop.clone();
        let fire = async move {
            tokio::select! {
                () = stop.cancelled() => return,
                outcome = sink.run_foreground(job) => if let Err(error) = outcome {
                    tracing::warn!(%error, "a foreground fire failed");
                    sink.tell_owner("a scheduled message couldn't be delivered — the connection to Claude was lost.".to_owned()).await;
                },
            }
            after.ran(sink.as_ref(), &services).await;
        };
        // The fire's span (entered in `fire`) follows it into its task.
        self.tasks.spawn(fire.in_current_span());
    }

    fn spawn_background(
        &self,
        job: BgJob,
        after: AfterFire,
        guard: Option<PersistentGuard>,
        stop: &CancellationToken,
    ) {
        let sink = Arc::clone(&self.sink);
        let services = Arc::clone(&self.services);
        let registry = Arc::clone(&self.registry);
        let rescheduled = Arc::clone(&self.rescheduled);
        let retry_in = self.sync_interval;
        let stop = stop.clone();
        let fire = async move {
            let _guard = guard;
            let fate = tokio::select! {
                () = stop.cancelled() => return,
                fate = sink.run_background(job) => fate,
            };
            match (fate, after.remove.clone()) {
                (BgFate::Ran, _) => after.ran(sink.as_ref(), &services).await,
                (BgFate::OverBudget, None) => {}
                // Over today's budget a reminder keeps its file and is tried again every sync
                // interval: it runs once the budget is raised or the day turns (USE-6).
                (BgFate::OverBudget, Some(id)) => {
                    let tz = services.config.timezone;
                    let retry = services.clock.now().with_timezone(&tz)
                        + chrono::Duration::from_std(retry_in)
                            .unwrap_or(chrono::Duration::minutes(1));
                    registry.lock().defer_reminder(&id, retry);
                    rescheduled.notify_one();
                }
            }
        };
        self.tasks.spawn(fire.in_current_span());
    }
}

/// What follows a fire that ran (or failed, the owner told): a reminder's file is removed, and
/// a job that stays open until answered opens (NAG-4).
struct AfterFire {
    /// The reminder whose file goes.
    remove: Option<String>,
    /// What opens.
    nag: Option<NagSeed>,
}

impl AfterFire {
    async fn ran(self, sink: &dyn JobSink, services: &Services) {
        if let Some(seed) = self.nag {
            let nag = OpenNag::open(
                seed.id,
                seed.label,
                seed.message,
                seed.policy,
                services.clock.now(),
            );
            sink.open_nag(nag).await;
        }
        if let Some(id) = self.remove {
            remove_fired(services, &id);
        }
    }
}

/// The makings of an open reminder, taken from its job when it fires.
struct NagSeed {
    id: String,
    label: String,
    message: String,
    policy: NagPolicy,
}

impl NagSeed {
    fn of_reminder(reminder: &Reminder) -> Option<Self> {
        Some(Self {
            id: reminder.id.clone(),
            label: label_of(&reminder.description, &reminder.message),
            message: reminder.message.clone(),
            policy: reminder.nag_policy()?,
        })
    }

    fn of_routine(routine: &Routine) -> Option<Self> {
        Some(Self {
            id: routine.id.clone(),
            label: label_of(&routine.description, &routine.message),
            message: routine.message.clone(),
            policy: routine.until_done?.policy(),
        })
    }
}

/// A fired reminder's file is removed, whether its run succeeded or not (REM-1).
fn remove_fired(services: &Services, id: &str) {
    match remove_reminder(&services.data_dir, id, Commit::Queued(&services.git)) {
        Ok(true) => {}
        Ok(false) => tracing::debug!(id, "the fired reminder's file was already gone"),
        Err(error) => tracing::warn!(%error, id, "could not remove a fired reminder"),
    }
}

/// BGF-24: a foreground job's `model` is ignored, with a warning. (A foreground `isolated` is
/// already dropped when the file is read: the run mode has no foreground-isolated value.)
fn warn_foreground_model(id: &str, options: &RunOptions) {
    if options.model.is_some() {
        tracing::warn!(
            id,
            "model only applies to background jobs; ignored (BGF-24)"
        );
    }
}
