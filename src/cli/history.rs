//! `ollim-bot history` (SUB-4…6): the bot's past Claude sessions, read from the CLI's
//! transcripts. This is what the history-reading subagents run. Needs only the data dir, the
//! timezone and `HOME` / `CLAUDE_CONFIG_DIR`; never `DISCORD_TOKEN`.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::Args;

use crate::{
    config::Config,
    transcripts::{
        Content, Message, SessionFile, SessionSummary, TranscriptDir, for_each_message,
        parse_window, shorten, summarize,
    },
};

/// Characters of the first prompt shown in the session list.
const PROMPT_PREVIEW: usize = 80;
/// Characters of a tool result shown.
const RESULT_PREVIEW: usize = 200;
/// Characters of a prompt or reply shown before it is cut.
const TEXT_LIMIT: usize = 2000;

/// `ollim-bot history` options.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// How far back to look: minutes, hours or days (30m, 24h, 7d).
    #[arg(long, default_value = "24h")]
    pub since: String,
    /// Print one session's messages; the first characters of its id are enough.
    #[arg(long)]
    pub session: Option<String>,
    /// Only messages containing this text (case-insensitive): across the window's sessions,
    /// or within the one given with --session.
    #[arg(long)]
    pub grep: Option<String>,
}

/// Runs `ollim-bot history` with the process environment; returns the exit code. Errors are
/// one line on stderr and exit code 1.
pub fn run(args: &HistoryArgs, now: DateTime<Utc>) -> i32 {
    match execute(args, now) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("error: {message}");
            1
        }
    }
}

fn execute(args: &HistoryArgs, now: DateTime<Utc>) -> Result<(), String> {
    let window = parse_window(&args.since)?;
    let config = Config::for_reading().map_err(|e| e.to_string())?;
    let claude_dir = config.claude_config_dir().ok_or(
        "cannot find the Claude CLI's config dir: set HOME or CLAUDE_CONFIG_DIR".to_owned(),
    )?;
    // Each container's CLI home holds its own sessions' transcripts (issue 39).
    let homes: Vec<std::path::PathBuf> =
        std::fs::read_dir(crate::state::paths::DataDir::new(&config.data_dir).cli_homes_dir())
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default();
    let dir = TranscriptDir::for_cwd_in(&claude_dir, &homes, &config.data_dir);
    let sessions = dir.sessions().map_err(|e| e.to_string())?;
    let tz = config.timezone;
    let needle = args.grep.as_deref().map(str::to_lowercase);
    if let Some(prefix) = &args.session {
        let file = find_session(&sessions, prefix)?;
        println!("session {}", file.id);
        let stats = for_each_message(file, |message| {
            if needle.as_deref().is_none_or(|n| matches(&message, n)) {
                println!("{}", render_message(&message, tz));
            }
        })
        .map_err(|e| e.to_string())?;
        if stats.skipped > 0 {
            println!("({} unreadable lines skipped)", stats.skipped);
        }
        return Ok(());
    }
    let since = now
        .checked_sub_signed(window)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut active = Vec::new();
    for file in &sessions {
        let untouched = file
            .modified
            .is_some_and(|modified| DateTime::<Utc>::from(modified) < since);
        if untouched {
            continue;
        }
        let summary = summarize(file).map_err(|e| e.to_string())?;
        if summary.active_since(since) {
            active.push((summary, file));
        }
    }
    active.sort_by(|(a, _), (b, _)| b.end.cmp(&a.end).then_with(|| a.id.cmp(&b.id)));
    match needle {
        None => {
            if active.is_empty() {
                println!("no sessions in the last {}", args.since.trim());
            } else {
                println!(
                    "{} session{} active in the last {}, newest first (times in {}):",
                    active.len(),
                    if active.len() == 1 { "" } else { "s" },
                    args.since.trim(),
                    tz.name()
                );
            }
            for (summary, _) in &active {
                println!("{}", render_summary(summary, tz));
            }
        }
        Some(needle) => {
            let mut found = 0;
            for (summary, file) in &active {
                let mut header = Some(format!("session {}", summary.id));
                for_each_message(file, |message| {
                    if message.time >= since && matches(&message, &needle) {
                        if let Some(header) = header.take() {
                            println!("{header}");
                        }
                        found += 1;
                        println!("{}", render_message(&message, tz));
                    }
                })
                .map_err(|e| e.to_string())?;
            }
            if found == 0 {
                println!(
                    "no messages matching {:?} in the last {}",
                    args.grep.as_deref().unwrap_or_default(),
                    args.since.trim()
                );
            }
        }
    }
    Ok(())
}

/// The session whose id is `prefix` or starts with it; an error when none or several do.
fn find_session<'a>(sessions: &'a [SessionFile], prefix: &str) -> Result<&'a SessionFile, String> {
    let prefix = prefix.trim();
    if prefix.is_empty() {
        return Err("--session needs a session id (or its first characters)".to_owned());
    }
    if let Some(exact) = sessions.iter().find(|s| s.id == prefix) {
        return Ok(exact);
    }
    let found: Vec<&SessionFile> = sessions
        .iter()
        .filter(|s| s.id.starts_with(prefix))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("no session id starts with {prefix:?}")),
        many => Err(format!(
            "{} sessions start with {prefix:?}: {}; give more characters",
            many.len(),
            many.iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Whether the message's shown text contains `needle` (already lowercased).
fn matches(message: &Message, needle: &str) -> bool {
    let text = match &message.content {
        Content::Text(text) | Content::ToolResult { text, .. } => text,
        Content::ToolCall { name, .. } => name,
    };
    text.to_lowercase().contains(needle)
}

fn local(time: DateTime<Utc>, tz: Tz) -> String {
    time.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string()
}

/// `<id>  <start> → <end>  <n> user / <m> assistant  <first prompt>`; the end shows only the
/// time when it is on the start's day.
pub fn render_summary(summary: &SessionSummary, tz: Tz) -> String {
    let start = summary.start.map(|t| local(t, tz)).unwrap_or_default();
    let end = summary.end.map(|t| local(t, tz)).unwrap_or_default();
    let end = match (start.split_once(' '), end.split_once(' ')) {
        (Some((start_day, _)), Some((end_day, end_time))) if start_day == end_day => end_time,
        _ => end.as_str(),
    };
    let prompt = summary.first_prompt.as_deref().map_or_else(
        || "(no prompt)".to_owned(),
        |p| shorten(without_timestamp_header(p), PROMPT_PREVIEW),
    );
    format!(
        "{}  {start} → {end}  {} user / {} assistant  {prompt}",
        summary.id, summary.user_messages, summary.assistant_messages
    )
}

/// `[<time>] <role>: <text>`: a tool call as `[tool] <name>`, a tool result on one line and
/// shortened, long texts cut with a note; continuation lines indented.
pub fn render_message(message: &Message, tz: Tz) -> String {
    let body = match &message.content {
        Content::Text(text) => cut(text, TEXT_LIMIT).replace('\n', "\n    "),
        Content::ToolCall { name, .. } => format!("[tool] {name}"),
        Content::ToolResult { text, is_error } => {
            let shown = shorten(text, RESULT_PREVIEW);
            let shown = if shown.is_empty() {
                "(empty)".to_owned()
            } else {
                shown
            };
            if *is_error {
                format!("error: {shown}")
            } else {
                shown
            }
        }
    };
    format!(
        "[{}] {}: {body}",
        local(message.time, tz),
        message.role.label()
    )
}

/// `text` cut to `max` chars with a note saying how much was left out.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!("{}… ({rest} more characters)", &text[..at])
        }
    }
}

/// The prompt without the bot's leading `[2026-02-24 Tue 02:30 PM PST] ` timestamp header.
fn without_timestamp_header(prompt: &str) -> &str {
    let bytes = prompt.as_bytes();
    let looks_like_header = bytes.len() > 6
        && bytes[0] == b'['
        && bytes[1..5].iter().all(u8::is_ascii_digit)
        && bytes[5] == b'-';
    match prompt.find(']') {
        Some(end) if looks_like_header => prompt[end + 1..].trim_start(),
        _ => prompt,
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
