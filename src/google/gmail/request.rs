//! The Gmail requests (GOO-7) that the `gmail` command and the agent's `gmail` tool share:
//! message listings with their sender and subject, one message's text, the labels; each
//! answered with the text both show. Read-only, like everything in [`super`].

use chrono_tz::Tz;

use super::{Label, Message, sender_name, text_body, truncate_body};
use crate::google::{GoogleClient, RequestError, lines_or, missing};

/// How many messages a listing shows unless told.
pub const DEFAULT_MAX_MESSAGES: u32 = 20;
/// The most messages one listing may ask for.
pub const MAX_MESSAGES: u32 = 500;
/// The Gmail search of `unread`.
pub const UNREAD_QUERY: &str = "is:unread";

/// One Gmail request (GOO-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GmailRequest {
    /// The messages matching a Gmail search (`is:unread` for `unread`), newest first.
    List {
        /// The Gmail search.
        query: String,
        /// At most this many.
        max: u32,
    },
    /// One message's headers and text.
    Read {
        /// Message id.
        id: String,
    },
    /// Every label.
    Labels,
}

/// A listed message with its display sender and subject (GOO-7 fallbacks applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    /// The message's metadata.
    pub message: Message,
    /// The sender's display name, or `(unknown)`.
    pub sender: String,
    /// The subject, or `(no subject)`.
    pub subject: String,
}

impl GoogleClient {
    /// The messages matching `query`, newest first, at most `max`, with senders and subjects.
    pub async fn message_rows(
        &self,
        query: &str,
        max: u32,
    ) -> Result<Vec<MessageRow>, RequestError> {
        let ids = self.search_messages(query, max as usize).await?;
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            let message = self
                .message_metadata(&id)
                .await
                .map_err(missing(format!("message {id}")))?;
            let sender = sender_name(message.header("From").unwrap_or("(unknown)"));
            let subject = message
                .header("Subject")
                .filter(|s| !s.is_empty())
                .unwrap_or("(no subject)")
                .to_owned();
            rows.push(MessageRow {
                message,
                sender,
                subject,
            });
        }
        Ok(rows)
    }

    /// Runs `request`, dates in `tz`; the answer's text has no trailing newline.
    pub async fn run_gmail(&self, tz: Tz, request: GmailRequest) -> Result<String, RequestError> {
        Ok(match request {
            GmailRequest::List { query, max } => {
                message_lines(&self.message_rows(&query, max).await?, tz)
            }
            GmailRequest::Read { id } => {
                let message = self
                    .message_full(&id)
                    .await
                    .map_err(missing(format!("message {id}")))?;
                message_text(&message, tz)
            }
            GmailRequest::Labels => label_lines(&self.list_labels().await?),
        })
    }
}

/// `  <id>  <date>  <sender>  <subject>` per message, senders padded to the longest so the
/// subjects line up, or `no messages` (GOO-7).
pub fn message_lines(rows: &[MessageRow], tz: Tz) -> String {
    let width = rows
        .iter()
        .map(|row| row.sender.chars().count())
        .max()
        .unwrap_or(0);
    lines_or(rows, "no messages", |row| {
        let date = row.message.received_local(tz);
        format!(
            "  {}  {date:<16}  {:<width$}  {}",
            row.message.id, row.sender, row.subject
        )
    })
}

/// The `read` text (GOO-7): `from:`, `to:`, `date:`, `subject:`, a blank line and the body
/// (cut at [`super::BODY_LIMIT`]) or `(no text body)`; no trailing newline.
pub fn message_text(message: &Message, tz: Tz) -> String {
    let header = |name: &str, fallback: &'static str| {
        message
            .header(name)
            .filter(|v| !v.is_empty())
            .unwrap_or(fallback)
            .to_owned()
    };
    let body = text_body(&message.payload).map_or_else(
        || "(no text body)".to_owned(),
        |body| truncate_body(body.trim_end()),
    );
    format!(
        "from:    {}\nto:      {}\ndate:    {}\nsubject: {}\n\n{body}",
        header("From", "(unknown)"),
        header("To", "(unknown)"),
        message.received_local(tz),
        header("Subject", "(no subject)"),
    )
}

/// `  <id>  <name>` per label, or `no labels`.
pub fn label_lines(labels: &[Label]) -> String {
    lines_or(labels, "no labels", |label| {
        format!("  {}  {}", label.id, label.name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, sender: &str) -> MessageRow {
        MessageRow {
            message: Message {
                id: id.to_owned(),
                internal_date: Some("1772355600000".to_owned()),
                ..Message::default()
            },
            sender: sender.to_owned(),
            subject: "Hi".to_owned(),
        }
    }

    #[test]
    fn listings_pad_senders_and_say_when_empty() {
        let rows = [row("m1", "Ann"), row("m2", "Bartholomew")];
        assert_eq!(
            message_lines(&rows, Tz::UTC),
            "  m1  2026-03-01 09:00  Ann          Hi\n  m2  2026-03-01 09:00  Bartholomew  Hi"
        );
        assert_eq!(message_lines(&[], Tz::UTC), "no messages");
        assert_eq!(label_lines(&[]), "no labels");
    }

    #[test]
    fn a_message_without_text_says_so() {
        let text = message_text(&Message::default(), Tz::UTC);
        assert_eq!(
            text,
            "from:    (unknown)\nto:      (unknown)\ndate:    (no date)\nsubject: (no subject)\n\n\
             (no text body)"
        );
    }
}
