//! What the bot shows in an eval (CMD-9): its tool calls, embeds, pings and files are kept as
//! lines of the transcript the simulated owner and the judge read (its replies' text comes
//! from each turn's report). Nobody is there to approve a tool: every question is refused.

use std::path::PathBuf;

use parking_lot::Mutex;
use tokio::sync::mpsc;

use crate::{
    claude::BoxFuture,
    cli::chat::render_embed,
    domain::embed::Embed,
    front_end::{Approval, FrontEnd, FrontEndError, TurnEvent},
};

/// A front end that records instead of showing.
#[derive(Default)]
pub(super) struct RecordingFrontEnd {
    shown: Mutex<Vec<String>>,
}

impl RecordingFrontEnd {
    /// What was shown since the last call, oldest first.
    pub(super) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.shown.lock())
    }

    fn keep(&self, line: String) {
        self.shown.lock().push(line);
    }
}

impl FrontEnd for RecordingFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.keep(render_embed(&embed));
        Box::pin(async { Ok(None) })
    }

    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.keep(format!("[message] {text}"));
        Box::pin(async { Ok(None) })
    }

    fn send_file(
        &self,
        path: PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let name = path
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        let mut line = format!("[file] {name}");
        if let Some(message) = message {
            line = format!("{line}: {message}");
        }
        self.keep(line);
        Box::pin(async { Ok(None) })
    }

    fn render_turn(
        &self,
        mut events: mpsc::UnboundedReceiver<TurnEvent>,
    ) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            while let Some(event) = events.recv().await {
                if let TurnEvent::ToolUse { label, .. } = event {
                    self.keep(format!("[tool] {label}"));
                }
            }
            Vec::new()
        })
    }

    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval> {
        self.keep(format!("[tool refused, nobody to ask] {label}"));
        Box::pin(async { Approval::Deny })
    }

    fn denial_reason(&self) -> &'static str {
        "no approvals in an eval"
    }
}
