//! The message side of the [`Streamer`]: writing the reply text (throttled by the caller,
//! split at 2000 characters here) and turning the status line into permanent messages.

use tokio::time::Instant;

use super::{Live, Phase, Streamer};
use crate::discord::{
    sink::SinkError,
    streamer::render::{MAX_MESSAGE_CHARS, char_len, is_blank, split_point},
};

impl Streamer<'_> {
    /// Posts a permanent `content` message, reusing the status line (the newest message) when
    /// there is one.
    pub(super) async fn post_over_status(&mut self, content: String) {
        if let Some(id) = self.post_over_status_for_now(content).await {
            self.kept.push(id);
        }
    }

    /// Posts `content` as [`Self::post_over_status`] does, without keeping it: the caller
    /// gets its id, to take it away later.
    pub(super) async fn post_over_status_for_now(
        &mut self,
        content: String,
    ) -> Option<crate::discord::sink::MessageId> {
        if let Some(line) = self.status.take() {
            match self.sink.edit(line.id, content.clone()).await {
                Ok(()) => return Some(line.id),
                Err(error) => {
                    tracing::warn!(%error, "could not turn the status line into a note");
                    self.status = Some(line);
                }
            }
        }
        match self.sink.send(content).await {
            Ok(id) => Some(id),
            Err(error) => {
                tracing::warn!(%error, "could not post a note");
                None
            }
        }
    }

    /// Takes away the catching-up note, once the turn is over.
    pub(super) async fn delete_catching_up(&mut self) {
        if let Some(id) = self.catching_up.take()
            && let Err(error) = self.sink.delete(id).await
        {
            tracing::warn!(%error, "could not take away the catching-up note");
        }
    }

    pub(super) async fn delete_status(&mut self) {
        if let Some(line) = self.status.take()
            && let Err(error) = self.sink.delete(line.id).await
        {
            tracing::warn!(%error, "could not delete the status line");
        }
    }

    pub(super) fn append(&mut self, text: &str, now: Instant) {
        if text.is_empty() {
            return;
        }
        self.showed_text |= !is_blank(text);
        self.pending.push_str(text);
        self.dirty_since.get_or_insert(now);
    }

    /// Writes `pending` out, overflow first into closed messages (STR-5). `close` ends the
    /// current reply message: what follows starts a new one. Returns `false` when a write
    /// failed; the text then stays pending for the next try (no retry here).
    pub(super) async fn flush(&mut self, now: Instant, close: bool) -> bool {
        self.last_write = Some(now);
        let adopt = close || matches!(self.phase, Phase::Text);
        while char_len(&self.pending) > MAX_MESSAGE_CHARS {
            let cut = split_point(&self.pending);
            let head = self.pending[..cut].to_owned();
            if !is_blank(&head) {
                if let Err(error) = self.write(head, adopt).await {
                    tracing::warn!(%error, "could not write a reply message");
                    return false;
                }
                if let Some(live) = self.current.take() {
                    self.kept.push(live.id);
                }
            }
            self.pending.drain(..cut);
        }
        if !is_blank(&self.pending)
            && let Err(error) = self.write(self.pending.clone(), adopt).await
        {
            tracing::warn!(%error, "could not write the reply");
            return false;
        }
        self.dirty_since = None;
        if close {
            if let Some(live) = self.current.take() {
                self.kept.push(live.id);
            }
            self.pending.clear();
        }
        true
    }

    /// Shows `content` as the current reply message: edits it, else edits the status line
    /// into it when `adopt` allows (STR-3), else posts a new message. Leading newlines are
    /// dropped.
    async fn write(&mut self, content: String, adopt: bool) -> Result<(), SinkError> {
        // A message never starts with the blank line that separates an inline tool label.
        let content = content.trim_start_matches('\n').to_owned();
        if let Some(live) = &mut self.current {
            if live.shown != content {
                self.sink.edit(live.id, content.clone()).await?;
                live.shown = content;
            }
            return Ok(());
        }
        let status_id = self.status.as_ref().map(|line| line.id);
        let id = match status_id {
            Some(id) if adopt => {
                self.sink.edit(id, content.clone()).await?;
                self.status = None;
                id
            }
            _ => self.sink.send(content.clone()).await?,
        };
        self.current = Some(Live { id, shown: content });
        Ok(())
    }
}
