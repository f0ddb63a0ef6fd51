//! Shutting down on SIGTERM / SIGINT or a requested restart (SLC-12, BOOT-8): the owner is
//! told why, intake stops, the turns in flight get [`TURN_DEADLINE`](super::TURN_DEADLINE),
//! then the gateway closes.

use std::sync::{Arc, OnceLock};

use serenity::gateway::ShardManager;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use super::{CLI_DEADLINE, TURN_DEADLINE};
use crate::discord::{bot::Bot, rate_limit::with_rate_limit_retries};

/// Waits for SIGTERM, SIGINT or a requested restart, then shuts down in order; the signal's
/// name goes into `signalled` (for the stop line), `gateway_closed` is cancelled at the end.
pub(super) async fn shut_down_on_signal(
    bot: Arc<Bot>,
    shards: Arc<ShardManager>,
    (gateway_closed, signalled): (CancellationToken, Arc<OnceLock<&'static str>>),
) {
    let name = tokio::select! {
        signal = wait_for_signal() => match signal {
            Ok(name) => Some(name),
            Err(error) => {
                tracing::error!(%error, "cannot listen for shutdown signals");
                return;
            }
        },
        () = bot.restart_requested() => None,
    };
    if let Some(name) = name {
        let _ = signalled.set(name);
        tracing::info!("received {name}; shutting down");
        if let Some(channel) = bot.reach.places.unasked() {
            let notice =
                crate::discord::notices::greeting::shutdown_notice(&format!("received {name}"));
            if let Err(error) =
                with_rate_limit_retries(|| channel.say(&bot.reach.http, &notice)).await
            {
                tracing::debug!(%error, "could not send the shutdown notice");
            }
        }
    } else {
        tracing::info!("restart requested; shutting down first");
    }
    bot.stop_intake();
    if tokio::time::timeout(TURN_DEADLINE, bot.reach.work.wait())
        .await
        .is_err()
    {
        tracing::warn!("the turn in progress did not finish in time; interrupting it");
        bot.reach.session.interrupt();
        let _ = tokio::time::timeout(CLI_DEADLINE, bot.reach.work.wait()).await;
    }
    if tokio::time::timeout(CLI_DEADLINE, bot.reach.session.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("the Claude CLI did not stop in time");
    }
    bot.reconnects.stop();
    shards.shutdown_all().await;
    gateway_closed.cancel();
}

async fn wait_for_signal() -> std::io::Result<&'static str> {
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(tokio::select! {
        _ = terminate.recv() => "SIGTERM",
        _ = interrupt.recv() => "SIGINT",
    })
}

/// A stop signal watched before the daemon runs (the wait for the network, the Claude login):
/// `token` is cancelled when SIGTERM or SIGINT arrives, `name` says which. Stops watching when
/// dropped.
pub struct EarlyStop {
    token: CancellationToken,
    name: Arc<OnceLock<&'static str>>,
    watch: tokio::task::JoinHandle<()>,
}

impl EarlyStop {
    /// Starts watching.
    pub fn watch() -> Self {
        let token = CancellationToken::new();
        let name = Arc::new(OnceLock::new());
        let watch = tokio::spawn({
            let (token, name) = (token.clone(), Arc::clone(&name));
            async move {
                match wait_for_signal().await {
                    Ok(signal) => {
                        let _ = name.set(signal);
                        token.cancel();
                    }
                    Err(error) => tracing::warn!(%error, "cannot listen for shutdown signals"),
                }
            }
        });
        Self { token, name, watch }
    }

    /// Cancelled once a stop signal arrived.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The signal that arrived, if one did.
    pub fn name(&self) -> Option<&'static str> {
        self.name.get().copied()
    }
}

impl Drop for EarlyStop {
    fn drop(&mut self) {
        self.watch.abort();
    }
}
