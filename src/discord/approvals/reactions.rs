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

/// How long an owner's reaction to a message not (yet) known as a question is kept: the
/// owner can react between the question's post and the bot learning its id.
const EARLY_ANSWER_KEPT: Duration = Duration::from_secs(10);

/// Open approval questions, keyed by the message that asks them.
#[derive(Default)]
pub struct ReactionApprovals {
    pending: Mutex<Pending>,
}

#[derive(Default)]
struct Pending {
    /// The questions waiting for an answer, with the channel each was asked in.
    open: HashMap<MessageId, (ChannelId, oneshot::Sender<Approval>)>,
    /// Owner reactions to messages that were no open question when they came, with when:
    /// one may be the answer to a question whose post hasn't come back yet.
    early: HashMap<MessageId, (tokio::time::Instant, Approval)>,
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
        Approval::Unsent => format!("~~`{label}`~~ — not sent"),
    }
}

impl ReactionApprovals {
    /// Asks in `channel` and waits for the owner (or the timeout, or a cancellation).
    pub async fn ask(&self, http: &Arc<Http>, channel: ChannelId, label: &str) -> Approval {
        let question = format!("`{label}`");
        let message = match with_rate_limit_retries(|| channel.say(http, &question)).await {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "could not post the approval question");
                return Approval::Unsent;
            }
        };
        let answer_rx = self.register(channel, message.id);
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
        self.lock().open.remove(&message.id);
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

    /// Opens the question `message` asks; the receiver gets its answer, at once when the
    /// owner reacted before the post came back.
    fn register(&self, channel: ChannelId, message: MessageId) -> oneshot::Receiver<Approval> {
        let (answer_tx, answer_rx) = oneshot::channel();
        let mut pending = self.lock();
        match pending.early.remove(&message) {
            Some((_, approval)) => {
                let _ = answer_tx.send(approval);
            }
            None => {
                pending.open.insert(message, (channel, answer_tx));
            }
        }
        answer_rx
    }

    /// Routes an owner's reaction; returns whether it answered an open question. One on a
    /// message that is no open question is kept a few seconds, in case it is a question whose
    /// post hasn't come back yet.
    pub fn answer(&self, message: MessageId, emoji: &str) -> bool {
        let approval = approval_for_emoji(emoji);
        let mut pending = self.lock();
        if let Some((_, answer)) = pending.open.remove(&message) {
            return answer.send(approval).is_ok();
        }
        let now = tokio::time::Instant::now();
        pending
            .early
            .retain(|_, (at, _)| now.duration_since(*at) < EARLY_ANSWER_KEPT);
        pending.early.insert(message, (now, approval));
        false
    }

    /// Withdraws every open question (PRM-6); they resolve as [`Approval::Cancelled`].
    pub fn cancel_all(&self) {
        let mut pending = self.lock();
        pending.open.clear();
        pending.early.clear();
    }

    /// Withdraws the open questions asked in a channel `asked_in` picks (PRM-6): one
    /// conversation's, leaving another's waiting (issue 41 §1).
    pub fn cancel_where(&self, asked_in: impl Fn(ChannelId) -> bool) {
        self.lock()
            .open
            .retain(|_, (channel, _)| !asked_in(*channel));
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, Pending> {
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
        let approvals = ReactionApprovals::default();
        let (tx, rx) = oneshot::channel();
        approvals
            .lock()
            .open
            .insert(MessageId::new(5), (ChannelId::new(1), tx));
        approvals.cancel_all();
        assert!(rx.await.is_err());
        assert!(!approvals.answer(MessageId::new(5), "✅"));
    }

    /// PRM-4: a reaction that comes before the question's post came back still answers it;
    /// one on an unrelated message answers nothing.
    #[tokio::test]
    async fn an_answer_before_the_post_came_back_still_counts() {
        let approvals = ReactionApprovals::default();
        let question = MessageId::new(7);
        assert!(!approvals.answer(question, ALWAYS));
        assert!(!approvals.answer(MessageId::new(8), ALLOW));
        let answer = approvals.register(ChannelId::new(1), question);
        assert_eq!(answer.await.unwrap(), Approval::AllowAlways);
        let later = approvals.register(ChannelId::new(1), MessageId::new(9));
        assert!(approvals.answer(MessageId::new(9), DENY));
        assert_eq!(later.await.unwrap(), Approval::Deny);
    }
}
