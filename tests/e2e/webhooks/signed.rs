//! Signed specs (`signature: hmac-sha256`): fresh signatures accepted once, replays, stale and
//! future timestamps refused.

use std::time::Duration;

use serde_json::json;

use super::{Hooks, SECRET, assert_reply, script};
use crate::support::{http::post_hook, mock_api::Reply, wait};

/// A signed spec (`signature: hmac-sha256`) with enum-only fields: nothing to screen.
const SIGNED_SPEC: &str = "---\nid: deploy-signed\nsignature: hmac-sha256\nfields:\n  type: \
    object\n  required: [env]\n  properties:\n    env: {type: string, enum: [prod, staging]}\n\
    ---\nA deploy to {env} finished.\n";

/// `X-Ollim-Signature` for `body` at `timestamp`: hex HMAC-SHA256 of `<timestamp>.<body>`,
/// computed here with the crates, not with the bot's own signing code.
fn signature(timestamp: i64, body: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    use std::fmt::Write as _;
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{body}").as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

#[tokio::test]
async fn signed_requests_are_checked_and_never_replayed() {
    let hooks = Hooks::start().await;
    std::fs::write(
        hooks.h.sandbox.data_dir.join("webhooks/deploy-signed.md"),
        SIGNED_SPEC,
    )
    .unwrap();
    script(
        &hooks.h.mock,
        Reply::text(r#"{"safe": true, "flagged": []}"#),
    );
    let body = r#"{"env": "prod"}"#;
    let send = |timestamp: i64, signature: String| {
        let port = hooks.port;
        async move {
            let timestamp = timestamp.to_string();
            let headers = [
                ("X-Ollim-Timestamp", timestamp.as_str()),
                ("X-Ollim-Signature", signature.as_str()),
            ];
            post_hook(port, "deploy-signed", Some(SECRET), &headers, body).await
        }
    };
    let now = chrono::Utc::now().timestamp();
    // Unsigned, or signed over another body: refused.
    let unsigned = post_hook(hooks.port, "deploy-signed", Some(SECRET), &[], body).await;
    assert_reply(&unsigned, 401, &json!({"error": "unauthorized"}));
    assert_eq!(
        send(now, signature(now, r#"{"env": "staging"}"#))
            .await
            .status,
        401
    );
    // Signed now: accepted; the very same request again: a replay, refused.
    let first = send(now, signature(now, body)).await;
    assert_reply(&first, 202, &json!({"status": "accepted"}));
    assert_reply(
        &send(now, signature(now, body)).await,
        401,
        &json!({"error": "unauthorized"}),
    );
    // `sha256=` prefixed, as GitHub writes it, with a fresh timestamp: accepted.
    let later = now + 1;
    let prefixed = send(later, format!("sha256={}", signature(later, body))).await;
    assert_eq!(prefixed.status, 202, "{prefixed:?}");
    // Correctly signed but more than 300 s old, or ahead: refused.
    let stale = now - 301;
    assert_eq!(send(stale, signature(stale, body)).await.status, 401);
    let ahead = now + 400;
    assert_eq!(send(ahead, signature(ahead, body)).await.status, 401);
    // Only the two accepted requests ran (two model calls each: the ping, then its answer).
    let starts = || {
        hooks
            .h
            .mock
            .model_requests()
            .into_iter()
            // A run's first request: its prompt is the newest user text (later ones answer a
            // tool or the Stop hook asking for a report).
            .filter(|r| {
                r.tool_results().is_empty()
                    && r.last_user_text()
                        .is_some_and(|text| text.contains("[webhook:deploy-signed]"))
            })
            .count()
    };
    wait::until_true(
        "both accepted runs",
        Duration::from_secs(60),
        || hooks.runs_of("deploy-signed").len() >= 4,
        || hooks.h.log(),
    )
    .await;
    // The refused requests were answered 401 before that, so none of theirs is pending; a
    // third run could only be a repeat dispatch of an accepted one, logged before it runs.
    // Each accepted request's handling ends with its run: once both runs are over, no
    // dispatch beyond the two is logged.
    hooks
        .h
        .wait_for_log_count("background run finished", 2, Duration::from_secs(60))
        .await;
    assert_eq!(
        hooks.h.log().matches("webhook request dispatched").count(),
        2,
        "{}",
        hooks.h.log()
    );
    assert_eq!(starts(), 2, "exactly the two accepted requests ran");
    assert!(
        hooks.screenings().is_empty(),
        "enum-only payloads need no screening"
    );
}
