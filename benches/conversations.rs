//! Figures for two conversations answering at once (issue 41 §1); prints them, asserts nothing
//! about their size.
//!
//! `cargo bench --bench conversations` (release profile) runs the real `ollim-bot` binary
//! through [`BotHarness`]: the fake Discord (real serenity client inside the bot), the pinned
//! Claude Code CLI and the mock Messages API. In a home channel with two forks open, each in its
//! thread, after 2 warm-up rounds, 12 measured rounds of five, in turn: (1) a line in the channel
//! alone, (2) a line in the first thread alone, (3) both at once, (4) a line in the second
//! thread alone, (5) a line in each thread at once. Each time is from the line's
//! `MESSAGE_CREATE` to the Discord write showing the whole reply (10 deltas, 300 ms before the
//! first, 60 ms between the others). The figures that matter are (3) against (1) and (2), and
//! (5) against (2) and (4): a conversation's reply should take about as long with another one
//! answering beside it.
//!
//! Needs the pinned CLI: `OLLIM_TEST_CLAUDE_CLI`, else `.ci/claude-cli/node_modules/.bin/claude`;
//! without it everything is skipped.
// Figures printed for a person: counts and durations are far below 2^52, so these casts lose nothing.
#![allow(clippy::cast_precision_loss)]

use ollim_test_support as support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::bot::BotHarness;
use support::cli::pinned_cli;
use support::fake_discord::FakeOverwrite;
use support::mock_api::Reply;

const WARM_UP_ROUNDS: usize = 2;
const MEASURED_ROUNDS: usize = 12;
/// Text deltas per scripted reply.
const CHUNKS: usize = 10;
/// The mock's delay before the first byte of the SSE body.
const INITIAL_DELAY: Duration = Duration::from_millis(300);
/// The mock's delay before every delta but the first.
const CHUNK_DELAY: Duration = Duration::from_millis(60);
/// Quiet time between rounds.
const BETWEEN: Duration = Duration::from_millis(300);
/// Discord's View Channel permission bit.
const VIEW_CHANNEL: u64 = 1 << 10;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!(
            "benches/conversations.rs prints figures only under `cargo bench --bench conversations`"
        );
        return;
    }
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI (see the header of this file)");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(side_by_side());
}

/// The words of the reply to the line tagged `tag`.
fn reply_words(tag: &str) -> Vec<String> {
    (0..CHUNKS).map(|i| format!("{tag}w{i} ")).collect()
}

/// `/fork <topic>` in `home`; returns its thread once the fork's first reply is there.
async fn fork_thread(h: &BotHarness, home: u64, topic: &str) -> u64 {
    let discord = &h.discord;
    let options = json!([{"name": "topic", "type": 3, "value": topic}]);
    discord.slash_in(h.owner(), home, "fork", options).await;
    let started = Instant::now();
    let thread = loop {
        let threads = discord.threads_of(home).into_iter();
        if let Some(thread) = threads.rev().find(|t| t.name == topic) {
            break thread.id;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no fork thread"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    discord
        .wait_for_message_in(thread, |m| m.content == "fork ready")
        .await;
    thread
}

/// A home channel only the owner and the bot see, made home with `/home`, with a fork open in
/// a thread of it. Returns (channel, thread).
async fn home_with_a_fork(h: &BotHarness) -> (u64, u64) {
    let discord = &h.discord;
    let guild = discord.add_guild("owner's place");
    let bot = discord.config().bot_user_id;
    let home = discord.add_text_channel(
        guild,
        "assistant",
        vec![
            FakeOverwrite::role(guild, 0, VIEW_CHANNEL),
            FakeOverwrite::member(h.owner(), VIEW_CHANNEL, 0),
            FakeOverwrite::member(bot, VIEW_CHANNEL, 0),
        ],
    );
    let command = discord.slash_in(h.owner(), home, "home", json!([])).await;
    discord
        .wait_for_message_in(home, |m| {
            m.interaction_id == Some(command) && !m.content.is_empty()
        })
        .await;
    (home, fork_thread(h, home, "bench").await)
}

/// Writes `tag` in `channel` and times it to the write showing the whole reply.
async fn timed_line(h: &BotHarness, channel: u64, tag: &str) -> Duration {
    let whole = reply_words(tag).concat();
    let started = Instant::now();
    h.discord.channel_message(h.owner(), channel, tag).await;
    h.discord
        .wait_for_message_in(channel, |m| m.content.trim() == whole.trim())
        .await;
    started.elapsed()
}

async fn side_by_side() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.mock.add_rule(|request| {
        let prompt = request.last_user_text()?;
        if prompt.contains("[fork-started]") {
            return Some(Reply::text("fork ready"));
        }
        let tag = prompt
            .split_whitespace()
            .find(|word| word.starts_with("line-"))?;
        Some(Reply::text_chunks(reply_words(tag), CHUNK_DELAY).with_initial_delay(INITIAL_DELAY))
    });
    let (home, thread) = home_with_a_fork(&h).await;
    let second = fork_thread(&h, home, "bench two").await;
    let (mut main_alone, mut fork_alone, mut main_both, mut fork_both) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut second_alone, mut forks_first, mut forks_second) =
        (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP_ROUNDS + MEASURED_ROUNDS {
        let main_line = timed_line(&h, home, &format!("line-main-alone-{round}")).await;
        tokio::time::sleep(BETWEEN).await;
        let fork_line = timed_line(&h, thread, &format!("line-fork-alone-{round}")).await;
        tokio::time::sleep(BETWEEN).await;
        let (main_tag, fork_tag) = (
            format!("line-main-both-{round}"),
            format!("line-fork-both-{round}"),
        );
        let (main_beside, fork_beside) = tokio::join!(
            timed_line(&h, home, &main_tag),
            timed_line(&h, thread, &fork_tag),
        );
        tokio::time::sleep(BETWEEN).await;
        let second_line = timed_line(&h, second, &format!("line-second-alone-{round}")).await;
        tokio::time::sleep(BETWEEN).await;
        let (first_tag, second_tag) = (
            format!("line-first-forks-{round}"),
            format!("line-second-forks-{round}"),
        );
        let (first_beside, second_beside) = tokio::join!(
            timed_line(&h, thread, &first_tag),
            timed_line(&h, second, &second_tag),
        );
        tokio::time::sleep(BETWEEN).await;
        if round >= WARM_UP_ROUNDS {
            main_alone.push(main_line);
            fork_alone.push(fork_line);
            main_both.push(main_beside);
            fork_both.push(fork_beside);
            second_alone.push(second_line);
            forks_first.push(first_beside);
            forks_second.push(second_beside);
        }
    }
    println!(
        "side by side: {MEASURED_ROUNDS} rounds after {WARM_UP_ROUNDS} warm-up rounds; \
         MESSAGE_CREATE → the write showing the whole reply ({CHUNKS} deltas)"
    );
    for (name, alone, both) in [
        ("channel (main)", &main_alone, &main_both),
        ("thread (fork)", &fork_alone, &fork_both),
        ("thread beside a thread", &fork_alone, &forks_first),
        ("2nd thread beside", &second_alone, &forks_second),
    ] {
        let (alone, both) = (median_ms(alone), median_ms(both));
        println!(
            "    {name:<22} alone median {alone:7.1} ms   beside the other median {both:7.1} ms   \
             ratio {:.3}",
            both / alone
        );
    }
    h.terminate().await;
}

fn median_ms(samples: &[Duration]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[(sorted.len() - 1) / 2].as_secs_f64() * 1e3
}
