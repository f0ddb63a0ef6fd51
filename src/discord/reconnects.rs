//! Backoff for gateway reconnect storms (issue 16).
//!
//! serenity resumes at once after every dropped connection; it only waits after a resume that
//! failed (1 s) and between IDENTIFYs (5 s). A link that comes up and drops again and again
//! would so be reconnected as fast as it drops — ten connections within a few milliseconds.
//! [`ReconnectPolicy`] counts the reconnects the bot sees (a `RESUMED`, a `READY` after the
//! first); past [`FREE_RECONNECTS`] within [`WINDOW`] the shard is taken down and started again
//! after a pause that doubles with each storm ([`FIRST_PAUSE`] … [`MAX_PAUSE`]) and falls back
//! once the link stayed up for a whole window. The new start IDENTIFYs; DMs sent meanwhile are
//! fetched after its `READY` (the bot's catch-up).

use std::{
    collections::VecDeque,
    sync::{Arc, OnceLock},
    time::Duration,
};

use parking_lot::Mutex;
use serenity::{all::ShardId, gateway::ShardManager};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The span over which reconnects are counted.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Reconnects within [`WINDOW`] taken as they come.
pub const FREE_RECONNECTS: usize = 3;
/// The pause after the first storm; each storm in a row doubles it.
pub const FIRST_PAUSE: Duration = Duration::from_secs(2);
/// The longest pause.
pub const MAX_PAUSE: Duration = Duration::from_secs(120);
/// The close code the paused shard goes down with (serenity's own restart code; not 1000,
/// which would log the bot out).
const PAUSE_CLOSE_CODE: u16 = 4000;

/// What to do about a reconnect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the allowance: carry on.
    Carry,
    /// Too many in a row: take the shard down for this long.
    Pause(Duration),
}

/// The reconnects seen lately and how many storms ran into each other (plain, time injected).
#[derive(Debug, Default)]
pub struct ReconnectPolicy {
    recent: VecDeque<Instant>,
    storms: u32,
    last: Option<Instant>,
}

impl ReconnectPolicy {
    /// Records a reconnect at `now`.
    pub fn on_reconnect(&mut self, now: Instant) -> Verdict {
        if self
            .last
            .is_some_and(|last| now.saturating_duration_since(last) >= WINDOW)
        {
            // The link held for a whole window: the next storm starts from the first pause.
            self.storms = 0;
        }
        self.last = Some(now);
        while self
            .recent
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= WINDOW)
        {
            self.recent.pop_front();
        }
        self.recent.push_back(now);
        if self.recent.len() <= FREE_RECONNECTS {
            return Verdict::Carry;
        }
        self.recent.clear();
        let pause = FIRST_PAUSE
            .saturating_mul(1 << self.storms.min(16))
            .min(MAX_PAUSE);
        self.storms += 1;
        // The pause itself is not time the link held.
        self.last = Some(now + pause);
        Verdict::Pause(pause)
    }
}

/// The policy applied to the bot's shard manager.
#[derive(Default)]
pub struct Reconnects {
    policy: Mutex<ReconnectPolicy>,
    shards: OnceLock<Arc<ShardManager>>,
    paused: Mutex<bool>,
    stop: CancellationToken,
}

impl Reconnects {
    /// Binds the shard manager to pause (once the client exists).
    pub fn bind(&self, shards: Arc<ShardManager>) {
        let _ = self.shards.set(shards);
    }

    /// The shard manager bound.
    pub fn shards(&self) -> Option<Arc<ShardManager>> {
        self.shards.get().cloned()
    }

    /// No more pauses; a pause under way ends without starting the shard again (shutdown).
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// Records a reconnect of `shard`; past the allowance, pauses it in the background.
    pub fn note(self: &Arc<Self>, shard: ShardId) {
        let verdict = self.policy.lock().on_reconnect(Instant::now());
        let Verdict::Pause(pause) = verdict else {
            return;
        };
        let Some(shards) = self.shards.get().cloned() else {
            return;
        };
        {
            let mut paused = self.paused.lock();
            if *paused || self.stop.is_cancelled() {
                return;
            }
            *paused = true;
        }
        tracing::warn!(
            pause_secs = pause.as_secs(),
            "the Discord gateway keeps reconnecting; pausing before connecting again"
        );
        let this = Arc::clone(self);
        tokio::spawn(async move {
            shards.shutdown(shard, PAUSE_CLOSE_CODE).await;
            tokio::select! {
                () = this.stop.cancelled() => {}
                () = tokio::time::sleep(pause) => {
                    tracing::info!("connecting to the Discord gateway again after the pause");
                    if let Err(error) = shards.initialize() {
                        tracing::warn!(%error, "could not start the gateway connection again");
                    }
                }
            }
            *this.paused.lock() = false;
        });
    }
}

#[cfg(test)]
#[path = "reconnects_tests.rs"]
mod tests;
