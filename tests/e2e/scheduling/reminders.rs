//! Reminders made with the CLI: one fires within its minute and pings from the background, a
//! foreground one answers in the main session.

use std::time::Duration;

use serde_json::json;

use super::{cli, git_log, greeted, scheduled_id, wait_until};
use crate::support::{cli::CliSandbox, mock_api::Reply};

#[tokio::test]
async fn a_cli_reminder_fires_within_its_minute_and_pings_in_the_background() {
    let mut h = greeted(CliSandbox::new()).await;
    // The conversation is settled (not mid-turn), so the run may ping.
    h.converse("hi", "Hi!").await;
    h.mock.answer_reminder_runs(
        "mcp__discord__ping_user",
        json!({"message": "time to stretch"}),
        "pinged",
    );
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Remind Julia to stretch",
            "--delay",
            "1",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(": [bg] at "), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(" -- Remind Julia to stretch"),
        "{stdout}"
    );
    let id = scheduled_id(&stdout);
    let (_, listed, _) = cli(&h, &["reminder", "list"]).await;
    assert!(listed.contains(&id), "{listed}");
    // Its minute passes on the bot's clock (issue 40 §2).
    h.sandbox.advance_clock(Duration::from_secs(60));
    let ping = h
        .wait_for_bot_message_within("the background ping", Duration::from_secs(90), |m| {
            m.content == "[bg] time to stretch"
        })
        .await;
    assert!(ping.content.starts_with("[bg] "));
    let reminders = h.sandbox.data_dir.join("reminders");
    wait_until(
        "the fired reminder's removal",
        Duration::from_secs(10),
        || std::fs::read_dir(&reminders).map_or(true, |mut d| d.next().is_none()),
    )
    .await;
    let prompt = h
        .mock
        .main_requests()
        .into_iter()
        .find(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
        .unwrap();
    assert!(
        prompt
            .user_prompts()
            .iter()
            .any(|p| p.contains(&format!("[reminder-bg:{id}]")))
    );
    crate::support::wait::until_true(
        "the removal commit",
        Duration::from_secs(30),
        || git_log(&h).contains(&format!("remove reminder {id}")),
        || format!("{}\n{}", git_log(&h), h.log()),
    )
    .await;
    assert!(git_log(&h).contains(&format!("add reminder {id}")));
    let (_, listed, _) = cli(&h, &["reminder", "list"]).await;
    assert_eq!(listed.trim(), "no pending reminders");
    h.terminate().await;
}

#[tokio::test]
async fn a_foreground_reminder_answers_in_the_main_session() {
    let mut h = greeted(CliSandbox::new()).await;
    h.mock.push(Reply::text("Time to drink some water!"));
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Tell Julia to drink water",
            "--delay",
            "0",
            "--foreground",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(": [fg] at "), "{stdout}");
    let id = scheduled_id(&stdout);
    h.wait_for_bot_message("the foreground answer", |m| {
        m.content == "Time to drink some water!"
    })
    .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    let prompt = prompt.last_user_text().unwrap().to_owned();
    assert!(prompt.contains(&format!("[reminder:{id}]")), "{prompt}");
    assert!(prompt.ends_with("Tell Julia to drink water"), "{prompt}");
    // The main session is stored once the CLI named it, a moment after the reply may be up.
    h.wait_stored_session().await;
    h.terminate().await;
}
