//! Quiet time and what waits for its end (issue 28 §2, QUI-1, QUI-2), and the focus session
//! under way (§3, FOC-1), quiet while it lasts: the owner's "quiet for 2 h" (a time
//! it ends) and the background pings, embeds and files held while the owner is quiet, kept for
//! one digest when the quiet ends (`state/quiet.json`). The daily window itself is a runtime
//! setting (`quiet_hours`); [`QuietStore::quiet_until`] combines the two.
//!
//! A file that can't be read counts as empty: held items may be lost with it, never sent at
//! the wrong time.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};
use crate::domain::{embed::Embed, quiet_hours::QuietWindow};

/// How many held items are kept; holding one more drops the oldest.
pub const MAX_HELD: usize = 30;

/// What a tool puts in front of the owner; in quiet time a background run's is held as is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum HeldShow {
    /// A `ping_user` text.
    Text {
        /// The text, as it would have been sent.
        text: String,
    },
    /// A `discord_embed`, buttons and all.
    Embed {
        /// The embed.
        embed: Embed,
    },
    /// A `send_file`.
    File {
        /// The file.
        path: PathBuf,
        /// Its message.
        message: Option<String>,
    },
}

/// One held item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldItem {
    /// When it was held.
    pub at: DateTime<Utc>,
    /// What it is.
    pub show: HeldShow,
}

/// A focus session (issue 28 §3): quiet until it ends, with its task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusSession {
    /// What the owner is working on.
    pub task: String,
    /// When it started.
    pub started: DateTime<Utc>,
    /// When it ends.
    pub until: DateTime<Utc>,
    /// Whether the halfway check-in went out.
    #[serde(default)]
    pub halfway_told: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Stored {
    /// The end of a "quiet for …" the owner asked for.
    #[serde(default)]
    until: Option<DateTime<Utc>>,
    /// The focus session under way.
    #[serde(default)]
    focus: Option<FocusSession>,
    /// The end of the busy calendar event under way, when those count as quiet (QUI-5).
    #[serde(default)]
    busy_until: Option<DateTime<Utc>>,
    /// The quiet the owner ended early (`/quiet end`, QUI-6).
    #[serde(default)]
    ended: Option<EndedQuiet>,
    /// Held items, oldest first.
    #[serde(default)]
    held: Vec<HeldItem>,
}

/// What `/quiet end` ended (QUI-6), so it doesn't hold again before its own end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndedQuiet {
    /// The end of the daily window's span that was under way: the window holds again from
    /// its next start.
    #[serde(default)]
    pub window_until: Option<DateTime<Utc>>,
    /// The end of the busy calendar event that was under way: it no longer counts (a busy
    /// time ending later does).
    #[serde(default)]
    pub busy_until: Option<DateTime<Utc>>,
}

/// The store; clones share one lock.
#[derive(Debug, Clone)]
pub struct QuietStore {
    file: StateFile<Format>,
}

impl QuietStore {
    /// A store backed by `path` (`DataDir::quiet_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// Quiet until `until` (`None`: the owner's "quiet for …" ends now).
    pub fn set_until(&self, until: Option<DateTime<Utc>>) -> Result<(), StateError> {
        self.file.update(|stored| stored.until = until)
    }

    /// When the owner is quiet at `now` (the daily `window` in `tz`, or a "quiet for …"), the
    /// instant it ends; `None` when they are not. Quiet the owner ended (QUI-6) doesn't count.
    pub fn quiet_until(
        &self,
        window: Option<&QuietWindow>,
        tz: Tz,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let stored = self.stored();
        let ended = stored.ended.unwrap_or_default();
        let busy = stored
            .busy_until
            .filter(|busy| ended.busy_until.is_none_or(|ended| *busy > ended));
        let manual = stored
            .until
            .max(stored.focus.map(|focus| focus.until))
            .max(busy);
        crate::domain::quiet_hours::quiet_until_resuming(
            window,
            ended.window_until,
            manual,
            now,
            tz,
        )
    }

    /// Ends the quiet that holds at `now` (QUI-6): a "quiet for …", the daily `window`'s span
    /// under way (until its next start) and the busy calendar event under way. A focus session
    /// goes on (it has its own **End focus**). Returns what was ended.
    pub fn end_quiet(
        &self,
        window: Option<&QuietWindow>,
        tz: Tz,
        now: DateTime<Utc>,
    ) -> Result<EndedQuiet, StateError> {
        self.file.update(|stored| {
            stored.until = None;
            let before = stored.ended.unwrap_or_default();
            let window_until = crate::domain::quiet_hours::quiet_until_resuming(
                window,
                before.window_until,
                None,
                now,
                tz,
            );
            let ended = EndedQuiet {
                window_until: window_until.or(before.window_until.filter(|at| *at > now)),
                busy_until: stored
                    .busy_until
                    .filter(|busy| *busy > now)
                    .or(before.busy_until),
            };
            stored.ended = Some(ended);
            ended
        })
    }

    /// Forgets what `/quiet end` ended (the daily window changed, QUI-6).
    pub fn forget_ended(&self) -> Result<(), StateError> {
        self.file.update(|stored| stored.ended = None)
    }

    /// What `/quiet end` ended that still holds off quiet at `now` (QUI-6).
    pub fn ended(&self, now: DateTime<Utc>) -> EndedQuiet {
        let ended = self.stored().ended.unwrap_or_default();
        EndedQuiet {
            window_until: ended.window_until.filter(|at| *at > now),
            busy_until: ended.busy_until.filter(|at| *at > now),
        }
    }

    /// Quiet until `until` for a busy calendar event (`None`: none under way, QUI-5); saved
    /// only when it changed.
    pub fn set_busy_until(&self, until: Option<DateTime<Utc>>) -> Result<(), StateError> {
        self.file.update(|stored| stored.busy_until = until)
    }

    /// The end of the busy calendar event that makes the owner quiet, if one is under way.
    pub fn busy_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.stored().busy_until.filter(|until| *until > now)
    }

    /// Starts `focus` (quiet until it ends); `false`, and nothing changed, while another is
    /// under way.
    pub fn start_focus(&self, focus: FocusSession) -> Result<bool, StateError> {
        self.file.update(|stored| {
            if stored.focus.is_some() {
                return false;
            }
            stored.focus = Some(focus);
            true
        })
    }

    /// The focus session under way.
    pub fn focus(&self) -> Option<FocusSession> {
        self.stored().focus
    }

    /// Notes that the focus session's halfway check-in went out.
    pub fn focus_halfway_told(&self) -> Result<(), StateError> {
        self.file.update(|stored| {
            if let Some(focus) = &mut stored.focus {
                focus.halfway_told = true;
            }
        })
    }

    /// Ends the focus session under way and returns it (`None`: there was none, e.g. it was
    /// already ended by the other of a click and the timer).
    pub fn end_focus(&self) -> Result<Option<FocusSession>, StateError> {
        self.file.update(|stored| stored.focus.take())
    }

    /// Holds `show` for the digest.
    pub fn hold(&self, show: HeldShow, now: DateTime<Utc>) -> Result<(), StateError> {
        self.file.update(|stored| {
            if stored.held.len() >= MAX_HELD {
                tracing::warn!("too many items held for quiet hours; dropping the oldest");
                stored.held.remove(0);
            }
            stored.held.push(HeldItem { at: now, show });
        })
    }

    /// Whether anything is held.
    pub fn any_held(&self) -> bool {
        !self.stored().held.is_empty()
    }

    /// The held items, oldest first; they stay held until [`Self::forget_held`].
    pub fn held(&self) -> Vec<HeldItem> {
        self.stored().held
    }

    /// Forgets the `count` oldest held items, once they went out (items held meanwhile stay).
    pub fn forget_held(&self, count: usize) -> Result<(), StateError> {
        self.file.update(|stored| {
            stored.held.drain(..count.min(stored.held.len()));
        })
    }

    /// What the file holds, for reads; nothing (not quiet, nothing held) when it can't be
    /// read: the owner is told of the file, and a change to it is an error.
    fn stored(&self) -> Stored {
        self.file.read().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the quiet-time state");
            Stored::default()
        })
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Stored>;

#[cfg(test)]
#[path = "quiet_tests.rs"]
mod tests;
