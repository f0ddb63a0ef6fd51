//! The recall part (issue 42 §2): `/recall <question>` answers the owner with the passages that
//! answer it best, and `/forget <words>` removes the passages holding every one of the words
//! for good and says which — both ephemeral, so nobody else in the home channel sees them, and
//! deferred, as catching the index up with what changed can take a moment.

use std::sync::Arc;

use serenity::{all::CommandInteraction, builder::EditInteractionResponse};

use super::{
    commands::{option, reply_ephemeral},
    rate_limit::with_rate_limit_retries,
    reach::Reach,
};
use crate::recall::{
    memory::Memory,
    query::{Query, forgotten_text, hits_text},
};

/// Discord's limit on a message, in characters.
const MESSAGE_CHARS: usize = 2000;

/// The recall part.
pub struct Recall {
    reach: Arc<Reach>,
}

impl Recall {
    /// The part.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self { reach }
    }

    /// `/recall <question>` or `/forget <words>`.
    pub(crate) async fn command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        let http = &self.reach.http;
        let forget = command.data.name == "forget";
        let words = option(command, "words").map(str::trim).unwrap_or_default();
        if words.is_empty() {
            let text = if forget {
                "give the words to forget: `/forget bank pin`"
            } else {
                "give what to look for: `/recall the flat in March`"
            };
            return reply_ephemeral(http, command, text).await;
        }
        with_rate_limit_retries(|| command.defer_ephemeral(http)).await?;
        let services = &self.reach.services;
        let (now, tz) = (services.clock.now(), services.config.timezone);
        let query = Query::new(words);
        let answer = match Memory::for_config(
            &services.config,
            services.runtime.current().recall_language,
        ) {
            Err(error) => format!("recall can't run: {error}"),
            Ok(memory) => tokio::task::spawn_blocking(move || {
                if forget {
                    memory
                        .forget(&query, now)
                        .map(|gone| forgotten_text(&query.words, &gone, tz))
                } else {
                    memory
                        .find(&query, now)
                        .map(|hits| hits_text(&query.words, &hits, tz))
                }
            })
            .await
            .unwrap_or_else(|error| Err(format!("recall stopped: {error}")))
            .unwrap_or_else(|error| format!("recall failed: {error}")),
        };
        let edit = EditInteractionResponse::new().content(clipped(&answer));
        with_rate_limit_retries(|| command.edit_response(http, edit.clone()))
            .await
            .map(drop)
    }
}

/// `text` within one Discord message.
fn clipped(text: &str) -> String {
    if text.chars().count() <= MESSAGE_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MESSAGE_CHARS - 1).collect();
    cut.push('…');
    cut
}
