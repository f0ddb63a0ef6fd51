//! The few message operations the streamer and the front end need, behind a trait so the
//! streaming logic is plain Rust that tests drive with paused time.

use crate::claude::BoxFuture;

/// A Discord message id.
pub type MessageId = u64;

/// Why a Discord operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SinkError(pub String);

/// Sends, edits and deletes plain messages in one channel (the owner's DM).
pub trait MessageSink: Send + Sync {
    /// Posts a message and returns its id.
    fn send(&self, content: String) -> BoxFuture<'_, Result<MessageId, SinkError>>;
    /// Replaces a message's content.
    fn edit(&self, id: MessageId, content: String) -> BoxFuture<'_, Result<(), SinkError>>;
    /// Deletes a message (an already-deleted message is not an error).
    fn delete(&self, id: MessageId) -> BoxFuture<'_, Result<(), SinkError>>;
    /// Shows the typing indicator (best effort).
    fn typing(&self) -> BoxFuture<'_, ()>;
}
