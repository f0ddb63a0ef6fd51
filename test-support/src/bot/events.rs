//! What tests wait for and read back on a running bot, once: the greeting, a line in its log,
//! the webhook server's port, the stored main session.

use std::time::Duration;

use super::BotHarness;
use crate::{fake_discord::FakeMessage, wait};

/// What the daemon logs once its webhook server is bound (`webhooks::start`), followed by the
/// address: how a test learns the port when it asked for `WEBHOOK_PORT=0`.
pub const WEBHOOK_STARTED: &str = "Webhook server started on ";

impl BotHarness {
    /// Waits for the daily greeting in the owner's DM (its "what's on your plate today").
    pub async fn greeted(&self) -> FakeMessage {
        self.wait_for_bot_message("greeting", |m| m.content.contains("plate today"))
            .await
    }

    /// Waits for a bot message whose first embed is titled `title` (a fork's entry or exit).
    pub async fn wait_for_embed(&self, title: &str) -> FakeMessage {
        self.wait_for_bot_message(title, |m| {
            m.embeds.first().is_some_and(|e| e["title"] == title)
        })
        .await
    }

    /// Waits until the turn of the owner's DM `sent` is over: the bot removed its 👀 from it,
    /// which it does once every part of the reply is posted (only a context warning or an
    /// error reply come after).
    pub async fn wait_turn_over(&self, sent: u64) {
        let eyes = format!("DELETE /channels/*/messages/{sent}/reactions/*/@me");
        let removed = self
            .discord
            .try_wait_for(Duration::from_secs(40), |log| {
                log.iter().any(|r| r.matches(&eyes))
            })
            .await;
        assert!(removed.is_some(), "👀 never removed\n{}", self.log());
    }

    /// Waits until the bot's log has `marker` at least `count` times; panics with the log
    /// after `within`.
    pub async fn wait_for_log_count(&self, marker: &str, count: usize, within: Duration) {
        wait::until_true(
            &format!("{count}× {marker:?} in the log"),
            within,
            || self.log().matches(marker).count() >= count,
            || self.log(),
        )
        .await;
    }

    /// Waits until the bot's log has `marker`; panics with the log after `within`.
    pub async fn wait_for_log(&self, marker: &str, within: Duration) {
        self.wait_for_log_count(marker, 1, within).await;
    }

    /// The port of the bot's webhook server, from its start-up line (so `WEBHOOK_PORT=0` lets
    /// the OS pick a free one); waits for that line up to 30 s. The server accepts from then on.
    pub async fn webhook_port(&self) -> u16 {
        wait::eventually(
            "the webhook server to listen",
            Duration::from_secs(30),
            || webhook_port_in(&self.log()),
            || self.log(),
        )
        .await
    }

    /// The main session id in `state/sessions.json`, if one is stored.
    pub fn stored_session(&self) -> Option<String> {
        self.sandbox.stored_session()
    }

    /// Waits (up to 10 s) for a main session id in `state/sessions.json`: the bot stores it
    /// once the CLI named it, which may be a moment after the first reply is posted.
    pub async fn wait_stored_session(&self) -> String {
        wait::eventually(
            "a stored main session",
            Duration::from_secs(10),
            || self.stored_session(),
            || self.log(),
        )
        .await
    }
}

/// The port in the log's webhook start-up line, if it is there.
pub fn webhook_port_in(log: &str) -> Option<u16> {
    let (_, rest) = log.split_once(WEBHOOK_STARTED)?;
    let addr = rest.split_whitespace().next()?;
    addr.parse::<std::net::SocketAddr>().ok().map(|a| a.port())
}
