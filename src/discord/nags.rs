//! The owner's side of reminders open until answered (issue 28 §1, NAG-7, NAG-9): **Done**,
//! **Snooze** (10 min, 1 h, this evening, tomorrow morning) and **Not today** on each card, and
//! `/nags`, the list of what is open with **Done** and **Drop** for each. Every answer reaches
//! the main conversation as a pending update, without judging.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serenity::{
    all::{ButtonStyle, CommandInteraction, ComponentInteraction, Embed},
    builder::{
        CreateActionRow, CreateButton, CreateEmbed, CreateInteractionResponse,
        CreateInteractionResponseMessage,
    },
};

use super::{
    buttons::{ButtonAction, NagAnswer},
    rate_limit::with_rate_limit_retries,
    reach::Reach,
};
use crate::domain::{
    nag::{NagOutcome, Snooze},
    open_nag::OpenNag,
};

/// The most open reminders `/nags` gives buttons to (Discord allows five rows).
const LISTED_WITH_BUTTONS: usize = 5;

/// The nags part (issue 41 §2): the owner's answers to the reminders open until answered.
pub struct Nags {
    reach: Arc<Reach>,
}

impl Nags {
    /// The part.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self { reach }
    }

    /// A click on a card's (or `/nags`'s) button (NAG-7).
    pub(crate) async fn click(
        &self,
        component: &ComponentInteraction,
        id: &str,
        answer: NagAnswer,
    ) -> Result<(), serenity::Error> {
        let now = self.reach.services.clock.now();
        let result = match answer {
            NagAnswer::SnoozeChoices => return self.snooze_choices(component, id).await,
            NagAnswer::Snooze(snooze) => {
                let until = self.snooze_until(snooze, now);
                self.reach
                    .services
                    .nags
                    .update(id, |nag| nag.snoozed(until))
                    .map(|nag| nag.map(|nag| (nag, NagOutcome::Snoozed(until))))
            }
            NagAnswer::Done | NagAnswer::NotToday | NagAnswer::Drop => {
                let outcome = match answer {
                    NagAnswer::Done => NagOutcome::Done,
                    NagAnswer::NotToday => NagOutcome::NotToday,
                    _ => NagOutcome::Dropped,
                };
                self.reach
                    .services
                    .nags
                    .close(id)
                    .map(|nag| nag.map(|nag| (nag, outcome)))
            }
        };
        let (nag, outcome) = match result {
            Ok(Some(answered)) => answered,
            Ok(None) => {
                return self
                    .reach
                    .ephemeral(component, "That one isn't open any more.")
                    .await;
            }
            Err(error) => {
                let text = format!("couldn't record that: {error}");
                return self.reach.ephemeral(component, &text).await;
            }
        };
        let at = match outcome {
            NagOutcome::Snoozed(until) => until,
            _ => now,
        };
        let line = outcome.summary(&nag.label, nag.nudges, self.reach.services.hh_mm(at));
        tracing::info!(id, "{line}");
        if let Err(error) = self.reach.services.pending.append(&line) {
            tracing::warn!(%error, "could not queue the reminder's outcome");
        }
        let shown = match outcome {
            NagOutcome::Done => format!("✓ **{}**: done. Nice.", nag.label),
            NagOutcome::Snoozed(_) => {
                format!(
                    "**{}**: snoozed until {}.",
                    nag.label,
                    self.reach.services.hh_mm(at)
                )
            }
            NagOutcome::NotToday => format!("**{}**: not today. That's fine.", nag.label),
            NagOutcome::Dropped | NagOutcome::GaveUp => {
                format!("**{}**: dropped.", nag.label)
            }
        };
        // The card (or the list) loses its buttons; a card's words stay, its line about the
        // next nudge says what comes now instead.
        let mut update = CreateInteractionResponseMessage::new()
            .content(shown)
            .components(Vec::new());
        if !component.message.embeds.is_empty() {
            let status = self.status_after(&outcome);
            let embeds = component
                .message
                .embeds
                .iter()
                .map(|embed| answered_card(embed, &status))
                .collect();
            update = update.embeds(embeds);
        }
        let response = CreateInteractionResponse::UpdateMessage(update);
        with_rate_limit_retries(|| component.create_response(&self.reach.http, response.clone()))
            .await
    }

    /// `/nags`: what is open, with **Done** and **Drop** for each (NAG-9).
    pub(crate) async fn command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        let open = self.reach.services.nags.all();
        let mut message = CreateInteractionResponseMessage::new().ephemeral(true);
        if open.is_empty() {
            message = message.content(
                "Nothing open. A reminder set with `until-done` waits here until you answer it.",
            );
        } else {
            let now = self.reach.services.clock.now();
            let tz = self.reach.services.config.timezone;
            let lines: Vec<String> = open
                .iter()
                .map(|nag| format!("- {}", nag.status(now, tz)))
                .collect();
            let rows = open
                .iter()
                .take(LISTED_WITH_BUTTONS)
                .map(|nag| {
                    CreateActionRow::Buttons(vec![
                        nag_button(nag, NagAnswer::Done, &format!("Done: {}", nag.label))
                            .style(ButtonStyle::Success),
                        nag_button(nag, NagAnswer::Drop, "Drop").style(ButtonStyle::Secondary),
                    ])
                })
                .collect();
            message = message
                .content(format!("Open until you answer:\n{}", lines.join("\n")))
                .components(rows);
        }
        let response = CreateInteractionResponse::Message(message);
        with_rate_limit_retries(|| command.create_response(&self.reach.http, response.clone()))
            .await
    }

    /// The snooze choices, for this owner only.
    async fn snooze_choices(
        &self,
        component: &ComponentInteraction,
        id: &str,
    ) -> Result<(), serenity::Error> {
        let Some(nag) = self.reach.services.nags.get(id) else {
            return self
                .reach
                .ephemeral(component, "That one isn't open any more.")
                .await;
        };
        let buttons = Snooze::ALL
            .into_iter()
            .map(|snooze| {
                nag_button(&nag, NagAnswer::Snooze(snooze), snooze.label())
                    .style(ButtonStyle::Secondary)
            })
            .collect();
        let message = CreateInteractionResponseMessage::new()
            .content(format!("Snooze **{}** until…", nag.label))
            .components(vec![CreateActionRow::Buttons(buttons)])
            .ephemeral(true);
        let response = CreateInteractionResponse::Message(message);
        with_rate_limit_retries(|| component.create_response(&self.reach.http, response.clone()))
            .await
    }

    /// The card's line about what comes next, once answered with `outcome` (NAG-7).
    fn status_after(&self, outcome: &NagOutcome) -> String {
        match outcome {
            NagOutcome::Done => "*Done: no more nudges.*".to_owned(),
            NagOutcome::Snoozed(until) => format!(
                "*Snoozed: the next nudge comes at {}.*",
                self.reach.services.hh_mm(*until)
            ),
            NagOutcome::NotToday => "*Not today: no more nudges today. A one-off reminder stays \
                                     closed; a routine opens again at its next time.*"
                .to_owned(),
            NagOutcome::Dropped | NagOutcome::GaveUp => "*Dropped: no more nudges.*".to_owned(),
        }
    }

    /// When `snooze`, pressed at `now`, brings the reminder back.
    fn snooze_until(&self, snooze: Snooze, now: DateTime<Utc>) -> DateTime<Utc> {
        snooze.until(now, self.reach.services.config.timezone)
    }
}

/// A button answering `nag` with `answer`.
fn nag_button(nag: &OpenNag, answer: NagAnswer, label: &str) -> CreateButton {
    let action = ButtonAction::Nag {
        id: nag.id.clone(),
        answer,
    };
    // An id too long for Discord can't come from a reminder id; such a button does nothing.
    let custom_id = action
        .custom_id()
        .unwrap_or_else(|_| "act:nag_done:_".to_owned());
    CreateButton::new(custom_id).label(label.chars().take(80).collect::<String>())
}

/// An answered card: its nudge's words kept, its last line (when the next nudge comes) put in
/// place by `status` (NAG-7).
fn answered_card(embed: &Embed, status: &str) -> CreateEmbed {
    let words = embed
        .description
        .as_deref()
        .and_then(|text| text.rsplit_once("\n\n"))
        .map(|(words, _)| words);
    let description = match words {
        Some(words) => format!("{words}\n\n{status}"),
        None => status.to_owned(),
    };
    CreateEmbed::from(embed.clone()).description(description)
}
