//! Forks as threads of the home channel (CHN-6, CHN-7), through the real bot, serenity and CLI
//! against the fake Discord's server.

use std::time::Duration;

use serde_json::json;

use crate::home_channel::{bot_message_in, converse_in, make_home, notify_in_home, server};
use crate::support::{
    bot::BotHarness,
    fake_discord::{FakeMessage, FakeThread},
    mock_api::Reply,
    wait,
};

/// Waits for the one thread of `channel`.
pub(crate) async fn the_thread(h: &BotHarness, channel: u64) -> FakeThread {
    wait::eventually(
        "a thread in the home channel",
        Duration::from_secs(20),
        || h.discord.threads_of(channel).into_iter().next(),
        || h.log(),
    )
    .await
}

/// `/fork <topic>` in `home`, answered with `first` in its new thread. Returns the thread.
pub(crate) async fn fork_in(h: &BotHarness, home: u64, topic: &str, first: &str) -> FakeThread {
    h.mock.push(Reply::text(first));
    h.discord
        .slash_in(
            h.owner(),
            home,
            "fork",
            json!([{"name": "topic", "type": 3, "value": topic}]),
        )
        .await;
    let thread = wait::eventually(
        "the fork's thread in the home channel",
        Duration::from_secs(20),
        || {
            let threads = h.discord.threads_of(home).into_iter();
            threads.rev().find(|t| t.name == topic)
        },
        || h.log(),
    )
    .await;
    bot_message_in(h, thread.id, "with the fork's first reply", |m| {
        m.content == first
    })
    .await;
    thread
}

/// Clicks Save on the fork's entry embed `entry` in `thread`; returns the text of the
/// outcome posted in `home`, once the thread is archived.
pub(crate) async fn save_fork(
    h: &BotHarness,
    (home, thread): (u64, u64),
    entry: &FakeMessage,
) -> String {
    let save = entry.button_id("act:fork_save:");
    h.discord
        .click_button(h.owner(), thread, entry.id, &save)
        .await;
    let outcome = bot_message_in(h, home, "with the fork's outcome", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e.to_string().contains("context saved"))
    })
    .await;
    archived(h, thread).await;
    outcome.embeds[0].to_string()
}

/// Waits until `thread` is archived.
pub(crate) async fn archived(h: &BotHarness, thread: u64) {
    wait::until_true(
        "the thread archived",
        Duration::from_secs(10),
        || h.discord.thread(thread).is_some_and(|t| t.archived),
        || h.log(),
    )
    .await;
}

/// The fork's entry embed with its exit buttons, in the thread.
pub(crate) async fn entry_embed(h: &BotHarness, thread: u64) -> FakeMessage {
    bot_message_in(h, thread, "with the fork's entry embed", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e["title"] == "Forked Session")
    })
    .await
}

/// CHN-6, CHN-7: `/fork` in the home channel opens a thread named after its topic; the thread
/// talks to the fork and the channel to main; Save archives the thread, posts the outcome in
/// the channel and keeps what main said meanwhile.
#[tokio::test]
async fn slash_fork_opens_a_thread_beside_main_and_save_keeps_both() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let place = server(&h, 0);
    let home = place.private;
    make_home(&h, home).await;

    let thread = fork_in(&h, home, "taxes", "Fork open: taxes.").await;
    assert_eq!(thread.name, "taxes");
    let entry = entry_embed(&h, thread.id).await;

    // The thread talks to the fork: its answer lands in the thread.
    converse_in(
        &h,
        thread.id,
        "can I deduct the desk?",
        "Yes, the desk counts.",
    )
    .await;

    // The channel talks to main, beside the fork.
    converse_in(&h, home, "add oat milk to groceries", "Groceries noted.").await;
    let main_turn = h.mock.main_requests().pop().unwrap();
    assert!(
        !main_turn.all_text().contains("can I deduct the desk?"),
        "main must not see the fork's turns"
    );

    let outcome = save_fork(&h, (home, thread.id), &entry).await;
    assert!(
        outcome.contains("the exchange you had meanwhile outside this fork is kept"),
        "{outcome}"
    );

    // The saved conversation hears what main said meanwhile.
    converse_in(&h, home, "what did we settle?", "Both noted.").await;
    let next = h.mock.main_requests().pop().unwrap();
    let text = next.all_text();
    assert!(
        text.contains("can I deduct the desk?"),
        "the fork's turns are kept"
    );
    assert!(
        text.contains("add oat milk to groceries"),
        "main's turn is kept: {text}"
    );
    h.terminate().await;
}

/// CHN-6, CHN-7: the agent's `enter_fork` from a channel turn opens a thread; Exit archives
/// it and says so in the channel; a DM fork still runs in the DM.
#[tokio::test]
async fn the_agents_fork_from_the_channel_opens_a_thread_and_exit_closes_it() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let place = server(&h, 0);
    let home = place.private;
    make_home(&h, home).await;
    h.mock.add_rule(|request| {
        let started = request
            .last_user_text()
            .is_some_and(|text| text.contains("[fork-started]"));
        // The CLI may carry the cut-short turn's tool result into the next prompt's message,
        // so only a continuation without the owner's text is the one after `enter_fork`.
        let entering = request
            .tool_results()
            .iter()
            .any(|r| r.content.starts_with("Entering fork"))
            && request
                .last_user_texts()
                .iter()
                .all(|t| t.starts_with("<system-reminder>"));
        if started {
            Some(Reply::text("Fork open: trip plans."))
        } else if entering {
            Some(Reply::text("cut short"))
        } else {
            None
        }
    });
    h.mock.push(Reply::tool_use(
        "mcp__discord__enter_fork",
        json!({"topic": "trip plans"}),
    ));
    h.discord
        .channel_message(h.owner(), home, "let's plan the trip")
        .await;
    let thread = the_thread(&h, home).await;
    assert_eq!(thread.name, "trip plans");
    let entry = entry_embed(&h, thread.id).await;
    bot_message_in(&h, thread.id, "with the fork's first reply", |m| {
        m.content == "Fork open: trip plans."
    })
    .await;
    let exit = entry.button_id("act:fork_exit:");
    h.discord
        .click_button(h.owner(), thread.id, entry.id, &exit)
        .await;
    bot_message_in(&h, home, "with the exit embed", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e.to_string().contains("Fork"))
    })
    .await;
    archived(&h, thread.id).await;
    // After the fork, the thread reaches nothing; the channel is main again.
    converse_in(&h, home, "anything else?", "Back in main.").await;
    h.terminate().await;
}

/// CHN-6, CHN-7: with pings in the home channel, a reply to a background run's ping resumes
/// that run in a thread named after what the job is (its first line here, issue 41); Report from the thread queues the summary for main,
/// posts the outcome in the channel and archives the thread.
#[tokio::test]
async fn a_reply_to_a_background_ping_opens_a_thread_and_report_closes_it() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    notify_in_home(&h, home).await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        if prompt.contains("[system] The owner clicked Report") {
            return Some(Reply::text("Stretched for ten minutes."));
        }
        if prompt.contains("make it a long one") {
            return Some(Reply::text("Resumed: a long stretch it is."));
        }
        if prompt.contains("[reminder-bg:") {
            return Some(if request.tool_results().is_empty() {
                Reply::tool_use(
                    "mcp__discord__ping_user",
                    json!({"message": "Time to stretch!"}),
                )
            } else {
                Reply::text("pinged")
            });
        }
        None
    });
    // A background run keeps quiet while the owner is mid-conversation (the main session's
    // start-up counts): finish an exchange first.
    h.converse("hi", "Hi!").await;
    h.add_reminder_now("stretch").await;
    let ping = bot_message_in(&h, home, "with the ping", |m| {
        m.content.contains("Time to stretch!")
    })
    .await;
    // The run's messages are recorded for replies when it ends.
    h.wait_for_log("background run finished", Duration::from_secs(20))
        .await;
    h.discord
        .channel_reply(h.owner(), home, "make it a long one", ping.id)
        .await;
    let thread = the_thread(&h, home).await;
    assert_eq!(
        thread.name, "stretch",
        "named after what the job is, not its id"
    );
    let entry = bot_message_in(&h, thread.id, "with the resumed run's embed", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e["title"] == "Resumed Background Session")
    })
    .await;
    bot_message_in(&h, thread.id, "with the resumed run's answer", |m| {
        m.content == "Resumed: a long stretch it is."
    })
    .await;
    let report = entry.button_id("act:fork_report:");
    h.discord
        .click_button(h.owner(), thread.id, entry.id, &report)
        .await;
    bot_message_in(&h, home, "with the report's outcome", |m| {
        m.embeds
            .first()
            .is_some_and(|e| e["title"] == "Fork Ended — summary queued")
    })
    .await;
    archived(&h, thread.id).await;
    h.terminate().await;
}
