//! Public data types of the fake: recorded requests, stored messages, gateway stats.

use std::time::Instant;

use serde_json::Value;

use super::MultipartFile;
/// One REST request the fake received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    /// Path without the `/api/v10` prefix, e.g. `/channels/1/messages` (other
    /// paths are kept whole).
    pub path: String,
    /// Raw query string, e.g. `&after=1&limit=50` (serenity starts it with `&`).
    pub query: Option<String>,
    pub authorization: Option<String>,
    /// JSON body, or a multipart request's `payload_json`.
    pub body: Option<Value>,
    /// Multipart file parts (`files[N]`).
    pub files: Vec<MultipartFile>,
    /// Status the fake answered with.
    pub status: u16,
    /// False when no route matched (answered 404).
    pub known_route: bool,
    /// Arrival time.
    pub at: Instant,
}

impl RecordedRequest {
    /// Matches `"METHOD /path/with/*/globs"` (one `*` = one path segment).
    pub fn matches(&self, pattern: &str) -> bool {
        route_matches(pattern, &self.method, &self.path)
    }

    /// A query parameter's value.
    pub fn query_param(&self, name: &str) -> Option<String> {
        let query = self.query.as_deref()?;
        query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then(|| v.to_string())
        })
    }
}

pub(crate) fn route_matches(pattern: &str, method: &str, path: &str) -> bool {
    let Some((pm, pp)) = pattern.split_once(' ') else {
        return false;
    };
    if pm != "*" && !pm.eq_ignore_ascii_case(method) {
        return false;
    }
    let want: Vec<&str> = pp.trim_matches('/').split('/').collect();
    let got: Vec<&str> = path.trim_matches('/').split('/').collect();
    want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| *w == "*" || w == g)
}

/// One earlier version of an edited message.
#[derive(Clone, Debug)]
pub struct MessageVersion {
    pub content: String,
    pub embeds: Vec<Value>,
    pub components: Vec<Value>,
}

/// A message in the fake's channel store (posted by the bot or injected).
#[derive(Clone, Debug)]
pub struct FakeMessage {
    pub id: u64,
    pub channel_id: u64,
    pub author_id: u64,
    pub by_bot: bool,
    pub content: String,
    pub embeds: Vec<Value>,
    pub components: Vec<Value>,
    pub attachments: Vec<Value>,
    pub flags: u64,
    /// Message type: 0 default, 19 reply, 20 chat-input command response.
    pub kind: u8,
    /// The message this one replies to.
    pub reference: Option<u64>,
    /// `(emoji, user_id)`; emoji as sent (`"👍"` or `"name:id"`).
    pub reactions: Vec<(String, u64)>,
    /// Versions before each edit, oldest first.
    pub history: Vec<MessageVersion>,
    pub edited_at_ms: Option<u64>,
    pub deleted: bool,
    /// Set when the message is an interaction response / follow-up.
    pub interaction_id: Option<u64>,
}

impl FakeMessage {
    /// The first button `custom_id` starting with `prefix` (e.g. `act:tools_approve:`).
    pub fn button_id(&self, prefix: &str) -> String {
        let text = serde_json::to_string(&self.components).unwrap();
        let start = text.find(prefix).expect("the button");
        let end = text[start..].find('"').unwrap() + start;
        text[start..end].to_owned()
    }

    /// Content plus every embed's title, description and field texts, newline-joined.
    pub fn all_text(&self) -> String {
        let mut parts = vec![self.content.clone()];
        for e in &self.embeds {
            for key in ["title", "description"] {
                if let Some(s) = e.get(key).and_then(Value::as_str) {
                    parts.push(s.to_string());
                }
            }
            for f in e
                .get("fields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for key in ["name", "value"] {
                    if let Some(s) = f.get(key).and_then(Value::as_str) {
                        parts.push(s.to_string());
                    }
                }
            }
        }
        parts.retain(|p| !p.is_empty());
        parts.join("\n")
    }

    /// `custom_id`s of every component (buttons, selects) on the message.
    pub fn custom_ids(&self) -> Vec<String> {
        let rows = self.components.iter();
        rows.filter_map(|row| row.get("components").and_then(Value::as_array).cloned())
            .flatten()
            .filter_map(|c| {
                c.get("custom_id")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect()
    }
}

/// What happened on the gateway so far.
#[derive(Clone, Debug, Default)]
pub struct GatewayStats {
    /// Query string of every websocket connection (serenity sends `v=10`).
    pub connections: Vec<String>,
    /// When each websocket connection was opened, as time since the fake started.
    pub connected_at: Vec<std::time::Duration>,
    /// `d` of every IDENTIFY (token included).
    pub identifies: Vec<Value>,
    /// `d` of every RESUME.
    pub resumes: Vec<Value>,
    pub heartbeats: u64,
    /// Any other frame the client sent (presence updates, …).
    pub other_frames: Vec<Value>,
    /// Close codes the fake sent.
    pub closes_sent: Vec<u16>,
    /// Close codes the client sent (`None` = close frame without code).
    pub client_closes: Vec<Option<u16>>,
    /// Dispatches withheld because the session's intents lacked the needed bit.
    pub filtered: Vec<String>,
    /// Session ids of every READY sent.
    pub sessions: Vec<String>,
    /// Dispatch frames re-sent by RESUMEs (missed while disconnected).
    pub replayed: u64,
    /// Websocket connections refused while the gateway was out of reach.
    pub refused: u64,
}
