//! `watch` (and the opt-in `poll`): the production `Scheduler` (real `Services` from
//! `open_services`, a `JobSink` that only counts fires) over the 1,000 routines + 1,000
//! reminders of `populated_dir`, each in a child process of its own so that its RSS is the
//! scheduler's alone (issue 17):
//!
//! - CPU-s per minute while nothing changes: `CLOCK_PROCESS_CPUTIME_ID` (every thread,
//!   nanoseconds) over six 10 s slices, after the first sync and 15 s of settling; slices in
//!   which a job fired (crons are real, so a routine may come due) are left out of the idle
//!   figure and shown in the total. With events
//!   the slow fallback full read (every 5 min) is not in a 60 s window: its cost, a warm full
//!   load + `Registry::sync` measured afterwards, is added as a fifth of it per minute;
//! - RSS (`VmRSS`, and the peak `VmHWM`, of `/proc/self/status`) at the end of the window,
//!   next to the RSS before the scheduler started (runtime + services);
//! - pickup: a new reminder file written (atomically, as the tools write) → the scheduler's
//!   next tick in `state/scheduler.json` (written by the sync that read it), 5 times.
//!
//! `poll` is the same with `OLLIM_FS_EVENTS=off`: the 10 s poll, for before/after.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ollim_bot::agent::open_services;
use ollim_bot::claude::BoxFuture;
use ollim_bot::config::{Config, DEFAULT_SCHEDULER_SYNC};
use ollim_bot::domain::job_options::RunOptions;
use ollim_bot::scheduling::Scheduler;
use ollim_bot::scheduling::bg_job::BgJob;
use ollim_bot::scheduling::files::{
    Commit, FileProblem, JobFile, LoadCache, Reminder, Routine, load_reminders_cached,
    load_routines_cached, write_reminder,
};
use ollim_bot::scheduling::job_sink::{BgFate, ForegroundJob, JobSink};
use ollim_bot::scheduling::registry::Registry;
use ollim_bot::state::paths::DataDir;
use ollim_bot::tool_policy::Source;
use tokio_util::sync::CancellationToken;

use super::{FILES, TZ, ms, now, populated_dir, quantile};

const WINDOW: Duration = Duration::from_secs(60);
const SLICES: u32 = 6;
const SETTLE: Duration = Duration::from_secs(15);
const PICKUPS: usize = 5;

/// Runs the picked modes, each in a child process over one populated data dir.
pub(crate) fn run(events: bool, poll: bool) {
    let started = Instant::now();
    let (_temp, data_dir) = populated_dir();
    println!(
        "watch: {FILES} routines + {FILES} reminders written in {:.1} s; the real Scheduler in a \
         child process each",
        started.elapsed().as_secs_f64()
    );
    let modes = [("events", events), ("poll", poll)];
    for (mode, _) in modes.iter().filter(|(_, picked)| *picked) {
        let exe = std::env::current_exe().expect("this bench's path");
        let status = Command::new(exe)
            .args(["--bench", "watch-child", mode])
            .arg(data_dir.root())
            .status()
            .expect("start the child");
        if !status.success() {
            println!("    {mode}: the child failed ({status})");
        }
    }
}

/// The child: `args` are the mode and the data dir.
pub(crate) fn child(mode: &str, root: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(measure(mode == "events", root));
}

#[derive(Default)]
struct CountingSink {
    fires: AtomicUsize,
}

impl JobSink for CountingSink {
    fn run_foreground(&self, _: ForegroundJob) -> BoxFuture<'_, Result<(), String>> {
        self.fires.fetch_add(1, Ordering::Relaxed);
        Box::pin(async { Ok(()) })
    }

    fn run_background(&self, _: BgJob) -> BoxFuture<'_, BgFate> {
        self.fires.fetch_add(1, Ordering::Relaxed);
        Box::pin(async { BgFate::Ran })
    }

    fn check_job_tools<'a>(
        &'a self,
        _: &'a mut Vec<JobFile<Routine>>,
        _: &'a mut Vec<JobFile<Reminder>>,
    ) -> BoxFuture<'a, Vec<FileProblem>> {
        Box::pin(async { Vec::new() })
    }

    fn admit_foreground(&self, _: &Source, _: &str, _: &RunOptions) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }

    fn tell_owner(&self, _: String) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn open_nag(&self, _: ollim_bot::domain::open_nag::OpenNag) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// CPU time of the whole process (every thread, the ended ones too).
fn process_cpu() -> Duration {
    let mut spec = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `spec` is a valid, writable timespec for the call's duration.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &raw mut spec) } == 0;
    assert!(ok, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(spec.tv_sec as u64, spec.tv_nsec as u32)
}

/// `VmRSS` and `VmHWM` of this process in MiB.
fn rss_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .map_or(f64::NAN, |kib| kib / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn measure(events: bool, root: &str) {
    let mode = if events { "events" } else { "poll" };
    let env = |name: &str| match name {
        "OLLIM_USER_NAME" => Some("Bench".to_owned()),
        "OLLIM_BOT_NAME" => Some("Ollim".to_owned()),
        "OLLIM_DATA_DIR" => Some(root.to_owned()),
        "OLLIM_TIMEZONE" => Some(TZ.name().to_owned()),
        "OLLIM_FS_EVENTS" => Some(if events { "on" } else { "off" }.to_owned()),
        _ => None,
    };
    let config = Config::from_lookup(env).expect("a bench configuration");
    let opened = open_services(config).expect("open the services");
    let services = Arc::clone(&opened.services);
    let before = rss_mib();
    let sink = Arc::new(CountingSink::default());
    let sink_dyn: Arc<dyn JobSink> = Arc::clone(&sink) as Arc<dyn JobSink>;
    let scheduler = Arc::new(Scheduler::new(
        Arc::clone(&services),
        sink_dyn,
        DEFAULT_SCHEDULER_SYNC,
    ));
    let stop = CancellationToken::new();
    let tick_file = services.data_dir.scheduler_file();
    let _ = std::fs::remove_file(&tick_file);
    let running = tokio::spawn(Arc::clone(&scheduler).run(stop.clone()));
    while !tick_file.exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(SETTLE).await;
    // Six 10 s slices: a slice in which a job fired is counted apart, so the idle figure is
    // the scheduler's own cost and not a fire's (`schedule_text`, the sink).
    let (mut idle, mut idle_slices, mut all, mut fires) = (Duration::ZERO, 0u32, Duration::ZERO, 0);
    for _ in 0..SLICES {
        let fires_before = sink.fires.load(Ordering::Relaxed);
        let cpu_before = process_cpu();
        tokio::time::sleep(WINDOW / SLICES).await;
        let cpu = process_cpu().checked_sub(cpu_before).unwrap_or_default();
        let in_slice = sink.fires.load(Ordering::Relaxed) - fires_before;
        all += cpu;
        fires += in_slice;
        if in_slice == 0 {
            idle += cpu;
            idle_slices += 1;
        }
    }
    let per_minute = |cpu: Duration, slices: u32| {
        cpu.as_secs_f64() * 60.0 / (WINDOW / SLICES * slices).as_secs_f64()
    };
    let idle_per_minute = if idle_slices == 0 {
        f64::NAN
    } else {
        per_minute(idle, idle_slices)
    };
    println!(
        "    {mode}: CPU {idle_per_minute:.4} CPU-s per minute while nothing fires ({idle_slices} \
         of {SLICES} slices of {} s; goal with events ≤ 0.01); {:.4} over all {} s with its \
         {fires} fires",
        (WINDOW / SLICES).as_secs(),
        per_minute(all, SLICES),
        WINDOW.as_secs()
    );
    let (rss, peak) = rss_mib();
    println!(
        "    {mode}: RSS {rss:.1} MiB (peak {peak:.1} MiB; before the scheduler {:.1} MiB, peak \
         {:.1} MiB; goal ≤ 20 MiB)",
        before.0, before.1
    );
    let mut pickups = Vec::new();
    for k in 0..PICKUPS {
        let seen = std::fs::read(&tick_file).unwrap_or_default();
        let now = chrono::Utc::now().with_timezone(&TZ);
        let mut reminder = Reminder::new_in(60 * 24 * 30, format!("Pickup probe {k}"), now);
        reminder.description = format!("probe {k}");
        let written = Instant::now();
        write_reminder(&services.data_dir, &reminder, Commit::Skip).expect("write a reminder");
        while std::fs::read(&tick_file).unwrap_or_default() == seen {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        pickups.push(ms(written.elapsed()));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!(
        "    {mode}: a new reminder file picked up (write → the sync's tick) in median {:.0} ms, \
         max {:.0} ms over {PICKUPS} (goal ≤ 1 s)",
        quantile(&pickups, 0.5),
        quantile(&pickups, 1.0)
    );
    stop.cancel();
    running.await.expect("the scheduler ends");
    if events {
        let full = full_read_cpu(&services.data_dir);
        println!(
            "    {mode}: + the fallback full read every 5 min: {:.1} ms CPU each → {:.4} CPU-s \
             per minute with it",
            ms(full),
            idle_per_minute + full.as_secs_f64() / 5.0
        );
    }
    opened.git_worker.shutdown().await;
}

/// CPU of one warm full read (cached loads of both folders, `Registry::sync`), the median of 5.
fn full_read_cpu(data_dir: &DataDir) -> Duration {
    let (mut routines, mut reminders) = (LoadCache::default(), LoadCache::default());
    let mut registry = Registry::default();
    let mut samples = Vec::new();
    for round in 0..6 {
        let started = process_cpu();
        let (r, _) = load_routines_cached(data_dir, &mut routines);
        let (m, _) = load_reminders_cached(data_dir, TZ, &mut reminders);
        registry.sync(r, m, now());
        if round > 0 {
            samples.push(ms(process_cpu().checked_sub(started).unwrap_or_default()));
        }
    }
    Duration::from_secs_f64(quantile(&samples, 0.5) / 1e3)
}
