//! Keeping the index current off the turn's path: the daemon catches it up with its sources
//! a little after it starts (a first build of months of history happens then, not on the
//! first question) and again once a turn or a background run has ended and its transcript
//! settled. A question still catches up first, but then reads only the last few changes.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::memory::Memory;
use crate::{
    clock::Clock,
    config::{Config, runtime::RuntimeSettings},
    usage::UsageWriter,
};

/// Catches the index up after the start and after each ended turn until `stop`: the first
/// time two of the scheduler's sync periods after the start (it has more urgent work), then
/// one period after a turn ends, so a burst of turns is read once.
pub async fn keep_current(
    config: Config,
    runtime: Arc<RuntimeSettings>,
    turns: UsageWriter,
    clock: Clock,
    stop: CancellationToken,
) {
    let mut wait = config.scheduler_sync * 2;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep(wait) => {}
        }
        let caught_up = {
            let config = config.clone();
            let runtime = Arc::clone(&runtime);
            let span = tracing::info_span!("recall catch-up");
            tokio::task::spawn_blocking(move || {
                let _span = span.entered();
                Memory::for_config(&config, runtime.current().recall_language)
                    .and_then(|memory| memory.catch_up())
            })
        };
        tokio::select! {
            () = stop.cancelled() => return,
            done = caught_up => match done {
                Ok(Ok(updated)) if updated.read + updated.dropped > 0 => tracing::debug!(
                    read = updated.read,
                    dropped = updated.dropped,
                    passages = updated.passages,
                    "recall caught up"
                ),
                Ok(Ok(_)) => {}
                Ok(Err(error)) => tracing::warn!(%error, "recall could not catch up"),
                Err(error) => tracing::warn!(%error, "recall's catch-up ended abnormally"),
            },
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = turns.turn_ended() => {}
        }
        wait = config.scheduler_sync;
    }
}
