//! The conversation's CLI at rest, through the real parts (issue 29; REST-1…REST-6): with its
//! idle time at a minute, passed by moving the bot's clock (issue 40 §2), the real CLI is
//! stopped after a reply, a typing event from the owner starts it again and one from a
//! stranger doesn't, the next
//! message resumes the same conversation with the same model, `/model` and `/clear` work on
//! a sleeping session, the woken CLI's preparation never holds up the message, and after a
//! start the CLI waits for the owner as a sleeping one does.

use std::time::Duration;

mod housekeeping;

use serde_json::json;

use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{AnsweredBy, MockApi},
    procs::tree,
    wait,
};

/// The bot's descendants: the CLI (and whatever it started).
pub(crate) fn cli_processes(h: &BotHarness) -> usize {
    tree(h.pid()).len() - 1
}

/// The bot with the CLI's idle time at a minute (`/config cli_idle_minutes 1`), greeted.
pub(crate) async fn start() -> BotHarness {
    start_idle(1, &[]).await
}

/// The bot with `/config cli_idle_minutes` at `minutes` and `env` set, greeted.
pub(crate) async fn start_idle(minutes: u32, env: &[(&str, &str)]) -> BotHarness {
    let sandbox = CliSandbox::new();
    std::fs::create_dir_all(sandbox.data_dir.join("state")).unwrap();
    std::fs::write(
        sandbox.data_dir.join("state/config.json"),
        format!(r#"{{"cli_idle_minutes": {minutes}}}"#),
    )
    .unwrap();
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        sandbox,
        env,
    )
    .await;
    h.greeted().await;
    h
}

/// The idle minute passes on the bot's clock; the CLI is stopped.
pub(crate) async fn asleep(h: &BotHarness) {
    h.sandbox.advance_clock(Duration::from_secs(61));
    wait::until_true(
        "the CLI asleep",
        Duration::from_secs(30),
        || cli_processes(h) == 0,
        || h.log(),
    )
    .await;
}

pub(crate) async fn awake(h: &BotHarness, why: &str) {
    wait::until_true(
        why,
        Duration::from_secs(30),
        || cli_processes(h) > 0,
        || h.log(),
    )
    .await;
}

/// `/model haiku`, answered.
async fn haiku(h: &BotHarness) {
    let command = h
        .discord
        .slash(
            h.owner(),
            "model",
            json!([{"name": "name", "type": 3, "value": "haiku"}]),
        )
        .await;
    h.discord.wait_for_callback(command).await;
}

/// REST-1, REST-2, REST-3: asleep after the idle time, woken by the owner's typing and not a
/// stranger's, and the next message resumes the same conversation with the same model.
#[tokio::test]
async fn the_cli_sleeps_when_idle_and_wakes_when_the_owner_types() {
    let mut h = start().await;
    haiku(&h).await;
    h.converse("remember the word heron", "Noted: heron.").await;
    asleep(&h).await;
    // The line comes once the stop is complete, a moment after the process is gone.
    h.wait_for_log("asleep until it is needed", Duration::from_secs(30))
        .await;

    h.discord.add_user(42, "stranger");
    h.discord.typing_dm(42).await;
    h.wait_for_log("nothing wakes", Duration::from_secs(30))
        .await;
    assert_eq!(cli_processes(&h), 0, "a stranger's typing woke the CLI");

    h.discord.typing_dm(h.owner()).await;
    awake(&h, "the CLI woken by the owner's typing").await;
    h.converse("what was the word?", "Heron.").await;
    let last = h.mock.main_requests().pop().expect("the last main request");
    assert!(
        last.all_text().contains("remember the word heron"),
        "the woken CLI didn't resume the conversation: {}",
        last.summary()
    );
    assert!(
        last.model().is_some_and(|model| model.contains("haiku")),
        "the model was lost in the sleep: {:?}",
        last.model()
    );
    h.terminate().await;
}

/// REST-3, REST-4, REST-5: a message while the CLI sleeps is answered once; `/model`,
/// `/compact` and `/clear` work on a sleeping session; a background run's CLI ends with its run.
#[tokio::test]
async fn commands_and_messages_reach_a_sleeping_session() {
    let mut h = start().await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().last()?.to_string();
        prompt
            .contains("[reminder-bg:")
            .then(|| crate::support::mock_api::Reply::text("Checked."))
    });
    h.converse("remember the word heron", "Noted: heron.").await;
    asleep(&h).await;
    h.add_reminder_now("check the oven").await;
    h.wait_for_log("background run finished", Duration::from_secs(60))
        .await;
    asleep(&h).await;
    // No typing first: the message itself starts the CLI, and gets one answer.
    h.converse("still there?", "Here.").await;
    let answers = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("Here."))
        .count();
    assert_eq!(answers, 1);
    // `/model` and `/compact` on a sleeping session; the next reply uses the new model.
    asleep(&h).await;
    haiku(&h).await;
    asleep(&h).await;
    h.discord.slash(h.owner(), "compact", json!([])).await;
    h.wait_for_bot_message_within("the compaction's figures", Duration::from_secs(60), |m| {
        m.content.contains("compacted")
    })
    .await;
    asleep(&h).await;
    h.converse("and now?", "Still here.").await;
    let last = h.mock.main_requests().pop().expect("the last main request");
    assert!(
        last.model().is_some_and(|model| model.contains("haiku")),
        "{:?}",
        last.model()
    );
    asleep(&h).await;
    let command = h.discord.slash(h.owner(), "clear", json!([])).await;
    let answer = h.discord.wait_for_callback(command).await;
    let said = answer["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!said.to_lowercase().contains("error"), "{said}");
    h.converse("what was the word?", "No idea.").await;
    let last = h.mock.main_requests().pop().expect("the last main request");
    assert!(
        !last.all_text().contains("remember the word heron"),
        "/clear on a sleeping session kept the conversation"
    );
    h.terminate().await;
}

/// REST-2: the woken CLI's preparation never holds up the message: with the API taking a
/// minute to count tokens, a message right after the owner's typing is answered at once.
#[tokio::test]
async fn a_slow_preparation_does_not_hold_up_the_message() {
    let mut h = start().await;
    h.converse("hello", "Hi!").await;
    asleep(&h).await;
    h.mock.set_count_tokens_delay(Duration::from_secs(60));
    h.discord.typing_dm(h.owner()).await;
    awake(&h, "the CLI woken by the owner's typing").await;
    h.wait_for_log("waking the conversation's CLI", Duration::from_secs(30))
        .await;
    let asked = std::time::Instant::now();
    h.converse("are you there?", "Yes.").await;
    assert!(
        h.mock
            .requests()
            .iter()
            .any(|r| r.answered_by == AnsweredBy::CountTokens),
        "the woken CLI never began counting its context"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(45),
        "the reply waited for the CLI's token count: {:?}",
        asked.elapsed()
    );
    h.terminate().await;
}

/// REST-6: after a start nothing runs the conversation's CLI until the owner shows up: the
/// greeting comes without one, the owner's typing starts it, and the message is answered in
/// the conversation; with `cli_idle_minutes 0` (always up) it starts at once.
#[tokio::test]
async fn the_cli_starts_on_the_owner_s_first_sign_not_at_start() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.wait_for_log("starts on the owner's first sign", Duration::from_secs(30))
        .await;
    // What would have started one has run by now (the greeting comes after it); a moment more.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(cli_processes(&h), 0, "a CLI started before anyone spoke");
    h.discord.typing_dm(h.owner()).await;
    awake(&h, "the CLI started by the owner's typing").await;
    h.converse("hello", "Hi!").await;
    h.terminate().await;

    let mut h = start_idle(0, &[]).await;
    awake(&h, "the always-up CLI started at ready").await;
    h.terminate().await;
}
