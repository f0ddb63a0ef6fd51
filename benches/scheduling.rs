//! Figures for the scheduler; prints them, asserts nothing about their size.
//!
//! `cargo bench --bench scheduling [-- sync|accuracy|watch|minute|poll]` (release profile;
//! `sync`, `accuracy` and `watch` run by default, `minute` and `poll` only when named):
//!
//! - `sync` one scheduler sync tick over 1,000 routine and 1,000 reminder files (written with
//!   `write_routine`/`write_reminder`, no commits, in a temp data dir): the cached
//!   `load_routines` + `load_reminders` the scheduler runs (only changed files are parsed) +
//!   `Registry::sync` + `next_wake`, the first (cold) one and 50 steady-state
//!   ticks on the warm registry after 3 warm-ups (nothing changed). Wall time per tick, and CPU
//!   per tick = utime + stime of `/proc/self/stat` (`USER_HZ` = 100) over all 50 ticks / 50 (no
//!   other thread runs yet). The production tick also writes `state/scheduler.json`
//!   (`record_tick`, fsync'd), timed on its own here; problem reports and the session-file
//!   sweep are left out. Then `scheduled_jobs` + `forward_schedule` +
//!   `render_schedule`, what every background fire computes, at that size;
//! - `accuracy` how late reminders due 1.4–19.6 s ahead (every 0.7 s) are taken: (the `now`
//!   given to `take_due`) − `run_at`. The production `Scheduler` needs the whole app, so the
//!   loop of `Scheduler::run` is replicated here, the `wait/take_due` part faithfully: sync every
//!   `DEFAULT_SCHEDULER_SYNC` from the files (loading in `spawn_blocking`), `take_due(now)`, then
//!   `sleep_until(min(next_sync, now + (next_wake − now)))`; firing is left out;
//! - `minute` the same loop over one `* * * * *` routine: lateness of the next minute's fire
//!   against `CronSchedule::next_after` (waits up to a minute);
//! - `watch` the production `Scheduler` with file events at 1,000 + 1,000 in a child process:
//!   CPU-s per minute, RSS, and how soon a new file is picked up (see `scheduling_watch/mod.rs`);
//!   `poll` the same with `OLLIM_FS_EVENTS=off` (the 10 s poll), for before/after.
//!
//! `sync` and `accuracy` replicate the loop as it was before file events (a full read every
//! 10 s), which is still what runs without events.
// Figures printed for a person: counts and durations are far below 2^52 and percentiles index sorted samples, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use ollim_bot::config::DEFAULT_SCHEDULER_SYNC;
use ollim_bot::domain::job_options::{BgSession, RunMode};
use ollim_bot::scheduling::cron::CronSchedule;
use ollim_bot::scheduling::files::{
    Commit, LoadCache, Reminder, Routine, load_reminders, load_reminders_cached, load_routines,
    load_routines_cached, write_reminder, write_routine,
};
use ollim_bot::scheduling::forward::{forward_schedule, render_schedule};
use ollim_bot::scheduling::missed::record_tick;
use ollim_bot::scheduling::registry::{Fire, Registry};
use ollim_bot::state::paths::DataDir;

mod scheduling_watch;

const TZ: Tz = chrono_tz::Europe::Berlin;
const FILES: usize = 1_000;
const WARM_UP_TICKS: usize = 3;
const MEASURED_TICKS: usize = 50;
/// Reminders in `accuracy`, due at now + k · 0.7 s for k = 2..=28.
const STAGGERED: std::ops::RangeInclusive<i64> = 2..=28;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!(
            "benches/scheduling.rs prints figures only under `cargo bench --bench scheduling`"
        );
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if let [child, mode, root] = picked.as_slice()
        && child == "watch-child"
    {
        scheduling_watch::child(mode, root);
        return;
    }
    let run = |section: &str| picked.iter().any(|p| p == section);
    let (sync, accuracy, minute) = (run("sync"), run("accuracy"), run("minute"));
    let (sync, accuracy) = (sync || picked.is_empty(), accuracy || picked.is_empty());
    let (events, poll) = (run("watch") || picked.is_empty(), run("poll"));
    if !sync && !accuracy && !minute && !events && !poll {
        println!(
            "nothing picked: the sections are `sync`, `accuracy`, `watch`, `minute` and `poll` \
             (the last two opt-in)"
        );
        return;
    }
    if sync {
        sync_tick();
    }
    if events || poll {
        scheduling_watch::run(events, poll);
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        if accuracy {
            staggered_reminders().await;
        }
        if minute {
            minute_routine().await;
        }
    });
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `q` quantile (nearest rank) of `samples`.
fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn percentiles(samples: &[f64]) -> String {
    let [median, p90, min, max] = [0.5, 0.9, 0.0, 1.0].map(|q| quantile(samples, q));
    format!("median {median:8.3} ms   p90 {p90:8.3} ms   min {min:8.3} ms   max {max:8.3} ms")
}

fn now() -> DateTime<Tz> {
    Utc::now().with_timezone(&TZ)
}

fn delta_ms(delta: TimeDelta) -> f64 {
    delta.num_microseconds().unwrap_or(i64::MAX) as f64 / 1e3
}

/// An empty temp data dir with the usual layout.
fn fresh_dir() -> (tempfile::TempDir, DataDir) {
    let temp = tempfile::tempdir().expect("a temp dir");
    let data_dir = DataDir::new(temp.path());
    data_dir.ensure_layout().expect("the data-dir layout");
    (temp, data_dir)
}

/// utime + stime of this process so far (`/proc/self/stat`, clock ticks at `USER_HZ` = 100).
fn process_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After "pid (comm) ", fields start at 3 (state); utime and stime are fields 14 and 15.
    let fields: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// A temp data dir with `FILES` routines (varied crons, every other one in the background) and
/// `FILES` reminders spread over the next 6.25 days (every 10th one a chain root).
fn populated_dir() -> (tempfile::TempDir, DataDir) {
    let (temp, data_dir) = fresh_dir();
    let start = now().fixed_offset();
    for i in 0..FILES {
        let (m, h) = (i * 7 % 60, 6 + i % 16);
        let cron = match i % 4 {
            0 => format!("{m} {h} * * 1-5"),
            1 => format!("{m} {h} * * *"),
            2 => format!("{m} {h},{} * * 0,6", (h + 5) % 24),
            _ => format!("{m} {h} {} * *", 1 + i % 28),
        };
        let mut routine = Routine::new(cron, format!("Routine {i}: review the plan for today."));
        if i % 2 == 0 {
            routine.run = RunMode::Background(BgSession::Forked);
        }
        routine.description = format!("routine number {i}");
        write_routine(&data_dir, &routine, Commit::Skip).expect("write a routine");
        let mut reminder = Reminder::new_in(
            0,
            format!("Reminder {i}: call back about it."),
            chrono::Utc::now().with_timezone(&TZ),
        );
        reminder.run_at =
            start + TimeDelta::seconds(540 * (i64::try_from(i).expect("a small index") + 1));
        if i % 3 == 0 {
            reminder.run = RunMode::Foreground;
        }
        if i % 10 == 0 {
            (reminder.max_chain, reminder.chain_parent) = (2, Some(reminder.id.clone()));
        }
        write_reminder(&data_dir, &reminder, Commit::Skip).expect("write a reminder");
    }
    (temp, data_dir)
}

/// The scheduler's parse caches, kept between ticks as the scheduler keeps them.
#[derive(Default)]
struct Caches {
    routines: LoadCache<Routine>,
    reminders: LoadCache<Reminder>,
}

/// One tick as the scheduler runs it: the cached loads (only changed files are parsed),
/// `Registry::sync` + `next_wake`; jobs registered.
fn tick(
    registry: &mut Registry,
    caches: &mut Caches,
    data_dir: &DataDir,
) -> ([Duration; 3], usize) {
    let started = Instant::now();
    let (routines, _) = load_routines_cached(data_dir, &mut caches.routines);
    let routines_loaded = started.elapsed();
    let (reminders, _) = load_reminders_cached(data_dir, TZ, &mut caches.reminders);
    let loaded = started.elapsed();
    black_box(registry.sync(routines, reminders, now()));
    black_box(registry.next_wake());
    let synced = started.elapsed().checked_sub(loaded).unwrap();
    (
        [
            routines_loaded,
            loaded.checked_sub(routines_loaded).unwrap(),
            synced,
        ],
        registry.len(),
    )
}

fn row(label: &str, samples: &[f64]) {
    println!("      {label:<40} {}", percentiles(samples));
}

fn sync_tick() {
    let started = Instant::now();
    let (_temp, data_dir) = populated_dir();
    let written = started.elapsed().as_secs_f64();
    println!("sync: {FILES} routines + {FILES} reminders written in {written:.1} s (Commit::Skip)");
    let mut registry = Registry::default();
    let mut caches = Caches::default();
    let ([r, m, s], jobs) = tick(&mut registry, &mut caches, &data_dir);
    let (total, r, m, s) = (ms(r + m + s), ms(r), ms(m), ms(s));
    println!(
        "    cold (first) sync, {jobs} jobs: {total:8.3} ms = load_routines {r:8.3} ms + \
         load_reminders {m:8.3} ms + Registry::sync {s:8.3} ms"
    );
    for _ in 0..WARM_UP_TICKS {
        tick(&mut registry, &mut caches, &data_dir);
    }
    let mut parts: [Vec<f64>; 5] = Default::default();
    let cpu_before = process_cpu();
    for _ in 0..MEASURED_TICKS {
        let ([r, m, s], _) = tick(&mut registry, &mut caches, &data_dir);
        for (samples, d) in parts.iter_mut().zip([r + m + s, r, m, s]) {
            samples.push(ms(d));
        }
    }
    let cpu = cpu_before
        .zip(process_cpu())
        .map(|(a, b)| ms(b.checked_sub(a).unwrap()) / MEASURED_TICKS as f64);
    for _ in 0..MEASURED_TICKS {
        let started = Instant::now();
        record_tick(&data_dir.scheduler_file(), now().fixed_offset()).expect("record the tick");
        parts[4].push(ms(started.elapsed()));
    }
    println!("    steady-state tick, {MEASURED_TICKS} ticks, wall time (goal < 20 ms):");
    let labels = [
        "whole tick",
        "  load_routines",
        "  load_reminders",
        "  Registry::sync + next_wake",
        "(record_tick, fsync'd; not in the tick)",
    ];
    for (label, samples) in labels.iter().zip(&parts) {
        row(label, samples);
    }
    let cpu = cpu.map_or("unavailable".to_owned(), |cpu| format!("{cpu:8.3} ms"));
    println!("    CPU per tick (utime + stime over all {MEASURED_TICKS}): {cpu}");
    let (mut schedule_ms, mut sizes) = (vec![], (0, 0, 0));
    for _ in 0..WARM_UP_TICKS + MEASURED_TICKS {
        let started = Instant::now();
        let now = now();
        let jobs = registry.scheduled_jobs(now);
        let entries = forward_schedule(&jobs, now, jobs.first().map(|j| j.id.as_str()));
        let text = render_schedule(&entries, now, 90);
        schedule_ms.push(ms(started.elapsed()));
        sizes = (jobs.len(), entries.len(), text.len());
    }
    println!(
        "    scheduled_jobs + forward_schedule + render_schedule ({} background jobs → {} \
         entries, {} bytes):",
        sizes.0, sizes.1, sizes.2
    );
    row("per background fire", &schedule_ms[WARM_UP_TICKS..]);
}

/// The loop of `Scheduler::run` over `data_dir` until `want` jobs were taken or `limit`
/// passed: each fire with the `now` it was taken at.
async fn replica(data_dir: &DataDir, want: usize, limit: Duration) -> Vec<(Fire, DateTime<Tz>)> {
    let mut registry = Registry::default();
    replica_sync(&mut registry, data_dir).await;
    let deadline = tokio::time::Instant::now() + limit;
    let mut next_sync = tokio::time::Instant::now() + DEFAULT_SCHEDULER_SYNC;
    let mut taken = Vec::new();
    while taken.len() < want && tokio::time::Instant::now() < deadline {
        if tokio::time::Instant::now() >= next_sync {
            replica_sync(&mut registry, data_dir).await;
            next_sync = tokio::time::Instant::now() + DEFAULT_SCHEDULER_SYNC;
        }
        let now = now();
        taken.extend(registry.take_due(now).into_iter().map(|fire| (fire, now)));
        let wake = registry
            .next_wake()
            .and_then(|at| (at - self::now()).to_std().ok())
            .map_or(next_sync, |wait| {
                next_sync.min(tokio::time::Instant::now() + wait)
            });
        tokio::time::sleep_until(wake.min(deadline)).await;
    }
    taken
}

/// `Scheduler::sync` without the reports: load in `spawn_blocking`, record the tick, sync.
async fn replica_sync(registry: &mut Registry, data_dir: &DataDir) {
    let dir = data_dir.clone();
    let loaded =
        tokio::task::spawn_blocking(move || (load_routines(&dir), load_reminders(&dir, TZ)));
    let ((routines, _), (reminders, _)) = loaded.await.expect("load the folders");
    let now = now();
    record_tick(&data_dir.scheduler_file(), now.fixed_offset()).expect("record the tick");
    registry.sync(routines, reminders, now);
}

async fn staggered_reminders() {
    let (_temp, data_dir) = fresh_dir();
    let start = now().fixed_offset();
    for k in STAGGERED {
        let mut reminder = Reminder::new_in(
            0,
            format!("Staggered reminder {k}"),
            chrono::Utc::now().with_timezone(&TZ),
        );
        reminder.run_at = start + TimeDelta::milliseconds(700 * k);
        write_reminder(&data_dir, &reminder, Commit::Skip).expect("write a reminder");
    }
    let want = STAGGERED.count();
    let taken = replica(&data_dir, want, Duration::from_secs(40)).await;
    let late: Vec<f64> = taken
        .iter()
        .filter_map(|(fire, at)| match fire {
            Fire::Reminder { file, .. } => {
                Some(delta_ms(at.signed_duration_since(file.item.run_at)))
            }
            Fire::Routine(_) => None,
        })
        .collect();
    println!(
        "accuracy: {} of {want} reminders due in 1.4–19.6 s (every 0.7 s) taken by the replica \
         loop (sync every {} s); take_due time − run_at (goal: within 1 s of the minute):",
        late.len(),
        DEFAULT_SCHEDULER_SYNC.as_secs()
    );
    if !late.is_empty() {
        row("lateness", &late);
    }
}

async fn minute_routine() {
    let (_temp, data_dir) = fresh_dir();
    let routine = Routine::new("* * * * *", "Every minute.");
    write_routine(&data_dir, &routine, Commit::Skip).expect("write the routine");
    let schedule = CronSchedule::parse(&routine.cron).expect("a valid cron");
    let due = schedule.next_after(now()).expect("a next minute");
    println!("minute: one `* * * * *` routine, due at {due} (waiting for it)");
    let taken = replica(&data_dir, 1, Duration::from_secs(70)).await;
    match taken.first() {
        Some((_, at)) => println!(
            "      lateness of the minute fire: {:8.3} ms (goal: within 1 s of the minute)",
            delta_ms(*at - due)
        ),
        None => println!("      not taken within 70 s"),
    }
}
