//! What a person sees in the terminal they started `ollim-bot` in, with no `RUST_LOG` set
//! (issue 44 §1, §2): one line once the bot is ready, one when it stops, and one each when
//! the Discord connection is lost and back; nothing else.

use std::time::Duration;

use crate::support::{
    bot::{BotProcess, bot_command, spawn_collecting},
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord, FakeOverwrite},
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

/// The bot as a person starts it: no `RUST_LOG`; and the ready line it should print.
fn plain_bot(discord: &FakeDiscord, mock: &MockApi, sandbox: &CliSandbox) -> (BotProcess, String) {
    plain_bot_with(discord, mock, sandbox, &[])
}

/// [`plain_bot`] with more variables.
fn plain_bot_with(
    discord: &FakeDiscord,
    mock: &MockApi,
    sandbox: &CliSandbox,
    extra_env: &[(&str, &str)],
) -> (BotProcess, String) {
    let mut command = bot_command(discord, mock, sandbox, extra_env, &["RUST_LOG"]);
    command.env_remove("RUST_LOG");
    let ready = format!(
        "Ollim is ready: connected to Discord as ollim; talk to it in your Discord DMs. Claude \
         Code CLI {}.",
        cli_version()
    );
    (spawn_collecting(command), ready)
}

/// Waits until the bot's stderr contains `text`.
async fn printed(bot: &BotProcess, text: &str) {
    wait::until_true(
        &format!("{text:?} printed"),
        Duration::from_secs(60),
        || bot.log().contains(text),
        || bot.log(),
    )
    .await;
}

/// BOOT-12: started without `RUST_LOG`, the bot prints exactly one line when it is ready (who
/// it is in Discord, where to talk to it, the CLI's version) and, after SIGTERM, one when it
/// stopped.
#[tokio::test]
async fn a_plain_start_prints_one_ready_line_and_one_stop_line() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let (mut bot, ready) = plain_bot(&discord, &mock, &sandbox);
    printed(&bot, "is ready").await;
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

/// BOOT-13: Discord out of reach for a while (the live connection dropped, every new one
/// refused while serenity retries) shows as one line when the connection is lost and one when
/// it is back, with how long it was away; none of serenity's own reconnect warnings.
#[tokio::test]
async fn discord_out_of_reach_is_told_once_when_lost_and_once_when_back() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let (mut bot, ready) = plain_bot(&discord, &mock, &sandbox);
    printed(&bot, "is ready").await;
    discord.gateway_out_of_reach(true).await;
    // Several of serenity's attempts refused (it tries every few seconds).
    wait::until_true(
        "three refused reconnects",
        Duration::from_secs(60),
        || discord.gateway_stats().refused >= 3,
        || bot.log(),
    )
    .await;
    discord.gateway_out_of_reach(false).await;
    printed(&bot, "Discord connection back after ").await;
    bot.signal("TERM");
    let status = bot.wait_exit(Duration::from_secs(30)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(0), "{log}");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 4, "{log}");
    assert_eq!(lines[0], ready, "{log}");
    assert!(
        lines[1].ends_with("Discord connection lost; retrying…"),
        "{log}"
    );
    let back = lines[2]
        .split_once("Discord connection back after ")
        .map(|(_, after)| after)
        .unwrap_or_default();
    assert!(
        back.ends_with('s') && back[..back.len() - 1].split(' ').count() <= 2,
        "the time away: {log}"
    );
    assert_eq!(lines[3], "Ollim stopped (SIGTERM).", "{log}");
}

/// BOOT-12 with a home channel (`OLLIM_HOME_CHANNEL`): the ready line names it too.
#[tokio::test]
async fn the_ready_line_names_the_home_channel() {
    const VIEW_CHANNEL: u64 = 1 << 10;
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let guild = discord.add_guild("owner's place");
    let (owner, bot_user) = (discord.config().owner_id, discord.config().bot_user_id);
    let home = discord.add_text_channel(
        guild,
        "assistant",
        vec![
            FakeOverwrite::role(guild, 0, VIEW_CHANNEL),
            FakeOverwrite::member(owner, VIEW_CHANNEL, 0),
            FakeOverwrite::member(bot_user, VIEW_CHANNEL, 0),
        ],
    );
    let home = home.to_string();
    let (mut bot, ready) =
        plain_bot_with(&discord, &mock, &sandbox, &[("OLLIM_HOME_CHANNEL", &home)]);
    printed(&bot, "is ready").await;
    bot.signal("INT");
    let status = bot.wait_exit(Duration::from_secs(30)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(0), "{log}");
    let ready = ready.replace("your Discord DMs.", "your Discord DMs and #assistant.");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines, [ready.as_str(), "Ollim stopped (SIGINT)."], "{log}");
}
