//! The streaming state machine. [`run`] is the only loop: it asks the [`Streamer`] for its
//! next deadline, waits for an event or that deadline, and hands either over.
//!
//! Messages, top to bottom: kept messages (closed reply parts, notes, notices), then the
//! current reply message, and the status line — always the newest message while it exists,
//! which is why it can be edited into the next reply message, note or notice in place.

use std::time::Duration;

use tokio::time::Instant;

use super::{
    EDIT_INTERVAL, FINAL_FLUSH_ATTEMPTS, FIRST_FLUSH_DELAY, STATUS_DELAY, STATUS_TICK,
    StreamOptions, StreamOutcome, TYPING_REFRESH, Timeline, Wake,
    render::{
        NO_RESPONSE, THINKING_LABEL, ToolOutcome, char_len, compaction_label, compaction_note,
        is_blank, notice_text, status_text,
    },
    tools::ToolLabels,
};
use crate::{
    discord::sink::{MessageId, MessageSink},
    front_end::TurnEvent,
};

mod messages;
mod phase;

use phase::{Phase, Status, elapsed_secs};

/// Streams `timeline`'s events through `sink` until the turn ends.
pub(super) async fn run<T: Timeline>(
    sink: &dyn MessageSink,
    mut timeline: T,
    options: StreamOptions,
) -> StreamOutcome {
    let now = timeline.now();
    let mut streamer = Streamer::new(sink, options, now);
    streamer.start(now).await;
    loop {
        let deadline = streamer.next_deadline();
        match timeline.next(deadline).await {
            Wake::Event(event) => streamer.on_event(event, timeline.now()).await,
            Wake::Deadline => streamer.on_tick(timeline.now()).await,
            Wake::Closed => break,
        }
    }
    streamer.finish(&mut timeline).await
}

/// The posted status message and what it shows.
#[derive(Debug)]
struct StatusLine {
    id: MessageId,
    shows: Status,
    secs: u64,
}

/// The reply message being written and its content as Discord has it.
#[derive(Debug)]
struct Live {
    id: MessageId,
    shown: String,
}

struct Streamer<'a> {
    sink: &'a dyn MessageSink,
    options: StreamOptions,
    phase: Phase,
    /// The status message, when posted.
    status: Option<StatusLine>,
    /// Last send/edit attempt on the status line (throttling, also after failures).
    status_attempt: Option<Instant>,
    /// The reply message `pending` is written into.
    current: Option<Live>,
    /// The full content of the current reply message, possibly not written yet.
    pending: String,
    /// When `pending` first changed since the last write.
    dirty_since: Option<Instant>,
    /// Last write attempt on the reply text (throttling, also after failures).
    last_write: Option<Instant>,
    last_typing: Instant,
    tools: ToolLabels,
    /// Messages that stay: closed reply parts, notes, notices.
    kept: Vec<MessageId>,
    /// The catching-up note, taken away when the turn is over.
    catching_up: Option<MessageId>,
    text_chars: usize,
    showed_text: bool,
    compacted: bool,
    /// The turn was cut short for a fork (STR-10 does not apply).
    handed_over: bool,
}

impl<'a> Streamer<'a> {
    fn new(sink: &'a dyn MessageSink, options: StreamOptions, now: Instant) -> Self {
        Self {
            sink,
            options,
            phase: Phase::Waiting(Status::new(THINKING_LABEL.to_owned(), now)),
            status: None,
            status_attempt: None,
            current: None,
            pending: String::new(),
            dirty_since: None,
            last_write: None,
            last_typing: now,
            tools: ToolLabels::default(),
            kept: Vec::new(),
            catching_up: None,
            text_chars: 0,
            showed_text: false,
            compacted: false,
            handed_over: false,
        }
    }

    /// STR-1: typing indicator, then the `Thinking...` status line straight away.
    async fn start(&mut self, now: Instant) {
        self.sink.typing().await;
        self.refresh_status(now).await;
    }

    // ---- timers -----------------------------------------------------------------------

    fn next_deadline(&self) -> Option<Instant> {
        [self.text_due(), self.status_due(), self.typing_due()]
            .into_iter()
            .flatten()
            .min()
    }

    /// STR-4: 0.2 s after the text changed, and never within 0.5 s of the previous write.
    fn text_due(&self) -> Option<Instant> {
        let first = self.dirty_since? + FIRST_FLUSH_DELAY;
        Some(
            self.last_write
                .map_or(first, |last| first.max(last + EDIT_INTERVAL)),
        )
    }

    /// STR-2: post a missing status line, show a new label, or tick the seconds.
    fn status_due(&self) -> Option<Instant> {
        let status = self.phase.status()?;
        let after = |gap: Duration| self.status_attempt.map(|at| at + gap);
        Some(match &self.status {
            None => (status.since + STATUS_DELAY).max(after(STATUS_TICK).unwrap_or(status.since)),
            Some(line) if line.shows != *status => after(EDIT_INTERVAL).unwrap_or(status.since),
            Some(line) => {
                let next_second = status.since + Duration::from_secs(line.secs + 1);
                next_second.max(after(STATUS_TICK).unwrap_or(next_second))
            }
        })
    }

    /// STR-4: while text is paused outside a status phase, keep the typing indicator alive.
    fn typing_due(&self) -> Option<Instant> {
        (matches!(self.phase, Phase::Text) && self.dirty_since.is_none())
            .then(|| self.last_typing + TYPING_REFRESH)
    }

    async fn on_tick(&mut self, now: Instant) {
        if self.text_due().is_some_and(|due| due <= now) {
            self.flush(now, false).await;
        }
        if self.status_due().is_some_and(|due| due <= now) {
            self.refresh_status(now).await;
        }
        if self.typing_due().is_some_and(|due| due <= now) {
            self.last_typing = now;
            self.sink.typing().await;
        }
    }

    /// Brings the status line up to date: posts it when missing, else edits it.
    async fn refresh_status(&mut self, now: Instant) {
        let Some(status) = self.phase.status().cloned() else {
            return;
        };
        self.status_attempt = Some(now);
        let secs = now.saturating_duration_since(status.since).as_secs();
        let text = status_text(&status.label, secs);
        let result = match &self.status {
            None => self.sink.send(text).await,
            Some(line) => self.sink.edit(line.id, text).await.map(|()| line.id),
        };
        match result {
            Ok(id) => {
                self.status = Some(StatusLine {
                    id,
                    shows: status,
                    secs,
                });
            }
            Err(error) => tracing::warn!(%error, "could not update the status line"),
        }
    }

    // ---- events -----------------------------------------------------------------------

    async fn on_event(&mut self, event: TurnEvent, now: Instant) {
        match event {
            TurnEvent::TextDelta(text) => self.on_text(&text, now).await,
            TurnEvent::ToolUse { id, label } => self.on_tool_use(id, label, now).await,
            TurnEvent::ToolDenied { id } => self.tools.mark(&id, ToolOutcome::Denied),
            TurnEvent::ToolFailed { id } => self.tools.mark(&id, ToolOutcome::Failed),
            TurnEvent::ToolApproved { id } => self.tools.mark(&id, ToolOutcome::Approved),
            TurnEvent::Compacting { pre_tokens } => self.on_compacting(pre_tokens, now).await,
            TurnEvent::Compacted {
                pre_tokens,
                seconds,
            } => self.on_compacted(pre_tokens, seconds, now).await,
            TurnEvent::Notice(text) => self.on_notice(&text, now).await,
            TurnEvent::CatchingUp => self.on_catching_up(now).await,
            TurnEvent::Retrying(line) => self.show_status(line, now).await,
            TurnEvent::SubagentActivity(label) => {
                if let Phase::Waiting(status) = &mut self.phase {
                    status.rename(label);
                }
            }
            TurnEvent::ForkRequested => self.handed_over = true,
        }
    }

    async fn on_text(&mut self, text: &str, now: Instant) {
        self.text_chars += char_len(text);
        if text.is_empty() {
            return;
        }
        match std::mem::replace(&mut self.phase, Phase::Text) {
            Phase::Compacting { status, pre_tokens } => {
                self.end_compaction(pre_tokens, elapsed_secs(&status, now))
                    .await;
            }
            // STR-3: a status line below a reply message goes; otherwise it becomes the
            // next reply message at the next write.
            Phase::Waiting(_) if self.current.is_some() => self.delete_status().await,
            Phase::Waiting(_) | Phase::Text => {}
        }
        let labels = self.tools.take_rendered();
        self.append(&labels, now);
        self.append(text, now);
    }

    async fn on_tool_use(&mut self, id: String, label: String, now: Instant) {
        if !self.tools.begin(id, label.clone()) {
            return;
        }
        self.show_status(label, now).await;
    }

    /// The status line shows `label` from now (a tool's, or the API being retried, issue 24
    /// §2), edited in place like every status.
    async fn show_status(&mut self, label: String, now: Instant) {
        match &mut self.phase {
            Phase::Waiting(status) => status.relabel(label, now),
            Phase::Text => {
                // Text waiting to take over the status line does so now, before the line
                // turns into this tool's status.
                if self.current.is_none() && self.status.is_some() && !is_blank(&self.pending) {
                    self.flush(now, false).await;
                }
                self.phase = Phase::Waiting(Status::new(label, now));
            }
            Phase::Compacting { status, pre_tokens } => {
                let (pre_tokens, secs) = (*pre_tokens, elapsed_secs(status, now));
                self.end_compaction(pre_tokens, secs).await;
                self.phase = Phase::Waiting(Status::new(label, now));
            }
        }
    }

    /// STR-9: the text so far gets its own message(s); the status line shows compaction.
    async fn on_compacting(&mut self, pre_tokens: Option<u64>, now: Instant) {
        self.compacted = true;
        if let Phase::Compacting {
            status,
            pre_tokens: known,
        } = &mut self.phase
        {
            *known = pre_tokens.or(*known);
            status.relabel(compaction_label(*known), now);
            return;
        }
        let labels = self.tools.take_rendered();
        self.append(&labels, now);
        self.flush(now, true).await;
        let status = Status::new(compaction_label(pre_tokens), now);
        self.phase = Phase::Compacting { status, pre_tokens };
    }

    async fn on_compacted(&mut self, pre_tokens: Option<u64>, seconds: u64, now: Instant) {
        self.compacted = true;
        let known = match &self.phase {
            Phase::Compacting { pre_tokens, .. } => *pre_tokens,
            Phase::Waiting(_) | Phase::Text => None,
        };
        let labels = self.tools.take_rendered();
        self.append(&labels, now);
        self.flush(now, true).await;
        self.end_compaction(pre_tokens.or(known), seconds).await;
        self.phase = Phase::Waiting(Status::new(THINKING_LABEL.to_owned(), now));
    }

    /// Leaves the permanent compaction note where the status line was; what follows goes
    /// into new messages.
    async fn end_compaction(&mut self, pre_tokens: Option<u64>, seconds: u64) {
        self.post_over_status(compaction_note(pre_tokens, seconds))
            .await;
    }

    /// A notice is its own message, above whatever comes next.
    async fn on_notice(&mut self, text: &str, now: Instant) {
        self.flush(now, true).await;
        self.post_over_status(notice_text(text)).await;
        if self.status.is_none() && self.phase.status().is_some() {
            self.refresh_status(now).await;
        }
    }

    /// The catching-up note, shown while the turn reads what came in (CTX-6); it goes when
    /// the turn is over.
    async fn on_catching_up(&mut self, now: Instant) {
        self.flush(now, true).await;
        let note = notice_text(crate::agent::session::CATCHING_UP_NOTE);
        self.catching_up = self.post_over_status_for_now(note).await;
        if self.status.is_none() && self.phase.status().is_some() {
            self.refresh_status(now).await;
        }
    }

    // ---- end --------------------------------------------------------------------------

    /// STR-6: labels, compaction note, final flush (a few spaced attempts), no status left,
    /// STR-10 fallback.
    async fn finish<T: Timeline>(mut self, timeline: &mut T) -> StreamOutcome {
        let mut now = timeline.now();
        let labels = self.tools.take_rendered();
        self.append(&labels, now);
        if let Phase::Compacting { status, pre_tokens } =
            std::mem::replace(&mut self.phase, Phase::Text)
        {
            self.end_compaction(pre_tokens, elapsed_secs(&status, now))
                .await;
        }
        let mut flushed = self.flush(now, true).await;
        let mut attempt = 1;
        while !flushed && attempt < FINAL_FLUSH_ATTEMPTS {
            timeline.sleep_until(now + EDIT_INTERVAL * attempt).await;
            now = timeline.now();
            attempt += 1;
            flushed = self.flush(now, true).await;
        }
        if !flushed {
            tracing::error!(
                lost_chars = char_len(&self.pending),
                "the end of the reply could not be written"
            );
            if let Some(live) = self.current.take() {
                self.kept.push(live.id);
            }
        }
        self.delete_status().await;
        self.delete_catching_up().await;
        if !self.showed_text
            && !self.compacted
            && !self.handed_over
            && self.options.no_response_text
        {
            match self.sink.send(NO_RESPONSE.to_owned()).await {
                Ok(id) => self.kept.push(id),
                Err(error) => tracing::warn!(%error, "could not post the no-response line"),
            }
        }
        StreamOutcome {
            message_ids: self.kept,
            text_chars: self.text_chars,
            compacted: self.compacted,
        }
    }
}
