//! Turns that are cut into and come back: a dropped gateway resumed, a second DM interrupting
//! the first reply, `/restart`, and a CLI that dies mid-reply.

use std::time::Duration;

use super::greeted;
use crate::support::{bot::BotHarness, mock_api::Reply};

/// Gateway resume: a dropped connection resumes, a DM sent during the gap is answered once.
#[tokio::test]
async fn a_dropped_gateway_resumes_and_answers_the_gap() {
    let mut h = greeted().await;
    h.discord.hold_resumes(true);
    h.discord.drop_connection().await;
    h.mock.push(Reply::text("Caught up."));
    let sent = h.discord.dm_from(h.owner(), "are you there?").await;
    h.discord.hold_resumes(false);
    h.wait_for_bot_message("the answer to the gap DM", |m| m.content == "Caught up.")
        .await;
    h.wait_turn_over(sent).await;
    assert_eq!(h.discord.identify_count(), 1, "resumed, not re-identified");
    assert!(h.discord.resume_count() >= 1);
    let answers = h
        .bot_messages()
        .into_iter()
        .filter(|m| m.content == "Caught up.")
        .count();
    assert_eq!(answers, 1, "answered exactly once");
    assert_eq!(h.mock.main_requests().len(), 1);
    h.terminate().await;
}

/// MSG-3: a second DM interrupts the reply in progress and is answered.
#[tokio::test]
async fn a_second_dm_interrupts_the_first_reply() {
    let mut h = greeted().await;
    let chunks: Vec<String> = (0..60).map(|i| format!("slow{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(chunks, Duration::from_millis(100)));
    h.mock.push(Reply::text("Switching to your new question."));
    h.discord.dm_from(h.owner(), "tell me everything").await;
    h.wait_for_bot_message("the first reply streaming", |m| m.content.contains("slow2"))
        .await;
    h.discord.dm_from(h.owner(), "actually, never mind").await;
    h.wait_for_bot_message("the second answer", |m| {
        m.content == "Switching to your new question."
    })
    .await;
    let first = h
        .bot_messages()
        .into_iter()
        .find(|m| m.content.starts_with("slow0"))
        .unwrap();
    assert!(
        !first.content.contains("slow59"),
        "the first reply was cut short"
    );
    h.terminate().await;
}

/// SLC-12, SES-12, UPD-7, GRT-1: `/restart` logs `restarting`, shuts down in order and replaces
/// the process with a fresh copy that reconnects, greets and resumes the same conversation.
#[tokio::test]
async fn slash_restart_comes_back_on_the_same_session() {
    let mut h = greeted().await;
    h.mock.push(Reply::text("Remembered: MANGO."));
    h.discord.dm_from(h.owner(), "remember MANGO").await;
    h.wait_for_bot_message("first reply", |m| m.content.contains("MANGO"))
        .await;
    // `restarting` is logged against the stored session (SLC-12): wait until there is one.
    h.wait_stored_session().await;
    let pid = h.child.id();
    let restart = h
        .discord
        .slash(h.owner(), "restart", serde_json::json!([]))
        .await;
    let callback = h.discord.wait_for_callback(restart).await;
    assert!(callback.to_string().contains("restarting..."), "{callback}");
    h.wait_for_bot_message("the greeting after the restart", |m| {
        m.content.starts_with("hey, i'm back (")
    })
    .await;
    assert_eq!(h.child.id(), pid, "the process was replaced in place");
    assert_eq!(h.discord.identify_count(), 2);
    let history =
        std::fs::read_to_string(h.sandbox.data_dir.join("state/session_history.jsonl")).unwrap();
    assert!(history.contains("\"restarting\""), "{history}");
    h.mock.push(Reply::text("Still know: MANGO."));
    h.discord
        .dm_from(h.owner(), "what did I ask you to remember?")
        .await;
    h.wait_for_bot_message("reply after restart", |m| m.content == "Still know: MANGO.")
        .await;
    let last = h.mock.main_requests().pop().unwrap();
    assert!(last.all_text().contains("remember MANGO"));
    h.terminate().await;
}

/// The pid of the Claude CLI serving this harness (found by its sandbox HOME).
fn cli_pid(h: &BotHarness) -> Option<u32> {
    let marker = h.sandbox.home.path().to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let is_cli = String::from_utf8_lossy(&cmdline).contains("stream-json");
            let ours = environ
                .windows(marker.len())
                .any(|w| w == marker.as_bytes());
            (is_cli && ours).then_some(pid)
        })
}

/// MSG-7, SES-18: the CLI dying mid-reply gives `lost connection — try again.`, and the next
/// DM resumes the same conversation in a new CLI process.
#[tokio::test]
async fn a_lost_cli_connection_is_reported_and_recovered() {
    let mut h = greeted().await;
    h.mock.push(Reply::text("Noted: PEAR."));
    h.discord.dm_from(h.owner(), "remember PEAR").await;
    h.wait_for_bot_message("first reply", |m| m.content == "Noted: PEAR.")
        .await;
    let chunks: Vec<String> = (0..50).map(|i| format!("w{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(chunks, Duration::from_millis(100)));
    h.discord.dm_from(h.owner(), "tell me a story").await;
    h.wait_for_bot_message("the story streaming", |m| m.content.contains("w2"))
        .await;
    let pid = cli_pid(&h).expect("the CLI is running");
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    h.wait_for_bot_message("the lost-connection note", |m| {
        m.content == "lost connection — try again."
    })
    .await;
    h.mock.push(Reply::text("Yes: PEAR."));
    h.discord
        .dm_from(h.owner(), "what did I ask you to remember?")
        .await;
    h.wait_for_bot_message("the answer after recovery", |m| m.content == "Yes: PEAR.")
        .await;
    assert!(
        h.mock
            .main_requests()
            .pop()
            .unwrap()
            .all_text()
            .contains("remember PEAR")
    );
    assert_ne!(cli_pid(&h), Some(pid));
    h.terminate().await;
}
