//! Tool approval by reaction in the owner's DM (PRM-4, PRM-6): the bot posts the tool's label,
//! adds ✅ (allow once), ❌ (deny) and 🔓 (always allow this session), and waits up to 60 s for
//! the owner's reaction. An interrupt, `/clear` or leaving a fork withdraws every open question.

use std::{collections::HashMap, sync::Arc, time::Duration};

use parking_lot::Mutex;

use serenity::{
    builder::EditMessage,
    http::Http,
    model::{
        channel::ReactionType,
        id::{ChannelId, MessageId},
    },
};
use tokio::sync::oneshot;

use crate::discord::rate_limit::with_rate_limit_retries;
use crate::front_end::Approval;

/// How long the owner has to answer (PRM-4).
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

const ALLOW: &str = "✅";
const DENY: &str = "❌";
const ALWAYS: &str = "🔓";

/// Open approval questions, keyed by the message that asks them.
#[derive(Default)]
pub struct Approvals {
    pending: Mutex<HashMap<MessageId, oneshot::Sender<Approval>>>,
}

/// The answer a reaction emoji stands for (PRM-4: any other emoji denies).
pub fn approval_for_emoji(emoji: &str) -> Approval {
    match emoji {
        ALLOW => Approval::AllowOnce,
        ALWAYS => Approval::AllowAlways,
        _ => Approval::Deny,
    }
}

/// The text the question message ends with (PRM-4).
pub fn outcome_text(label: &str, approval: Approval) -> String {
    match approval {
        Approval::AllowOnce => format!("`{label}` — allowed"),
        Approval::AllowAlways => format!("`{label}` — always allowed"),
        Approval::Deny => format!("`{label}` — denied"),
        Approval::TimedOut => format!("~~`{label}`~~ — expired"),
        Approval::Cancelled => format!("~~`{label}`~~ — cancelled"),
    }
}

impl Approvals {
    /// Asks in `channel` and waits for the owner (or the timeout, or a cancellation).
    pub async fn ask(&self, http: &Arc<Http>, channel: ChannelId, label: &str) -> Approval {
        let question = format!("`{label}`");
        let message = match with_rate_limit_retries(|| channel.say(http, &question)).await {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "could not post the approval question");
                return Approval::Deny;
            }
        };
        let (answer_tx, answer_rx) = oneshot::channel();
        self.lock().insert(message.id, answer_tx);
        for emoji in [ALLOW, DENY, ALWAYS] {
            let reaction = ReactionType::Unicode(emoji.to_owned());
            if let Err(error) =
                with_rate_limit_retries(|| message.react(http, reaction.clone())).await
            {
                tracing::debug!(%error, "could not add an approval reaction");
            }
        }
        let approval = match tokio::time::timeout(APPROVAL_TIMEOUT, answer_rx).await {
            Ok(Ok(approval)) => approval,
            Ok(Err(_)) => Approval::Cancelled,
            Err(_) => Approval::TimedOut,
        };
        self.lock().remove(&message.id);
        if approval == Approval::Cancelled {
            if let Err(error) =
                with_rate_limit_retries(|| channel.delete_message(http, message.id)).await
            {
                tracing::debug!(%error, "could not delete a withdrawn approval question");
            }
        } else {
            let edit = EditMessage::new().content(outcome_text(label, approval));
            if let Err(error) =
                with_rate_limit_retries(|| channel.edit_message(http, message.id, edit.clone()))
                    .await
            {
                tracing::debug!(%error, "could not record the approval outcome");
            }
        }
        approval
    }

    /// Routes an owner's reaction; returns whether it answered an open question.
    pub fn answer(&self, message: MessageId, emoji: &str) -> bool {
        match self.lock().remove(&message) {
            Some(answer) => answer.send(approval_for_emoji(emoji)).is_ok(),
            None => false,
        }
    }

    /// Withdraws every open question (PRM-6); they resolve as [`Approval::Cancelled`].
    pub fn cancel_all(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, HashMap<MessageId, oneshot::Sender<Approval>>> {
        self.pending.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emojis_and_outcomes() {
        assert_eq!(approval_for_emoji("✅"), Approval::AllowOnce);
        assert_eq!(approval_for_emoji("🔓"), Approval::AllowAlways);
        assert_eq!(approval_for_emoji("👍"), Approval::Deny);
        assert_eq!(
            outcome_text("Bash(ls)", Approval::AllowAlways),
            "`Bash(ls)` — always allowed"
        );
        assert_eq!(
            outcome_text("Bash(ls)", Approval::TimedOut),
            "~~`Bash(ls)`~~ — expired"
        );
    }

    #[tokio::test]
    async fn cancel_all_withdraws_open_questions() {
        let approvals = Approvals::default();
        let (tx, rx) = oneshot::channel();
        approvals.lock().insert(MessageId::new(5), tx);
        approvals.cancel_all();
        assert!(rx.await.is_err());
        assert!(!approvals.answer(MessageId::new(5), "✅"));
    }
}
