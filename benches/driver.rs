//! Figures for the Claude Code CLI driver; prints them, asserts nothing.
//!
//! `cargo bench --bench driver [-- parse|turn|rss …]` (release profile):
//!
//! - (a) parse throughput of the recorded transcripts' stdout through a `StreamConnection`,
//!   against bare `serde_json::from_slice` + `Message::from_value`;
//! - (b) the driver's time per turn with the real CLI and the mock Messages API;
//! - (c) resident memory of `ollim-bot chat` with one idle main session (CLI child excluded).
//!
//! (b) and (c) need the pinned CLI: `OLLIM_TEST_CLAUDE_CLI`, else
//! `.ci/claude-cli/node_modules/.bin/claude` (`.ci/test.sh --no-run` installs it); without it
//! they are skipped. (c) runs the `ollim-bot` binary cargo builds next to this bench.
// Figures printed for a person: counts and durations are far below 2^52 and percentiles index sorted samples, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use ollim_test_support as support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ollim_bot::claude::{
    ClaudeClient, ClientOptions, ControlHandlers, Message, StreamConnection, StreamEvent,
    UserContent,
};
use serde_json::Value;
use support::cli::{CliSandbox, pinned_cli};
use support::mock_api::{MockApi, Reply};
use support::procs::{children, memory_kib, mib};
use support::replay::{load, transcript_dir};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// At least this much stdout per parse pass.
const CORPUS_BYTES: usize = 50_000_000;
const WARM_UP_TURNS: usize = 3;
const MEASURED_TURNS: usize = 30;
const REPLY: &str = "Here is a short reply from the mock model.";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/driver.rs prints figures only under `cargo bench --bench driver`");
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| picked.is_empty() || picked.iter().any(|p| p == section);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        if run("parse") {
            parse_throughput().await;
        }
        let Some(cli) = pinned_cli() else {
            println!("(b), (c) skipped: no pinned Claude Code CLI (see the header of this file)");
            return;
        };
        if run("turn") {
            turn_latency(&cli).await;
        }
        if run("rss") {
            idle_rss(&cli).await;
        }
    });
}

fn mb_per_s(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

fn per_s(count: usize, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64()
}

/// Every recorded stdout line of every transcript (or only the non-control ones), one compact
/// JSON object per line; with the number of lines and of typed (non-control) messages.
fn recorded_stdout(with_control: bool) -> (Vec<u8>, usize, usize) {
    let mut names: Vec<String> = std::fs::read_dir(transcript_dir())
        .expect("list the transcripts")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|file| {
            std::path::Path::new(file)
                .extension()
                .is_some_and(|ext| ext == "jsonl")
                && !file.ends_with(".api.jsonl")
        })
        .map(|file| file.trim_end_matches(".jsonl").to_owned())
        .collect();
    names.sort();
    let frames = names
        .iter()
        .flat_map(|name| load(name))
        .filter(|f| f.from_cli);
    let (mut bytes, mut lines, mut typed) = (Vec::new(), 0, 0);
    for frame in frames.filter(|f| with_control || !is_control(&f.msg)) {
        bytes.extend_from_slice(frame.msg.to_string().as_bytes());
        bytes.push(b'\n');
        lines += 1;
        typed += usize::from(!is_control(&frame.msg));
    }
    (bytes, lines, typed)
}

fn is_control(frame: &Value) -> bool {
    frame["type"]
        .as_str()
        .is_some_and(|kind| kind.starts_with("control_"))
}

/// One pass through the driver: a task writes `corpus` into the pipe, this one drains `recv()`.
async fn driver_pass(corpus: Arc<Vec<u8>>) -> (Duration, usize) {
    let (mut cli_stdout, driver_stdout) = tokio::io::duplex(8 << 20);
    let (driver_stdin, mut cli_stdin) = tokio::io::duplex(1 << 20);
    // Default handlers answer the recorded control requests; drain what they write.
    tokio::spawn(async move {
        let mut sink = vec![0u8; 64 * 1024];
        while cli_stdin.read(&mut sink).await.is_ok_and(|n| n > 0) {}
    });
    let mut connection =
        StreamConnection::start(driver_stdout, driver_stdin, ControlHandlers::default());
    let started = Instant::now();
    tokio::spawn(async move {
        cli_stdout
            .write_all(&corpus)
            .await
            .expect("write the corpus");
        cli_stdout.shutdown().await.expect("close the pipe");
    });
    let mut messages = 0;
    while let Some(message) = connection.recv().await {
        black_box(&message);
        messages += 1;
    }
    (started.elapsed(), messages)
}

/// The same lines parsed directly, as the driver's reader does per line (`typed`: also build
/// the typed message of non-control frames).
fn direct_pass(corpus: &[u8], typed: bool) -> (Duration, usize) {
    let started = Instant::now();
    let mut messages = 0;
    for line in corpus
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
    {
        let frame: Value = serde_json::from_slice(line).expect("recorded lines are JSON");
        if typed && !is_control(&frame) {
            black_box(Message::from_value(frame));
            messages += 1;
        } else {
            black_box(frame);
        }
    }
    (started.elapsed(), messages)
}

fn print_rate(what: &str, size: usize, (time, messages): (Duration, usize)) {
    let rate = if messages == 0 {
        String::new()
    } else {
        format!("{:9.0} messages/s", per_s(messages, time))
    };
    println!("    {what:<58} {:6.1} MB/s {rate}", mb_per_s(size, time));
}

async fn parse_throughput() {
    println!(
        "(a) parse throughput on the recorded stdout, repeated to >= 50 MB; best of 3; MB = 10^6 bytes"
    );
    for with_control in [true, false] {
        let (set, lines, typed) = recorded_stdout(with_control);
        let repeats = CORPUS_BYTES.div_ceil(set.len());
        let corpus = Arc::new(set.repeat(repeats));
        let size = corpus.len();
        let what = if with_control {
            "all stdout lines"
        } else {
            "without control_* frames"
        };
        println!(
            "  {what}: {lines} lines ({typed} typed), {:.2} MB × {repeats} = {:.1} MB",
            set.len() as f64 / 1e6,
            size as f64 / 1e6
        );
        let mut best = (Duration::MAX, 0);
        for _ in 0..3 {
            best = best.min(driver_pass(Arc::clone(&corpus)).await);
        }
        assert_eq!(
            best.1,
            typed * repeats,
            "the driver lost or invented messages"
        );
        print_rate(
            "driver: duplex pipe → StreamConnection → recv()",
            size,
            best,
        );
        let best = (0..3)
            .map(|_| direct_pass(&corpus, true))
            .min()
            .expect("three passes");
        print_rate(
            "serde_json::from_slice::<Value> + Message::from_value",
            size,
            best,
        );
        let best = (0..3)
            .map(|_| direct_pass(&corpus, false))
            .min()
            .expect("three passes");
        print_rate("serde_json::from_slice::<Value> alone", size, best);
    }
}

fn percentiles(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    format!(
        "median {:6.2} ms   p90 {:6.2} ms   max {:6.2} ms",
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(1.0))
    )
}

async fn turn_latency(cli: &Path) {
    let mock = MockApi::start().await;
    mock.set_default(Reply::text(REPLY));
    let sandbox = CliSandbox::new();
    let options = ClientOptions {
        cli_path: cli.to_path_buf(),
        cwd: sandbox.data_dir.clone(),
        setting_sources: Some(vec!["project".into()]),
        include_partial_messages: true,
        env: sandbox.env(&mock).into_iter().collect(),
        ..ClientOptions::default()
    };
    let mut client = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .expect("start the CLI");
    let (mut after_last_byte, mut after_message_stop, mut cli_part) =
        (Vec::new(), Vec::new(), Vec::new());
    for turn in 0..WARM_UP_TURNS + MEASURED_TURNS {
        let replies_before = mock.last_byte_instants().len();
        client
            .send(&UserContent::Text(format!("warm turn {turn}")))
            .expect("send a prompt");
        let mut message_stop = None;
        let result_at = loop {
            let next = tokio::time::timeout(Duration::from_secs(60), client.recv()).await;
            match next.expect("the turn ends within a minute") {
                Some(Message::StreamEvent(StreamEvent::MessageStop)) => {
                    message_stop = Some(Instant::now());
                }
                Some(Message::Result(result)) => {
                    assert!(!result.is_error, "turn {turn} failed: {result:?}");
                    break Instant::now();
                }
                Some(_) => {}
                None => panic!("the CLI exited: {}", client.exit_error().await),
            }
        };
        let last_byte = mock.last_byte_instants()[replies_before..]
            .iter()
            .max()
            .copied();
        let last_byte = last_byte.expect("the mock answered this turn");
        let message_stop = message_stop.expect("a message_stop stream_event");
        if turn >= WARM_UP_TURNS {
            after_last_byte.push(result_at.saturating_duration_since(last_byte));
            after_message_stop.push(result_at.saturating_duration_since(message_stop));
            cli_part.push(message_stop.saturating_duration_since(last_byte));
        }
    }
    let status = client.disconnect(Duration::from_secs(10)).await;
    println!(
        "(b) time per turn, real CLI + mock Messages API, {MEASURED_TURNS} warm turns after \
         {WARM_UP_TURNS} warm-up (CLI exit: {status:?})"
    );
    let rows = [
        (
            "mock's last SSE byte → recv() returns the Result",
            after_last_byte,
        ),
        (
            "  of which: last SSE byte → message_stop stream_event",
            cli_part,
        ),
        (
            "  of which: message_stop stream_event → Result",
            after_message_stop,
        ),
    ];
    for (what, samples) in rows {
        println!("    {what:<54} {}", percentiles(samples));
    }
    println!("    (the first two include the CLI's own work after the mock's last byte)");
}

/// The `ollim-bot` binary cargo builds for this bench (next to it, in `target/<profile>/`).
fn bot_binary() -> PathBuf {
    if let Some(path) = option_env!("CARGO_BIN_EXE_ollim-bot") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the bench's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    profile_dir.join("ollim-bot")
}

async fn idle_rss(cli: &Path) {
    let mock = MockApi::start().await;
    mock.set_default(Reply::text(REPLY));
    let sandbox = CliSandbox::new();
    let binary = bot_binary();
    let mut child = tokio::process::Command::new(&binary)
        .arg("chat")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(sandbox.env(&mock))
        .env("OLLIM_USER_NAME", "Julia")
        .env("OLLIM_BOT_NAME", "Ollim")
        .env("OLLIM_DATA_DIR", &sandbox.data_dir)
        .env("OLLIM_CLAUDE_CLI", cli)
        .env("OLLIM_DOCS_MCP_URL", "")
        .current_dir(sandbox.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("start {}: {error}", binary.display()));
    let pid = child.id().expect("a running child");
    let output = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let collected = Arc::clone(&output);
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        while let Ok(n @ 1..) = stdout.read(&mut buf).await {
            let text = String::from_utf8_lossy(&buf[..n]).into_owned();
            collected.lock().expect("output lock").push_str(&text);
        }
    });
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(b"hello there\n")
        .await
        .expect("type a prompt");
    stdin.flush().await.expect("flush the prompt");
    let started = Instant::now();
    let replied = || {
        let out = output.lock().expect("output lock");
        out.find(REPLY)
            .is_some_and(|at| out[at..].contains("you> "))
    };
    while !replied() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no reply: {}",
            output.lock().expect("lock")
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let reply_time = started.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rss, hwm) = memory_kib(pid).expect("read /proc/<pid>/status");
    let cli_children = children(pid);
    let cli_rss: u64 = cli_children
        .iter()
        .filter_map(|c| memory_kib(*c))
        .map(|m| m.0)
        .sum();
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await;
    let status = status
        .expect("exits within 20 s after EOF")
        .expect("wait for the bot");
    let leftovers: Vec<u32> = cli_children
        .into_iter()
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/stat")).is_ok_and(|s| !s.contains(") Z "))
        })
        .collect();
    println!(
        "(c) memory of `ollim-bot chat` ({}), one idle main session, 2 s after its first reply \
         ({} ms), CLI child excluded",
        binary.display(),
        reply_time.as_millis()
    );
    println!(
        "    VmRSS {:6.1} MiB   VmHWM {:6.1} MiB",
        mib(rss),
        mib(hwm)
    );
    println!(
        "    (for reference, the claude CLI child: VmRSS {:6.1} MiB)",
        mib(cli_rss)
    );
    println!(
        "    after stdin EOF: {status}, CLI processes left running: {}",
        if leftovers.is_empty() {
            "none".to_owned()
        } else {
            format!("{leftovers:?}")
        }
    );
}
