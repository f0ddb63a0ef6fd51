//! Injection API: what the user "does" in the DM, delivered as gateway dispatches.
//!
//! Every injection first waits (up to `wait_timeout`) for a gateway session (READY
//! sent at least once). Events injected while the connection is down are buffered in
//! the session log and replayed on RESUME, like Discord does.

use serde_json::{Value, json};

use super::json::{self, sid};
use super::messages::{dispatch_message, dispatch_reaction};
use super::state::{Inner, InteractionState, StoredFile};
use super::{FakeDiscord, FakeMessage, guild_json, threads};

/// A file a user attaches to a DM; served at `<base>/attachments/<id>/<filename>`.
#[derive(Clone, Debug)]
pub struct FakeAttachment {
    pub filename: String,
    pub content_type: String,
    pub data: Vec<u8>,
}

impl FakeAttachment {
    pub fn new(filename: &str, content_type: &str, data: impl Into<Vec<u8>>) -> Self {
        FakeAttachment {
            filename: filename.to_string(),
            content_type: content_type.to_string(),
            data: data.into(),
        }
    }
}

/// An interaction's common fields: the DM shape, or the guild shape when `ch` is a guild
/// channel or thread.
pub(super) fn interaction(
    inner: &Inner,
    id: u64,
    kind: u8,
    token: &str,
    user: u64,
    ch: u64,
) -> Value {
    let mut d = json!({
        "id": sid(id),
        "application_id": sid(inner.cfg.application_id),
        "type": kind,
        "token": token,
        "version": 1,
        "channel_id": sid(ch),
        "channel": {"id": sid(ch), "type": 1, "flags": 0},
        "user": json::user(inner, user),
        "locale": "en-US",
        "entitlements": [],
        "context": 1,
        "attachment_size_limit": 10_485_760,
    });
    guild_json::guild_interaction(inner, &mut d, user, ch);
    d
}

impl FakeDiscord {
    pub(super) async fn wait_session(&self, what: &str) {
        let timeout = self.cfg.wait_timeout;
        let ready = self.wait_state(timeout, |i| i.current_session.is_some().then_some(()));
        assert!(
            ready.await.is_some(),
            "fake Discord: {what}: no gateway session (IDENTIFY → READY) within {timeout:?}"
        );
    }

    /// The user sends `content` in their DM with the bot (`MESSAGE_CREATE`). Returns the message id.
    pub async fn dm_from(&self, user_id: u64, content: &str) -> u64 {
        self.user_message("dm_from", user_id, content, Vec::new(), None)
            .await
    }

    /// The user writes `content` in their DM while the bot has no gateway session: stored
    /// only, so the bot sees it through REST (`GET /channels/{id}/messages`), never as an
    /// event. Returns the message id.
    pub fn dm_from_offline(&self, user_id: u64, content: &str) -> u64 {
        let id = {
            let mut inner = self.shared.lock();
            let ch = inner.dm_channel(user_id);
            let id = inner.snowflake();
            inner.push_message(FakeMessage {
                id,
                channel_id: ch,
                author_id: user_id,
                by_bot: false,
                content: content.to_string(),
                embeds: Vec::new(),
                components: Vec::new(),
                attachments: Vec::new(),
                flags: 0,
                kind: 0,
                reference: None,
                reactions: Vec::new(),
                history: Vec::new(),
                edited_at_ms: None,
                deleted: false,
                interaction_id: None,
            });
            id
        };
        self.shared.notify();
        id
    }

    /// A DM with attachments (downloadable from the fake).
    pub async fn dm_with_attachments(
        &self,
        user_id: u64,
        content: &str,
        attachments: Vec<FakeAttachment>,
    ) -> u64 {
        self.user_message("dm_with_attachments", user_id, content, attachments, None)
            .await
    }

    /// A DM replying to `referenced_message_id` (`message_reference` + `referenced_message`).
    pub async fn reply_to(&self, user_id: u64, content: &str, referenced_message_id: u64) -> u64 {
        self.user_message(
            "reply_to",
            user_id,
            content,
            Vec::new(),
            Some(referenced_message_id),
        )
        .await
    }

    async fn user_message(
        &self,
        what: &str,
        user: u64,
        content: &str,
        files: Vec<FakeAttachment>,
        reference: Option<u64>,
    ) -> u64 {
        self.wait_session(what).await;
        let id = {
            let mut inner = self.shared.lock();
            let ch = inner.dm_channel(user);
            post_as_user(&mut inner, what, user, ch, content, files, reference)
        };
        self.shared.notify();
        id
    }

    /// The user adds a reaction (`MESSAGE_REACTION_ADD`). `emoji`: `"👍"` or `"name:id"`.
    pub async fn react(&self, user_id: u64, channel_id: u64, message_id: u64, emoji: &str) {
        self.reaction("react", user_id, channel_id, message_id, emoji, true)
            .await;
    }

    /// The user removes their reaction (`MESSAGE_REACTION_REMOVE`).
    pub async fn unreact(&self, user_id: u64, channel_id: u64, message_id: u64, emoji: &str) {
        self.reaction("unreact", user_id, channel_id, message_id, emoji, false)
            .await;
    }

    async fn reaction(&self, what: &str, user: u64, ch: u64, mid: u64, emoji: &str, add: bool) {
        self.wait_session(what).await;
        {
            let mut inner = self.shared.lock();
            let Some(m) = inner.message_mut(ch, mid) else {
                panic!("fake Discord: {what}: no message {mid} in channel {ch}");
            };
            m.reactions.retain(|(e, u)| !(e == emoji && *u == user));
            if add {
                m.reactions.push((emoji.to_string(), user));
            }
            let author = m.author_id;
            dispatch_reaction(&mut inner, add, user, ch, mid, emoji, author);
        }
        self.shared.notify();
    }

    /// The user clicks a button (`INTERACTION_CREATE` type 3). Returns the interaction id.
    pub async fn click_button(
        &self,
        user_id: u64,
        channel_id: u64,
        message_id: u64,
        custom_id: &str,
    ) -> u64 {
        let data = json!({"custom_id": custom_id, "component_type": 2});
        self.component("click_button", user_id, channel_id, message_id, data)
            .await
    }

    /// The user picks `values` in a string select menu (`INTERACTION_CREATE` type 3).
    pub async fn select_menu(
        &self,
        user_id: u64,
        channel_id: u64,
        message_id: u64,
        custom_id: &str,
        values: &[&str],
    ) -> u64 {
        let data = json!({"custom_id": custom_id, "component_type": 3, "values": values});
        self.component("select_menu", user_id, channel_id, message_id, data)
            .await
    }

    async fn component(&self, what: &str, user: u64, ch: u64, mid: u64, data: Value) -> u64 {
        self.wait_session(what).await;
        let id = {
            let mut inner = self.shared.lock();
            let Some(message) = inner.message(ch, mid) else {
                panic!("fake Discord: {what}: no message {mid} in channel {ch}");
            };
            let message = json::message(&inner, message, true);
            let id = inner.snowflake();
            let token = format!("fake-interaction-token-{id}");
            let mut d = interaction(&inner, id, 3, &token, user, ch);
            d["data"] = data;
            d["message"] = message;
            Self::register(&mut inner, id, token, user, ch, Some(mid));
            inner.dispatch("INTERACTION_CREATE", d, 0);
            id
        };
        self.shared.notify();
        id
    }

    /// The user runs slash command `name` in the DM (`INTERACTION_CREATE` type 2).
    /// `options`: Discord's option array, e.g. `json!([{"name": "when", "type": 3, "value": "9am"}])`.
    pub async fn slash(&self, user_id: u64, name: &str, options: Value) -> u64 {
        self.wait_session("slash").await;
        let id = {
            let mut inner = self.shared.lock();
            let ch = inner.dm_channel(user_id);
            command_interaction(&mut inner, user_id, ch, name, options)
        };
        self.shared.notify();
        id
    }

    pub(super) fn register(
        inner: &mut Inner,
        id: u64,
        token: String,
        user: u64,
        ch: u64,
        message: Option<u64>,
    ) {
        let state = InteractionState {
            id,
            channel_id: ch,
            user_id: user,
            message_id: message,
            acked: false,
            original: None,
        };
        inner.interactions.insert(token, state);
    }

    /// The token of an injected interaction.
    pub fn interaction_token(&self, interaction_id: u64) -> Option<String> {
        let inner = self.shared.lock();
        inner
            .interactions
            .iter()
            .find(|(_, s)| s.id == interaction_id)
            .map(|(t, _)| t.clone())
    }

    /// Whether the bot acknowledged the interaction (any callback type).
    pub fn interaction_acked(&self, interaction_id: u64) -> bool {
        let inner = self.shared.lock();
        inner
            .interactions
            .values()
            .any(|s| s.id == interaction_id && s.acked)
    }

    /// The answer the owner ends up reading to an interaction: the callback's content, or
    /// — when the bot deferred it (type 5, a busy machine can make any command wait) — the
    /// content it later edits into the original response.
    pub async fn wait_for_answer(&self, interaction_id: u64) -> String {
        let callback = self.wait_for_callback(interaction_id).await;
        if callback["type"] != 5 {
            return callback["data"]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
        }
        let deadline = tokio::time::Instant::now() + self.cfg.wait_timeout;
        loop {
            let answered = {
                let inner = self.shared.lock();
                inner
                    .interactions
                    .values()
                    .find(|s| s.id == interaction_id)
                    .and_then(|s| Some((s.channel_id, s.original?)))
            }
            .and_then(|(channel, id)| self.message(channel, id))
            .map(|m| m.content)
            .filter(|content| !content.is_empty());
            if let Some(content) = answered {
                return content;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no answer to deferred interaction {interaction_id}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// Waits until the bot acknowledged the interaction; returns the callback body.
    pub async fn wait_for_callback(&self, interaction_id: u64) -> Value {
        let pattern = format!("POST /interactions/{interaction_id}/*/callback");
        let reqs = self.wait_for(self.cfg.wait_timeout, |log| {
            log.iter().any(|r| r.matches(&pattern) && r.status == 204)
        });
        let req = reqs
            .await
            .into_iter()
            .find(|r| r.matches(&pattern) && r.status == 204);
        req.and_then(|r| r.body).unwrap_or_default()
    }
}

/// Stores a message `user` writes in channel `ch` (attachments saved for download;
/// `reference` = the message replied to, which must be in `ch`), reopens an archived
/// thread, and dispatches `MESSAGE_CREATE`. Returns the message id.
pub(super) fn post_as_user(
    inner: &mut Inner,
    what: &str,
    user: u64,
    ch: u64,
    content: &str,
    files: Vec<FakeAttachment>,
    reference: Option<u64>,
) -> u64 {
    let id = store_as_user(inner, what, user, ch, content, files, reference);
    dispatch_message(inner, "MESSAGE_CREATE", ch, id);
    id
}

/// Stores `user`'s message in `ch` without telling the gateway (a message written while the
/// bot is away). Returns its id.
pub(super) fn store_as_user(
    inner: &mut Inner,
    what: &str,
    user: u64,
    ch: u64,
    content: &str,
    files: Vec<FakeAttachment>,
    reference: Option<u64>,
) -> u64 {
    if let Some(r) = reference {
        assert!(
            inner.message(ch, r).is_some(),
            "fake Discord: {what}: no message {r} in channel {ch}"
        );
    }
    let reopened = threads::reopen_for_post(inner, ch);
    assert!(
        reopened.is_ok(),
        "fake Discord: {what}: thread {ch} is archived and locked"
    );
    let mut attachments = Vec::new();
    for f in files {
        let id = inner.snowflake();
        let size = f.data.len();
        attachments.push(json::attachment(
            &inner.base_url,
            id,
            &f.filename,
            &f.content_type,
            size,
        ));
        inner.files.insert(
            id,
            StoredFile {
                content_type: f.content_type,
                data: f.data,
            },
        );
    }
    if let Some(t) = inner.thread_mut(ch)
        && !t.members.contains(&user)
    {
        t.members.push(user);
    }
    let id = inner.snowflake();
    inner.push_message(FakeMessage {
        id,
        channel_id: ch,
        author_id: user,
        by_bot: false,
        content: content.to_string(),
        embeds: Vec::new(),
        components: Vec::new(),
        attachments,
        flags: 0,
        kind: if reference.is_some() { 19 } else { 0 },
        reference,
        reactions: Vec::new(),
        history: Vec::new(),
        edited_at_ms: None,
        deleted: false,
        interaction_id: None,
    });
    id
}

/// Dispatches a slash command interaction (`INTERACTION_CREATE` type 2) by `user` in
/// `ch` (DM or guild shape, per the channel). Returns the interaction id.
pub(super) fn command_interaction(
    inner: &mut Inner,
    user: u64,
    ch: u64,
    name: &str,
    options: Value,
) -> u64 {
    let guild = inner.guild_of(ch);
    let command_id = super::commands::command_id(inner, guild, name);
    let id = inner.snowflake();
    let token = format!("fake-interaction-token-{id}");
    let mut d = interaction(inner, id, 2, &token, user, ch);
    let options = if options.is_array() {
        options
    } else {
        json!([])
    };
    d["data"] = json!({"id": sid(command_id), "name": name, "type": 1, "options": options});
    FakeDiscord::register(inner, id, token, user, ch, None);
    inner.dispatch("INTERACTION_CREATE", d, 0);
    id
}
