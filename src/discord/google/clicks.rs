//! Google in Discord: the task and event buttons (BTN-5/6/7, GOO-8/9) and the revocation
//! notice (SCH-3).
//!
//! A click acts through the process's [`crate::google::GoogleClient`] (the one the agent's
//! Google tools use), answers ephemerally (`done ✓`, `deleted`, or `failed: <reason>`) and
//! leaves the main session a pending update naming the task or event. Beyond the original, a delete button asks for a
//! second click within 10 s (`click again to delete`) before it deletes anything.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use serenity::{
    all::ComponentInteraction,
    builder::{CreateMessage, EditInteractionResponse},
};
use tokio_util::sync::CancellationToken;

use super::Google;
use crate::discord::buttons::ButtonAction;
use crate::discord::rate_limit::with_rate_limit_retries;
use crate::google::GoogleError;

/// How long a delete button waits for its confirming click.
pub const CONFIRM_WINDOW: Duration = Duration::from_secs(10);

/// The first click's answer on a delete button.
pub const CLICK_AGAIN: &str = "click again to delete (within 10 s)";

/// The DM after a refresh token was refused for good (SCH-3).
pub const REVOKED_NOTICE: &str = "-# google auth revoked — use /google-auth to reconnect.";

/// What a click on a delete button means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondClick {
    /// The first click: nothing deleted, the button is armed for [`CONFIRM_WINDOW`].
    Armed,
    /// The confirming click within the window: delete.
    Confirmed,
}

/// Armed delete buttons, by message and button. Plain state with the time passed in.
#[derive(Debug, Default)]
pub struct DeleteConfirmations {
    armed: HashMap<(u64, String), Instant>,
}

impl DeleteConfirmations {
    /// Registers a click on `button` of `message` at `now`.
    pub fn click(&mut self, message: u64, button: &str, now: Instant) -> SecondClick {
        self.armed
            .retain(|_, at| now.saturating_duration_since(*at) < CONFIRM_WINDOW);
        let key = (message, button.to_owned());
        if self.armed.remove(&key).is_some() {
            SecondClick::Confirmed
        } else {
            self.armed.insert(key, now);
            SecondClick::Armed
        }
    }
}

/// A Google button, decoded.
enum GoogleAction<'a> {
    Complete { list: &'a str, task: &'a str },
    DeleteTask { list: &'a str, task: &'a str },
    DeleteEvent { calendar: &'a str, event: &'a str },
}

impl Google {
    /// Answers `task_done`, `task_del` and `event_del` (BTN-5/6/7). Other actions are not
    /// handled here.
    pub(crate) async fn click(
        &self,
        component: &ComponentInteraction,
        action: &ButtonAction,
    ) -> Result<(), serenity::Error> {
        let configured_list = self
            .reach
            .services
            .runtime
            .current()
            .google_task_list
            .clone();
        let google = match action {
            ButtonAction::TaskDone { task_id, list_id } => GoogleAction::Complete {
                list: list_id.as_deref().unwrap_or(&configured_list),
                task: task_id,
            },
            ButtonAction::TaskDelete { task_id, list_id } => GoogleAction::DeleteTask {
                list: list_id.as_deref().unwrap_or(&configured_list),
                task: task_id,
            },
            ButtonAction::EventDelete {
                calendar_id,
                event_id,
            } => GoogleAction::DeleteEvent {
                calendar: calendar_id,
                event: event_id,
            },
            _ => return Ok(()),
        };
        if matches!(
            google,
            GoogleAction::DeleteTask { .. } | GoogleAction::DeleteEvent { .. }
        ) {
            let click = self.delete_confirmations.lock().click(
                component.message.id.get(),
                &component.data.custom_id,
                Instant::now(),
            );
            if click == SecondClick::Armed {
                return self.reach.ephemeral(component, CLICK_AGAIN).await;
            }
        }
        // The call may retry for a while: acknowledge first, answer when it is done.
        with_rate_limit_retries(|| component.defer_ephemeral(&self.reach.http)).await?;
        let client = &self.reach.services.google;
        let outcome: Result<(String, &str), GoogleError> = match google {
            GoogleAction::Complete { list, task } => client
                .complete_task(list, task)
                .await
                .map(|title| (format!("User completed task \"{title}\""), "done ✓")),
            GoogleAction::DeleteTask { list, task } => client
                .delete_task(list, task)
                .await
                .map(|title| (format!("User deleted task \"{title}\""), "deleted")),
            GoogleAction::DeleteEvent { calendar, event } => {
                client.delete_event(calendar, event).await.map(|summary| {
                    (
                        format!("User deleted calendar event \"{summary}\""),
                        "deleted",
                    )
                })
            }
        };
        let answer = match outcome {
            Ok((update, answer)) => {
                if let Err(error) = self.reach.services.pending.append(&update) {
                    tracing::warn!(%error, "could not record the button's pending update");
                }
                answer.to_owned()
            }
            Err(error) => {
                tracing::info!(%error, "a google button failed");
                format!("failed: {error}")
            }
        };
        let edit = EditInteractionResponse::new().content(answer);
        with_rate_limit_retries(|| component.edit_response(&self.reach.http, edit.clone()))
            .await
            .map(|_| ())
    }

    /// Checks for the revocation marker every `every` until `stop`, and DMs the owner once
    /// per revocation (SCH-3). Starts once the owner's DM channel is open.
    pub async fn watch_revocation(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        let files = crate::google::GoogleFiles::new(&self.reach.services.data_dir);
        self.reach
            .every_tick_once_ready(every, &stop, || self.tell_revocation(&files))
            .await;
    }

    /// DMs the owner when the revocation marker is there, and takes it.
    async fn tell_revocation(&self, files: &crate::google::GoogleFiles) {
        match files.take_revoked_marker() {
            Ok(false) => {}
            Ok(true) => {
                let notice = CreateMessage::new().content(REVOKED_NOTICE);
                self.reach
                    .tell("the google revocation notice", notice)
                    .await;
            }
            Err(error) => tracing::warn!(%error, "could not read the google revocation marker"),
        }
    }
}

#[cfg(test)]
#[path = "clicks_tests.rs"]
mod tests;
