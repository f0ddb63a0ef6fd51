//! Discord misbehaving (issue 16), through the real binary, the fake Discord and the real CLI
//! against the mock model: with the API behind a proxy serenity's own limiter is off, so 429s
//! reach the bot; nothing it sends may be lost to them, and it must not retry in a burst.

mod support;

use std::time::Duration;

use serde_json::json;
use support::{bot::BotHarness, mock_api::Reply};

#[tokio::test]
async fn rate_limited_sends_are_retried_in_order_and_nothing_is_lost() {
    let h = BotHarness::start().await;
    h.wait_for_bot_message("greeting", |m| m.content.contains("plate today"))
        .await;
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
    let embed = h
        .wait_for_bot_message_within("the embed", Duration::from_secs(30), |m| {
            m.embeds.iter().any(|e| e["title"] == "First")
        })
        .await;
    let text = h
        .wait_for_bot_message_within("the text", Duration::from_secs(30), |m| {
            m.content.contains("Second, after the embed.")
        })
        .await;
    assert!(embed.id < text.id, "order kept");
    let posts = h.discord.requests_matching("POST /channels/*/messages");
    let refused: Vec<_> = posts.iter().filter(|r| r.status == 429).collect();
    assert_eq!(refused.len(), 3, "{posts:#?}");
    assert!(
        h.log()
            .matches("Discord rate limit (429); sending again after a pause")
            .count()
            >= 3,
        "each 429 waited out"
    );
}
