//! Telling the owner, once, what an earlier process left cut off (`state::unfinished`;
//! issue 16): the message it was answering and the background runs it was doing when it was
//! killed, lost power or crashed. An entry is forgotten only once the DM went out.

use std::{fmt::Write as _, sync::Arc, time::Duration};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use tokio_util::sync::CancellationToken;

use serenity::builder::CreateMessage;

use super::Notices;
use crate::state::unfinished::{Entry, Work};

/// The DM for `entries`, times in `zone`.
pub fn unfinished_message(entries: &[Entry], zone: Tz) -> String {
    let mut text = String::from(
        "I was stopped before I could finish (a crash, a power cut or a forced stop):",
    );
    let mut replies = false;
    for entry in entries {
        let at = DateTime::<Utc>::from_timestamp(entry.started, 0)
            .map(|at| at.with_timezone(&zone).format("%H:%M").to_string())
            .unwrap_or_default();
        text.push_str("\n- ");
        match &entry.work {
            Work::Reply { excerpt } => {
                replies = true;
                let _ = write!(text, "answering your message “{excerpt}” ({at})");
            }
            Work::Run { name, excerpt } => {
                let _ = write!(text, "the background run `{name}` ({at}): “{excerpt}”");
            }
        }
    }
    if replies {
        text.push_str("\nsend your message again if you still want an answer.");
    }
    text.push_str("\nthe conversation itself is intact; a reminder that was cut off runs again now, routines at their next time.");
    text
}

impl Notices {
    /// Tells the owner about interrupted work once they are known, retrying every `every`
    /// until the DM goes out, until `stop`.
    pub async fn watch_unfinished(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        self.reach
            .every_tick_once_ready(every, &stop, || self.tell_unfinished())
            .await;
    }

    async fn tell_unfinished(&self) {
        let entries = self.reach.services.unfinished.interrupted();
        if entries.is_empty() || self.reach.places.unasked().is_none() {
            return;
        }
        let message = unfinished_message(&entries, self.reach.services.config.timezone);
        let message = CreateMessage::new().content(message);
        if self
            .reach
            .tell("the interrupted-work notice", message)
            .await
            .is_some()
        {
            self.reach
                .services
                .unfinished
                .forget_interrupted(entries.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unfinished_message;
    use crate::state::unfinished::{Entry, Work};

    #[test]
    fn lists_each_piece_of_work_with_its_time() {
        let entries = [
            Entry {
                work: Work::Reply {
                    excerpt: "tell me a story".to_owned(),
                },
                started: 1_764_082_920,
            },
            Entry {
                work: Work::Run {
                    name: "morning checkin".to_owned(),
                    excerpt: "look at today".to_owned(),
                },
                started: 1_764_082_800,
            },
        ];
        let text = unfinished_message(&entries, chrono_tz::Europe::Berlin);
        assert!(
            text.contains("answering your message “tell me a story” (16:02)"),
            "{text}"
        );
        assert!(
            text.contains("the background run `morning checkin` (16:00): “look at today”"),
            "{text}"
        );
        assert!(text.contains("send your message again"), "{text}");
    }
}
