//! A fake Discord (REST + gateway) on `127.0.0.1:<random port>` that the real
//! serenity 0.12.5 client connects to.
//!
//! Wiring a serenity client to it:
//!
//! ```ignore
//! let http = HttpBuilder::new(token)
//!     .proxy(fake.base_url())
//!     .ratelimiter_disabled(true) // REQUIRED: serenity ignores `.proxy()` while its ratelimiter is on
//!     .build();
//! let client = ClientBuilder::new_with_http(http, intents).event_handler(h).await?;
//! ```
//!
//! REST lives under `<base>/api/v10/...`, the gateway websocket at `<base>/gateway`
//! (returned by `GET /gateway` and `GET /gateway/bot`), attachments at
//! `<base>/attachments/<id>/<name>`. Every REST request is recorded
//! ([`RecordedRequest`]); messages the bot and the (injected) users post are kept per
//! channel ([`FakeMessage`]). Injected gateway events are numbered per session and
//! logged, so a RESUME replays what the client missed. Ids are `u64` here and strings
//! on the wire.
//!
//! Besides DMs, the fake holds guilds ([`FakeDiscord::add_guild`], roles, members, text
//! channels with [`FakeOverwrite`]s) and threads ([`FakeThread`]). READY lists every
//! guild as unavailable and a `GUILD_CREATE` follows for each. Guild events need their
//! intents (`GUILDS`, `GUILD_MESSAGES`, `GUILD_MESSAGE_REACTIONS`, …) and, for what
//! happens in a channel, the bot's `VIEW_CHANNEL` there, computed from roles and
//! overwrites like Discord does; the bot's REST calls in a guild channel are refused
//! (403 50001 / 50013) without the permissions Discord would require.
#![allow(dead_code)]

mod commands;
mod control;
mod faults;
mod gateway;
mod guild_inject;
mod guild_json;
mod guild_rest;
mod guilds;
mod inject;
mod interactions;
mod json;
mod messages;
mod model;
mod multipart;
mod picture;
mod rest;
mod state;
mod threads;
mod types;
mod validate;

#[cfg(test)]
mod guild_tests;
#[cfg(test)]
mod test_client;
#[cfg(test)]
mod thread_tests;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use serde_json::Value;

// Test binaries that do not use the fake would otherwise warn about these.
#[allow(unused_imports)]
pub use inject::FakeAttachment;
#[allow(unused_imports)]
pub use model::{DEFAULT_EVERYONE_PERMISSIONS, FakeOverwrite, FakeThread, OverwriteKind};
#[allow(unused_imports)]
pub use multipart::MultipartFile;
use state::{Inner, Shared};
pub(crate) use types::route_matches;
#[allow(unused_imports)]
pub use types::{FakeMessage, GatewayStats, MessageVersion, RecordedRequest};

/// Configuration of a [`FakeDiscord`]; start from `FakeConfig::default()`.
#[derive(Clone, Debug)]
pub struct FakeConfig {
    pub bot_user_id: u64,
    pub bot_name: String,
    /// Deliberately different from `bot_user_id` so mix-ups show.
    pub application_id: u64,
    /// The application owner (`GET /oauth2/applications/@me` → `owner`), or the
    /// team's `owner_user_id` when `team_owner` is set.
    pub owner_id: u64,
    pub owner_name: String,
    /// Answer application info in the team form (`owner` = team pseudo-user, `team`).
    pub team_owner: bool,
    /// Requests must carry `Authorization: Bot <valid_token>` (else 401); IDENTIFY and
    /// RESUME with another token are closed with 4004.
    pub valid_token: String,
    /// Answer this many `GET /gateway/bot` with 503 first.
    pub gateway_bot_503_count: u32,
    /// Answer this many `GET /gateway` with 503 first. CAREFUL: serenity's
    /// `ClientBuilder` then falls back to the real `wss://gateway.discord.gg`.
    pub gateway_503_count: u32,
    /// Close every IDENTIFY with this code (4004 bad token, 4014 disallowed intents…).
    pub close_on_identify: Option<u16>,
    /// Delay before answering `GET /oauth2/applications/@me`.
    pub owner_delay: Duration,
    /// HELLO's `heartbeat_interval` in milliseconds.
    pub heartbeat_interval_ms: u64,
    /// Like real Discord, dispatch `MESSAGE_CREATE/UPDATE/DELETE` for the bot's own DMs.
    pub echo_own_messages: bool,
    /// Bound of every convenience wait and of injection's wait for a session.
    pub wait_timeout: Duration,
    /// `flags` of `GET /applications/@me` (default `1 << 19`,
    /// `GATEWAY_MESSAGE_CONTENT_LIMITED`: the Message Content Intent is on).
    pub app_flags: u64,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            bot_user_id: 1_100_000_000_000_000_011,
            bot_name: "ollim".to_string(),
            application_id: 1_100_000_000_000_000_010,
            owner_id: 1_000_000_000_000_000_001,
            owner_name: "owner".to_string(),
            team_owner: false,
            valid_token: "fake-bot-token".to_string(),
            gateway_bot_503_count: 0,
            gateway_503_count: 0,
            close_on_identify: None,
            owner_delay: Duration::ZERO,
            heartbeat_interval_ms: 41_250,
            echo_own_messages: true,
            wait_timeout: Duration::from_secs(5),
            app_flags: 1 << 19,
        }
    }
}

/// A running fake Discord. Dropping it stops the server and every connection.
pub struct FakeDiscord {
    shared: Arc<Shared>,
    base_url: String,
    cfg: FakeConfig,
}

impl FakeDiscord {
    pub async fn start(cfg: FakeConfig) -> FakeDiscord {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake Discord");
        let addr = listener.local_addr().expect("fake Discord address");
        let base_url = format!("http://{addr}");
        let shared = Arc::new(Shared::new(Inner::new(cfg.clone(), base_url.clone())));
        let app = Router::new()
            .route("/gateway", get(gateway::upgrade))
            .route("/attachments/{id}/{name}", get(rest::attachment))
            .fallback(rest::handle)
            .layer(DefaultBodyLimit::max(64 << 20))
            .with_state(shared.clone());
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let stop = shared.cancel.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned());
            if let Err(err) = served.await {
                eprintln!("fake Discord server failed: {err}");
            }
        });
        FakeDiscord {
            shared,
            base_url,
            cfg,
        }
    }

    /// `http://127.0.0.1:<port>` — what the bot passes to `HttpBuilder::proxy`.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// `ws://127.0.0.1:<port>/gateway` (serenity appends `?v=10`).
    pub fn ws_url(&self) -> String {
        self.shared.lock().ws_url()
    }

    pub fn config(&self) -> &FakeConfig {
        &self.cfg
    }

    /// Registers a display name for a user id (default `user<digits>`).
    pub fn add_user(&self, user_id: u64, name: &str) {
        self.shared.lock().users.insert(user_id, name.to_string());
    }

    /// The DM channel id with `user_id` (created on first use, stable afterwards).
    pub fn dm_channel_id(&self, user_id: u64) -> u64 {
        let id = self.shared.lock().dm_channel(user_id);
        self.shared.notify();
        id
    }

    /// Every REST request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Requests matching `"METHOD /path/*"` (see [`RecordedRequest::matches`]).
    pub fn requests_matching(&self, pattern: &str) -> Vec<RecordedRequest> {
        let inner = self.shared.lock();
        inner
            .requests
            .iter()
            .filter(|r| r.matches(pattern))
            .cloned()
            .collect()
    }

    /// Requests no route handled (answered 404 `Not Found`).
    pub fn unknown_requests(&self) -> Vec<RecordedRequest> {
        let inner = self.shared.lock();
        inner
            .requests
            .iter()
            .filter(|r| !r.known_route)
            .cloned()
            .collect()
    }

    /// Live (not deleted) messages of a channel, oldest first.
    pub fn channel_messages(&self, channel_id: u64) -> Vec<FakeMessage> {
        let mut all = self.channel_history(channel_id);
        all.retain(|m| !m.deleted);
        all
    }

    /// Every message ever posted in the channel, deleted ones included.
    pub fn channel_history(&self, channel_id: u64) -> Vec<FakeMessage> {
        let inner = self.shared.lock();
        inner
            .channels
            .get(&channel_id)
            .map(|c| c.messages.clone())
            .unwrap_or_default()
    }

    pub fn message(&self, channel_id: u64, message_id: u64) -> Option<FakeMessage> {
        self.shared.lock().message(channel_id, message_id).cloned()
    }

    /// Application commands as last registered by the bot.
    pub fn commands(&self) -> Vec<Value> {
        self.shared.lock().commands.clone()
    }

    /// Polls `f` on every state change until it yields `Some`, or `timeout` passes.
    /// `f` runs under the state lock: predicates must not call back into the fake.
    async fn wait_state<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&Inner) -> Option<T>,
    ) -> Option<T> {
        let mut rx = self.shared.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            rx.borrow_and_update();
            if let Some(v) = f(&self.shared.lock()) {
                return Some(v);
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                _ => return f(&self.shared.lock()),
            }
        }
    }

    fn describe_requests(&self) -> String {
        let inner = self.shared.lock();
        let lines: Vec<String> = inner
            .requests
            .iter()
            .rev()
            .take(15)
            .rev()
            .map(|r| format!("  {} {} -> {}", r.method, r.path, r.status))
            .collect();
        format!("last requests:\n{}", lines.join("\n"))
    }

    /// Waits until `pred` holds for the request log; `None` on timeout.
    /// Predicates run under the fake's lock: never call the fake from one.
    pub async fn try_wait_for(
        &self,
        timeout: Duration,
        mut pred: impl FnMut(&[RecordedRequest]) -> bool,
    ) -> Option<Vec<RecordedRequest>> {
        self.wait_state(timeout, |i| pred(&i.requests).then(|| i.requests.clone()))
            .await
    }

    /// Waits until `pred` holds for the request log and returns the log; panics on timeout.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        pred: impl FnMut(&[RecordedRequest]) -> bool,
    ) -> Vec<RecordedRequest> {
        match self.try_wait_for(timeout, pred).await {
            Some(log) => log,
            None => panic!(
                "fake Discord: request predicate not met within {timeout:?}; {}",
                self.describe_requests()
            ),
        }
    }

    /// Waits for at least `n` requests matching `pattern`; returns them. Panics on timeout.
    pub async fn wait_for_requests(&self, pattern: &str, n: usize) -> Vec<RecordedRequest> {
        let found = self.wait_state(self.cfg.wait_timeout, |i| {
            let hits: Vec<_> = i
                .requests
                .iter()
                .filter(|r| r.matches(pattern))
                .cloned()
                .collect();
            (hits.len() >= n).then_some(hits)
        });
        match found.await {
            Some(hits) => hits,
            None => panic!(
                "fake Discord: no {n}x `{pattern}`; {}",
                self.describe_requests()
            ),
        }
    }

    /// Waits for the first request matching `pattern`. Panics on timeout.
    pub async fn wait_for_request(&self, pattern: &str) -> RecordedRequest {
        self.wait_for_requests(pattern, 1).await.remove(0)
    }

    /// Waits until a live message in `channel_id` satisfies `pred`; `None` on timeout.
    pub async fn try_wait_for_message_in(
        &self,
        channel_id: u64,
        timeout: Duration,
        mut pred: impl FnMut(&FakeMessage) -> bool,
    ) -> Option<FakeMessage> {
        self.wait_state(timeout, |i| {
            let channel = i.channels.get(&channel_id)?;
            channel
                .messages
                .iter()
                .find(|m| !m.deleted && pred(m))
                .cloned()
        })
        .await
    }

    /// Waits (up to `wait_timeout`) until a live message in `channel_id` satisfies `pred`
    /// (which runs under the fake's lock: never call the fake from it). Panics on timeout.
    pub async fn wait_for_message_in(
        &self,
        channel_id: u64,
        pred: impl FnMut(&FakeMessage) -> bool,
    ) -> FakeMessage {
        let timeout = self.cfg.wait_timeout;
        if let Some(m) = self
            .try_wait_for_message_in(channel_id, timeout, pred)
            .await
        {
            m
        } else {
            let now: Vec<String> = self
                .channel_messages(channel_id)
                .iter()
                .map(|m| format!("  {:?}", m.all_text()))
                .collect();
            panic!(
                "fake Discord: no matching message in {channel_id} within {timeout:?}; channel now:\n{}\n{}",
                now.join("\n"),
                self.describe_requests()
            )
        }
    }
}

impl Drop for FakeDiscord {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}
