//! Tests of `ollim-bot history`'s presentation and session lookup (SUB-4…6).

use std::path::PathBuf;

use chrono::TimeZone;

use super::*;
use crate::transcripts::{ParsedLine, Role, parse_line};

fn message(role: Role, content: Content) -> Message {
    Message {
        time: Utc.with_ymd_and_hms(2026, 11, 25, 6, 34, 0).unwrap(),
        role,
        content,
    }
}

#[test]
fn messages_render_on_their_own_lines() {
    let tz = chrono_tz::Tz::America__Los_Angeles;
    let text = message(Role::User, Content::Text("hi\nthere".into()));
    assert_eq!(
        render_message(&text, tz),
        "[2026-11-24 22:34] user: hi\n    there"
    );
    let call = message(
        Role::Assistant,
        Content::ToolCall {
            name: "Bash".into(),
            input: serde_json::Value::Null,
        },
    );
    assert_eq!(
        render_message(&call, tz),
        "[2026-11-24 22:34] assistant: [tool] Bash"
    );
    let result = message(
        Role::Tool,
        Content::ToolResult {
            text: format!("line one\nline two {}", "x".repeat(400)),
            is_error: true,
        },
    );
    let shown = render_message(&result, tz);
    assert!(shown.starts_with("[2026-11-24 22:34] tool: error: line one line two xxx"));
    assert!(shown.ends_with('…') && !shown.contains('\n'), "{shown}");
    let empty = message(
        Role::Tool,
        Content::ToolResult {
            text: String::new(),
            is_error: false,
        },
    );
    assert!(render_message(&empty, tz).ends_with("tool: (empty)"));
    let long = message(Role::Assistant, Content::Text("é".repeat(2005)));
    assert!(render_message(&long, tz).ends_with("é… (5 more characters)"));
}

#[test]
fn summaries_show_span_counts_and_the_first_prompt() {
    let mut summary = SessionSummary::new("4219abb5-d386");
    let lines = [
        r#"{"type":"user","message":{"content":"[2026-11-24 Tue 10:34 PM PST] plan   my\nday please"},"timestamp":"2026-11-25T06:34:15Z"}"#,
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"ok"}]},"timestamp":"2026-11-25T07:10:00Z"}"#,
    ];
    for line in lines {
        summary.add(&parse_line(line).unwrap());
    }
    assert_eq!(
        render_summary(&summary, chrono_tz::Tz::UTC),
        "4219abb5-d386  2026-11-25 06:34 → 07:10  1 user / 1 assistant  plan my day please"
    );
    summary.add(&ParsedLine {
        time: Some(Utc.with_ymd_and_hms(2026, 11, 26, 1, 0, 0).unwrap()),
        ..ParsedLine::default()
    });
    assert!(render_summary(&summary, chrono_tz::Tz::UTC).contains("06:34 → 2026-11-26 01:00"));
    assert!(render_summary(&SessionSummary::new("x"), chrono_tz::Tz::UTC).ends_with("(no prompt)"));
}

#[test]
fn the_timestamp_header_is_dropped_from_previews_only_when_it_is_one() {
    assert_eq!(
        without_timestamp_header("[2026-02-24 Tue 02:30 PM PST] [routine-bg:abc] go"),
        "[routine-bg:abc] go"
    );
    assert_eq!(without_timestamp_header("[button] do it"), "[button] do it");
    assert_eq!(without_timestamp_header("[éé] x"), "[éé] x");
    assert_eq!(without_timestamp_header("plain"), "plain");
}

#[test]
fn sessions_are_found_by_prefix() {
    let file = |id: &str| SessionFile {
        id: id.to_owned(),
        path: PathBuf::from(format!("/t/{id}.jsonl")),
        modified: None,
    };
    let sessions = [file("abc123"), file("abd456"), file("abc")];
    assert_eq!(find_session(&sessions, "abd").unwrap().id, "abd456");
    assert_eq!(find_session(&sessions, "abc").unwrap().id, "abc");
    let ambiguous = find_session(&sessions, "ab").unwrap_err();
    assert!(
        ambiguous.contains("3 sessions start with \"ab\""),
        "{ambiguous}"
    );
    assert!(
        find_session(&sessions, "zz")
            .unwrap_err()
            .contains("no session")
    );
    assert!(find_session(&sessions, " ").is_err());
}

#[test]
fn grep_is_case_insensitive_over_what_is_shown() {
    let text = message(Role::User, Content::Text("Buy PINEAPPLES".into()));
    assert!(matches(&text, "pineapple"));
    assert!(!matches(&text, "mango"));
    let call = message(
        Role::Assistant,
        Content::ToolCall {
            name: "WebSearch".into(),
            input: serde_json::Value::Null,
        },
    );
    assert!(matches(&call, "websearch"));
}
