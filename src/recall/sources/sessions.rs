//! Passages from the CLI's session transcripts: the main conversation, forks and background
//! runs. The owner's words and the assistant's replies as they are (long ones cut into
//! passages), a tool's result summarised to its first lines, never its whole output. Updates
//! are passages of their own: what a fork or a background run reported (`report_updates`, in
//! the session that reported it) and each line of the block the main session's prompt carries
//! (where the bot's own notes are: a reminder's outcome, a focus session's end), never part of
//! the owner's words. A session
//! that read untrusted text (mail) is untrusted from that moment on; a webhook's run is from
//! its prompt on (it carries the payload; a forked run's copied history before it is not). A
//! job's prompt that starts with its slash command (CTX-11) is read as the command plus the
//! prompt after it.

use super::passages;
use crate::{
    recall::entry::{Entry, Kind, Origin},
    state::pending::{CONSUME_HEADER, PEEK_HEADER},
    transcripts::{Content, Message, Role},
};

/// The agent's recall tool, whose results are not passages of their own.
const RECALL_TOOL: &str = "recall";

/// The tool a fork or a background run reports to the main session with.
const REPORT_TOOL: &str = "report_updates";

/// Characters of a tool's result kept.
pub(crate) const TOOL_RESULT_CHARS: usize = 300;

/// The tag a webhook's prompt carries (`[webhook:<slug>]`, after the time and the updates).
const WEBHOOK_TAG: &str = "[webhook:";

/// Where a session's untrusted part starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Untrusted {
    /// Nothing untrusted was read.
    Never,
    /// From this moment on (unix seconds).
    From(f64),
    /// From the first line.
    Always,
}

impl Untrusted {
    /// Untrusted from `at` on, or from earlier if it was already.
    #[allow(clippy::cast_precision_loss)] // seconds of a date: far inside f64's range
    fn since_then(self, at: chrono::DateTime<chrono::Utc>) -> Self {
        let at = at.timestamp() as f64;
        match self {
            Self::Never => Self::From(at),
            Self::From(since) => Self::From(since.min(at)),
            Self::Always => Self::Always,
        }
    }
}

/// Turns one session's messages into passages.
pub struct SessionPassages {
    session: String,
    untrusted: Untrusted,
    tool: Option<String>,
    entries: Vec<Entry>,
}

impl SessionPassages {
    /// Passages of session `session`, untrusted as `untrusted` says.
    pub fn new(session: &str, untrusted: Untrusted) -> Self {
        Self {
            session: session.to_owned(),
            untrusted,
            tool: None,
            entries: Vec::new(),
        }
    }

    /// Takes the session's next message.
    pub fn add(&mut self, message: Message) {
        let mut taken: Vec<(Kind, String)> = Vec::new();
        match message.content {
            Content::Text(text) if message.role == Role::User => {
                if text.contains(WEBHOOK_TAG) {
                    self.untrusted = self.untrusted.since_then(message.time);
                }
                let (command, prompt) = split_command(&text);
                let (updates, own) = split_prompt(without_stamp(prompt));
                taken.extend(updates.into_iter().map(|update| (Kind::Update, update)));
                let said = match command {
                    Some(command) if own.is_empty() => command.to_owned(),
                    Some(command) => format!("{command}\n\n{own}"),
                    None => own.to_owned(),
                };
                taken.push((Kind::Said, said));
            }
            Content::Text(text) => taken.push((Kind::Answer, text)),
            Content::ToolCall { name, input } => {
                if name.rsplit("__").next() == Some(REPORT_TOOL)
                    && let Some(report) = input["message"].as_str()
                {
                    taken.push((Kind::Update, report.to_owned()));
                }
                self.tool = Some(name);
            }
            Content::ToolResult { text, .. } => {
                let tool = self.tool.take().unwrap_or_else(|| "a tool".to_owned());
                // Recall's own answers are passages indexed already: kept out, they don't echo.
                if tool.rsplit("__").next() != Some(RECALL_TOOL) {
                    taken.push((Kind::ToolResult, summary(&tool, &text)));
                }
            }
        }
        let untrusted = match self.untrusted {
            Untrusted::Never => false,
            Untrusted::Always => true,
            #[allow(clippy::cast_precision_loss)] // seconds of a date: far inside f64's range
            Untrusted::From(since) => message.time.timestamp() as f64 >= since.floor(),
        };
        for (kind, text) in taken {
            for text in passages(&text) {
                self.entries.push(Entry {
                    at: message.time,
                    kind,
                    origin: Origin::Session(self.session.clone()),
                    untrusted,
                    text,
                });
            }
        }
    }

    /// The passages taken.
    pub fn finish(self) -> Vec<Entry> {
        self.entries
    }
}

/// The owner's words without the time stamp the bot puts before each prompt
/// (`[2026-12-02 Wed 02:27 PM PST] `): the passage is dated already.
fn without_stamp(text: &str) -> &str {
    let trimmed = text.trim_start();
    match trimmed.find("] ") {
        Some(end) if is_stamped(trimmed) => &trimmed[end + 2..],
        _ => text,
    }
}

/// Whether `text` starts with the bot's time stamp.
fn is_stamped(text: &str) -> bool {
    text.len() > 12
        && text.starts_with('[')
        && text.as_bytes()[1..5].iter().all(u8::is_ascii_digit)
        && text.as_bytes()[5] == b'-'
}

/// A job's prompt that starts with its slash command (CTX-11: `/skill …`, then a blank line
/// and the stamped rest): the command, and the rest to read as any prompt.
fn split_command(text: &str) -> (Option<&str>, &str) {
    if !text.starts_with('/') {
        return (None, text);
    }
    let mut from = 0;
    while let Some(at) = text[from..].find("\n\n") {
        let rest = &text[from + at + 2..];
        if is_stamped(rest) {
            return (Some(text[..from + at].trim_end()), rest);
        }
        from += at + 2;
    }
    (None, text)
}

/// A prompt's updates and the owner's own words after them
/// (`agent::prompt::context::compose_prompt`: a header, a `- (<age>) <update>` line each, a
/// blank line). The main session consumes each update once, so its block is where the bot's
/// own notes (a reminder's outcome, a focus session's end, a saved fork) are on record; a
/// fork's block only peeks at updates main will get, so it is left out.
fn split_prompt(text: &str) -> (Vec<String>, &str) {
    let consumed = text.starts_with(CONSUME_HEADER);
    if !(consumed || text.starts_with(PEEK_HEADER)) {
        return (Vec::new(), text);
    }
    let (block, own) = text.split_once("\n\n").unwrap_or((text, ""));
    if !consumed {
        return (Vec::new(), own);
    }
    let updates = block
        .split("\n- (")
        .skip(1)
        .filter_map(|line| line.split_once(") ").map(|(_, update)| update.to_owned()))
        .collect();
    (updates, own)
}

/// A tool's result as a passage: the tool's name (MCP prefix off) and its first characters.
fn summary(tool: &str, text: &str) -> String {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    let mut cut: String = text.trim().chars().take(TOOL_RESULT_CHARS).collect();
    if text.trim().chars().count() > TOOL_RESULT_CHARS {
        cut.push('…');
    }
    format!("{name}: {cut}")
}
