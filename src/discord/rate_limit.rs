//! 429s on everything the bot sends to Discord (issue 16): messages, edits, deletions,
//! reactions, interaction responses and follow-ups all go through [`with_rate_limit_retries`].
//!
//! Without `OLLIM_DISCORD_API_URL`, serenity's own limiter paces requests and waits out 429s
//! itself (per route and global, honouring `Retry-After`), so a 429 rarely reaches us. With the
//! API behind a proxy that limiter is off (serenity ignores the proxy otherwise), and a 429
//! reaches us as an error — one that keeps neither the headers (`Retry-After`,
//! `X-RateLimit-Global`) nor the body's `retry_after`/`global` (serenity 0.12 decodes only
//! `code`, `message` and `errors`). So the wait cannot follow `retry_after`; instead:
//! - the call is made again after a pause that doubles (1 s, 2 s, 4 s, 8 s; 15 s in all,
//!   above Discord's usual `retry_after` of well under a second to a few seconds), then the
//!   error is returned;
//! - the pause is process-wide ([`PauseGate`]): since a global 429 cannot be told from a
//!   per-route one, every send waits it out, not only the one refused — so there is no burst
//!   of retries from other callers into a global limit;
//! - order between callers is kept: a caller waiting out a 429 holds the gate's turn until
//!   its call went through, and calls made meanwhile queue behind it (first come, first
//!   served) and go one at a time — so a reply's status line cannot overtake an embed the
//!   agent sent before it. Without a 429 under way calls go out as they come;
//! - each caller makes one call at a time, so its own order is kept and nothing is lost.

use std::{future::Future, time::Duration};

use parking_lot::Mutex;
use tokio::time::Instant;

/// Tries after the first one.
const RETRIES: u32 = 4;
/// The first pause; each one after doubles it.
const FIRST_PAUSE: Duration = Duration::from_secs(1);

/// The pause every send waits out after a 429 (the whole bot: Discord's global limit is per
/// bot, and a per-route 429 cannot be told from a global one behind a proxy).
static PAUSE: PauseGate = PauseGate::new();

/// Until when sends are paused after a 429, and the turn of the callers waiting one out.
#[derive(Debug, Default)]
pub struct PauseGate {
    until: Mutex<Option<Instant>>,
    turn: tokio::sync::Mutex<()>,
}

impl PauseGate {
    /// A gate with no pause.
    pub const fn new() -> Self {
        Self {
            until: Mutex::new(None),
            turn: tokio::sync::Mutex::const_new(()),
        }
    }

    /// Pauses sends for `pause` from now (a longer pause already set stays).
    pub fn pause_for(&self, pause: Duration) {
        let until = Instant::now() + pause;
        let mut current = self.until.lock();
        if current.is_none_or(|set| set < until) {
            *current = Some(until);
        }
    }

    /// Waits until no pause is set (a pause set meanwhile is waited out too).
    pub async fn wait_open(&self) {
        loop {
            let until = *self.until.lock();
            match until {
                Some(until) if until > Instant::now() => tokio::time::sleep_until(until).await,
                _ => return,
            }
        }
    }
}

/// Whether Discord answered 429 Too Many Requests.
pub fn is_rate_limited(error: &serenity::Error) -> bool {
    matches!(error, serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response))
        if response.status_code.as_u16() == 429)
}

/// Runs `call` once `gate` is open, again after each 429 (up to [`RETRIES`] more times),
/// pausing `gate` for the doubling pauses.
pub async fn retry_rate_limited<T, Call>(
    gate: &PauseGate,
    mut call: impl FnMut() -> Call,
    is_429: impl Fn(&serenity::Error) -> bool,
) -> Result<T, serenity::Error>
where
    Call: Future<Output = Result<T, serenity::Error>>,
{
    // Behind a caller waiting out a 429: queue up, and keep the turn through this call so
    // the calls queued behind go out after it.
    let mut turn = match gate.turn.try_lock() {
        Ok(_free) => None,
        Err(_) => Some(gate.turn.lock().await),
    };
    let mut pause = FIRST_PAUSE;
    for _ in 0..RETRIES {
        gate.wait_open().await;
        match call().await {
            Err(error) if is_429(&error) => {
                if turn.is_none() {
                    turn = Some(gate.turn.lock().await);
                }
                tracing::warn!(
                    pause_ms = pause.as_millis(),
                    "Discord rate limit (429); sending again after a pause"
                );
                gate.pause_for(pause);
                pause *= 2;
            }
            other => return other,
        }
    }
    gate.wait_open().await;
    let last = call().await;
    drop(turn);
    last
}

/// [`retry_rate_limited`] with real 429 detection and the bot's one [`PauseGate`]: the way
/// every request the bot makes to Discord on its own behalf goes out. `call` is made again on
/// a 429, so it must build its request anew each time (clone the builder).
pub async fn with_rate_limit_retries<T, Call>(
    call: impl FnMut() -> Call,
) -> Result<T, serenity::Error>
where
    Call: Future<Output = Result<T, serenity::Error>>,
{
    retry_rate_limited(&PAUSE, call, is_rate_limited).await
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
