//! Too much at once (issue 16), through the real binary, the fake Discord and the real CLI
//! against the mock model: six reminders due in the same minute with `bg_max_concurrent: 2`
//! run two at a time, every one of them runs, and the owner's own message is answered while
//! they queue.

use crate::support;

use std::time::{Duration, Instant};

use support::{
    bot::BotHarness,
    cli::CliSandbox,
    mock_api::{RecordedRequest, Reply},
    wait,
};

const JOBS: usize = 6;

fn bg_tag(request: &RecordedRequest) -> Option<String> {
    let prompt = request.user_prompts().join("\n");
    let start = prompt.find("[reminder-bg:")?;
    let end = prompt[start..].find(']')? + start;
    Some(prompt[start..=end].to_owned())
}

/// The most background model calls in flight at one moment.
fn peak_in_flight(requests: &[RecordedRequest]) -> usize {
    let spans: Vec<(Instant, Instant)> = requests
        .iter()
        .filter(|r| bg_tag(r).is_some())
        .filter_map(|r| Some((r.received_at, r.completed_at?)))
        .collect();
    spans
        .iter()
        .map(|(start, _)| {
            spans
                .iter()
                .filter(|(s, e)| s <= start && start < e)
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[tokio::test]
async fn a_burst_of_due_reminders_runs_under_the_cap_and_all_of_them_run() {
    let sandbox = CliSandbox::new();
    std::fs::create_dir_all(sandbox.data_dir.join("state")).unwrap();
    std::fs::write(
        sandbox.data_dir.join("state/config.json"),
        "{\"bg_max_concurrent\": 2}\n",
    )
    .unwrap();
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    h.mock.add_rule(|request| {
        bg_tag(request)
            .map(|_| Reply::text("checked").with_initial_delay(Duration::from_millis(1500)))
    });
    for n in 0..JOBS {
        h.add_reminder_now(&format!("burst job {n}")).await;
    }
    // The owner talks while the burst runs and queues: answered without waiting for it.
    h.mock
        .wait_for(
            "the burst's first run",
            Duration::from_secs(30),
            |requests| requests.iter().any(|r| bg_tag(r).is_some()),
        )
        .await;
    h.mock.push(Reply::text("right here"));
    h.discord.dm_from(h.owner(), "you there?").await;
    h.wait_for_bot_message_within("the owner's answer", Duration::from_secs(20), |m| {
        m.content.contains("right here")
    })
    .await;

    // Every run over: a fired reminder's file is removed once its run has ended.
    let reminders = h.sandbox.data_dir.join("reminders");
    let left = || std::fs::read_dir(&reminders).map_or(0, |entries| entries.flatten().count());
    wait::until_true(
        &format!("all {JOBS} runs to end"),
        Duration::from_secs(90),
        || left() == 0,
        || format!("{} reminders left\n{}", left(), h.log()),
    )
    .await;
    let ran: std::collections::BTreeSet<String> =
        h.mock.requests().iter().filter_map(bg_tag).collect();
    assert_eq!(ran.len(), JOBS, "{ran:?}");
    let requests = h.mock.requests();
    let peak = peak_in_flight(&requests);
    assert!(peak <= 2, "{peak} background runs at once");
    assert_eq!(peak, 2, "the cap is used, not one at a time");
    assert!(
        h.log()
            .contains("background runs at their limit; this one waits its turn"),
        "{}",
        h.log()
    );
    h.terminate().await;
}
