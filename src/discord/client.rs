//! Building and running the serenity client: the HTTP base URL (`OLLIM_DISCORD_API_URL`), the
//! intents, the presence, and start-up failures turned into clear messages (BOOT-5, MSG-9).

use std::{
    future::Future,
    sync::{Arc, OnceLock},
    time::Duration,
};

use serenity::{
    Client,
    all::{ActivityData, GatewayIntents, OnlineStatus},
    gateway::GatewayError,
    http::{Http, HttpBuilder, HttpError},
};

use super::{bot::Bot, router::Handler};

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

/// `OLLIM_DISCORD_API_URL` is not a usable URL.
#[derive(Debug, thiserror::Error)]
#[error(
    "OLLIM_DISCORD_API_URL={0:?} is invalid: expected a base URL such as http://127.0.0.1:3000"
)]
pub struct BadApiUrl(pub String);

/// Discord's REST API for `token`, at `api_url` when one is given (a test's fake).
pub fn rest_client(token: &str, api_url: Option<&str>) -> Result<Http, BadApiUrl> {
    let mut http = HttpBuilder::new(token);
    if let Some(url) = api_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(BadApiUrl(url.to_owned()));
        }
        // serenity only honours a proxy with its own ratelimiter off (its limiter builds
        // requests without the proxy); the proxy is then the one that paces requests.
        http = http
            .proxy(url.trim_end_matches('/'))
            .ratelimiter_disabled(true);
    }
    Ok(http.build())
}

/// A connected-to-be client; the bot is bound once built (the handler needs the client's
/// HTTP client, which serenity creates).
pub async fn build_client(
    token: &str,
    api_url: Option<&str>,
    bot_slot: Arc<OnceLock<Arc<Bot>>>,
) -> Result<Client, ConnectError> {
    let http =
        rest_client(token, api_url).map_err(|BadApiUrl(url)| ConnectError::BadApiUrl(url))?;
    // serenity asks for the gateway URL itself but, when that fails, silently falls back to
    // Discord's public gateway (ignoring a proxy). Ask first, retrying 503s, so a failure is
    // reported instead.
    with_retries(|| http.get_gateway(), |wait| tokio::time::sleep(wait)).await?;
    let client = serenity::all::ClientBuilder::new_with_http(http, intents())
        .event_handler(Handler::new(bot_slot))
        .activity(ActivityData::watching("your DMs"))
        .status(OnlineStatus::Online)
        .await?;
    Ok(client)
}

/// An error a start-up request can fail with, as the retry ladder sees it.
pub trait StartupFailure {
    /// Discord answered 503 (worth retrying).
    fn is_unavailable(&self) -> bool;
    /// The error as reported to the person running the bot.
    fn into_connect_error(self) -> ConnectError;
}

impl StartupFailure for serenity::Error {
    fn is_unavailable(&self) -> bool {
        matches!(classify(self), Failure::Unavailable)
    }

    fn into_connect_error(self) -> ConnectError {
        into_connect_error(self)
    }
}

/// Runs `attempt`, retrying a 503 after each of [`RETRY_WAITS`] (BOOT-5).
pub async fn with_retries<T, E, A, AF, S, SF>(
    mut attempt: A,
    mut sleep: S,
) -> Result<T, ConnectError>
where
    E: StartupFailure,
    A: FnMut() -> AF,
    AF: Future<Output = Result<T, E>>,
    S: FnMut(Duration) -> SF,
    SF: Future<Output = ()>,
{
    for (index, wait) in RETRY_WAITS.iter().enumerate() {
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) if error.is_unavailable() => {
                tracing::warn!(
                    "Discord API error (503 Service Unavailable) — retrying in {wait}s (attempt {}/{})",
                    index + 1,
                    RETRY_WAITS.len()
                );
                sleep(Duration::from_secs(*wait)).await;
            }
            Err(error) => return Err(error.into_connect_error()),
        }
    }
    match attempt().await {
        Ok(value) => Ok(value),
        Err(error) if error.is_unavailable() => Err(ConnectError::Unavailable(RETRY_WAITS.len())),
        Err(error) => Err(error.into_connect_error()),
    }
}

/// Runs the client until shutdown.
pub async fn run_client(client: &mut Client) -> Result<(), ConnectError> {
    client.start().await.map_err(into_connect_error)
}

enum Failure {
    Unavailable,
    InvalidToken,
    IntentDisabled,
    Other,
}

fn into_connect_error(error: serenity::Error) -> ConnectError {
    match classify(&error) {
        Failure::Unavailable => ConnectError::Unavailable(0),
        Failure::InvalidToken => ConnectError::InvalidToken,
        Failure::IntentDisabled => ConnectError::MessageContentIntentDisabled,
        Failure::Other => ConnectError::Other(error),
    }
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

#[cfg(test)]
mod tests {

    use super::*;
    use parking_lot::Mutex;

    #[derive(Debug)]
    enum TestError {
        Unavailable,
        Unauthorized,
    }

    impl StartupFailure for TestError {
        fn is_unavailable(&self) -> bool {
            matches!(self, Self::Unavailable)
        }

        fn into_connect_error(self) -> ConnectError {
            ConnectError::InvalidToken
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retries_503_with_growing_waits_then_succeeds() {
        let calls = Mutex::new(0);
        let waits = Mutex::new(Vec::new());
        let result = with_retries(
            || {
                let n = {
                    let mut calls = calls.lock();
                    *calls += 1;
                    *calls
                };
                async move {
                    if n <= 2 {
                        Err(TestError::Unavailable)
                    } else {
                        Ok(n)
                    }
                }
            },
            |wait| {
                waits.lock().push(wait.as_secs());
                tokio::time::sleep(wait)
            },
        )
        .await;
        assert_eq!(result.unwrap(), 3);
        assert_eq!(*waits.lock(), [5, 10]);
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_five_retries_and_stops_at_other_errors() {
        let started = tokio::time::Instant::now();
        let gave_up = with_retries(
            || async { Err::<(), _>(TestError::Unavailable) },
            tokio::time::sleep,
        )
        .await;
        assert_eq!(
            started.elapsed(),
            Duration::from_secs(5 + 10 + 20 + 40 + 80)
        );
        let message = gave_up.unwrap_err().to_string();
        assert!(message.contains("giving up after 5 retries"), "{message}");
        let unauthorized = with_retries(
            || async { Err::<(), _>(TestError::Unauthorized) },
            tokio::time::sleep,
        )
        .await;
        assert!(matches!(unauthorized, Err(ConnectError::InvalidToken)));
    }
}
