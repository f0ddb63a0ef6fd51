//! Unexpected ends of the daemon (BOOT-8): the gateway failing for good, a panic in the
//! daemon's main future or in a task it owns, another error once the owner's DM is open.
//! Each becomes `shutting down: <kind>: <message>` in the owner's DM, sent through REST (it
//! works after the gateway is gone), best effort, before the process exits non-zero so a
//! supervisor (systemd's `Restart=on-failure`) starts it again.

use std::{
    any::Any,
    collections::HashMap,
    future::Future,
    sync::{Arc, OnceLock},
    time::Duration,
};

use serenity::http::Http;
use tokio::task::{AbortHandle, Id, JoinSet};

use crate::discord::{
    notices::greeting::shutdown_notice, places::Places, rate_limit::with_rate_limit_retries,
};

/// How long the crash notice may take.
pub const NOTICE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the daemon is ending unexpectedly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FatalEnd {
    /// The Discord client stopped with an error (a fatal close code such as 4004 or 4014).
    Gateway(String),
    /// A panic in the daemon or one of its tasks.
    Panic(String),
    /// Any other error out of the daemon.
    Error(String),
}

impl FatalEnd {
    /// The short name of the kind of end, as the notice shows it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Gateway(_) => "gateway error",
            Self::Panic(_) => "panic",
            Self::Error(_) => "error",
        }
    }

    /// What happened.
    pub fn message(&self) -> &str {
        match self {
            Self::Gateway(message) | Self::Panic(message) | Self::Error(message) => message,
        }
    }

    /// The DM: `shutting down: <kind>: <message>`, the reason cut to 200 characters.
    pub fn notice(&self) -> String {
        shutdown_notice(&format!("{}: {}", self.kind(), self.message()))
    }
}

/// A panic's message from its payload (`panic!` with a literal or a formatted string).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// How to reach the owner once it is possible: the REST client and the owner's places (the
/// DM is known once the owner is).
#[derive(Default)]
pub struct OwnerReach {
    route: OnceLock<(Arc<Http>, Arc<Places>)>,
}

impl OwnerReach {
    /// Records the REST client and the owner's places, once built.
    pub fn connect(&self, http: Arc<Http>, places: Arc<Places>) {
        let _ = self.route.set((http, places));
    }

    /// Logs `end` and DMs its notice when the owner's channel is open; waits at most
    /// [`NOTICE_TIMEOUT`], never fails.
    pub async fn report(&self, end: &FatalEnd) {
        tracing::error!(kind = end.kind(), "fatal: {}", end.message());
        let Some((http, places)) = self.route.get() else {
            return;
        };
        let Some(channel) = places.unasked() else {
            return;
        };
        let notice = end.notice();
        let send = with_rate_limit_retries(|| channel.say(http, &notice));
        match tokio::time::timeout(NOTICE_TIMEOUT, send).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => tracing::warn!(%error, "could not send the crash notice"),
            Err(_) => tracing::warn!("the crash notice took too long; skipped"),
        }
    }
}

/// The daemon's own background tasks (signal handling, scheduler, webhook server, fork idle
/// check, …): a panic in any of them ends the daemon instead of leaving it running without
/// them.
#[derive(Default)]
pub struct OwnedTasks {
    set: JoinSet<()>,
    names: HashMap<Id, &'static str>,
}

impl OwnedTasks {
    /// Spawns `task` under `name`.
    pub fn spawn(
        &mut self,
        name: &'static str,
        task: impl Future<Output = ()> + Send + 'static,
    ) -> AbortHandle {
        let handle = self.set.spawn(task);
        self.names.insert(handle.id(), name);
        handle
    }

    /// Resolves with the first panic among the tasks; never resolves if none panics (tasks
    /// that end normally are just forgotten). Cancel-safe.
    pub async fn first_panic(&mut self) -> FatalEnd {
        while let Some(joined) = self.set.join_next_with_id().await {
            if let Err(error) = joined
                && error.is_panic()
            {
                let name = self.names.get(&error.id()).copied().unwrap_or("a task");
                let message = panic_message(&*error.into_panic());
                return FatalEnd::Panic(format!("{message} (in {name})"));
            }
        }
        std::future::pending().await
    }

    /// Waits for every task (after they were told to stop), logging those that panicked.
    pub async fn join_all(mut self) {
        while let Some(joined) = self.set.join_next_with_id().await {
            if let Err(error) = joined
                && error.is_panic()
            {
                let name = self.names.get(&error.id()).copied().unwrap_or("a task");
                tracing::warn!(
                    "{name} ended with a panic: {}",
                    panic_message(&*error.into_panic())
                );
            }
        }
    }
}

#[cfg(test)]
#[path = "crash_tests.rs"]
mod tests;
