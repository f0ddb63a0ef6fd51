//! Figures for the Discord daemon end to end; prints them, asserts nothing about their size.
//!
//! `cargo bench --bench discord [-- latency|rss]` (release profile) runs the real `ollim-bot`
//! binary (the one cargo builds next to this bench) through [`BotHarness`]: the fake Discord
//! (real serenity client inside the bot), the pinned Claude Code CLI and the mock Messages API.
//! After the greeting, 2 warm-up turns and 20 measured warm turns, one at a time:
//!
//! - `latency` (1) the bot's own latency from the injected `MESSAGE_CREATE` to the prompt's write
//!   to the CLI's stdin, (2) first model token → first Discord write showing reply text,
//!   (3) warm-turn end to end, `MESSAGE_CREATE` → the write that shows the whole reply;
//! - `rss` (4) the daemon's idle memory (CLI child excluded) with its main session connected,
//!   then SIGTERM and the exit status;
//! - `start` (5) spawn → gateway READY on the fake Discord, over ten fresh starts.
//!
//! Needs the pinned CLI: `OLLIM_TEST_CLAUDE_CLI`, else `.ci/claude-cli/node_modules/.bin/claude`;
//! without it everything is skipped. Instants: `std::time::Instant` (monotonic) on this side,
//! the fake's `RecordedRequest.at` and the mock's `received_at`/`completed_at` (same clock,
//! same process); the bot's trace points (`ollim_bot::latency`, debug) carry wall-clock log
//! timestamps, mapped onto `Instant` through an (Instant, `SystemTime`) pair (see [`ClockMap`]).
// Figures printed for a person: counts and durations are far below 2^52 and percentiles index sorted samples, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use ollim_test_support as support;

use std::time::{Duration, Instant, SystemTime};

use support::bot::BotHarness;
use support::cli::pinned_cli;
use support::fake_discord::RecordedRequest;
use support::mock_api::Reply;
use support::procs::{children, comm, memory_kib, mib, status_fields};

const WARM_UP_TURNS: usize = 2;
const MEASURED_TURNS: usize = 20;
/// Text deltas per scripted reply.
const CHUNKS: usize = 10;
/// The mock's delay before the first byte of the SSE body (the first delta follows at once).
const INITIAL_DELAY: Duration = Duration::from_millis(300);
/// The mock's delay before every delta but the first.
const CHUNK_DELAY: Duration = Duration::from_millis(60);
/// Quiet time after a turn before the next DM (or the memory reading).
const BETWEEN_TURNS: Duration = Duration::from_millis(300);
const IDLE_BEFORE_RSS: Duration = Duration::from_secs(2);
const TRACE_RECEIVED: &str = "owner message received";
const TRACE_WRITTEN: &str = "prompt written to the CLI";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/discord.rs prints figures only under `cargo bench --bench discord`");
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| picked.is_empty() || picked.iter().any(|p| p == section);
    let (latency, rss, start) = (run("latency"), run("rss"), run("start"));
    if !latency && !rss && !start {
        println!("nothing picked: the sections are `latency`, `rss` and `start`");
        return;
    }
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI (see the header of this file)");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    if latency || rss {
        runtime.block_on(bench(latency, rss));
    }
    if start {
        runtime.block_on(starts());
    }
}

/// (5) Ten fresh starts (new data dir each), spawn → the fake Discord's READY.
async fn starts() {
    let mut samples = Vec::new();
    for _ in 0..10 {
        let mut h = BotHarness::start().await;
        samples.push(ms(h.spawn_to_ready));
        h.terminate().await;
    }
    println!("(5) spawn → gateway READY, ten fresh starts (first run of a data dir); ms");
    println!("    {:<58} {}", "spawn → READY", percentiles(samples, "ms"));
}

/// A pair of readings of the monotonic and the wall clock taken at (nearly) the same moment:
/// the tightest of many `Instant, SystemTime, Instant` triples.
#[derive(Clone, Copy)]
struct ClockMap {
    /// Midpoint of the two `Instant` readings around the `SystemTime` reading.
    instant: Instant,
    wall: SystemTime,
    /// Time between the two `Instant` readings: the pair is exact to ± half of it.
    window: Duration,
}

impl ClockMap {
    fn take() -> Self {
        let mut best: Option<ClockMap> = None;
        for _ in 0..2000 {
            let before = Instant::now();
            let wall = SystemTime::now();
            let after = Instant::now();
            let window = after - before;
            if best.is_none_or(|b| window < b.window) {
                best = Some(ClockMap {
                    instant: before + window / 2,
                    wall,
                    window,
                });
            }
        }
        best.expect("at least one reading")
    }

    /// The `Instant` at which the wall clock read `wall`.
    fn instant_of(&self, wall: SystemTime) -> Instant {
        match wall.duration_since(self.wall) {
            Ok(later) => self.instant + later,
            Err(earlier) => self.instant.checked_sub(earlier.duration()).unwrap(),
        }
    }

    /// How far `later`'s wall clock moved against the monotonic clock since `self`, in µs
    /// (0 unless the wall clock was stepped or slewed differently).
    fn drift_us(&self, later: &ClockMap) -> f64 {
        let monotonic = (later.instant - self.instant).as_secs_f64();
        let wall = match later.wall.duration_since(self.wall) {
            Ok(d) => d.as_secs_f64(),
            Err(e) => -e.duration().as_secs_f64(),
        };
        (wall - monotonic) * 1e6
    }
}

/// `text` without ANSI escape sequences (`ESC [ … letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One `ollim_bot::latency` trace line: its wall-clock timestamp and the rest.
struct Trace {
    wall: SystemTime,
    text: String,
}

/// Every `ollim_bot::latency` line of the bot's stderr, in order.
fn traces(log: &str) -> Vec<Trace> {
    log.lines()
        .map(strip_ansi)
        .filter(|line| line.contains("ollim_bot::latency"))
        .filter_map(|line| {
            let stamp = line.split_whitespace().next()?;
            let time = chrono::DateTime::parse_from_rfc3339(stamp).ok()?;
            Some(Trace {
                wall: SystemTime::from(time),
                text: line,
            })
        })
        .collect()
}

/// Wall-clock times of `owner message received id=<message>` and of the next
/// `prompt written to the CLI`.
fn trace_pair(log: &str, message: u64) -> Option<(SystemTime, SystemTime)> {
    let traces = traces(log);
    let id = format!("id={message}");
    let at = traces.iter().position(|t| {
        t.text.contains(TRACE_RECEIVED) && t.text.split_whitespace().any(|w| w == id)
    })?;
    let written = traces[at..]
        .iter()
        .find(|t| t.text.contains(TRACE_WRITTEN))?;
    Some((traces[at].wall, written.wall))
}

/// A POST or PATCH of a message in `channel` and its `content`.
fn message_write(request: &RecordedRequest, channel: u64) -> Option<&str> {
    let post = format!("POST /channels/{channel}/messages");
    let patch = format!("PATCH /channels/{channel}/messages/*");
    if !(request.matches(&post) || request.matches(&patch)) || request.status >= 300 {
        return None;
    }
    request.body.as_ref()?.get("content")?.as_str()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `later − earlier` in ms, negative when `later` is earlier.
fn signed_ms(later: Instant, earlier: Instant) -> f64 {
    if later >= earlier {
        ms(later - earlier)
    } else {
        -ms(earlier - later)
    }
}

fn percentiles(mut samples: Vec<f64>, unit: &str) -> String {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    format!(
        "median {:8.3} {unit}   p90 {:8.3} {unit}   max {:8.3} {unit}",
        at(0.5),
        at(0.9),
        at(1.0)
    )
}

/// What one measured turn yielded.
struct Turn {
    /// `dm_from` was called and returned: the `MESSAGE_CREATE` was queued to the gateway
    /// socket in between (the fake exposes no dispatch instant).
    calling: Instant,
    injected: Instant,
    /// The bot's trace points, wall clock.
    received: SystemTime,
    written: SystemTime,
    /// The fake's arrival instant of the bot's 👀 reaction on the DM.
    seen_reaction: Instant,
    /// The mock's model call for this turn.
    api_received: Instant,
    api_completed: Instant,
    /// The fake's arrival instants of the first write showing the first chunk and of the
    /// last write whose content is the whole reply; that first write's method.
    first_text: Instant,
    first_text_method: String,
    full_text: Instant,
    /// Writes of the DM (POST/PATCH) between the `MESSAGE_CREATE` and the end of the turn.
    writes: usize,
}

async fn one_turn(h: &BotHarness, turn: usize) -> Turn {
    let chunks: Vec<String> = (0..CHUNKS).map(|c| format!("t{turn:02}c{c} ")).collect();
    let first_chunk = chunks[0].trim_end().to_owned();
    let full = chunks.concat().trim_end().to_owned();
    h.mock
        .push(Reply::text_chunks(chunks, CHUNK_DELAY).with_initial_delay(INITIAL_DELAY));
    let (owner, dm) = (h.owner(), h.dm());
    let mains_before = h.mock.main_requests().len();
    let requests_before = h.discord.requests().len();
    let before = Instant::now();
    let sent = h.discord.dm_from(owner, &format!("warm turn {turn}")).await;
    let injected = Instant::now();
    let unseen = format!("DELETE /channels/{dm}/messages/{sent}/reactions/*/@me");
    let done = h
        .discord
        .try_wait_for(Duration::from_secs(60), |log| {
            let log = &log[requests_before..];
            let shown = log
                .iter()
                .any(|r| message_write(r, dm).is_some_and(|c| c.trim_end() == full));
            shown && log.iter().any(|r| r.matches(&unseen))
        })
        .await;
    let Some(log) = done else {
        panic!(
            "turn {turn}: no write of {full:?} followed by the 👀 removal within 60 s\n--- log ---\n{}",
            h.log()
        );
    };
    let log = &log[requests_before..];
    let seen = format!("PUT /channels/{dm}/messages/{sent}/reactions/*/@me");
    let seen_reaction = log.iter().find(|r| r.matches(&seen)).map(|r| r.at);
    let seen_reaction = seen_reaction.expect("the bot's 👀 reaction");
    let writes: Vec<(&RecordedRequest, &str)> = log
        .iter()
        .filter_map(|r| Some((r, message_write(r, dm)?)))
        .collect();
    let (first_request, _) = writes
        .iter()
        .find(|(_, content)| content.contains(&first_chunk))
        .expect("a write with the first chunk");
    let (full_request, _) = writes
        .iter()
        .rev()
        .find(|(_, content)| content.trim_end() == full)
        .expect("a write with the whole reply");
    assert!(
        h.bot_messages()
            .iter()
            .any(|m| m.content.trim_end() == full),
        "turn {turn}: the DM does not end up showing the whole reply"
    );
    let mains = h.mock.main_requests();
    let call = mains.get(mains_before).unwrap_or_else(|| {
        panic!("turn {turn}: the mock saw no model call\n{}", h.log());
    });
    let api_completed = call
        .completed_at
        .expect("the mock streamed the whole reply");
    // The trace lines are on stderr by now; allow the reader task a moment to copy them.
    let deadline = Instant::now() + Duration::from_secs(5);
    let (received, written) = loop {
        if let Some(pair) = trace_pair(&h.log(), sent) {
            break pair;
        }
        assert!(
            Instant::now() < deadline,
            "turn {turn}: no `{TRACE_RECEIVED}` id={sent} … `{TRACE_WRITTEN}` in the log\n{}",
            h.log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    Turn {
        calling: before,
        injected,
        received,
        written,
        seen_reaction,
        api_received: call.received_at,
        api_completed,
        first_text: first_request.at,
        first_text_method: first_request.method.clone(),
        full_text: full_request.at,
        writes: writes.len(),
    }
}

async fn bench(latency: bool, rss: bool) {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let warm_started = Instant::now();
    for turn in 0..WARM_UP_TURNS {
        one_turn(&h, turn).await;
        tokio::time::sleep(BETWEEN_TURNS).await;
    }
    let warm_up = warm_started.elapsed();
    let measured = if latency { MEASURED_TURNS } else { 0 };
    let map_start = ClockMap::take();
    let mut turns = Vec::with_capacity(measured);
    for turn in WARM_UP_TURNS..WARM_UP_TURNS + measured {
        turns.push(one_turn(&h, turn).await);
        tokio::time::sleep(BETWEEN_TURNS).await;
    }
    let map_end = ClockMap::take();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    println!(
        "ollim-bot daemon ({}) against the fake Discord, the pinned Claude CLI and the mock API",
        env!("CARGO_BIN_EXE_ollim-bot")
    );
    println!(
        "  {WARM_UP_TURNS} warm-up turns after the greeting ({:.2} s), then {measured} measured \
         turns, one at a time, {} ms apart",
        warm_up.as_secs_f64(),
        BETWEEN_TURNS.as_millis()
    );
    println!(
        "  host: {cpus} CPUs, load average {} (other work on the host shows in the p90/max)",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if latency {
        print_latency(&turns, &map_start, &map_end);
    }
    if rss {
        tokio::time::sleep(IDLE_BEFORE_RSS.saturating_sub(BETWEEN_TURNS)).await;
        print_memory(&h);
    }
    let status = h.terminate().await;
    println!(
        "SIGTERM → {status} ({})",
        if status.success() {
            "exit 0: ok"
        } else {
            "NOT 0"
        }
    );
    assert!(status.success(), "the bot did not exit 0\n{}", h.log());
}

#[allow(clippy::too_many_lines)] // one table of figures, printed in order
fn print_latency(turns: &[Turn], map: &ClockMap, map_end: &ClockMap) {
    let drift = map.drift_us(map_end);
    // Log timestamps have µs resolution (truncated): a trace lies within [t, t + 1 µs).
    let bound_us = map.window.as_secs_f64() * 1e6 / 2.0 + 1.0 + drift.abs();
    let stream = INITIAL_DELAY + CHUNK_DELAY * (CHUNKS as u32 - 1);
    println!(
        "  reply script per turn: {CHUNKS} text deltas `tNNcK `, the first {} ms after the model \
         call arrives (with_initial_delay), then one every {} ms (text_chunks delay): {} ms of \
         model time",
        INITIAL_DELAY.as_millis(),
        CHUNK_DELAY.as_millis(),
        stream.as_millis()
    );
    println!(
        "  clock mapping (log wall clock → Instant): pair captured within {:.3} µs, wall vs \
         monotonic drift over the run {drift:+.1} µs, log resolution 1 µs → error ≤ ±{bound_us:.1} µs",
        map.window.as_secs_f64() * 1e6
    );
    let inject_us: Vec<f64> = turns
        .iter()
        .map(|t| (t.injected - t.calling).as_secs_f64() * 1e6)
        .collect();
    println!(
        "  MESSAGE_CREATE instant = right after `dm_from` returned (the fake queues the frame to \
         its gateway socket inside that call, and records no instant); the call took {}",
        percentiles(inject_us, "µs")
    );
    let rows = |f: &dyn Fn(&Turn) -> f64| turns.iter().map(f).collect::<Vec<f64>>();
    let received = |t: &Turn| map.instant_of(t.received);
    let written = |t: &Turn| map.instant_of(t.written);
    let first_token_low = |t: &Turn| t.api_received + INITIAL_DELAY;
    let first_token_high = |t: &Turn| {
        t.api_completed
            .checked_sub(CHUNK_DELAY * (CHUNKS as u32 - 1))
            .unwrap()
    };
    println!("(1) bot latency, MESSAGE_CREATE → prompt on the CLI's stdin; ms");
    let table = [
        (
            "MESSAGE_CREATE → `prompt written to the CLI`",
            rows(&|t| signed_ms(written(t), t.injected)),
        ),
        (
            "  same from the call into `dm_from` (upper bound)",
            rows(&|t| signed_ms(written(t), t.calling)),
        ),
        (
            "  of which: MESSAGE_CREATE → `owner message received`",
            rows(&|t| signed_ms(received(t), t.injected)),
        ),
        (
            "  of which: `owner message received` → `prompt written` (log)",
            rows(&|t| signed_ms(written(t), received(t))),
        ),
        (
            "    `owner message received` → fake gets the reaction PUT",
            rows(&|t| signed_ms(t.seen_reaction, received(t))),
        ),
        (
            "    fake gets the reaction PUT → `prompt written`",
            rows(&|t| signed_ms(written(t), t.seen_reaction)),
        ),
    ];
    for (what, samples) in table {
        println!("    {what:<58} {}", percentiles(samples, "ms"));
    }
    println!(
        "    (the first row is a lower bound: the frame left before `dm_from` returned; a negative \
         `owner message received` means the bench thread lost the CPU inside `dm_from`)"
    );
    println!(
        "(2) first model token → first Discord write showing reply text (fake's arrival of the \
         first POST/PATCH whose content has the first delta); ms"
    );
    let upper = format!("first token ≈ last SSE byte − {} chunk delays", CHUNKS - 1);
    let table = [
        (
            "first token ≈ model call arrival + initial delay",
            rows(&|t| signed_ms(t.first_text, first_token_low(t))),
        ),
        (
            upper.as_str(),
            rows(&|t| signed_ms(t.first_text, first_token_high(t))),
        ),
        (
            "  width of that bracket (first token's uncertainty)",
            rows(&|t| signed_ms(first_token_high(t), first_token_low(t))),
        ),
    ];
    for (what, samples) in table {
        println!("    {what:<58} {}", percentiles(samples, "ms"));
    }
    let patched = turns
        .iter()
        .filter(|t| t.first_text_method == "PATCH")
        .count();
    println!(
        "    (the first row over-, the second under-estimates; the first text write was a PATCH \
         of the status line in {patched}/{} turns; the bot waits FIRST_FLUSH_DELAY = 200 ms by \
         design)",
        turns.len()
    );
    println!("(3) warm turn end to end; ms");
    let table = [
        (
            "MESSAGE_CREATE → write showing the whole reply",
            rows(&|t| signed_ms(t.full_text, t.injected)),
        ),
        (
            "  of which: MESSAGE_CREATE → mock receives the model call",
            rows(&|t| signed_ms(t.api_received, t.injected)),
        ),
        (
            "  of which: model call → mock's last SSE byte (scripted)",
            rows(&|t| signed_ms(t.api_completed, t.api_received)),
        ),
        (
            "  of which: last SSE byte → write showing the whole reply",
            rows(&|t| signed_ms(t.full_text, t.api_completed)),
        ),
    ];
    for (what, samples) in table {
        println!("    {what:<58} {}", percentiles(samples, "ms"));
    }
    let mut writes: Vec<usize> = turns.iter().map(|t| t.writes).collect();
    writes.sort_unstable();
    println!(
        "    (POST/PATCH requests to the DM per turn, status line included: min {}, median {}, \
         max {})",
        writes[0],
        writes[writes.len() / 2],
        writes[writes.len() - 1]
    );
}

fn print_memory(h: &BotHarness) {
    let pid = h.pid();
    let (rss, hwm) = memory_kib(pid).expect("read /proc/<bot pid>/status");
    println!(
        "(4) memory of the idle daemon (pid {pid}), {} s after the last turn, one idle main \
         session connected; children excluded; MiB = 2^20 bytes",
        IDLE_BEFORE_RSS.as_secs()
    );
    println!(
        "    VmRSS {:6.1} MiB   VmHWM {:6.1} MiB   (goal: < 16 MiB: {})",
        mib(rss),
        mib(hwm),
        if rss < 16 * 1024 { "met" } else { "NOT met" }
    );
    let names = ["RssAnon", "RssFile", "RssShmem", "Threads"];
    if let Some([anon, file, shmem, threads]) = status_fields(pid, names) {
        println!(
            "    of which RssAnon {:5.1} MiB, RssFile {:5.1} MiB, RssShmem {:5.1} MiB; {threads} threads",
            mib(anon),
            mib(file),
            mib(shmem)
        );
    }
    for child in children(pid) {
        if let Some((rss, hwm)) = memory_kib(child) {
            println!(
                "    for reference, child {child} ({}): VmRSS {:6.1} MiB   VmHWM {:6.1} MiB",
                comm(child),
                mib(rss),
                mib(hwm)
            );
        }
    }
}
