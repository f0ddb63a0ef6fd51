//! What a restart catches up on: an overdue reminder fires late, missed routines are reported.

use serde_json::json;

use super::greeted;
use crate::support::{cli::CliSandbox, mock_api::Reply};

#[tokio::test]
async fn a_restart_fires_an_overdue_reminder_late_and_reports_missed_routines() {
    let sandbox = CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(sandbox.data_dir.join("reminders")).unwrap();
    std::fs::create_dir_all(sandbox.data_dir.join("routines")).unwrap();
    let now = chrono::Utc::now();
    let ten_ago = (now - chrono::Duration::minutes(10)).to_rfc3339();
    std::fs::write(
        sandbox.data_dir.join("reminders/overdue.md"),
        format!(
            "---\nid: \"0a0b0c0d\"\nrun-at: \"{ten_ago}\"\nbackground: false\n---\nCall the dentist\n"
        ),
    )
    .unwrap();
    // Daily at the minute 90 minutes ago: one fire was missed while the bot was down, and the
    // next is a day away, so no fire can land during the test (an hourly cron fired at the top
    // of the hour when the test ran across it).
    let missed = now - chrono::Duration::minutes(90);
    std::fs::write(
        sandbox.data_dir.join("routines/daily.md"),
        format!(
            "---\nid: \"1a1b1c1d\"\ncron: \"{} {} * * *\"\ndescription: \"Daily stretch\"\n---\nStretch\n",
            missed.format("%M"),
            missed.format("%H")
        ),
    )
    .unwrap();
    let three_hours_ago = (now - chrono::Duration::hours(3)).to_rfc3339();
    std::fs::write(
        state.join("scheduler.json"),
        json!({"last_tick": three_hours_ago}).to_string(),
    )
    .unwrap();
    let mut h = greeted(sandbox).await;
    h.mock
        .push(Reply::text("You asked me to remind you: call the dentist."));
    h.wait_for_bot_message("the late reminder", |m| {
        m.content.contains("call the dentist")
    })
    .await;
    let prompt = h
        .mock
        .main_requests()
        .iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .find(|text| text.contains("[reminder:0a0b0c0d]"))
        .expect("a main request carries the late reminder");
    assert!(
        prompt.contains("[reminder:0a0b0c0d]\n[late: was scheduled for "),
        "{prompt}"
    );
    assert!(
        prompt.contains("Missed while offline: routine \"Daily stretch\""),
        "{prompt}"
    );
    h.terminate().await;
}
