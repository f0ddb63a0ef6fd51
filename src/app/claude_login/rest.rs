//! The few Discord REST calls BOOT-4 makes before the bot connects: who owns the
//! application, their DM channel, sending a message and reading the owner's replies. Plain
//! `reqwest`, because serenity's client is only built later.

use serde_json::{Value, json};

use super::LoginError;

/// A bot-token REST client for `/api/v10`.
pub(crate) struct DiscordRest {
    client: reqwest::Client,
    base: String,
    token: String,
}

/// A message in a channel, as far as BOOT-4 cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Posted {
    pub(crate) id: u64,
    pub(crate) author: u64,
    pub(crate) content: String,
}

impl DiscordRest {
    /// A client for `api_url` (the base without `/api/v10`), else Discord itself.
    pub(crate) fn new(token: &str, api_url: Option<&str>) -> Self {
        Self {
            client: reqwest::Client::new(),
            base: crate::config::discord_rest_base(api_url),
            token: token.to_owned(),
        }
    }

    async fn call(&self, request: reqwest::RequestBuilder) -> Result<Value, LoginError> {
        let response = request
            .header("Authorization", format!("Bot {}", self.token))
            .send()
            .await
            .map_err(|error| LoginError::Discord(error.to_string()))?;
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(LoginError::InvalidToken);
        }
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if status.is_success() {
            Ok(body)
        } else {
            Err(LoginError::Discord(format!(
                "{status}: {}",
                body.get("message").and_then(Value::as_str).unwrap_or("")
            )))
        }
    }

    /// The application's owner: its user, or for a team-owned app the team's owner.
    pub(crate) async fn owner_id(&self) -> Result<u64, LoginError> {
        let info = self
            .call(
                self.client
                    .get(format!("{}/oauth2/applications/@me", self.base)),
            )
            .await?;
        let team_owner = info
            .get("team")
            .and_then(|team| id_of(team.get("owner_user_id")));
        team_owner
            .or_else(|| id_of(info.get("owner").and_then(|owner| owner.get("id"))))
            .ok_or_else(|| LoginError::Discord("the application has no owner".to_owned()))
    }

    /// Opens (or finds) the DM channel with `user`.
    pub(crate) async fn open_dm(&self, user: u64) -> Result<u64, LoginError> {
        let channel = self
            .call(
                self.client
                    .post(format!("{}/users/@me/channels", self.base))
                    .json(&json!({ "recipient_id": user.to_string() })),
            )
            .await?;
        id_of(channel.get("id"))
            .ok_or_else(|| LoginError::Discord("no channel id in the answer".to_owned()))
    }

    /// Posts `content` in `channel`; returns the message id.
    pub(crate) async fn send(&self, channel: u64, content: &str) -> Result<u64, LoginError> {
        let message = self
            .call(
                self.client
                    .post(format!("{}/channels/{channel}/messages", self.base))
                    .json(&json!({ "content": content })),
            )
            .await?;
        id_of(message.get("id"))
            .ok_or_else(|| LoginError::Discord("no message id in the answer".to_owned()))
    }

    /// Messages in `channel` newer than `after`, oldest first.
    pub(crate) async fn messages_after(
        &self,
        channel: u64,
        after: u64,
    ) -> Result<Vec<Posted>, LoginError> {
        let list = self
            .call(
                self.client
                    .get(format!("{}/channels/{channel}/messages", self.base))
                    .query(&[("after", after.to_string()), ("limit", "50".to_owned())]),
            )
            .await?;
        let mut posted: Vec<Posted> = list
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|message| {
                Some(Posted {
                    id: id_of(message.get("id"))?,
                    author: id_of(message.get("author").and_then(|a| a.get("id")))?,
                    content: message.get("content")?.as_str()?.to_owned(),
                })
            })
            .collect();
        posted.sort_by_key(|message| message.id);
        Ok(posted)
    }
}

/// A snowflake, sent by Discord as a string.
fn id_of(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::String(text) => text.parse().ok(),
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
}
