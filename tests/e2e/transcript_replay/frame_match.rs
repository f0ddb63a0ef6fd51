//! Does a typed message say what its stdout frame said? Field by field, per kind: the
//! check every replay applies to each frame that comes out of `recv()`.

use ollim_bot::claude::{
    ContentBlock, Message, ResultMessage, StreamEvent, SystemMessage, UserMessage,
};
use serde_json::{Value, json};

pub(super) fn kind_mismatch(frame: &Value, message: &Message) -> Option<String> {
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
