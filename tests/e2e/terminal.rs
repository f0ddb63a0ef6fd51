//! What a person sees in the terminal they started `ollim-bot` in, with no `RUST_LOG` set
//! (issue 44 §1): one line once the bot is ready, one when it stops, nothing else.

use std::time::Duration;

use crate::support::{
    bot::{bot_command, spawn_collecting},
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::MockApi,
    wait,
};

/// The pinned CLI's version as `claude --version` prints it first.
fn cli_version() -> String {
    let out = std::process::Command::new(claude_cli_path())
        .arg("--version")
        .output()
        .expect("run claude --version");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// BOOT-12: started without `RUST_LOG`, the bot prints exactly one line when it is ready (who
/// it is in Discord, where to talk to it, the CLI's version) and, after SIGTERM, one when it
/// stopped.
#[tokio::test]
async fn a_plain_start_prints_one_ready_line_and_one_stop_line() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut command = bot_command(&discord, &mock, &sandbox, &[], &["RUST_LOG"]);
    command.env_remove("RUST_LOG");
    let mut bot = spawn_collecting(command);
    let ready = format!(
        "Ollim is ready: connected to Discord as ollim; talk to it in your Discord DMs. Claude \
         Code CLI {}.",
        cli_version()
    );
    wait::until_true(
        "the ready line",
        Duration::from_secs(60),
        || bot.log().contains("is ready"),
        || bot.log(),
    )
    .await;
    assert!(
        !discord
            .channel_messages(discord.dm_channel_id(discord.config().owner_id))
            .is_empty(),
        "ready comes after the greeting"
    );
    bot.signal("TERM");
    let status = bot.wait_exit(Duration::from_secs(30)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(0), "{log}");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines, [ready.as_str(), "Ollim stopped (SIGTERM)."], "{log}");
    sandbox.assert_no_process_left(Duration::from_secs(5)).await;
}
