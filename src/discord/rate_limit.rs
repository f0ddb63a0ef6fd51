//! 429s on the REST calls that must not be lost (issue 16). With the API behind a proxy
//! serenity's own limiter is off (it ignores the proxy otherwise), so a 429 reaches us as an
//! error: the call is made again after a pause that doubles (1 s, 2 s, 4 s, 8 s; serenity
//! drops the body's `retry_after`), one call at a time, so nothing is lost, order within a
//! caller is kept, and no burst of retries goes out.

use std::{future::Future, time::Duration};

/// Tries after the first one.
const RETRIES: u32 = 4;
/// The first pause; each one after doubles it.
const FIRST_PAUSE: Duration = Duration::from_secs(1);

/// Whether Discord answered 429 Too Many Requests.
pub fn is_rate_limited(error: &serenity::Error) -> bool {
    matches!(error, serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response))
        if response.status_code.as_u16() == 429)
}

/// Runs `call`, again after each 429 (up to [`RETRIES`] more times), pausing with `sleep`.
pub async fn retry_rate_limited<T, Call, Sleep>(
    mut call: impl FnMut() -> Call,
    is_429: impl Fn(&serenity::Error) -> bool,
    sleep: impl Fn(Duration) -> Sleep,
) -> Result<T, serenity::Error>
where
    Call: Future<Output = Result<T, serenity::Error>>,
    Sleep: Future<Output = ()>,
{
    let mut pause = FIRST_PAUSE;
    for _ in 0..RETRIES {
        match call().await {
            Err(error) if is_429(&error) => {
                tracing::warn!(
                    pause_ms = pause.as_millis(),
                    "Discord rate limit (429); sending again after a pause"
                );
                sleep(pause).await;
                pause *= 2;
            }
            other => return other,
        }
    }
    call().await
}

/// [`retry_rate_limited`] with real 429 detection and tokio's sleep.
pub async fn with_rate_limit_retries<T, Call>(
    call: impl FnMut() -> Call,
) -> Result<T, serenity::Error>
where
    Call: Future<Output = Result<T, serenity::Error>>,
{
    retry_rate_limited(call, is_rate_limited, tokio::time::sleep).await
}

#[cfg(test)]
mod tests;
