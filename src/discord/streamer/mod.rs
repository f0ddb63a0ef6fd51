//! Renders one streamed turn into the owner's DM (STR-1 … STR-10): a status line while the
//! model thinks or a tool runs, the reply edited in place at a throttled pace, split into
//! further messages past 2000 characters, tool labels inline, and a permanent note where the
//! CLI auto-compacted.
//!
//! [`stream_turn`] drives a small state machine (`machine`: an enum of phases, one timer
//! loop) from the turn's events; every string it posts comes from the pure functions in
//! [`render`]. All timing uses [`tokio::time`], behind a narrow `Timeline` seam so the tests
//! run the very same loop on a virtual clock (the crate does not enable tokio's `test-util`).

use std::{future::Future, time::Duration};

use tokio::{sync::mpsc::UnboundedReceiver, time::Instant};

use crate::{
    discord::sink::{MessageId, MessageSink},
    front_end::TurnEvent,
};

mod machine;
pub mod render;
mod tools;

#[cfg(test)]
mod fake;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod subagent_tests;
#[cfg(test)]
mod tests;

/// Delay between the first text of a message and its first write (STR-4), so it opens with a
/// meaningful chunk rather than one token.
pub const FIRST_FLUSH_DELAY: Duration = Duration::from_millis(200);

/// Minimum time between two writes of the reply text (STR-4): at most two edits a second.
pub const EDIT_INTERVAL: Duration = Duration::from_millis(500);

/// Minimum time between two timer updates of the status line (STR-2).
pub const STATUS_TICK: Duration = Duration::from_secs(1);

/// How long a status phase that follows text lasts before its fresh status line is posted;
/// quick tool calls then cost no message at all.
pub const STATUS_DELAY: Duration = Duration::from_millis(500);

/// How often the typing indicator is refreshed while text is paused (Discord shows it ~10 s).
pub const TYPING_REFRESH: Duration = Duration::from_secs(5);

/// Attempts at the final flush when Discord refuses a write, [`EDIT_INTERVAL`] × attempt apart.
pub const FINAL_FLUSH_ATTEMPTS: u32 = 3;

/// How one turn is rendered.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// Post `no response — try again.` when the turn showed nothing and did not compact
    /// (STR-10). On by default.
    pub no_response_text: bool,
}

impl Default for StreamOptions {
    /// A reply to the owner: STR-10 on.
    fn default() -> Self {
        Self {
            no_response_text: true,
        }
    }
}

/// What [`stream_turn`] left in the channel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamOutcome {
    /// Every message it posted that still exists (reply text, compaction notes, notices, the
    /// no-response line), oldest first, for reply tracking (SES-15/16). Status lines it
    /// deleted are not included.
    pub message_ids: Vec<MessageId>,
    /// Characters of model text received (tool labels not counted).
    pub text_chars: usize,
    /// Whether the CLI compacted the context during the turn.
    pub compacted: bool,
}

/// Streams one turn's `events` into the channel behind `sink` until the sender side closes,
/// then finishes the messages (STR-6) and reports what is left.
pub async fn stream_turn(
    sink: &dyn MessageSink,
    events: UnboundedReceiver<TurnEvent>,
    options: StreamOptions,
) -> StreamOutcome {
    machine::run(sink, LiveEvents { events }, options).await
}

/// Why the streamer woke up.
#[derive(Debug)]
enum Wake {
    /// The next event of the turn.
    Event(TurnEvent),
    /// The deadline passed.
    Deadline,
    /// The turn ended.
    Closed,
}

/// Where the streamer's events and time come from: the live receiver and [`tokio::time`] in
/// production, a scripted virtual clock in tests.
trait Timeline: Send {
    /// The current time.
    fn now(&self) -> Instant;
    /// Waits for the next event, or until `deadline`. A deadline already past wins over
    /// queued events, so a flood of deltas never starves the timers.
    fn next(&mut self, deadline: Option<Instant>) -> impl Future<Output = Wake> + Send;
    /// Waits until `at`.
    fn sleep_until(&mut self, at: Instant) -> impl Future<Output = ()> + Send;
}

/// The production [`Timeline`]: the turn's receiver and the tokio clock.
struct LiveEvents {
    events: UnboundedReceiver<TurnEvent>,
}

impl Timeline for LiveEvents {
    fn now(&self) -> Instant {
        Instant::now()
    }

    async fn next(&mut self, deadline: Option<Instant>) -> Wake {
        let received = |event: Option<TurnEvent>| event.map_or(Wake::Closed, Wake::Event);
        match deadline {
            Some(deadline) if deadline <= Instant::now() => Wake::Deadline,
            Some(deadline) => tokio::select! {
                event = self.events.recv() => received(event),
                () = tokio::time::sleep_until(deadline) => Wake::Deadline,
            },
            None => received(self.events.recv().await),
        }
    }

    async fn sleep_until(&mut self, at: Instant) {
        tokio::time::sleep_until(at).await;
    }
}
