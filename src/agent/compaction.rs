//! The stats line answered by `/compact` (SES-13): `15 turns · 3h 12m · 45k tokens compacted`.

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde_json::Value;

/// Joins the parts that are known with ` · `; `compacted.` when none is (F-49).
pub fn stats_line(
    turns: Option<usize>,
    age: Option<chrono::Duration>,
    pre_tokens: Option<u64>,
) -> String {
    let mut parts = Vec::new();
    if let Some(turns) = turns.filter(|n| *n > 0) {
        parts.push(if turns == 1 {
            "1 turn".to_owned()
        } else {
            format!("{turns} turns")
        });
    }
    if let Some(age) = age {
        parts.push(format_age(age));
    }
    if let Some(tokens) = pre_tokens.filter(|t| *t > 0) {
        let thousands = (tokens + 500) / 1000;
        parts.push(if thousands == 0 {
            "< 1k tokens compacted".to_owned()
        } else {
            format!("{thousands}k tokens compacted")
        });
    }
    if parts.is_empty() {
        "compacted.".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// `3h 12m`, `3h`, `45m` or `< 1m`.
pub fn format_age(age: chrono::Duration) -> String {
    let minutes = age.num_minutes().max(0);
    let (hours, minutes) = (minutes / 60, minutes % 60);
    match (hours, minutes) {
        (0, 0) => "< 1m".to_owned(),
        (0, m) => format!("{m}m"),
        (h, 0) => format!("{h}h"),
        (h, m) => format!("{h}h {m}m"),
    }
}

/// Age of the session measured from the most recent `created` event.
pub fn session_age(
    created: Option<DateTime<FixedOffset>>,
    now: DateTime<FixedOffset>,
) -> Option<chrono::Duration> {
    created.map(|created| now - created)
}

/// Where the CLI keeps the transcript of `session_id` started in `cwd`.
pub fn transcript_path(claude_config_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    let key: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    claude_config_dir
        .join("projects")
        .join(key)
        .join(format!("{session_id}.jsonl"))
}

/// Owner prompts in a transcript after its last compaction boundary: the turns a `/compact`
/// would summarise. Read when a session is resumed, when the file is complete. Tool results,
/// synthetic, meta and compaction-summary entries and slash commands are not turns. `None` if
/// the file cannot be read.
pub fn turns_since_last_compaction(transcript: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(transcript).ok()?;
    let mut turns = 0;
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if entry.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
            turns = 0;
            continue;
        }
        let flagged = |key: &str| entry.get(key).and_then(Value::as_bool) == Some(true);
        if entry.get("type").and_then(Value::as_str) != Some("user")
            || flagged("isMeta")
            || flagged("isCompactSummary")
            || flagged("isSynthetic")
        {
            continue;
        }
        if is_prompt(entry.pointer("/message/content")) {
            turns += 1;
        }
    }
    Some(turns)
}

fn is_prompt(content: Option<&Value>) -> bool {
    let first_text = match content {
        Some(Value::String(text)) => Some(text.as_str()),
        Some(Value::Array(blocks)) => {
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                return false;
            }
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .find(|t| !t.starts_with("<system-reminder>"))
        }
        _ => None,
    };
    first_text.is_some_and(|text| {
        !text.starts_with("<command-")
            && !text.starts_with("<local-command")
            && !text.starts_with('/')
            && !text.starts_with("This session is being continued from a previous conversation")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_line_formats_and_omits_missing_parts() {
        let age = chrono::Duration::minutes(192);
        assert_eq!(
            stats_line(Some(15), Some(age), Some(45_300)),
            "15 turns · 3h 12m · 45k tokens compacted"
        );
        assert_eq!(stats_line(None, None, Some(800)), "1k tokens compacted");
        assert_eq!(stats_line(None, None, None), "compacted.");
        assert_eq!(stats_line(None, None, Some(120)), "< 1k tokens compacted");
        assert_eq!(format_age(chrono::Duration::minutes(180)), "3h");
        assert_eq!(format_age(chrono::Duration::minutes(45)), "45m");
        assert_eq!(format_age(chrono::Duration::seconds(20)), "< 1m");
    }

    #[test]
    fn counts_prompts_since_the_last_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"old"}}"#,
            r#"{"type":"system","subtype":"compact_boundary"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"hi"}]}}"#,
            r#"{"type":"assistant","message":{"content":[]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}}"#,
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"second"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"}}"#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        assert_eq!(turns_since_last_compaction(&path), Some(2));
        assert_eq!(
            turns_since_last_compaction(&dir.path().join("missing")),
            None
        );
    }

    #[test]
    fn transcript_path_uses_the_cwd_key() {
        let path = transcript_path(
            Path::new("/h/.claude"),
            Path::new("/home/u/.ollim-bot"),
            "abc",
        );
        assert_eq!(
            path,
            PathBuf::from("/h/.claude/projects/-home-u--ollim-bot/abc.jsonl")
        );
    }
}
