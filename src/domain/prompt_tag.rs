//! The tag in front of a scheduled or system prompt (CTX-8).

use std::fmt;

/// The marker at the start of a scheduled or system prompt that tells the agent where the
/// prompt came from (CTX-8). `Display` renders the literal tag, e.g. `[routine-bg:a1b2c3d4]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptTag {
    /// Foreground routine running in the main session: `[routine:ID]`.
    Routine(String),
    /// Background routine: `[routine-bg:ID]`.
    RoutineBg(String),
    /// Foreground reminder running in the main session: `[reminder:ID]`.
    Reminder(String),
    /// Background reminder: `[reminder-bg:ID]`.
    ReminderBg(String),
    /// Webhook-triggered background run: `[webhook:ID]`.
    Webhook(String),
    /// An interactive fork has just started: `[fork-started]`.
    ForkStarted,
    /// Idle-timeout prompt inside an interactive fork: `[fork-timeout]`.
    ForkTimeout,
    /// A button click that dispatches a prompt outside a fork resume: `[button]`.
    Button,
    /// An internal instruction from the bot itself: `[system]`.
    System,
}

impl PromptTag {
    /// The job id carried by routine, reminder and webhook tags; `None` for the others.
    pub fn id(&self) -> Option<&str> {
        match self {
            PromptTag::Routine(id)
            | PromptTag::RoutineBg(id)
            | PromptTag::Reminder(id)
            | PromptTag::ReminderBg(id)
            | PromptTag::Webhook(id) => Some(id),
            PromptTag::ForkStarted
            | PromptTag::ForkTimeout
            | PromptTag::Button
            | PromptTag::System => None,
        }
    }

    /// The tag's kind as written before the colon (`routine-bg`, `fork-started`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            PromptTag::Routine(_) => "routine",
            PromptTag::RoutineBg(_) => "routine-bg",
            PromptTag::Reminder(_) => "reminder",
            PromptTag::ReminderBg(_) => "reminder-bg",
            PromptTag::Webhook(_) => "webhook",
            PromptTag::ForkStarted => "fork-started",
            PromptTag::ForkTimeout => "fork-timeout",
            PromptTag::Button => "button",
            PromptTag::System => "system",
        }
    }
}

impl fmt::Display for PromptTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id() {
            Some(id) => write!(f, "[{}:{id}]", self.kind()),
            None => write!(f, "[{}]", self.kind()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_tags_render() {
        let cases = [
            (PromptTag::Routine("a1".into()), "[routine:a1]"),
            (PromptTag::RoutineBg("a1".into()), "[routine-bg:a1]"),
            (PromptTag::Reminder("b2".into()), "[reminder:b2]"),
            (PromptTag::ReminderBg("b2".into()), "[reminder-bg:b2]"),
            (
                PromptTag::Webhook("github-ci".into()),
                "[webhook:github-ci]",
            ),
            (PromptTag::ForkStarted, "[fork-started]"),
            (PromptTag::ForkTimeout, "[fork-timeout]"),
            (PromptTag::Button, "[button]"),
            (PromptTag::System, "[system]"),
        ];
        for (tag, expected) in cases {
            assert_eq!(tag.to_string(), expected);
        }
        assert_eq!(PromptTag::Webhook("w".into()).id(), Some("w"));
        assert_eq!(PromptTag::Button.id(), None);
    }
}
