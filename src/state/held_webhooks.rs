//! Webhook requests the screening could not clear (WHK-12, failing closed): an unreadable
//! verdict, a screening error or a timeout holds the request here instead of dispatching it,
//! and the owner decides with a button (`state/held_webhooks.json`). Requests that arrived
//! once today's background budget was spent wait here too, unscreened, until the budget allows
//! them again (USE-6); they have no button and are taken out all at once.
//!
//! A click counts only on the message the bot posted for that request, as with tool
//! approvals. The payload is kept as the JSON text it arrived as, so its key order survives.
//! At most [`MAX_HELD`] requests of each cause are kept; holding one more drops the oldest of
//! that cause. A file that
//! can't be read counts as empty: a lost hold means a request is not run, never that one runs
//! unasked.

use std::{collections::BTreeMap, path::PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{
    StateError,
    state_file::{Json, StateFile},
};

/// How many held requests of each cause are kept.
pub const MAX_HELD: usize = 20;

/// Why a request is held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldCause {
    /// The screening could not clear it: only the owner's click runs it.
    #[default]
    Unscreened,
    /// Today's background budget was spent when it arrived: it runs, screened as any request,
    /// once the budget allows (USE-6).
    OverBudget,
}

/// One held request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldRequest {
    /// The webhook spec's `id`.
    pub webhook_id: String,
    /// Why it was held, for the owner.
    pub reason: String,
    /// When the request arrived.
    pub received_at: DateTime<Utc>,
    /// The payload, as the JSON object text it arrived as.
    pub payload: String,
    /// The Discord message with the buttons, once posted.
    #[serde(default)]
    pub message_id: Option<u64>,
    /// Why it is held.
    #[serde(default)]
    pub cause: HoldCause,
}

/// How a click on a held request's button went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseOutcome {
    /// Taken out of the store; the caller dispatches or drops it.
    Released(HeldRequest),
    /// No such request (already answered, or pushed out by newer ones).
    NotHeld,
    /// The click came from another message than the one the bot posted for this request.
    WrongMessage,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Stored {
    #[serde(default)]
    held: BTreeMap<String, HeldRequest>,
}

/// The store; clones share one lock.
#[derive(Debug, Clone)]
pub struct HeldWebhooks {
    file: StateFile<Format>,
}

impl HeldWebhooks {
    /// A store backed by `path` (`DataDir::held_webhooks_file()`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            file: StateFile::new(path),
        }
    }

    /// Holds `request`; returns its id, which the caller posts buttons for.
    pub fn hold(&self, request: HeldRequest) -> Result<String, StateError> {
        self.file.update(|stored| {
            while stored
                .held
                .values()
                .filter(|held| held.cause == request.cause)
                .count()
                >= MAX_HELD
            {
                let oldest = stored
                    .held
                    .iter()
                    .filter(|(_, held)| held.cause == request.cause)
                    .min_by_key(|(_, held)| held.received_at)
                    .map(|(id, _)| id.clone());
                let Some(oldest) = oldest else { break };
                tracing::warn!(id = %oldest, "too many held webhook requests; dropping the oldest");
                stored.held.remove(&oldest);
            }
            let id = super::fresh_id(8, |id| stored.held.contains_key(id));
            stored.held.insert(id.clone(), request);
            id
        })
    }

    /// Remembers the message that carries request `id`'s buttons.
    pub fn set_message(&self, id: &str, message_id: u64) -> Result<(), StateError> {
        self.file.update(|stored| {
            if let Some(held) = stored.held.get_mut(id) {
                held.message_id = Some(message_id);
            }
        })
    }

    /// Takes request `id` out of the store for a click on `message_id`.
    pub fn release(&self, id: &str, message_id: u64) -> Result<ReleaseOutcome, StateError> {
        self.file.update(|stored| match stored.held.get(id) {
            None => ReleaseOutcome::NotHeld,
            Some(held) if held.message_id != Some(message_id) => ReleaseOutcome::WrongMessage,
            Some(_) => stored
                .held
                .remove(id)
                .map_or(ReleaseOutcome::NotHeld, ReleaseOutcome::Released),
        })
    }

    /// Whether any request waits for the budget.
    pub fn any_waiting(&self) -> bool {
        self.list()
            .values()
            .any(|held| held.cause == HoldCause::OverBudget)
    }

    /// Takes every request waiting for the budget out of the store, oldest first.
    pub fn take_waiting(&self) -> Result<Vec<HeldRequest>, StateError> {
        let waiting = self.file.update(|stored| {
            let (waiting, kept): (BTreeMap<_, _>, BTreeMap<_, _>) =
                std::mem::take(&mut stored.held)
                    .into_iter()
                    .partition(|(_, held)| held.cause == HoldCause::OverBudget);
            stored.held = kept;
            waiting
        })?;
        let mut waiting: Vec<HeldRequest> = waiting.into_values().collect();
        waiting.sort_by_key(|held| held.received_at);
        Ok(waiting)
    }

    /// The held requests by id; none when the file can't be read (the owner is told of it,
    /// and a change to it is an error).
    pub fn list(&self) -> BTreeMap<String, HeldRequest> {
        self.file.read().map_or_else(
            |error| {
                tracing::warn!(%error, "cannot read the held webhook requests");
                BTreeMap::new()
            },
            |stored| stored.held,
        )
    }
}

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Stored>;

#[cfg(test)]
#[path = "held_webhooks_tests.rs"]
mod tests;
