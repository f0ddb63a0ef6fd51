//! The CLI process's life: a missing executable names the fix, and disconnecting reaps the
//! process (SES-18).

use std::time::{Duration, Instant};

use ollim_bot::claude::{ClaudeClient, ClaudeError, ClientOptions, ControlHandlers};

use super::{options, process_exists, turn};
use crate::support::{
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
};

/// A missing executable is reported with what to set or install.
#[tokio::test]
async fn a_missing_cli_names_the_fix() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let options = ClientOptions {
        cli_path: sandbox.home.path().join("no-such-claude"),
        ..options(&sandbox, &mock)
    };
    let error = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .expect_err("no CLI");
    assert!(
        matches!(error, ClaudeError::CliNotFound { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("OLLIM_CLAUDE_CLI"), "{message}");
    assert!(message.contains("@anthropic-ai/claude-code"), "{message}");
}

/// SES-18: disconnecting ends and reaps the CLI with a success status.
#[tokio::test]
async fn disconnect_leaves_no_process() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut client = ClaudeClient::connect(&options(&sandbox, &mock), ControlHandlers::default())
        .await
        .unwrap();
    let pid = client.pid().expect("a pid");
    assert!(process_exists(pid));
    mock.push(Reply::text("Hi."));
    let (_, result) = turn(&mut client, "hi").await;
    assert_eq!(result.result.as_deref(), Some("Hi."));
    let started = Instant::now();
    let status = client.disconnect(Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert!(!process_exists(pid), "/proc/{pid} still exists");
}
