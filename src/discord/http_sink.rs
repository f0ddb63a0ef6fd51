//! [`MessageSink`] over serenity's HTTP client, for one channel.

use std::sync::Arc;

use serenity::{
    builder::{CreateMessage, EditMessage},
    http::Http,
    model::id::{ChannelId, MessageId as SerenityMessageId},
};

use super::{
    rate_limit::with_rate_limit_retries,
    sink::{MessageId, MessageSink, SinkError},
};
use crate::claude::BoxFuture;

/// Plain messages in one channel through the Discord REST API.
#[derive(Clone)]
pub struct HttpSink {
    http: Arc<Http>,
    channel: ChannelId,
}

impl HttpSink {
    /// A sink posting into `channel`.
    pub fn new(http: Arc<Http>, channel: ChannelId) -> Self {
        Self { http, channel }
    }
}

#[allow(clippy::needless_pass_by_value)] // shaped for `map_err`
fn sink_error(error: serenity::Error) -> SinkError {
    SinkError(error.to_string())
}

impl MessageSink for HttpSink {
    fn send(&self, content: String) -> BoxFuture<'_, Result<MessageId, SinkError>> {
        Box::pin(async move {
            let message = CreateMessage::new().content(content);
            let message =
                with_rate_limit_retries(|| self.channel.send_message(&self.http, message.clone()))
                    .await
                    .map_err(sink_error)?;
            Ok(message.id.get())
        })
    }

    fn edit(&self, id: MessageId, content: String) -> BoxFuture<'_, Result<(), SinkError>> {
        Box::pin(async move {
            let edit = EditMessage::new().content(content);
            with_rate_limit_retries(|| {
                self.channel
                    .edit_message(&self.http, SerenityMessageId::new(id), edit.clone())
            })
            .await
            .map(drop)
            .map_err(sink_error)
        })
    }

    fn delete(&self, id: MessageId) -> BoxFuture<'_, Result<(), SinkError>> {
        Box::pin(async move {
            match with_rate_limit_retries(|| {
                self.channel
                    .delete_message(&self.http, SerenityMessageId::new(id))
            })
            .await
            {
                Ok(()) => Ok(()),
                Err(error) if is_unknown_message(&error) => Ok(()),
                Err(error) => Err(sink_error(error)),
            }
        })
    }

    fn typing(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(error) = self.channel.broadcast_typing(&self.http).await {
                tracing::debug!(%error, "typing indicator failed");
            }
        })
    }
}

/// Whether Discord answered "Unknown Message" (code 10008): the message is already gone.
pub fn is_unknown_message(error: &serenity::Error) -> bool {
    matches!(error, serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response))
        if response.error.code == 10008)
}
