//! Memory over a long life (issue 16); prints figures, asserts nothing about their size.
//!
//! `cargo bench --bench endurance [-- turns|runs|burst]` runs the real `ollim-bot` binary
//! through [`BotHarness`] (fake Discord, the pinned Claude Code CLI, the mock Messages API):
//!
//! - `turns`: `OLLIM_BENCH_TURNS` (default 10,000) DM turns one after another, with a `/clear`
//!   every 250 so the CLI's own transcript stays small (the bot's memory is the figure); the
//!   daemon's RSS (children excluded) every 1,000 turns.
//! - `runs`: `OLLIM_BENCH_RUNS` (default 1,000) background reminders in batches of 100, all
//!   due at once within a batch, under the default cap; RSS after each batch once idle.
//! - `burst`: ten routines due in the same minute, with `bg_max_concurrent` 3 (the default) and
//!   then 10 (no cap in effect): the peak of the daemon plus all its descendants, sampled
//!   every 50 ms, while the mock holds every answer for 3 s.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use ollim_test_support as support;

use std::{
    collections::BTreeSet,
    time::{Duration, Instant},
};

use chrono::{Timelike, Utc};
use support::{
    bot::BotHarness,
    cli::{CliSandbox, pinned_cli},
    mock_api::{RecordedRequest, Reply},
    procs::{children, memory_kib, mib, tree},
};

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/endurance.rs prints figures only under `cargo bench --bench endurance`");
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| picked.is_empty() || picked.iter().any(|p| p == section);
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let count = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    if run("turns") {
        runtime.block_on(turns(count("OLLIM_BENCH_TURNS", 10_000)));
    }
    if run("runs") {
        runtime.block_on(runs(count("OLLIM_BENCH_RUNS", 1_000)));
    }
    if run("burst") {
        runtime.block_on(burst());
    }
}

fn rss_line(h: &BotHarness, what: &str) -> u64 {
    let (rss, hwm) = memory_kib(h.pid()).expect("the bot's /proc status");
    println!(
        "    {what:<34} VmRSS {:6.1} MiB   VmHWM {:6.1} MiB",
        mib(rss),
        mib(hwm)
    );
    rss
}

async fn turns(total: usize) {
    println!(
        "(1) {total} DM turns, one at a time, /clear every 250; daemon RSS, children excluded"
    );
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.mock.set_default(Reply::text("ok"));
    for n in 0..20 {
        h.converse(&format!("warm-up {n}"), &format!("w{n}")).await;
    }
    let started = Instant::now();
    let first = rss_line(&h, "after 20 warm-up turns");
    for n in 1..=total {
        h.converse(&format!("turn {n}"), &format!("r{n}")).await;
        if n % 250 == 0 {
            let clear = h
                .discord
                .slash(h.owner(), "clear", serde_json::json!([]))
                .await;
            h.discord.wait_for_callback(clear).await;
        }
        if n % 1_000 == 0 || n == total {
            tokio::time::sleep(Duration::from_secs(1)).await;
            rss_line(&h, &format!("after {n} turns"));
        }
    }
    let last = memory_kib(h.pid()).expect("status").0;
    println!(
        "    growth over {total} turns: {:+.1} MiB ({:.0} s, {:.1} turns/s)",
        mib(last) - mib(first),
        started.elapsed().as_secs_f64(),
        total as f64 / started.elapsed().as_secs_f64()
    );
    h.terminate().await;
}

fn bg_tags(requests: &[RecordedRequest]) -> BTreeSet<String> {
    requests
        .iter()
        .filter_map(|r| {
            let prompt = r.user_prompts().join("\n");
            let start = prompt.find("[reminder-bg:")?;
            let end = prompt[start..].find(']')? + start;
            Some(prompt[start..=end].to_owned())
        })
        .collect()
}

async fn runs(total: usize) {
    println!(
        "(2) {total} background reminder runs in batches of 100 (default cap); daemon RSS once idle"
    );
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.mock.set_default(Reply::text("done"));
    let first = rss_line(&h, "before any run");
    let started = Instant::now();
    let mut done = 0;
    while done < total {
        let batch = 100.min(total - done);
        for n in done..done + batch {
            h.add_reminder_now(&format!("endurance run {n}")).await;
        }
        done += batch;
        let deadline = Instant::now() + Duration::from_secs(1_800);
        while bg_tags(&h.mock.requests()).len() < done {
            assert!(Instant::now() < deadline, "runs stalled\n{}", h.log());
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        // The main session's idle CLI stays; the runs' CLIs go.
        while children(h.pid()).len() > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss_line(&h, &format!("after {done} runs"));
    }
    let last = memory_kib(h.pid()).expect("status").0;
    println!(
        "    growth over {total} runs: {:+.1} MiB ({:.0} s, {:.2} runs/s)",
        mib(last) - mib(first),
        started.elapsed().as_secs_f64(),
        total as f64 / started.elapsed().as_secs_f64()
    );
    h.terminate().await;
}

async fn burst_with_cap(cap: usize) {
    let sandbox = CliSandbox::new();
    std::fs::create_dir_all(sandbox.data_dir.join("state")).unwrap();
    std::fs::write(
        sandbox.data_dir.join("state/config.json"),
        format!("{{\"bg_max_concurrent\": {cap}}}\n"),
    )
    .unwrap();
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    h.mock
        .set_default(Reply::text("checked").with_initial_delay(Duration::from_secs(3)));
    // Due at the start of the next minute (at least 20 s away, so every file is registered).
    let mut due = Utc::now() + chrono::Duration::seconds(80);
    due = due.with_second(0).unwrap();
    for n in 0..10 {
        let body = format!(
            "---\nid: burst-{n}\ncron: \"{} {} * * *\"\nbackground: true\n---\nburst routine {n}\n",
            due.minute(),
            due.hour()
        );
        std::fs::write(
            h.sandbox.data_dir.join(format!("routines/burst-{n}.md")),
            body,
        )
        .unwrap();
    }
    let baseline: u64 = tree(h.pid())
        .iter()
        .filter_map(|p| memory_kib(*p))
        .map(|(rss, _)| rss)
        .sum();
    let mut peak = 0;
    let mut peak_children = 0;
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let pids = tree(h.pid());
        let total: u64 = pids
            .iter()
            .filter_map(|p| memory_kib(*p))
            .map(|(rss, _)| rss)
            .sum();
        if total > peak {
            peak = total;
        }
        peak_children = peak_children.max(pids.len() - 1);
        let ran = h
            .mock
            .requests()
            .iter()
            .filter(|r| r.user_prompts().iter().any(|p| p.contains("burst routine")))
            .filter(|r| r.completed_at.is_some())
            .count();
        // The main session's idle CLI stays; the runs' CLIs are gone.
        if ran >= 10 && pids.len() <= 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the burst never finished\n{}",
            h.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!(
        "    bg_max_concurrent {cap:>2}: peak {:7.1} MiB (daemon + CLIs; {:.1} MiB before, with the main session's idle CLI), at most {peak_children} processes under the daemon",
        mib(peak),
        mib(baseline)
    );
    h.terminate().await;
}

async fn burst() {
    println!(
        "(3) ten routines due in the same minute, each answer held 3 s; peak memory of the daemon and its CLIs"
    );
    burst_with_cap(3).await;
    burst_with_cap(10).await;
}
