//! The model API misbehaving (issue 16), through the real binary, the fake Discord and the
//! real CLI against the mock model: 529, 429, 500 and 401 each give the owner one short,
//! specific line (never the CLI's raw text with the gateway address), and the next message
//! is answered in the same conversation.

use crate::support;

use std::time::Duration;

use support::{bot::BotHarness, mock_api::Reply};

#[tokio::test]
async fn each_api_failure_gets_its_own_short_line_and_the_next_message_works() {
    let h = BotHarness::start().await;
    h.greeted().await;
    for (status, kind, message, expected) in [
        (
            529,
            "overloaded_error",
            "Overloaded",
            "Claude is overloaded right now",
        ),
        (
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
            "I hit Claude's rate limit",
        ),
        (
            500,
            "api_error",
            "Internal server error",
            "Claude's API had a server error (500)",
        ),
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "Claude refused my credentials",
        ),
    ] {
        h.mock.push(Reply::error(status, kind, message));
        let last = h.bot_messages().iter().map(|m| m.id).max().unwrap_or(0);
        h.discord.dm_from(h.owner(), "hi").await;
        let got = h
            .wait_for_bot_message_within(expected, Duration::from_secs(60), |m| {
                m.id > last && m.content.contains(expected)
            })
            .await;
        assert!(!got.content.contains("API Error"), "{}", got.content);
        assert!(!got.content.contains("127.0.0.1"), "{}", got.content);
    }
    h.mock.push(Reply::text("Back on track."));
    h.discord.dm_from(h.owner(), "and now?").await;
    h.wait_for_bot_message("the next answer", |m| m.content.contains("Back on track."))
        .await;
    // The same session: the last request carries the earlier prompts.
    let last = h.mock.main_requests().pop().unwrap();
    assert!(last.user_prompts().join("\n").contains("hi"));
    assert!(h.log().contains("the model API failed the turn"));
}

/// A turn that never ends (a request that hangs, a CLI that goes silent): after
/// `OLLIM_TURN_IDLE_SECS` without a frame the CLI is stopped, the owner is told in plain
/// words, and the next message resumes the conversation in a new CLI.
#[tokio::test]
async fn a_silent_turn_is_cut_off_and_the_next_message_works() {
    let h = BotHarness::start_with(
        support::fake_discord::FakeConfig::default(),
        &[("OLLIM_TURN_IDLE_SECS", "3")],
    )
    .await;
    h.greeted().await;
    h.mock
        .push(Reply::text("too late").with_initial_delay(Duration::from_secs(60)));
    h.discord.dm_from(h.owner(), "plan my day").await;
    let told = h
        .wait_for_bot_message_within("the silence notice", Duration::from_secs(30), |m| {
            m.content.starts_with("Claude stopped answering")
        })
        .await;
    assert!(
        told.content.contains("Send your message again"),
        "{}",
        told.content
    );
    h.mock.push(Reply::text("Here's your day."));
    h.discord.dm_from(h.owner(), "plan my day").await;
    h.wait_for_bot_message("the answer after the restart", |m| {
        m.content.contains("Here's your day.")
    })
    .await;
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content.contains("too late"))
    );
    assert!(h.log().contains("sent nothing for 3s"), "{}", h.log());
}

/// The API failing for a while (issue 24 §2): within seconds the owner sees what is
/// happening on the reply's status line ("… retrying (1/3)"), and a refused key ends the turn
/// at once instead of retrying for minutes.
#[tokio::test]
async fn retries_show_on_the_status_line_and_a_refused_key_stops_at_once() {
    let h = BotHarness::start_with(
        support::fake_discord::FakeConfig::default(),
        &[("CLAUDE_CODE_MAX_RETRIES", "3")],
    )
    .await;
    h.greeted().await;
    h.mock
        .push(Reply::error(500, "api_error", "Internal server error"));
    h.mock.push(Reply::text("Made it."));
    h.discord.dm_from(h.owner(), "hi").await;
    h.wait_for_bot_message_within("the answer", Duration::from_secs(60), |m| {
        m.content.contains("Made it.")
    })
    .await;
    let shown: Vec<String> = h
        .discord
        .requests()
        .into_iter()
        .filter_map(|r| r.body?.get("content")?.as_str().map(str::to_owned))
        .collect();
    assert!(
        shown
            .iter()
            .any(|c| c.contains("Claude's API had a server error (500) — retrying (1/3)")),
        "{shown:#?}"
    );

    for _ in 0..4 {
        h.mock.push(Reply::error(
            401,
            "authentication_error",
            "invalid x-api-key",
        ));
    }
    h.discord.dm_from(h.owner(), "again").await;
    h.wait_for_bot_message_within("the refusal", Duration::from_secs(60), |m| {
        m.content.contains("Claude refused my credentials")
    })
    .await;
    let tries = h
        .mock
        .model_requests()
        .iter()
        .filter(|r| r.user_prompts().last().is_some_and(|p| p.contains("again")))
        .count();
    assert!(tries <= 2, "retried a refused key {tries} times");
}
