//! Rewinding a session's transcript to one of the owner's messages (CMD-10): which record a
//! uuid or a prefix of one names, whether it is a message the owner typed, the lines before it
//! (what a replay resumes), and what the session answered it with (the "original").
//!
//! A record's id is its top-level `uuid`; records are linked by `parentUuid`. Everything here
//! is pure: it works on the file's lines, already read.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

/// How many user-message uuids an unknown prefix lists.
const LISTED_PROMPTS: usize = 10;
/// How many matches an ambiguous prefix lists, and how many characters of each.
const LISTED_MATCHES: usize = 5;
const SHOWN_UUID_CHARS: usize = 12;

/// Why a uuid or prefix names no message to rewind to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewindError {
    /// No record's uuid starts with the prefix.
    #[error(
        "UUID prefix '{prefix}' not found in {file}. Available user message UUIDs: {available}"
    )]
    NotFound {
        /// The prefix given.
        prefix: String,
        /// The session file searched.
        file: String,
        /// Up to ten uuids of the owner's messages, or `(none found)`.
        available: String,
    },
    /// Several of the owner's messages (or, with none, several records) start with it.
    #[error("UUID prefix '{prefix}' is ambiguous — matches {count} records: {shown}")]
    Ambiguous {
        /// The prefix given.
        prefix: String,
        /// How many match.
        count: usize,
        /// The first five, cut to 12 characters.
        shown: String,
    },
    /// The record is not a message the owner typed.
    #[error("{uuid} is {kind}, not a message the user typed: rewind to a user message")]
    NotAPrompt {
        /// The record's uuid.
        uuid: String,
        /// What it is instead (`an assistant record`, `a tool result`, …).
        kind: &'static str,
    },
    /// The record opens the session: there is nothing before it to resume.
    #[error("{uuid} is the session's first message: there is nothing before it to resume")]
    FirstRecord {
        /// The record's uuid.
        uuid: String,
    },
}

/// The message a replay rewinds to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindPoint {
    /// Its index among the file's lines: the replay resumes the lines before it.
    pub line: usize,
    /// Its uuid.
    pub uuid: String,
    /// What the owner wrote (a string, or the text blocks joined by blank lines).
    pub message: String,
}

/// One tool call of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its input.
    pub input: Value,
}

/// What the session answered a message with, from its transcript.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// The assistant's text, records joined by blank lines.
    pub text: String,
    /// Every tool the answer called, in order.
    pub tools: Vec<ToolCall>,
    /// Model calls (distinct assistant message ids).
    pub turns: u64,
    /// Input and output tokens of the first call that reports them.
    pub tokens: Option<(u64, u64)>,
}

/// The file's lines parsed: `None` for a line that is not a JSON object.
pub fn parse_records(lines: &[String]) -> Vec<Option<Value>> {
    lines
        .iter()
        .map(|line| {
            serde_json::from_str::<Value>(line)
                .ok()
                .filter(Value::is_object)
        })
        .collect()
}

fn uuid_of(record: &Value) -> Option<&str> {
    record.get("uuid").and_then(Value::as_str)
}

/// The text of a message's `content`: a string, or its text blocks joined by blank lines.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// What the owner typed in `record`, or what the record is instead.
pub fn typed_message(record: &Value) -> Result<String, &'static str> {
    let flag = |name: &str| record.get(name).and_then(Value::as_bool) == Some(true);
    match record.get("type").and_then(Value::as_str) {
        Some("user") => {}
        Some("assistant") => return Err("an assistant record"),
        Some("system") => return Err("a system record"),
        Some("attachment") => return Err("an attachment record"),
        _ => return Err("a bookkeeping record"),
    }
    let content = record.pointer("/message/content").unwrap_or(&Value::Null);
    let has_result = content.as_array().is_some_and(|blocks| {
        blocks
            .iter()
            .any(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
    });
    if has_result || record.get("sourceToolAssistantUUID").is_some() {
        return Err("a tool result");
    }
    if flag("isCompactSummary") {
        return Err("a compaction summary");
    }
    if flag("isMeta") {
        return Err("a message from the CLI or a hook");
    }
    if flag("isSidechain") {
        return Err("a subagent's message");
    }
    let text = content_text(content);
    let trimmed = text.trim_start();
    if trimmed.starts_with('<') {
        return Err("a command or its output");
    }
    if trimmed.starts_with("[Request interrupted") {
        return Err("an interruption notice");
    }
    if trimmed.is_empty() {
        return Err("an empty message");
    }
    Ok(text)
}

/// A record with a uuid: its line, the record and its uuid.
type Found<'a> = (usize, &'a Value, &'a str);

fn with_uuid(records: &[Option<Value>]) -> impl Iterator<Item = Found<'_>> {
    records.iter().enumerate().filter_map(|(line, record)| {
        let record = record.as_ref()?;
        Some((line, record, uuid_of(record)?))
    })
}

/// The record `prefix` names: the one message the owner typed whose uuid starts with it,
/// else the one record that does.
fn by_prefix<'a>(
    records: &'a [Option<Value>],
    prefix: &str,
    file: &str,
) -> Result<Found<'a>, RewindError> {
    let mut matching: Vec<Found<'a>> = Vec::new();
    for found in with_uuid(records).filter(|(_, _, uuid)| uuid.starts_with(prefix)) {
        if !matching.iter().any(|(_, _, known)| *known == found.2) {
            matching.push(found);
        }
    }
    let prompts: Vec<Found<'a>> = matching
        .iter()
        .filter(|(_, record, _)| typed_message(record).is_ok())
        .copied()
        .collect();
    let among = match (prompts.as_slice(), matching.as_slice()) {
        ([one], _) | ([], [one]) if !prefix.is_empty() => return Ok(*one),
        ([], []) => {
            let available: Vec<&str> = with_uuid(records)
                .filter(|(_, record, _)| typed_message(record).is_ok())
                .map(|(_, _, uuid)| uuid)
                .take(LISTED_PROMPTS)
                .collect();
            return Err(RewindError::NotFound {
                prefix: prefix.to_owned(),
                file: file.to_owned(),
                available: if available.is_empty() {
                    "(none found)".to_owned()
                } else {
                    available.join(", ")
                },
            });
        }
        ([], many) | (many, _) => many,
    };
    Err(RewindError::Ambiguous {
        prefix: prefix.to_owned(),
        count: among.len(),
        shown: among
            .iter()
            .take(LISTED_MATCHES)
            .map(|(_, _, uuid)| uuid.chars().take(SHOWN_UUID_CHARS).collect::<String>())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The owner's message `prefix` names among `records` (of `file`, for the messages): an exact
/// uuid, else the one message the owner typed whose uuid starts with it.
pub fn find_rewind_point(
    records: &[Option<Value>],
    prefix: &str,
    file: &str,
) -> Result<RewindPoint, RewindError> {
    let prefix = prefix.trim();
    let exact = with_uuid(records).find(|(_, _, uuid)| *uuid == prefix);
    let (line, record, uuid) = exact.map_or_else(|| by_prefix(records, prefix, file), Ok)?;
    let message = typed_message(record).map_err(|kind| RewindError::NotAPrompt {
        uuid: uuid.to_owned(),
        kind,
    })?;
    let anything_before = records[..line]
        .iter()
        .flatten()
        .any(|record| uuid_of(record).is_some());
    if !anything_before {
        return Err(RewindError::FirstRecord {
            uuid: uuid.to_owned(),
        });
    }
    Ok(RewindPoint {
        line,
        uuid: uuid.to_owned(),
        message,
    })
}

/// The transcript a replay resumes: every line before `point`'s, as they were (a compaction's
/// boundary and summary included), each ending in a line break.
pub fn lines_before(lines: &[String], point: &RewindPoint) -> String {
    let mut kept = String::new();
    for line in &lines[..point.line.min(lines.len())] {
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

/// What the session answered the message `uuid` with: every assistant record reached from it
/// through `parentUuid` links (across attachments, progress records and parallel branches,
/// never into the owner's next message), in timestamp order.
pub fn answer_to(records: &[Option<Value>], uuid: &str) -> Answer {
    let mut children: HashMap<&str, Vec<&Value>> = HashMap::new();
    for record in records.iter().flatten() {
        if let Some(parent) = record.get("parentUuid").and_then(Value::as_str) {
            children.entry(parent).or_default().push(record);
        }
    }
    let mut reached: Vec<&Value> = Vec::new();
    let mut queue = VecDeque::from([uuid]);
    let mut seen = std::collections::HashSet::from([uuid]);
    while let Some(at) = queue.pop_front() {
        for child in children.get(at).into_iter().flatten() {
            let Some(child_uuid) = uuid_of(child) else {
                continue;
            };
            if typed_message(child).is_ok() || !seen.insert(child_uuid) {
                continue;
            }
            if child.get("type").and_then(Value::as_str) == Some("assistant") {
                reached.push(child);
            }
            queue.push_back(child_uuid);
        }
    }
    let time = |record: &Value| {
        record
            .get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    reached.sort_by_key(|record| time(record));
    let mut answer = Answer::default();
    let mut texts: Vec<String> = Vec::new();
    let mut calls: Vec<&str> = Vec::new();
    for record in reached {
        let message = record.get("message").unwrap_or(&Value::Null);
        let id = message.get("id").and_then(Value::as_str);
        if id.is_none_or(|id| !calls.contains(&id)) {
            answer.turns += 1;
            calls.extend(id);
        }
        if answer.tokens.is_none()
            && let Some(usage) = message.get("usage")
        {
            let count = |name: &str| usage.get(name).and_then(Value::as_u64);
            answer.tokens = count("input_tokens").zip(count("output_tokens"));
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        let text = content_text(content);
        if !text.trim().is_empty() {
            texts.push(text);
        }
        for block in content.as_array().into_iter().flatten() {
            if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                answer.tools.push(ToolCall {
                    name: block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                });
            }
        }
    }
    answer.text = texts.join("\n\n");
    answer
}

/// The last message the owner typed in `records` (a replay's own prompt, in its fork).
pub fn last_typed(records: &[Option<Value>]) -> Option<&str> {
    records
        .iter()
        .rev()
        .flatten()
        .find(|record| typed_message(record).is_ok())
        .and_then(uuid_of)
}

/// One line about a tool call: the file for `Read`/`Edit`/`Write`, the command's first 60
/// characters for `Bash`, the pattern for `Grep`/`Glob`, else the first string input shorter
/// than 80 characters, else nothing.
pub fn tool_detail(call: &ToolCall) -> String {
    let field = |name: &str| call.input.get(name).and_then(Value::as_str);
    let found = match call.name.as_str() {
        "Read" | "Edit" | "Write" => field("file_path").map(str::to_owned),
        "Bash" => field("command").map(|command| command.chars().take(60).collect()),
        "Grep" | "Glob" => field("pattern").map(str::to_owned),
        _ => None,
    };
    found
        .or_else(|| {
            call.input
                .as_object()?
                .values()
                .filter_map(Value::as_str)
                .find(|text| text.chars().count() < 80)
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
