//! The scheduler finds new job files through file events, not a poll (issue 17, SCH-1, SCH-2,
//! RTN-3, REM-5), through the real binary, the real Claude CLI against the mock model and the
//! fake Discord: with the poll an hour apart, a routine file written into `routines/` still
//! fires at its minute; with events off (`OLLIM_FS_EVENTS=off`) the poll every second still
//! finds a reminder file; and a watched folder never vanishes: the last reminder fired leaves
//! it, and one removed by hand is made and watched again (issue 40 §1). The files are written
//! by hand, as the owner or an editor would.

use crate::support;

use std::time::Duration;

use support::{bot::BotHarness, cli::CliSandbox, mock_api::Reply, wait};

/// A foreground routine due every minute, in the canonical file form.
fn routine_file(id: &str, message: &str) -> String {
    format!("---\nid: \"{id}\"\ncron: \"* * * * *\"\n---\n{message}\n")
}

/// A foreground reminder due now.
fn reminder_file(id: &str, message: &str) -> String {
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S+00:00");
    format!("---\nid: \"{id}\"\nrun-at: \"{now}\"\nbackground: false\n---\n{message}\n")
}

/// The bot on a fresh sandbox with `extra_env`, greeted, its scheduler (and watcher) running.
async fn greeted_with(extra_env: &[(&str, &str)]) -> BotHarness {
    let h = BotHarness::start_parts(
        support::fake_discord::FakeDiscord::start(support::fake_discord::FakeConfig::default())
            .await,
        support::mock_api::MockApi::start().await,
        CliSandbox::new(),
        extra_env,
    )
    .await;
    h.greeted().await;
    h.wait_for_log("scheduler started", Duration::from_secs(60))
        .await;
    h
}

/// The main-session prompt that carries `tag`, once the mock has seen it.
fn prompt_with(h: &BotHarness, tag: &str) -> Option<String> {
    h.mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .find(|text| text.contains(tag))
}

#[tokio::test]
async fn a_routine_file_written_into_the_folder_fires_without_waiting_for_a_poll() {
    // Both the poll without events and the fallback read are an hour away: only a file event
    // can bring the routine in before the test gives up.
    let mut h = greeted_with(&[("OLLIM_SCHEDULER_SYNC_SECS", "3600")]).await;
    h.mock.push(Reply::text("Watched routine answered."));
    let routines = h.sandbox.data_dir.join("routines");
    std::fs::write(
        routines.join("watched.md"),
        routine_file("watched1", "Say WATCHED to Julia"),
    )
    .unwrap();
    // Its minute comes within 60 s; the wait is generous for a loaded machine.
    h.wait_for_bot_message_within("the routine's answer", Duration::from_secs(150), |m| {
        m.content == "Watched routine answered."
    })
    .await;
    let prompt = prompt_with(&h, "[routine:watched1]").expect("the routine's prompt");
    assert!(prompt.ends_with("Say WATCHED to Julia"), "{prompt}");
    assert!(
        !h.log().contains("file events stopped"),
        "events kept working\n{}",
        h.log()
    );
    h.terminate().await;
}

#[tokio::test]
async fn with_file_events_off_the_poll_still_finds_a_new_reminder_file() {
    let mut h = greeted_with(&[
        ("OLLIM_FS_EVENTS", "off"),
        ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
    ])
    .await;
    assert!(
        h.log().contains("file events are off"),
        "the bot says it polls\n{}",
        h.log()
    );
    h.mock.push(Reply::text("Polled reminder answered."));
    let reminders = h.sandbox.data_dir.join("reminders");
    std::fs::write(
        reminders.join("polled.md"),
        reminder_file("polled01", "Tell Julia POLLED"),
    )
    .unwrap();
    h.wait_for_bot_message_within("the reminder's answer", Duration::from_secs(90), |m| {
        m.content == "Polled reminder answered."
    })
    .await;
    let prompt = prompt_with(&h, "[reminder:polled01]").expect("the reminder's prompt");
    assert!(prompt.ends_with("Tell Julia POLLED"), "{prompt}");
    // A fired reminder's file is removed (REM-1), and the poll sees that too.
    let file = reminders.join("polled.md");
    wait::until_true(
        "the fired reminder's file removed",
        Duration::from_secs(30),
        || !file.exists(),
        || h.log(),
    )
    .await;
    h.terminate().await;
}

/// KEEP-4: the folders the owner writes into never vanish, and the watch outlives one removed
/// by hand (issue 40 §1): the last reminder's file removed when it fires leaves `reminders/`
/// as it was; the folder removed by hand is made again and watched again, so a reminder
/// written into it fires with the poll an hour away.
#[tokio::test]
async fn the_watched_folders_never_vanish_and_a_removed_one_is_watched_again() {
    let mut h = greeted_with(&[("OLLIM_SCHEDULER_SYNC_SECS", "3600")]).await;
    let reminders = h.sandbox.data_dir.join("reminders");
    let inode = |dir: &std::path::Path| {
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(dir).expect("the folder"))
    };
    let before = inode(&reminders);
    h.mock.push(Reply::text("First reminder answered."));
    std::fs::write(
        reminders.join("first.md"),
        reminder_file("first001", "Tell Julia FIRST"),
    )
    .unwrap();
    h.wait_for_bot_message_within("the first answer", Duration::from_secs(90), |m| {
        m.content == "First reminder answered."
    })
    .await;
    wait::until(Duration::from_secs(30), || {
        (!reminders.join("first.md").exists()).then_some(())
    })
    .await
    .expect("the fired reminder's file removed");
    assert_eq!(inode(&reminders), before, "the folder stayed as it was");

    std::fs::remove_dir_all(&reminders).unwrap();
    h.wait_for_log("made it again and watching it", Duration::from_secs(90))
        .await;
    assert!(reminders.is_dir(), "made again");
    h.mock
        .push(Reply::text("Reminder after the removal answered."));
    std::fs::write(
        reminders.join("after.md"),
        reminder_file("after001", "Tell Julia AFTER"),
    )
    .unwrap();
    h.wait_for_bot_message_within("the reminder's answer", Duration::from_secs(90), |m| {
        m.content == "Reminder after the removal answered."
    })
    .await;
    assert!(prompt_with(&h, "[reminder:after001]").is_some());
    assert!(
        !h.log().contains("file events stopped"),
        "events kept working\n{}",
        h.log()
    );
    h.terminate().await;
}
