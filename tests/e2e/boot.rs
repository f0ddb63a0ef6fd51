//! The daemon's start-up and shutdown end to end: the real binary against the fake Discord,
//! the pinned Claude CLI and the mock model. (BOOT-2/5/7/8, PID-1/3, GRT-1/2, SES-1, MSG-1,
//! SLC registration and owner gate, SLC-15)

use crate::support;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use support::{
    bot::{BotHarness, bot_command, spawn_collecting},
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
};

const VERSION: &str = env!("CARGO_PKG_VERSION");
const STRANGER: u64 = 42;

/// The first-run greeting (GRT-2) is in the owner's DM.
async fn wait_for_first_greeting(h: &BotHarness) {
    h.greeted().await;
}

/// Polls `f` every 20 ms until it yields `Some`, or panics with `what` after `timeout`.
async fn poll<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = f() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn read_session_id(data_dir: &Path) -> Option<String> {
    std::fs::read_to_string(data_dir.join("state/sessions.json"))
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

fn git_subjects(data_dir: &Path) -> String {
    let out = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(data_dir)
        .output()
        .expect("run git log");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
    wait_for_first_greeting(&h).await;
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
    wait_for_first_greeting(&h).await;
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
    assert!(
        log.contains(&format!("ollim-bot is already running (pid {other_pid})")),
        "{log}"
    );
    assert_eq!(connected, 0, "it must not connect");
}

/// GRT-2 then GRT-1 with SES-1: the first start greets by lower-cased first name; after one
/// conversation and a restart on the same data dir the bot says it is back and answers
/// from the same Claude session.
#[tokio::test]
async fn restart_greets_back_and_resumes_the_same_session() {
    let mut h = BotHarness::start().await;
    let first = h.greeted().await;
    assert!(first.content.starts_with("hey julia!"), "{}", first.content);
    assert!(!first.content.contains("Julia"), "{}", first.content);
    assert!(first.content.contains("Ollim"), "names the bot");
    assert!(first.content.contains(VERSION), "names the version");
    for part in [
        "morning check-ins",
        "tasks & calendar",
        "reminders before things slip",
    ] {
        assert!(first.content.contains(part), "{part:?}: {}", first.content);
    }

    h.converse("my favourite colour is teal", "noted: teal")
        .await;
    let data_dir = h.sandbox.data_dir.clone();
    let session = poll("sessions.json", Duration::from_secs(5), || {
        read_session_id(&data_dir)
    })
    .await;
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());

    let mut h = h.restart(&[]).await;
    let back = format!("hey, i'm back (v{VERSION}). picking up where we left off.");
    h.wait_for_bot_message("returning greeting", |m| m.content == back)
        .await;
    let first_run_greetings = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("what's on your plate today"))
        .count();
    assert_eq!(first_run_greetings, 1, "the first-run greeting came again");

    h.converse("what is my favourite colour?", "teal, you said")
        .await;
    let request = h
        .mock
        .main_requests()
        .into_iter()
        .rev()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|t| t.ends_with("what is my favourite colour?"))
        })
        .expect("the second prompt reached the model");
    let prompts = request.user_prompts().join("\n");
    assert!(
        prompts.contains("my favourite colour is teal"),
        "the earlier prompt is in the resumed conversation: {prompts}"
    );
    assert!(request.all_text().contains("noted: teal"), "earlier answer");
    assert_eq!(
        read_session_id(&data_dir).as_deref(),
        Some(session.as_str()),
        "sessions.json unchanged"
    );
    let history =
        std::fs::read_to_string(data_dir.join("state/session_history.jsonl")).unwrap_or_default();
    let created = history
        .lines()
        .filter(|l| l.contains("\"created\""))
        .count();
    assert_eq!(created, 1, "one `created` event: {history}");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// Checks everything an ordered idle shutdown must leave behind.
async fn idle_shutdown(signal: &str) {
    let mut h = BotHarness::start().await;
    wait_for_first_greeting(&h).await;
    h.converse("hello", "hi julia").await;
    let data_dir = h.sandbox.data_dir.clone();
    let session = poll("sessions.json", Duration::from_secs(5), || {
        read_session_id(&data_dir)
    })
    .await;
    assert!(
        h.sandbox_processes().len() > 1,
        "the bot and its CLI run: {:?}",
        h.sandbox_processes()
    );

    let started = Instant::now();
    h.signal(signal);
    let status = h.wait_exit(Duration::from_secs(15)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(5), "exit took {took:?}");
    let notice = format!("shutting down: received SIG{signal}");
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| m.content == notice)
        .count();
    assert_eq!(notices, 1, "{notice:?} in the DM: {:#?}", h.bot_messages());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
    let gateway_stats = h.discord.gateway_stats();
    assert!(
        gateway_stats.client_closes.contains(&Some(1000)),
        "the gateway was closed normally: {gateway_stats:?}"
    );
    let subjects = git_subjects(&data_dir);
    assert!(
        subjects.contains(&format!("session created: {}", &session[..8])),
        "git log: {subjects}"
    );
}

/// BOOT-8: SIGTERM while idle → the notice DM, exit 0 within seconds, no CLI left, the gateway
/// closed, the session commit flushed.
#[tokio::test]
async fn sigterm_while_idle_shuts_down_in_order() {
    idle_shutdown("TERM").await;
}

/// BOOT-8 with SIGINT.
#[tokio::test]
async fn sigint_while_idle_shuts_down_in_order() {
    idle_shutdown("INT").await;
}

/// SIGTERM while a slow reply streams: the reply still completes, the notice is posted, exit 0
/// and no CLI is left.
#[tokio::test]
async fn sigterm_mid_turn_lets_the_reply_finish() {
    let mut h = BotHarness::start().await;
    wait_for_first_greeting(&h).await;
    let chunks: Vec<String> = (0..15).map(|i| format!("w{i} ")).collect();
    let reply = Reply::text_chunks(chunks, Duration::from_millis(200));
    let full = reply.full_text();
    h.mock.push(reply);
    h.discord.dm_from(h.owner(), "tell me slowly").await;
    h.wait_for_bot_message("with the first words", |m| m.content.starts_with("w0 "))
        .await;
    let partial = h
        .bot_messages()
        .into_iter()
        .find(|m| m.content.starts_with("w0 "))
        .unwrap();
    assert!(
        !partial.content.contains("w14"),
        "the reply was already complete; the test is too slow to signal mid-turn"
    );

    h.signal("TERM");
    let notice = h
        .wait_for_bot_message("shutdown notice", |m| {
            m.content == "shutting down: received SIGTERM"
        })
        .await;
    // The notice goes out just before intake stops; give that step a moment.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let late = h.discord.dm_from(h.owner(), "one more thing").await;
    let status = h.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    let answer = h
        .discord
        .message(h.dm(), partial.id)
        .expect("the reply message is still there");
    assert_eq!(
        answer.content.trim_end(),
        full.trim_end(),
        "the reply completed"
    );
    assert!(
        h.discord.message(h.dm(), notice.id).is_some(),
        "the notice stays"
    );
    let requests = h.mock.main_requests();
    assert_eq!(
        requests.len(),
        1,
        "the DM after SIGTERM reached the model: {:?}",
        requests
            .iter()
            .map(support::mock_api::RecordedRequest::summary)
            .collect::<Vec<_>>()
    );
    assert!(!requests[0].disconnected, "the model stream was cut");
    let touched_late = h
        .discord
        .requests()
        .iter()
        .any(|r| r.path.contains(&format!("/messages/{late}/")));
    assert!(!touched_late, "the DM after SIGTERM was handled (👀)");
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// MSG-1 (fail closed): until the owner is known nobody is answered; once it is, the owner's
/// held DM is answered exactly once and the stranger's never reaches the model.
#[tokio::test]
async fn dms_before_the_owner_is_known_fail_closed() {
    let config = FakeConfig {
        owner_delay: Duration::from_millis(1500),
        ..FakeConfig::default()
    };
    let mut h = BotHarness::start_with(config, &[]).await;
    h.discord.add_user(STRANGER, "stranger");
    h.mock.push(Reply::text("hello owner"));
    h.discord
        .dm_from(STRANGER, "stranger secret: pineapple")
        .await;
    let owner_dm = h.discord.dm_from(h.owner(), "owner says hi").await;
    assert!(
        h.bot_messages().is_empty(),
        "the owner was resolved before the DMs arrived; the test no longer covers the window"
    );
    // Nothing may happen while the owner is unknown.
    let early = Instant::now();
    while early.elapsed() < Duration::from_millis(600) && h.bot_messages().is_empty() {
        assert!(
            h.mock.main_requests().is_empty(),
            "a DM reached the model before the owner was known"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    h.wait_for_bot_message("owner reply", |m| m.content == "hello owner")
        .await;
    // Give a duplicate time to show up.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let replies = h
        .bot_messages()
        .iter()
        .filter(|m| m.content == "hello owner")
        .count();
    assert_eq!(replies, 1, "the owner's DM was answered once");
    let owner_prompts = h
        .mock
        .main_requests()
        .iter()
        .filter(|r| {
            r.last_user_text()
                .is_some_and(|t| t.ends_with("owner says hi"))
        })
        .count();
    assert_eq!(owner_prompts, 1, "one model call for the owner's DM");
    for request in h.mock.requests() {
        assert!(
            !request.body.to_string().contains("pineapple"),
            "the stranger's text reached the model: {}",
            request.summary()
        );
    }
    let stranger_dm = h.discord.dm_channel_id(STRANGER);
    assert!(
        h.discord
            .channel_messages(stranger_dm)
            .iter()
            .all(|m| !m.by_bot && m.reactions.is_empty()),
        "nothing in the stranger's DM"
    );
    let touched = h
        .discord
        .requests()
        .iter()
        .any(|r| r.path.contains(&stranger_dm.to_string()));
    assert!(!touched, "a request touched the stranger's DM");
    let eyes = h.discord.requests_matching(&format!(
        "PUT /channels/*/messages/{owner_dm}/reactions/*/@me"
    ));
    assert_eq!(eyes.len(), 1, "👀 once on the owner's DM");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// The flags of an interaction callback's message.
fn callback_flags(callback: &Value) -> u64 {
    callback["data"]["flags"].as_u64().unwrap_or(0)
}

/// SLC registration after READY, `/version` (SLC-15) for the owner, and the owner gate for a
/// stranger's slash command.
#[tokio::test]
async fn slash_commands_are_registered_and_owner_only() {
    let mut h = BotHarness::start().await;
    let put = h
        .discord
        .wait_for_request("PUT /applications/*/commands")
        .await;
    assert_eq!(
        put.path,
        format!(
            "/applications/{}/commands",
            h.discord.config().application_id
        ),
        "registered for the application"
    );
    assert_eq!(put.status, 200);
    let body = put.body.clone().unwrap_or_default();
    let names: Vec<&str> = body
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default();
    for name in [
        "clear",
        "compact",
        "cost",
        "model",
        "thinking",
        "interrupt",
        "permissions",
        "config",
        "version",
    ] {
        assert!(names.contains(&name), "{name} not registered: {names:?}");
    }
    for command in body.as_array().into_iter().flatten() {
        let contexts = command["contexts"].as_array().cloned().unwrap_or_default();
        assert!(
            contexts.contains(&json!(1)) && !contexts.contains(&json!(0)),
            "{}: usable in DMs, not in guilds: {contexts:?}",
            command["name"]
        );
    }
    wait_for_first_greeting(&h).await;
    let log = h.log();
    assert!(log.contains("Ollim online as ollim"), "BOOT-7 line: {log}");
    assert!(
        log.contains(&format!("synced {} slash commands", names.len())),
        "BOOT-7 line: {log}"
    );

    let version = h.discord.slash(h.owner(), "version", json!([])).await;
    let callback = h.discord.wait_for_callback(version).await;
    assert_eq!(callback["type"], 4, "{callback}");
    assert_eq!(
        callback["data"]["content"],
        format!("ollim-bot v{VERSION}"),
        "{callback}"
    );
    assert_ne!(callback_flags(&callback) & 64, 0, "ephemeral: {callback}");

    h.converse("hello", "hi julia").await;
    let session = poll("sessions.json", Duration::from_secs(5), || {
        read_session_id(&h.sandbox.data_dir)
    })
    .await;
    h.discord.add_user(STRANGER, "stranger");
    let before = h.discord.requests().len();
    let owner_messages = h.bot_messages().len();
    let models = h.mock.model_requests().len();
    let clear = h.discord.slash(STRANGER, "clear", json!([])).await;
    let callback = h.discord.wait_for_callback(clear).await;
    assert_eq!(callback["type"], 4, "{callback}");
    assert_eq!(callback["data"]["content"], "not authorized", "{callback}");
    assert_ne!(callback_flags(&callback) & 64, 0, "ephemeral: {callback}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after: Vec<String> = h.discord.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(after.len(), 1, "only the callback: {after:#?}");
    assert_eq!(h.bot_messages().len(), owner_messages);
    assert_eq!(h.mock.model_requests().len(), models);
    assert_eq!(
        read_session_id(&h.sandbox.data_dir).as_deref(),
        Some(session.as_str()),
        "a stranger's /clear must not clear the session"
    );
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// BOOT-7: a team-owned application's owner is the team's owner (`team.owner_user_id`), not
/// the team pseudo-user Discord puts in `owner`.
#[tokio::test]
async fn a_team_owned_app_talks_to_the_team_owner() {
    let config = FakeConfig {
        team_owner: true,
        ..FakeConfig::default()
    };
    let mut h = BotHarness::start_with(config, &[]).await;
    let greeted = h
        .discord
        .try_wait_for_message_in(h.dm(), Duration::from_secs(10), |m| {
            m.by_bot && m.content.contains("what's on your plate today")
        })
        .await;
    let opened: Vec<String> = h
        .discord
        .requests_matching("POST /users/@me/channels")
        .iter()
        .map(|r| r.body.clone().unwrap_or_default().to_string())
        .collect();
    assert!(
        greeted.is_some(),
        "no greeting in the team owner's DM; DM channels opened for: {opened:?}"
    );
    h.converse("hi from the team owner", "hello team owner")
        .await;
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// BOOT-7: when the application info cannot be read there is no owner: a warning, no
/// greeting, nobody answered; the process still stops cleanly.
#[tokio::test]
async fn without_an_owner_nobody_is_answered() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    discord.fail_next(
        "GET /oauth2/applications/@me",
        500,
        json!({"message": "500: Internal Server Error", "code": 0}),
        10,
    );
    let mock = MockApi::start().await;
    let mut h = BotHarness::start_parts(discord, mock, CliSandbox::new(), &[]).await;
    h.discord
        .wait_for_request("GET /oauth2/applications/@me")
        .await;
    poll("the no-owner warning", Duration::from_secs(5), || {
        h.log().contains("no owner found").then_some(())
    })
    .await;
    h.discord.dm_from(h.owner(), "anyone there?").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(h.bot_messages().is_empty(), "{:#?}", h.bot_messages());
    assert!(h.mock.main_requests().is_empty());
    assert!(
        h.discord
            .requests_matching("PUT /channels/*/messages/*/reactions/*/@me")
            .is_empty(),
        "no 👀"
    );
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// SIGTERM before the owner is known (application info still pending): exit 0 promptly,
/// no greeting sent during shutdown, no CLI started or left.
#[tokio::test]
async fn sigterm_before_the_owner_is_known_exits_cleanly() {
    let config = FakeConfig {
        owner_delay: Duration::from_millis(2500),
        ..FakeConfig::default()
    };
    let mut h = BotHarness::start_with(config, &[]).await;
    h.discord
        .wait_for_request("GET /oauth2/applications/@me")
        .await;
    let started = Instant::now();
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(15)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(5), "exit took {took:?}");
    // Had the bot lingered until the owner resolved, it would have greeted now.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        h.bot_messages().is_empty(),
        "a DM during shutdown: {:#?}",
        h.bot_messages()
    );
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// SIGTERM right after the greeting, while the main session's CLI may still be starting
/// (the warm-up connect): exit 0, no CLI left behind.
#[tokio::test]
async fn sigterm_during_the_warm_up_leaves_no_cli() {
    let mut h = BotHarness::start().await;
    wait_for_first_greeting(&h).await;
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(15)).await;
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// BOOT-8 while the gateway is down (a RESUME left unanswered): the notice still goes out
/// over REST and the process still exits 0 within seconds.
#[tokio::test]
async fn sigterm_while_the_gateway_is_down_still_exits() {
    let mut h = BotHarness::start().await;
    wait_for_first_greeting(&h).await;
    h.discord.hold_resumes(true);
    h.discord.drop_connection().await;
    poll("a parked RESUME", Duration::from_secs(10), || {
        (h.discord.resume_count() > 0).then_some(())
    })
    .await;
    let started = Instant::now();
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(20)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(8), "exit took {took:?}");
    assert!(
        h.bot_messages()
            .iter()
            .any(|m| m.content == "shutting down: received SIGTERM"),
        "{:#?}",
        h.bot_messages()
    );
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// GRT-2 after `/clear`: with the session cleared, the next start greets as on the first
/// run again.
#[tokio::test]
async fn after_clear_a_restart_greets_as_new() {
    let mut h = BotHarness::start().await;
    wait_for_first_greeting(&h).await;
    h.converse("remember this", "remembered").await;
    let data_dir = h.sandbox.data_dir.clone();
    poll("sessions.json", Duration::from_secs(5), || {
        read_session_id(&data_dir)
    })
    .await;
    let clear = h.discord.slash(h.owner(), "clear", json!([])).await;
    let callback = h.discord.wait_for_callback(clear).await;
    assert_eq!(
        callback["data"]["content"], "conversation cleared. fresh start.",
        "{callback}"
    );
    assert_eq!(read_session_id(&data_dir), None, "sessions.json deleted");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());

    let mut h = h.restart(&[]).await;
    poll(
        "a second first-run greeting",
        Duration::from_secs(10),
        || {
            let greetings = h
                .bot_messages()
                .iter()
                .filter(|m| m.content.starts_with("hey julia!"))
                .count();
            (greetings == 2).then_some(())
        },
    )
    .await;
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content.starts_with("hey, i'm back")),
        "greeted as returning after /clear"
    );
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

/// BOOT-5: a 503 when asking Discord for the gateway is retried after 5 s (and serenity never
/// falls back to Discord's public gateway behind the proxy's back).
#[tokio::test]
async fn a_503_at_start_up_is_retried() {
    let config = support::fake_discord::FakeConfig {
        gateway_503_count: 1,
        ..support::fake_discord::FakeConfig::default()
    };
    let mut h = support::bot::BotHarness::start_with(config, &[]).await;
    assert!(
        h.log()
            .contains("Discord API error (503 Service Unavailable) — retrying in 5s (attempt 1/5)"),
        "{}",
        h.log()
    );
    h.greeted().await;
    assert!(h.terminate().await.success());
}

/// Issue 24 §7: started before the network is up (here: Discord's address refuses), the bot
/// says what is wrong and keeps trying instead of exiting with a misleading cause; a stop
/// while it waits ends it cleanly.
#[tokio::test]
async fn without_the_network_the_bot_waits_and_says_why() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/api");
    let mut process = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[("OLLIM_DISCORD_API_URL", url.as_str())],
        &[],
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !process.log().contains("waiting for the network") {
        assert!(Instant::now() < deadline, "{}", process.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = process.log();
    assert!(
        log.contains(&format!("can't connect to 127.0.0.1:{port}")),
        "{log}"
    );
    assert!(!log.contains("Login failed"), "{log}");
    process.signal("TERM");
    let status = process.wait_exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", process.log());
    assert_eq!(mock.model_requests().len(), 0);
}

/// Issue 24 §9 and §4: damaged state is found at start and the owner hears of it in the
/// greeting's minute (not when the file is next used); a routine with a misspelt key still
/// loads and the agent is told once, with the key it was meant to be.
#[tokio::test]
async fn damaged_state_and_misspelt_keys_are_told_at_start() {
    let sandbox = CliSandbox::new();
    let data = sandbox.data_dir.clone();
    std::fs::create_dir_all(data.join("state")).unwrap();
    std::fs::write(data.join("state/ping_budget.json"), "garbage").unwrap();
    std::fs::create_dir_all(data.join("routines")).unwrap();
    std::fs::write(
        data.join("routines/walk.md"),
        "---\nid: \"walk\"\ncron: \"0 8 * * *\"\nbackgroud: true\n---\nGo for a walk.\n",
    )
    .unwrap();
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        sandbox,
        &[],
    )
    .await;
    h.wait_for_bot_message_within("the set-aside notice", Duration::from_secs(30), |m| {
        m.content.contains("heads-up") && m.content.contains("ping_budget.json")
    })
    .await;
    assert!(!data.join("state/ping_budget.json").exists());
    // The agent hears it as a pending update, which the log shows as it is queued.
    let note = "Note on routines/walk.md: unknown key \"backgroud\" is ignored (did you mean \
                \"background\"?)";
    let deadline = Instant::now() + Duration::from_secs(30);
    while !h.log().contains(note) {
        assert!(Instant::now() < deadline, "never told\n{}", h.log());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(h.log().matches(note).count(), 1, "told once");
}
