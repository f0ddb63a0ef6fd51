//! The conversation's CLIs at rest (issue 29, REST-1…REST-4): main's, and each open fork's, each
//! stopped cleanly with nothing to do for `cli_idle_minutes`, their session ids kept, so the
//! next turn resumes the same conversation with the same settings; the owner starting to type
//! (or a click) starts the one their message will go to, ahead of it. Stops and starts take
//! the lock of the conversation whose CLI it is, so a stop and a message never cross: the
//! message waits for the stop, then its turn starts the CLI as any turn does, resuming the
//! kept session with the settings the session holds (REST-3); `/clear`, `/compact` and
//! `/model` start it the same way (REST-4).

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use super::{DISCONNECT_GRACE, MainSession, StartFor, Target};
use crate::{
    claude::{ClaudeClient, ClientHandle, StartUp},
    front_end::Branch,
};

/// How long a woken CLI may take to prepare its first request before we stop waiting for it.
const WARM_UP_LIMIT: Duration = Duration::from_secs(10);

impl MainSession {
    /// Notes activity now: main's idle time counts from here.
    pub(super) fn touch(&self) {
        *self.last_active.lock() = self.services.clock.instant();
    }

    /// How long a CLI may stay up with nothing to do (`/config cli_idle_minutes`); `None`:
    /// always up.
    pub fn idle_limit(&self) -> Option<Duration> {
        let minutes = self.services.runtime.current().cli_idle_minutes;
        let limit = Duration::from_secs(minutes.saturating_mul(60));
        (!limit.is_zero()).then_some(limit)
    }

    /// Stops each CLI (main's, each open fork's, REST-1) that has had nothing to do for the
    /// idle limit; never while a turn or command holds its conversation. Returns whether one
    /// was stopped.
    pub async fn sleep_if_idle(&self) -> bool {
        let Some(limit) = self.idle_limit() else {
            return false;
        };
        let mut fork_slept = false;
        for entry in self.forks.all() {
            if let Some(mut held) = entry.try_lock() {
                fork_slept |= self.sleep_fork_if_idle(&mut held, limit).await;
            }
        }
        let Ok(mut state) = self.state.try_lock() else {
            return fork_slept;
        };
        let idle = self
            .services
            .clock
            .instant()
            .saturating_duration_since(*self.last_active.lock());
        if idle < limit {
            return fork_slept;
        }
        let Some(client) = self.take_client(&mut state) else {
            return fork_slept;
        };
        // Only typing while this stop holds the lock counts; typing during a turn needed none.
        self.wake_missed.store(false, Ordering::Relaxed);
        tracing::debug!("putting the conversation's CLI to sleep");
        self.main_rest_stop
            .during(client.disconnect(DISCONNECT_GRACE))
            .await;
        tracing::info!(
            idle_secs = limit.as_secs(),
            "the conversation's CLI is asleep until it is needed"
        );
        drop(state);
        if self.wake_missed.swap(false, Ordering::Relaxed) {
            self.wake(Target::MainDoor).await;
        }
        true
    }

    /// Starts the CLI a message addressed to `target` would go to (REST-2), ahead of it: the
    /// owner is typing or clicked something. Nothing if it is up (its idle time starts again)
    /// or a turn is under way (which starts it itself). Once started, the CLI prepares a first
    /// request, so the message's turn finds that work done.
    pub async fn wake(&self, target: Target) {
        let handle = {
            match self.branch_for(target) {
                Branch::Fork(id) => {
                    let Some(mut slot) = self.forks.get(id).and_then(|entry| entry.try_lock())
                    else {
                        return;
                    };
                    let Some(fork) = slot.get_mut() else {
                        return;
                    };
                    fork.touch(self.services.clock.instant());
                    if fork.cli.client().is_some() {
                        return;
                    }
                    tracing::info!("the owner is about to say something; waking the fork's CLI");
                    if let Err(error) = self
                        .ensure_fork_connected(&mut slot, StartUp::WorkFirst)
                        .await
                    {
                        // The message's own turn tries again and tells the owner if it fails.
                        tracing::warn!(%error, "could not wake the fork's CLI");
                        return;
                    }
                    slot.get()
                        .and_then(|fork| fork.cli.client())
                        .map(ClaudeClient::handle)
                }
                Branch::Main => {
                    let Ok(mut state) = self.state.try_lock() else {
                        // A turn (which starts the CLI itself) or a stop under way.
                        self.wake_missed.store(true, Ordering::Relaxed);
                        return;
                    };
                    self.touch();
                    if state
                        .client
                        .as_ref()
                        .is_some_and(|c| !c.handle().is_closed())
                    {
                        return;
                    }
                    tracing::info!(
                        "the owner is about to say something; waking the conversation's CLI"
                    );
                    if let Err(error) = self.ensure_connected(&mut state, StartFor::Ahead).await {
                        tracing::warn!(%error, "could not wake the conversation's CLI");
                        return;
                    }
                    state.client.as_ref().map(ClaudeClient::handle)
                }
            }
        };
        if let Some(handle) = handle {
            warm_up(handle).await;
        }
    }
}

/// Has a freshly started CLI build the request its first turn will send (without the lock, so
/// the turn need not wait for it): its first turn then runs about as fast as any other.
async fn warm_up(handle: ClientHandle) {
    let started = tokio::time::Instant::now();
    match tokio::time::timeout(WARM_UP_LIMIT, handle.context_usage()).await {
        Ok(Ok(_)) => tracing::debug!(
            took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "the woken CLI is ready for its first turn"
        ),
        Ok(Err(error)) => tracing::debug!(%error, "the woken CLI could not count its context"),
        Err(_) => tracing::debug!("the woken CLI took long to count its context; not waiting"),
    }
}

/// Set while a CLI is being put to sleep under its conversation's lock: the lock is then held
/// by the bot's own housekeeping, not by the owner talking, so a background run starting
/// meanwhile doesn't take the owner for mid-conversation (BGF-2).
#[derive(Default)]
pub(super) struct RestStop(AtomicBool);

impl RestStop {
    /// Runs `stop` marked as a stop for rest (unmarked however it ends).
    pub(super) async fn during<T>(&self, stop: impl Future<Output = T>) -> T {
        struct Unmark<'a>(&'a AtomicBool);
        impl Drop for Unmark<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Relaxed);
            }
        }
        self.0.store(true, Ordering::Relaxed);
        let _unmark = Unmark(&self.0);
        stop.await
    }

    /// Whether a stop for rest holds the lock now.
    pub(super) fn active(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
