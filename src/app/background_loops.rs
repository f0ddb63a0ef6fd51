//! The daemon's long-running loops besides the gateway: the scheduler and the webhook server,
//! both started once the owner is known, the fork idle check, the CLI's rest, and the parts'
//! watches with recall's catch-up. Each runs until the shutdown token is cancelled.

use std::{sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

use super::crash::OwnedTasks;
use crate::{clock::Clock, services::Services};

use crate::{
    agent::MainSession,
    background::webhook_dispatch::WebhookDispatch,
    config::WebhookSetting,
    discord::bot::Bot,
    scheduling::Scheduler,
    webhooks::{HookSink, SpecStore},
};

/// How often the open fork is checked for idleness (IFK-12).
const FORK_IDLE_CHECK_INTERVAL: Duration = Duration::from_secs(60);

/// The longest wait between two looks at whether the conversation's CLI can sleep.
const REST_CHECK_LONGEST: Duration = Duration::from_secs(30);

/// Starts the scheduler once the owner is known (SCH-1) and runs it until `stop`.
pub(super) async fn run_scheduler(
    bot: Arc<Bot>,
    scheduler: Arc<Scheduler>,
    stop: CancellationToken,
) {
    tokio::select! {
        () = stop.cancelled() => return,
        () = bot.reach.owner_ready() => {}
    }
    scheduler.run(stop).await;
}

/// Starts the webhook server once the owner is known (WHK-1, BOOT-7) and serves until `stop`;
/// requests in flight are answered before it returns. Broken spec files are listed at start.
pub(super) async fn run_webhooks(
    bot: Arc<Bot>,
    (setting, bind): (WebhookSetting, std::net::IpAddr),
    specs: Arc<SpecStore>,
    dispatch: WebhookDispatch,
    stop: CancellationToken,
) {
    tokio::select! {
        () = stop.cancelled() => return,
        () = bot.reach.owner_ready() => {}
    }
    if matches!(setting, WebhookSetting::On { .. }) {
        let scanned = {
            let specs = Arc::clone(&specs);
            tokio::task::spawn_blocking(move || specs.scan()).await
        };
        for broken in scanned.into_iter().flatten().filter_map(Result::err) {
            tracing::warn!("{broken}");
        }
    }
    let sink: Arc<dyn HookSink> = Arc::new(dispatch);
    let shutdown = stop.clone().cancelled_owned();
    match crate::webhooks::start((&setting, bind), specs, sink, shutdown).await {
        Ok(Some(running)) => match running.task.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::error!(%error, "the webhook server failed"),
            Err(error) => tracing::error!(%error, "the webhook server task failed"),
        },
        Ok(None) => {}
        Err(error) => {
            if let WebhookSetting::On { port, .. } = setting {
                tracing::error!(%error, "could not start the webhook server on {bind}:{port}; webhooks are off");
            }
        }
    }
}

/// Checks the open fork for idleness once a minute until `stop` (IFK-11, IFK-12). One loop,
/// so checks never overlap; a check that finds the session busy skips that minute.
pub(super) async fn check_fork_idle(
    session: Arc<MainSession>,
    clock: Clock,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep(FORK_IDLE_CHECK_INTERVAL) => {}
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = session.check_idle() => {}
        }
    }
}

/// Puts the conversation's CLIs (main's, an open fork's) to sleep once idle for their limit
/// (issue 29, REST-1), looking a few times per limit (at most every 30 s) until `stop`.
pub(super) async fn rest_when_idle(
    session: Arc<MainSession>,
    clock: Clock,
    stop: CancellationToken,
) {
    loop {
        let every = session
            .idle_limit()
            .map_or(REST_CHECK_LONGEST, |limit| {
                (limit / 4).min(REST_CHECK_LONGEST)
            })
            .max(Duration::from_millis(250));
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep(every) => {}
        }
        tokio::select! {
            () = stop.cancelled() => return,
            _ = session.sleep_if_idle() => {}
        }
    }
}

/// Spawns the parts' watches (Google revocation, the quiet-time digest, the notices) and
/// recall's catch-up, each running until `stop`.
pub(super) fn spawn_watches(
    tasks: &mut OwnedTasks,
    bot: &Arc<Bot>,
    services: &Services,
    stop: &CancellationToken,
) {
    tasks.spawn(
        "Discord link watch",
        crate::discord::link::watch_link(Arc::clone(bot), stop.clone()),
    );
    tasks.spawn(
        "google revocation watch",
        Arc::clone(&bot.google).watch_revocation(services.config.scheduler_sync, stop.clone()),
    );
    tasks.spawn(
        "quiet-time digest",
        Arc::clone(&bot.quiet).watch_digest(services.config.scheduler_sync, stop.clone()),
    );
    tasks.spawn(
        "set-aside notices",
        Arc::clone(&bot.notices).watch_set_aside(services.config.scheduler_sync, stop.clone()),
    );
    tasks.spawn(
        "interrupted-work notice",
        Arc::clone(&bot.notices).watch_unfinished(services.config.scheduler_sync, stop.clone()),
    );
    tasks.spawn(
        "disk-space notices",
        Arc::clone(&bot.notices).watch_disk_space(services.config.scheduler_sync, stop.clone()),
    );
    tasks.spawn(
        "recall catch-up",
        crate::recall::keeper::keep_current(
            services.config.clone(),
            Arc::clone(&services.runtime),
            services.usage.clone(),
            services.clock.clone(),
            stop.clone(),
        ),
    );
}
