//! Transcripts where something fails: API errors and retries, a cancelled hook, handlers
//! answering `error`, and host requests the CLI refuses.

use ollim_bot::claude::{Message, SystemMessage};

use super::{pick, results, run};

#[tokio::test]
async fn api_error() {
    let replay = run("api_error").await;
    let results = results(&replay);
    let failed: Vec<_> = results.iter().filter(|r| r.is_error).collect();
    assert_eq!(failed[0].api_error_status, Some(500));
    assert_eq!(failed[0].subtype, "success", "success + is_error");
    assert_eq!(failed[1].api_error_status, Some(401));
    assert!(!results[2].is_error, "the next prompt recovers");
    let retries = pick(&replay, |m| match m {
        Message::System(SystemMessage::ApiRetry { error_status, .. }) => Some(*error_status),
        _ => None,
    });
    assert_eq!(retries, [Some(500), Some(401)]);
    let errors = pick(&replay, |m| {
        if let Message::Assistant(a) = m {
            a.error.as_deref()
        } else {
            None
        }
    });
    assert_eq!(errors, ["server_error", "authentication_failed"]);
}

#[tokio::test]
async fn hook_timeout() {
    let replay = run("hook_timeout").await;
    assert_eq!(replay.unanswered, 1, "the hook the CLI cancelled");
    assert!(!results(&replay)[0].is_error);
}

#[tokio::test]
async fn error_responses() {
    // A panicking permission handler and hook both become `subtype: error` answers.
    assert_eq!(run("error_responses").await.answered, 9);
}

#[tokio::test]
async fn set_model_and_mode() {
    let replay = run("set_model_and_mode").await;
    assert_eq!(replay.host_requests.len(), 11);
    let failed: Vec<_> = (replay.host_requests.iter())
        .filter_map(|(_, subtype, outcome)| Some((subtype.as_str(), outcome.as_ref().err()?)))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed[0].0 == "set_permission_mode" && failed[0].1.contains("bypassPermissions"));
    assert!(
        failed[1]
            .1
            .contains("Unsupported control request subtype: no_such_subtype")
    );
}
