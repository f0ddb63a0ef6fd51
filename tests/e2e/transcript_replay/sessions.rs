//! Transcripts about sessions and results: one session across prompts, manual compaction,
//! `/clear` starting a new session id, and resuming a session that does not exist.

use ollim_bot::claude::{Message, SystemMessage};

use super::{init_sessions, pick, results, run};

#[tokio::test]
async fn plain_text() {
    let replay = run("plain_text").await;
    let results = results(&replay);
    assert_eq!(results.len(), 2);
    assert!(!results[0].session_id.is_empty());
    assert_eq!(results[0].session_id, results[1].session_id);
    assert!(results.iter().all(|r| !r.is_error && r.result.is_some()));
    assert_eq!(init_sessions(&replay), [results[0].session_id.as_str(); 2]);
    let (_, subtype, initialized) = &replay.host_requests[0];
    assert_eq!(subtype, "initialize");
    assert!(initialized.as_ref().is_ok_and(|b| b["commands"].is_array()));
}

#[tokio::test]
async fn compact_manual() {
    let replay = run("compact_manual").await;
    let boundaries = pick(&replay, |m| match m {
        Message::System(SystemMessage::CompactBoundary(b)) => {
            Some((b.trigger.as_str(), b.pre_tokens))
        }
        _ => None,
    });
    assert_eq!(boundaries, [("manual", Some(60)); 2]);
    let compactions = results(&replay).iter().filter(|r| r.num_turns == 0).count();
    assert_eq!(compactions, 2, "each /compact ends with its own result");
    assert_eq!(replay.answered, 2, "the two PreCompact hooks");
}

#[tokio::test]
async fn clear() {
    let replay = run("clear").await;
    let (sessions, results) = (init_sessions(&replay), results(&replay));
    let empty: Vec<_> = results
        .iter()
        .map(|r| r.result.as_deref() == Some(""))
        .collect();
    assert_eq!(
        empty,
        [false, true, false],
        "only /clear ends with an empty result"
    );
    assert_ne!(
        sessions[1], sessions[0],
        "/clear reports a new id in system/init"
    );
    assert_eq!(sessions[2], sessions[1], "and keeps it");
    assert_eq!(
        (results[1].session_id.as_str(), results[1].num_turns),
        (sessions[1], 0)
    );
    let models = pick(&replay, |m| {
        if let Message::Assistant(a) = m {
            Some(a.model.as_str())
        } else {
            None
        }
    });
    assert_eq!(models.iter().filter(|m| **m == "<synthetic>").count(), 1);
}

#[tokio::test]
async fn resume_e_missing() {
    let replay = run("resume_e_missing").await;
    let (_, subtype, outcome) = &replay.host_requests[0];
    assert_eq!(
        (subtype.as_str(), outcome.as_ref().err()),
        ("initialize", Some(&"closed".into()))
    );
    let result = results(&replay)[0];
    assert!(result.is_error && result.errors[0].contains("No conversation"));
}
