//! Waiting in tests: for an event, with a deadline (the step a test stands on happened). That
//! something did NOT happen is shown the same way: wait for the event after which it no longer
//! can (a later turn answered, the next look at the schedule, a log line that ends the step),
//! then assert; never by waiting a fixed while and hoping.
//!
//! The fakes wake their own waiters (`MockApi::wait_for`, `FakeDiscord::wait_for`); these are
//! for what has no such signal: a process's log, a file, a process table, an HTTP port.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

/// How often a condition without a wake-up signal is looked at again.
pub const POLL: Duration = Duration::from_millis(20);

/// Looks at `probe` every [`POLL`] until it yields something; `None` once `within` passed.
pub async fn until<T>(within: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    until_async(within, move || std::future::ready(probe())).await
}

/// [`until`] with an async `probe` (a connection attempt, a child's output).
pub async fn until_async<T, F>(within: Duration, probe: impl FnMut() -> F) -> Option<T>
where
    F: Future<Output = Option<T>>,
{
    poll_every(within, POLL, probe).await
}

/// [`until`] looking every `every` instead of [`POLL`]: for a step that must be caught while
/// it lasts (a signal sent mid-connect), where a 20 ms gap could miss it.
pub async fn until_every<T>(
    within: Duration,
    every: Duration,
    mut probe: impl FnMut() -> Option<T>,
) -> Option<T> {
    poll_every(within, every, move || std::future::ready(probe())).await
}

async fn poll_every<T, F>(
    within: Duration,
    every: Duration,
    mut probe: impl FnMut() -> F,
) -> Option<T>
where
    F: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe().await {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(every).await;
    }
}

/// Waits until `probe` yields something and returns it; after `within` panics saying `what`
/// did not happen, with `context()` (a log, the state seen) appended.
pub async fn eventually<T>(
    what: &str,
    within: Duration,
    probe: impl FnMut() -> Option<T>,
    context: impl FnOnce() -> String,
) -> T {
    match until(within, probe).await {
        Some(found) => found,
        None => panic!(
            "timed out after {within:?} waiting for {what}\n{}",
            context()
        ),
    }
}

/// Waits until `cond` holds; after `within` panics like [`eventually`].
pub async fn until_true(
    what: &str,
    within: Duration,
    mut cond: impl FnMut() -> bool,
    context: impl FnOnce() -> String,
) {
    eventually(what, within, || cond().then_some(()), context).await;
}
