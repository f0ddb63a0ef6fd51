//! What the turn is doing as the owner sees it: the status line's label and timer, and the
//! phase the streamer is in.

use tokio::time::Instant;

/// A status phase: what the status line says and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Status {
    pub(super) label: String,
    pub(super) since: Instant,
}

impl Status {
    pub(super) fn new(label: String, since: Instant) -> Self {
        Self { label, since }
    }

    /// What a subagent is doing (STR-12): the label changes, the timer runs on.
    pub(super) fn rename(&mut self, label: String) {
        self.label = label;
    }

    /// A new label restarts the timer; the same label keeps it running (STR-2).
    pub(super) fn relabel(&mut self, label: String, now: Instant) {
        if self.label != label {
            *self = Self::new(label, now);
        }
    }
}

/// What the turn is doing, as the owner sees it.
#[derive(Debug)]
pub(super) enum Phase {
    /// Waiting on the model or a tool; the status line shows it.
    Waiting(Status),
    /// The CLI is compacting the context (STR-9).
    Compacting {
        status: Status,
        pre_tokens: Option<u64>,
    },
    /// Text is streaming, or the turn is over: no live status.
    Text,
}

impl Phase {
    pub(super) fn status(&self) -> Option<&Status> {
        match self {
            Self::Waiting(status) | Self::Compacting { status, .. } => Some(status),
            Self::Text => None,
        }
    }
}

/// Whole seconds the status has shown its label.
pub(super) fn elapsed_secs(status: &Status, now: Instant) -> u64 {
    now.saturating_duration_since(status.since).as_secs()
}
