//! `/restart` (SLC-12), `/update` (SLC-11) and what every update ends with (UPD-6): the
//! restart message, the `restarting` session event and the restart in place. The bot's own
//! life, so the router's state answers them.

use serenity::{
    all::CommandInteraction,
    builder::{
        CreateInteractionResponse, CreateInteractionResponseMessage, CreateMessage,
        EditInteractionResponse,
    },
};

use crate::discord::{bot::Bot, rate_limit::with_rate_limit_retries};
use crate::{
    state::history::SessionEventKind,
    update::{Applied, Detection, UpdateError, summary::restart_message},
};

impl Bot {
    /// `/restart` (SLC-12): logs `restarting`, answers and asks the daemon to re-exec.
    pub(crate) async fn restart_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        self.log_restarting();
        self.request_restart();
        let response = CreateInteractionResponse::Message(
            CreateInteractionResponseMessage::new().content("restarting..."),
        );
        with_rate_limit_retries(|| command.create_response(&self.reach.http, response.clone()))
            .await
    }

    /// `/update`: checks for a newer release and applies it now, whatever the hour and
    /// whatever the agent is doing (SLC-11). The deferred answer says how it went; on
    /// success it is the restart message and the bot restarts.
    pub(crate) async fn update_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        with_rate_limit_retries(|| command.defer(&self.reach.http)).await?;
        let (text, applied) = self.update_now().await;
        let edit = EditInteractionResponse::new().content(text);
        let answered =
            with_rate_limit_retries(|| command.edit_response(&self.reach.http, edit.clone()))
                .await
                .map(drop);
        // The new binary is installed: restart into it even if Discord lost the answer.
        if applied {
            self.restart_after_update();
        }
        answered
    }

    /// Runs one check-and-apply for `/update`; the answer and whether an update was applied.
    async fn update_now(&self) -> (String, bool) {
        let Some(run) = self.updater.begin() else {
            return ("an update is already in progress.".to_owned(), false);
        };
        let release = match run.detect().await {
            Err(error @ UpdateError::Unavailable(_)) => return (error.to_string(), false),
            Err(error) => {
                tracing::warn!(%error, "/update: git fetch failed");
                return (format!("git fetch failed: {error}"), false);
            }
            Ok(Detection::UpToDate) => return ("already up to date.".to_owned(), false),
            Ok(Detection::AlreadyApplied(release)) => {
                release.warn_already_applied();
                return ("already up to date.".to_owned(), false);
            }
            Ok(Detection::Available(release)) => release,
        };
        tracing::info!(tag = %release.tag, "/update: applying");
        match run.apply(&release).await {
            Ok(Applied { subjects, .. }) => (restart_message(&subjects), true),
            Err(error) => {
                tracing::warn!(%error, "/update failed");
                (format!("update failed: {error}"), false)
            }
        }
    }

    /// Ends an auto-update (UPD-6): DMs the restart message, then restarts.
    pub async fn announce_update_and_restart(&self, applied: &Applied) {
        self.tell_update_news(restart_message(&applied.subjects))
            .await;
        self.restart_after_update();
    }

    /// Tells the owner about an update (the restart message, `auto-update failed: …`).
    pub async fn tell_update_news(&self, text: String) {
        self.reach
            .tell("the update news", CreateMessage::new().content(text))
            .await;
    }

    /// Logs `restarting` and asks the daemon to restart into the new binary (UPD-6, UPD-7).
    fn restart_after_update(&self) {
        self.log_restarting();
        self.request_restart();
    }

    /// Logs the `restarting` session event (SLC-12, UPD-6), when there is a session.
    pub(crate) fn log_restarting(&self) {
        if let Some(id) = self.reach.services.sessions.load()
            && let Err(error) =
                self.reach
                    .services
                    .sessions
                    .log(&id, SessionEventKind::Restarting, None)
        {
            tracing::warn!(%error, "could not log the restart");
        }
    }
}
