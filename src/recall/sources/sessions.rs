//! Passages from the CLI's session transcripts: the main conversation, forks and background
//! runs. The owner's words and the assistant's replies as they are (long ones cut into
//! passages), a tool's result summarised to its first lines, never its whole output. What a
//! fork or a background run reported to the main session (`report_updates`) is an update of
//! the session that reported it; the block of updates a prompt carries is left out of the
//! owner's words (it would say the same again, dated later and without its source). A session
//! that read untrusted text (mail) is untrusted from that moment on; a webhook's run is from
//! its first line (its prompt carries the payload).

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

/// Turns one session's messages into passages.
pub struct SessionPassages {
    session: String,
    untrusted: Untrusted,
    first: bool,
    tool: Option<String>,
    entries: Vec<Entry>,
}

impl SessionPassages {
    /// Passages of session `session`, untrusted as `untrusted` says.
    pub fn new(session: &str, untrusted: Untrusted) -> Self {
        Self {
            session: session.to_owned(),
            untrusted,
            first: true,
            tool: None,
            entries: Vec::new(),
        }
    }

    /// Takes the session's next message.
    pub fn add(&mut self, message: Message) {
        let (kind, text) = match message.content {
            Content::Text(text) if message.role == Role::User => {
                if std::mem::take(&mut self.first) && text.trim_start().starts_with("[webhook:") {
                    self.untrusted = Untrusted::Always;
                }
                (Kind::Said, without_updates(without_stamp(&text)).to_owned())
            }
            Content::Text(text) => (Kind::Answer, text),
            Content::ToolCall { name, input } => {
                let report = (name.rsplit("__").next() == Some(REPORT_TOOL))
                    .then(|| input["message"].as_str().map(str::to_owned))
                    .flatten();
                self.tool = Some(name);
                match report {
                    Some(report) => (Kind::Update, report),
                    None => return,
                }
            }
            Content::ToolResult { text, .. } => {
                let tool = self.tool.take().unwrap_or_else(|| "a tool".to_owned());
                // Recall's own answers are passages indexed already: kept out, they don't echo.
                if tool.rsplit("__").next() == Some(RECALL_TOOL) {
                    return;
                }
                (Kind::ToolResult, summary(&tool, &text))
            }
        };
        let untrusted = match self.untrusted {
            Untrusted::Never => false,
            Untrusted::Always => true,
            #[allow(clippy::cast_precision_loss)] // seconds of a date: far inside f64's range
            Untrusted::From(since) => message.time.timestamp() as f64 >= since.floor(),
        };
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

    /// The passages taken.
    pub fn finish(self) -> Vec<Entry> {
        self.entries
    }
}

/// The owner's words without the time stamp the bot puts before each prompt
/// (`[2026-12-02 Wed 02:27 PM PST] `): the passage is dated already.
fn without_stamp(text: &str) -> &str {
    let trimmed = text.trim_start();
    let stamped = trimmed.len() > 12
        && trimmed.starts_with('[')
        && trimmed.as_bytes()[1..5].iter().all(u8::is_ascii_digit)
        && trimmed.as_bytes()[5] == b'-';
    match trimmed.find("] ") {
        Some(end) if stamped => &trimmed[end + 2..],
        _ => text,
    }
}

/// The owner's words of a prompt without the pending updates block before them
/// (`agent::prompt::context::compose_prompt`): its header, its lines, then a blank line.
fn without_updates(text: &str) -> &str {
    if !(text.starts_with(CONSUME_HEADER) || text.starts_with(PEEK_HEADER)) {
        return text;
    }
    text.split_once("\n\n").map_or("", |(_, own)| own)
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
