//! Gmail v1, read-only (GOO-7): search message ids (all pages up to a maximum), read a
//! message's headers or its whole payload, list labels; and the [`GmailRequest`]s the command
//! and the agent's tool share. There is no call here that sends, changes or deletes mail, and
//! the token only carries `gmail.readonly`.

mod body;
mod request;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use reqwest::Method;
use serde::{Deserialize, Serialize};

pub use body::{BODY_LIMIT, text_body, truncate_body};
pub use request::{
    DEFAULT_MAX_MESSAGES, GmailRequest, MAX_MESSAGES, MessageRow, UNREAD_QUERY, label_lines,
    message_lines, message_text,
};

use super::{Api, GoogleClient, GoogleError, tasks::segment};

/// A message part (the payload is the root part).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// MIME type.
    #[serde(default)]
    pub mime_type: String,
    /// Headers (root part).
    #[serde(default)]
    pub headers: Vec<Header>,
    /// The part's own data.
    #[serde(default)]
    pub body: PartBody,
    /// Nested parts.
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// A header.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// Name (`From`, `Subject`…).
    pub name: String,
    /// Value.
    pub value: String,
}

/// A part's data, base64url.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PartBody {
    /// The data, when inline.
    #[serde(default)]
    pub data: Option<String>,
}

/// A message (metadata or full).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// The id.
    pub id: String,
    /// Received time, epoch milliseconds as a string.
    #[serde(default)]
    pub internal_date: Option<String>,
    /// The root part.
    #[serde(default)]
    pub payload: Part,
}

impl Message {
    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.payload
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// When it was received.
    pub fn received(&self) -> Option<DateTime<Utc>> {
        let millis: i64 = self.internal_date.as_deref()?.trim().parse().ok()?;
        Utc.timestamp_millis_opt(millis).single()
    }

    /// `YYYY-MM-DD HH:MM` in `tz`, or `(no date)` (GOO-7).
    pub fn received_local(&self, tz: Tz) -> String {
        match self.received() {
            Some(at) => at.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string(),
            None => "(no date)".to_owned(),
        }
    }
}

/// The display name of a `From` header (`"Ann B" <ann@x>` → `Ann B`), else the header.
pub fn sender_name(from: &str) -> String {
    match from.split_once('<') {
        Some((name, address)) => {
            let name = name.trim().trim_matches('"').trim();
            if name.is_empty() {
                address.trim_end_matches('>').trim().to_owned()
            } else {
                name.to_owned()
            }
        }
        None => from.trim().to_owned(),
    }
}

/// A label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// Label id.
    pub id: String,
    /// Name.
    pub name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdPage {
    #[serde(default)]
    messages: Vec<IdStub>,
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
struct IdStub {
    id: String,
}

#[derive(Deserialize)]
struct Labels {
    #[serde(default)]
    labels: Vec<Label>,
}

impl GoogleClient {
    /// Ids of the messages matching `query` (Gmail search syntax), newest first, at most
    /// `max`, following pages.
    pub async fn search_messages(
        &self,
        query: &str,
        max: usize,
    ) -> Result<Vec<String>, GoogleError> {
        let url = self.url(Api::Gmail, "users/me/messages");
        let mut ids = Vec::new();
        let mut page_token: Option<String> = None;
        while ids.len() < max {
            let mut params = vec![
                ("q", query.to_owned()),
                ("maxResults", (max - ids.len()).min(500).to_string()),
            ];
            if let Some(token) = &page_token {
                params.push(("pageToken", token.clone()));
            }
            let page: IdPage = self
                .call(Api::Gmail, Method::GET, &url, &params, None)
                .await?;
            ids.extend(page.messages.into_iter().map(|m| m.id));
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(token) => page_token = Some(token),
                None => break,
            }
        }
        ids.truncate(max);
        Ok(ids)
    }

    /// A message's `From`, `Subject` and date.
    pub async fn message_metadata(&self, id: &str) -> Result<Message, GoogleError> {
        let url = self.url(Api::Gmail, &format!("users/me/messages/{}", segment(id)));
        let query = [
            ("format", "metadata".to_owned()),
            ("metadataHeaders", "From".to_owned()),
            ("metadataHeaders", "Subject".to_owned()),
        ];
        self.call(Api::Gmail, Method::GET, &url, &query, None).await
    }

    /// A whole message.
    pub async fn message_full(&self, id: &str) -> Result<Message, GoogleError> {
        let url = self.url(Api::Gmail, &format!("users/me/messages/{}", segment(id)));
        let query = [("format", "full".to_owned())];
        self.call(Api::Gmail, Method::GET, &url, &query, None).await
    }

    /// Every label.
    pub async fn list_labels(&self) -> Result<Vec<Label>, GoogleError> {
        let url = self.url(Api::Gmail, "users/me/labels");
        let labels: Labels = self.call(Api::Gmail, Method::GET, &url, &[], None).await?;
        Ok(labels.labels)
    }
}

#[cfg(test)]
mod tests;
