//! Quiet time through the real parts (issue 28 §2; QUI-1, QUI-2, QUI-3, QUI-4): while the owner is quiet, background runs'
//! non-critical pings and embeds are held, a critical ping goes straight through, and when the
//! quiet ends they arrive as one digest whose buttons still work.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    mock_api::{RecordedRequest, Reply},
    wait,
};

/// `/quiet <when>`; returns the ephemeral answer's text.
pub(crate) async fn quiet(h: &BotHarness, when: &str) -> String {
    let command = h
        .discord
        .slash(
            h.owner(),
            "quiet",
            json!([{"name": "when", "type": 3, "value": when}]),
        )
        .await;
    let answer: Value = h.discord.wait_for_callback(command).await;
    answer["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Whether any tool result is in the request (the CLI may follow one with its own message).
fn after_a_tool(request: &RecordedRequest) -> bool {
    request.messages().iter().any(|message| {
        message["content"]
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
    })
}

/// Each reminder run calls the tool its text names (its body ends the prompt; the schedule
/// in its preamble names the others), then finishes.
pub(crate) fn script_runs(h: &BotHarness) {
    h.mock.add_rule(|request| {
        let prompts = request.user_prompts();
        // A forked run carries the conversation before it: its own prompt is the last.
        let prompt = prompts.last()?;
        if !prompt.contains("[reminder-bg:") {
            return None;
        }
        if after_a_tool(request) {
            return Some(Reply::text("done"));
        }
        let prompt = prompt.trim_end();
        Some(if prompt.ends_with("water the plants") {
            Reply::tool_use(
                "mcp__discord__ping_user",
                json!({"message": "time to water the plants"}),
            )
        } else if prompt.ends_with("check the inbox") {
            Reply::tool_use(
                "mcp__discord__discord_embed",
                json!({"title": "Inbox", "description": "3 new",
                       "buttons": [{"label": "Summarise", "action": "agent:summarise the inbox"}]}),
            )
        } else {
            Reply::tool_use(
                "mcp__discord__ping_user",
                json!({"message": "the kettle is boiling dry", "critical": true}),
            )
        })
    });
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        (prompt.contains("summarise the inbox") && !prompt.contains("[reminder-bg:"))
            .then(|| Reply::text("Inbox summarised."))
    });
}

#[tokio::test]
async fn quiet_time_holds_pings_for_one_digest_with_working_buttons() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    let said = quiet(&h, "1h").await;
    assert!(said.contains("Quiet now until"), "{said}");
    script_runs(&h);
    for reminder in ["water the plants", "check the inbox", "urgent"] {
        h.add_reminder_now(reminder).await;
    }
    // The critical ping comes through at once.
    h.wait_for_bot_message_within("the critical ping", Duration::from_secs(60), |m| {
        m.content.contains("the kettle is boiling dry")
    })
    .await;
    wait::until_true(
        "three runs finished",
        Duration::from_secs(60),
        || h.log().matches("background run finished").count() >= 3,
        || h.log(),
    )
    .await;
    let shown = |h: &BotHarness, text: &str| {
        h.bot_messages().iter().any(|m| {
            m.content.contains(text) || serde_json::to_string(&m.embeds).unwrap().contains(text)
        })
    };
    assert!(
        !shown(&h, "time to water the plants"),
        "a held ping was sent"
    );
    assert!(!shown(&h, "3 new"), "a held embed was sent");
    // The run was told its ping is held, and until when.
    let told = h
        .mock
        .model_requests()
        .iter()
        .flat_map(RecordedRequest::tool_results)
        .any(|r| r.content.contains("Held: the owner is in quiet time until"));
    assert!(told, "no run heard its ping was held");

    // The quiet ends: one digest with both, the embed's button working.
    let said = quiet(&h, "end").await;
    assert!(said.contains("Not quiet now"), "{said}");
    let digest = h
        .wait_for_bot_message_within("the digest", Duration::from_secs(30), |m| {
            m.content.starts_with("While you were in quiet time")
        })
        .await;
    assert!(
        digest.content.contains("time to water the plants"),
        "{}",
        digest.content
    );
    assert!(
        digest.content.contains("Inbox (below)"),
        "{}",
        digest.content
    );
    assert_eq!(digest.embeds.len(), 1, "{:?}", digest.embeds);
    let digests = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.starts_with("While you were in quiet time"))
        .count();
    assert_eq!(digests, 1);
    let button = digest.custom_ids().into_iter().next().expect("a button");
    h.discord
        .click_button(h.owner(), h.dm(), digest.id, &button)
        .await;
    h.wait_for_bot_message_within("the button's answer", Duration::from_secs(60), |m| {
        m.content.contains("Inbox summarised.")
    })
    .await;
    h.terminate().await;
}

/// Sets the "water the plants" reminder and checks its ping, once the run is done, was held
/// `during` something.
pub(crate) async fn plants_reminder_held(h: &BotHarness, during: &str) {
    h.add_reminder_now("water the plants").await;
    h.wait_for_log("background run finished", Duration::from_secs(60))
        .await;
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content.contains("time to water the plants")),
        "the ping came through during {during}"
    );
}

/// Waits for the digest with the held "water the plants" ping in it.
pub(crate) async fn plants_in_the_digest(h: &BotHarness, within: Duration) {
    h.wait_for_bot_message_within("the digest", within, |m| {
        m.content.starts_with("While you were in quiet time")
            && m.content.contains("time to water the plants")
    })
    .await;
}

/// The model's focus turns: the first step for `[focus]`, a question for `[focus-end]`.
pub(crate) fn script_focus(h: &BotHarness) {
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().last()?.to_string();
        if prompt.contains("[reminder-bg:") {
            return None;
        }
        if prompt.contains("[focus-end]") {
            Some(Reply::text("Nice. What got done?"))
        } else if prompt.contains("[focus]") {
            Some(Reply::text("Writing the report. First step: open the doc."))
        } else {
            None
        }
    });
}

/// `/focus <minutes> write the report`; returns the callback.
pub(crate) async fn focus(h: &BotHarness, minutes: u32) -> Value {
    let command = h
        .discord
        .slash(
            h.owner(),
            "focus",
            json!([
                {"name": "minutes", "type": 3, "value": minutes.to_string()},
                {"name": "task", "type": 3, "value": "write the report"},
            ]),
        )
        .await;
    h.discord.wait_for_callback(command).await
}

/// Issue 28 §3 (FOC-1, FOC-2, FOC-3, FOC-4): `/focus` restates the task with a first step,
/// holds a background ping while it lasts, and **End focus** ends it: the main conversation
/// gets the session as a pending update and asks what got done, then the held ping arrives.
#[tokio::test]
async fn a_focus_session_holds_pings_and_ends_with_a_question() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    script_runs(&h);
    script_focus(&h);
    let answer = focus(&h, 25).await;
    let said = answer["data"]["content"].as_str().unwrap_or_default();
    assert!(
        said.contains("Focus: **write the report**, 25 min"),
        "{said}"
    );
    h.wait_for_bot_message("the first step", |m| {
        m.content.contains("First step: open the doc.")
    })
    .await;

    plants_reminder_held(&h, "the focus session").await;

    let focus = h
        .bot_messages()
        .into_iter()
        .find(|m| m.content.starts_with("Focus: **write the report**"))
        .expect("the focus message");
    let end = focus.custom_ids().into_iter().next().expect("End focus");
    assert_eq!(end, "act:focus_end:_");
    h.discord
        .click_button(h.owner(), h.dm(), focus.id, &end)
        .await;
    h.wait_for_bot_message_within("the question", Duration::from_secs(60), |m| {
        m.content.contains("What got done?")
    })
    .await;
    let asked = h
        .mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.user_prompts().last().map(ToString::to_string))
        .find(|p| p.contains("[focus-end]"))
        .expect("the focus-end prompt");
    assert!(
        asked.contains("Focus session on write the report"),
        "the pending update: {asked}"
    );
    plants_in_the_digest(&h, Duration::from_secs(30)).await;
    h.terminate().await;
}

/// QUI-5: with `/quiet busy` and Google connected, a busy event under way holds a background
/// ping like quiet hours; one marked free doesn't count; when the event ends the ping comes in
/// the digest.
#[tokio::test]
async fn a_busy_calendar_event_counts_as_quiet_time() {
    let fake = crate::support::fake_google::FakeGoogle::start().await;
    let url = fake.base_url();
    let mut h = BotHarness::start_with(
        crate::support::fake_discord::FakeConfig::default(),
        &[
            ("OLLIM_GOOGLE_API_URL", url.as_str()),
            ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
        ],
    )
    .await;
    h.greeted().await;
    // A newcomer who asks before connecting Google hears what is missing.
    let said = quiet(&h, "busy").await;
    assert!(said.contains("Google isn't connected"), "{said}");
    fake.connect(&h.sandbox.data_dir, false);
    let now = chrono::Utc::now();
    let at = |seconds: i64| (now + chrono::Duration::seconds(seconds)).to_rfc3339();
    fake.with(|d| {
        d.events("primary").extend([
            json!({"id": "m1", "summary": "Team meeting", "status": "confirmed",
                   "start": {"dateTime": at(-600)}, "end": {"dateTime": at(25)}}),
            json!({"id": "f1", "summary": "Lunch (free)", "status": "confirmed",
                   "transparency": "transparent",
                   "start": {"dateTime": at(-600)}, "end": {"dateTime": at(3600)}}),
        ]);
    });
    let said = quiet(&h, "busy").await;
    assert!(
        said.contains("Busy calendar events count as quiet"),
        "{said}"
    );
    wait::until_true(
        "the meeting noted as quiet time",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(h.sandbox.data_dir.join("state/quiet.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .is_some_and(|stored| stored["busy_until"].is_string())
        },
        || h.log(),
    )
    .await;
    script_runs(&h);
    plants_reminder_held(&h, "the meeting").await;
    // The meeting ends on the bot's clock (the free lunch goes on): the held ping comes in
    // the digest.
    h.sandbox.advance_clock(Duration::from_secs(30));
    plants_in_the_digest(&h, Duration::from_secs(60)).await;
    h.terminate().await;
}
