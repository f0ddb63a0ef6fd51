//! The front end of a replay (CMD-10): nobody is there, so what the `discord` tools would show
//! the owner (embeds, pings, files) is kept as `chat` would print it, for the run's block, and
//! a tool approval is never asked (the replay runs in `dontAsk`, so none should come).

use std::path::PathBuf;

use parking_lot::Mutex;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::{
    claude::BoxFuture,
    cli::chat::render_embed,
    domain::embed::Embed,
    front_end::{Approval, FrontEnd, FrontEndError, TurnEvent},
};

/// Keeps what a replay's session showed the owner.
#[derive(Debug, Default)]
pub(super) struct RecordingFrontEnd {
    posted: Mutex<Vec<String>>,
}

impl RecordingFrontEnd {
    /// What was shown, in order.
    pub(super) fn posted(&self) -> Vec<String> {
        self.posted.lock().clone()
    }

    fn keep(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.posted.lock().push(text);
        Box::pin(async { Ok(None) })
    }
}

impl FrontEnd for RecordingFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.keep(render_embed(&embed))
    }

    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.keep(format!("[message] {text}"))
    }

    fn send_file(
        &self,
        path: PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let mut text = format!("[file] {}", path.display());
        if let Some(message) = message {
            text = format!("{text} {message}");
        }
        self.keep(text)
    }

    fn render_turn(&self, mut events: UnboundedReceiver<TurnEvent>) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            while events.recv().await.is_some() {}
            Vec::new()
        })
    }

    fn ask_approval(&self, _label: String) -> BoxFuture<'_, Approval> {
        Box::pin(async { Approval::Unsent })
    }

    fn denial_reason(&self) -> &'static str {
        "denied: a counterfactual replay asks no one"
    }
}
