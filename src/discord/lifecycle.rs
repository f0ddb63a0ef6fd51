//! Where the Discord side is in its life (issue 41 §2: states as an enum, not flags): not yet
//! connected, up (a first `READY` came), or stopping (no new input is taken); with the
//! moments others wait for: the owner known, the bot started (issue 44: the terminal's ready
//! line), and a restart asked for.

use std::sync::OnceLock;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

/// The stage the bot is at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Stage {
    /// No `READY` yet.
    #[default]
    Connecting,
    /// Connected at least once: a later `READY` is a reconnect.
    Up,
    /// Shutting down: no new input is taken.
    Stopping,
}

/// What the connection was when a `READY` came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Connected {
    /// The first: the bot starts.
    First,
    /// After a lost session: what was missed is caught up on.
    Again,
}

/// The bot's stage and the moments others wait for.
#[derive(Default)]
pub(crate) struct Lifecycle {
    stage: Mutex<Stage>,
    /// Cancelled once the owner is known and their DM channel is open (SCH-1).
    owner_ready: CancellationToken,
    /// Cancelled when the owner asks for a restart (`/restart`, `/update`).
    restart: CancellationToken,
    /// Who the bot is in Discord, set once the first start-up finished (greeting sent).
    started: OnceLock<String>,
    /// Cancelled once `started` is set.
    started_signal: CancellationToken,
}

impl Lifecycle {
    /// Whether new input is still taken (false once shutdown began).
    pub(crate) fn is_accepting(&self) -> bool {
        *self.stage.lock() != Stage::Stopping
    }

    /// Whether the bot connected once and is not shutting down.
    pub(crate) fn is_up(&self) -> bool {
        *self.stage.lock() == Stage::Up
    }

    /// A `READY` came: the first, or one after a lost session.
    pub(crate) fn ready(&self) -> Connected {
        let mut stage = self.stage.lock();
        match *stage {
            Stage::Connecting => {
                *stage = Stage::Up;
                Connected::First
            }
            Stage::Up | Stage::Stopping => Connected::Again,
        }
    }

    /// Stops taking input (first step of shutdown).
    pub(crate) fn stop(&self) {
        *self.stage.lock() = Stage::Stopping;
    }

    /// Marks the owner as known.
    pub(crate) fn owner_known(&self) {
        self.owner_ready.cancel();
    }

    /// Resolves once the owner is known.
    pub(crate) async fn owner_ready(&self) {
        self.owner_ready.cancelled().await;
    }

    /// The first start-up finished: the bot is `user` in Discord and takes the owner's DMs.
    pub(crate) fn started(&self, user: String) {
        let _ = self.started.set(user);
        self.started_signal.cancel();
    }

    /// Resolves, with who the bot is in Discord, once the first start-up finished.
    pub(crate) async fn wait_started(&self) -> String {
        self.started_signal.cancelled().await;
        self.started.get().cloned().unwrap_or_default()
    }

    /// Asks for a restart.
    pub(crate) fn request_restart(&self) {
        self.restart.cancel();
    }

    /// Whether a restart was asked for.
    pub(crate) fn is_restarting(&self) -> bool {
        self.restart.is_cancelled()
    }

    /// Resolves once a restart is asked for.
    pub(crate) async fn restart_requested(&self) {
        self.restart.cancelled().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_ready_starts_the_bot_and_later_ones_catch_up() {
        let life = Lifecycle::default();
        assert!(life.is_accepting());
        assert_eq!(life.ready(), Connected::First);
        assert_eq!(life.ready(), Connected::Again);
        life.stop();
        assert!(!life.is_accepting());
        assert_eq!(
            life.ready(),
            Connected::Again,
            "a stopping bot never starts again"
        );
    }

    #[test]
    fn the_moments_others_wait_for_are_kept() {
        let life = Lifecycle::default();
        assert!(!life.is_restarting());
        life.request_restart();
        assert!(life.is_restarting());
        life.owner_known();
        futures_lite_ready(life.owner_ready());
    }

    /// Polls `future` once; it must be ready.
    fn futures_lite_ready(future: impl Future<Output = ()>) {
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        assert!(future.as_mut().poll(&mut context).is_ready());
    }
}
