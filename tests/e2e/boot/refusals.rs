//! Start-ups that must refuse: missing variables, a token or intent Discord refuses, a second
//! instance or a live PID in the pid file (BOOT-2, BOOT-5, PID-1, PID-3).

use std::time::{Duration, Instant};

use super::poll;
use crate::support::{
    bot::{BotHarness, bot_command, spawn_collecting},
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::MockApi,
};

/// Starts a process that is expected to fail at start-up, with its own fakes.
async fn failing_start(
    config: FakeConfig,
    extra_env: &[(&str, &str)],
    unset: &[&str],
) -> (
    FakeDiscord,
    CliSandbox,
    std::process::ExitStatus,
    String,
    Duration,
) {
    let discord = FakeDiscord::start(config).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let started = Instant::now();
    let mut process = spawn_collecting(bot_command(&discord, &mock, &sandbox, extra_env, unset));
    let status = process.wait_exit(Duration::from_secs(10)).await;
    let took = started.elapsed();
    let log = process.log();
    assert_eq!(
        mock.model_requests().len(),
        0,
        "no model call on a failed start"
    );
    (discord, sandbox, status, log, took)
}

/// BOOT-2: the missing required variables are listed together, the set one is not, exit 1;
/// nothing is contacted and the data dir is left alone.
#[tokio::test]
async fn missing_required_variables_are_listed_together() {
    let (discord, sandbox, status, log, _) = failing_start(
        FakeConfig::default(),
        &[],
        &["DISCORD_TOKEN", "OLLIM_USER_NAME"],
    )
    .await;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.starts_with("Missing required env vars in .env:\n"),
        "{log}"
    );
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  DISCORD_TOKEN") && l.len() > "  DISCORD_TOKEN".len() + 3),
        "DISCORD_TOKEN with a hint, indented: {log}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  OLLIM_USER_NAME") && l.len() > "  OLLIM_USER_NAME".len() + 3),
        "OLLIM_USER_NAME with a hint, indented: {log}"
    );
    assert!(!log.contains("OLLIM_BOT_NAME"), "{log}");
    // Where it looked, and what writes the file (issue 24 §6).
    assert!(
        log.contains("Settings file: ") && log.contains("ollim-bot setup"),
        "{log}"
    );
    assert!(discord.requests().is_empty(), "Discord was contacted");
    assert!(
        !sandbox.data_dir.join("state").exists(),
        "the data dir was touched"
    );
}

/// BOOT-5: a token Discord refuses (the gateway closes IDENTIFY with 4004) → the clear
/// message, exit 1, quickly, no retry, nothing left running.
#[tokio::test]
async fn a_wrong_token_exits_with_a_clear_message() {
    let (discord, sandbox, status, log, took) = failing_start(
        FakeConfig::default(),
        &[("DISCORD_TOKEN", "not-the-right-token")],
        &[],
    )
    .await;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("Invalid Discord token. Check DISCORD_TOKEN in .env"),
        "{log}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}\n{log}");
    let gateway_stats = discord.gateway_stats();
    assert_eq!(gateway_stats.closes_sent, vec![4004], "{gateway_stats:?}");
    assert_eq!(
        gateway_stats.identifies.len(),
        1,
        "no retry after a fatal close: {gateway_stats:?}"
    );
    assert!(gateway_stats.sessions.is_empty(), "{gateway_stats:?}");
    sandbox.assert_no_process_left(Duration::from_secs(2)).await;
}

/// BOOT-5: the message-content intent is disallowed (close 4014) → where to enable it, exit 1.
#[tokio::test]
async fn disallowed_intent_exits_with_a_clear_message() {
    let config = FakeConfig {
        close_on_identify: Some(4014),
        ..FakeConfig::default()
    };
    let (discord, sandbox, status, log, took) = failing_start(config, &[], &[]).await;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("Message Content Intent is not enabled."),
        "{log}"
    );
    assert!(log.contains("Developer Portal"), "{log}");
    assert!(!log.contains("Invalid Discord token"), "{log}");
    assert!(took < Duration::from_secs(5), "took {took:?}\n{log}");
    assert_eq!(discord.gateway_stats().closes_sent, vec![4014]);
    sandbox.assert_no_process_left(Duration::from_secs(2)).await;
}

/// PID-1: a second instance on the same data dir refuses to start, naming the first one's
/// PID; the first is not disturbed and keeps answering.
#[tokio::test]
async fn a_second_instance_is_refused_and_the_first_keeps_working() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let first = h.pid();
    let mut second = h.spawn_another(&[]);
    let status = second.wait_exit(Duration::from_secs(10)).await;
    let log = second.log();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains(&format!("ollim-bot is already running (pid {first})")),
        "{log}"
    );
    assert_eq!(
        h.discord.identify_count(),
        1,
        "the second instance must not connect"
    );
    assert!(h.child.try_wait().unwrap().is_none(), "the first one died");
    h.converse("still there?", "still here").await;
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// PID-3: while the bot runs, `state/bot.pid` holds its PID; a clean stop deletes it.
#[tokio::test]
async fn the_pid_file_names_the_running_bot_and_is_removed_at_exit() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let pid_file = h.sandbox.data_dir.join("state/bot.pid");
    let written = std::fs::read_to_string(&pid_file).unwrap_or_default();
    assert_eq!(written.trim(), h.pid().to_string(), "state/bot.pid");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
    assert!(!pid_file.exists(), "state/bot.pid left after a clean stop");
}

/// PID-1: a `state/bot.pid` naming a live ollim-bot process (e.g. the original Python bot on
/// the same data dir) refuses the start, even though no `bot.lock` is held.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_live_pid_in_the_pid_file_refuses_the_start() {
    use std::os::unix::process::CommandExt;

    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut other = std::process::Command::new("sleep")
        .arg0("ollim-bot")
        .arg("30")
        .spawn()
        .unwrap();
    let other_pid = other.id();
    poll("the stand-in's cmdline", Duration::from_secs(5), || {
        std::fs::read(format!("/proc/{other_pid}/cmdline"))
            .ok()
            .filter(|c| String::from_utf8_lossy(c).contains("ollim-bot"))
    })
    .await;
    std::fs::create_dir_all(sandbox.data_dir.join("state")).unwrap();
    std::fs::write(
        sandbox.data_dir.join("state/bot.pid"),
        other_pid.to_string(),
    )
    .unwrap();
    let mut process = spawn_collecting(bot_command(&discord, &mock, &sandbox, &[], &[]));
    let exited = tokio::time::timeout(Duration::from_secs(8), process.child.wait()).await;
    let connected = discord.identify_count();
    let refusal = format!("ollim-bot is already running (pid {other_pid})");
    if exited.is_ok() {
        // The exit can come before the collector has read the last of stderr.
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while !process.log().contains(&refusal) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
    }
    let log = process.log();
    if exited.is_err() {
        let pid = process.child.id().unwrap().to_string();
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status();
        let _ = process.wait_exit(Duration::from_secs(15)).await;
    }
    other.kill().unwrap();
    other.wait().unwrap();
    let status = exited.expect("the bot started despite a live ollim-bot in bot.pid");
    assert_eq!(status.unwrap().code(), Some(1), "{log}");
    assert!(log.contains(&refusal), "{log}");
    assert_eq!(connected, 0, "it must not connect");
}

/// No CLI at all (none named, no copy of the bot's own, no `claude` on PATH): the start
/// refuses at once with the line that says to run `ollim-bot setup`; nothing is contacted.
#[tokio::test]
async fn no_cli_at_all_says_to_run_setup() {
    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().to_string_lossy().into_owned();
    let (discord, _sandbox, status, log, _) = failing_start(
        FakeConfig::default(),
        &[("PATH", path.as_str())],
        &["OLLIM_CLAUDE_CLI"],
    )
    .await;
    assert_eq!(status.code(), Some(1), "{log}");
    let tested = ollim_bot::claude::TESTED_CLI_VERSION;
    assert!(
        log.contains(&format!(
            "Claude Code CLI not found (no `claude` on PATH, and no copy of the bot's own): run \
             `ollim-bot setup` to install {tested} for the bot, or set OLLIM_CLAUDE_CLI"
        )),
        "{log}"
    );
    assert!(discord.requests().is_empty(), "Discord was contacted");
}
