//! Figures for a daemon at rest (issue 29); prints them, asserts nothing about their size.
//!
//! `cargo bench --bench rest` runs the real `ollim-bot` (the one cargo builds next to this
//! bench) through [`BotHarness`] with the pinned Claude Code CLI and the mock Messages API, side
//! by side in one run:
//!
//! - the size of the `ollim-bot` binary it runs (which build profile costs what);
//! - the process tree's RSS at rest (the bot and every child, summed) with the conversation's
//!   CLI kept up (`cli_idle_minutes 0`, as before issue 29) and once it slept (idle a
//!   minute, passed by moving the bot's clock, issue 40 §2), and the daemon's own RSS in each;
//! - reply latency, the owner's DM → the bot's message with the reply in the fake Discord
//!   (polled every 20 ms), with the CLI warm, after it slept with a typing event 1 s before
//!   the message, and after it slept with none (the CLI start floor); median and worst of
//!   [`SAMPLES`] each;
//! - after a start with the default idle time (REST-6): the tree's RSS before anyone has said
//!   a word, and the first reply, with a typing event 1 s ahead and with none; [`STARTS`]
//!   fresh starts each.
//!
//! Needs the pinned CLI (`OLLIM_TEST_CLAUDE_CLI`, else `.ci/claude-cli`); skipped without it.
#![allow(clippy::cast_precision_loss)] // figures printed for a person

use ollim_test_support as support;

use std::time::{Duration, Instant};

use support::{
    bot::BotHarness,
    cli::{CliSandbox, pinned_cli},
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
    procs::{memory_kib, mib, tree},
};

/// Measured replies per case.
const SAMPLES: usize = 7;

/// Fresh starts per first-reply case.
const STARTS: usize = 3;

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/rest.rs prints figures only under `cargo bench --bench rest`");
        return;
    }
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(rest());
    runtime.block_on(after_a_start());
}

/// RSS of the bot's whole process tree, and of the bot alone, in KiB.
fn rss(h: &BotHarness) -> (u64, u64) {
    let tree: u64 = tree(h.pid())
        .iter()
        .filter_map(|pid| memory_kib(*pid))
        .map(|(rss, _)| rss)
        .sum();
    let own = memory_kib(h.pid()).map_or(0, |(rss, _)| rss);
    (tree, own)
}

/// The bot with `/config cli_idle_minutes` at `idle_minutes`, greeted.
async fn start(idle_minutes: &str) -> BotHarness {
    let sandbox = CliSandbox::new();
    std::fs::create_dir_all(sandbox.data_dir.join("state")).expect("state/");
    std::fs::write(
        sandbox.data_dir.join("state/config.json"),
        format!(r#"{{"cli_idle_minutes": {idle_minutes}}}"#),
    )
    .expect("config.json");
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        sandbox,
        &[],
    )
    .await;
    h.greeted().await;
    h
}

/// The idle minute passes on the bot's clock; waits for the CLI to be stopped.
async fn asleep(h: &BotHarness) {
    h.sandbox.advance_clock(Duration::from_secs(61));
    let deadline = Instant::now() + Duration::from_secs(60);
    while tree(h.pid()).len() > 1 {
        assert!(Instant::now() < deadline, "the CLI never slept");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One reply's latency: the owner's DM → the bot's message with the reply.
async fn reply(h: &BotHarness, n: usize) -> Duration {
    let answer = format!("Reply number {n}.");
    h.mock.push(Reply::text(&answer));
    let started = Instant::now();
    let sent = h.discord.dm_from(h.owner(), &format!("message {n}")).await;
    h.wait_for_bot_message("the reply", |m| m.content.trim() == answer)
        .await;
    let took = started.elapsed();
    h.wait_turn_over(sent).await;
    took
}

/// `(median, worst)` in milliseconds.
fn summary(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() - 1]),
    )
}

async fn rest() {
    let mut kept = start("0").await;
    kept.converse("hello", "Hi!").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (kept_tree, kept_own) = rss(&kept);
    let mut warm = Vec::new();
    for n in 0..SAMPLES {
        warm.push(reply(&kept, n).await);
    }
    kept.terminate().await;

    let mut sleeping = start("1").await;
    sleeping.converse("hello", "Hi!").await;
    asleep(&sleeping).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rest_tree, rest_own) = rss(&sleeping);
    let (mut typed, mut cold) = (Vec::new(), Vec::new());
    for n in 0..SAMPLES {
        asleep(&sleeping).await;
        sleeping.discord.typing_dm(sleeping.owner()).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        typed.push(reply(&sleeping, 100 + n).await);
        asleep(&sleeping).await;
        cold.push(reply(&sleeping, 200 + n).await);
    }
    sleeping.terminate().await;

    println!("issue 29: a daemon at rest (process tree = the bot and its children)");
    let size = std::fs::metadata(support::paths::ollim_bot_exe()).map_or(0, |m| m.len());
    println!("  the binary                  {:6.1} MiB", mib(size / 1024));
    println!(
        "  at rest, CLI kept up        tree {:6.1} MiB   daemon {:5.1} MiB",
        mib(kept_tree),
        mib(kept_own)
    );
    println!(
        "  at rest, CLI asleep         tree {:6.1} MiB   daemon {:5.1} MiB",
        mib(rest_tree),
        mib(rest_own)
    );
    for (what, samples) in [
        ("reply, CLI warm", warm),
        ("reply, asleep, typing 1 s ahead", typed),
        ("reply, asleep, no typing", cold),
    ] {
        let (median, worst) = summary(samples);
        println!(
            "  {what:<34} median {median:6.0} ms   worst {worst:6.0} ms   ({SAMPLES} replies)"
        );
    }
}

/// After a start with the default idle time (REST-6): memory before a word, the first reply.
async fn after_a_start() {
    let (mut trees, mut typed, mut cold) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..STARTS {
        let mut h = start("10").await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        trees.push(rss(&h).0);
        h.discord.typing_dm(h.owner()).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        typed.push(reply(&h, 300 + n).await);
        h.terminate().await;
        let mut h = start("10").await;
        cold.push(reply(&h, 400 + n).await);
        h.terminate().await;
    }
    let worst_tree = trees.iter().copied().max().unwrap_or(0);
    println!("REST-6: after a start, cli_idle_minutes 10 (the default)");
    println!(
        "  before a word               tree {:6.1} MiB (largest of {STARTS} starts)",
        mib(worst_tree)
    );
    for (what, samples) in [
        ("first reply, typing 1 s ahead", typed),
        ("first reply, no typing", cold),
    ] {
        let (median, worst) = summary(samples);
        println!("  {what:<34} median {median:6.0} ms   worst {worst:6.0} ms   ({STARTS} starts)");
    }
}
