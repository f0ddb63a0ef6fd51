//! The real bot killed with SIGKILL — along with its CLI, as a power cut would — in the
//! middle of answering the owner and in the middle of a background run (issue 16), through
//! the real binary, the fake Discord and the real CLI against the mock model. After the
//! restart the main session is resumed (same id, earlier context intact), the owner is told
//! once what was cut off, a cut-off reminder runs again (late), and the next message works.

use crate::support;

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use support::{bot::BotHarness, cli::CliSandbox, mock_api::Reply, wait};

const CUT_OFF: &str = "I was stopped before I could finish";
const FAST_SYNC: [(&str, &str); 1] = [("OLLIM_SCHEDULER_SYNC_SECS", "1")];

/// Kills the bot and every process of its sandbox (its CLIs) at once.
fn power_cut(h: &BotHarness) {
    h.signal("KILL");
    for pid in h.sandbox.processes() {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

/// Waits until the unfinished-work ledger on disk (`state/unfinished.json`, written by its
/// own task a moment after the work began) names `work`: what the restart will find.
async fn ledger_names(h: &BotHarness, work: &str) {
    let ledger = h.sandbox.data_dir.join("state/unfinished.json");
    wait::until_true(
        &format!("{work:?} in the unfinished-work ledger"),
        Duration::from_secs(10),
        || std::fs::read_to_string(&ledger).is_ok_and(|text| text.contains(work)),
        || h.log(),
    )
    .await;
}

fn notices(h: &BotHarness) -> Vec<String> {
    h.bot_messages()
        .into_iter()
        .filter(|m| m.content.contains(CUT_OFF))
        .map(|m| m.content)
        .collect()
}

#[tokio::test]
async fn killed_mid_answer_the_restart_resumes_and_says_what_was_cut_off() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("the code word is heron", "noted").await;
    let session = h.wait_stored_session().await;
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|text| text.contains("tell me a story"))
            .then(|| Reply::text("once upon a time").with_initial_delay(Duration::from_secs(120)))
    });
    h.discord.dm_from(h.owner(), "tell me a story").await;
    h.mock
        .wait_for("the story request", Duration::from_secs(30), |requests| {
            requests
                .iter()
                .any(|r| r.is_main() && r.all_text().contains("tell me a story"))
        })
        .await;
    ledger_names(&h, "tell me a story").await;
    power_cut(&h);

    let h = h.restart(&FAST_SYNC).await;
    h.wait_for_bot_message_within("the cut-off notice", Duration::from_secs(30), |m| {
        m.content.contains(CUT_OFF)
    })
    .await;
    let told = notices(&h);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        told[0].contains("answering your message “tell me a story”"),
        "{}",
        told[0]
    );
    h.converse("what was the code word?", "heron").await;
    let last = h.mock.main_requests().pop().unwrap();
    assert!(
        last.all_text().contains("the code word is heron"),
        "the session was resumed with its context"
    );
    assert_eq!(
        h.wait_stored_session().await,
        session,
        "the same session, resumed"
    );

    // Told once: a further restart has nothing to report.
    let mut h = h;
    h.terminate().await;
    let h = h.restart(&FAST_SYNC).await;
    h.converse("still there?", "yes").await;
    assert_eq!(notices(&h).len(), 1);
    let mut h = h;
    h.terminate().await;
}

#[tokio::test]
async fn killed_mid_run_the_reminder_runs_again_and_the_owner_is_told() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let first_seen = Arc::clone(&seen);
    h.mock.add_rule(move |request| {
        let ours = request
            .user_prompts()
            .iter()
            .any(|p| p.contains("water the plants"));
        // The first run hangs (and is cut off); the one after the restart answers.
        (ours && first_seen.fetch_add(1, Ordering::SeqCst) == 0)
            .then(|| Reply::text("watering").with_initial_delay(Duration::from_secs(120)))
    });
    h.add_reminder_now("water the plants").await;
    h.mock
        .wait_for("the run's request", Duration::from_secs(30), |_| {
            seen.load(Ordering::SeqCst) > 0
        })
        .await;
    ledger_names(&h, "water the plants").await;
    power_cut(&h);

    let h = h.restart(&FAST_SYNC).await;
    let notice = h
        .wait_for_bot_message_within("the cut-off notice", Duration::from_secs(30), |m| {
            m.content.contains(CUT_OFF)
        })
        .await;
    assert!(
        notice.content.contains("the background run"),
        "{}",
        notice.content
    );
    assert!(
        notice.content.contains("water the plants"),
        "{}",
        notice.content
    );
    // The reminder's file outlived the cut: it fires again (REM-4).
    wait::until_true(
        "the reminder's second run",
        Duration::from_secs(60),
        || seen.load(Ordering::SeqCst) >= 2,
        || h.log(),
    )
    .await;
    h.converse("all good?", "all good").await;
    assert_eq!(notices(&h).len(), 1);
    let mut h = h;
    h.terminate().await;
}

/// Issue 41 §2: a turn started by a button is an owner turn like a message's: killed in the
/// middle of it, the restart tells the owner what was cut off.
#[tokio::test]
async fn killed_mid_button_turn_the_restart_says_what_was_cut_off() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        serde_json::json!({"title": "Today", "description": "two things",
            "buttons": [{"label": "Plan it", "action": "agent:plan my afternoon"}]}),
    ));
    h.mock.push(Reply::text("Here's your day."));
    h.discord.dm_from(h.owner(), "what's on today?").await;
    let embed = h
        .wait_for_bot_message("the embed", |m| !m.embeds.is_empty())
        .await;
    h.wait_for_bot_message("the answer", |m| m.content.ends_with("Here's your day."))
        .await;
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|text| text.contains("[button] plan my afternoon"))
            .then(|| Reply::text("the plan").with_initial_delay(Duration::from_secs(120)))
    });
    let button = embed.custom_ids()[0].clone();
    h.discord
        .click_button(h.owner(), h.dm(), embed.id, &button)
        .await;
    ledger_names(&h, "[button] plan my afternoon").await;
    power_cut(&h);

    let mut h = h.restart(&FAST_SYNC).await;
    h.wait_for_bot_message_within("the cut-off notice", Duration::from_secs(30), |m| {
        m.content.contains(CUT_OFF)
    })
    .await;
    let told = notices(&h);
    assert!(
        told[0].contains("“[button] plan my afternoon”"),
        "{}",
        told[0]
    );
    h.terminate().await;
}
