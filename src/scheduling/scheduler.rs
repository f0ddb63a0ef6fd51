//! The scheduler: a small loop of our own over croner fire times (SCH-1, SCH-2, SCH-6, SCH-7,
//! RTN-3…7, REM-1…4, PRS-8, PRS-10).
//!
//! It reads both folders at start, then again when file events say a job file changed (just
//! those files, a burst coalesced into one sync) and, as a slow fallback, every five minutes;
//! without file events it reads them every sync interval (10 s) as before (issue 17, see
//! [`watch`]). Between syncs it sleeps until the next fire, a minute at most. Foreground fires
//! go to the main session (they wait for its lock, so they never interrupt the owner);
//! background fires go to the runner. Every fire is a task owned by the scheduler and stopped
//! with it, as is the watcher.

mod firing;
pub mod watch;

use std::{
    collections::{BTreeSet, HashSet},
    path::PathBuf,
    sync::Arc,
    time::Duration,
};

use parking_lot::Mutex;

use chrono::DateTime;
use chrono_tz::Tz;
use tokio_util::{sync::CancellationToken, task::TaskTracker};

use super::{
    files::{
        FileProblem, LoadCache, Reminder, Routine, load_reminders_cached, load_reminders_changed,
        load_routines_cached, load_routines_changed,
    },
    forward::{forward_schedule, render_schedule},
    job_sink::JobSink,
    missed::{jumped_forward, last_tick, missed_fire_reports, record_tick},
    registry::Registry,
};
use crate::{config::FsEvents, services::Services};
use watch::{FULL_SCAN_WITH_EVENTS, FolderWatch, LONGEST_SLEEP, SyncKind, SyncPlan};

/// Fires routines and reminders.
pub struct Scheduler {
    services: Arc<Services>,
    sink: Arc<dyn JobSink>,
    registry: Arc<Mutex<Registry>>,
    /// Woken when a fire moves a job's due time, so the loop's wake is worked out again.
    rescheduled: Arc<tokio::sync::Notify>,
    running_persistent: Arc<Mutex<HashSet<String>>>,
    reported: Mutex<HashSet<String>>,
    /// Parsed files kept between syncs; only changed files are parsed again.
    caches: Arc<Mutex<FileCaches>>,
    tasks: TaskTracker,
    /// How often the folders are read without file events (`OLLIM_SCHEDULER_SYNC_SECS`).
    sync_interval: Duration,
}

type FileCaches = (LoadCache<Routine>, LoadCache<Reminder>);

impl Scheduler {
    /// A scheduler over the data dir's `routines/` and `reminders/`.
    pub fn new(services: Arc<Services>, sink: Arc<dyn JobSink>, sync_interval: Duration) -> Self {
        Self {
            services,
            sink,
            registry: Arc::default(),
            rescheduled: Arc::default(),
            running_persistent: Arc::default(),
            reported: Mutex::default(),
            caches: Arc::default(),
            tasks: TaskTracker::new(),
            sync_interval,
        }
    }

    fn now(&self) -> DateTime<Tz> {
        self.services
            .clock
            .now()
            .with_timezone(&self.services.config.timezone)
    }

    /// Runs until `stop`; then stops the fires in flight and the watcher, and returns.
    pub async fn run(self: Arc<Self>, stop: CancellationToken) {
        let mut watch = self.start_watch();
        let full_every = if watch.is_some() {
            self.sync_interval.max(FULL_SCAN_WITH_EVENTS)
        } else {
            self.sync_interval
        };
        self.sync(true, None).await;
        tracing::info!(
            events = watch.is_some(),
            "scheduler started: {} jobs",
            self.registry.lock().len()
        );
        let mut plan = SyncPlan::new(full_every, self.services.clock.instant());
        let mut last_look = (self.now(), self.services.clock.instant());
        loop {
            if let Some(Err(reason)) = watch.as_ref().map(FolderWatch::keep_up) {
                tracing::warn!(
                    reason,
                    "file events stopped; the schedule folders are read every {} s instead",
                    self.sync_interval.as_secs()
                );
                watch = None;
                plan.poll_every(self.sync_interval, self.services.clock.instant());
            }
            if let Some(kind) = plan.due(self.services.clock.instant()) {
                let seen = watch.as_ref().map(FolderWatch::take).unwrap_or_default();
                let changed = (kind == SyncKind::Changed && !seen.rescan).then_some(seen.changed);
                // A wake left over from events an earlier sync already took reads nothing.
                if changed.as_ref().is_none_or(|files| !files.is_empty()) {
                    self.sync(false, changed).await;
                }
                plan.synced(kind, self.services.clock.instant());
            }
            let now = self.now();
            let look = (now, self.services.clock.instant());
            if jumped_forward(look.0 - last_look.0, look.1 - last_look.1) {
                self.pass_over_gap(last_look.0, now);
            }
            last_look = look;
            let due = self.registry.lock().take_due(now);
            tracing::debug!(due = due.len(), %now, "looked at the schedule");
            if !due.is_empty() {
                self.record_tick(now);
            }
            for fire in due {
                self.fire(fire, &stop);
            }
            // A job that fell due while this round fired others is taken at once: a wait
            // that is already past counts as zero.
            let wake = self
                .registry
                .lock()
                .next_wake()
                .map(|at| (at - self.now()).to_std().unwrap_or(Duration::ZERO))
                .map_or(LONGEST_SLEEP, |wait| wait.min(LONGEST_SLEEP));
            let wake = plan.wake_at().min(self.services.clock.instant() + wake);
            tokio::select! {
                () = stop.cancelled() => break,
                () = self.services.clock.sleep_until(wake) => {}
                () = next_event(watch.as_ref()) => plan.changed(self.services.clock.instant()),
                // A fire moved a job's time (a reminder waiting for the budget, USE-6).
                () = self.rescheduled.notified() => {}
            }
        }
        drop(watch);
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// The watcher over both folders, unless events are off or it can't start (then the
    /// folders are polled; the reason is logged once).
    fn start_watch(&self) -> Option<FolderWatch> {
        if self.services.config.fs_events == FsEvents::Off {
            tracing::info!(
                "file events are off (OLLIM_FS_EVENTS=off); polling the schedule folders"
            );
            return None;
        }
        let data_dir = &self.services.data_dir;
        let folders = vec![data_dir.routines_dir(), data_dir.reminders_dir()];
        match FolderWatch::start(data_dir.root(), folders) {
            Ok(watch) => Some(watch),
            Err(reason) => {
                tracing::warn!(
                    reason,
                    "no file events; the schedule folders are read every {} s instead",
                    self.sync_interval.as_secs()
                );
                None
            }
        }
    }

    fn record_tick(&self, now: DateTime<Tz>) {
        if let Err(error) =
            record_tick(&self.services.data_dir.scheduler_file(), now.fixed_offset())
        {
            tracing::warn!(%error, "could not record the scheduler tick");
        }
    }

    /// The clock jumped forward from `since` (issue 16): the gap counts as time offline, so
    /// routines due in it don't all fire now; the main session hears which were missed.
    fn pass_over_gap(&self, since: DateTime<Tz>, now: DateTime<Tz>) {
        tracing::warn!(
            %since, %now,
            "the clock jumped forward (a suspend or a clock change); treating the gap as time offline"
        );
        let passed = self.registry.lock().pass_over_gap(since, now);
        for report in missed_fire_reports(&passed, since.fixed_offset(), now) {
            tracing::warn!("{report}");
            self.tell_main(&report);
        }
    }

    /// Reads the folders (only the `changed` files when given, relative to the data dir) and
    /// updates the registry; reports broken files once, missed fires at start-up, and
    /// removes the session files of deleted persistent routines.
    async fn sync(&self, first: bool, changed: Option<BTreeSet<PathBuf>>) {
        let services = Arc::clone(&self.services);
        let caches = Arc::clone(&self.caches);
        let tz = services.config.timezone;
        let loaded = tokio::task::spawn_blocking(move || {
            let mut caches = caches.lock();
            let (routine_cache, reminder_cache) = &mut *caches;
            let data_dir = &services.data_dir;
            match changed {
                None => (
                    load_routines_cached(data_dir, routine_cache),
                    load_reminders_cached(data_dir, tz, reminder_cache),
                ),
                Some(changed) => (
                    load_routines_changed(data_dir, routine_cache, &changed),
                    load_reminders_changed(data_dir, tz, reminder_cache, &changed),
                ),
            }
        })
        .await;
        let Ok(((mut routines, routine_problems), (mut reminders, reminder_problems))) = loaded
        else {
            tracing::warn!("reading the schedule folders failed");
            return;
        };
        let now = self.now();
        let data_dir = &self.services.data_dir;
        if first && let Some(since) = last_tick(&data_dir.scheduler_file()) {
            for report in missed_fire_reports(&routines, since, now) {
                tracing::warn!("{report}");
                self.tell_main(&report);
            }
        }
        self.record_tick(now);
        let notes: Vec<(String, String)> = routines
            .iter()
            .map(|f| (&f.path, &f.notes))
            .chain(reminders.iter().map(|f| (&f.path, &f.notes)))
            .flat_map(|(path, notes)| {
                notes.iter().map(move |note| {
                    let text = format!(
                        "Note on {}: {note}. The file still runs as written.",
                        path.display()
                    );
                    (format!("note\u{0}{}\u{0}{note}", path.display()), text)
                })
            })
            .collect();
        let routine_ids: HashSet<String> = routines.iter().map(|f| f.item.id.clone()).collect();
        let tool_problems = self
            .sink
            .check_job_tools(&mut routines, &mut reminders)
            .await;
        let outcome = self.registry.lock().sync(routines, reminders, now);
        tracing::debug!(routines = routine_ids.len(), "schedule read");
        let clean_routines = routine_problems.is_empty();
        let mut problems = routine_problems;
        problems.extend(reminder_problems);
        problems.extend(tool_problems);
        problems.extend(outcome.problems);
        self.report_problems(&problems, notes);
        if clean_routines {
            let sessions = &self.services.routine_sessions;
            for id in sessions.routine_ids() {
                if !routine_ids.contains(&id) && !self.running_persistent.lock().contains(&id) {
                    match sessions.remove(&id) {
                        Ok(_) => tracing::info!(id, "routine deleted; its session file is removed"),
                        Err(error) => {
                            tracing::warn!(%error, id, "could not remove a routine session file");
                        }
                    }
                }
            }
        }
    }

    /// Tells the main session about each broken file once (RTN-6, SCH-7), and each note on a
    /// file that loads (`(key, text)`: an unknown key, issue 24 §4); a file that loads again,
    /// or a note that went away, is forgotten, so it is reported again if it comes back.
    fn report_problems(&self, problems: &[FileProblem], notes: Vec<(String, String)>) {
        let mut keys: Vec<(String, String)> = problems
            .iter()
            .map(|p| {
                let text = format!(
                    "Couldn't load {}: {}. It is skipped until it's fixed.",
                    p.path.display(),
                    p.reason
                );
                (format!("{}\u{0}{}", p.path.display(), p.reason), text)
            })
            .collect();
        keys.extend(notes);
        let fresh: Vec<String> = {
            let mut reported = self.reported.lock();
            let current: HashSet<&String> = keys.iter().map(|(key, _)| key).collect();
            reported.retain(|key| current.contains(key));
            keys.iter()
                .filter(|(key, _)| reported.insert(key.clone()))
                .map(|(_, text)| text.clone())
                .collect()
        };
        for text in fresh {
            tracing::warn!("{text}");
            self.tell_main(&text);
        }
    }

    fn tell_main(&self, text: &str) {
        if let Err(error) = self.services.pending.append(text) {
            tracing::warn!(%error, "could not queue a pending update");
        }
    }

    /// The forward schedule for a background run of `id` (BGF-15/16); a webhook's id is
    /// "this task" of no entry (WHK-11).
    pub fn schedule_text(&self, id: &str) -> String {
        let now = self.now();
        let jobs = self.registry.lock().scheduled_jobs(now);
        let rate = self
            .services
            .ping_budget
            .snapshot()
            .map_or(90, |s| s.refill_rate_minutes);
        render_schedule(&forward_schedule(&jobs, now, Some(id)), now, rate)
    }
}

/// Resolves when the watcher saw something; never without a watcher.
async fn next_event(watch: Option<&FolderWatch>) {
    match watch {
        Some(watch) => watch.wait().await,
        None => std::future::pending().await,
    }
}
