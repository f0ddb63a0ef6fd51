//! The terminal front end: renders turn events and embeds as text, and asks tool approvals on
//! the same input stream the prompts come from. Everything it prints goes through
//! [`harmless`] (CMD-8): the model's text, tool labels, embeds and notes all carry text the
//! model or what it read chose.

use std::{collections::HashMap, io::Write, sync::Arc, time::Duration};

use tokio::sync::mpsc;

use super::{
    line_reader::LineReader,
    terminal_text::{StreamedText, harmless},
};
use crate::{
    claude::BoxFuture,
    domain::embed::Embed,
    front_end::{Approval, FrontEnd, FrontEndError, TurnEvent},
};

/// How long an approval question waits for an answer (PRM-4).
const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

/// The terminal as a front end of the main session; approval questions read their answer
/// from the same [`LineReader`] as the prompts.
pub struct TerminalFrontEnd {
    input: Arc<LineReader>,
}

impl TerminalFrontEnd {
    /// A front end asking its questions on `input`.
    pub fn new(input: Arc<LineReader>) -> Self {
        Self { input }
    }
}

impl FrontEnd for TerminalFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        print_block(&render_embed(&embed));
        Box::pin(async { Ok(None) })
    }

    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        print_block(&text);
        Box::pin(async { Ok(None) })
    }

    fn send_file(
        &self,
        path: std::path::PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let mut text = format!("[file] {}", path.display());
        if let Some(message) = message {
            text = format!("{message}\n{text}");
        }
        print_block(&text);
        Box::pin(async { Ok(None) })
    }

    fn render_turn(&self, events: mpsc::UnboundedReceiver<TurnEvent>) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            render_events(events).await;
            Vec::new()
        })
    }

    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval> {
        Box::pin(async move {
            print_block(&format!(
                "[approve?] {label} — [y]es once / [a]lways this session / [n]o"
            ));
            let answer = tokio::time::timeout(APPROVAL_TIMEOUT, self.input.read("")).await;
            let approval = match answer {
                Ok(Some(line)) => parse_approval(&line),
                Ok(None) => Approval::Deny,
                Err(_) => Approval::TimedOut,
            };
            let outcome = match approval {
                Approval::AllowOnce => "allowed",
                Approval::AllowAlways => "always allowed",
                Approval::Deny => "denied",
                Approval::TimedOut => "expired",
                Approval::Cancelled => "cancelled",
                Approval::Unsent => "not asked",
            };
            print_block(&format!("[approve?] {label} — {outcome}"));
            approval
        })
    }

    fn denial_reason(&self) -> &'static str {
        "denied in the terminal"
    }
}

fn parse_approval(line: &str) -> Approval {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "ok" => Approval::AllowOnce,
        "a" | "always" => Approval::AllowAlways,
        _ => Approval::Deny,
    }
}

/// An embed as plain text: `[embed] <title>`, then body, fields and (inert) buttons.
pub fn render_embed(embed: &Embed) -> String {
    let mut lines = vec![format!("[embed] {}", embed.title)];
    if let Some(description) = &embed.description {
        lines.extend(description.lines().map(|line| format!("  {line}")));
    }
    for field in &embed.fields {
        lines.push(format!(
            "  {}: {}",
            field.name,
            field.value.replace('\n', "\n    ")
        ));
    }
    if !embed.buttons.is_empty() {
        let buttons: Vec<String> = embed
            .buttons
            .iter()
            .map(|b| format!("[{}]", b.label))
            .collect();
        lines.push(format!("  {}", buttons.join(" ")));
    }
    if let Some(footer) = &embed.footer {
        lines.push(format!("  ({footer})"));
    }
    lines.join("\n")
}

fn print_block(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "\n{}", harmless(text));
    let _ = out.flush();
}

/// Prints a turn's events as they arrive; returns when the turn's sender is dropped.
pub async fn render_events(mut events: mpsc::UnboundedReceiver<TurnEvent>) {
    let mut labels: HashMap<String, String> = HashMap::new();
    let mut reply = StreamedText::default();
    let mut at_line_start = true;
    while let Some(event) = events.recv().await {
        let mut out = std::io::stdout().lock();
        let mut line = |text: String, at_line_start: &mut bool| {
            let held = reply.flush();
            let prefix = if *at_line_start && held.is_empty() {
                ""
            } else {
                "\n"
            };
            let _ = writeln!(out, "{held}{prefix}{}", harmless(&text));
            *at_line_start = true;
        };
        match event {
            TurnEvent::TextDelta(text) => {
                let shown = reply.next(&text);
                if !shown.is_empty() {
                    let _ = write!(out, "{shown}");
                    at_line_start = shown.ends_with('\n');
                }
            }
            TurnEvent::ToolUse { id, label } => {
                line(format!("[tool] {label}"), &mut at_line_start);
                labels.insert(id, label);
            }
            TurnEvent::ToolDenied { id } => {
                let label = labels.remove(&id).unwrap_or_else(|| "tool".to_owned());
                line(format!("[tool] {label} — denied"), &mut at_line_start);
            }
            TurnEvent::ToolFailed { id } => {
                if let Some(label) = labels.remove(&id) {
                    line(format!("[tool] {label} — error"), &mut at_line_start);
                }
            }
            TurnEvent::Compacting { pre_tokens } => {
                let size = pre_tokens
                    .map(|t| format!(" {}k tokens", (t + 500) / 1000))
                    .unwrap_or_default();
                line(format!("[auto-compacting{size}...]"), &mut at_line_start);
            }
            TurnEvent::Compacted {
                pre_tokens,
                seconds,
            } => {
                let size = pre_tokens
                    .map(|t| format!(" · {}k tokens", (t + 500) / 1000))
                    .unwrap_or_default();
                line(
                    format!("[auto-compacted{size} · {seconds}s]"),
                    &mut at_line_start,
                );
            }
            TurnEvent::Notice(text) => line(format!("[note] {text}"), &mut at_line_start),
            TurnEvent::CatchingUp => line(
                format!("[note] {}", crate::agent::session::CATCHING_UP_NOTE),
                &mut at_line_start,
            ),
            TurnEvent::Retrying(text) => line(format!("[waiting] {text}…"), &mut at_line_start),
            _ => {}
        }
        let _ = out.flush();
    }
    let held = reply.flush();
    if !at_line_start || !held.is_empty() {
        println!("{held}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::embed::{ButtonStyle, EmbedButton, EmbedColor, EmbedField};

    #[test]
    fn renders_embeds_as_text() {
        let embed = Embed {
            title: "Today".into(),
            description: Some("two things".into()),
            color: EmbedColor::Blue,
            fields: vec![EmbedField {
                name: "Due".into(),
                value: "5pm".into(),
                inline: true,
            }],
            buttons: vec![EmbedButton {
                label: "Done".into(),
                action: "task_done:1".into(),
                style: ButtonStyle::Success,
            }],
            footer: None,
        };
        assert_eq!(
            render_embed(&embed),
            "[embed] Today\n  two things\n  Due: 5pm\n  [Done]"
        );
    }

    #[test]
    fn approval_answers() {
        assert_eq!(parse_approval("Y"), Approval::AllowOnce);
        assert_eq!(parse_approval("always"), Approval::AllowAlways);
        assert_eq!(parse_approval(""), Approval::Deny);
    }

    #[tokio::test]
    async fn approvals_read_the_next_line() {
        let input = std::io::Cursor::new(b"a\nhello\n".to_vec());
        let reader = Arc::new(LineReader::over(input));
        let front_end = TerminalFrontEnd::new(Arc::clone(&reader));
        assert_eq!(
            front_end.ask_approval("Bash(ls)".into()).await,
            Approval::AllowAlways
        );
        assert_eq!(reader.read("you> ").await.as_deref(), Some("hello"));
        assert_eq!(reader.read("you> ").await, None);
        assert_eq!(
            front_end.ask_approval("Bash(ls)".into()).await,
            Approval::Deny
        );
    }
}
