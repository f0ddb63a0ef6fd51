//! Session commands beside forks' threads (issue 41 §1), through the real bot, serenity and CLI
//! against the fake Discord's server: `/permissions` is the conversation's it is given in, and
//! a quick command that has to wait for its conversation's reply is answered once it can be.

use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::home_channel::{bot_message_in, make_home, server};
use crate::home_channel_forks::fork_in;
use crate::support::{bot::BotHarness, mock_api::Reply};

/// `/permissions [mode]` in `channel`; returns the interaction and its callback.
async fn permissions(h: &BotHarness, channel: u64, mode: Option<&str>) -> (u64, Value) {
    let options = match mode {
        Some(mode) => json!([{"name": "mode", "type": 3, "value": mode}]),
        None => json!([]),
    };
    let sent = h
        .discord
        .slash_in(h.owner(), channel, "permissions", options)
        .await;
    (sent, h.discord.wait_for_callback(sent).await)
}

/// PRM-7, SLC-8 (issue 41 §1): `/permissions` in a fork's thread changes that fork only; the
/// channel's conversation keeps its mode, and each shows its own. `/permissions` in the channel
/// while main's reply streams waits for it without losing the interaction: the answer is
/// deferred, then given.
#[tokio::test]
async fn permissions_are_each_conversations_own_and_a_waiting_command_is_deferred() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "budget", "Fork open: budget.").await.id;
    // Each answer as the owner reads it: on a busy machine any of them may come deferred.
    let answer = |channel: u64, mode: Option<&'static str>| {
        let h = &h;
        async move {
            let (sent, _) = permissions(h, channel, mode).await;
            h.discord.wait_for_answer(sent).await
        }
    };
    let main_mode = answer(home, None).await;
    assert!(main_mode.starts_with("permissions:"), "{main_mode}");
    assert!(!main_mode.contains("acceptEdits"), "{main_mode}");
    let set = answer(thread, Some("acceptEdits")).await;
    assert!(set.contains("permissions: acceptEdits."), "{set}");
    let in_thread = answer(thread, None).await;
    assert!(
        in_thread.contains("permissions: acceptEdits."),
        "{in_thread}"
    );
    let in_channel = answer(home, None).await;
    assert_eq!(in_channel, main_mode, "main's mode changed");

    // Main's reply is held mid-stream: `/permissions` there waits for it, deferred.
    let go = CancellationToken::new();
    let words: Vec<String> = (0..20).map(|i| format!("plan{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(words, Duration::ZERO).held_after(3, go.clone()));
    h.discord
        .channel_message(h.owner(), home, "plan my week")
        .await;
    bot_message_in(&h, home, "with main's plan streaming", |m| {
        m.content.contains("plan2")
    })
    .await;
    let (asked, callback) = permissions(&h, home, None).await;
    assert_eq!(callback["type"], 5, "deferred: {callback}");
    go.cancel();
    let answer = h
        .discord
        .wait_for_message_in(home, |m| {
            m.interaction_id == Some(asked) && m.content.starts_with("permissions:")
        })
        .await;
    assert_eq!(answer.content, main_mode);
    h.terminate().await;
}
