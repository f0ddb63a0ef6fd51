//! BOOT-4 end to end: a daemon whose Claude CLI is not logged in DMs the owner the login link
//! through the fake Discord's REST API before it connects, hands the CLI the code the owner
//! replies with, and either starts (`Login successful!`) or exits 1 (`Login failed — …`).
//!
//! The failure path runs the real pinned CLI: offline it prints its real link, reads the code
//! and fails to exchange it. Signing in for real needs Anthropic's servers, so the success
//! path uses a small shell script as `claude` for `auth status` / `auth login` only (it
//! prints a link like the CLI's and waits for the code); every other call goes to the real
//! CLI against the mock model.

use crate::support;

use std::{os::unix::fs::PermissionsExt, path::Path, time::Duration};

use support::{
    bot::{bot_command, spawn_collecting},
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    mock_api::MockApi,
    wait,
};

const LOGIN_REQUIRED: &str = "claude login required — click to authenticate:\n";

/// Waits for a bot message in the owner's DM whose content starts with `prefix`.
async fn wait_for_dm(discord: &FakeDiscord, prefix: &str, log: impl Fn() -> String) -> FakeMessage {
    let owner = discord.config().owner_id;
    wait::eventually(
        &format!("a DM starting {prefix:?}"),
        Duration::from_secs(30),
        || {
            let dm = discord.dm_channel_id(owner);
            discord
                .channel_messages(dm)
                .into_iter()
                .find(|m| m.by_bot && m.content.starts_with(prefix))
        },
        log,
    )
    .await
}

#[tokio::test]
async fn with_the_real_cli_a_wrong_code_fails_the_login_and_the_start() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut bot = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[],
        &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    ));
    let link = wait_for_dm(&discord, LOGIN_REQUIRED, || bot.log()).await;
    let url = link.content.strip_prefix(LOGIN_REQUIRED).unwrap();
    assert!(
        url.starts_with("https://") && !url.contains(char::is_whitespace),
        "{url}"
    );
    assert_eq!(
        discord.identify_count(),
        0,
        "the link comes before connecting"
    );
    discord.dm_from_offline(discord.config().owner_id, "not-a-real-code#nope");
    let status = bot.wait_exit(Duration::from_secs(60)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("Login failed — run `ollim-bot auth login` to try again"),
        "{log}"
    );
    // What the CLI said is passed on (offline: the name that didn't resolve), issue 24 §7.
    assert!(log.contains("`claude auth login` failed: "), "{log}");
    assert_eq!(discord.identify_count(), 0, "never connected\n{log}");
    sandbox.assert_no_process_left(Duration::from_secs(5)).await;
}

/// A `claude` that is logged out until its `auth login` got a code; everything else is the
/// real CLI with the sandbox's API key.
fn fake_login_cli(dir: &Path) -> std::path::PathBuf {
    let script = dir.join("claude-login");
    let mark = dir.join("login-code");
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
if [ "$1" = auth ] && [ "$2" = status ]; then
  if [ -f '{mark}' ]; then echo '{{"loggedIn": true}}'; else echo '{{"loggedIn": false}}'; fi
  exit 0
fi
if [ "$1" = auth ] && [ "$2" = login ]; then
  echo "Opening browser to sign in…"
  echo "If the browser didn't open, visit: https://login.example/oauth?code=true&state=s1"
  printf 'Paste code here if prompted > '
  read -r code
  printf '%s' "$code" > '{mark}'
  echo "Login successful."
  exit 0
fi
ANTHROPIC_API_KEY=sk-test exec '{real}' "$@"
"#,
            mark = mark.display(),
            real = claude_cli_path().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[tokio::test]
async fn the_code_replied_in_the_dm_completes_the_login_and_the_bot_starts() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let cli = fake_login_cli(sandbox.home.path());
    let cli = cli.to_str().unwrap();
    let mut bot = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[("OLLIM_CLAUDE_CLI", cli)],
        &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    ));
    let link = wait_for_dm(&discord, LOGIN_REQUIRED, || bot.log()).await;
    assert_eq!(
        link.content,
        format!("{LOGIN_REQUIRED}https://login.example/oauth?code=true&state=s1")
    );
    wait_for_dm(&discord, "after signing in", || bot.log()).await;
    assert_eq!(
        discord.identify_count(),
        0,
        "the link comes before connecting"
    );
    discord.dm_from_offline(discord.config().owner_id, "`abc123#s1`");
    wait_for_dm(&discord, "hey julia!", || bot.log()).await;
    let log = bot.log();
    assert!(log.contains("Login successful!"), "{log}");
    assert_eq!(
        std::fs::read_to_string(sandbox.home.path().join("login-code")).unwrap(),
        "abc123#s1"
    );
    assert!(discord.identify_count() >= 1);
    bot.child.start_kill().unwrap();
    let _ = bot.wait_exit(Duration::from_secs(20)).await;
}

#[tokio::test]
async fn a_refused_bot_token_is_named_before_any_login_starts() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut bot = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[("DISCORD_TOKEN", "not-the-right-token")],
        &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    ));
    let status = bot.wait_exit(Duration::from_secs(30)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("Invalid Discord token. Check DISCORD_TOKEN in .env"),
        "{log}"
    );
    assert!(!log.contains("Login failed"), "{log}");
    assert!(
        discord
            .requests_matching("POST /channels/*/messages")
            .is_empty(),
        "nothing sent"
    );
    sandbox.assert_no_process_left(Duration::from_secs(5)).await;
}

/// CMD-6: `ollim-bot auth` alone or `auth help` prints the help; another word is refused with
/// the help and exit 1; `auth status` reads the pinned CLI's answer out as a sentence and
/// exits 1 when not logged in.
#[tokio::test]
async fn the_auth_command_passes_through_to_the_cli() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let run = |args: &[&str]| {
        let mut command = support::bot::ollim_command(&sandbox, &mock);
        command.arg("auth").args(args);
        command
    };
    for args in [&[][..], &["help"][..]] {
        let output = run(args).output().await.unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert!(
            stdout.starts_with("usage: ollim-bot auth [login|status|logout]"),
            "{stdout}"
        );
        assert!(stdout.contains("logout   sign out"), "{stdout}");
    }
    let output = run(&["logn"]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.starts_with("Unknown auth command: logn\n"),
        "{stderr}"
    );
    assert!(stderr.contains("usage: ollim-bot auth"), "{stderr}");
    let output = run(&["status"]).output().await.unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The sandbox authenticates the CLI with an API key (the mock model's); the CLI's JSON
    // answer is read out as a sentence, and `--json` still gets it as is.
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert_eq!(
        said.trim(),
        "Claude: logged in with an API key from ANTHROPIC_API_KEY."
    );
    let output = run(&["status", "--json"]).output().await.unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("\"authMethod\": \"api_key\""), "{said}");
}

/// BOOT-14: a stop during the start-up login — SIGTERM reaching the bot and its `claude auth
/// login` together, as a service stop or Ctrl-C in the terminal does — ends the bot with its
/// stop line; the owner's DM gets nothing claiming the login failed, and no `Login failed` is
/// printed.
#[tokio::test]
async fn a_stop_during_the_login_says_nothing_false() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut bot = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[],
        &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    ));
    wait_for_dm(&discord, LOGIN_REQUIRED, || bot.log()).await;
    wait_for_dm(&discord, "after signing in", || bot.log()).await;
    let bot_pid = bot.child.id().expect("the bot runs");
    let login: Vec<String> = sandbox
        .processes()
        .into_iter()
        .filter(|pid| *pid != bot_pid)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("auth\0login"))
        })
        .map(|pid| pid.to_string())
        .collect();
    assert!(!login.is_empty(), "the login CLI runs\n{}", bot.log());
    let sent = std::process::Command::new("kill")
        .arg("-TERM")
        .args(&login)
        .arg(bot_pid.to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    let status = bot.wait_exit(Duration::from_secs(30)).await;
    let log = bot.log();
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(
        log.contains("Ollim stopped (SIGTERM during the Claude login"),
        "{log}"
    );
    assert!(!log.contains("Login failed"), "{log}");
    assert!(!log.contains("`claude auth login` failed"), "{log}");
    let dm = discord.dm_channel_id(discord.config().owner_id);
    let said: Vec<String> = discord
        .channel_messages(dm)
        .into_iter()
        .filter(|m| m.by_bot)
        .map(|m| m.content)
        .collect();
    assert_eq!(
        said.len(),
        2,
        "only the link and the code request: {said:#?}"
    );
    assert_eq!(discord.identify_count(), 0, "never connected\n{log}");
    sandbox.assert_no_process_left(Duration::from_secs(5)).await;
}
