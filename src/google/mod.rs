//! Google Tasks, Calendar and Gmail (GOO-1…9): the owner's OAuth files, the consent flow,
//! one API client, and the operations the `tasks` / `cal` / `gmail` commands, the agent's
//! `google_tasks` / `google_calendar` / `gmail` tools and the embed buttons use. Gmail is
//! read-only: nothing here can send, change or delete mail.
//!
//! Layer: beside `state`; imports `state` (and plain types) only.
//! - [`files`]: `credentials.json`, `token.json` (atomic, 0600), the revocation marker.
//! - [`oauth`]: the consent URL (PKCE, `state`), code exchange, refresh.
//! - [`loopback`]: the 127.0.0.1 listener and the pasted-URL path, first one wins.
//! - [`client`]: [`GoogleClient`]: token loading and refresh, retries, error mapping.
//! - [`tasks`], [`calendar`], [`gmail`]: the API operations and their plain types, and the
//!   requests the commands and the tools share (`TaskRequest`, `CalendarRequest`,
//!   `GmailRequest`): one typed request in, the text both show out.

pub mod calendar;
pub mod client;
pub mod files;
pub mod gmail;
pub mod loopback;
pub mod oauth;
pub mod tasks;

use std::path::PathBuf;

pub use client::{Api, GoogleClient};
pub use files::GoogleFiles;

use crate::state::StateError;

/// Why a consent flow did not connect Google.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// `credentials.json` holds an endpoint that isn't a URL, or the like.
    #[error("the Google OAuth client is misconfigured: {0}")]
    Config(String),
    /// The loopback listener could not be opened.
    #[error("could not listen on 127.0.0.1 for Google's answer: {0}")]
    Listener(String),
    /// Nobody answered within the flow's time.
    #[error("Google sign-in timed out")]
    TimedOut,
    /// The consent screen answered with `error=…` (the owner pressed Cancel, say).
    #[error("Google sign-in was refused: {0}")]
    Denied(String),
    /// The code could not be exchanged for tokens.
    #[error("could not exchange the Google sign-in code: {0}")]
    Exchange(String),
}

/// Why a Google call failed. The texts tell the owner what to do; they are shown as
/// `error: …` by the commands and `failed: …` by the buttons.
#[derive(Debug, thiserror::Error)]
pub enum GoogleError {
    /// No `credentials.json`.
    #[error("Google credentials not found at {}", path.display())]
    NoCredentials {
        /// Where it was expected.
        path: PathBuf,
    },
    /// `credentials.json` is not a Desktop-app OAuth client file.
    #[error("{} can't be used: {reason}", path.display())]
    BadCredentials {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `token.json` exists but can't be read as a token.
    #[error("{} can't be read ({reason}); delete it and reconnect with /google-auth", path.display())]
    BadToken {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// No usable token: nobody connected Google yet.
    #[error(
        "Google is not connected: use /google-auth in Discord, or run `ollim-bot google auth` \
         in a terminal"
    )]
    NotConnected,
    /// The refresh token was refused for good; the token was removed (GOO-2).
    #[error("Google access was revoked or has expired: use /google-auth in Discord to reconnect")]
    Revoked,
    /// Refreshing failed for a reason that may pass.
    #[error("could not refresh the Google token ({0}); try again in a moment")]
    RefreshFailed(String),
    /// 401 even with a fresh token.
    #[error("Google rejected the credentials (401): reconnect with /google-auth")]
    Unauthorized,
    /// 403: the API is not enabled in the owner's Cloud project.
    #[error(
        "the {} is not enabled for your Google Cloud project: enable it at \
         console.cloud.google.com (APIs & Services → Library), then retry",
        api.console_name()
    )]
    ApiDisabled {
        /// Which API.
        api: Api,
    },
    /// 403: the token lacks a scope (connected before that scope was added).
    #[error(
        "the Google token lacks a permission this needs: delete state/token.json and reconnect \
         with /google-auth"
    )]
    MissingScope,
    /// Another 403.
    #[error("Google refused the request (403): {message}")]
    Forbidden {
        /// Google's message.
        message: String,
    },
    /// Rate limit or quota still exceeded after the retries.
    #[error(
        "the {} quota or rate limit is exhausted: wait a few minutes (or raise the quota in \
         the Cloud Console) and retry",
        api.console_name()
    )]
    Quota {
        /// Which API.
        api: Api,
    },
    /// 404 / 410.
    #[error("not found")]
    NotFound,
    /// Any other failed answer.
    #[error("Google API error {status}: {message}")]
    Api {
        /// HTTP status.
        status: u16,
        /// Google's message.
        message: String,
    },
    /// The network failed.
    #[error("could not reach Google: {0}")]
    Network(String),
    /// An answer that doesn't decode.
    #[error("unexpected answer from Google: {0}")]
    Decode(String),
    /// A consent flow failed.
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// A state file could not be written.
    #[error(transparent)]
    State(#[from] StateError),
}

/// Why a Google request of a command or a tool failed: the client's error, a named thing
/// Google doesn't have, or an input that can't be used. Shown as one line.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The client's error.
    #[error(transparent)]
    Google(#[from] GoogleError),
    /// A 404 on a named thing (`task abc`, `event xyz`, `message 123`).
    #[error("{0} not found")]
    Missing(String),
    /// A value that can't be used (a time that doesn't exist, say).
    #[error("{0}")]
    Input(String),
}

/// Turns a 404 into "`<what>` not found".
pub fn missing(what: String) -> impl FnOnce(GoogleError) -> RequestError {
    move |error| match error {
        GoogleError::NotFound => RequestError::Missing(what),
        other => RequestError::Google(other),
    }
}

/// One line per item, or `empty` when there are none: how every listing of the requests
/// reads (`no tasks`, `no calendars`, …); no trailing newline.
pub(crate) fn lines_or<T>(items: &[T], empty: &str, line: impl Fn(&T) -> String) -> String {
    if items.is_empty() {
        return empty.to_owned();
    }
    items.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// Setup instructions for a missing `credentials.json` (GOO-3), one step per line.
pub fn setup_instructions(files: &GoogleFiles) -> String {
    let path = files.credentials_path().display();
    format!(
        "Google credentials not found at {path}\n\
         To set up Google integration:\n  \
         1. Go to https://console.cloud.google.com/ and create a project\n  \
         2. Enable the Google Tasks API, Google Calendar API and Gmail API\n  \
         3. Configure the OAuth consent screen (Google Auth Platform → Branding / Audience): \
         External, and add your Google account as a test user\n  \
         4. Create OAuth credentials (Clients → Create client, type: Desktop app) and download \
         the JSON\n  \
         5. Save the JSON file to {path}\n  \
         6. Run `ollim-bot google auth` here, or /google-auth in Discord"
    )
}
