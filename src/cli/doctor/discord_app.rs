//! DISCORD (CMD-7): the token is accepted (`GET /users/@me`) and the application has the
//! Message Content Intent (`GET /applications/@me`, `flags`). One-shot REST calls with a
//! short timeout; offline is a warning, not a failure. The token is sent, never shown.

use crate::config::discord_rest_base;
use std::time::Duration;

use serde_json::Value;

use super::{Check, Group};
use crate::config::Launch;

/// How long each request may take.
const TIMEOUT: Duration = Duration::from_secs(5);
/// `GATEWAY_MESSAGE_CONTENT`: the intent is on (verified bots).
const MESSAGE_CONTENT: u64 = 1 << 18;
/// `GATEWAY_MESSAGE_CONTENT_LIMITED`: the intent is on (bots in under 100 servers).
const MESSAGE_CONTENT_LIMITED: u64 = 1 << 19;

/// What Discord said about the token and the application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DiscordProbe {
    /// `DISCORD_TOKEN` is not set (ENVIRONMENT already failed).
    NoToken,
    /// Discord could not be reached.
    Offline(String),
    /// 401: the token is wrong.
    Rejected,
    /// Another answer to `/users/@me`.
    Unexpected(String),
    /// The token works.
    Accepted {
        /// The bot's user name.
        bot: String,
        /// The application's flags, or why they could not be read.
        flags: AppFlags,
    },
}

/// The application's `flags`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AppFlags {
    /// Read.
    Known(u64),
    /// Discord could not be reached for the second request.
    Offline(String),
    /// Another answer.
    Unreadable(String),
}

/// The DISCORD group.
pub(super) async fn discord_checks(launch: &Launch) -> Vec<Check> {
    let probe = match launch.var("DISCORD_TOKEN").filter(|t| !t.trim().is_empty()) {
        Some(token) => {
            probe(
                &discord_rest_base(launch.var("OLLIM_DISCORD_API_URL").as_deref()),
                token.trim(),
            )
            .await
        }
        None => DiscordProbe::NoToken,
    };
    probe_checks(&probe)
}

/// Asks Discord about the token, then the application.
pub(super) async fn probe(api: &str, token: &str) -> DiscordProbe {
    let client = match reqwest::Client::builder().timeout(TIMEOUT).build() {
        Ok(client) => client,
        Err(error) => return DiscordProbe::Offline(error_chain(&error)),
    };
    let get = |path: &str| {
        client
            .get(format!("{api}/{path}"))
            .header("Authorization", format!("Bot {token}"))
            .send()
    };
    let user = match get("users/@me").await {
        Ok(response) => response,
        Err(error) => return DiscordProbe::Offline(error_chain(&error)),
    };
    match user.status().as_u16() {
        200 => {}
        401 => return DiscordProbe::Rejected,
        other => return DiscordProbe::Unexpected(format!("HTTP {other}")),
    }
    let bot = user
        .json::<Value>()
        .await
        .ok()
        .and_then(|body| body.get("username")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned());
    let flags = match get("applications/@me").await {
        Err(error) => AppFlags::Offline(error_chain(&error)),
        Ok(response) if response.status().is_success() => match response.json::<Value>().await {
            Ok(body) => body.get("flags").and_then(Value::as_u64).map_or_else(
                || AppFlags::Unreadable("no flags in the answer".into()),
                AppFlags::Known,
            ),
            Err(error) => AppFlags::Unreadable(error_chain(&error)),
        },
        Ok(response) => AppFlags::Unreadable(format!("HTTP {}", response.status().as_u16())),
    };
    DiscordProbe::Accepted { bot, flags }
}

/// An error and its causes on one line (reqwest's own message hides the cause).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The lines for what Discord said.
pub(super) fn probe_checks(probe: &DiscordProbe) -> Vec<Check> {
    let group = Group::Discord;
    match probe {
        DiscordProbe::NoToken => vec![Check::warn(
            group,
            "skipped: DISCORD_TOKEN is not set (see ENVIRONMENT)",
        )],
        DiscordProbe::Offline(error) => {
            vec![Check::warn(group, format!("skipped: offline ({error})"))]
        }
        DiscordProbe::Rejected => vec![Check::fail(
            group,
            "token rejected (401): copy a fresh one from the Developer Portal (Bot → Reset \
             Token) into DISCORD_TOKEN",
        )],
        DiscordProbe::Unexpected(answer) => vec![Check::fail(
            group,
            format!("token check failed ({answer}): try again later, or check DISCORD_TOKEN"),
        )],
        DiscordProbe::Accepted { bot, flags } => {
            vec![
                Check::pass(group, format!("token accepted (bot {bot})")),
                intent_check(flags),
            ]
        }
    }
}

/// Whether the Message Content Intent is on.
fn intent_check(flags: &AppFlags) -> Check {
    let group = Group::Discord;
    match flags {
        AppFlags::Known(flags) if flags & (MESSAGE_CONTENT | MESSAGE_CONTENT_LIMITED) != 0 => {
            Check::pass(group, "Message Content Intent is on")
        }
        AppFlags::Known(_) => Check::fail(
            group,
            "Message Content Intent is off: turn on Message Content Intent in the Developer \
             Portal (Bot → Privileged Gateway Intents)",
        ),
        AppFlags::Offline(error) => Check::warn(
            group,
            format!("Message Content Intent: skipped: offline ({error})"),
        ),
        AppFlags::Unreadable(why) => Check::warn(
            group,
            format!(
                "Message Content Intent: can't tell ({why}): check it in the Developer Portal \
                 (Bot → Privileged Gateway Intents)"
            ),
        ),
    }
}
