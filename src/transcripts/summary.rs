//! A session at a glance, built line by line. Pure.

use chrono::{DateTime, Utc};

use super::entry::{Content, ParsedLine, Role};

/// One session's span, message counts and opening prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session id (the transcript's file stem).
    pub id: String,
    /// The first timestamp seen.
    pub start: Option<DateTime<Utc>>,
    /// The last timestamp seen.
    pub end: Option<DateTime<Utc>>,
    /// Prompts (text messages by the user; tool results are not counted).
    pub user_messages: usize,
    /// Replies by the model (one per API message, however many lines it took).
    pub assistant_messages: usize,
    /// The first prompt, whole.
    pub first_prompt: Option<String>,
    last_reply_id: Option<String>,
}

impl SessionSummary {
    /// An empty summary of session `id`.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            ..Self::default()
        }
    }

    /// Takes one parsed line into account.
    pub fn add(&mut self, line: &ParsedLine) {
        if let Some(time) = line.time {
            self.start = Some(self.start.map_or(time, |start| start.min(time)));
            self.end = Some(self.end.map_or(time, |end| end.max(time)));
        }
        let mut new_reply = false;
        for message in &line.messages {
            match (&message.role, &message.content) {
                (Role::User, Content::Text(text)) => {
                    self.user_messages += 1;
                    if self.first_prompt.is_none() {
                        self.first_prompt = Some(text.clone());
                    }
                }
                (Role::Assistant, _) => new_reply = true,
                _ => {}
            }
        }
        if new_reply {
            let same = line.reply_id.is_some() && line.reply_id == self.last_reply_id;
            if !same {
                self.assistant_messages += 1;
            }
            self.last_reply_id.clone_from(&line.reply_id);
        }
    }

    /// Whether the session saw any activity at or after `since`.
    pub fn active_since(&self, since: DateTime<Utc>) -> bool {
        self.end.is_some_and(|end| end >= since)
    }
}

/// `text` on one line (whitespace runs collapsed to one space), cut to at most `max` chars
/// with a trailing `…` when it was longer.
pub fn shorten(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        let extra = usize::from(count > 0) + word.chars().count();
        if count + extra > max {
            let room = max.saturating_sub(count + usize::from(count > 0) + 1);
            if count > 0 && room > 0 {
                out.push(' ');
            }
            out.extend(word.chars().take(room));
            out.push('…');
            return out;
        }
        if count > 0 {
            out.push(' ');
        }
        out.push_str(word);
        count += extra;
    }
    out
}
