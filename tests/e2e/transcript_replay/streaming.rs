//! Transcripts about the stream itself: interrupts mid-turn, partial-message deltas, one API
//! message split over frames, and frames of kinds the driver does not know.

use ollim_bot::claude::{Message, StreamEvent, SystemMessage};
use serde_json::json;

use super::{kind_mismatch, pick, results, run};
use crate::support::replay::{Frame, load, replay_frames};

#[tokio::test]
async fn interrupt() {
    let replay = run("interrupt").await;
    let results = results(&replay);
    let reasons: Vec<_> = results
        .iter()
        .map(|r| r.terminal_reason.as_deref())
        .collect();
    assert_eq!(
        reasons,
        [
            Some("aborted_streaming"),
            Some("completed"),
            Some("aborted_tools")
        ]
    );
    assert!(results[0].was_interrupted() && results[0].is_error);
    let interrupts = replay
        .host_requests
        .iter()
        .filter(|(_, s, r)| s == "interrupt" && r.is_ok());
    assert_eq!(
        interrupts.count(),
        3,
        "idle, mid-stream, during can_use_tool"
    );
    assert_eq!(replay.unanswered, 1, "the cancelled can_use_tool");
}

#[tokio::test]
async fn partial_messages() {
    let replay = run("partial_messages").await;
    let deltas: String = pick(&replay, |m| match m {
        Message::StreamEvent(StreamEvent::TextDelta { text, .. }) => Some(text.as_str()),
        _ => None,
    })
    .concat();
    let texts = pick(&replay, |m| {
        if let Message::Assistant(a) = m {
            Some(a.text())
        } else {
            None
        }
    });
    assert!(!deltas.is_empty());
    assert_eq!(results(&replay)[0].result.as_ref(), Some(&deltas));
    assert_eq!(texts, [deltas]);
}

#[tokio::test]
async fn mcp_sdk_server() {
    let replay = run("mcp_sdk_server").await;
    assert_eq!(
        replay.answered, 7,
        "two handshakes, tools/list twice, tools/call"
    );
    let ids = pick(&replay, |m| {
        if let Message::Assistant(a) = m {
            Some(&a.message_id)
        } else {
            None
        }
    });
    assert_eq!(
        ids[0], ids[1],
        "text and tool_use of one API message: two frames"
    );
}

#[tokio::test]
async fn unknown_frames_are_delivered_as_unknown() {
    let mut frames: Vec<Frame> = load("plain_text");
    let at = frames
        .iter()
        .position(|f| f.msg["type"] == "system")
        .expect("an init");
    let extra = [
        json!({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}}),
        json!({"type": "system", "subtype": "brand_new", "session_id": "s", "uuid": "u"}),
        json!({"type": "stream_event", "event": {"type": "ping"}, "session_id": "s", "uuid": "u"}),
    ];
    for (seq, msg) in (1000..).zip(extra) {
        frames.insert(
            at + 1,
            Frame {
                seq,
                from_cli: true,
                msg,
            },
        );
    }
    let replay = replay_frames("plain_text+unknown", frames, kind_mismatch).await;
    let unknown = pick(&replay, |m| match m {
        Message::Unknown { kind, .. } => Some(kind.as_str()),
        Message::System(SystemMessage::Other { subtype, .. }) => Some(subtype.as_str()),
        Message::StreamEvent(StreamEvent::Other) => Some("stream_event/other"),
        _ => None,
    });
    assert_eq!(
        unknown,
        ["stream_event/other", "brand_new", "rate_limit_event"]
    );
    assert_eq!(results(&replay).len(), 2);
}
