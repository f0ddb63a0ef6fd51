//! The Discord front end end to end: the real binary, the real serenity client against the
//! fake Discord, the real Claude CLI against the mock model. (MSG, STR, GRT, BOOT, SLC)

mod support;

use std::time::Duration;

use support::{bot::BotHarness, mock_api::Reply};

#[tokio::test]
async fn an_owner_dm_gets_a_streamed_reply() {
    let mut h = BotHarness::start().await;
    h.wait_for_bot_message("greeting", |m| {
        m.content.contains("what's on your plate today")
    })
    .await;
    let chunks: Vec<String> = (0..12).map(|i| format!("part{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(chunks, Duration::from_millis(120)));
    let sent = h.discord.dm_from(h.owner(), "hello there").await;
    let reply = h
        .wait_for_bot_message("with the whole reply", |m| {
            m.content.trim_end().ends_with("part11")
        })
        .await;
    assert!(reply.content.starts_with("part0 "), "{}", reply.content);
    assert!(
        !reply.history.is_empty(),
        "the reply was streamed with edits"
    );
    assert!(
        reply.history[0].content.contains("Thinking"),
        "the status line became the reply: {:?}",
        reply.history
    );
    let prompt = h.mock.main_requests().pop().unwrap();
    assert!(prompt.last_user_text().unwrap().ends_with("] hello there"));
    let eyes = h.discord.requests_matching(&format!(
        "DELETE /channels/*/messages/{sent}/reactions/*/@me"
    ));
    assert_eq!(eyes.len(), 1, "👀 removed after the reply");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

#[tokio::test]
async fn strangers_get_nothing_at_all() {
    let mut h = BotHarness::start().await;
    h.wait_for_bot_message("greeting", |m| m.content.contains("plate today"))
        .await;
    let before = h.discord.requests().len();
    h.discord.add_user(42, "stranger");
    h.discord.dm_from(42, "hi bot").await;
    h.mock.push(Reply::text("for the owner"));
    h.discord.dm_from(h.owner(), "ping").await;
    h.wait_for_bot_message("owner reply", |m| m.content == "for the owner")
        .await;
    let stranger_dm = h.discord.dm_channel_id(42);
    assert!(
        h.discord
            .channel_messages(stranger_dm)
            .iter()
            .all(|m| !m.by_bot)
    );
    let touched_stranger = h.discord.requests()[before..]
        .iter()
        .any(|r| r.path.contains(&stranger_dm.to_string()));
    assert!(!touched_stranger, "no request about the stranger's DM");
    assert_eq!(h.mock.main_requests().len(), 1);
    h.terminate().await;
}
