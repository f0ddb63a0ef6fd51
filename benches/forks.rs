//! Figures for background runs; prints them, asserts nothing about their size.
//!
//! `cargo bench --bench forks [-- start|memory]` (release profile) drives
//! `ollim_bot::background::BgRunner` in this process through [`AgentHarness`]: the real
//! Claude Code CLI, the mock Messages API and a temporary data dir.
//!
//! - `start` (1) wall time of a whole background run (`BgRunner::run`, text-only reply) against
//!   (2) the same turn through the driver alone (`ClaudeClient::connect`, one prompt, read to
//!   the `Result`, `disconnect`) in the same cwd and environment; interleaved, 15 of each after
//!   3 warm-up pairs. The difference of the medians is what the bot adds per run: preamble,
//!   system prompt, MCP bridge and its handshake, hooks, history and record writes;
//! - `memory` (3) this process's resident memory (the CLI children excluded) while 8 runs wait
//!   at once on a reply the mock holds back for 6 s, against a baseline taken after one warm
//!   run; per run = (peak − baseline) / 8. The CLI children's memory is printed for reference.
//!
//! Needs the pinned CLI: `OLLIM_TEST_CLAUDE_CLI`, else `.ci/claude-cli/node_modules/.bin/claude`;
//! without it everything is skipped.
// Figures printed for a person: counts and durations are far below 2^52 and percentiles index sorted samples, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use ollim_test_support as support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ollim_bot::background::BgRunner;
use ollim_bot::claude::{ClaudeClient, ClientOptions, ControlHandlers, Message, UserContent};
use ollim_bot::domain::prompt_tag::PromptTag;
use ollim_bot::scheduling::bg_job::BgJob;
use support::agent::AgentHarness;
use support::cli::pinned_cli;
use support::mock_api::Reply;
use support::procs::{children, comm, memory_kib, mib};

const WARM_UP_RUNS: usize = 3;
const MEASURED_RUNS: usize = 15;
const CONCURRENT_RUNS: usize = 8;
/// How long the mock holds back every reply in `memory`.
const REPLY_DELAY: Duration = Duration::from_secs(6);
/// How long `memory` samples this process's RSS once every run waits on the mock.
const SAMPLING: Duration = Duration::from_secs(1);
const REPLY: &str = "Checked the laundry list; nothing to report.";
const BODY: &str = "Check whether the laundry is done.";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/forks.rs prints figures only under `cargo bench --bench forks`");
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| picked.is_empty() || picked.iter().any(|p| p == section);
    let (start, memory) = (run("start"), run("memory"));
    if !start && !memory {
        println!("nothing picked: the sections are `start` and `memory`");
        return;
    }
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI (see the header of this file)");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        if start {
            start_overhead().await;
        }
        if memory {
            memory_per_run().await;
        }
    });
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `q` quantile (nearest rank) of `samples`.
fn quantile(samples: &[Duration], q: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn percentiles(samples: &[Duration]) -> String {
    let at = |q| ms(quantile(samples, q));
    format!(
        "median {:7.1} ms   p90 {:7.1} ms   min {:7.1} ms   max {:7.1} ms",
        at(0.5),
        at(0.9),
        at(0.0),
        at(1.0)
    )
}

fn runner(h: &AgentHarness) -> BgRunner {
    BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    )
}

fn job(id: String) -> BgJob {
    BgJob::new(PromptTag::RoutineBg(id), BODY)
}

/// One whole background run, timed from `run()` to its return.
async fn timed_bg_run(runner: &BgRunner, id: String) -> Duration {
    let started = Instant::now();
    let outcome = runner.run(job(id)).await;
    let time = started.elapsed();
    outcome.expect("the background run succeeds");
    time
}

/// The same turn through the driver alone: start, one prompt, read to the `Result`, stop.
async fn timed_bare_run(options: &ClientOptions, n: usize) -> Duration {
    let started = Instant::now();
    let mut client = ClaudeClient::connect(options, ControlHandlers::default())
        .await
        .expect("start the CLI");
    let prompt = format!("[routine-bg:bare-{n}] {BODY}");
    client
        .send(&UserContent::Text(prompt))
        .expect("send a prompt");
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), client.recv()).await;
        match next.expect("the turn ends within a minute") {
            Some(Message::Result(result)) => {
                assert!(!result.is_error, "bare run {n} failed: {result:?}");
                break;
            }
            Some(_) => {}
            None => panic!("the CLI exited: {}", client.exit_error().await),
        }
    }
    client.disconnect(Duration::from_secs(5)).await;
    started.elapsed()
}

async fn start_overhead() {
    let h = AgentHarness::new().await;
    h.mock.set_default(Reply::text(REPLY));
    let runner = runner(&h);
    // As benches/driver.rs builds them: the sandbox's data dir, settings and environment.
    let options = ClientOptions {
        cli_path: h.services.config.claude_cli.clone(),
        cwd: h.sandbox.data_dir.clone(),
        setting_sources: Some(vec!["project".into()]),
        include_partial_messages: true,
        env: h.sandbox.env(&h.mock).into_iter().collect(),
        ..ClientOptions::default()
    };
    let (mut bg, mut bare, mut paired) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..WARM_UP_RUNS + MEASURED_RUNS {
        // Alternate which goes first, so neither always follows the other.
        let (b, c) = if n % 2 == 0 {
            let b = timed_bg_run(&runner, format!("bench-{n}")).await;
            (b, timed_bare_run(&options, n).await)
        } else {
            let c = timed_bare_run(&options, n).await;
            (timed_bg_run(&runner, format!("bench-{n}")).await, c)
        };
        if n >= WARM_UP_RUNS {
            bg.push(b);
            bare.push(c);
            paired.push(ms(b) - ms(c));
        }
    }
    paired.sort_by(f64::total_cmp);
    let paired_median = paired[(paired.len() - 1) / 2];
    let overhead = ms(quantile(&bg, 0.5)) - ms(quantile(&bare, 0.5));
    println!(
        "(1)/(2) start overhead: {MEASURED_RUNS} runs of each, interleaved, after \
         {WARM_UP_RUNS} warm-up pairs; text-only mock reply; wall time start → return"
    );
    println!(
        "    {:<48} {}",
        "(1) background run, BgRunner::run",
        percentiles(&bg)
    );
    println!(
        "    {:<48} {}",
        "(2) bare CLI turn, connect → Result → disconnect",
        percentiles(&bare)
    );
    println!(
        "    bot's overhead per run: median(1) − median(2) = {overhead:7.1} ms; \
         median of the paired differences = {paired_median:7.1} ms"
    );
    println!(
        "    (includes the CLI's own extra work for what the bot adds: the appended system \
         prompt, the `discord` MCP server's handshake, hook callbacks)"
    );
    h.close().await;
}

/// This process's (`VmRSS`, `VmHWM`) in KiB.
fn own_memory() -> (u64, u64) {
    memory_kib(std::process::id()).expect("read /proc/self/status")
}

/// The processes this one started: their command names and `VmRSS` in KiB.
fn child_rss() -> Vec<(String, u64)> {
    let kids = children(std::process::id()).into_iter();
    kids.filter_map(|pid| Some((comm(pid), memory_kib(pid)?.0)))
        .collect()
}

async fn memory_per_run() {
    let h = AgentHarness::new().await;
    h.mock.set_default(Reply::text(REPLY));
    let runner = Arc::new(runner(&h));
    // One run first, so one-time allocations (tokio workers, lazy statics…) are in the baseline.
    let warm = timed_bg_run(&runner, "memory-warm-up".into()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (baseline, hwm_before) = own_memory();
    h.mock
        .set_default(Reply::text(REPLY).with_initial_delay(REPLY_DELAY));
    let mains_before = h.mock.main_requests().len();
    let started = Instant::now();
    let mut runs = tokio::task::JoinSet::new();
    for k in 0..CONCURRENT_RUNS {
        let runner = Arc::clone(&runner);
        runs.spawn(async move { runner.run(job(format!("memory-{k}"))).await });
    }
    let what = format!("{CONCURRENT_RUNS} waiting model calls");
    h.mock
        .wait_for(&what, Duration::from_secs(60), |requests| {
            requests.iter().filter(|r| r.is_main()).count() >= mains_before + CONCURRENT_RUNS
        })
        .await;
    let all_waiting = started.elapsed();
    let (mut peak, mut samples) = (0, 0);
    let sampling_ends = Instant::now() + SAMPLING;
    while Instant::now() < sampling_ends {
        peak = peak.max(own_memory().0);
        samples += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let kids = child_rss();
    let answered = h.mock.main_requests()[mains_before..]
        .iter()
        .filter(|r| r.completed_at.is_some())
        .count();
    let sampled_at = started.elapsed();
    while let Some(joined) = runs.join_next().await {
        joined
            .expect("the run's task")
            .expect("the background run succeeds");
    }
    let all_done = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (after, hwm_after) = own_memory();
    let per_run = peak.saturating_sub(baseline) / CONCURRENT_RUNS as u64;
    println!(
        "(3) memory of this process (bot side, CLI children excluded), {CONCURRENT_RUNS} \
         concurrent background runs, mock reply held back {} s (warm-up run: {:.0} ms)",
        REPLY_DELAY.as_secs(),
        ms(warm)
    );
    println!(
        "    all {CONCURRENT_RUNS} model calls waiting after {:.2} s; sampled until {:.2} s \
         ({samples} samples, replies already sent: {answered}); all done after {:.2} s",
        all_waiting.as_secs_f64(),
        sampled_at.as_secs_f64(),
        all_done.as_secs_f64()
    );
    println!(
        "    VmRSS baseline {:6.1} MiB   peak during {:6.1} MiB   after {:6.1} MiB",
        mib(baseline),
        mib(peak),
        mib(after)
    );
    println!(
        "    per concurrent run: (peak − baseline) / {CONCURRENT_RUNS} = {per_run} KiB \
         ({:.2} MiB)   VmHWM {:6.1} → {:6.1} MiB",
        mib(per_run),
        mib(hwm_before),
        mib(hwm_after)
    );
    println!("    (this process also hosts the mock Messages API and its 8 open streams)");
    let total: u64 = kids.iter().map(|k| k.1).sum();
    let mut names: Vec<String> = kids.iter().map(|k| k.0.clone()).collect();
    names.sort();
    names.dedup();
    println!(
        "    for reference, {} child processes while waiting: VmRSS {:7.1} MiB in all, \
         {:6.1} MiB each on average (commands: {})",
        kids.len(),
        mib(total),
        mib(total / kids.len().max(1) as u64),
        names.join(", ")
    );
    h.close().await;
}
