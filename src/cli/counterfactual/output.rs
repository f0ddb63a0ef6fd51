//! What `ollim-bot counterfactual` prints (CMD-10): a header naming the session, the message
//! and what was sent instead; then one block per run — the original from the transcript, the
//! baseline, the variant — with its text wrapped at 88 columns, its tools one a line and a
//! line of stats, blocks separated by a rule. Styled only when asked (a terminal, no
//! `NO_COLOR`); the model's text always goes through `chat`'s control-character filter.

use std::fmt::Write as _;

use crate::{
    cli::chat::harmless,
    transcripts::rewind::{ToolCall, tool_detail},
};

/// Columns text is wrapped at.
const WIDTH: usize = 88;
/// Characters of a message shown in the header.
const MESSAGE_PREVIEW: usize = 120;
/// The rule between blocks.
const RULE_WIDTH: usize = 60;

/// Which run a block shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What the session answered, from its transcript.
    Original,
    /// The same settings, run again.
    Baseline,
    /// With the intervention.
    Variant,
}

impl Kind {
    fn title(self) -> &'static str {
        match self {
            Kind::Original => "ORIGINAL (from transcript)",
            Kind::Baseline => "BASELINE (same settings, fresh run)",
            Kind::Variant => "VARIANT (with intervention)",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Kind::Original => "\x1b[36m",
            Kind::Baseline => "\x1b[32m",
            Kind::Variant => "\x1b[33m",
        }
    }
}

/// Why a run stopped before it finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// It reached `--max-turns`.
    MaxTurns,
    /// It reached `--max-budget`.
    Budget,
    /// It ended with an error.
    Error(String),
}

/// What a block's stats line says; unknown fields are left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Model calls.
    pub turns: Option<u64>,
    /// Cost in USD.
    pub cost: Option<f64>,
    /// Input tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stopped>,
}

/// One run's block.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Which run.
    pub kind: Kind,
    /// Its text.
    pub text: String,
    /// Its tool calls.
    pub tools: Vec<ToolCall>,
    /// What it showed the owner through the `discord` tools (embeds, pings, files).
    pub posted: Vec<String>,
    /// Its stats.
    pub stats: Stats,
}

/// The header's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The session's id.
    pub session: String,
    /// The rewound message's uuid.
    pub rewind: String,
    /// The message in the transcript.
    pub message: String,
    /// `--message`, when given.
    pub sent_instead: Option<String>,
}

/// Whether to style the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Plain text.
    Plain,
    /// ANSI bold, colours and dim.
    Ansi,
}

impl Style {
    /// Styled on a terminal, unless `NO_COLOR` is set (to anything but blanks).
    pub fn for_terminal(is_terminal: bool, no_color: bool) -> Self {
        if is_terminal && !no_color {
            Style::Ansi
        } else {
            Style::Plain
        }
    }

    fn paint(self, codes: &str, text: &str) -> String {
        match self {
            Style::Plain => text.to_owned(),
            Style::Ansi => format!("{codes}{text}\x1b[0m"),
        }
    }
}

/// The whole output, starting with a blank line.
pub fn render(header: &Header, blocks: &[Block], style: Style) -> String {
    let mut out = String::from("\n");
    let _ = writeln!(
        out,
        "{}",
        style.paint(
            "\x1b[1m",
            &format!(
                "Counterfactual: {} @ {}",
                prefix(&header.session, 8),
                prefix(&header.rewind, 8)
            )
        )
    );
    let _ = writeln!(out, "Message: {}", preview(&header.message));
    if let Some(sent) = &header.sent_instead {
        let _ = writeln!(out, "Sent instead: {}", preview(sent));
    }
    let rule = style.paint("\x1b[2m", &"─".repeat(RULE_WIDTH));
    for (at, block) in blocks.iter().enumerate() {
        if at > 0 {
            let _ = writeln!(out, "{rule}");
        }
        out.push('\n');
        render_block(&mut out, block, style);
    }
    out
}

fn render_block(out: &mut String, block: &Block, style: Style) {
    let _ = writeln!(
        out,
        "{}",
        style.paint(
            &format!("\x1b[1m{}", block.kind.colour()),
            block.kind.title()
        )
    );
    let text = harmless(block.text.trim());
    if text.is_empty() {
        let _ = writeln!(out, "(no text)");
    } else {
        let _ = writeln!(
            out,
            "{}",
            style.paint(block.kind.colour(), &wrap(&text, WIDTH))
        );
    }
    for posted in &block.posted {
        let _ = writeln!(out, "{}", harmless(posted));
    }
    out.push('\n');
    if block.tools.is_empty() {
        let _ = writeln!(out, "{}", style.paint("\x1b[2m", "Tools: none"));
    } else {
        let mut tools = format!("Tools ({}):", block.tools.len());
        for call in &block.tools {
            let detail = tool_detail(call);
            let line = format!("{} {}", call.name, detail);
            let _ = write!(tools, "\n  {}", harmless(line.trim_end()));
        }
        let _ = writeln!(out, "{}", style.paint("\x1b[2m", &tools));
    }
    let _ = writeln!(out, "{}", style.paint("\x1b[2m", &stats_line(&block.stats)));
}

/// `turns=<n> | cost=$<x.xxxx> | in=<n> | out=<n>`, known fields only, and why it stopped.
pub fn stats_line(stats: &Stats) -> String {
    let mut parts = Vec::new();
    if let Some(turns) = stats.turns {
        parts.push(format!("turns={turns}"));
    }
    if let Some(cost) = stats.cost {
        parts.push(format!("cost=${cost:.4}"));
    }
    if let Some(input) = stats.input {
        parts.push(format!("in={}", thousands(input)));
    }
    if let Some(output) = stats.output {
        parts.push(format!("out={}", thousands(output)));
    }
    let mut line = parts.join(" | ");
    let stopped = match &stats.stopped {
        None => None,
        Some(Stopped::MaxTurns) => Some("stopped: max turns".to_owned()),
        Some(Stopped::Budget) => Some("stopped: budget".to_owned()),
        Some(Stopped::Error(error)) => Some(format!("stopped: {}", harmless(error))),
    };
    if let Some(stopped) = stopped {
        if !line.is_empty() {
            line.push(' ');
        }
        let _ = write!(line, "({stopped})");
    }
    line
}

/// `n` with commas between thousands.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `text` with each paragraph's lines wrapped at `width` columns, breaking between words (a
/// longer word stands alone).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut current = String::new();
        for word in line.split_whitespace() {
            if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
                out.push(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push(current);
    }
    out.join("\n")
}

fn prefix(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

fn preview(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = harmless(&flat);
    if shown.chars().count() > MESSAGE_PREVIEW {
        format!("{}[...]", prefix(&shown, MESSAGE_PREVIEW))
    } else {
        shown.into_owned()
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
