//! CMD-10: finding the message to rewind to, the lines a replay resumes, and the answer the
//! session gave, on lines shaped like the ones Claude Code 2.1.332 writes.

use serde_json::json;

use super::*;

const SESSION: &str = r#"{"type":"mode","mode":"default"}
{"type":"queue-operation","operation":"enqueue","content":"hi"}
{"parentUuid":null,"type":"user","message":{"role":"user","content":"[2026-12-03 Thu 09:00 AM UTC] hi"},"uuid":"aaaa1111-0000","timestamp":"2026-12-03T09:00:00.000Z"}
{"parentUuid":"aaaa1111-0000","type":"attachment","attachment":{"type":"skill_listing"},"uuid":"att00001","timestamp":"2026-12-03T09:00:00.100Z"}
{"parentUuid":"att00001","type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Hello!"}],"usage":{"input_tokens":1200,"output_tokens":5}},"uuid":"bbbb2222-0000","timestamp":"2026-12-03T09:00:01.000Z"}
{"parentUuid":"bbbb2222-0000","type":"user","message":{"role":"user","content":"[2026-12-03 Thu 09:01 AM UTC] read my notes"},"uuid":"cccc3333-0000","timestamp":"2026-12-03T09:01:00.000Z"}
{"parentUuid":"cccc3333-0000","type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"thinking","thinking":"hmm"}]},"uuid":"dddd4444-0000","timestamp":"2026-12-03T09:01:01.000Z"}
{"parentUuid":"dddd4444-0000","type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/d/notes.md"}}],"usage":{"input_tokens":1300,"output_tokens":40}},"uuid":"dddd5555-0000","timestamp":"2026-12-03T09:01:02.000Z"}
{"parentUuid":"dddd5555-0000","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"pineapple"}]},"sourceToolAssistantUUID":"dddd5555-0000","uuid":"eeee6666-0000","timestamp":"2026-12-03T09:01:03.000Z"}
{"parentUuid":"eeee6666-0000","type":"progress","uuid":"ffff7777-0000","timestamp":"2026-12-03T09:01:03.500Z"}
{"parentUuid":"ffff7777-0000","type":"assistant","message":{"id":"msg_3","role":"assistant","content":[{"type":"text","text":"It says pineapple."},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"echo done"}}]},"uuid":"abab8888-0000","timestamp":"2026-12-03T09:01:05.000Z"}
{"parentUuid":"cccc3333-0000","type":"assistant","message":{"id":"msg_4","role":"assistant","content":[{"type":"text","text":"(a parallel branch)"}]},"uuid":"acac9999-0000","timestamp":"2026-12-03T09:01:04.000Z"}
{"parentUuid":"abab8888-0000","type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback: report it"},"uuid":"cdcd0000-0001","timestamp":"2026-12-03T09:01:06.000Z"}
{"parentUuid":null,"logicalParentUuid":"cdcd0000-0001","type":"system","subtype":"compact_boundary","uuid":"cdcd0000-0002","timestamp":"2026-12-03T09:02:00.000Z"}
{"parentUuid":"cdcd0000-0002","type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued..."},"uuid":"cdcd0000-0003","timestamp":"2026-12-03T09:02:00.100Z"}
{"parentUuid":"abab8888-0000","type":"user","message":{"role":"user","content":"[2026-12-03 Thu 09:03 AM UTC] thanks"},"uuid":"cccc4444-0000","timestamp":"2026-12-03T09:03:00.000Z"}
{"parentUuid":"cccc4444-0000","type":"assistant","message":{"id":"msg_5","role":"assistant","content":[{"type":"text","text":"Any time."}]},"uuid":"bbbb9999-0000","timestamp":"2026-12-03T09:03:01.000Z"}
{"parentUuid":"bbbb9999-0000","type":"user","message":{"role":"user","content":"<local-command-stdout>done</local-command-stdout>"},"uuid":"cdcd0000-0004","timestamp":"2026-12-03T09:04:00.000Z"}
not json"#;

fn lines() -> Vec<String> {
    SESSION.lines().map(str::to_owned).collect()
}

fn find(prefix: &str) -> Result<RewindPoint, RewindError> {
    find_rewind_point(&parse_records(&lines()), prefix, "s.jsonl")
}

#[test]
fn a_unique_prefix_or_a_whole_uuid_names_the_owners_message() {
    let point = find("cccc3").unwrap();
    assert_eq!(point.line, 5);
    assert_eq!(point.uuid, "cccc3333-0000");
    assert_eq!(point.message, "[2026-12-03 Thu 09:01 AM UTC] read my notes");
    assert_eq!(find("cccc4444-0000").unwrap().line, 15);
}

#[test]
fn only_top_level_uuids_count() {
    // `sourceToolAssistantUUID` and `parentUuid` mention dddd5555, but no record's own uuid
    // starts with "t1".
    assert!(matches!(find("t1"), Err(RewindError::NotFound { .. })));
}

#[test]
fn a_prefix_shared_with_other_records_still_names_the_one_user_message() {
    // "bbbb" is an assistant record only; "cccc" matches two user messages; "cc" those two;
    // "ab" an assistant record alone; "acac" too.
    assert_eq!(find("cccc3").unwrap().uuid, "cccc3333-0000");
    let Err(RewindError::Ambiguous { count, shown, .. }) = find("cccc") else {
        panic!("cccc is ambiguous");
    };
    assert_eq!(count, 2);
    assert_eq!(shown, "cccc3333-000, cccc4444-000");
    let Err(RewindError::Ambiguous { count, .. }) = find("bbbb") else {
        panic!("two assistant records");
    };
    assert_eq!(count, 2);
}

#[test]
fn an_unknown_prefix_lists_the_user_messages() {
    let error = find("9999").unwrap_err();
    assert_eq!(
        error.to_string(),
        "UUID prefix '9999' not found in s.jsonl. Available user message UUIDs: \
         aaaa1111-0000, cccc3333-0000, cccc4444-0000"
    );
    let empty = find_rewind_point(&parse_records(&["{}".to_owned()]), "x", "f").unwrap_err();
    assert!(empty.to_string().ends_with("(none found)"), "{empty}");
}

#[test]
fn records_that_are_not_typed_messages_are_refused_by_kind() {
    let kind = |prefix: &str| match find(prefix) {
        Err(RewindError::NotAPrompt { kind, .. }) => kind,
        other => panic!("{prefix}: {other:?}"),
    };
    assert_eq!(kind("abab"), "an assistant record");
    assert_eq!(kind("eeee"), "a tool result");
    assert_eq!(kind("cdcd0000-0001"), "a message from the CLI or a hook");
    assert_eq!(kind("cdcd0000-0002"), "a system record");
    assert_eq!(kind("cdcd0000-0003"), "a compaction summary");
    assert_eq!(kind("cdcd0000-0004"), "a command or its output");
    assert_eq!(kind("att0"), "an attachment record");
    let interrupted = json!({"type":"user","message":{"content":"[Request interrupted by user]"}});
    assert_eq!(typed_message(&interrupted), Err("an interruption notice"));
    assert!(
        find("abab")
            .unwrap_err()
            .to_string()
            .contains("not a message the user typed")
    );
}

#[test]
fn the_first_message_has_nothing_before_it_to_resume() {
    assert_eq!(
        find("aaaa"),
        Err(RewindError::FirstRecord {
            uuid: "aaaa1111-0000".to_owned()
        })
    );
}

#[test]
fn the_replay_resumes_every_line_before_the_message_compaction_records_included() {
    let all = lines();
    let kept = lines_before(&all, &find("cccc4444").unwrap());
    assert_eq!(kept.lines().count(), 15);
    assert!(kept.ends_with("\"isCompactSummary\":true,\"message\":{\"role\":\"user\",\"content\":\"This session is being continued...\"},\"uuid\":\"cdcd0000-0003\",\"timestamp\":\"2026-12-03T09:02:00.100Z\"}\n"));
    assert!(kept.contains("compact_boundary"));
    assert!(!kept.contains("thanks"));
}

#[test]
fn the_answer_crosses_bridge_records_and_branches_but_stops_at_the_next_message() {
    let answer = answer_to(&parse_records(&lines()), "cccc3333-0000");
    assert_eq!(
        answer.text, "(a parallel branch)\n\nIt says pineapple.",
        "ordered by timestamp"
    );
    let names: Vec<&str> = answer.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Read", "Bash"]);
    assert_eq!(answer.turns, 3, "msg_2's two records are one call");
    assert_eq!(answer.tokens, Some((1300, 40)));
    assert!(!answer.text.contains("Any time"));
    let first = answer_to(&parse_records(&lines()), "aaaa1111-0000");
    assert_eq!(first.text, "Hello!");
    assert_eq!(first.tokens, Some((1200, 5)));
    assert_eq!(
        answer_to(&parse_records(&lines()), "nothing"),
        Answer::default()
    );
}

#[test]
fn the_last_typed_message_is_a_replays_own_prompt() {
    assert_eq!(last_typed(&parse_records(&lines())), Some("cccc4444-0000"));
}

#[test]
fn tool_details_name_what_the_call_works_on() {
    let call = |name: &str, input| ToolCall {
        name: name.to_owned(),
        input,
    };
    assert_eq!(
        tool_detail(&call("Read", json!({"file_path": "/a/b.md"}))),
        "/a/b.md"
    );
    let long = "x".repeat(100);
    assert_eq!(
        tool_detail(&call("Bash", json!({"command": long}))).len(),
        60
    );
    assert_eq!(
        tool_detail(&call("Grep", json!({"pattern": "todo", "path": "/"}))),
        "todo"
    );
    assert_eq!(
        tool_detail(&call(
            "mcp__discord__ping_user",
            json!({"n": 1, "message": "hey"})
        )),
        "hey"
    );
    assert_eq!(
        tool_detail(&call("WebSearch", json!({"query": "y".repeat(90)}))),
        ""
    );
}
