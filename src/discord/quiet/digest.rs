//! The quiet-time digest (issue 28 §2, QUI-3): once the owner's quiet time is over, what background
//! runs held during it goes out as one message — the pings as lines, the embeds with their
//! working buttons (more messages only past five embeds) — and each held file after it. What
//! can't be sent stays held for the next try.

use std::{fmt::Write as _, sync::Arc, time::Duration};

use serenity::builder::{CreateAttachment, CreateMessage};
use tokio_util::sync::CancellationToken;

use super::QuietTime;
use crate::{
    discord::embeds::digest_messages,
    state::quiet::{HeldItem, HeldShow},
};

impl QuietTime {
    /// Every `every`, sends the digest of what was held once the owner is no longer quiet.
    pub async fn watch_digest(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        self.reach
            .every_tick_once_ready(every, &stop, || self.send_digest())
            .await;
    }

    async fn send_digest(&self) {
        // A focus session that just ended ends its quiet first (FOC-3).
        self.tick_focus().await;
        let services = &self.reach.services;
        if !services.quiet.any_held() || services.quiet_until(services.clock.now()).is_some() {
            return;
        }
        let held = services.quiet.held();
        tracing::info!(
            items = held.len(),
            "the quiet time is over; sending its digest"
        );
        let (text, embeds, files) = digest_parts(&held, services.config.timezone);
        match digest_messages(&text, &embeds, &self.reach.inquiries) {
            Ok(messages) => {
                for message in messages {
                    // Not sent: everything stays held for the next tick.
                    if self
                        .reach
                        .tell("the quiet-time digest", message)
                        .await
                        .is_none()
                    {
                        return;
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "could not build the quiet-time digest"),
        }
        if let Err(error) = services.quiet.forget_held(held.len()) {
            tracing::warn!(%error, "could not forget what the digest delivered");
        }
        for (path, message) in files {
            let attachment = match CreateAttachment::path(&path).await {
                Ok(attachment) => attachment,
                Err(error) => {
                    tracing::warn!(%error, path = %path.display(), "a held file can't be read");
                    continue;
                }
            };
            let mut builder = CreateMessage::new().add_file(attachment);
            if let Some(message) = message {
                builder = builder.content(message);
            }
            self.reach.tell("a held file", builder).await;
        }
    }
}

type Files = Vec<(std::path::PathBuf, Option<String>)>;

/// The digest's text (a line per held ping, with the time it was held), its embeds and its
/// files, in the order they were held.
fn digest_parts(
    held: &[HeldItem],
    tz: chrono_tz::Tz,
) -> (String, Vec<crate::domain::embed::Embed>, Files) {
    let mut text = format!(
        "While you were in quiet time ({} held):",
        match held.len() {
            1 => "one thing".to_owned(),
            n => format!("{n} things"),
        }
    );
    let mut embeds = Vec::new();
    let mut files = Vec::new();
    for item in held {
        let at = item.at.with_timezone(&tz).format("%H:%M");
        match &item.show {
            HeldShow::Text { text: line } => {
                let _ = write!(text, "\n- {at} {line}");
            }
            HeldShow::Embed { embed } => {
                let _ = write!(text, "\n- {at} {} (below)", embed.title);
                embeds.push(embed.clone());
            }
            HeldShow::File { path, message } => {
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |name| name.to_string_lossy().into_owned(),
                );
                let _ = write!(text, "\n- {at} a file, {name} (below)");
                files.push((path.clone(), message.clone()));
            }
        }
    }
    (text, embeds, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::embed::Embed;

    #[test]
    fn the_digest_lists_each_held_item_in_order() {
        let at = "2026-11-28T06:30:00Z".parse().unwrap();
        let item = |show| HeldItem { at, show };
        let held = [
            item(HeldShow::Text {
                text: "[bg] water the plants".into(),
            }),
            item(HeldShow::Embed {
                embed: Embed {
                    title: "Inbox".into(),
                    ..Embed::default()
                },
            }),
        ];
        let (text, embeds, files) = digest_parts(&held, chrono_tz::Europe::Berlin);
        assert_eq!(
            text,
            "While you were in quiet time (2 things held):\n- 07:30 [bg] water the plants\n\
             - 07:30 Inbox (below)"
        );
        assert_eq!(embeds.len(), 1);
        assert!(files.is_empty());
    }
}
