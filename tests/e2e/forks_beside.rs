//! Several forks at once, each in a thread of the home channel (issue 41 §1), through the real
//! bot, serenity and CLI against the fake Discord's server: each thread is a conversation of its
//! own, three at most, and the DM keeps one fork at a time.

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::climb::{bash_result_in_turn, marker_reminder_now};
use crate::home_channel::{bot_message_in, make_home, server};
use crate::home_channel_forks::{archived, entry_embed, fork_in, save_fork};
use crate::support::{bot::BotHarness, cli::CliSandbox, mock_api::Reply};

/// Issue 41 §1 (IFK-1, IFK-2, CHN-6, CHN-7, MSG-3, IFK-10): three forks open at once, each in its thread.
/// While one's long reply streams, the two others answer in theirs, and a line in one thread
/// interrupts only that fork. A fourth `/fork` is told why not and where the three are; one in
/// the DM, where there are no threads, is told it needs one. Saving one fork while the others
/// are open says so, and keeps it for their Save; the others go on in their threads.
#[tokio::test]
#[allow(clippy::too_many_lines)] // one story: open three, talk in each, refuse, save one
async fn three_forks_answer_in_their_threads_at_once_and_a_fourth_is_told_why_not() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let taxes_words: Vec<String> = (0..30).map(|i| format!("taxes{i} ")).collect();
    let garden_words: Vec<String> = (0..30).map(|i| format!("garden{i} ")).collect();
    let taxes_go = CancellationToken::new();
    let (taxes_reply, taxes_hold) = (taxes_words.clone(), taxes_go.clone());
    let garden_reply = garden_words.clone();
    h.mock.add_rule(move |request| {
        let prompt = request.last_user_text()?;
        Some(if prompt.contains("the long taxes answer") {
            Reply::text_chunks(taxes_reply.clone(), Duration::ZERO)
                .held_after(5, taxes_hold.clone())
        } else if prompt.contains("which train?") {
            Reply::text("Trip: the 9:12 train.")
        } else if prompt.contains("plan the beds") {
            Reply::text_chunks(garden_reply.clone(), Duration::from_millis(100))
        } else if prompt.contains("just the roses") {
            Reply::text("Roses only.")
        } else {
            return None;
        })
    });
    let taxes = fork_in(&h, home, "taxes", "Fork open: taxes.").await.id;
    let trip = fork_in(&h, home, "trip", "Fork open: trip.").await.id;
    let garden = fork_in(&h, home, "garden", "Fork open: garden.").await.id;
    assert!(taxes != trip && trip != garden && taxes != garden);

    // A fourth is told why not, and where the three are.
    let fourth = h
        .discord
        .slash_in(
            h.owner(),
            home,
            "fork",
            json!([{"name": "topic", "type": 3, "value": "music"}]),
        )
        .await;
    let told = h.discord.wait_for_callback(fourth).await.to_string();
    assert!(told.contains("3 forks are open already"), "{told}");
    for thread in [taxes, trip, garden] {
        assert!(told.contains(&format!("<#{thread}>")), "{told}");
    }
    assert_eq!(h.discord.threads_of(home).len(), 3, "nothing else opened");

    // The taxes reply is held mid-stream; the trip and the garden answer meanwhile.
    h.discord
        .channel_message(h.owner(), taxes, "the long taxes answer, please")
        .await;
    bot_message_in(&h, taxes, "with the taxes reply streaming", |m| {
        m.content.contains("taxes4")
    })
    .await;
    h.discord
        .channel_message(h.owner(), trip, "which train?")
        .await;
    bot_message_in(&h, trip, "with the trip's answer", |m| {
        m.content == "Trip: the 9:12 train."
    })
    .await;
    // A line in the garden's thread cuts the garden's own reply short, and no other.
    h.discord
        .channel_message(h.owner(), garden, "plan the beds")
        .await;
    bot_message_in(&h, garden, "with the garden's plan streaming", |m| {
        m.content.contains("garden2")
    })
    .await;
    h.discord
        .channel_message(h.owner(), garden, "just the roses")
        .await;
    bot_message_in(&h, garden, "with the garden's second answer", |m| {
        m.content == "Roses only."
    })
    .await;
    let plans: Vec<String> = h
        .discord
        .channel_messages(garden)
        .into_iter()
        .filter(|m| m.content.contains("garden0"))
        .map(|m| m.content)
        .collect();
    assert!(
        plans.iter().all(|text| !text.contains("garden29")),
        "the garden's plan was cut short: {plans:?}"
    );
    taxes_go.cancel();
    let whole = taxes_words.concat();
    bot_message_in(
        &h,
        taxes,
        "with the whole taxes reply, not cut short",
        |m| m.content.trim() == whole.trim(),
    )
    .await;
    // Each thread's turn ran in its own fork's session.
    let trip_turn = h
        .mock
        .requests()
        .into_iter()
        .rfind(|r| {
            r.last_user_text()
                .is_some_and(|t| t.contains("which train?"))
        })
        .unwrap();
    let seen = trip_turn.all_text();
    assert!(!seen.contains("the long taxes answer"), "{seen}");
    assert!(!seen.contains("plan the beds"), "{seen}");

    // Saving the trip while two forks are open: the outcome says what becomes of them.
    let entry = entry_embed(&h, trip).await;
    let outcome = save_fork(&h, (home, trip), &entry).await;
    assert!(
        outcome.contains("The 2 other open forks began before this one was saved"),
        "{outcome}"
    );
    // In the DM a fork would have no thread: it is told it needs one.
    let in_dm = h
        .discord
        .slash(
            h.owner(),
            "fork",
            json!([{"name": "topic", "type": 3, "value": "dm"}]),
        )
        .await;
    let told = h.discord.wait_for_callback(in_dm).await.to_string();
    assert!(told.contains("needs a thread of its own"), "{told}");
    assert_eq!(
        h.discord.threads_of(home).len(),
        3,
        "no fork opened in the DM"
    );
    // The others go on in their threads; a fork can open again.
    h.mock.push(Reply::text("Still on taxes."));
    h.discord
        .channel_message(h.owner(), taxes, "anything else?")
        .await;
    bot_message_in(&h, taxes, "with the taxes fork still answering", |m| {
        m.content == "Still on taxes."
    })
    .await;
    fork_in(&h, home, "music", "Fork open: music.").await;
    h.terminate().await;
}

/// Issue 41 §1 (CHN-7): with a fork saved meanwhile, another fork's Save keeps what the saved
/// one said as a note for the conversation it replaces.
#[tokio::test]
async fn a_save_after_another_keeps_what_the_first_said() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let taxes = fork_in(&h, home, "taxes", "Fork open: taxes.").await.id;
    let trip = fork_in(&h, home, "trip", "Fork open: trip.").await.id;
    h.mock.push(Reply::text("The desk counts."));
    h.discord
        .channel_message(h.owner(), taxes, "can I deduct the desk?")
        .await;
    bot_message_in(&h, taxes, "with the taxes answer", |m| {
        m.content == "The desk counts."
    })
    .await;
    for (thread, what) in [
        (taxes, "the taxes fork's outcome"),
        (trip, "the trip's outcome"),
    ] {
        let entry = entry_embed(&h, thread).await;
        let save = entry.button_id("act:fork_save:");
        h.discord
            .click_button(h.owner(), thread, entry.id, &save)
            .await;
        archived(&h, thread).await;
        bot_message_in(&h, home, &format!("with {what}"), |m| {
            m.embeds.first().is_some_and(|e| {
                let text = e.to_string();
                text.contains("context saved") && (thread == taxes || text.contains("kept as"))
            })
        })
        .await;
    }
    // The conversation now is the trip's, and it hears what the taxes fork said.
    h.mock.push(Reply::text("Noted both."));
    h.discord
        .channel_message(h.owner(), home, "where are we?")
        .await;
    bot_message_in(&h, home, "with main's answer", |m| {
        m.content == "Noted both."
    })
    .await;
    let last = h.mock.main_requests().pop().unwrap().all_text();
    assert!(last.contains("can I deduct the desk?"), "{last}");
    assert!(
        last.contains("in a fork saved as the main conversation"),
        "{last}"
    );
    h.terminate().await;
}

/// Issue 23 §4, issue 41 §1: a tool the owner granted a foreground job is that job's turn's
/// only, in the conversation it runs on. While the job's turn runs in main, the agent in a fork
/// beside it, told to run the same command in its thread, can't: nothing runs.
#[tokio::test]
async fn a_jobs_granted_tool_never_reaches_a_fork_beside_it() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let thread = fork_in(&h, home, "side", "Fork open: side.").await.id;
    let job_go = CancellationToken::new();
    let hold = job_go.clone();
    h.mock.add_rule(move |request| {
        let prompt = request.user_prompts().last()?.to_string();
        let first = request.tool_results().is_empty();
        let bash = |command: &str| Reply::tool_use("Bash", json!({"command": command}));
        if prompt.contains("Run the marker") {
            return Some(if first {
                bash("echo fg-marker job")
            } else {
                let words: Vec<String> = (0..10).map(|i| format!("job{i} ")).collect();
                Reply::text_chunks(words, Duration::ZERO).held_after(2, hold.clone())
            });
        }
        if prompt.contains("try the marker") {
            return Some(if first {
                bash("echo fg-marker fork")
            } else {
                Reply::text("fork done")
            });
        }
        None
    });
    marker_reminder_now(&h).await;
    let (result, is_error) = bash_result_in_turn(&h, "Run the marker").await;
    assert!(!is_error && result.contains("fg-marker job"), "{result}");
    // The job's turn is still streaming, its grant alive: the fork is told to use it.
    h.discord
        .channel_message(h.owner(), thread, "try the marker now")
        .await;
    let (result, is_error) = bash_result_in_turn(&h, "try the marker").await;
    assert!(
        is_error && !result.contains("fg-marker fork"),
        "the fork used the job's tool: {result}"
    );
    bot_message_in(&h, thread, "with the fork's answer", |m| {
        m.content.ends_with("fork done")
    })
    .await;
    job_go.cancel();
    h.terminate().await;
}

/// IFK-11, CHN-6 (issue 41 §1): each fork checks in in its own time. While one fork's long
/// reply streams, another, idle past its timeout, checks in in its thread without waiting for
/// the first; the first's reply is not cut short.
#[tokio::test]
async fn an_idle_fork_checks_in_while_another_fork_answers() {
    let mut h = crate::cli_rest::start().await;
    let home = server(&h, 0).private;
    make_home(&h, home).await;
    let busy = fork_in(&h, home, "essay", "Fork open: essay.").await.id;
    let idle = fork_in(&h, home, "taxes", "Fork open: taxes.").await.id;
    let go = CancellationToken::new();
    let words: Vec<String> = (0..30).map(|i| format!("essay{i} ")).collect();
    let (reply, hold) = (words.clone(), go.clone());
    h.mock.add_rule(move |request| {
        let prompt = request.last_user_text()?;
        if prompt.contains("write the long essay") {
            let essay = Reply::text_chunks(reply.clone(), Duration::ZERO);
            return Some(essay.held_after(5, hold.clone()));
        }
        if !prompt.contains("[fork-timeout]") {
            return None;
        }
        Some(if request.all_text().contains("Fork open: taxes.") {
            Reply::text("Still on the taxes?")
        } else {
            Reply::text("Still on the essay?")
        })
    });
    h.discord
        .channel_message(h.owner(), busy, "write the long essay")
        .await;
    bot_message_in(&h, busy, "with the essay streaming", |m| {
        m.content.contains("essay4")
    })
    .await;
    h.sandbox.advance_clock(Duration::from_secs(11 * 60));
    bot_message_in(&h, idle, "with the idle note", |m| {
        m.content.contains("fork idle")
    })
    .await;
    bot_message_in(&h, idle, "with the check-in", |m| {
        m.content == "Still on the taxes?"
    })
    .await;
    go.cancel();
    let whole = words.concat();
    bot_message_in(&h, busy, "with the whole essay, not cut short", |m| {
        m.content.trim() == whole.trim()
    })
    .await;
    h.terminate().await;
}
