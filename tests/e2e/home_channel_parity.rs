//! What works in the DM works in the home channel (CHN-8): the 👀 marker, a long reply split,
//! an embed with a button that reaches the agent, a reply quoting the bot's message.

use std::fmt::Write as _;

use serde_json::json;

use crate::home_channel::{bot_message_in, make_home, server};
use crate::support::{bot::BotHarness, mock_api::Reply};

/// CHN-8: 👀 on the owner's message and off again, a split reply, an embed's button and a
/// quoted reply, all in the home channel.
#[tokio::test]
async fn the_dms_ways_work_in_the_home_channel() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;

    // A long reply, split with nothing lost; 👀 put on and taken off the owner's message.
    let text = (0..450).fold(String::new(), |mut text, i| {
        let _ = write!(text, "word{i:03} ");
        text
    });
    let text = text.trim_end().to_owned();
    h.mock.push(Reply::text(text.clone()));
    let sent = h
        .discord
        .channel_message(h.owner(), home, "write a lot")
        .await;
    h.wait_turn_over(sent).await;
    let marked = h.discord.requests_matching(&format!(
        "PUT /channels/{home}/messages/{sent}/reactions/*/@me"
    ));
    assert_eq!(marked.len(), 1, "the 👀 marker");
    let parts: Vec<String> = h
        .discord
        .channel_messages(home)
        .into_iter()
        .filter(|m| m.by_bot && m.content.starts_with("word"))
        .map(|m| m.content)
        .collect();
    assert!(parts.len() >= 2, "{} parts", parts.len());
    let joined: Vec<&str> = parts.iter().flat_map(|p| p.split_whitespace()).collect();
    assert_eq!(joined, text.split_whitespace().collect::<Vec<_>>());

    // An embed with an agent button, in the channel; its click reaches the agent.
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "Today", "description": "two things",
            "buttons": [{"label": "Plan it", "action": "agent:plan my afternoon"}]}),
    ));
    h.mock.push(Reply::text("Here's your day."));
    h.discord
        .channel_message(h.owner(), home, "what's on today?")
        .await;
    let embed = bot_message_in(&h, home, "with the embed", |m| !m.embeds.is_empty()).await;
    bot_message_in(&h, home, "after the embed", |m| {
        m.content.ends_with("Here's your day.")
    })
    .await;
    h.mock.push(Reply::text("Focus block at 2."));
    let button = embed.custom_ids()[0].clone();
    h.discord
        .click_button(h.owner(), home, embed.id, &button)
        .await;
    bot_message_in(&h, home, "answering the click", |m| {
        m.content == "Focus block at 2."
    })
    .await;
    let clicked = h.mock.main_requests().pop().unwrap();
    assert!(
        clicked
            .last_user_text()
            .unwrap()
            .ends_with("[button] plan my afternoon")
    );

    // A reply to the bot's message quotes it.
    let answer = bot_message_in(&h, home, "to quote", |m| m.content == "Focus block at 2.").await;
    h.mock.push(Reply::text("Moved to 3."));
    h.discord
        .channel_reply(h.owner(), home, "make it 3", answer.id)
        .await;
    bot_message_in(&h, home, "answering the reply", |m| {
        m.content == "Moved to 3."
    })
    .await;
    let quoted = h.mock.main_requests().pop().unwrap();
    let prompt = quoted.last_user_text().unwrap().to_owned();
    assert!(prompt.contains("Focus block at 2."), "{prompt}");
    assert!(prompt.ends_with("make it 3"), "{prompt}");
    assert!(
        h.bot_messages()
            .iter()
            .all(|m| !m.content.contains("Moved to 3.") && !m.content.starts_with("word")),
        "nothing of the channel's turns went to the DM"
    );
    h.terminate().await;
}
