//! The main session's CLI at rest (issue 29, REST-1…REST-4): with nothing to do for `cli_idle_minutes` it is
//! stopped cleanly and its session id kept, so the next turn resumes the same conversation
//! with the same settings; the owner starting to type (or a click) starts it again ahead of
//! the message. Both take the session lock, so a stop and a message never cross: the message
//! waits for the stop, then its turn starts the CLI as any turn does, resuming the kept session
//! with the settings the session holds (REST-3); `/clear`, `/compact` and `/model` start it the
//! same way (REST-4).

use std::time::Duration;

use super::{DISCONNECT_GRACE, MainSession};

impl MainSession {
    /// Notes activity now: the idle time counts from here.
    pub(super) fn touch(&self) {
        *self.last_active.lock() = tokio::time::Instant::now();
    }

    /// How long the CLI may stay up with nothing to do (`OLLIM_CLI_IDLE_SECS`, else
    /// `/config cli_idle_minutes`); `None`: always up.
    pub fn idle_limit(&self) -> Option<Duration> {
        let limit = self.services.config.cli_idle_override.unwrap_or_else(|| {
            let minutes = self.services.runtime.current().cli_idle_minutes;
            Duration::from_secs(minutes.saturating_mul(60))
        });
        (!limit.is_zero()).then_some(limit)
    }

    /// Stops the main session's CLI (REST-1) when it has had nothing to do for the idle limit: not
    /// while a turn or command holds the session, nor while a fork is open. Returns whether
    /// it was stopped.
    pub async fn sleep_if_idle(&self) -> bool {
        let Some(limit) = self.idle_limit() else {
            return false;
        };
        let Ok(mut state) = self.state.try_lock() else {
            return false;
        };
        if state.fork.is_open() || state.client.is_none() {
            return false;
        }
        if self.last_active.lock().elapsed() < limit {
            return false;
        }
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
            tracing::info!(
                idle_secs = limit.as_secs(),
                "the conversation's CLI is asleep until it is needed"
            );
        }
        true
    }

    /// Starts the CLI (REST-2) ahead of a message the owner is about to send (they are typing, or
    /// clicked something), unless it is up, or a turn is under way (which starts it itself).
    pub async fn wake(&self) {
        let Ok(mut state) = self.state.try_lock() else {
            return;
        };
        if state.fork.is_open()
            || state
                .client
                .as_ref()
                .is_some_and(|c| !c.handle().is_closed())
        {
            return;
        }
        tracing::info!("the owner is about to say something; waking the conversation's CLI");
        if let Err(error) = self.ensure_connected(&mut state, None).await {
            // The message's own turn tries again and tells the owner if it fails.
            tracing::warn!(%error, "could not wake the conversation's CLI");
        }
    }
}
