//! The scheduler: a small loop of our own over croner fire times (SCH-1, SCH-2, SCH-6, SCH-7,
//! RTN-3…7, REM-1…4, PRS-8, PRS-10).
//!
//! Every sync interval (10 s) it reads both folders and updates the registry; between syncs it
//! sleeps until the next fire. Foreground fires go to the main session (they wait for its
//! lock, so they never interrupt the owner); background fires go to the runner. Every fire is
//! a task owned by the scheduler and stopped with it.

mod firing;

use std::{collections::HashSet, sync::Arc, time::Duration};

use parking_lot::Mutex;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use tokio_util::{sync::CancellationToken, task::TaskTracker};

use super::{
    files::{
        FileProblem, LoadCache, Reminder, Routine, load_reminders_cached, load_routines_cached,
    },
    forward::{forward_schedule, render_schedule},
    job_sink::JobSink,
    missed::{jumped_forward, last_tick, missed_fire_reports, record_tick},
    registry::Registry,
};
use crate::{services::Services, state::sessions::RoutineSessionStore};

/// Fires routines and reminders.
pub struct Scheduler {
    services: Arc<Services>,
    sink: Arc<dyn JobSink>,
    registry: Mutex<Registry>,
    running_persistent: Arc<Mutex<HashSet<String>>>,
    reported: Mutex<HashSet<String>>,
    /// Parsed files kept between syncs; only changed files are parsed again.
    caches: Arc<Mutex<FileCaches>>,
    tasks: TaskTracker,
    sync_interval: Duration,
}

type FileCaches = (LoadCache<Routine>, LoadCache<Reminder>);

impl Scheduler {
    /// A scheduler over the data dir's `routines/` and `reminders/`.
    pub fn new(services: Arc<Services>, sink: Arc<dyn JobSink>, sync_interval: Duration) -> Self {
        Self {
            services,
            sink,
            registry: Mutex::default(),
            running_persistent: Arc::default(),
            reported: Mutex::default(),
            caches: Arc::default(),
            tasks: TaskTracker::new(),
            sync_interval,
        }
    }

    fn now(&self) -> DateTime<Tz> {
        Utc::now().with_timezone(&self.services.config.timezone)
    }

    /// Runs until `stop`; then stops the fires in flight and returns.
    pub async fn run(self: Arc<Self>, stop: CancellationToken) {
        self.sync(true).await;
        tracing::info!("scheduler started: {} jobs", self.registry.lock().len());
        let mut next_sync = tokio::time::Instant::now() + self.sync_interval;
        let mut last_look = (self.now(), tokio::time::Instant::now());
        loop {
            if tokio::time::Instant::now() >= next_sync {
                self.sync(false).await;
                next_sync = tokio::time::Instant::now() + self.sync_interval;
            }
            let now = self.now();
            let look = (now, tokio::time::Instant::now());
            if jumped_forward(look.0 - last_look.0, look.1 - last_look.1) {
                self.pass_over_gap(last_look.0, now).await;
            }
            last_look = look;
            let due = self.registry.lock().take_due(now);
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
                .map_or(next_sync, |wait| {
                    next_sync.min(tokio::time::Instant::now() + wait)
                });
            tokio::select! {
                () = stop.cancelled() => break,
                () = tokio::time::sleep_until(wake) => {}
            }
        }
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// The clock jumped forward from `since` (issue 16): the gap counts as time offline, so
    /// routines due in it don't all fire now; the main session hears which were missed.
    async fn pass_over_gap(&self, since: DateTime<Tz>, now: DateTime<Tz>) {
        tracing::warn!(
            %since, %now,
            "the clock jumped forward (a suspend or a clock change); treating the gap as time offline"
        );
        let passed = self.registry.lock().pass_over_gap(since, now);
        for report in missed_fire_reports(&passed, since.fixed_offset(), now) {
            tracing::warn!("{report}");
            self.tell_main(&report).await;
        }
    }

    /// Reads the folders and updates the registry; reports broken files once, missed fires
    /// at start-up, and removes the session files of deleted persistent routines.
    async fn sync(&self, first: bool) {
        let services = Arc::clone(&self.services);
        let caches = Arc::clone(&self.caches);
        let tz = services.config.timezone;
        let loaded = tokio::task::spawn_blocking(move || {
            let mut caches = caches.lock();
            let (routine_cache, reminder_cache) = &mut *caches;
            let routines = load_routines_cached(&services.data_dir, routine_cache);
            let reminders = load_reminders_cached(&services.data_dir, tz, reminder_cache);
            (routines, reminders)
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
                self.tell_main(&report).await;
            }
        }
        if let Err(error) = record_tick(&data_dir.scheduler_file(), now.fixed_offset()) {
            tracing::warn!(%error, "could not record the scheduler tick");
        }
        let routine_ids: HashSet<String> = routines.iter().map(|f| f.item.id.clone()).collect();
        let tool_problems = self
            .sink
            .check_job_tools(&mut routines, &mut reminders)
            .await;
        let outcome = self.registry.lock().sync(routines, reminders, now);
        let clean_routines = routine_problems.is_empty();
        let mut problems = routine_problems;
        problems.extend(reminder_problems);
        problems.extend(tool_problems);
        problems.extend(outcome.problems);
        self.report_problems(problems).await;
        if clean_routines {
            let sessions = RoutineSessionStore::new(data_dir);
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

    /// Tells the main session about each broken file once (RTN-6, SCH-7); a file that loads
    /// again is forgotten, so a new break is reported again.
    async fn report_problems(&self, problems: Vec<FileProblem>) {
        let keys: Vec<(String, String)> = problems
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
            self.tell_main(&text).await;
        }
    }

    async fn tell_main(&self, text: &str) {
        if let Err(error) = self.services.pending.append(text).await {
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
