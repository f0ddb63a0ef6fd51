//! Where accepted webhook requests go (WHK-9…13): the runtime side of the webhook server.
//!
//! Each request gets its own task, owned here and stopped on shutdown. Its free-text values
//! are screened first by the tool-less screening session (WHK-12); a flagged payload is
//! dropped with a log line, and — unlike the original, which fails open — an answer that can't
//! be read, a screening error or the 30 s limit holds the request and asks the owner, whose
//! button dispatches it unscreened or drops it. A cleared request runs as a background job with
//! the spec's options (WHK-13), the busy state sampled when it arrived and the webhook as
//! "this task" of the forward schedule (WHK-11). The server's in-flight permit travels with
//! the request, so the cap covers screening and the run. A request that arrives once today's
//! background budget is spent waits, unscreened, until the budget allows it (`waiting`, USE-6).

use std::sync::Arc;

use tokio_util::{sync::CancellationToken, task::TaskTracker};
use tracing::Instrument;

use super::{budget::DailyBudget, runner::BgRunner};
use crate::{
    agent::screening::screen,
    domain::{
        embed::{ButtonStyle, Embed, EmbedButton, EmbedColor},
        prompt_tag::PromptTag,
    },
    front_end::FrontEnd,
    scheduling::{Scheduler, bg_job::BgJob},
    services::Services,
    state::held_webhooks::{HeldRequest, HeldWebhooks, HoldCause, ReleaseOutcome},
    webhooks::{
        AcceptedHook, HookSink, SCREENING_TIMEOUT, SpecStore, Verdict, WebhookSpec, parse_verdict,
        payload::Payload,
        request::{Prepared, prepare},
        screening_prompt,
    },
};

/// Button action that dispatches a held request (`act:hook_run:<hold id>`).
pub const RUN_ACTION: &str = "hook_run";
/// Button action that drops a held request.
pub const DROP_ACTION: &str = "hook_drop";

/// The runtime side of the webhook server; cheap to clone.
#[derive(Clone)]
pub struct WebhookDispatch(Arc<Inner>);

struct Inner {
    services: Arc<Services>,
    runner: Arc<BgRunner>,
    front_end: Arc<dyn FrontEnd>,
    scheduler: Arc<Scheduler>,
    specs: Arc<SpecStore>,
    held: HeldWebhooks,
    budget: Arc<DailyBudget>,
    tasks: TaskTracker,
    stop: CancellationToken,
}

/// What the owner's click on a hold notice did, for the ephemeral answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldAnswer {
    /// Dispatched (or dropped) as asked; the text says which.
    Done(String),
    /// The click doesn't belong to a hold the bot posted (a forged id, another message).
    Unknown,
    /// Nothing held under that id any more.
    Gone,
    /// It couldn't be done; the text says why.
    Failed(String),
}

impl WebhookDispatch {
    /// Dispatches through `runner`, asks through `front_end`, renders the forward schedule from
    /// `scheduler`'s registry, reads specs from `specs` and counts against `budget` (shared
    /// with the scheduled jobs, so the owner hears of it once a day).
    pub fn new(
        services: Arc<Services>,
        runner: Arc<BgRunner>,
        front_end: Arc<dyn FrontEnd>,
        (scheduler, specs): (Arc<Scheduler>, Arc<SpecStore>),
        budget: Arc<DailyBudget>,
    ) -> Self {
        let held = services.held_webhooks.clone();
        Self(Arc::new(Inner {
            services,
            runner,
            front_end,
            scheduler,
            specs,
            held,
            budget,
            tasks: TaskTracker::new(),
            stop: CancellationToken::new(),
        }))
    }

    /// Stops screenings and runs in flight and waits for their tasks to end.
    pub async fn shutdown(&self) {
        self.0.stop.cancel();
        self.0.tasks.close();
        self.0.tasks.wait().await;
    }

    /// The owner's click on a hold notice's button: `run` dispatches the held request without
    /// screening it again, else it is dropped. Only the message the bot posted counts.
    pub fn answer_hold(&self, hold_id: &str, message_id: u64, run: bool) -> HoldAnswer {
        let held = match self.0.held.release(hold_id, message_id) {
            Ok(ReleaseOutcome::Released(held)) => held,
            Ok(ReleaseOutcome::NotHeld) => return HoldAnswer::Gone,
            Ok(ReleaseOutcome::WrongMessage) => return HoldAnswer::Unknown,
            Err(error) => {
                return HoldAnswer::Failed(format!("couldn't read the held request: {error}"));
            }
        };
        let id = held.webhook_id.clone();
        if !run {
            tracing::info!(webhook = %id, "the owner dropped a held webhook request");
            return HoldAnswer::Done(format!("Dropped the `{id}` request."));
        }
        // The spec may have changed since: the payload must still pass it.
        let spec = match self.0.specs.find(&id) {
            Ok(Some(spec)) => spec,
            Ok(None) => return HoldAnswer::Failed(format!("the webhook `{id}` no longer exists.")),
            Err(error) => return HoldAnswer::Failed(error.to_string()),
        };
        let prepared = match prepare(&spec, held.payload.as_bytes()) {
            Ok(prepared) => prepared,
            Err(rejection) => {
                return HoldAnswer::Failed(format!(
                    "the payload no longer fits the `{id}` spec: {}",
                    rejection.body()
                ));
            }
        };
        tracing::info!(webhook = %id, "the owner dispatched a held webhook request");
        let inner = Arc::clone(&self.0);
        let busy = inner.runner.owner_busy();
        let span = tracing::info_span!("webhook", id = %id);
        self.0.tasks.spawn(
            async move {
                tokio::select! {
                    () = inner.stop.cancelled() => {}
                    () = inner.dispatch(&spec, prepared.body, busy) => {}
                }
            }
            .instrument(span),
        );
        HoldAnswer::Done(format!("Running the `{id}` request now."))
    }
}

impl HookSink for WebhookDispatch {
    fn accept(&self, hook: AcceptedHook) {
        let AcceptedHook {
            spec,
            payload,
            body,
            to_screen,
            received_at,
            permit,
        } = hook;
        let prepared = Prepared {
            payload,
            body,
            to_screen,
        };
        // The permit travels with the request until it is screened and run.
        self.0
            .spawn_request(spec, prepared, received_at, Some(permit));
    }
}

impl Inner {
    /// Handles one request in its own task, with the busy state as it is now (WHK-11: when
    /// the request arrived, or when it stopped waiting for the budget).
    fn spawn_request(
        self: &Arc<Self>,
        spec: Arc<WebhookSpec>,
        prepared: Prepared,
        received_at: chrono::DateTime<chrono::Utc>,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) {
        let busy = self.runner.owner_busy();
        let inner = Arc::clone(self);
        let span = tracing::info_span!("webhook", id = %spec.id);
        self.tasks.spawn(
            async move {
                let _permit = permit;
                tokio::select! {
                    () = inner.stop.cancelled() => {}
                    () = inner.handle(&spec, prepared, received_at, busy) => {}
                }
            }
            .instrument(span),
        );
    }

    async fn handle(
        &self,
        spec: &WebhookSpec,
        prepared: Prepared,
        received_at: chrono::DateTime<chrono::Utc>,
        busy: bool,
    ) {
        let Prepared {
            payload,
            body,
            to_screen,
        } = prepared;
        // Over today's budget nothing is spent on it, screening included (USE-6).
        if let Some(over) = self
            .budget
            .check(&self.services, self.services.clock.now())
            .await
        {
            self.wait_for_budget(spec, &payload, received_at, &over)
                .await;
            return;
        }
        if !to_screen.is_empty() {
            let prompt = screening_prompt(&to_screen);
            let verdict =
                match screen(&self.services, &self.front_end, prompt, SCREENING_TIMEOUT).await {
                    Ok(answer) => parse_verdict(&answer),
                    Err(error) => Verdict::Unreadable(error.to_string()),
                };
            match verdict {
                Verdict::Safe => {}
                Verdict::Flagged(keys) => {
                    tracing::warn!(
                        "Webhook {}: flagged fields [{}], skipping dispatch",
                        spec.id,
                        keys.join(", ")
                    );
                    return;
                }
                Verdict::Unreadable(reason) => {
                    tracing::warn!(webhook = %spec.id, %reason, "screening gave no usable answer; holding the request");
                    let request = HeldRequest {
                        webhook_id: spec.id.clone(),
                        reason,
                        received_at,
                        payload: payload_text(&payload),
                        message_id: None,
                        cause: HoldCause::Unscreened,
                    };
                    self.hold(request).await;
                    return;
                }
            }
        }
        self.dispatch(spec, body, busy).await;
    }

    /// Runs the request as a background job with the spec's options (WHK-13).
    async fn dispatch(&self, spec: &WebhookSpec, body: String, busy: bool) {
        let mut job = BgJob::new(PromptTag::Webhook(spec.id.clone()), body);
        job.session = spec.session;
        job.options = spec.options.clone();
        // The spec's own text, not the request's: the payload varies, the owner's grant doesn't.
        job.approval = Some(spec.approval_scope());
        job.schedule_text = Some(self.scheduler.schedule_text(&spec.id));
        job.file = spec
            .file
            .strip_prefix(self.services.data_dir.root())
            .ok()
            .map(std::path::Path::to_path_buf);
        tracing::info!(webhook = %spec.id, "webhook request dispatched");
        // Failures reach the owner through the runner (BGF-5); a spec naming a skill or a
        // subagent that isn't there is skipped by admission, which says so (WHK-13, BGF-21).
        let _ = self.runner.run_sampled(job, busy).await;
    }

    /// Keeps `request` and posts the notice with its buttons; a notice that can't be posted
    /// leaves the request held, and the log says so.
    async fn hold(&self, request: HeldRequest) {
        let (id, reason) = (request.webhook_id.clone(), request.reason.clone());
        let hold_id = match self.held.hold(request) {
            Ok(hold_id) => hold_id,
            Err(error) => {
                tracing::error!(webhook = %id, %error, "could not keep a held webhook request; it is lost");
                return;
            }
        };
        match self
            .front_end
            .send_embed(hold_notice(&hold_id, &id, &reason))
            .await
        {
            Ok(Some(message_id)) => {
                if let Err(error) = self.held.set_message(&hold_id, message_id) {
                    tracing::warn!(%error, "could not record the hold notice");
                }
            }
            Ok(None) => tracing::warn!(webhook = %id, "the hold notice got no message id"),
            Err(error) => tracing::warn!(webhook = %id, %error, "could not post the hold notice"),
        }
    }
}

/// The owner's notice about a held request, with its Run / Drop buttons.
fn hold_notice(hold_id: &str, webhook_id: &str, reason: &str) -> Embed {
    let button = |label: &str, action: &str, style| {
        EmbedButton::new(label, format!("{action}:{hold_id}"), style)
    };
    Embed {
        title: "Webhook request held".to_owned(),
        description: Some(format!(
            "A request to `{webhook_id}` was not run: its data could not be checked for \
             instructions aimed at me ({reason}). Run it only if you expected it and trust \
             the sender."
        )),
        color: EmbedColor::Yellow,
        fields: Vec::new(),
        buttons: vec![
            button("Run it", RUN_ACTION, ButtonStyle::Danger),
            button("Drop", DROP_ACTION, ButtonStyle::Secondary),
        ],
        footer: None,
    }
}

/// The payload as a JSON object text with its keys in the order sent.
fn payload_text(payload: &Payload) -> String {
    let entries: Vec<String> = payload
        .entries()
        .iter()
        .map(|(key, value)| format!("{}:{value}", serde_json::Value::from(key.as_str())))
        .collect();
    format!("{{{}}}", entries.join(","))
}

mod waiting;

#[cfg(test)]
#[path = "webhook_dispatch_tests.rs"]
mod tests;
