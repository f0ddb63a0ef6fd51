//! Conversations side by side in the home channel and a fork's thread (issue 41 §1), through the
//! real bot, serenity and CLI against the fake Discord's server: a line in one conversation
//! never cuts another's reply short, and a thread archived by hand ends its fork.

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::home_channel::{bot_message_in, converse_in, make_home, server};
use crate::home_channel_forks::{archived, entry_embed, fork_in};
use crate::support::{
    bot::BotHarness,
    fake_discord::{FakeConfig, FakeOverwrite},
    mock_api::Reply,
};

/// Runs `/config <key> <value>` in `channel`; the interaction's callback.
async fn config_in(h: &BotHarness, channel: u64, key: &str, value: &str) -> serde_json::Value {
    let set = h
        .discord
        .slash_in(
            h.owner(),
            channel,
            "config",
            json!([
                {"name": "key", "type": 3, "value": key},
                {"name": "value", "type": 3, "value": value},
            ]),
        )
        .await;
    h.discord.wait_for_callback(set).await
}

/// Discord's Create Private Threads permission bit.
const CREATE_PRIVATE_THREADS: u64 = 1 << 36;

/// MSG-3, CHN-6 (issue 41 §1): the channel and the fork's thread are two conversations. While
/// the fork's long reply is still streaming in its thread, a line in the channel is answered
/// in the channel at once, and the fork's reply is not cut short; the same the other way
/// round. A new line in the thread still cuts the fork's own reply short.
#[tokio::test]
#[allow(clippy::too_many_lines)] // one story: both directions, then the fork's own interrupt
async fn the_channel_and_a_forks_thread_answer_side_by_side() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let words = |tag: &str| -> Vec<String> { (0..30).map(|i| format!("{tag}{i} ")).collect() };
    let (essay, week, rewrite) = (words("essay"), words("week"), words("draft"));
    let (essay_go, week_go) = (CancellationToken::new(), CancellationToken::new());
    let (essay_reply, week_reply, rewrite_reply) = (essay.clone(), week.clone(), rewrite.clone());
    let (essay_hold, week_hold) = (essay_go.clone(), week_go.clone());
    h.mock.add_rule(move |request| {
        let prompt = request.last_user_text()?;
        let fast = |chunks: &Vec<String>| Reply::text_chunks(chunks.clone(), Duration::ZERO);
        Some(if prompt.contains("write the long essay") {
            fast(&essay_reply).held_after(5, essay_hold.clone())
        } else if prompt.contains("plan my week") {
            fast(&week_reply).held_after(5, week_hold.clone())
        } else if prompt.contains("now rewrite it") {
            Reply::text_chunks(rewrite_reply.clone(), Duration::from_millis(100))
        } else if prompt.contains("add oat milk") {
            Reply::text("Groceries noted.")
        } else if prompt.contains("which title") {
            Reply::text("The second title.")
        } else if prompt.contains("shorter, please") {
            Reply::text("Short it is.")
        } else {
            return None;
        })
    });
    let thread = fork_in(&h, home, "essay", "Fork open: essay.").await.id;

    // The fork's reply is held mid-stream; the channel's line is answered meanwhile.
    h.discord
        .channel_message(h.owner(), thread, "write the long essay")
        .await;
    bot_message_in(&h, thread, "with the essay streaming", |m| {
        m.content.contains("essay4")
    })
    .await;
    h.discord
        .channel_message(h.owner(), home, "add oat milk to groceries")
        .await;
    bot_message_in(&h, home, "with main's answer while the fork streams", |m| {
        m.content == "Groceries noted."
    })
    .await;

    // Main's reply is held mid-stream; the thread's line is answered meanwhile.
    h.discord
        .channel_message(h.owner(), home, "plan my week")
        .await;
    bot_message_in(&h, home, "with main's plan streaming", |m| {
        m.content.contains("week4")
    })
    .await;
    essay_go.cancel();
    let whole = essay.concat();
    bot_message_in(&h, thread, "with the whole essay, not cut short", |m| {
        m.content.trim() == whole.trim()
    })
    .await;
    h.discord
        .channel_message(h.owner(), thread, "which title is better?")
        .await;
    bot_message_in(
        &h,
        thread,
        "with the fork's answer while main streams",
        |m| m.content == "The second title.",
    )
    .await;
    week_go.cancel();
    let whole = week.concat();
    bot_message_in(&h, home, "with main's whole plan, not cut short", |m| {
        m.content.trim() == whole.trim()
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
    let thread = fork_in(&h, home, "errands", "Fork open: errands.").await;
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
    converse_in(&h, home, "anything else?", "Back in main.").await;
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
    let answer = config_in(&h, home, "fork_threads", "private").await;
    assert!(
        answer.to_string().contains("private"),
        "the setting is confirmed: {answer}"
    );
    let thread = fork_in(&h, home, "health", "Fork open: health.").await;
    assert_eq!(thread.kind, 12, "a private thread");
    // The owner is added before anything is posted in it.
    let members = h.discord.thread(thread.id).unwrap().members;
    assert!(members.contains(&h.owner()), "{members:?}");
    converse_in(
        &h,
        thread.id,
        "my blood test is on Friday",
        "Noted, privately.",
    )
    .await;
    h.terminate().await;
}

/// MSG-1, CHN-6 (issue 41 §1): what the owner wrote in the home channel and in the fork's
/// thread while the gateway was away is answered once each, where it was written, after a
/// note there that it is late.
#[tokio::test]
async fn what_was_written_in_the_channel_and_the_thread_while_away_is_answered_once() {
    let config = FakeConfig {
        heartbeat_interval_ms: 1_000,
        wait_timeout: Duration::from_secs(30),
        ..FakeConfig::default()
    };
    let mut h = BotHarness::start_with(config, &[]).await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "trip", "Fork open: trip.").await.id;
    h.mock.add_rule(|request| {
        let prompt = request.last_user_text()?;
        if prompt.contains("book the train") {
            Some(Reply::text("Train noted in the fork."))
        } else if prompt.contains("buy stamps") {
            Some(Reply::text("Stamps noted in main."))
        } else {
            None
        }
    });

    let identifies = h.discord.identify_count();
    h.discord.invalid_session(false).await;
    // Written while the bot has no session: Discord never delivers them as events.
    h.discord
        .channel_message_offline(h.owner(), home, "buy stamps");
    h.discord
        .channel_message_offline(h.owner(), thread, "book the train");
    h.discord
        .wait_for_gateway(|g| g.identifies.len() > identifies)
        .await;
    bot_message_in(&h, home, "with main's late answer", |m| {
        m.content == "Stamps noted in main."
    })
    .await;
    bot_message_in(&h, thread, "with the fork's late answer", |m| {
        m.content == "Train noted in the fork."
    })
    .await;

    // A later line in each place is a barrier: nothing more of the gap is answered.
    converse_in(&h, home, "anything else?", "Later in main.").await;
    converse_in(&h, thread, "and here?", "Later in the fork.").await;
    for (place, answer) in [
        (home, "Stamps noted in main."),
        (thread, "Train noted in the fork."),
    ] {
        let said = h.discord.channel_messages(place);
        let answers = said.iter().filter(|m| m.content == answer).count();
        let notes = said
            .iter()
            .filter(|m| m.content.contains("lost my connection to Discord"))
            .count();
        assert_eq!(
            (answers, notes),
            (1, 1),
            "in {place}: {said:?}\n{}",
            h.log()
        );
    }
    h.terminate().await;
}

/// CFG-4: `/config model.fork` reaches a fork that is open: its next turn runs on the new
/// model without the fork closing; main keeps its own.
#[tokio::test]
async fn model_fork_reaches_an_open_fork_at_once() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "titles", "Fork open: titles.").await.id;
    let answer = config_in(&h, home, "model.fork", "haiku").await;
    assert!(answer.to_string().contains("haiku"), "{answer}");
    converse_in(&h, thread, "which title is better?", "The second title.").await;
    let asked = h
        .mock
        .model_requests()
        .into_iter()
        .rev()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|p| p.contains("which title"))
        })
        .expect("the fork's turn");
    assert!(
        asked.model().is_some_and(|m| m.contains("haiku")),
        "{:?}",
        asked.model()
    );
    assert!(
        h.discord.thread(thread).is_some_and(|t| !t.archived),
        "the fork stays open"
    );
    h.terminate().await;
}
