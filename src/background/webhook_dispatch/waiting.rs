//! Webhook requests that arrive once today's background budget is spent (USE-6): kept, not yet
//! screened, in the held-requests store, and handled like a new request (screened, then run)
//! once the budget allows again: the day turned, or the owner raised or lifted it.

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, Utc};

use super::{Inner, WebhookDispatch, payload_text};
use crate::{
    background::budget::OverBudget,
    state::held_webhooks::{HeldRequest, HoldCause},
    webhooks::{WebhookSpec, payload::Payload, request::prepare},
};

impl WebhookDispatch {
    /// Looks every `every` for requests waiting for the budget and handles them once it
    /// allows; the task ends with [`Self::shutdown`].
    pub fn watch_waiting(&self, every: Duration) {
        let inner = Arc::clone(&self.0);
        self.0.tasks.spawn(async move {
            loop {
                tokio::select! {
                    () = inner.stop.cancelled() => return,
                    () = tokio::time::sleep(every) => {}
                }
                inner.release_waiting().await;
                tracing::debug!("looked at the webhook requests waiting for the budget");
            }
        });
    }
}

impl Inner {
    /// Keeps a request that arrived over today's budget; the owner hears of the budget once
    /// that day (with the scheduled runs).
    pub(super) async fn wait_for_budget(
        &self,
        spec: &WebhookSpec,
        payload: &Payload,
        received_at: DateTime<Utc>,
        over: &OverBudget,
    ) {
        tracing::info!(webhook = %spec.id, spent = over.spent, "over today's background budget; the request waits");
        let request = HeldRequest {
            webhook_id: spec.id.clone(),
            reason: format!("today's background budget ({}) was spent", over.limit()),
            received_at,
            payload: payload_text(payload),
            message_id: None,
            cause: HoldCause::OverBudget,
        };
        if let Err(error) = self.held.hold(request) {
            tracing::error!(webhook = %spec.id, %error, "could not keep a webhook request waiting for the budget; it is lost");
        }
        self.budget.tell_once(self.front_end.as_ref(), over).await;
    }

    /// Handles the waiting requests, oldest first, when the budget allows.
    async fn release_waiting(self: &Arc<Self>) {
        if !self.held.any_waiting()
            || self
                .budget
                .check(&self.services, self.services.clock.now())
                .await
                .is_some()
        {
            return;
        }
        let waiting = match self.held.take_waiting() {
            Ok(waiting) => waiting,
            Err(error) => {
                tracing::warn!(%error, "could not take the webhook requests waiting for the budget");
                return;
            }
        };
        tracing::info!(
            count = waiting.len(),
            "the background budget allows work again; handling the waiting webhook requests"
        );
        for request in waiting {
            let id = request.webhook_id;
            let spec = match self.specs.find(&id) {
                Ok(Some(spec)) => spec,
                Ok(None) => {
                    self.drop_waiting(&id, "the webhook no longer exists").await;
                    continue;
                }
                Err(error) => {
                    self.drop_waiting(&id, &error.to_string()).await;
                    continue;
                }
            };
            match prepare(&spec, request.payload.as_bytes()) {
                Ok(prepared) => self.spawn_request(spec, prepared, request.received_at, None),
                Err(rejection) => {
                    let reason = format!("its payload no longer fits: {}", rejection.body());
                    self.drop_waiting(&id, &reason).await;
                }
            }
        }
    }

    /// Tells the owner a waiting request to `id` can't be run any more, and why.
    async fn drop_waiting(&self, id: &str, reason: &str) {
        tracing::warn!(webhook = %id, %reason, "a webhook request waiting for the budget is dropped");
        let text =
            format!("A `{id}` webhook request that waited for the budget was dropped: {reason}.");
        if let Err(error) = self.front_end.send_text(text).await {
            tracing::warn!(%error, "could not tell the owner about the dropped request");
        }
    }
}
