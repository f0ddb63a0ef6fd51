//! Telling the owner when the disk stops taking the bot's writes and when it takes them again
//! (`state::disk_space`; issue 16): one DM each way, retried on the next tick if it didn't go
//! out. While writes fail, each tick also probes with a tiny write, so space coming back is
//! noticed even when nothing else is being saved.

use std::{path::Path, sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

use serenity::builder::CreateMessage;

use super::Notices;
use crate::state::disk_space::{DiskNews, SPACE, probe};

/// The DM for `news` (paths shown relative to `root`).
pub fn disk_news_message(news: &DiskNews, root: &Path) -> String {
    match news {
        DiskNews::Full { path, error } => format!(
            "heads-up: I can't save my files — {error} (writing `{}`). I'm still here and \
             answering, and everything saved so far is intact, but new changes (reminders I \
             set, settings, bookkeeping) may not be kept until there's space again. I'll tell \
             you when saving works again.",
            path.strip_prefix(root).unwrap_or(path).display()
        ),
        DiskNews::Recovered => "saving works again — there's room on the disk.".to_owned(),
    }
}

impl Notices {
    /// Tells the owner about the disk once they are known, checking every `every`, until
    /// `stop`.
    pub async fn watch_disk_space(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        self.reach
            .every_tick_once_ready(every, &stop, || self.tell_disk_news())
            .await;
    }

    async fn tell_disk_news(&self) {
        let state_dir = self.reach.services.data_dir.state_dir();
        if let Err(error) = tokio::task::spawn_blocking(move || probe(&state_dir)).await {
            tracing::warn!(%error, "the disk-space probe failed");
        }
        if self.reach.places.unasked().is_none() {
            return;
        }
        let Some(news) = SPACE.take_news() else {
            return;
        };
        let message = disk_news_message(&news, self.reach.services.data_dir.root());
        let message = CreateMessage::new().content(message);
        if self.reach.tell("the disk notice", message).await.is_none() {
            SPACE.untell(news);
        }
    }
}
