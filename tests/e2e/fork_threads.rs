//! Conversations side by side in the home channel and a fork's thread (issue 41 §1), through the
//! real bot, serenity and CLI against the fake Discord's server: a line in one conversation
//! never cuts another's reply short, and a thread archived by hand ends its fork.

use std::time::Duration;

use serde_json::json;

use crate::home_channel::{bot_message_in, make_home, server};
use crate::home_channel_forks::{archived, entry_embed, the_thread};
use crate::support::{bot::BotHarness, fake_discord::FakeOverwrite, mock_api::Reply};

/// Discord's Create Private Threads permission bit.
const CREATE_PRIVATE_THREADS: u64 = 1 << 36;

/// MSG-3, CHN-6 (issue 41 §1): while the fork's long reply streams in its thread, the owner
/// writes in the channel; the fork's reply is not cut short, and the channel's line is
/// answered in the channel. A new line in the thread still cuts the fork's own reply short.
#[tokio::test]
async fn a_line_in_the_channel_does_not_cut_the_forks_reply_short() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let words = |tag: &str| -> Vec<String> { (0..30).map(|i| format!("{tag}{i} ")).collect() };
    let (essay, rewrite) = (words("essay"), words("draft"));
    let (essay_reply, rewrite_reply) = (essay.clone(), rewrite.clone());
    h.mock.add_rule(move |request| {
        let prompt = request.last_user_text()?;
        let chunks = if prompt.contains("write the long essay") {
            essay_reply.clone()
        } else if prompt.contains("now rewrite it") {
            rewrite_reply.clone()
        } else if prompt.contains("add oat milk") {
            return Some(Reply::text("Groceries noted."));
        } else if prompt.contains("shorter, please") {
            return Some(Reply::text("Short it is."));
        } else {
            return None;
        };
        Some(Reply::text_chunks(chunks, Duration::from_millis(100)))
    });
    h.mock.push(Reply::text("Fork open: essay."));
    h.discord
        .slash_in(
            h.owner(),
            home,
            "fork",
            json!([{"name": "topic", "type": 3, "value": "essay"}]),
        )
        .await;
    let thread = the_thread(&h, home).await.id;
    bot_message_in(&h, thread, "with the fork's first reply", |m| {
        m.content == "Fork open: essay."
    })
    .await;

    h.discord
        .channel_message(h.owner(), thread, "write the long essay")
        .await;
    bot_message_in(&h, thread, "with the essay streaming", |m| {
        m.content.contains("essay2")
    })
    .await;
    h.discord
        .channel_message(h.owner(), home, "add oat milk to groceries")
        .await;
    let whole = essay.concat();
    bot_message_in(&h, thread, "with the whole essay", |m| {
        m.content.trim() == whole.trim()
    })
    .await;
    bot_message_in(&h, home, "with main's answer", |m| {
        m.content == "Groceries noted."
    })
    .await;

    // A line in the thread is addressed to the fork: it cuts the fork's reply short.
    h.discord
        .channel_message(h.owner(), thread, "now rewrite it")
        .await;
    bot_message_in(&h, thread, "with the rewrite streaming", |m| {
        m.content.contains("draft2")
    })
    .await;
    h.discord
        .channel_message(h.owner(), thread, "shorter, please")
        .await;
    bot_message_in(&h, thread, "with the answer to the second line", |m| {
        m.content == "Short it is."
    })
    .await;
    let rewrites: Vec<String> = h
        .discord
        .channel_messages(thread)
        .into_iter()
        .filter(|m| m.content.contains("draft0"))
        .map(|m| m.content)
        .collect();
    assert!(
        rewrites.iter().all(|text| !text.contains("draft29")),
        "the rewrite was cut short: {rewrites:?}"
    );
    h.terminate().await;
}

/// CHN-7 (issue 41 §1): the owner archives the fork's thread by hand; the fork ends as Exit
/// would, the outcome is posted in the channel, and the channel talks to main again.
#[tokio::test]
async fn a_thread_archived_by_hand_ends_its_fork() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    h.mock.push(Reply::text("Fork open: errands."));
    h.discord
        .slash_in(
            h.owner(),
            home,
            "fork",
            json!([{"name": "topic", "type": 3, "value": "errands"}]),
        )
        .await;
    let thread = the_thread(&h, home).await;
    entry_embed(&h, thread.id).await;
    h.discord.archive_thread_as(h.owner(), thread.id).await;
    let outcome = bot_message_in(&h, home, "with the fork's outcome", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e.to_string().contains("Fork Ended"))
    })
    .await;
    assert!(
        !outcome.embeds[0].to_string().contains("context saved"),
        "an archive exits, it doesn't save: {:?}",
        outcome.embeds
    );
    archived(&h, thread.id).await;
    h.mock.push(Reply::text("Back in main."));
    h.discord
        .channel_message(h.owner(), home, "anything else?")
        .await;
    bot_message_in(&h, home, "from main", |m| m.content == "Back in main.").await;
    let last = h.mock.main_requests().pop().unwrap();
    assert!(
        !last.all_text().contains("[fork-started]"),
        "main's turn runs in main's session"
    );
    h.terminate().await;
}

/// Issue 41 §1: with `/config fork_threads private`, a fork opened in the home channel gets a
/// private thread with the owner added to it, and talks there as in a public one.
#[tokio::test]
async fn a_private_fork_thread_has_the_owner_in_it() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    // The server's default roles let the bot make public threads only: the owner grants it
    // private ones in the channel.
    let bot = h.discord.config().bot_user_id;
    let mut overwrites = h.discord.overwrites(home).unwrap();
    overwrites.push(FakeOverwrite::member(bot, CREATE_PRIVATE_THREADS, 0));
    h.discord.set_overwrites(home, overwrites).await;
    let set = h
        .discord
        .slash_in(
            h.owner(),
            home,
            "config",
            json!([
                {"name": "key", "type": 3, "value": "fork_threads"},
                {"name": "value", "type": 3, "value": "private"},
            ]),
        )
        .await;
    let answer = h.discord.wait_for_callback(set).await;
    assert!(
        answer.to_string().contains("private"),
        "the setting is confirmed: {answer}"
    );
    h.mock.push(Reply::text("Fork open: health."));
    h.discord
        .slash_in(
            h.owner(),
            home,
            "fork",
            json!([{"name": "topic", "type": 3, "value": "health"}]),
        )
        .await;
    let thread = the_thread(&h, home).await;
    assert_eq!(thread.kind, 12, "a private thread");
    bot_message_in(&h, thread.id, "with the fork's first reply", |m| {
        m.content == "Fork open: health."
    })
    .await;
    // The owner is added before anything is posted in it.
    let members = h.discord.thread(thread.id).unwrap().members;
    assert!(members.contains(&h.owner()), "{members:?}");
    h.mock.push(Reply::text("Noted, privately."));
    h.discord
        .channel_message(h.owner(), thread.id, "my blood test is on Friday")
        .await;
    bot_message_in(&h, thread.id, "with the fork's answer", |m| {
        m.content == "Noted, privately."
    })
    .await;
    h.terminate().await;
}
