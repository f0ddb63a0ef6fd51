//! Test support: a recording [`MessageSink`], a scripted [`Timeline`] on a virtual clock, a
//! small deterministic PRNG and the no-loss checker.

use std::{collections::VecDeque, sync::Arc, time::Duration};

use parking_lot::{Mutex, MutexGuard};

use tokio::time::Instant;

use super::{Timeline, Wake, render::char_len};
use crate::{
    claude::BoxFuture,
    discord::sink::{MessageId, MessageSink, SinkError},
    front_end::TurnEvent,
};

/// A clock that only moves when the script says so.
#[derive(Clone)]
pub(super) struct VirtualClock {
    base: Instant,
    now: Arc<Mutex<Instant>>,
}

impl VirtualClock {
    pub(super) fn new() -> Self {
        let base = Instant::now();
        Self {
            base,
            now: Arc::new(Mutex::new(base)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Instant> {
        self.now.lock()
    }

    pub(super) fn now(&self) -> Instant {
        *self.lock()
    }

    /// Moves the clock forward to `at` (never back).
    fn advance_to(&self, at: Instant) {
        let mut now = self.lock();
        *now = (*now).max(at);
    }

    /// Time since the script started.
    pub(super) fn elapsed(&self) -> Duration {
        self.now() - self.base
    }

    pub(super) fn at(&self, offset: Duration) -> Instant {
        self.base + offset
    }
}

/// One thing the streamer did, stamped with the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Op {
    Send(MessageId, String),
    Edit(MessageId, String),
    Delete(MessageId),
    Typing,
    FailedEdit(MessageId),
    FailedSend,
}

#[derive(Default)]
struct Inner {
    ops: Vec<(Duration, Op)>,
    /// Messages that exist, oldest first.
    messages: Vec<(MessageId, String)>,
    next_id: MessageId,
    /// Edits at or after this time fail, `fail_edits` of them.
    fail_edits_from: Duration,
    fail_edits: usize,
    /// Every n-th edit fails.
    fail_every: Option<usize>,
    edit_calls: usize,
}

/// A [`MessageSink`] that records every call with the (virtual or real) time.
pub(super) struct RecordingSink {
    clock: Option<VirtualClock>,
    started: std::time::Instant,
    inner: Mutex<Inner>,
}

impl RecordingSink {
    /// Stamps calls with `clock`.
    pub(super) fn new(clock: &VirtualClock) -> Self {
        Self::with_clock(Some(clock.clone()))
    }

    /// Stamps calls with the real time since creation.
    pub(super) fn real_time() -> Self {
        Self::with_clock(None)
    }

    fn with_clock(clock: Option<VirtualClock>) -> Self {
        Self {
            clock,
            started: std::time::Instant::now(),
            inner: Mutex::new(Inner {
                next_id: 1000,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock()
    }

    fn stamp(&self) -> Duration {
        self.clock
            .as_ref()
            .map_or_else(|| self.started.elapsed(), VirtualClock::elapsed)
    }

    /// The next `n` edits at or after `from` fail with a 429.
    pub(super) fn fail_edits_from(&self, from: Duration, n: usize) {
        let mut inner = self.lock();
        inner.fail_edits_from = from;
        inner.fail_edits = n;
    }

    /// Every `n`-th edit fails with a 429.
    pub(super) fn fail_every_nth_edit(&self, n: usize) {
        self.lock().fail_every = Some(n);
    }

    pub(super) fn ops(&self) -> Vec<(Duration, Op)> {
        self.lock().ops.clone()
    }

    /// Successful edits: time, message, content.
    pub(super) fn edits(&self) -> Vec<(Duration, MessageId, String)> {
        self.ops()
            .into_iter()
            .filter_map(|(at, op)| match op {
                Op::Edit(id, content) => Some((at, id, content)),
                _ => None,
            })
            .collect()
    }

    /// Messages that exist at the end, oldest first.
    pub(super) fn messages(&self) -> Vec<(MessageId, String)> {
        self.lock().messages.clone()
    }

    pub(super) fn contents(&self) -> Vec<String> {
        self.messages().into_iter().map(|(_, text)| text).collect()
    }

    pub(super) fn ids(&self) -> Vec<MessageId> {
        self.messages().into_iter().map(|(id, _)| id).collect()
    }

    fn edit_now(&self, id: MessageId, content: String) -> Result<(), SinkError> {
        let at = self.stamp();
        let mut inner = self.lock();
        inner.edit_calls += 1;
        let periodic = inner
            .fail_every
            .is_some_and(|n| inner.edit_calls.is_multiple_of(n));
        let armed = inner.fail_edits > 0 && at >= inner.fail_edits_from;
        if armed {
            inner.fail_edits -= 1;
        }
        if periodic || armed {
            inner.ops.push((at, Op::FailedEdit(id)));
            return Err(SinkError("HTTP 429 Too Many Requests".to_owned()));
        }
        assert!(char_len(&content) <= 2000, "edit over 2000 chars");
        assert!(!content.trim().is_empty(), "blank edit");
        let Some(slot) = inner.messages.iter_mut().find(|(m, _)| *m == id) else {
            return Err(SinkError("404 Unknown Message".to_owned()));
        };
        slot.1.clone_from(&content);
        inner.ops.push((at, Op::Edit(id, content)));
        Ok(())
    }
}

impl MessageSink for RecordingSink {
    fn send(&self, content: String) -> BoxFuture<'_, Result<MessageId, SinkError>> {
        let at = self.stamp();
        let mut inner = self.lock();
        assert!(char_len(&content) <= 2000, "send over 2000 chars");
        let result = if content.trim().is_empty() {
            inner.ops.push((at, Op::FailedSend));
            Err(SinkError("Cannot send an empty message".to_owned()))
        } else {
            inner.next_id += 1;
            let id = inner.next_id;
            inner.messages.push((id, content.clone()));
            inner.ops.push((at, Op::Send(id, content)));
            Ok(id)
        };
        Box::pin(std::future::ready(result))
    }

    fn edit(&self, id: MessageId, content: String) -> BoxFuture<'_, Result<(), SinkError>> {
        Box::pin(std::future::ready(self.edit_now(id, content)))
    }

    fn delete(&self, id: MessageId) -> BoxFuture<'_, Result<(), SinkError>> {
        let at = self.stamp();
        let mut inner = self.lock();
        inner.messages.retain(|(m, _)| *m != id);
        inner.ops.push((at, Op::Delete(id)));
        Box::pin(std::future::ready(Ok(())))
    }

    fn typing(&self) -> BoxFuture<'_, ()> {
        let at = self.stamp();
        self.lock().ops.push((at, Op::Typing));
        Box::pin(std::future::ready(()))
    }
}

/// A scripted turn: events at fixed offsets, then the end of the turn.
pub(super) struct Script {
    clock: VirtualClock,
    steps: VecDeque<(Duration, TurnEvent)>,
    end: Duration,
    wakes: usize,
}

impl Script {
    pub(super) fn new(clock: &VirtualClock) -> Self {
        Self {
            clock: clock.clone(),
            steps: VecDeque::new(),
            end: Duration::ZERO,
            wakes: 0,
        }
    }

    /// Adds `event` at `ms` milliseconds (events must come in time order).
    pub(super) fn at(mut self, ms: u64, event: TurnEvent) -> Self {
        let at = Duration::from_millis(ms);
        assert!(self.steps.back().is_none_or(|(last, _)| *last <= at));
        self.end = self.end.max(at);
        self.steps.push_back((at, event));
        self
    }

    /// Adds text at `ms`.
    pub(super) fn text(self, ms: u64, text: &str) -> Self {
        self.at(ms, TurnEvent::TextDelta(text.to_owned()))
    }

    /// Ends the turn at `ms` (at the last event when earlier).
    pub(super) fn end(mut self, ms: u64) -> Self {
        self.end = self.end.max(Duration::from_millis(ms));
        self
    }
}

impl Timeline for Script {
    fn now(&self) -> Instant {
        self.clock.now()
    }

    fn next(&mut self, deadline: Option<Instant>) -> impl Future<Output = Wake> + Send {
        self.wakes += 1;
        assert!(self.wakes < 1_000_000, "the streamer is spinning");
        let next_at = self
            .clock
            .at(self.steps.front().map_or(self.end, |(at, _)| *at));
        let wake = match deadline {
            Some(deadline) if deadline <= next_at => {
                self.clock.advance_to(deadline);
                Wake::Deadline
            }
            _ => {
                self.clock.advance_to(next_at);
                self.steps
                    .pop_front()
                    .map_or(Wake::Closed, |(_, event)| Wake::Event(event))
            }
        };
        std::future::ready(wake)
    }

    fn sleep_until(&mut self, at: Instant) -> impl Future<Output = ()> + Send {
        self.clock.advance_to(at);
        std::future::ready(())
    }
}

/// Asserts that `parts`, in order, are `full` with at most some whitespace left out (blank
/// pieces are never posted): nothing visible lost, nothing repeated, and each part fits.
pub(super) fn assert_lossless(full: &str, parts: &[String]) {
    for part in parts {
        assert!(char_len(part) <= 2000, "part over 2000 chars");
    }
    let joined: String = parts.concat();
    let mut expected = full.chars();
    for (index, got) in joined.chars().enumerate() {
        loop {
            match expected.next() {
                Some(want) if want == got => break,
                Some(want) if want.is_whitespace() => {}
                Some(want) => panic!("char {index}: got {got:?}, expected {want:?}"),
                None => panic!("char {index}: {got:?} past the end of the text"),
            }
        }
    }
    let rest: String = expected.collect();
    assert!(rest.trim().is_empty(), "text lost at the end: {rest:?}");
}

/// xorshift64*: deterministic, good enough for test data.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `low..=high`.
    pub(super) fn range(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low + 1) as u64;
        low + usize::try_from(self.next_u64() % span).unwrap_or(0)
    }
}
