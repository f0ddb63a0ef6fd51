//! Tests of transcript parsing, session summaries, `--since` windows and line streaming
//! (SUB-4…6), on lines shaped like the ones Claude Code 2.1.197 writes.

use chrono::{Duration, TimeZone, Utc};

use super::*;

const SESSION: &str = r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-25T06:34:15.713Z","sessionId":"4219abb5","content":"hi"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"[2026-11-24 Tue 10:34 PM PST] hi there, remember the pineapple"},"uuid":"u1","timestamp":"2026-11-25T06:34:15.735Z","sessionId":"4219abb5"}
{"parentUuid":"u1","isSidechain":false,"attachment":{"type":"agent_listing_delta"},"type":"attachment","uuid":"a1","timestamp":"2026-11-25T06:34:15.740Z"}
{"parentUuid":"a1","isSidechain":false,"message":{"content":[{"text":"Hello Julia!","type":"text"}],"id":"msg_1","model":"claude-opus-4-8","role":"assistant","type":"message"},"type":"assistant","uuid":"r1","timestamp":"2026-11-25T06:34:15.775Z"}
{"parentUuid":"r1","isSidechain":false,"type":"user","message":{"role":"user","content":"[2026-11-24 Tue 10:34 PM PST] read my notes"},"uuid":"u2","timestamp":"2026-11-25T06:34:15.810Z"}
{"parentUuid":"u2","isSidechain":false,"message":{"content":[{"type":"thinking","thinking":"hmm"}],"id":"msg_2","model":"claude-opus-4-8","role":"assistant"},"type":"assistant","uuid":"r2a","timestamp":"2026-11-25T06:34:15.820Z"}
{"parentUuid":"r2a","isSidechain":false,"message":{"content":[{"id":"toolu_1","input":{"file_path":"/x/notes.md"},"name":"Read","type":"tool_use"}],"id":"msg_2","model":"claude-opus-4-8","role":"assistant"},"type":"assistant","uuid":"r2","timestamp":"2026-11-25T06:34:15.822Z"}
{"parentUuid":"r2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"1\tpineapple notes"}]},"uuid":"t1","timestamp":"2026-11-25T06:34:15.835Z","toolUseResult":{"type":"text"}}
{"parentUuid":"t1","isSidechain":false,"message":{"content":[{"text":"Read it.","type":"text"}],"id":"msg_3","model":"claude-opus-4-8","role":"assistant"},"type":"assistant","uuid":"r3","timestamp":"2026-11-25T06:34:16.000Z"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"<command-message>caveat</command-message>"},"timestamp":"2026-11-25T06:35:00.000Z"}
{"type":"user","isSidechain":true,"message":{"role":"user","content":"sub-agent prompt"},"timestamp":"2026-11-25T06:35:01.000Z"}
{"type":"user","message":{"role":"user","content":"<local-command-stdout>Compacted</local-command-stdout>"},"timestamp":"2026-11-25T06:35:02.000Z"}
{"type":"assistant","message":{"id":"s1","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]},"timestamp":"2026-11-25T06:35:03.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"denied"},{"type":"image"}]}]},"timestamp":"2026-11-25T06:35:04.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{}}]},"timestamp":"2026-11-25T06:35:05.000Z"}
{"type":"user","message":{"role":"user","content":"torn"#;

fn at(h: u32, m: u32, s: u32, ms: u32) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 25, h, m, s).unwrap() + Duration::milliseconds(ms.into())
}

fn all_messages() -> Vec<Message> {
    SESSION
        .lines()
        .filter_map(parse_line)
        .flat_map(|line| line.messages)
        .collect()
}

#[test]
fn messages_from_real_shaped_lines() {
    let messages = all_messages();
    let shown: Vec<(Role, Content)> = messages
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    let text = |s: &str| Content::Text(s.to_owned());
    assert_eq!(
        shown,
        [
            (
                Role::User,
                text("[2026-11-24 Tue 10:34 PM PST] hi there, remember the pineapple")
            ),
            (Role::Assistant, text("Hello Julia!")),
            (
                Role::User,
                text("[2026-11-24 Tue 10:34 PM PST] read my notes")
            ),
            (
                Role::Assistant,
                Content::ToolCall {
                    name: "Read".into(),
                    input: serde_json::json!({"file_path": "/x/notes.md"}),
                }
            ),
            (
                Role::Tool,
                Content::ToolResult {
                    text: "1\tpineapple notes".into(),
                    is_error: false
                }
            ),
            (Role::Assistant, text("Read it.")),
            (
                Role::Tool,
                Content::ToolResult {
                    text: "denied\n[image]".into(),
                    is_error: true
                }
            ),
            (Role::User, text("look")),
            (Role::User, text("[image]")),
        ]
    );
    assert_eq!(messages[0].time, at(6, 34, 15, 735));
}

#[test]
fn odd_lines_are_skipped_or_give_only_a_time() {
    assert_eq!(parse_line("not json"), None);
    assert_eq!(parse_line("[1,2]"), None);
    assert_eq!(parse_line(r#"{"timestamp":"yesterday"}"#), None);
    let bookkeeping = parse_line(r#"{"type":"summary","summary":"x"}"#).unwrap();
    assert_eq!(bookkeeping, ParsedLine::default());
    let no_time = parse_line(r#"{"type":"user","message":{"content":"hi"}}"#).unwrap();
    assert!(no_time.messages.is_empty());
}

/// A prompt that ran a slash command (CTX-11) reads as it was sent, not as the CLI's markup.
#[test]
fn a_slash_command_prompt_reads_as_sent() {
    let line = r#"{"type":"user","message":{"role":"user","content":"<command-message>ollim:job-config</command-message>\n<command-name>/ollim:job-config</command-name>\n<command-args>what does allow-ping do?\n\n[2026-12-03 Thu 12:14 AM PST] [routine-bg:cfg]</command-args>\n"},"timestamp":"2026-11-25T06:35:00.000Z"}"#;
    let parsed = parse_line(line).unwrap();
    assert_eq!(
        parsed.messages[0].content,
        Content::Text(
            "/ollim:job-config what does allow-ping do?\n\n[2026-12-03 Thu 12:14 AM PST] [routine-bg:cfg]"
                .to_owned()
        )
    );
    let bare = r#"{"type":"user","message":{"role":"user","content":"<command-message>standup</command-message>\n<command-name>/standup</command-name>"},"timestamp":"2026-11-25T06:35:00.000Z"}"#;
    assert_eq!(
        parse_line(bare).unwrap().messages[0].content,
        Content::Text("/standup".to_owned())
    );
    let builtin = r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args>keep the plans</command-args>"},"timestamp":"2026-11-25T06:35:00.000Z"}"#;
    assert_eq!(
        parse_line(builtin).unwrap().messages[0].content,
        Content::Text("/compact keep the plans".to_owned())
    );
}

#[test]
fn summary_counts_prompts_and_replies() {
    let mut summary = SessionSummary::new("4219abb5");
    for line in SESSION.lines().filter_map(parse_line) {
        summary.add(&line);
    }
    assert_eq!(summary.user_messages, 4);
    // msg_2 spans two lines (thinking, then the tool call) and counts once.
    assert_eq!(summary.assistant_messages, 3);
    assert_eq!(summary.start, Some(at(6, 34, 15, 713)));
    assert_eq!(summary.end, Some(at(6, 35, 5, 0)));
    assert_eq!(
        summary.first_prompt.as_deref(),
        Some("[2026-11-24 Tue 10:34 PM PST] hi there, remember the pineapple")
    );
    assert!(summary.active_since(at(6, 35, 5, 0)));
    assert!(!summary.active_since(at(6, 35, 6, 0)));
    assert!(!SessionSummary::new("empty").active_since(at(0, 0, 0, 0)));
}

#[test]
fn shorten_keeps_one_line_within_the_limit() {
    assert_eq!(shorten("a  b\n c", 10), "a b c");
    assert_eq!(shorten("hello wonderful world", 12), "hello wonde…");
    assert_eq!(shorten("hello wonderful world", 12).chars().count(), 12);
    assert_eq!(shorten("abcdefgh", 4), "abc…");
    assert_eq!(shorten("ab cdefgh", 3), "ab…");
    assert_eq!(shorten("", 5), "");
    assert_eq!(shorten("ééééé", 3), "éé…");
}

#[test]
fn windows_in_minutes_hours_and_days() {
    assert_eq!(parse_window("30m"), Ok(Duration::minutes(30)));
    assert_eq!(parse_window("24h"), Ok(Duration::hours(24)));
    assert_eq!(parse_window(" 7d "), Ok(Duration::days(7)));
    for bad in [
        "",
        "h",
        "0h",
        "-1h",
        "1.5h",
        "10",
        "3w",
        "1e3d",
        "h24",
        "99999999999999999d",
    ] {
        let error = parse_window(bad).unwrap_err();
        assert!(error.contains("e.g. 30m, 24h, 7d"), "{bad}: {error}");
    }
}

#[test]
fn lines_are_streamed_and_oversized_ones_skipped() {
    let huge = "x".repeat(100);
    let input = format!("first\r\n{huge}\n\nsecond\n\u{ff}bad\nlast");
    let mut bytes = input.into_bytes();
    // Make the 5th line invalid UTF-8.
    let bad = bytes.iter().position(|&b| b == 0xc3).unwrap();
    bytes[bad] = 0xff;
    let mut seen = Vec::new();
    let stats = read_lines(&bytes[..], 50, |line| seen.push(line.to_owned())).unwrap();
    assert_eq!(seen, ["first", "second", "last"]);
    assert_eq!(
        stats,
        ReadStats {
            lines: 3,
            skipped: 2
        }
    );
    let mut tail = Vec::new();
    let stats = read_lines(huge.as_bytes(), 50, |l| tail.push(l.to_owned())).unwrap();
    assert!(tail.is_empty());
    assert_eq!(stats.skipped, 1);
}

#[test]
fn project_dir_and_session_files() {
    assert_eq!(
        project_key(std::path::Path::new("/home/j/.ollim-bot_2")),
        "-home-j--ollim-bot-2"
    );
    // Values computed with the CLI's own function (Claude Code 2.1.197) under node.
    assert_eq!(
        project_key(std::path::Path::new("/srv/😀é/x")),
        "-srv-----x"
    );
    let long = format!(
        "/home/julia/{}ollim-bot",
        "very-long-directory-name/".repeat(10)
    );
    let key = project_key(std::path::Path::new(&long));
    assert_eq!(key.len(), 207);
    assert!(key.ends_with("-very-long-dir-20f8h6"), "{key}");
    let a250 = format!("/{}", "a".repeat(250));
    assert!(project_key(std::path::Path::new(&a250)).ends_with("aaaaa-feo44x"));
    let config = tempfile::tempdir().unwrap();
    let cwd = std::path::Path::new("/srv/data");
    let dir = TranscriptDir::for_cwd(config.path(), cwd);
    assert_eq!(dir.path(), config.path().join("projects/-srv-data"));
    assert!(dir.sessions().unwrap().is_empty());
    std::fs::create_dir_all(dir.path().join("b-session/subagents")).unwrap();
    std::fs::write(dir.path().join("b-session.jsonl"), SESSION).unwrap();
    std::fs::write(dir.path().join("a-session.jsonl"), "").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "").unwrap();
    let files = dir.sessions().unwrap();
    let ids: Vec<&str> = files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["a-session", "b-session"]);
    let summary = summarize(&files[1]).unwrap();
    assert_eq!(
        (summary.id.as_str(), summary.user_messages),
        ("b-session", 4)
    );
    let mut count = 0;
    for_each_message(&files[1], |_| count += 1).unwrap();
    assert_eq!(count, all_messages().len());
}

#[test]
fn a_symlinked_cwd_finds_the_resolved_project_dir() {
    let root = tempfile::tempdir().unwrap();
    let real = root.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let config = root.path().join("claude");
    let real = std::fs::canonicalize(&real).unwrap();
    let resolved = config.join("projects").join(project_key(&real));
    std::fs::create_dir_all(&resolved).unwrap();
    assert_eq!(TranscriptDir::for_cwd(&config, &link).path(), resolved);
}
