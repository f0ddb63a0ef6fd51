//! The nag keeper (issue 28 §1, NAG-4…NAG-7): opens a reminder that stays open until answered
//! (its first card), and sends each nag as it falls due — worded by an answer-only session, or
//! in our own words when that can't answer — within the ping budget. A nag due while the
//! owner is quiet waits for the quiet's end; one due while the budget is empty waits for the
//! refill; both are looked at again every sync interval, so nothing is dropped. The open
//! reminders live in `state/nags.json`, so they survive restarts.

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{
    budget::DailyBudget,
    nag_card::{NUDGE_SYSTEM_PROMPT, card, nudge_question, own_words, usable_words},
};
use crate::{
    agent::answer_only::{Question, ask},
    domain::{nag::NagOutcome, open_nag::OpenNag},
    front_end::FrontEnd,
    services::Services,
    state::{ping_budget::Spend, quiet::HeldShow},
    usage::UsageKind,
};

/// How long a nudge's words may take before our own are used.
const WORDS_LIMIT: Duration = Duration::from_secs(45);

/// Opens reminders and sends their nags; cheap to share.
pub struct NagKeeper {
    services: Arc<Services>,
    front_end: Arc<dyn FrontEnd>,
    budget: Arc<DailyBudget>,
}

impl NagKeeper {
    /// A keeper showing cards through `front_end`; `budget` is today's background budget,
    /// checked before a nudge is worded by the model.
    pub fn new(
        services: Arc<Services>,
        front_end: Arc<dyn FrontEnd>,
        budget: Arc<DailyBudget>,
    ) -> Self {
        Self {
            services,
            front_end,
            budget,
        }
    }

    /// `nag` opened (its reminder or routine fired, NAG-4): kept, and its first card shown —
    /// held for the digest while the owner is quiet. An entry it replaces (a routine's earlier
    /// fire, never answered) is told to the main conversation.
    pub async fn opened(&self, nag: OpenNag) {
        let span = tracing::info_span!("nag", id = %nag.id);
        async {
            match self.services.nags.open(nag.clone()) {
                Ok(Some(replaced)) => self.note(&format!(
                    "{}: no answer before it came round again; the new one is open now",
                    replaced.label
                )),
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(%error, "could not keep the open reminder; it won't nag");
                    return;
                }
            }
            // Held for the digest, a nudge due before the quiet ends waits for its end: the
            // card names no time already past when it is shown.
            let quiet_until = self.services.quiet_until(self.services.clock.now());
            let text = match (nag.wait.due_at(), quiet_until) {
                (Some(at), Some(until)) if at <= until => {
                    "Open until you answer. If it slips, I'll nudge you once your quiet time is \
                     over."
                        .to_owned()
                }
                (Some(at), _) => format!(
                    "Open until you answer. If it slips, I'll nudge you at {}.",
                    self.services.hh_mm(at)
                ),
                (None, _) => "Open until you answer.".to_owned(),
            };
            let card = card(&nag, text);
            if quiet_until.is_some() {
                if let Err(error) = self
                    .services
                    .quiet
                    .hold(HeldShow::Embed { embed: card }, self.services.clock.now())
                {
                    tracing::warn!(%error, "could not hold the reminder's card for the quiet time");
                }
                return;
            }
            if let Err(error) = self.front_end.send_embed(card).await {
                tracing::warn!(%error, "could not show the reminder's card; its nags will follow");
            }
        }
        .instrument(span)
        .await;
    }

    /// Sends nags as they fall due until `stop`; looks again at least every `every`.
    pub async fn run(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        loop {
            let now = self.services.clock.now();
            let due = self.services.nags.due(now);
            tracing::debug!(due = due.len(), %now, "looked at the open reminders");
            for nag in due {
                let span = tracing::info_span!("nag", id = %nag.id);
                let due_at = nag.wait.due_at().unwrap_or(now);
                self.nag(nag, due_at).instrument(span).await;
            }
            let wait = self
                .services
                .nags
                .next_due()
                .filter(|at| *at > now)
                .and_then(|at| (at - now).to_std().ok())
                .map_or(every, |wait| wait.min(every));
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.services.clock.sleep(wait) => {}
                () = self.services.nags.changed().notified() => {}
            }
        }
    }

    /// Sends one due nag, unless the owner is quiet or the ping budget is empty (then it
    /// waits, NAG-6).
    async fn nag(&self, nag: OpenNag, due_at: DateTime<Utc>) {
        if self.quiet_now() {
            tracing::debug!("the owner is quiet; the nag waits for the quiet's end");
            return;
        }
        match self.services.ping_budget.try_spend() {
            Ok(Spend::Spent) => {}
            Ok(Spend::Exhausted) => {
                tracing::debug!("the ping budget is empty; the nag waits for the refill");
                return;
            }
            Err(error) => {
                tracing::warn!(%error, "the ping budget can't be read; the nag waits");
                return;
            }
        }
        let nth = nag.nudges.saturating_add(1);
        let words = self.words(&nag, nth).await;
        // Answered, snoozed or opened afresh while the nudge was being worded: it is not this
        // nudge's to send any more.
        let unchanged = |open: &OpenNag| open.opened == nag.opened && open.wait == nag.wait;
        if !self
            .services
            .nags
            .get(&nag.id)
            .is_some_and(|open| unchanged(&open))
        {
            self.refund();
            return;
        }
        let mut after = nag.clone();
        after.nagged(self.services.clock.now());
        let next = match after.wait.due_at() {
            Some(at) => format!("*Next nudge at {}.*", self.services.hh_mm(at)),
            None => "*That's the last nudge; it stays in `/nags` until you answer.*".to_owned(),
        };
        let card = card(&nag, format!("{words}\n\n{next}"));
        if let Err(error) = self.front_end.send_embed(card).await {
            tracing::warn!(%error, "could not send the nag; it is tried again");
            self.refund();
            return;
        }
        let sent = self.services.clock.now();
        tracing::info!(nth, late_secs = (sent - due_at).num_seconds(), "nag sent");
        // The next gap counts from when this one went out.
        let mut counted = false;
        let recorded = self.services.nags.update(&nag.id, |open| {
            if unchanged(open) {
                open.nagged(sent);
                counted = true;
            }
        });
        match recorded {
            Ok(Some(open)) if counted && open.is_resting() => {
                self.note(&NagOutcome::GaveUp.summary(&open.label, open.nudges, ""));
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "could not record the nag"),
        }
    }

    /// Gives back the ping a nudge took and didn't use.
    fn refund(&self) {
        if let Err(error) = self.services.ping_budget.refund() {
            tracing::warn!(%error, "could not refund the nag's ping");
        }
    }

    /// The words of nudge `nth`: the model's, unless today's background budget is spent or it
    /// gives none within the limit; then our own (NAG-5).
    async fn words(&self, nag: &OpenNag, nth: u32) -> String {
        if self
            .budget
            .check(&self.services, self.services.clock.now())
            .await
            .is_some()
        {
            return own_words(nag, nth);
        }
        let question = Question {
            system_prompt: NUDGE_SYSTEM_PROMPT,
            model: crate::agent::answer_only::ANSWER_ONLY_MODEL,
            usage: (UsageKind::Reminder, Some(nag.id.clone())),
            prompt: nudge_question(
                nag,
                nth,
                &self.services.hh_mm(nag.opened),
                &self.services.config.user_name,
            ),
            limit: WORDS_LIMIT,
        };
        match ask(&self.services, &self.front_end, question).await {
            Ok(answer) => usable_words(&answer).unwrap_or_else(|| own_words(nag, nth)),
            Err(error) => {
                tracing::warn!(%error, "no words for the nudge from the model; using our own");
                own_words(nag, nth)
            }
        }
    }

    /// Whether the owner is quiet now (quiet hours, "quiet for …", a focus session).
    fn quiet_now(&self) -> bool {
        self.services
            .quiet_until(self.services.clock.now())
            .is_some()
    }

    /// A line for the main conversation.
    fn note(&self, text: &str) {
        if let Err(error) = self.services.pending.append(text) {
            tracing::warn!(%error, "could not queue a pending update");
        }
    }
}
