//! Who the owner is and the gate around them: DMs before the owner is known, slash-command
//! registration and the owner gate, a team-owned app, no owner at all (BOOT-7, MSG-1, SLC-15).

use std::time::Duration;

use serde_json::{Value, json};

use super::{STRANGER, VERSION, poll};
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
    wait,
};

/// What the bot logs as it holds a DM that came before the owner was known.
const HELD: &str = "a DM before the owner is known: held until then";

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
    // Both DMs reached the gate while the owner was unknown, and were held there.
    h.wait_for_log_count(HELD, 2, Duration::from_secs(10)).await;

    h.wait_for_bot_message("owner reply", |m| m.content == "hello owner")
        .await;
    h.wait_turn_over(owner_dm).await;
    // Nothing happened while the owner was unknown: the bot can't know the owner before the
    // fake's (delayed) answer to the application info left it, and nothing reached the model
    // or touched a message before then.
    let asked = h
        .discord
        .requests_matching("GET /oauth2/applications/@me")
        .first()
        .map(|r| r.at)
        .expect("the bot asked for its application info");
    let owner_known = asked + h.discord.config().owner_delay;
    for request in h.mock.main_requests() {
        assert!(
            request.received_at >= owner_known,
            "a DM reached the model before the owner was known: {}",
            request.summary()
        );
    }
    for pattern in [
        "POST /channels/*/messages",
        "PUT /channels/*/messages/*/reactions/*/@me",
    ] {
        for request in h.discord.requests_matching(pattern) {
            assert!(
                request.at >= owner_known,
                "{} {} before the owner was known",
                request.method,
                request.path
            );
        }
    }
    // A duplicate would come from the held DM being handed over a second time once the owner
    // is known. Messages are taken up in order, and a taken-up DM gets its 👀 first thing: a
    // turn of the owner's answered after it shows whether the held one came again.
    h.converse("and again", "hello again").await;
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
        // In DMs, and in servers (CHN-4: the home channel takes them, owner-only).
        assert!(
            contexts.contains(&json!(1)) && contexts.contains(&json!(0)),
            "{}: usable in DMs and in servers: {contexts:?}",
            command["name"]
        );
    }
    h.greeted().await;
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
    let session = h.wait_stored_session().await;
    h.discord.add_user(STRANGER, "stranger");
    let before = h.discord.requests().len();
    let owner_messages = h.bot_messages().len();
    let models = h.mock.model_requests().len();
    let clear = h.discord.slash(STRANGER, "clear", json!([])).await;
    let callback = h.discord.wait_for_callback(clear).await;
    assert_eq!(callback["type"], 4, "{callback}");
    assert_eq!(callback["data"]["content"], "not authorized", "{callback}");
    assert_ne!(callback_flags(&callback) & 64, 0, "ephemeral: {callback}");
    // The refusal is the callback; the handling is over once its other half, the wake, has
    // said that a stranger wakes nothing. Then only the callback came of it.
    let not_woken = format!("nothing wakes user={STRANGER}");
    wait::until_true(
        "the stranger's /clear handled to the end",
        Duration::from_secs(10),
        || h.log().contains(&not_woken),
        || h.log(),
    )
    .await;
    let after: Vec<String> = h.discord.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(after.len(), 1, "only the callback: {after:#?}");
    assert_eq!(h.bot_messages().len(), owner_messages);
    assert_eq!(h.mock.model_requests().len(), models);
    assert_eq!(
        h.stored_session().as_deref(),
        Some(session.as_str()),
        "a stranger's /clear must not clear the session"
    );
    // The owner's next turn carries on the same conversation.
    h.converse("still you?", "still me").await;
    let carried_on = h
        .mock
        .main_requests()
        .iter()
        .any(|r| r.all_text().contains("still you?") && r.all_text().contains("hi julia"));
    assert!(carried_on, "the session was cleared\n{}", h.log());
    assert_eq!(h.stored_session().as_deref(), Some(session.as_str()));
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
    // The DM is held at the gate, and nothing lets it out: without an owner the start-up
    // stopped before the owner could be known, and it does not run again.
    h.discord.dm_from(h.owner(), "anyone there?").await;
    h.wait_for_log(HELD, Duration::from_secs(10)).await;
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
    // Not answered in the whole life of the process either.
    assert!(h.bot_messages().is_empty(), "{:#?}", h.bot_messages());
    assert!(h.mock.main_requests().is_empty());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}
