//! Shutting down on SIGTERM / SIGINT or a requested restart (SLC-12, BOOT-8): the owner is
//! told why, intake stops, the turns in flight get [`TURN_DEADLINE`](super::TURN_DEADLINE),
//! then the gateway closes.

use std::sync::Arc;

use serenity::gateway::ShardManager;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use super::{CLI_DEADLINE, TURN_DEADLINE};
use crate::discord::{bot::Bot, rate_limit::with_rate_limit_retries};

/// Waits for SIGTERM, SIGINT or a requested restart, then shuts down in order.
pub(super) async fn shut_down_on_signal(
    bot: Arc<Bot>,
    shards: Arc<ShardManager>,
    gateway_closed: CancellationToken,
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
