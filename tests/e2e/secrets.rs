//! The bot's secrets never leave (MCP-5, BOOT-3; issue 11 §2), end to end: the real binary
//! against the fake Discord, the real Claude CLI against the mock model.
//!
//! * `send_file` refuses `/proc/self/environ`, the `.env` the bot loaded, a symlink to it, a
//!   `state/` token and a 30 MB file with an `Error:` result and posts nothing; a note is sent.
//! * The CLI child's environment has none of the bot's secrets and carries the agent mark;
//!   so does the shell the agent's Bash runs, even when the configured CLI environment tries
//!   to pass a secret.
//! * After a whole conversation (tool errors, a failed turn, a failed background reminder) at
//!   `RUST_LOG=debug`, no log line, no Discord request and no file in the data dir holds the
//!   Discord token, the API key or the webhook secret.

use crate::support;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use ollim_bot::{claude::PermissionMode, front_end::Approval};
use serde_json::json;
use support::{
    agent::AgentHarness,
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
};

const DISCORD_TOKEN: &str = "MTE5OTk5.discord-token-never-leaves-7f3a";
const API_KEY: &str = "sk-ant-api-key-never-leaves-91c2";
const WEBHOOK_SECRET: &str = "webhook-secret-never-leaves-44d8";
const GOOGLE_SECRET: &str = "google-client-secret-never-leaves-0b17";
const SECRETS: [&str; 4] = [DISCORD_TOKEN, API_KEY, WEBHOOK_SECRET, GOOGLE_SECRET];

/// The bot started from a project dir (the sandbox HOME) holding a `.env`, with distinctive
/// secrets in its environment and debug logging for every crate.
async fn bot_with_secrets() -> BotHarness {
    let discord = FakeDiscord::start(FakeConfig {
        valid_token: DISCORD_TOKEN.to_owned(),
        ..FakeConfig::default()
    })
    .await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    // The bot runs in the sandbox HOME: this is the `.env` it loads.
    std::fs::write(
        sandbox.home.path().join(".env"),
        format!("WEBHOOK_SECRET={WEBHOOK_SECRET}\nGOOGLE_CLIENT_SECRET={GOOGLE_SECRET}\n"),
    )
    .unwrap();
    let h = BotHarness::start_parts(
        discord,
        mock,
        sandbox,
        &[
            ("ANTHROPIC_API_KEY", API_KEY),
            ("RUST_LOG", "debug"),
            ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
        ],
    )
    .await;
    h.greeted().await;
    h
}

/// The tool results of the last main request, by the order of the `tool_use` blocks.
fn last_tool_results(h: &BotHarness) -> Vec<String> {
    let request = h.mock.main_requests().pop().expect("a main request");
    request
        .tool_results()
        .into_iter()
        .map(|r| r.content)
        .collect()
}

/// Schedules a background reminder for the next minute whose run fails (the model API errors
/// out for it).
async fn schedule_a_failing_reminder(h: &BotHarness) {
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::error(500, "api_error", "the model is down for the reminder"))
    });
    let output = ollim_command(&h.sandbox, &h.mock)
        .args(["reminder", "add", "-m", "Check the oven", "--delay", "1"])
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // one scenario told in order
async fn send_file_never_posts_a_secret_and_no_log_line_or_file_holds_one() {
    let mut h = bot_with_secrets().await;
    schedule_a_failing_reminder(&h).await;
    let home = h.sandbox.home.path().to_path_buf();
    let data = h.sandbox.data_dir.clone();
    let env_link = data.join("env-notes.md");
    std::os::unix::fs::symlink(home.join(".env"), &env_link).unwrap();
    let token_file = data.join("state/token.json");
    std::fs::write(
        &token_file,
        r#"{"refresh_token": "google-refresh-token-never-leaves"}"#,
    )
    .unwrap();
    let big = data.join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(30 * 1024 * 1024)
        .unwrap();
    let note = data.join("shopping.md");
    std::fs::write(&note, "# Shopping\n- oat milk\n").unwrap();
    let asked: [PathBuf; 6] = [
        PathBuf::from("/proc/self/environ"),
        home.join(".env"),
        env_link,
        token_file,
        big,
        note,
    ];
    let mut reply: Option<Reply> = None;
    for path in &asked {
        let input = json!({"file_path": path.display().to_string(), "message": "here you go"});
        reply = Some(match reply {
            None => Reply::tool_use("mcp__discord__send_file", input),
            Some(reply) => reply.and_tool_use("mcp__discord__send_file", input),
        });
    }
    h.mock.push(reply.unwrap());
    h.mock.push(Reply::text("Sent what I could."));
    h.discord.dm_from(h.owner(), "send me my files").await;
    h.wait_for_bot_message("the answer", |m| m.content.contains("Sent what I could"))
        .await;

    let flagged: Vec<bool> = h
        .mock
        .main_requests()
        .pop()
        .unwrap()
        .tool_results()
        .iter()
        .map(|r| r.is_error)
        .collect();
    assert_eq!(
        flagged,
        [true, true, true, true, true, false],
        "refusals are tool errors (isError, issue 23 §5)"
    );
    let results = last_tool_results(&h);
    assert_eq!(results.len(), asked.len(), "{results:#?}");
    for (path, result) in asked[..5].iter().zip(&results) {
        assert!(
            result.starts_with("Error: "),
            "{} → {result}",
            path.display()
        );
    }
    assert!(results[0].contains("system file"), "{}", results[0]);
    assert!(results[1].contains("never sent"), "{}", results[1]);
    assert!(results[2].contains("never sent"), "{}", results[2]);
    assert!(results[3].contains("state/"), "{}", results[3]);
    assert!(results[4].contains("25 MB"), "{}", results[4]);
    assert_eq!(results[5], "File sent.");
    let uploads: Vec<_> = h
        .discord
        .requests()
        .into_iter()
        .flat_map(|r| r.files)
        .filter(|f| f.filename.is_some())
        .collect();
    let names: Vec<_> = uploads.iter().map(|f| f.filename.clone()).collect();
    assert_eq!(names, [Some("shopping.md".to_owned())], "only the note");
    assert_eq!(uploads[0].text(), "# Shopping\n- oat milk\n");

    // A turn that fails (the model API errors out) and its error DM.
    h.mock.push(Reply::error(
        500,
        "api_error",
        "the model is down for a moment",
    ));
    let last_seen = h.bot_messages().iter().map(|m| m.id).max().unwrap_or(0);
    h.discord.dm_from(h.owner(), "are you there?").await;
    h.wait_for_bot_message_within("the failed turn's message", Duration::from_secs(40), |m| {
        m.id > last_seen && !m.content.contains("Thinking")
    })
    .await;
    h.mock.push(Reply::text("Back again."));
    h.discord.dm_from(h.owner(), "hello again").await;
    h.wait_for_bot_message("the next answer", |m| m.content.contains("Back again"))
        .await;
    h.wait_for_bot_message_within(
        "the failed reminder's notice",
        Duration::from_secs(90),
        |m| m.content.contains("couldn't complete"),
    )
    .await;
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}");

    let log = h.log();
    assert!(log.contains("DEBUG"), "debug logging was on");
    assert_no_secret("the bot's log", &log);
    for message in h.discord.channel_history(h.dm()) {
        assert_no_secret("a DM", &message.all_text());
    }
    for request in h.discord.requests() {
        let body = request.body.map(|b| b.to_string()).unwrap_or_default();
        assert_no_secret(&format!("{} {}", request.method, request.path), &body);
        for file in &request.files {
            assert_no_secret("an upload", &file.text());
        }
    }
    for file in files_under(&data) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert_no_secret(&file.display().to_string(), &text);
    }
    let history = std::process::Command::new("git")
        .args(["log", "-p", "--all"])
        .current_dir(&data)
        .output()
        .unwrap();
    assert_no_secret(
        "the data dir's git history",
        &String::from_utf8_lossy(&history.stdout),
    );
}

#[tokio::test]
async fn the_cli_child_has_no_bot_secret_and_carries_the_agent_mark() {
    let mut h = bot_with_secrets().await;
    h.mock.push(Reply::text("Hi Julia."));
    h.discord.dm_from(h.owner(), "hi").await;
    h.wait_for_bot_message("the answer", |m| m.content.contains("Hi Julia"))
        .await;
    let cli = h
        .sandbox_processes()
        .into_iter()
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("stream-json"))
        })
        .expect("the main session's CLI is running");
    let environ = std::fs::read(format!("/proc/{cli}/environ")).unwrap();
    let env: Vec<String> = String::from_utf8_lossy(&environ)
        .split('\0')
        .map(str::to_owned)
        .collect();
    let has = |name: &str| env.iter().any(|kv| kv.starts_with(&format!("{name}=")));
    for name in [
        "DISCORD_TOKEN",
        "WEBHOOK_SECRET",
        "GOOGLE_CLIENT_SECRET",
        "CLAUDECODE",
        "RUST_LOG",
    ] {
        assert!(!has(name), "{name} reached the CLI: {env:#?}");
    }
    assert!(
        env.iter()
            .any(|kv| kv == &format!("{}=1", ollim_bot::claude::AGENT_CHILD_ENV)),
        "{env:#?}"
    );
    assert!(
        env.iter()
            .any(|kv| kv == &format!("ANTHROPIC_API_KEY={API_KEY}"))
    );
    for name in [
        "PATH",
        "HOME",
        "ANTHROPIC_BASE_URL",
        "OLLIM_DATA_DIR",
        "PWD",
    ] {
        assert!(has(name), "{name} is missing: {env:#?}");
    }
    let environ = String::from_utf8_lossy(&environ);
    for secret in [DISCORD_TOKEN, WEBHOOK_SECRET, GOOGLE_SECRET] {
        assert!(!environ.contains(secret), "a secret value reached the CLI");
    }
    h.terminate().await;
}

#[tokio::test]
async fn the_agents_bash_sees_the_mark_and_no_secret_even_one_configured() {
    let h = AgentHarness::with_mode_and_cli_env(
        PermissionMode::Default,
        &[
            ("DISCORD_TOKEN", DISCORD_TOKEN),
            ("WEBHOOK_SECRET", WEBHOOK_SECRET),
            ("CLAUDECODE", "1"),
            (ollim_bot::claude::AGENT_CHILD_ENV, "0"),
        ],
    )
    .await;
    h.script_approvals(&[Approval::AllowOnce]);
    h.mock
        .push(Reply::tool_use("Bash", json!({"command": "env | sort"})));
    h.mock.push(Reply::text("That's my environment."));
    h.send("what is in your environment?").await.unwrap();
    let results = h.mock.main_requests()[1].tool_results();
    let shown = &results[0].content;
    assert!(!results[0].is_error, "{shown}");
    let lines: Vec<&str> = shown.lines().collect();
    assert!(
        lines.contains(&format!("{}=1", ollim_bot::claude::AGENT_CHILD_ENV).as_str()),
        "{shown}"
    );
    // (The CLI sets `CLAUDECODE=1` for its own shells; that it gets none from us is checked on
    // the CLI process itself.)
    for name in ["DISCORD_TOKEN", "WEBHOOK_SECRET"] {
        assert!(
            !lines.iter().any(|l| l.starts_with(&format!("{name}="))),
            "{name} reached the agent's shell:\n{shown}"
        );
    }
    assert_no_secret("the agent's shell", shown);
    // The test process runs under cargo: none of its CARGO_* variables is on the allow-list.
    if std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        assert!(
            !lines.iter().any(|l| l.starts_with("CARGO_MANIFEST_DIR=")),
            "{shown}"
        );
    }
    h.close().await;
}

/// Panics naming `what` when `text` holds one of [`SECRETS`].
fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(
            !text.contains(secret),
            "{what} holds the secret {secret}:\n{}",
            text.lines()
                .filter(|l| l.contains(secret))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Every regular file under `dir`, `.git` excepted (its objects are compressed; the history
/// is checked through `git log -p`).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() && entry.file_name() != ".git" {
                stack.push(path);
            } else if kind.is_file() {
                files.push(path);
            }
        }
    }
    files
}
