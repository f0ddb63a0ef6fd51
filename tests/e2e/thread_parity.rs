//! What works in the DM works in the home channel and in a fork's thread (issue 41 §1), through
//! the real bot, serenity and CLI against the fake Discord's server: tool approvals by reaction
//! in each, an interrupt withdrawing only its own conversation's question, an image in the
//! thread, the thread's sleeping CLI woken by typing there, the fork's idle check-in in its
//! thread, a job's approval button in the channel and `/interrupt` in the thread.

use std::time::Duration;

use base64::Engine;
use serde_json::json;

use tokio_util::sync::CancellationToken;

use super::cli_rest::{asleep, awake, start};
use crate::home_channel::{bot_message_in, make_home, notify_in_home, server};
use crate::home_channel_forks::fork_in;
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeAttachment, FakeMessage},
    mock_api::Reply,
};
use crate::tool_policy::{approval_embed_for, write_reminder_due};

/// The approval question for a `touch notes/<name>` in `channel`.
async fn question(h: &BotHarness, channel: u64, name: &str) -> FakeMessage {
    let asked = format!("`Bash(touch notes/{name}");
    bot_message_in(h, channel, "with the approval question", |m| {
        m.content.starts_with(&asked)
    })
    .await
}

/// PRM-4, PRM-6, MSG-3 (issue 41 §1): the channel and the thread each ask for their own tool
/// approvals, answered by reaction; a new line in the thread withdraws the thread's question
/// and leaves the channel's waiting.
#[tokio::test]
async fn approvals_in_the_channel_and_the_thread_are_each_their_own() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let set = h
        .discord
        .slash_in(
            h.owner(),
            home,
            "permissions",
            json!([{"name": "mode", "type": 3, "value": "default"}]),
        )
        .await;
    h.discord.wait_for_callback(set).await;
    let thread = fork_in(&h, home, "files", "Fork open: files.").await.id;
    h.mock.add_rule(|request| {
        let prompt = request.last_user_text().unwrap_or_default();
        let touch = |name: &str| {
            let command = format!("touch notes/{name} && echo made");
            Reply::tool_use("Bash", json!({ "command": command }))
        };
        if prompt.contains("never mind") {
            return Some(Reply::text("Okay, dropped it."));
        }
        if !request.tool_results().is_empty() {
            let text = request.all_text();
            return Some(Reply::text(if text.contains("make the main file") {
                "Main file made."
            } else {
                "Fork file made."
            }));
        }
        if prompt.contains("make the fork file") {
            Some(touch("fork.txt"))
        } else if prompt.contains("make the main file") {
            Some(touch("main.txt"))
        } else {
            None
        }
    });

    h.discord
        .channel_message(h.owner(), thread, "make the fork file")
        .await;
    let in_thread = question(&h, thread, "fork.txt").await;
    h.discord
        .channel_message(h.owner(), home, "make the main file")
        .await;
    let in_channel = question(&h, home, "main.txt").await;
    // A new line in the thread: the thread's question goes, the channel's stays.
    h.discord
        .channel_message(h.owner(), thread, "never mind")
        .await;
    bot_message_in(&h, thread, "with the answer to the new line", |m| {
        m.content == "Okay, dropped it."
    })
    .await;
    let thread_says = h.discord.channel_messages(thread);
    assert!(
        thread_says.iter().all(|m| m.id != in_thread.id),
        "the thread's question was withdrawn: {thread_says:?}"
    );
    h.discord.react(h.owner(), home, in_channel.id, "✅").await;
    bot_message_in(&h, home, "with main's reply after the approval", |m| {
        m.content.ends_with("Main file made.")
    })
    .await;
    let data = h.sandbox.data_dir.clone();
    assert!(data.join("notes/main.txt").exists());
    assert!(
        !data.join("notes/fork.txt").exists(),
        "the withdrawn tool ran"
    );

    // Asked again in the thread, approved there by reaction.
    h.discord
        .channel_message(h.owner(), thread, "make the fork file after all")
        .await;
    let again = question(&h, thread, "fork.txt").await;
    h.discord.react(h.owner(), thread, again.id, "✅").await;
    bot_message_in(
        &h,
        thread,
        "with the fork's reply after the approval",
        |m| m.content.ends_with("Fork file made."),
    )
    .await;
    assert!(data.join("notes/fork.txt").exists());
    h.terminate().await;
}

/// MSG-4, REST-1, REST-2, IFK-11, CHN-6 (issue 41 §1): the thread's CLI sleeps and the owner's
/// typing in the thread wakes it; an image written there reaches the fork as an image; the
/// fork's idle check-in comes in its thread, not in the channel.
#[tokio::test]
async fn the_thread_wakes_by_typing_takes_images_and_checks_in_there() {
    let mut h = start().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "photos", "Fork open: photos.").await.id;
    asleep(&h).await;
    h.wait_for_log("the fork's CLI is asleep", Duration::from_secs(30))
        .await;

    h.discord.typing_in(h.owner(), thread).await;
    awake(&h, "the fork's CLI woken by typing in its thread").await;
    h.wait_for_log("waking the fork's CLI", Duration::from_secs(30))
        .await;
    let png = base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
        .unwrap();
    h.mock.push(Reply::text("A tiny picture."));
    h.discord
        .channel_message_with_attachments(
            h.owner(),
            thread,
            "what is this?",
            vec![FakeAttachment::new("dot.png", "image/png", png)],
        )
        .await;
    bot_message_in(&h, thread, "with the fork's answer", |m| {
        m.content == "A tiny picture."
    })
    .await;
    let request = h.mock.main_requests().pop().expect("the fork's request");
    assert!(
        request
            .body
            .to_string()
            .contains("\"media_type\":\"image/png\""),
        "{}",
        request.summary()
    );

    h.mock.add_rule(|request| {
        let prompt = request.last_user_text()?;
        prompt
            .contains("[fork-timeout]")
            .then(|| Reply::text("Still on the photos?"))
    });
    h.sandbox.advance_clock(Duration::from_secs(11 * 60));
    bot_message_in(&h, thread, "with the idle note", |m| {
        m.content.contains("fork idle")
    })
    .await;
    bot_message_in(&h, thread, "with the check-in", |m| {
        m.content == "Still on the photos?"
    })
    .await;
    let channel = h.discord.channel_messages(home);
    assert!(
        channel
            .iter()
            .all(|m| !m.content.contains("fork idle") && m.content != "Still on the photos?"),
        "the check-in went to the channel: {channel:?}"
    );
    h.terminate().await;
}

/// CHN-5, MSG-3 (issue 41 §1): with unasked messages in the home channel, a job's tool approval
/// is asked there and its button answers it there; `/interrupt` in the fork's thread stops the
/// fork's reply and leaves main's, streaming in the channel at the same time, whole.
#[tokio::test]
async fn a_button_and_interrupt_work_in_the_channel_and_the_thread() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    notify_in_home(&h, home).await;
    let tools = "allowed-tools: [\"Bash(echo held-marker *)\"]\n";
    write_reminder_due(
        &h,
        "laundry",
        "2099-01-01T09:00:00Z",
        tools,
        "Check the laundry.",
    );
    let embed = bot_message_in(&h, home, "with the tool approval", |m| {
        approval_embed_for(m, "laundry")
    })
    .await;
    let click = h
        .discord
        .click_button(
            h.owner(),
            home,
            embed.id,
            &embed.button_id("act:tools_approve:"),
        )
        .await;
    let answer = h.discord.wait_for_callback(click).await.to_string();
    assert!(answer.contains("approved"), "{answer}");

    let thread = fork_in(&h, home, "stories", "Fork open: stories.").await.id;
    let words = |tag: &str| -> Vec<String> { (0..20).map(|i| format!("{tag}{i} ")).collect() };
    let plan = words("plan");
    let (story_go, plan_go) = (CancellationToken::new(), CancellationToken::new());
    let (story_hold, plan_hold, plan_reply) = (story_go.clone(), plan_go.clone(), plan.clone());
    h.mock.add_rule(move |request| {
        let prompt = request.last_user_text()?;
        let fast = |chunks: Vec<String>| Reply::text_chunks(chunks, Duration::ZERO);
        if prompt.contains("tell me a long story") {
            Some(fast(words("story")).held_after(3, story_hold.clone()))
        } else if prompt.contains("plan the day") {
            Some(fast(plan_reply.clone()).held_after(3, plan_hold.clone()))
        } else {
            None
        }
    });
    let story = h
        .discord
        .channel_message(h.owner(), thread, "tell me a long story")
        .await;
    bot_message_in(&h, thread, "with the story streaming", |m| {
        m.content.contains("story2")
    })
    .await;
    h.discord
        .channel_message(h.owner(), home, "plan the day")
        .await;
    bot_message_in(&h, home, "with the plan streaming", |m| {
        m.content.contains("plan2")
    })
    .await;
    let interrupt = h
        .discord
        .slash_in(h.owner(), thread, "interrupt", json!([]))
        .await;
    h.discord.wait_for_callback(interrupt).await;
    // The story is never released: only the interrupt ends its turn.
    h.wait_turn_over(story).await;
    plan_go.cancel();
    let whole = plan.concat();
    bot_message_in(&h, home, "with main's whole plan", |m| {
        m.content.trim() == whole.trim()
    })
    .await;
    drop(story_go);
    h.terminate().await;
}

/// SLC-5, SLC-6, IFK-21, STR-11 (issue 41 §1): a session command is for the conversation it is
/// given in: beside a fork's thread, `/model` and `/thinking` in the channel change main and
/// leave the fork open; in the thread they are refused as in any fork. The context warning
/// follows each conversation's own model.
#[tokio::test]
async fn commands_in_the_channel_are_mains_and_in_the_thread_the_forks() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "budget", "Fork open: budget.").await.id;
    let command = |channel: u64, name: &'static str, value: &'static str| {
        let key = if name == "model" { "name" } else { "mode" };
        let discord = &h.discord;
        let owner = h.owner();
        async move {
            let sent = discord
                .slash_in(
                    owner,
                    channel,
                    name,
                    json!([{"name": key, "type": 3, "value": value}]),
                )
                .await;
            discord.wait_for_answer(sent).await
        }
    };
    let in_thread = command(thread, "model", "haiku").await;
    assert!(in_thread.contains("exit fork first"), "{in_thread}");
    let in_channel = command(home, "model", "haiku").await;
    assert!(in_channel.contains("switched to haiku"), "{in_channel}");
    let in_channel = command(home, "thinking", "off").await;
    assert!(in_channel.contains("thinking: off"), "{in_channel}");

    // The fork is still open in its thread, and main runs on the new model; each turn's
    // context warning is judged by its own conversation's model (the fork's isn't haiku).
    h.mock
        .push(Reply::text("Still here in the fork.").with_input_tokens(150_000));
    h.discord
        .channel_message(h.owner(), thread, "still with me?")
        .await;
    bot_message_in(&h, thread, "with the fork's answer", |m| {
        m.content == "Still here in the fork."
    })
    .await;
    h.mock
        .push(Reply::text("Main on haiku.").with_input_tokens(150_000));
    h.discord
        .channel_message(h.owner(), home, "which model now?")
        .await;
    bot_message_in(&h, home, "with main's answer", |m| {
        m.content == "Main on haiku."
    })
    .await;
    bot_message_in(&h, home, "with main's context warning", |m| {
        m.content == "-# *context: 75% (150k) — consider /compact*"
    })
    .await;
    let thread_says = h.discord.channel_messages(thread);
    assert!(
        thread_says.iter().all(|m| !m.content.contains("context:")),
        "the fork's context was judged by main's model: {thread_says:?}"
    );
    let main = h.mock.main_requests().pop().expect("main's request");
    assert!(
        main.model().is_some_and(|model| model.contains("haiku")),
        "{}",
        main.summary()
    );
    h.terminate().await;
}
