//! What a turn's reader keeps about the stream so far (AGT-16, SES-14): how much of the reply
//! came as deltas, and the turn's compaction.

use super::CompactionSeen;

/// How much of the reply came as streamed deltas: an assistant message's text is shown whole
/// only when nothing of it (nor of an earlier message since the last compaction) was streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Streamed {
    /// Nothing yet (or nothing since a compaction).
    Nothing,
    /// Deltas of the message in progress.
    ThisMessage,
    /// Deltas of an earlier message of the turn.
    EarlierMessage,
    /// Deltas of the message in progress, before a compaction that began meanwhile.
    BeforeCompaction,
}

impl Streamed {
    pub(super) fn message_started(self) -> Self {
        match self {
            Streamed::ThisMessage => Streamed::EarlierMessage,
            Streamed::BeforeCompaction => Streamed::Nothing,
            other => other,
        }
    }

    pub(super) fn compacted(self) -> Self {
        match self {
            Streamed::ThisMessage | Streamed::BeforeCompaction => Streamed::BeforeCompaction,
            Streamed::Nothing | Streamed::EarlierMessage => Streamed::Nothing,
        }
    }
}

/// The turn's compaction, as the session needs it (SES-14): whether one happened, and whether
/// the model answered after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Compaction {
    /// None in this turn.
    None,
    /// The latest one, and whether anything was answered after one.
    Seen {
        seen: CompactionSeen,
        answered_after: bool,
    },
}

impl Compaction {
    /// The model produced something (text, a tool call).
    pub(super) fn answered(&mut self) {
        if let Compaction::Seen { answered_after, .. } = self {
            *answered_after = true;
        }
    }

    /// Another compaction ended: it is the one reported; an answer after an earlier one counts.
    pub(super) fn boundary(&mut self, seen: CompactionSeen) {
        let answered_after = matches!(
            self,
            Compaction::Seen {
                answered_after: true,
                ..
            }
        );
        *self = Compaction::Seen {
            seen,
            answered_after,
        };
    }
}
