//! Replays every recorded CLI transcript through the driver (`StreamConnection`) and checks
//! what it does with each line; see `support/replay.rs` for the generic checks:
//!
//! - every CLI `control_request` gets exactly one `control_response` with its `request_id` and
//!   the recorded success/error subtype and body (none when the CLI cancelled it first);
//! - host requests made through `ClientHandle` write the recorded subtype and fields, and the
//!   CLI's recorded `control_response` (under the driver's id) resolves them: success → `Ok`,
//!   error → `Err`; a request the CLI never answers fails as `Closed` at end of stream;
//! - every other stdout frame comes out of `recv()` as the matching typed message, in order,
//!   none lost and none extra (checked field by field below, in `kind_mismatch`).
//!
//! On top of that, the tests below check typed facts particular to one transcript.

use crate::support;

use std::path::Path;

use ollim_bot::claude::{
    ContentBlock, Message, ResultMessage, StreamEvent, SystemMessage, UserMessage,
};
use serde_json::{Value, json};
use support::replay::{Frame, Replay, load, replay, replay_frames, transcript_dir};

fn kind_mismatch(frame: &Value, message: &Message) -> Option<String> {
    let same = match (text(&frame["type"]), message) {
        ("system", Message::System(system)) => system_matches(frame, system),
        ("assistant", Message::Assistant(a)) => {
            let m = &frame["message"];
            a.message_id == m["id"]
                && a.model == m["model"]
                && blocks_match(&m["content"], &a.content)
                && a.error == opt(&frame["error"])
                && a.parent_tool_use_id == opt(&frame["parent_tool_use_id"])
                && a.session_id == opt(&frame["session_id"])
        }
        ("user", Message::User(u)) => user_matches(frame, u),
        ("result", Message::Result(r)) => result_matches(frame, r),
        ("stream_event", Message::StreamEvent(event)) => event_matches(&frame["event"], event),
        (kind, Message::Unknown { kind: typed, .. }) => {
            let known = ["system", "assistant", "user", "result", "stream_event"];
            !known.contains(&kind) && kind == typed
        }
        _ => false,
    };
    (!same).then(|| "the typed message does not match the frame".to_owned())
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

fn opt(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn len(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}

fn system_matches(frame: &Value, system: &SystemMessage) -> bool {
    match (text(&frame["subtype"]), system) {
        ("init", SystemMessage::Init(init)) => {
            init.session_id == frame["session_id"]
                && init.model == frame["model"]
                && init.cwd == frame["cwd"]
                && init.permission_mode == frame["permissionMode"]
                && init.claude_code_version == frame["claude_code_version"]
                && init.tools.len() == len(&frame["tools"])
                && init.mcp_servers.len() == len(&frame["mcp_servers"])
        }
        ("compact_boundary", SystemMessage::CompactBoundary(boundary)) => {
            let metadata = &frame["compact_metadata"];
            boundary.session_id == frame["session_id"]
                && boundary.trigger == metadata["trigger"]
                && boundary.pre_tokens == metadata["pre_tokens"].as_u64()
        }
        (
            "status",
            SystemMessage::Status {
                status,
                compact_result,
            },
        ) => *status == opt(&frame["status"]) && *compact_result == opt(&frame["compact_result"]),
        (
            "api_retry",
            SystemMessage::ApiRetry {
                attempt,
                max_retries,
                error_status,
            },
        ) => {
            Some(*attempt) == frame["attempt"].as_u64()
                && *max_retries == frame["max_retries"].as_u64()
                && *error_status == frame["error_status"].as_u64()
        }
        (kind, SystemMessage::Other { subtype, raw }) => {
            let known = ["init", "compact_boundary", "status", "api_retry"];
            !known.contains(&kind) && subtype == kind && raw == frame
        }
        _ => false,
    }
}

fn user_matches(frame: &Value, user: &UserMessage) -> bool {
    let flag = |key: &str| frame[key].as_bool().unwrap_or(false);
    blocks_match(&frame["message"]["content"], &user.content)
        && user.is_synthetic == flag("isSynthetic")
        && user.is_replay == flag("isReplay")
        && user.parent_tool_use_id == opt(&frame["parent_tool_use_id"])
}

fn result_matches(frame: &Value, result: &ResultMessage) -> bool {
    let usage = &frame["usage"];
    result.subtype == frame["subtype"]
        && result.is_error == frame["is_error"]
        && result.session_id == frame["session_id"]
        && Some(result.num_turns) == frame["num_turns"].as_u64()
        && Some(result.duration_ms) == frame["duration_ms"].as_u64()
        && result.result == opt(&frame["result"])
        && result.terminal_reason == opt(&frame["terminal_reason"])
        && result.api_error_status == frame["api_error_status"].as_u64()
        && result.total_cost_usd == frame["total_cost_usd"].as_f64()
        && result.usage.map(|u| u.input_tokens) == usage["input_tokens"].as_u64()
        && result.usage.map(|u| u.output_tokens) == usage["output_tokens"].as_u64()
        && result.errors.len() == len(&frame["errors"])
        && result.permission_denials.len() == len(&frame["permission_denials"])
}

fn blocks_match(content: &Value, blocks: &[ContentBlock]) -> bool {
    let frames = match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => other.as_array().cloned().unwrap_or_default(),
    };
    frames.len() == blocks.len()
        && frames
            .iter()
            .zip(blocks)
            .all(|(f, block)| match (text(&f["type"]), block) {
                ("text", ContentBlock::Text { text }) => *text == f["text"],
                ("thinking", ContentBlock::Thinking { thinking }) => *thinking == f["thinking"],
                ("tool_use", ContentBlock::ToolUse { id, name, input }) => {
                    *id == f["id"] && *name == f["name"] && *input == f["input"]
                }
                (
                    "tool_result",
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    },
                ) => {
                    *tool_use_id == f["tool_use_id"]
                        && *content == f["content"]
                        && *is_error == f["is_error"].as_bool().unwrap_or(false)
                }
                (kind, ContentBlock::Other(raw)) => {
                    !["text", "thinking", "tool_use", "tool_result"].contains(&kind) && raw == f
                }
                _ => false,
            })
}

fn event_matches(event: &Value, typed: &StreamEvent) -> bool {
    let index = event["index"].as_u64().unwrap_or(0);
    let delta = &event["delta"];
    match (text(&event["type"]), text(&delta["type"]), typed) {
        ("message_start", _, StreamEvent::MessageStart { input_tokens }) => {
            *input_tokens == event["message"]["usage"]["input_tokens"].as_u64()
        }
        (
            "content_block_start",
            _,
            StreamEvent::BlockStart {
                index: i,
                kind,
                tool_name,
            },
        ) => {
            let block = &event["content_block"];
            *i == index && *kind == block["type"] && *tool_name == opt(&block["name"])
        }
        ("content_block_delta", "text_delta", StreamEvent::TextDelta { index: i, text }) => {
            *i == index && *text == delta["text"]
        }
        ("content_block_delta", "thinking_delta", StreamEvent::ThinkingDelta { index: i })
        | ("content_block_delta", "input_json_delta", StreamEvent::InputJsonDelta { index: i })
        | ("content_block_stop", _, StreamEvent::BlockStop { index: i }) => *i == index,
        ("message_delta", _, StreamEvent::MessageDelta { stop_reason }) => {
            *stop_reason == opt(&delta["stop_reason"])
        }
        ("message_stop", _, StreamEvent::MessageStop) => true,
        ("content_block_delta", kind, StreamEvent::Other) => {
            !["text_delta", "thinking_delta", "input_json_delta"].contains(&kind)
        }
        (kind, _, StreamEvent::Other) => !kind.starts_with("message") && !kind.contains("block"),
        _ => false,
    }
}

async fn run(name: &str) -> Replay {
    replay(name, kind_mismatch).await
}

/// What `pick` finds in the typed messages, in order.
fn pick<'a, T>(replay: &'a Replay, pick: impl Fn(&'a Message) -> Option<T>) -> Vec<T> {
    replay.typed().filter_map(pick).collect()
}

fn results(replay: &Replay) -> Vec<&ResultMessage> {
    pick(replay, |m| {
        if let Message::Result(r) = m {
            Some(r)
        } else {
            None
        }
    })
}

fn init_sessions(replay: &Replay) -> Vec<&str> {
    pick(replay, |m| match m {
        Message::System(SystemMessage::Init(init)) => Some(init.session_id.as_str()),
        _ => None,
    })
}

/// Transcripts with only the generic checks: one `#[tokio::test]` each.
macro_rules! replayed {
    ($($name:ident),* $(,)?) => {
        const GENERIC: &[&str] = &[$(stringify!($name)),*];
        $(#[tokio::test] async fn $name() { run(stringify!($name)).await; })*
    };
}

#[rustfmt::skip]
replayed!(
    api_error_exit_code, can_use_tool, compact_auto, compact_reactive, fork_with_session_id,
    hook_events_pretooluse, hooks_stop_posttooluse, initialize_agents, interrupt_during_mcp_call,
    limit_max_budget, limit_max_turns, mcp_control, mcp_errors, mcp_tool_not_allowed,
    no_initialize, prompt_during_tool, prompt_while_busy, resume_a_new_session, resume_b_same_id,
    resume_c_fork, resume_d_fork_again, resume_f_other_cwd, resume_g_continue,
    resume_h_session_id, sdk_compact, sdk_interrupt_set_model, sdk_resume_1_new,
    sdk_resume_2_resume, sdk_resume_3_fork, sdk_servers_via_initialize, sdk_session_features,
    session_state_events, sigterm_mid_turn, stdin_eof_mid_turn, stdin_malformed_json,
    stdin_unknown_type, user_envelope,
);

/// Transcripts with their own test below.
#[rustfmt::skip]
const SPECIFIC: &[&str] = &[
    "plain_text", "compact_manual", "api_error", "interrupt", "partial_messages", "clear",
    "mcp_sdk_server", "hook_timeout", "error_responses", "set_model_and_mode", "resume_e_missing",
];

#[test]
fn every_recorded_transcript_is_replayed() {
    let entries = std::fs::read_dir(transcript_dir()).expect("list the transcripts");
    let mut missing: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|file| {
            Path::new(file)
                .extension()
                .is_some_and(|ext| ext == "jsonl")
                && !file.ends_with(".api.jsonl")
        })
        .map(|file| file.trim_end_matches(".jsonl").to_owned())
        .filter(|name| !GENERIC.contains(&name.as_str()) && !SPECIFIC.contains(&name.as_str()))
        .collect();
    missing.sort();
    assert!(missing.is_empty(), "not replayed: {missing:?}");
}

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
