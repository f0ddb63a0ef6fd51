//! Discord misbehaving (issue 16), through the real binary, the fake Discord and the real CLI
//! against the mock model: with the API behind a proxy serenity's own limiter is off, so 429s
//! reach the bot; nothing it sends may be lost to them, and it must not retry in a burst.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{bot::BotHarness, mock_api::Reply};

#[tokio::test]
async fn rate_limited_sends_are_retried_in_order_and_nothing_is_lost() {
    let h = BotHarness::start().await;
    h.greeted().await;
    h.converse("warm up", "warm").await;
    // The next three message posts are refused with 429 (per route, retry_after 0.3 s).
    h.discord
        .set_rate_limit("POST /channels/*/messages", 0.3, 3);
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "First", "description": "one"}),
    ));
    h.mock.push(Reply::text("Second, after the embed."));
    h.discord.dm_from(h.owner(), "send me two things").await;
    h.wait_for_bot_message_within("the embed", Duration::from_secs(30), |m| {
        m.embeds.iter().any(|e| e["title"] == "First")
    })
    .await;
    h.wait_for_bot_message_within("the text", Duration::from_secs(30), |m| {
        m.content.contains("Second, after the embed.")
    })
    .await;
    let posts = h.discord.requests_matching("POST /channels/*/messages");
    let refused: Vec<_> = posts.iter().filter(|r| r.status == 429).collect();
    assert_eq!(refused.len(), 3, "{posts:#?}");
    // Order kept: the messages went out in the order they were first tried (the turn's status
    // line, refused, before the embed that waited behind it), none twice.
    let from = posts.iter().position(|r| r.status == 429).unwrap();
    let posts = &posts[from..];
    let mut first_tries = Vec::new();
    for post in posts {
        if !first_tries.contains(&post.body) {
            first_tries.push(post.body.clone());
        }
    }
    let delivered: Vec<_> = posts
        .iter()
        .filter(|r| r.status == 200)
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(delivered, first_tries, "{posts:#?}");
    assert!(
        h.log()
            .matches("Discord rate limit (429); sending again after a pause")
            .count()
            >= 3,
        "each 429 waited out"
    );
}

/// A global 429 (`"global": true`, `X-RateLimit-Global`) holds back every request the bot
/// makes, not only the refused one: after each 429 nothing goes out until the pause is over
/// (the typing indicator aside, which is best effort), and the reply still arrives once.
#[tokio::test]
async fn a_global_429_pauses_every_send_and_the_reply_still_arrives_once() {
    let h = BotHarness::start().await;
    h.greeted().await;
    h.converse("warm up", "warm").await;
    h.discord.set_global_rate_limit(0.5, 3);
    h.mock.push(Reply::text("Through the global limit."));
    let sent = h.discord.dm_from(h.owner(), "are you there?").await;
    h.wait_for_bot_message_within("the reply", Duration::from_secs(40), |m| {
        m.content.contains("Through the global limit.")
    })
    .await;
    h.wait_turn_over(sent).await;
    let replies = h
        .bot_messages()
        .into_iter()
        .filter(|m| m.content.contains("Through the global limit."))
        .count();
    assert_eq!(replies, 1);
    assert_eq!(h.discord.rate_limited_count(), 3);
    // Requests are recorded in arrival order.
    let gated: Vec<_> = h
        .discord
        .requests()
        .into_iter()
        .filter(|r| !r.path.ends_with("/typing"))
        .collect();
    for (i, refused) in gated.iter().enumerate().filter(|(_, r)| r.status == 429) {
        if let Some(next) = gated.get(i + 1) {
            let gap = next.at - refused.at;
            assert!(
                gap >= Duration::from_millis(900),
                "{} {} went out {gap:?} after a global 429",
                next.method,
                next.path
            );
        }
    }
}
