//! Sessions through the driver: resuming with fork semantics into a chosen id (AGT-11), and
//! resuming an id the CLI does not know.

use std::time::{Duration, Instant};

use ollim_bot::claude::{ClaudeClient, ClaudeError, ClientOptions, ControlHandlers, SessionId};

use super::{options, transcript, turn};
use crate::support::{
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
};

/// AGT-11, protocol §4.3: resuming with fork semantics and a chosen id branches into that id,
/// sees the parent's history, and leaves the parent's transcript untouched.
#[tokio::test]
async fn fork_session_branches_into_the_chosen_id() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut parent = ClaudeClient::connect(&options(&sandbox, &mock), ControlHandlers::default())
        .await
        .unwrap();
    mock.push(Reply::text("Noted: KIWI."));
    let (_, result) = turn(&mut parent, "remember the word KIWI").await;
    let parent_id = SessionId::parse(&result.session_id).unwrap();
    assert_eq!(parent.session_id(), Some(&parent_id));
    parent.disconnect(Duration::from_secs(5)).await;
    let parent_file = transcript(&sandbox, parent_id.as_str());
    let before = std::fs::read(&parent_file).expect("the parent transcript");

    let fork_id = SessionId::new_random();
    let options = ClientOptions {
        resume: Some(parent_id.clone()),
        fork_session: true,
        session_id: Some(fork_id.clone()),
        ..options(&sandbox, &mock)
    };
    let mut fork = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .unwrap();
    assert_eq!(fork.session_id(), Some(&fork_id), "known before it speaks");
    mock.push(Reply::text("You said KIWI."));
    let (_, result) = turn(&mut fork, "what was the word?").await;
    assert_eq!(result.session_id, fork_id.as_str());
    assert_eq!(fork.session_id(), Some(&fork_id));
    let request = mock.main_requests().pop().unwrap();
    assert!(request.all_text().contains("remember the word KIWI"));
    fork.disconnect(Duration::from_secs(5)).await;

    assert_eq!(
        std::fs::read(&parent_file).unwrap(),
        before,
        "parent untouched"
    );
    assert!(transcript(&sandbox, fork_id.as_str()).exists());
}

/// Protocol §4.3: resuming an id the CLI does not know fails fast with `SessionNotFound`.
#[tokio::test]
async fn resuming_an_unknown_session_fails_fast() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let missing = SessionId::new_random();
    let options = ClientOptions {
        resume: Some(missing.clone()),
        ..options(&sandbox, &mock)
    };
    let started = Instant::now();
    let error = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .expect_err("resume must fail");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    match error {
        ClaudeError::SessionNotFound { session_id } => assert_eq!(session_id, missing.as_str()),
        other => panic!("expected SessionNotFound, got {other:?}"),
    }
    assert!(mock.model_requests().is_empty());
}
