//! The auto-update loop (UPD-2, UPD-4, SCH-5): wakes every five minutes
//! (`OLLIM_UPDATE_POLL_SECS`), checks when `auto_update` is on and `auto_update_interval`
//! passed, and applies a new release only while the agent is idle and in the hour
//! `auto_update_hour`; the decisions are [`crate::update::auto`]'s.

use std::{sync::Arc, time::Duration};

use chrono::Timelike;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::{
    discord::bot::Bot,
    update::auto::{AgentActivity, AutoStep, CheckDue, check_due, next_step},
};

/// Runs until `stop`: starts once the owner is known, then wakes every `poll`; the first
/// wake-up checks (when `auto_update` is on). Dropping a
/// check in progress (on `stop`) kills its git or cargo process.
pub(super) async fn run_auto_update(bot: Arc<Bot>, poll: Duration, stop: CancellationToken) {
    tokio::select! {
        () = stop.cancelled() => return,
        () = bot.reach.owner_ready() => {}
    }
    // The first look comes one poll after start-up, not while the session is still starting.
    let clock = bot.reach.services.clock.clone();
    let mut last_check: Option<Instant> = None;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep(poll) => {}
        }
        let runtime = bot.reach.services.runtime.current();
        let now = clock.instant();
        let due = check_due(
            runtime.auto_update,
            runtime.auto_update_interval_duration(),
            last_check.map(Instant::into_std),
            now.into_std(),
        );
        if due != CheckDue::Now {
            continue;
        }
        last_check = Some(now);
        tokio::select! {
            () = stop.cancelled() => return,
            () = check_once(&bot, runtime.auto_update_hour) => {}
        }
        if bot.is_restarting() {
            return;
        }
    }
}

/// One check: detect, decide, and apply when the step says so.
async fn check_once(bot: &Bot, update_hour: u8) {
    let Some(run) = bot.updater.begin() else {
        tracing::debug!("auto-update: an update is already in progress");
        return;
    };
    let detection = run.detect().await;
    let activity = if bot.reach.session.is_busy() {
        AgentActivity::Turn
    } else if bot.reach.session.in_fork() {
        AgentActivity::InFork
    } else {
        AgentActivity::Idle
    };
    let local_hour = bot
        .reach
        .services
        .clock
        .now()
        .with_timezone(&bot.reach.services.config.timezone)
        .hour();
    let release = match next_step(detection, activity, local_hour, update_hour) {
        AutoStep::FetchFailed(error) => {
            tracing::warn!(%error, "auto-update: git fetch failed");
            return;
        }
        AutoStep::NothingNew => {
            tracing::debug!("auto-update: up to date");
            return;
        }
        AutoStep::AlreadyApplied(release) => {
            release.warn_already_applied();
            return;
        }
        AutoStep::DeferBusy => {
            tracing::info!("auto-update: deferred (agent busy)");
            return;
        }
        AutoStep::WaitForHour(hour) => {
            tracing::info!("auto-update: waiting for {hour}:00");
            return;
        }
        AutoStep::Apply(release) => release,
    };
    tracing::info!(
        "auto-update: v{} -> {}",
        env!("CARGO_PKG_VERSION"),
        release.tag
    );
    match run.apply(&release).await {
        Ok(applied) => bot.announce_update_and_restart(&applied).await,
        Err(error) => {
            tracing::warn!(%error, "auto-update failed");
            bot.tell_update_news(format!("auto-update failed: {error}"))
                .await;
        }
    }
}
