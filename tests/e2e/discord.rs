//! The Discord front end end to end: the real binary, the real serenity client against the
//! fake Discord, the real Claude CLI against the mock model. (MSG, STR, GRT, BOOT, SLC)

use crate::support;

use std::fmt::Write as _;
use std::time::Duration;

use support::{bot::BotHarness, mock_api::Reply};

mod content;
mod recovery;

#[tokio::test]
async fn an_owner_dm_gets_a_streamed_reply() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
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
    // The 👀 is removed after the final edit; wait for that request rather than race it.
    let eyes = h
        .discord
        .wait_for_requests(
            &format!("DELETE /channels/*/messages/{sent}/reactions/*/@me"),
            1,
        )
        .await;
    assert_eq!(eyes.len(), 1, "👀 removed after the reply");
    let status = h.terminate().await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}

#[tokio::test]
async fn strangers_get_nothing_at_all() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
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

async fn greeted() -> BotHarness {
    let h = BotHarness::start().await;
    h.greeted().await;
    h
}

/// STR-5: a reply over 2000 characters is split on natural boundaries; nothing lost or repeated.
#[tokio::test]
async fn a_long_reply_is_split_with_nothing_lost() {
    let mut h = greeted().await;
    let text = (0..450).fold(String::new(), |mut text, i| {
        let _ = write!(text, "word{i:03} ");
        text
    });
    let text = text.trim_end().to_owned();
    h.mock.push(Reply::text(text.clone()));
    let sent = h.discord.dm_from(h.owner(), "write a lot").await;
    h.wait_turn_over(sent).await;
    let parts: Vec<String> = h
        .bot_messages()
        .into_iter()
        .filter(|m| m.content.starts_with("word"))
        .map(|m| m.content)
        .collect();
    assert!(parts.len() >= 2, "{} parts", parts.len());
    assert!(parts.iter().all(|p| p.chars().count() <= 2000));
    let joined: Vec<&str> = parts.iter().flat_map(|p| p.split_whitespace()).collect();
    let expected: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(joined, expected, "every word once, in order");
    h.terminate().await;
}

/// MCP-1/2, BTN-2/3/4: an embed with buttons; clicking an `agent:` button sends its prompt back
/// to the agent as `[button] …`; the inquiry is consumed once.
#[tokio::test]
async fn an_embed_button_click_reaches_the_agent() {
    let mut h = greeted().await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        serde_json::json!({"title": "📋 Today", "description": "two things",
            "buttons": [{"label": "Plan it", "action": "agent:plan my afternoon", "style": "primary"},
                        {"label": "Close", "action": "dismiss"}]}),
    ));
    h.mock.push(Reply::text("Here's your day."));
    h.discord.dm_from(h.owner(), "what's on today?").await;
    let embed = h
        .wait_for_bot_message("the embed", |m| !m.embeds.is_empty())
        .await;
    assert_eq!(embed.embeds[0]["title"], "Today");
    let ids = embed.custom_ids();
    assert!(
        ids[0].starts_with("act:agent:") && ids[0].len() == "act:agent:".len() + 8,
        "{ids:?}"
    );
    assert_eq!(ids[1], "act:dismiss:_");
    let after = h
        .wait_for_bot_message("the text after the embed", |m| {
            m.content.ends_with("Here's your day.")
        })
        .await;
    assert_eq!(
        after.content, "-# *discord_embed*\nHere's your day.",
        "inline tool label (STR-7)"
    );

    h.mock
        .push(Reply::text("Afternoon plan: focus block at 2."));
    h.discord
        .click_button(h.owner(), h.dm(), embed.id, &ids[0])
        .await;
    h.wait_for_bot_message("the answer to the click", |m| {
        m.content.contains("focus block")
    })
    .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    assert!(
        prompt
            .last_user_text()
            .unwrap()
            .ends_with("[button] plan my afternoon")
    );

    let again = h
        .discord
        .click_button(h.owner(), h.dm(), embed.id, &ids[0])
        .await;
    let callback = h.discord.wait_for_callback(again).await;
    assert!(callback.to_string().contains("expired"), "{callback}");
    h.terminate().await;
}

/// SLC-1, SES-5: `/clear` answers ephemerally and the next DM starts a fresh conversation.
#[tokio::test]
async fn slash_clear_starts_fresh() {
    let mut h = greeted().await;
    h.mock.push(Reply::text("Noted the secret: KIWI."));
    h.discord.dm_from(h.owner(), "the secret is KIWI").await;
    h.wait_for_bot_message("first reply", |m| m.content.contains("KIWI"))
        .await;
    let clear = h
        .discord
        .slash(h.owner(), "clear", serde_json::json!([]))
        .await;
    let callback = h.discord.wait_for_callback(clear).await;
    assert!(
        callback
            .to_string()
            .contains("conversation cleared. fresh start."),
        "{callback}"
    );
    assert_eq!(callback["data"]["flags"], 64, "ephemeral");
    h.mock.push(Reply::text("What secret?"));
    h.discord.dm_from(h.owner(), "what's the secret?").await;
    h.wait_for_bot_message("reply after clear", |m| m.content == "What secret?")
        .await;
    let last = h.mock.main_requests().pop().unwrap();
    assert!(
        !last.all_text().contains("KIWI"),
        "the old conversation is gone"
    );
    h.terminate().await;
}

/// Runs `/permissions default` in the DM; the answer as the owner reads it (a loaded machine
/// can make the bot defer it).
async fn permissions_default(h: &BotHarness) -> String {
    let set = h
        .discord
        .slash(
            h.owner(),
            "permissions",
            serde_json::json!([{"name": "mode", "type": 3, "value": "default"}]),
        )
        .await;
    h.discord.wait_for_answer(set).await
}

/// PRM-4/5: in `default` mode a tool asks by reaction; 🔓 runs it and allows it for the session.
#[tokio::test]
async fn tool_approval_by_reaction() {
    let discord_config = support::fake_discord::FakeConfig::default();
    let h = BotHarness::start_with(discord_config, &[]).await;
    h.greeted().await;
    let mut h = h;
    let answer = permissions_default(&h).await;
    assert!(answer.contains("permissions: default."), "{answer}");
    h.mock.push(Reply::tool_use(
        "Bash",
        serde_json::json!({"command": "touch notes/made.txt && echo MADE"}),
    ));
    h.mock.push(Reply::text("File made."));
    h.discord.dm_from(h.owner(), "make a file").await;
    let question = h
        .wait_for_bot_message("the approval question", |m| {
            m.content.starts_with("`Bash(touch notes/made.txt")
        })
        .await;
    h.discord.react(h.owner(), h.dm(), question.id, "🔓").await;
    let reply = h
        .wait_for_bot_message("the reply after approval", |m| {
            m.content.contains("File made.")
        })
        .await;
    // STR-7: the question shows the label; the reply doesn't repeat it.
    assert!(!reply.content.contains("Bash(touch"), "{}", reply.content);
    let asked = h.discord.message(h.dm(), question.id).unwrap();
    assert!(
        asked.content.ends_with("— always allowed"),
        "{}",
        asked.content
    );
    assert!(h.sandbox.data_dir.join("notes/made.txt").exists());
    h.terminate().await;
}

/// PRM-4: when the approval question can't be posted (Discord refuses it), the call is
/// refused with `failed to send approval request` — nothing runs — and the turn goes on.
#[tokio::test]
async fn an_approval_question_that_cannot_be_posted_refuses_the_call() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    permissions_default(&h).await;
    h.mock.push(
        Reply::tool_use(
            "Bash",
            serde_json::json!({"command": "touch notes/unasked.txt && echo MADE"}),
        )
        .with_initial_delay(std::time::Duration::from_secs(2)),
    );
    h.mock.push(Reply::text("I couldn't ask you, so I didn't."));
    h.discord.dm_from(h.owner(), "make a file").await;
    // The turn's status line is up; the next post (the question) is refused.
    h.wait_for_bot_message("the status line", |m| m.content.contains("Thinking"))
        .await;
    h.discord.fail_next(
        "POST /channels/*/messages",
        403,
        serde_json::json!({"message": "Missing Permissions", "code": 50013}),
        1,
    );
    h.wait_for_bot_message("the reply after the refusal", |m| {
        m.content.contains("I couldn't ask you")
    })
    .await;
    let result = h
        .mock
        .model_requests()
        .into_iter()
        .flat_map(|r| r.tool_results())
        .next()
        .expect("the call's result");
    assert!(
        result.is_error && result.content.contains("failed to send approval request"),
        "{result:?}"
    );
    assert!(!h.sandbox.data_dir.join("notes/unasked.txt").exists());
    h.terminate().await;
}
