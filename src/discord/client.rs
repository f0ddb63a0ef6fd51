//! Building and running the serenity client: the HTTP base URL (`OLLIM_DISCORD_API_URL`), the
//! intents, the presence, and start-up failures turned into clear messages (BOOT-5, MSG-9).

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use serenity::{
    Client,
    all::{ActivityData, GatewayIntents, OnlineStatus},
    gateway::GatewayError,
    http::{HttpBuilder, HttpError},
};

use super::bot::{Bot, Handler};

/// Waits between attempts when Discord answers 503 at start-up (BOOT-5).
pub const RETRY_WAITS: [u64; 5] = [5, 10, 20, 40, 80];

/// Why the bot could not connect; each is phrased for the person running it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// Discord refused the token.
    #[error(
        "Invalid Discord token. Check DISCORD_TOKEN in .env (Developer Portal → your application \
         → Bot → Reset Token to get a new one)."
    )]
    InvalidToken,
    /// The privileged message-content intent is off.
    #[error(
        "Message Content Intent is not enabled. Turn it on in the Developer Portal → your \
         application → Bot → Privileged Gateway Intents → Message Content Intent."
    )]
    MessageContentIntentDisabled,
    /// Discord kept answering 503.
    #[error(
        "Discord API error (503 Service Unavailable) — giving up after {0} retries. Check \
         https://discordstatus.com and try again later."
    )]
    Unavailable(usize),
    /// `OLLIM_DISCORD_API_URL` is not a usable URL.
    #[error(
        "OLLIM_DISCORD_API_URL={0:?} is invalid: expected a base URL such as http://127.0.0.1:3000"
    )]
    BadApiUrl(String),
    /// Anything else.
    #[error("Discord connection failed: {0}")]
    Other(#[from] serenity::Error),
}

/// The intents the bot needs: defaults plus the privileged message content (MSG-9).
pub fn intents() -> GatewayIntents {
    GatewayIntents::non_privileged()
        | GatewayIntents::MESSAGE_CONTENT
        | GatewayIntents::DIRECT_MESSAGES
}

/// A connected-to-be client; the bot is bound once built (the handler needs the client's
/// HTTP client, which serenity creates).
pub async fn build_client(
    token: &str,
    api_url: Option<&str>,
    bot_slot: Arc<OnceLock<Arc<Bot>>>,
) -> Result<Client, ConnectError> {
    let mut http = HttpBuilder::new(token);
    if let Some(url) = api_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ConnectError::BadApiUrl(url.to_owned()));
        }
        // serenity only honours a proxy with its own ratelimiter off (its limiter builds
        // requests without the proxy); the proxy is then the one that paces requests.
        http = http
            .proxy(url.trim_end_matches('/'))
            .ratelimiter_disabled(true);
    }
    let client = serenity::all::ClientBuilder::new_with_http(http.build(), intents())
        .event_handler(Handler::new(bot_slot))
        .activity(ActivityData::watching("your DMs"))
        .status(OnlineStatus::Online)
        .await?;
    Ok(client)
}

/// Runs the client until shutdown, retrying 503s at start-up with growing waits.
pub async fn run_client(client: &mut Client) -> Result<(), ConnectError> {
    let mut attempt = 0;
    loop {
        match client.start().await {
            Ok(()) => return Ok(()),
            Err(error) => match classify(&error) {
                Failure::Unavailable if attempt < RETRY_WAITS.len() => {
                    let wait = RETRY_WAITS[attempt];
                    attempt += 1;
                    tracing::warn!(
                        "Discord API error (503 Service Unavailable) — retrying in {wait}s (attempt {attempt}/{})",
                        RETRY_WAITS.len()
                    );
                    tokio::time::sleep(Duration::from_secs(wait)).await;
                }
                Failure::Unavailable => return Err(ConnectError::Unavailable(RETRY_WAITS.len())),
                Failure::InvalidToken => return Err(ConnectError::InvalidToken),
                Failure::IntentDisabled => return Err(ConnectError::MessageContentIntentDisabled),
                Failure::Other => return Err(ConnectError::Other(error)),
            },
        }
    }
}

enum Failure {
    Unavailable,
    InvalidToken,
    IntentDisabled,
    Other,
}

fn classify(error: &serenity::Error) -> Failure {
    match error {
        serenity::Error::Gateway(GatewayError::InvalidAuthentication) => Failure::InvalidToken,
        serenity::Error::Gateway(GatewayError::DisallowedGatewayIntents) => Failure::IntentDisabled,
        serenity::Error::Http(HttpError::UnsuccessfulRequest(response)) => {
            match response.status_code.as_u16() {
                401 => Failure::InvalidToken,
                503 => Failure::Unavailable,
                _ => Failure::Other,
            }
        }
        _ => Failure::Other,
    }
}
