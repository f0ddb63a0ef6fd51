//! A fork's CLI at rest, through the real parts (issue 29; REST-1…REST-3): with the idle time at
//! two seconds, an open fork's CLI (and main's beside it) is stopped; the owner's typing wakes
//! the fork's, and its next turn goes on in the same fork, with the fork's earlier turns and
//! its model; leaving it afterwards returns to main's conversation.

use std::time::Duration;

use serde_json::json;

use super::cli_rest::{asleep, awake, start};
use crate::support::mock_api::Reply;

/// REST-1, REST-2, REST-3 inside a fork.
#[tokio::test]
async fn a_forks_cli_sleeps_and_wakes_inside_the_fork() {
    let mut h = start().await;
    h.converse("remember the word heron", "Noted: heron.").await;
    h.mock.push(Reply::text("Fork ready for meal prep."));
    h.discord
        .slash(
            h.owner(),
            "fork",
            json!([{"name": "topic", "type": 3, "value": "meal prep"}]),
        )
        .await;
    let entry = h.wait_for_embed("Forked Session").await;
    h.wait_for_bot_message("the fork's first reply", |m| {
        m.content == "Fork ready for meal prep."
    })
    .await;
    h.converse("in this fork the word is lentil", "Noted: lentil.")
        .await;
    let fork_model = h
        .mock
        .main_requests()
        .pop()
        .and_then(|r| r.model().map(str::to_owned));
    asleep(&h).await;
    h.wait_for_log("the fork's CLI is asleep", Duration::from_secs(30))
        .await;

    h.discord.typing_dm(h.owner()).await;
    awake(&h, "the fork's CLI woken by the owner's typing").await;
    h.wait_for_log("waking the fork's CLI", Duration::from_secs(30))
        .await;
    h.converse("which word, here?", "Lentil.").await;
    let last = h.mock.main_requests().pop().expect("the fork's request");
    assert!(
        last.all_text().contains("in this fork the word is lentil"),
        "the woken fork lost its turns: {}",
        last.summary()
    );
    assert_eq!(last.model().map(str::to_owned), fork_model);

    asleep(&h).await;
    h.discord
        .click_button(h.owner(), h.dm(), entry.id, "act:fork_exit:_")
        .await;
    h.wait_for_embed("Fork Ended — discarded").await;
    h.converse("and in main?", "Heron.").await;
    let last = h.mock.main_requests().pop().expect("main's request");
    let text = last.all_text();
    assert!(
        text.contains("remember the word heron"),
        "{}",
        last.summary()
    );
    assert!(!text.contains("lentil"), "{}", last.summary());
    h.terminate().await;
}
