//! Pure rendering helpers: status lines, inline tool labels, compaction notes and the split
//! point of an overflowing message. No I/O and no clock, so each is unit-tested on its own.

/// Discord's message length limit, in characters (STR-5).
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// How far back from the end of a full message a natural split point is looked for (STR-5).
pub const SPLIT_WINDOW_CHARS: usize = 200;

/// Posted when a turn showed nothing at all (STR-10).
pub const NO_RESPONSE: &str = "no response — try again.";

/// The status label while the model thinks (STR-2).
pub const THINKING_LABEL: &str = "Thinking";

/// How a tool call ended, as far as its inline label shows (STR-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOutcome {
    /// Ran (or nothing else is known about it).
    Ran,
    /// Refused by the permission system.
    Denied,
    /// Ran and reported an error.
    Failed,
    /// Ran after the owner allowed it through its approval question, which shows the label
    /// already: not rendered again (STR-7).
    Approved,
}

impl ToolOutcome {
    /// Combines two reports about the same call: a denial outranks an error, which outranks
    /// an approval, which outranks a plain run (a denied call also comes back as an error
    /// result; an approved call that failed shows its error).
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Self::Denied, _) | (_, Self::Denied) => Self::Denied,
            (Self::Failed, _) | (_, Self::Failed) => Self::Failed,
            (Self::Approved, _) | (_, Self::Approved) => Self::Approved,
            _ => Self::Ran,
        }
    }
}

/// The status line for `label` after `secs` whole seconds: `-# *Thinking...*`, then
/// `-# *Thinking... (3s)*` from one second on (STR-2).
#[must_use]
pub fn status_text(label: &str, secs: u64) -> String {
    if secs == 0 {
        format!("-# *{label}...*")
    } else {
        format!("-# *{label}... ({secs}s)*")
    }
}

/// Token count in thousands, rounded (`90_102` → `90`).
fn thousands(tokens: u64) -> u64 {
    tokens.saturating_add(500) / 1000
}

/// The status label while the CLI compacts: `Auto-compacting 150k tokens`, or
/// `Auto-compacting` when the size is unknown (STR-9).
#[must_use]
pub fn compaction_label(pre_tokens: Option<u64>) -> String {
    match pre_tokens.filter(|tokens| *tokens > 0) {
        Some(tokens) => format!("Auto-compacting {}k tokens", thousands(tokens)),
        None => "Auto-compacting".to_owned(),
    }
}

/// The permanent note left where compaction happened:
/// `-# *auto-compacted · 150k tokens · 12s*`, parts unknown or zero left out (STR-9).
#[must_use]
pub fn compaction_note(pre_tokens: Option<u64>, seconds: u64) -> String {
    let mut parts = vec!["auto-compacted".to_owned()];
    if let Some(tokens) = pre_tokens.filter(|tokens| *tokens > 0) {
        parts.push(format!("{}k tokens", thousands(tokens)));
    }
    if seconds > 0 {
        parts.push(format!("{seconds}s"));
    }
    format!("-# *{}*", parts.join(" · "))
}

/// A tool's inline line in the reply text (STR-7, F-47).
#[must_use]
pub fn tool_line(label: &str, outcome: ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Ran => format!("\n-# *{label}*\n"),
        ToolOutcome::Denied => {
            format!("\n-# *~~{label}~~ — denied (use /permissions default to approve)*\n")
        }
        ToolOutcome::Failed => format!("\n-# *~~{label}~~ — error*\n"),
        ToolOutcome::Approved => String::new(),
    }
}

/// A notice as its own small message: `-# catching up on background activity...`.
#[must_use]
pub fn notice_text(text: &str) -> String {
    format!("-# {}", text.trim())
}

/// Length in characters (what Discord's limit counts).
#[must_use]
pub fn char_len(text: &str) -> usize {
    text.chars().count()
}

/// Whether `text` would show nothing (Discord refuses empty or blank messages).
#[must_use]
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// Byte index where a message holding `text` ends: all of it when it fits in
/// [`MAX_MESSAGE_CHARS`]; otherwise just after the last newline among the last
/// [`SPLIT_WINDOW_CHARS`] characters of the window, else just after the last space there,
/// else hard at the limit (STR-5). The separator stays with the first part, so the parts
/// always concatenate back to `text`, and the first part is never empty.
#[must_use]
pub fn split_point(text: &str) -> usize {
    let mut boundaries = text.char_indices().map(|(index, _)| index);
    let Some(tail_start) = boundaries.nth(MAX_MESSAGE_CHARS - SPLIT_WINDOW_CHARS) else {
        return text.len();
    };
    let Some(window_end) = boundaries.nth(SPLIT_WINDOW_CHARS - 1) else {
        return text.len();
    };
    let tail = &text[tail_start..window_end];
    tail.rfind('\n')
        .or_else(|| tail.rfind(' '))
        .map_or(window_end, |index| tail_start + index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_text_shows_seconds_from_one_on() {
        assert_eq!(status_text("Thinking", 0), "-# *Thinking...*");
        assert_eq!(status_text("Thinking", 1), "-# *Thinking... (1s)*");
        assert_eq!(
            status_text("Bash(ollim-bot tasks list)", 7),
            "-# *Bash(ollim-bot tasks list)... (7s)*"
        );
    }

    #[test]
    fn compaction_strings() {
        assert_eq!(
            compaction_label(Some(150_000)),
            "Auto-compacting 150k tokens"
        );
        assert_eq!(compaction_label(Some(90_600)), "Auto-compacting 91k tokens");
        assert_eq!(compaction_label(None), "Auto-compacting");
        assert_eq!(compaction_label(Some(0)), "Auto-compacting");
        assert_eq!(
            status_text(&compaction_label(Some(150_000)), 4),
            "-# *Auto-compacting 150k tokens... (4s)*"
        );
        assert_eq!(
            compaction_note(Some(150_000), 12),
            "-# *auto-compacted · 150k tokens · 12s*"
        );
        assert_eq!(compaction_note(None, 12), "-# *auto-compacted · 12s*");
        assert_eq!(
            compaction_note(Some(150_000), 0),
            "-# *auto-compacted · 150k tokens*"
        );
        assert_eq!(compaction_note(Some(0), 0), "-# *auto-compacted*");
    }

    #[test]
    fn tool_lines() {
        assert_eq!(
            tool_line("Read(reminders/foo.md)", ToolOutcome::Ran),
            "\n-# *Read(reminders/foo.md)*\n"
        );
        assert_eq!(
            tool_line("Bash(rm x)", ToolOutcome::Denied),
            "\n-# *~~Bash(rm x)~~ — denied (use /permissions default to approve)*\n"
        );
        assert_eq!(
            tool_line("Grep(x, src)", ToolOutcome::Failed),
            "\n-# *~~Grep(x, src)~~ — error*\n"
        );
    }

    #[test]
    fn outcomes_merge_denied_first() {
        use ToolOutcome::{Denied, Failed, Ran};
        assert_eq!(Ran.merge(Failed), Failed);
        assert_eq!(Failed.merge(Denied), Denied);
        assert_eq!(Denied.merge(Failed), Denied);
        assert_eq!(Denied.merge(Ran), Denied);
        assert_eq!(Ran.merge(Ran), Ran);
    }

    #[test]
    fn notice_is_small_text() {
        assert_eq!(
            notice_text("catching up on background activity..."),
            "-# catching up on background activity..."
        );
    }

    #[test]
    fn short_text_is_not_split() {
        assert_eq!(split_point(""), 0);
        assert_eq!(split_point("hello"), 5);
        let exact = "a".repeat(MAX_MESSAGE_CHARS);
        assert_eq!(split_point(&exact), exact.len());
    }

    #[test]
    fn splits_after_the_last_newline_in_the_window() {
        let text = format!(
            "{}\n{}\n{} tail",
            "a".repeat(1850),
            "b".repeat(100),
            "c".repeat(300)
        );
        let cut = split_point(&text);
        assert_eq!(cut, 1850 + 1 + 100 + 1);
        assert!(text[..cut].ends_with('\n'));
    }

    #[test]
    fn newline_before_the_window_is_ignored_for_a_space() {
        let text = format!(
            "{}\n{} {}",
            "a".repeat(1700),
            "b".repeat(200),
            "c".repeat(500)
        );
        let cut = split_point(&text);
        assert_eq!(cut, 1700 + 1 + 200 + 1);
        assert!(text[..cut].ends_with(' '));
    }

    #[test]
    fn splits_hard_without_a_boundary() {
        let text = format!("{} {}", "a".repeat(1700), "b".repeat(900));
        assert_eq!(split_point(&text), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn counts_characters_not_bytes() {
        let text = "é".repeat(2500);
        let cut = split_point(&text);
        assert_eq!(char_len(&text[..cut]), MAX_MESSAGE_CHARS);
        let emoji = format!("{}\n{}", "🙂".repeat(1900), "🙂".repeat(300));
        let cut = split_point(&emoji);
        assert_eq!(char_len(&emoji[..cut]), 1901);
    }

    #[test]
    fn newline_at_the_last_window_character_is_used() {
        let text = format!("{}\n{}", "a".repeat(1999), "b".repeat(10));
        assert_eq!(split_point(&text), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn blank_means_nothing_visible() {
        assert!(is_blank(""));
        assert!(is_blank(" \n\t"));
        assert!(!is_blank("\n-# *Read(a)*\n"));
    }
}
