//! BOOT-13: the Discord connection as the person running the bot sees it (issue 44 §2). serenity
//! retries a lost gateway on its own, logging a warning at each attempt (every 5 s, ~720 lines
//! an hour); the default log filter leaves those out, and this says it once when the link is
//! lost and once when it is back, with the time away.
//!
//! A loss is seen in the shard manager: serenity sends no event when a connection drops, and
//! takes a shard that could not resume off its list (about 5 s later) until a new one starts.
//! A drop that resumes at once is never told. The return is the `READY` or `RESUMED` after it.

use std::time::Duration;

use std::sync::Arc;

use parking_lot::Mutex;
use serenity::all::ConnectionStage;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::bot::Bot;

/// How often the shard manager is looked at.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Where the link is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Link {
    /// Not connected yet, or connected.
    #[default]
    Up,
    /// Lost at this instant; serenity is retrying.
    Lost(Instant),
}

/// The link's state, told on each change (time injected).
#[derive(Debug, Default)]
pub struct LinkWatch {
    link: Mutex<Link>,
}

impl LinkWatch {
    /// The connection dropped at `now`: `true` the first time (the one to tell).
    pub fn lost(&self, now: Instant) -> bool {
        let mut link = self.link.lock();
        match *link {
            Link::Up => {
                *link = Link::Lost(now);
                true
            }
            Link::Lost(_) => false,
        }
    }

    /// The connection is back at `now`: how long it was away, when it had been lost.
    pub fn back(&self, now: Instant) -> Option<Duration> {
        let mut link = self.link.lock();
        let Link::Lost(since) = *link else {
            return None;
        };
        *link = Link::Up;
        Some(now.saturating_duration_since(since))
    }
}

/// Tells that the connection was lost (once per loss).
pub fn tell_lost(watch: &LinkWatch, now: Instant) {
    if watch.lost(now) {
        tracing::warn!("Discord connection lost; retrying…");
    }
}

/// Tells that the connection is back, after a loss.
pub fn tell_back(watch: &LinkWatch, now: Instant) {
    if let Some(away) = watch.back(now) {
        tracing::info!("Discord connection back after {}", away_text(away));
    }
}

/// Looks at the shard manager every [`LOOK_EVERY`] until `stop`: a bot that was connected and
/// is not shutting down, with no shard connected, has lost the link.
pub async fn watch_link(bot: Arc<Bot>, stop: CancellationToken) {
    let Some(shards) = bot.reconnects.shards() else {
        return;
    };
    let clock = bot.reach.services.clock.clone();
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep(LOOK_EVERY) => {}
        }
        if !bot.reach.lifecycle.is_up() {
            continue;
        }
        let connected = {
            let runners = shards.runners.lock().await;
            !runners.is_empty()
                && runners
                    .values()
                    .all(|runner| runner.stage == ConnectionStage::Connected)
        };
        if !connected {
            tell_lost(&bot.link, clock.instant());
        }
    }
}

/// `45s`, `3m 20s`, `2h 5m`: the time away, to the second under an hour.
pub fn away_text(away: Duration) -> String {
    let secs = away.as_secs();
    match (secs / 3600, secs % 3600 / 60, secs % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_is_told_once_and_its_end_with_the_time_away() {
        let watch = LinkWatch::default();
        let start = Instant::now();
        assert_eq!(watch.back(start), None, "a first connection is no return");
        assert!(watch.lost(start));
        assert!(!watch.lost(start + Duration::from_secs(5)), "told once");
        assert_eq!(
            watch.back(start + Duration::from_secs(200)),
            Some(Duration::from_secs(200))
        );
        assert_eq!(watch.back(start + Duration::from_secs(300)), None);
        assert!(watch.lost(start + Duration::from_secs(400)), "a new loss");
    }

    #[test]
    fn the_time_away_reads_as_a_person_says_it() {
        assert_eq!(away_text(Duration::from_millis(12_400)), "12s");
        assert_eq!(away_text(Duration::from_secs(200)), "3m 20s");
        assert_eq!(away_text(Duration::from_secs(7_530)), "2h 5m");
    }
}
